// response-schema for JavaScript: the language of SPEC.md, written from it (rule ids in comments).

import { ParseError, ResponseSchemaError, SchemaError } from "./errors.js";
import { walk } from "./parser.js";
import { compileSchema } from "./schema.js";
import { Tools, ToolsError } from "./tools.js";

export { ParseError, ResponseSchemaError, SchemaError, Tools, ToolsError };
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
    const tools =
      options.tools === undefined || options.tools === null || options.tools instanceof Tools
        ? (options.tools ?? null)
        : new Tools(options.tools);
    if (typeof text !== "string")
      throw new ParseError("type-mismatch", "", `the input must be a string, not ${typeof text}`);
    const message = walk(this.root, text);
    return tools === null ? message : tools.typed(message);
  }
}

/** Validates `schema` and compiles it once; throws SchemaError for any malformed schema. */
export function compile(schema) {
  return new Parser(compileSchema(schema));
}

const cache = new Map(); // schema text -> Parser, the last 256 distinct schemas
const CACHE_SIZE = 256;

/** `compile(schema).parse(text, options)`, reusing compiled schemas (keyed by their JSON text). */
export function parse(schema, text, options = {}) {
  let key;
  try {
    key = JSON.stringify(schema);
  } catch {
    return compile(schema).parse(text, options); // not plain data: compile says what is wrong with it
  }
  let parser = cache.get(key);
  if (parser === undefined) {
    parser = compile(schema);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value);
    cache.set(key, parser);
  }
  return parser.parse(text, options);
}
