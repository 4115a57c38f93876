// Types for "response-schema-js/adapter": the implementers' kit adapter (protocol v1, conformance/PROTOCOL.md).

/** Why a value cannot be written as JSON (NaN, an infinity, undefined, too deep...), or "" when it can. */
export function unrepresentable(value: unknown): string;

/** What an implementation says in its hello answer, and the function that parses. */
export interface Served {
  parse(schema: unknown, text: string): unknown;
  name: string;
  version?: string;
  language?: string;
  features?: string[];
  categorizesErrors?: boolean;
}

/** Answers protocol requests on standard input until shutdown or the end of input (Node.js only). */
export function serve(implementation: Served): void;
