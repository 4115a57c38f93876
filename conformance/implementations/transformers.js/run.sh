#!/usr/bin/env bash
# Runs transformers.js's port of recursive_parse through the harness. Its code is never committed here:
#   (a checkout of github huggingface/transformers.js, branch chat-response-parsing, pull request 1639)
#   conformance/implementations/transformers.js/run.sh /path/to/checkout [harness options...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkout="$(cd "${1:?usage: run.sh /path/to/transformers.js [harness options...]}" && pwd)"
shift
commit="$(git -C "$checkout" rev-parse --short HEAD 2>/dev/null || echo unknown)"
TRANSFORMERS_JS="$checkout" TRANSFORMERS_JS_COMMIT="$commit" response-schema conformance run \
  --command "node $here/../../adapters/node/adapter.mjs $here/impl.mjs" \
  --known-failures "$here/known-failures.json" --timeout 2 "$@"
