// Compiling a response schema: every check of SPEC.md section 3, done once, before any input is seen.

import { SchemaError, pointer } from "./errors.js";
import { FUNCTIONS, JMESPathSyntaxError, compileExpression, functionCalls } from "./jmespath.js";
import { Pattern, Template, Untranslatable } from "./regex.js";

const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean", "any"]); // [SCHEMA-4]
const PARSERS = new Set(["json", "gemma4-tool-call"]); // [PARSER-1]
const PARSER_ARGS = new Set(["transform", "allow_non_json"]); // [ARGS-1]
const X_KEYWORDS = new Set([
  "x-regex",
  "x-regex-iterator",
  "x-regex-key-value",
  "x-regex-substitutions",
  "x-parser",
  "x-parser-args",
]); // [SCHEMA-3]: x-mapping and x-mapping-regex are the feature x-mapping, which this implementation has not
const STRING_KEYWORDS = ["x-regex", "x-regex-iterator", "x-regex-key-value", "x-regex-substitutions"]; // [NODE-3]
export const MAX_SCHEMA_DEPTH = 64; // [LIMIT-1]

const has = (object, key) => Object.hasOwn(object, key);
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** Compiles a schema; throws SchemaError listing every problem found ([SCHEMA-1]). */
export function compileSchema(schema) {
  const compiler = new Compiler();
  const node = compiler.node(schema, [], 1);
  if (compiler.problems.length > 0) {
    const [first] = compiler.problems;
    first.problems = compiler.problems;
    throw first;
  }
  return node;
}

/** Whether a value is JSON: finite numbers, string keys, no cycles ([SCHEMA-13]). Iterative. */
export function isJsonValue(value) {
  const checked = new Set();
  const open = new Set();
  const stack = [[value, false]];
  while (stack.length > 0) {
    const [item, done] = stack.pop();
    if (done) {
      open.delete(item);
      checked.add(item);
      continue;
    }
    if (item === null || typeof item === "string" || typeof item === "boolean") continue;
    if (typeof item === "number") {
      if (!Number.isFinite(item)) return false;
      continue;
    }
    if (typeof item !== "object") return false;
    if (checked.has(item)) continue;
    if (open.has(item)) return false;
    open.add(item);
    stack.push([item, true], ...Object.values(item).map((child) => [child, false]));
  }
  return true;
}

function kind(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "number") return "a number";
  if (typeof value === "string") return "a string";
  return Array.isArray(value) ? "an array" : "an object";
}

class Compiler {
  constructor() {
    this.problems = [];
  }

  fail(category, path, message) {
    this.problems.push(new SchemaError(category, pointer(path), message));
  }

  node(schema, path, depth) {
    if (!isObject(schema)) {
      this.fail("invalid-keyword", path, `a schema node must be an object, not ${kind(schema)}`); // [SCHEMA-2]
      return null;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      this.fail("schema-too-deep", path, `schema nesting exceeds ${MAX_SCHEMA_DEPTH} levels`); // [LIMIT-1]
      return null;
    }
    for (const key of Object.keys(schema)) {
      if (key.startsWith("x-") && !X_KEYWORDS.has(key))
        this.fail("unknown-keyword", [...path, key], `unknown keyword '${key}'`);
    }
    const type = this.type(schema, path);
    for (const [group, wanted] of [
      [["properties", "additionalProperties", "required"], "object"],
      [["items", "prefixItems"], "array"],
    ]) {
      for (const key of group) {
        if (has(schema, key) && type !== wanted)
          this.fail("invalid-keyword", [...path, key], `'${key}' needs type '${wanted}'`); // [SCHEMA-5]
      }
    }
    for (const key of ["const", "default"]) {
      if (has(schema, key) && !isJsonValue(schema[key]))
        this.fail("invalid-keyword", [...path, key], `'${key}' must be a JSON value`); // [SCHEMA-13]
    }
    const regex = this.pattern(schema, "x-regex", path);
    const iterator = this.pattern(schema, "x-regex-iterator", path);
    const keyValue = this.pattern(schema, "x-regex-key-value", path);
    this.checkGroups(regex, iterator, keyValue, schema, type, path);
    const parser = this.parser(schema, path);
    const stages = ["x-regex-iterator", "x-regex-key-value", "x-parser"].filter((key) => has(schema, key));
    if (stages.length > 1) this.fail("invalid-keyword", path, `${stages.join(" and ")} cannot be combined in one node`); // [SCHEMA-9]
    const properties = this.properties(schema, path, depth);
    const additional = this.additional(schema, path, depth);
    const [items, prefixItems] = this.arrayChildren(schema, type, path, depth);
    const required = this.required(schema, path);
    return {
      path: pointer(path),
      type,
      hasConst: has(schema, "const"),
      const: schema.const,
      hasDefault: has(schema, "default"),
      default: schema.default,
      needsString: STRING_KEYWORDS.some((key) => has(schema, key)),
      substitutions: this.substitutions(schema, path),
      regex,
      iterator,
      keyValue,
      ...parser,
      properties,
      propertyNames: new Set(properties.map(([name]) => name)),
      hasProperties: has(schema, "properties"),
      additional,
      required,
      items,
      prefixItems,
    };
  }

  type(schema, path) {
    if (!has(schema, "type")) return null;
    const type = schema.type;
    if (typeof type !== "string" || !TYPES.has(type)) {
      this.fail("invalid-keyword", [...path, "type"], `unsupported type ${JSON.stringify(type)}`); // [SCHEMA-4]
      return null;
    }
    return type;
  }

  compileRegex(pattern, path) {
    if (typeof pattern !== "string") {
      this.fail("invalid-keyword", path, `a regex must be a string, not ${kind(pattern)}`); // [SCHEMA-6]
      return null;
    }
    try {
      return new Pattern(pattern); // [REGEX-1], appendix A.5
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      this.fail("invalid-regex", path, `regex does not compile: ${error.message}`);
      return null;
    }
  }

  pattern(schema, key, path) {
    return has(schema, key) ? this.compileRegex(schema[key], [...path, key]) : null;
  }

  checkGroups(regex, iterator, keyValue, schema, type, path) {
    const chained = ["x-regex-iterator", "x-regex-key-value", "x-parser"].some((key) => has(schema, key));
    if (regex !== null) {
      const where = [...path, "x-regex"];
      if (regex.names.length > 0) {
        if (chained)
          this.fail(
            "invalid-regex",
            where,
            "an x-regex followed by another stage needs one unnamed group and no named groups",
          );
        // [SCHEMA-10]
        else if (["string", "integer", "number", "boolean"].includes(type))
          this.fail("invalid-regex", where, `named groups give an object, which a ${type} node cannot take`); // [SCHEMA-11]
      } else {
        this.oneUnnamedGroup(regex, where); // [REGEX-3]
      }
    }
    if (iterator !== null) {
      if (type !== "array")
        this.fail("invalid-keyword", [...path, "x-regex-iterator"], "x-regex-iterator needs type 'array'"); // [ITER-1]
      if (iterator.names.length === 0) this.oneUnnamedGroup(iterator, [...path, "x-regex-iterator"]); // [ITER-3]
    }
    if (keyValue !== null) {
      if (type !== "object")
        this.fail("invalid-keyword", [...path, "x-regex-key-value"], "x-regex-key-value needs type 'object'"); // [KV-1]
      if (!keyValue.names.includes("key") || !keyValue.names.includes("value")) {
        this.fail(
          "invalid-regex",
          [...path, "x-regex-key-value"],
          "x-regex-key-value needs named groups 'key' and 'value'",
        ); // [KV-2]
      }
    }
  }

  oneUnnamedGroup(regex, path) {
    if (regex.groups !== 1)
      this.fail(
        "invalid-regex",
        path,
        `a regex without named groups needs exactly one capturing group, not ${regex.groups}`,
      );
  }

  substitutions(schema, path) {
    if (!has(schema, "x-regex-substitutions")) return [];
    const value = schema["x-regex-substitutions"];
    const where = [...path, "x-regex-substitutions"];
    if (!Array.isArray(value)) {
      this.fail("invalid-keyword", where, "x-regex-substitutions must be an array of [pattern, replacement]"); // [SUBS-1]
      return [];
    }
    const compiled = [];
    value.forEach((pair, index) => {
      const pairPath = [...where, index];
      if (!(Array.isArray(pair) && pair.length === 2 && typeof pair[1] === "string")) {
        this.fail("invalid-keyword", pairPath, "a substitution is a [pattern, replacement] pair of strings");
        return;
      }
      const pattern = this.compileRegex(pair[0], pairPath);
      if (pattern === null) return;
      try {
        compiled.push([pattern, new Template(pair[1], pattern)]); // [SUBS-3]
      } catch (error) {
        if (!(error instanceof Untranslatable)) throw error;
        this.fail("invalid-regex", pairPath, `invalid replacement template: ${error.message}`);
      }
    });
    return compiled;
  }

  parser(schema, path) {
    const none = { parser: null, transform: null, allowNonJson: false };
    let args = has(schema, "x-parser-args") ? schema["x-parser-args"] : {};
    if (has(schema, "x-parser-args")) {
      if (!has(schema, "x-parser"))
        this.fail("invalid-keyword", [...path, "x-parser-args"], "x-parser-args needs x-parser"); // [ARGS-2]
      if (!isObject(args)) {
        this.fail("invalid-keyword", [...path, "x-parser-args"], "x-parser-args must be an object");
        args = {};
      }
    }
    for (const name of Object.keys(args)) {
      if (!PARSER_ARGS.has(name))
        this.fail("invalid-keyword", [...path, "x-parser-args", name], `unknown parser argument '${name}'`); // [ARGS-1]
    }
    let allowNonJson = has(args, "allow_non_json") ? args.allow_non_json : false;
    if (typeof allowNonJson !== "boolean") {
      this.fail("invalid-keyword", [...path, "x-parser-args", "allow_non_json"], "allow_non_json must be a boolean");
      allowNonJson = false;
    }
    const transform = has(args, "transform")
      ? this.transform(args.transform, [...path, "x-parser-args", "transform"])
      : null;
    if (!has(schema, "x-parser")) return none;
    const parser = schema["x-parser"];
    if (typeof parser !== "string" || !PARSERS.has(parser)) {
      this.fail("unknown-parser", [...path, "x-parser"], `unknown parser ${JSON.stringify(parser)}`); // [PARSER-1]
      return none;
    }
    return { parser, transform, allowNonJson };
  }

  transform(expression, path) {
    // [ARGS-3] A JMESPath expression that parses and calls only known functions with a valid arity.
    if (typeof expression !== "string") {
      this.fail("invalid-transform", path, "transform must be a JMESPath expression string"); // [ARGS-1]
      return null;
    }
    let tree;
    try {
      tree = compileExpression(expression);
    } catch (error) {
      if (!(error instanceof JMESPathSyntaxError)) throw error;
      this.fail("invalid-transform", path, `invalid JMESPath expression: ${error.message}`);
      return null;
    }
    for (const [name, arity] of functionCalls(tree)) {
      const entry = FUNCTIONS[name];
      if (!entry) {
        this.fail("invalid-transform", path, `unknown JMESPath function ${name}()`);
        return null;
      }
      const [count, variadic] = entry;
      if (variadic ? arity < count : arity !== count) {
        this.fail(
          "invalid-transform",
          path,
          `JMESPath function ${name}() takes ${count}${variadic ? " or more" : ""} arguments, not ${arity}`,
        );
        return null;
      }
    }
    return tree;
  }

  properties(schema, path, depth) {
    if (!has(schema, "properties")) return [];
    const properties = schema.properties;
    if (!isObject(properties)) {
      this.fail("invalid-keyword", [...path, "properties"], "properties must be an object of schemas"); // [SCHEMA-7]
      return [];
    }
    const compiled = [];
    for (const [name, child] of Object.entries(properties)) {
      const node = this.node(child, [...path, "properties", name], depth + 1);
      if (node !== null) compiled.push([name, node]);
    }
    return compiled;
  }

  additional(schema, path, depth) {
    const value = has(schema, "additionalProperties") ? schema.additionalProperties : true; // [OBJ-6]
    if (typeof value === "boolean") return value;
    if (isObject(value)) return this.node(value, [...path, "additionalProperties"], depth + 1) ?? true;
    this.fail(
      "invalid-keyword",
      [...path, "additionalProperties"],
      "additionalProperties must be a boolean or a schema",
    );
    return true;
  }

  required(schema, path) {
    const value = has(schema, "required") ? schema.required : [];
    if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
      this.fail("invalid-keyword", [...path, "required"], "required must be an array of strings"); // [SCHEMA-7]
      return [];
    }
    return value;
  }

  arrayChildren(schema, type, path, depth) {
    if (type !== "array") return [null, null];
    if (has(schema, "items") === has(schema, "prefixItems")) {
      this.fail("invalid-keyword", path, "an array node needs exactly one of items and prefixItems"); // [SCHEMA-8]
      return [null, null];
    }
    if (has(schema, "items")) return [this.node(schema.items, [...path, "items"], depth + 1), null];
    const prefix = schema.prefixItems;
    if (!Array.isArray(prefix) || prefix.length === 0) {
      this.fail("invalid-keyword", [...path, "prefixItems"], "prefixItems must be a non-empty array of schemas"); // [SCHEMA-7]
      return [null, null];
    }
    const nodes = prefix.map((child, index) => this.node(child, [...path, "prefixItems", index], depth + 1));
    return [null, nodes.filter((node) => node !== null)];
  }
}
