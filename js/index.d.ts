// Types of the response-schema JavaScript API (src/index.js).

export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** A phase, a category of SPEC.md section 10, and the JSON Pointer of the schema node at fault. */
export class ResponseSchemaError extends Error {
  readonly phase: "schema" | "input";
  readonly category: string;
  readonly path: string;
  /** The message without the category and path. */
  readonly detail: string;
}

/** The schema is malformed, whatever the input. */
export class SchemaError extends ResponseSchemaError {
  readonly phase: "schema";
  /** Every problem found in the schema, this one first. */
  problems: SchemaError[];
}

/** This input does not fit this valid schema. */
export class ParseError extends ResponseSchemaError {
  readonly phase: "input";
}

/** A compiled schema: immutable, reusable. */
export class Parser {
  /** The message `text` parses to; null when the root yields no value. Throws ParseError. */
  parse(text: string): JSONValue;
}

/** Validates `schema` and compiles it once. Throws SchemaError. */
export function compile(schema: JSONValue): Parser;

/** `compile(schema).parse(text)`, reusing compiled schemas. */
export function parse(schema: JSONValue, text: string): JSONValue;

export const VERSION: string;
export const SPEC_VERSION: string;
/** The optional features of conformance/features.json this implementation has. */
export const FEATURES: readonly string[];
