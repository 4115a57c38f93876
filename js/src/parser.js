// Walking a compiled schema over a model's output: the processing steps of SPEC.md sections 4 to 8.

import { put } from "./data.js";
import { ParseError } from "./errors.js";
import { JMESPathTypeError, search } from "./jmespath.js";
import { isJsonValue } from "./schema.js";
import { JsonFailure, gemma4ToJson, readJson } from "./textparsers.js";

export const NO_VALUE = Symbol("no value"); // a regex stage found nothing: the node produces no value at once

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** A copy of a schema value that the caller may change without changing the schema. */
function fresh(value) {
  return value !== null && typeof value === "object" ? structuredClone(value) : value;
}

function preview(content) {
  const text = JSON.stringify(content) ?? String(content);
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

function describe(content) {
  if (content === null) return "no value";
  return `${Array.isArray(content) ? "array" : typeof content} ${preview(content)}`;
}

function mismatch(node, what, content) {
  return new ParseError("type-mismatch", node.path, `${what}, got ${describe(content)}`);
}

function needString(node, content, stage) {
  if (typeof content !== "string") throw mismatch(node, `${stage} needs string input`, content); // [NODE-4]
}

/** One node's processing steps, in the order of [NODE-1]. */
export function walk(node, content) {
  if (node.hasConst) return fresh(node.const); // [CONST-1]
  if (content === null) return null; // [NODE-2]
  const staged = stages(node, content);
  if (staged === NO_VALUE) return null;
  return TYPES[node.type ?? "any"](node, staged);
}

/** Steps 3 to 7 of [NODE-1]: the string check, the regex keywords and the parser; NO_VALUE when a regex keyword
 * found nothing. */
export function stages(node, content) {
  if (node.needsString && typeof content !== "string")
    throw mismatch(node, "a regex keyword needs string input", content); // [NODE-3]
  for (const [pattern, template] of node.substitutions) content = pattern.replace(content, template); // [SUBS-2]
  if (node.regex !== null) {
    const match = node.regex.first(content); // [REGEX-2]
    if (match === null) return NO_VALUE; // [REGEX-4]
    content = matchValue(node.regex, match);
  }
  return laterStages(node, content);
}

/** The stages after x-regex: x-regex-iterator, x-regex-key-value and the parser. */
export function laterStages(node, content) {
  if (node.iterator !== null) {
    needString(node, content, "x-regex-iterator"); // [ITER-2]
    content = [...node.iterator.all(content)].map((match) => matchValue(node.iterator, match));
    if (content.length === 0) return NO_VALUE; // [ITER-4]
  }
  if (node.keyValue !== null) {
    needString(node, content, "x-regex-key-value"); // [KV-3]
    content = keyValues(node, content);
    if (Object.keys(content).length === 0) return NO_VALUE; // [KV-5]
  }
  if (node.parser !== null) content = runParser(node, content); // [PARSER-2]
  return content;
}

/** [REGEX-5] Named groups give an object of the groups that took part; else the group's text or no value. */
function matchValue(pattern, match) {
  if (pattern.names.length > 0) {
    const out = {};
    for (const name of pattern.names) if (match.groups[name] !== undefined) put(out, name, match.groups[name]);
    return out;
  }
  return match[1] ?? null; // [REGEX-6]
}

function keyValues(node, content) {
  const pairs = {};
  for (const match of node.keyValue.all(content)) {
    const { key, value } = match.groups;
    if (key === undefined || value === undefined) {
      throw new ParseError(
        "unmatched-group",
        node.path,
        `a match of x-regex-key-value left ${key === undefined ? "key" : "value"} unmatched: ${preview(match[0])}`,
      ); // [KV-4]
    }
    put(pairs, key, value); // [KV-3] the last duplicate wins
  }
  return pairs;
}

export function runParser(node, content) {
  needString(node, content, `x-parser ${node.parser}`);
  const text = node.parser === "gemma4-tool-call" ? gemma4ToJson(content) : content; // [GEMMA-1]
  let value = readJson(text); // [JSON-1]
  if (value instanceof JsonFailure) {
    if (value.tooDeep) throw new ParseError("json-too-deep", node.path, value.message); // [LIMIT-2]
    if (!node.allowNonJson)
      throw new ParseError("invalid-json", node.path, `not JSON (${value.message}): ${preview(content)}`); // [ARGS-4]
    value = content; // the text the parser received, not the rewritten one
  }
  if (node.transform !== null) {
    try {
      value = search(node.transform, value); // [ARGS-3]
    } catch (error) {
      if (!(error instanceof JMESPathTypeError || error instanceof RangeError)) throw error;
      throw new ParseError("transform-failed", node.path, `transform failed: ${error.message}`);
    }
    if (!isJsonValue(value))
      throw new ParseError("transform-failed", node.path, "the transform gave a value JSON cannot hold"); // [ARGS-5]
  }
  return value;
}

function object(node, content) {
  const output = {};
  if (typeof content === "string") {
    if (!node.hasProperties) throw mismatch(node, "an object node without properties cannot take a string", content); // [OBJ-3]
    for (const [name, child] of node.properties) {
      const value = walk(child, content);
      if (value !== null) put(output, name, value); // [OBJ-2] no value or null: the key is left out
    }
  } else if (isObject(content)) {
    for (const [name, child] of node.properties) {
      // [OBJ-4]
      if (child.hasConst) put(output, name, fresh(child.const));
      else if (Object.hasOwn(content, name)) put(output, name, walk(child, content[name]));
      else if (child.hasDefault) put(output, name, fresh(child.default)); // [OBJ-5]
    }
    if (node.additional !== false) {
      for (const [name, value] of Object.entries(content)) {
        // [OBJ-6]
        if (!node.propertyNames.has(name))
          put(output, name, node.additional === true ? value : walk(node.additional, value));
      }
    }
  } else {
    throw mismatch(node, "an object node needs a string or an object", content); // [OBJ-1]
  }
  const missing = node.required.filter((name) => !Object.hasOwn(output, name)); // [OBJ-7]
  if (missing.length > 0)
    throw new ParseError(
      "missing-required",
      node.path,
      `required keys missing from the result: ${JSON.stringify(missing)}`,
    );
  return output;
}

function isEmpty(content) {
  // [ARR-1] no value, "", [], {}, false, or a number equal to zero
  return (
    content === null ||
    content === "" ||
    content === false ||
    content === 0 ||
    (Array.isArray(content) && content.length === 0) ||
    (isObject(content) && Object.keys(content).length === 0)
  );
}

function array(node, content) {
  if (isEmpty(content)) return [];
  if (node.items !== null) {
    if (!Array.isArray(content)) throw mismatch(node, "an array node with items needs an array", content); // [ARR-2]
    return content.map((item) => walk(node.items, item));
  }
  if (!Array.isArray(content)) {
    if (node.prefixItems.length !== 1)
      throw mismatch(node, "an array node with several prefixItems needs an array", content); // [ARR-3]
    content = [content];
  }
  if (content.length !== node.prefixItems.length) {
    throw new ParseError(
      "length-mismatch",
      node.path,
      `${content.length} items for ${node.prefixItems.length} prefixItems`,
    ); // [ARR-4]
  }
  return node.prefixItems.map((child, index) => walk(child, content[index]));
}

function string(node, content) {
  if (typeof content !== "string") throw mismatch(node, "a string node needs a string", content); // [STR-1]
  return content;
}

const INTEGER = /^[ \t\n\r\f\v]*[+-]?[0-9]+[ \t\n\r\f\v]*$/; // [INT-1] core syntax
const NUMBER = /^[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\f\v]*$/; // [NUM-1]
const NON_FINITE = /^[ \t\n\r\f\v]*[+-]?(?:inf|infinity|nan)[ \t\n\r\f\v]*$/i;

function integer(node, content) {
  if (typeof content === "boolean") return content; // [INT-2] a wart
  if (typeof content === "number") {
    if (Number.isInteger(content)) return content; // [INT-2]; a whole double passes: no json-number-kinds
    throw mismatch(node, "an integer node needs an integer", content); // [INT-3]
  }
  if (typeof content !== "string") throw mismatch(node, "an integer node needs a string or an integer", content);
  if (!INTEGER.test(content)) throw new ParseError("invalid-value", node.path, `not an integer: ${preview(content)}`); // [INT-1]
  return Number(content.trim());
}

function number(node, content) {
  let value;
  if (typeof content === "string") {
    if (NUMBER.test(content))
      value = Number(content.trim()); // [NUM-1]
    else if (NON_FINITE.test(content)) value = NaN;
    else throw new ParseError("invalid-value", node.path, `not a number: ${preview(content)}`);
  } else if (typeof content === "number" || typeof content === "boolean") {
    value = Number(content); // [NUM-2] booleans included: a wart
  } else {
    throw mismatch(node, "a number node needs a string or a number", content);
  }
  if (!Number.isFinite(value))
    throw new ParseError("invalid-value", node.path, `not a finite number: ${preview(content)}`); // [NUM-3]
  return value;
}

function boolean(node, content) {
  if (typeof content === "boolean") return content; // [BOOL-2]
  if (typeof content !== "string") throw mismatch(node, "a boolean node needs a string or a boolean", content);
  const lowered = content.toLowerCase(); // [BOOL-1]
  if (lowered === "true" || lowered === "1") return true;
  if (lowered === "false" || lowered === "0") return false;
  throw new ParseError("invalid-value", node.path, `not a boolean: ${preview(content)}`);
}

export const TYPES = { object, array, string, integer, number, boolean, any: (node, content) => content }; // [ANY-1]
