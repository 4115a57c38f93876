#!/usr/bin/env bash
# Runs llama-cpp-python's example server's ResponseParser through the harness, in a virtual environment of its
# own (the standalone Python adapter needs nothing else). Its code is never committed here:
#   (a checkout of github abetlen/llama-cpp-python; only examples/server/server.py is used)
#   python -m venv VENV && VENV/bin/pip install openai fastapi uvicorn numpy jinja2 pydantic jmespath
#   conformance/implementations/llama-cpp-python/run.sh /path/to/checkout VENV [harness options...]
#   (add --stream to run its streaming path, ResponseParser.consume_completion_chunk, through the streaming harness)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkout="$(cd "${1:?usage: run.sh /path/to/llama-cpp-python VENV [harness options...]}" && pwd)"
venv="$(cd "${2:?usage: run.sh /path/to/llama-cpp-python VENV [harness options...]}" && pwd)"
shift 2
commit="$(git -C "$checkout" rev-parse --short HEAD 2>/dev/null || echo unknown)"
LLAMA_CPP_PYTHON="$checkout" LLAMA_CPP_PYTHON_COMMIT="$commit" response-schema conformance run \
  --command "$venv/bin/python $here/../../adapters/python/adapter.py impl:parse --path $here --name llama-cpp-python-ResponseParser" \
  --known-failures "$here/known-failures.json" "$@"
