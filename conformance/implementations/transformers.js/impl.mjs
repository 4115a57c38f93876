// transformers.js's port of recursive_parse (github huggingface/transformers.js, branch chat-response-parsing,
// pull request 1639), as an implementation under test through the kit's Node adapter. Its code is not here: give
// the path of a checkout in TRANSFORMERS_JS (see run.sh).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.TRANSFORMERS_JS;
if (!root) throw new Error("set TRANSFORMERS_JS to a checkout of transformers.js (branch chat-response-parsing)");
const { recursive_parse } = await import(
  pathToFileURL(join(root, "packages/transformers/src/utils/chat_parsing.js")).href
);

export const NAME = "transformers.js chat_parsing.js";
export const VERSION = process.env.TRANSFORMERS_JS_COMMIT ?? "";
// What it really has: the Gemma 4 parser, and ECMAScript's lookarounds. Not declared: (?P=name) is not
// translated, \w and \d are ASCII (no u flag), and the rest of features.json is Python's.
export const FEATURES = ["gemma4-tool-call", "regex-lookaround"];
// It throws plain Errors; their messages do not name SPEC.md categories reliably (see IMPLEMENTATIONS.md).
export const CATEGORIZES_ERRORS = false;

export function parse(schema, text) {
  return recursive_parse(text, schema); // as its parse_response does: the whole output, unchanged
}
