// The built-in parsers of SPEC.md section 7: strict JSON ([JSON-*], [LIMIT-2]) and gemma4-tool-call ([GEMMA-*]).

export const MAX_JSON_DEPTH = 256; // [LIMIT-2]

/** Why a text is not one JSON value ([JSON-1] to [JSON-3], [LIMIT-2]); returned, not thrown: a failure on the
 * normal path (an argument value that is plain text) costs no exception. */
export class JsonFailure {
  constructor(tooDeep, message) {
    this.tooDeep = tooDeep;
    this.message = message;
  }
}

const BRACKETS = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"?|[[\]{}]/g;

/** Whether a JSON text nests deeper than `limit`, read lexically ([LIMIT-2]). */
export function tooDeep(text, limit) {
  let brackets = 0;
  for (const char of text) if (char === "[" || char === "{") brackets++;
  if (brackets <= limit) return false;
  let depth = 0;
  for (const [token] of text.matchAll(BRACKETS)) {
    if (token === "[" || token === "{") {
      if (++depth > limit) return true;
    } else if (token === "]" || token === "}") {
      depth = Math.max(0, depth - 1);
    }
  }
  return false;
}

// What a JSON text can start with after its whitespace; any other text is not JSON without asking JSON.parse.
const JSON_START = /^[ \t\n\r]*(?:[{["\d-]|true|false|null)/;

/** One JSON value with optional whitespace around it ([JSON-1]), or the JsonFailure that says why the text is not
 * one; numbers beyond a double are not JSON ([JSON-3]). */
export function readJson(text) {
  if (tooDeep(text, MAX_JSON_DEPTH)) return new JsonFailure(true, `JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (!JSON_START.test(text)) return new JsonFailure(false, "not the start of a JSON value");
  let value;
  try {
    value = JSON.parse(text); // RFC 8259: no NaN, comments, trailing commas, raw control characters or BOM
  } catch (error) {
    return new JsonFailure(false, error.message);
  }
  return finite(value) ? value : new JsonFailure(false, "a number out of the range of a double");
}

/** Whether a value parsed by `JSON.parse` holds only finite numbers ([JSON-3]: `1e400` parses to an infinity). */
export function finite(value) {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "number" && !Number.isFinite(item)) return false;
    if (item !== null && typeof item === "object") stack.push(...Object.values(item));
  }
  return true;
}

const GEMMA_STRING = /<\|"\|>([\s\S]*?)<\|"\|>/g;
const GEMMA_BARE_KEY = /(?<=[{,])([\p{L}\p{N}_]+):/gu;

/** Gemma 4 tool-call arguments as JSON text ([GEMMA-1], [GEMMA-2]). */
export function gemma4ToJson(text) {
  const parts = [];
  let position = 0;
  for (const match of text.matchAll(GEMMA_STRING)) {
    parts.push(text.slice(position, match.index).replace(GEMMA_BARE_KEY, '"$1":'), JSON.stringify(match[1]));
    position = match.index + match[0].length;
  }
  parts.push(text.slice(position).replace(GEMMA_BARE_KEY, '"$1":'));
  return parts.join("");
}
