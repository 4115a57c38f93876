// The error model of SPEC.md section 10: a phase, a category from a closed list, and a JSON Pointer.

/** [ERR-2] The closed list of categories, by phase. */
export const SCHEMA_CATEGORIES = new Set([
  "invalid-keyword",
  "unknown-keyword",
  "invalid-regex",
  "unknown-parser",
  "invalid-transform",
  "schema-too-deep",
]);
export const INPUT_CATEGORIES = new Set([
  "type-mismatch",
  "invalid-json",
  "invalid-value",
  "missing-required",
  "length-mismatch",
  "unmatched-group",
  "transform-failed",
  "json-too-deep",
]);

/** The JSON Pointer (RFC 6901) of a location given as keys and indices. */
export function pointer(parts) {
  return parts.map((part) => "/" + String(part).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/** Base of every error this implementation raises ([ERR-1]). */
export class ResponseSchemaError extends Error {
  constructor(phase, category, path, message) {
    super(`${category} at ${path || '""'}: ${message}`);
    this.name = new.target.name;
    this.phase = phase;
    this.category = category;
    this.path = path;
    this.detail = message;
  }
}

/** The schema is malformed, whatever the input ([ERR-3]); `problems` lists every problem, this one first. */
export class SchemaError extends ResponseSchemaError {
  constructor(category, path, message) {
    super("schema", category, path, message);
    this.problems = [this];
  }
}

/** This input does not fit this valid schema ([ERR-4]). */
export class ParseError extends ResponseSchemaError {
  constructor(category, path, message) {
    super("input", category, path, message);
  }
}
