// Typed tool arguments (SPEC.md section 15): the request's tools give the parsed arguments their types.
// `new Tools(definitions)` reads OpenAI function definitions once ([TOOLS-1]); `tools.typed(message)` gives the
// message with the arguments of every call to a known tool typed by its parameter schema ([TOOLS-2] to
// [TOOLS-6]). Typing runs on the one-shot result and never fails: a text no declared type takes stays the text.

import { put } from "./data.js";
import { ResponseSchemaError } from "./errors.js";
import { JsonFailure, readJson } from "./textparsers.js";

const SPACE = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g; // around a number, as [INT-1] reads it
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** What a conversion gives when the text does not denote a value of the kind. */
export const NO_VALUE = Symbol("no value");

/** The tools are not a list of function definitions ([TOOLS-1]): phase "tools", category "invalid-tools". */
export class ToolsError extends ResponseSchemaError {
  constructor(path, message) {
    super("tools", "invalid-tools", path, message);
  }
}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** The request's tools, read once: each function's name and parameter properties. */
export class Tools {
  constructor(definitions) {
    if (!Array.isArray(definitions))
      throw new ToolsError("", `tools must be a list of function definitions, not ${kindOf(definitions)}`);
    this.parameters = new Map();
    definitions.forEach((tool, index) => {
      const fn = isObject(tool) ? (Object.hasOwn(tool, "function") ? tool.function : tool) : null;
      const name = isObject(fn) ? fn.name : undefined;
      if (!isObject(fn) || typeof name !== "string")
        throw new ToolsError(`/${index}`, "a function definition needs a string name");
      if (this.parameters.has(name)) throw new ToolsError(`/${index}`, `a second tool named ${JSON.stringify(name)}`);
      const parameters = Object.hasOwn(fn, "parameters") ? fn.parameters : {};
      const properties = isObject(parameters)
        ? Object.hasOwn(parameters, "properties")
          ? parameters.properties
          : {}
        : null;
      if (!isObject(properties)) throw new ToolsError(`/${index}`, "parameters.properties must be an object");
      this.parameters.set(name, properties);
    });
    Object.freeze(this);
  }

  /** [TOOLS-2] The message with each call to a known tool given typed arguments; everything else as it is. */
  typed(message) {
    if (!isObject(message) || !Array.isArray(message.tool_calls)) return message;
    return { ...message, tool_calls: message.tool_calls.map((call) => this.typedCall(call)) };
  }

  /** [TOOLS-3] One call: typed when its name is a tool's and its arguments an object. */
  typedCall(call) {
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(fn) || !isObject(fn.arguments) || !this.parameters.has(fn.name)) return call;
    return { ...call, function: { ...fn, arguments: this.typedArguments(fn.name, fn.arguments) } };
  }

  /** [TOOLS-3] The arguments of a call to the tool `name`: each parameter's by its schema, others kept. */
  typedArguments(name, args) {
    const properties = this.parameters.get(name);
    const out = {};
    for (const [key, value] of Object.entries(args))
      put(out, key, typed(value, Object.hasOwn(properties, key) ? properties[key] : undefined));
    return out;
  }

  /** Whether `name` is a tool's (streaming, [TOOLS-7]). */
  knows(name) {
    return this.parameters.has(name);
  }
}

/** [TOOLS-4] `value` typed by the parameter schema `schema` (undefined: an unknown parameter, kept). */
export function typed(value, schema) {
  if (typeof value !== "string") return typedInside(value, schema); // a value the parse typed keeps its type
  for (const kind of types(schema)) {
    if (kind === "string") continue; // a text is kept as text only when no other type takes it
    const converted = convert(value, kind);
    if (converted !== NO_VALUE) return typedInside(converted, schema);
  }
  return value;
}

/** [TOOLS-5] An object's properties and an array's items, typed by the schema's `properties` and `items`. */
function typedInside(value, schema) {
  if (!isObject(schema)) return value;
  if (isObject(value) && isObject(schema.properties)) {
    const out = {};
    for (const [key, item] of Object.entries(value))
      put(out, key, typed(item, Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined));
    return out;
  }
  if (Array.isArray(value) && isObject(schema.items)) return value.map((item) => typed(item, schema.items));
  return value;
}

/** [TOOLS-4] The types a parameter schema declares, in order; with none, the kinds of its enum and const. */
export function types(schema) {
  if (!isObject(schema)) return [];
  const found = [];
  const add = (kind) => {
    if (typeof kind === "string" && !found.includes(kind)) found.push(kind);
  };
  const declared = schema.type;
  for (const kind of typeof declared === "string" ? [declared] : Array.isArray(declared) ? declared : []) add(kind);
  for (const union of ["anyOf", "oneOf"])
    for (const alternative of Array.isArray(schema[union]) ? schema[union] : []) types(alternative).forEach(add);
  if (schema.nullable === true) add("null");
  if (found.length === 0) {
    const values = [
      ...(Array.isArray(schema.enum) ? schema.enum : []),
      ...(Object.hasOwn(schema, "const") ? [schema.const] : []),
    ];
    for (const item of values) add(kindOf(item));
  }
  return found;
}

/** [TOOLS-6] `text` as a value of `kind`, or NO_VALUE when it does not denote one. */
export function convert(text, kind) {
  if (kind === "integer" || kind === "number") {
    const numberText = text.replace(SPACE, "");
    if (!NUMBER.test(numberText)) return NO_VALUE;
    const value = Number(numberText);
    if (!Number.isFinite(value)) return NO_VALUE; // [JSON-3]: not a JSON number
    if (kind === "integer" && !Number.isInteger(value)) return NO_VALUE;
    return value;
  }
  if (kind === "boolean") {
    const word = text.replace(SPACE, "").toLowerCase();
    return word === "true" || word === "1" ? true : word === "false" || word === "0" ? false : NO_VALUE;
  }
  if (kind === "null") {
    const word = text.replace(SPACE, "");
    return word === "null" || word === "None" ? null : NO_VALUE;
  }
  if (kind === "object" || kind === "array") {
    const value = readJson(text); // [JSON-1] to [JSON-3]
    if (value instanceof JsonFailure) return NO_VALUE;
    return (kind === "object" ? isObject(value) : Array.isArray(value)) ? value : NO_VALUE;
  }
  return NO_VALUE; // "string" and names JSON Schema does not have
}

function kindOf(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "string";
  return Array.isArray(value) ? "array" : isObject(value) ? "object" : typeof value;
}
