// response-schema for JavaScript: the language of SPEC.md, written from it (rule ids in comments).

import { ParseError, ResponseSchemaError, SchemaError } from "./errors.js";
import { walk } from "./parser.js";
import { OpenAIStream } from "./openai.js";
import { compileSchema } from "./schema.js";
import { Stream, StreamFinished, apply } from "./stream/index.js";
import { Tools, ToolsError } from "./tools.js";

export { OpenAIStream, ParseError, ResponseSchemaError, SchemaError, Stream, StreamFinished, Tools, ToolsError, apply };
export const VERSION = "0.2.0";
export const SPEC_VERSION = "1.2";
/**
 * The optional features of conformance/features.json this implementation has. Not declared, honestly:
 * x-mapping (legacy), regex-scoped-flags, regex-verbose, regex-atomic, regex-python-only (no ECMAScript
 * translation), regex-capture-in-repeat and regex-backreference-unset (ECMAScript semantics differ),
 * python-numeric-syntax, big-integers and json-number-kinds (JavaScript numbers are doubles).
 */
export const FEATURES = Object.freeze([
  "gemma4-tool-call",
  "regex-lookaround",
  "regex-backreference",
  "unicode-classes",
  "template-octal-escape",
  "typed-arguments",
]);

/** A compiled schema: immutable, reusable. */
export class Parser {
  constructor(root) {
    this.root = root;
    Object.freeze(this);
  }

  /**
   * The message `text` parses to ([GEN-1]); null when the root yields no value ([GEN-3]). `options.tools`, the
   * request's function definitions (or a `Tools` made from them once), type the arguments of calls to them
   * (SPEC.md section 15).
   */
  parse(text, options = {}) {
    const tools = toolsOf(options.tools);
    const prefix = options.prefix ?? "";
    for (const [name, value] of [
      ["input", text],
      ["prefix", prefix],
    ]) {
      if (typeof value !== "string")
        throw new ParseError("type-mismatch", "", `the ${name} must be a string, not ${typeof value}`);
    }
    const message = walk(this.root, prefix + text); // [GEN-5]: the root receives prefix + input
    return tools === null ? message : tools.typed(message);
  }

  /**
   * A stream that parses an output fed in chunks (SPEC.md section 14): `feed(text)` and `finish()` return deltas,
   * `message` is what was sent so far, always a part of the one-shot result of `parse(output, options)` (typed by
   * `options.tools`, [TOOLS-7]). `options.prefix` is read first ([STREAM-9]). Streams are independent.
   */
  stream(options = {}) {
    return new Stream(this, options.prefix ?? "", toolsOf(options.tools));
  }
}

/** The tools of a call: null for none, read now when given as definitions ([TOOLS-1]). */
function toolsOf(tools) {
  return tools === undefined || tools === null || tools instanceof Tools ? (tools ?? null) : new Tools(tools);
}

/** Validates `schema` and compiles it once; throws SchemaError for any malformed schema. */
export function compile(schema) {
  return new Parser(compileSchema(schema));
}

const cache = new Map(); // schema text -> Parser, the last 256 distinct schemas
const CACHE_SIZE = 256;

/** `compile(schema).parse(text, options)`, reusing compiled schemas (keyed by their JSON text). */
export function parse(schema, text, options = {}) {
  return compiled(schema).parse(text, options);
}

/** `compile(schema).stream(options)`, reusing compiled schemas as `parse` does. */
export function stream(schema, options = {}) {
  return compiled(schema).stream(options);
}

function compiled(schema) {
  let key;
  try {
    key = JSON.stringify(schema);
  } catch {
    return compile(schema); // not plain data: compile says what is wrong with it
  }
  let parser = cache.get(key);
  if (parser === undefined) {
    parser = compile(schema);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value);
    cache.set(key, parser);
  }
  return parser;
}
