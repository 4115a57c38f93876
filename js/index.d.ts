// Types of the response-schema JavaScript API (src/index.js).

export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** A phase, a category of SPEC.md section 10, and the JSON Pointer of the schema node at fault. */
export class ResponseSchemaError extends Error {
  readonly phase: "schema" | "input" | "tools";
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

/** The request's tools are not a list of function definitions (SPEC.md [TOOLS-1]). */
export class ToolsError extends ResponseSchemaError {
  readonly phase: "tools";
  readonly category: "invalid-tools";
}

/** An OpenAI function definition, with or without the `{"type": "function", "function": ...}` wrapper. */
export type ToolDefinition =
  | { type?: "function"; function: { name: string; parameters?: JSONValue; [key: string]: unknown } }
  | { name: string; parameters?: JSONValue; [key: string]: unknown };

/** The request's tools, read once (SPEC.md section 15). Throws ToolsError. */
export class Tools {
  constructor(definitions: ToolDefinition[]);
  /** The message with the arguments of every call to a known tool typed by its parameters. */
  typed(message: JSONValue): JSONValue;
}

export interface ParseOptions {
  /** The request's tools: the arguments of calls to them are typed by their parameters (SPEC.md section 15). */
  tools?: ToolDefinition[] | Tools | null;
}

/** A compiled schema: immutable, reusable. */
export class Parser {
  /** The message `text` parses to; null when the root yields no value. Throws ParseError (or ToolsError). */
  parse(text: string, options?: ParseOptions): JSONValue;
}

/** Validates `schema` and compiles it once. Throws SchemaError. */
export function compile(schema: JSONValue): Parser;

/** `compile(schema).parse(text, options)`, reusing compiled schemas. */
export function parse(schema: JSONValue, text: string, options?: ParseOptions): JSONValue;

export const VERSION: string;
export const SPEC_VERSION: string;
/** The optional features of conformance/features.json this implementation has. */
export const FEATURES: readonly string[];
