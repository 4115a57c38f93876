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
  /** What the assistant turn already held before the output (a prefilled `<think>\n`): the parse reads
   * `prefix + text` (SPEC.md [GEN-5]). */
  prefix?: string;
}

/** One operation of the generic streaming view (SPEC.md [STREAM-7]), applied in order. */
export type Delta =
  /** Puts `value` at the JSON Pointer `path`: the whole value (`""`), a new key, or a new item. */
  | { op: "add"; path: string; value: JSONValue }
  /** Appends `text` to the string at `path`. */
  | { op: "append"; path: string; text: string }
  /** The value at `path`, and every value in it, will not change any more. */
  | { op: "end"; path: string }
  /** Appends `text` to the JSON text of a value not yet in the message (arguments that stream as text). */
  | { op: "json"; path: string; text: string };

/** One output parsed as it arrives (SPEC.md section 14). What it sends is always a part of the one-shot result. */
export class Stream {
  /** Read the next chunk (any length, cut anywhere); the deltas of what it lets the stream send. */
  feed(text: string): Delta[];
  /** The output is complete: the deltas to the one-shot result, or throws its ParseError. Either way it is over. */
  finish(): Delta[];
  /** The partial value sent so far: null before anything was sent. Built when read after a change; never changed later. */
  readonly message: JSONValue;
}

/** `feed` or `finish` on a stream that has finished. */
export class StreamFinished extends Error {}

/** `message` after one delta: what a client does with each delta it receives (`end` and `json` change nothing). */
export function apply(message: JSONValue, delta: Delta): JSONValue;

/** A chat-completion-chunk `delta` (SPEC.md [STREAM-8]). */
export interface ChatDelta {
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
  tool_calls?: {
    index: number;
    id?: string;
    type?: "function";
    function: { name?: string; arguments: string };
  }[];
}

/** A stream seen as OpenAI chat-completion-chunk deltas: `content`, `reasoning_content` (from `thinking`), and
 * each call's header (id, type, whole name) before fragments of its arguments' JSON text. */
export class OpenAIStream {
  constructor(stream: Stream, makeId?: (index: number) => string);
  readonly stream: Stream;
  feed(text: string): ChatDelta[];
  /** Throws the one-shot ParseError when the output does not parse. */
  finish(): ChatDelta[];
}

/** A compiled schema: immutable, reusable. */
export class Parser {
  /** The message `text` parses to; null when the root yields no value. Throws ParseError (or ToolsError). */
  parse(text: string, options?: ParseOptions): JSONValue;
  /** A stream of an output fed in chunks; `options.prefix` is read first. Any number may run on one parser. */
  stream(options?: ParseOptions): Stream;
}

/** Validates `schema` and compiles it once. Throws SchemaError. */
export function compile(schema: JSONValue): Parser;

/** `compile(schema).parse(text, options)`, reusing compiled schemas. */
export function parse(schema: JSONValue, text: string, options?: ParseOptions): JSONValue;

/** `compile(schema).stream(options)`, reusing compiled schemas. */
export function stream(schema: JSONValue, options?: ParseOptions): Stream;

export const VERSION: string;
export const SPEC_VERSION: string;
/** The optional features of conformance/features.json this implementation has. */
export const FEATURES: readonly string[];
