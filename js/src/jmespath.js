// JMESPath (jmespath.org) for `transform` ([ARGS-3], [ARGS-6]): a lexer, a Pratt parser with the binding
// powers of the specification's grammar, and an interpreter whose functions give the answers SPEC.md [ARGS-6]
// pins (code points for strings, numbers by value, Python's to_string text).
import { put } from "./data.js";
import { finite } from "./textparsers.js";

export class JMESPathSyntaxError extends Error {}
export class JMESPathTypeError extends Error {}

const SIMPLE = {
  ".": "dot",
  "*": "star",
  ",": "comma",
  ":": "colon",
  "@": "current",
  "]": "rbracket",
  "(": "lparen",
  ")": "rparen",
  "{": "lbrace",
  "}": "rbrace",
};
const POWER = {
  eof: 0,
  identifier: 0,
  quoted: 0,
  literal: 0,
  rbracket: 0,
  rparen: 0,
  comma: 0,
  rbrace: 0,
  number: 0,
  current: 0,
  expref: 0,
  colon: 0,
  pipe: 1,
  or: 2,
  and: 3,
  eq: 5,
  gt: 5,
  lt: 5,
  gte: 5,
  lte: 5,
  ne: 5,
  flatten: 9,
  star: 20,
  filter: 21,
  dot: 40,
  not: 45,
  lbrace: 50,
  lbracket: 55,
  lparen: 60,
};
const PROJECTION_STOP = 10;

function tokenize(text) {
  const tokens = [];
  let at = 0;
  const push = (type, value, start) => tokens.push({ type, value, start });
  while (at < text.length) {
    const char = text[at];
    const start = at;
    if (" \t\n\r".includes(char)) {
      at++;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at))[0];
      push("identifier", word, start);
      at += word.length;
    } else if (char in SIMPLE) {
      push(SIMPLE[char], char, start);
      at++;
    } else if (char === "[") {
      if (text[at + 1] === "]") push("flatten", "[]", start), (at += 2);
      else if (text[at + 1] === "?") push("filter", "[?", start), (at += 2);
      else push("lbracket", "[", start), at++;
    } else if (/[-0-9]/.test(char)) {
      const number = /^-?[0-9]+/.exec(text.slice(at));
      if (!number) throw new JMESPathSyntaxError(`unknown token '-' at ${at}`);
      push("number", Number(number[0]), start);
      at += number[0].length;
    } else if (char === '"') {
      const end = closing(text, at, '"');
      try {
        push("quoted", JSON.parse(text.slice(at, end + 1)), start);
      } catch {
        throw new JMESPathSyntaxError(`invalid quoted identifier at ${at}`);
      }
      at = end + 1;
    } else if (char === "'") {
      const end = closing(text, at, "'");
      push("literal", text.slice(at + 1, end).replaceAll("\\'", "'"), start);
      at = end + 1;
    } else if (char === "`") {
      const end = closing(text, at, "`");
      const body = text.slice(at + 1, end).replaceAll("\\`", "`");
      let value;
      try {
        value = JSON.parse(body);
        if (!finite(value)) throw new SyntaxError("not JSON"); // [ARGS-7], [JSON-3]: then a raw string literal
      } catch {
        try {
          value = JSON.parse(`"${body.trimStart()}"`); // the deprecated bare-string literal, as jmespath.py
        } catch {
          throw new JMESPathSyntaxError(`bad JSON literal at ${at}`);
        }
      }
      push("literal", value, start);
      at = end + 1;
    } else if (char === "|") {
      if (text[at + 1] === "|") push("or", "||", start), (at += 2);
      else push("pipe", "|", start), at++;
    } else if (char === "&") {
      if (text[at + 1] === "&") push("and", "&&", start), (at += 2);
      else push("expref", "&", start), at++;
    } else if (char === "!") {
      if (text[at + 1] === "=") push("ne", "!=", start), (at += 2);
      else push("not", "!", start), at++;
    } else if (char === "<" || char === ">") {
      const equal = text[at + 1] === "=";
      push(char === "<" ? (equal ? "lte" : "lt") : equal ? "gte" : "gt", "", start);
      at += equal ? 2 : 1;
    } else if (char === "=" && text[at + 1] === "=") {
      push("eq", "==", start);
      at += 2;
    } else {
      throw new JMESPathSyntaxError(`unknown token ${JSON.stringify(char)} at ${at}`);
    }
  }
  push("eof", "", text.length);
  return tokens;
}

function closing(text, start, quote) {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === "\\") at++;
    else if (text[at] === quote) return at;
  }
  throw new JMESPathSyntaxError(`unclosed ${quote} at ${start}`);
}

class Parser {
  constructor(text) {
    this.tokens = tokenize(text);
    this.at = 0;
  }

  get token() {
    return this.tokens[this.at];
  }

  peek(offset = 1) {
    return this.tokens[Math.min(this.at + offset, this.tokens.length - 1)].type;
  }

  expect(type) {
    if (this.token.type !== type) this.fail(`expected ${type}`);
    this.at++;
  }

  fail(message) {
    throw new JMESPathSyntaxError(`${message}, found ${this.token.type} at ${this.token.start}`);
  }

  parse() {
    const tree = this.expression(0);
    if (this.token.type !== "eof") this.fail("unexpected token");
    return tree;
  }

  expression(power) {
    const token = this.token;
    this.at++;
    let left = this.nud(token);
    while (power < POWER[this.token.type]) {
      const next = this.token;
      this.at++;
      left = this.led(next, left);
    }
    return left;
  }

  nud(token) {
    switch (token.type) {
      case "literal":
        return { type: "literal", value: token.value };
      case "identifier":
        return { type: "field", name: token.value };
      case "quoted":
        if (this.token.type === "lparen") this.fail("a quoted identifier cannot be a function name");
        return { type: "field", name: token.value };
      case "star":
        return { type: "values", left: { type: "current" }, right: this.projectionRight(POWER.star) };
      case "filter":
        return this.filter({ type: "current" });
      case "lbrace":
        return this.hash();
      case "lparen": {
        const inner = this.expression(0);
        this.expect("rparen");
        return inner;
      }
      case "flatten":
        return {
          type: "project",
          left: { type: "flatten", left: { type: "current" } },
          right: this.projectionRight(POWER.flatten),
        };
      case "not":
        return { type: "not", left: this.expression(POWER.not) };
      case "lbracket":
        if (this.token.type === "number" || this.token.type === "colon") return this.indexOrSlice({ type: "current" });
        if (this.token.type === "star" && this.peek() === "rbracket") {
          this.at += 2;
          return { type: "project", left: { type: "current" }, right: this.projectionRight(POWER.star) };
        }
        return this.list();
      case "current":
        return { type: "current" };
      case "expref":
        return { type: "expref", left: this.expression(POWER.expref) };
      default:
        this.at--;
        return this.fail("unexpected token");
    }
  }

  led(token, left) {
    switch (token.type) {
      case "dot":
        if (this.token.type === "star") {
          this.at++;
          return { type: "values", left, right: this.projectionRight(POWER.star) };
        }
        return { type: "sub", left, right: this.dotRight(POWER.dot) };
      case "pipe":
        return { type: "pipe", left, right: this.expression(POWER.pipe) };
      case "or":
      case "and":
        return { type: token.type, left, right: this.expression(POWER[token.type]) };
      case "lparen": {
        if (left.type !== "field") this.fail("invalid function name");
        const args = [];
        while (this.token.type !== "rparen") {
          args.push(this.expression(0));
          if (this.token.type === "comma") this.at++;
          else if (this.token.type !== "rparen") this.fail("expected , or )");
        }
        this.at++;
        return { type: "function", name: left.name, args };
      }
      case "filter":
        return this.filter(left);
      case "eq":
      case "ne":
      case "lt":
      case "lte":
      case "gt":
      case "gte":
        return { type: "compare", op: token.type, left, right: this.expression(POWER[token.type]) };
      case "flatten":
        return { type: "project", left: { type: "flatten", left }, right: this.projectionRight(POWER.flatten) };
      case "lbracket":
        if (this.token.type === "number" || this.token.type === "colon") return this.indexOrSlice(left);
        this.expect("star");
        this.expect("rbracket");
        return { type: "project", left, right: this.projectionRight(POWER.star) };
      default:
        this.at--;
        return this.fail("unexpected token");
    }
  }

  filter(left) {
    const condition = this.expression(0);
    this.expect("rbracket");
    return { type: "filter", left, condition, right: this.projectionRight(POWER.filter) };
  }

  indexOrSlice(left) {
    const parts = [null, null, null];
    let index = 0;
    while (this.token.type !== "rbracket") {
      if (this.token.type === "colon") {
        if (++index > 2) this.fail("too many colons in a slice");
        this.at++;
      } else if (this.token.type === "number") {
        parts[index] = this.token.value;
        this.at++;
      } else {
        this.fail("expected a number or :");
      }
    }
    this.at++;
    if (index === 0) return { type: "sub", left, right: { type: "index", index: parts[0] } };
    return { type: "project", left: { type: "slice", left, parts }, right: this.projectionRight(POWER.star) };
  }

  list() {
    const items = [];
    for (;;) {
      items.push(this.expression(0));
      if (this.token.type === "rbracket") break;
      this.expect("comma");
    }
    this.at++;
    return { type: "list", items };
  }

  hash() {
    const pairs = [];
    for (;;) {
      const key = this.token;
      if (key.type !== "identifier" && key.type !== "quoted") this.fail("expected a key");
      this.at++;
      this.expect("colon");
      pairs.push([key.value, this.expression(0)]);
      if (this.token.type === "rbrace") break;
      this.expect("comma");
    }
    this.at++;
    return { type: "hash", pairs };
  }

  projectionRight(power) {
    const type = this.token.type;
    if (POWER[type] < PROJECTION_STOP) return { type: "current" };
    if (type === "lbracket" || type === "filter") return this.expression(power);
    if (type === "dot") {
      this.at++;
      return this.dotRight(power);
    }
    return this.fail("syntax error after a projection");
  }

  dotRight(power) {
    const type = this.token.type;
    if (type === "identifier" || type === "quoted" || type === "star") return this.expression(power);
    this.at++;
    if (type === "lbracket") return this.list();
    if (type === "lbrace") return this.hash();
    this.at--;
    return this.fail("expected an identifier, [ or { after .");
  }
}

/** The syntax tree of an expression (JMESPathSyntaxError when it does not parse). */
export function compileExpression(text) {
  return new Parser(text).parse();
}

/** Every function call in a tree, as [name, number of arguments]. */
export function functionCalls(tree) {
  const calls = [];
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (node.type === "function") calls.push([node.name, node.args.length]);
    if (node.type !== "literal")
      stack.push(
        ...Object.values(node)
          .flat()
          .filter((child) => typeof child === "object"),
      );
  }
  return calls;
}

// Values

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isNumber = (value) => typeof value === "number";
const truthy = (value) =>
  !(
    value === null ||
    value === false ||
    value === "" ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0)
  );

function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return value.type === "expref" && value.tree ? "expref" : "object";
  return typeof value === "number" ? "number" : typeof value;
}

/** JSON equality ([JSONB-3]): objects without key order, numbers by value. */
export function equal(left, right) {
  if (
    typeof left !== typeof right ||
    Array.isArray(left) !== Array.isArray(right) ||
    (left === null) !== (right === null)
  )
    return false;
  if (Array.isArray(left))
    return left.length === right.length && left.every((item, index) => equal(item, right[index]));
  if (isObject(left)) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => Object.hasOwn(right, key) && equal(left[key], right[key]))
    );
  }
  return left === right;
}

/** Strings compared by code point ([ARGS-6]), not by UTF-16 unit. */
export function compareStrings(left, right) {
  const a = [...left];
  const b = [...right];
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = a[index].codePointAt(0) - b[index].codePointAt(0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/** Compact JSON with every non-ASCII character escaped, as Python's json.dumps writes it ([ARGS-6]). */
export function pythonJson(value) {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

// Evaluation

export function search(tree, value) {
  return evaluate(tree, value);
}

function evaluate(node, value) {
  switch (node.type) {
    case "literal":
      return node.value;
    case "current":
      return value;
    case "field":
      return isObject(value) && Object.hasOwn(value, node.name) ? value[node.name] : null;
    case "sub":
      return evaluate(node.right, evaluate(node.left, value));
    case "pipe":
      return evaluate(node.right, evaluate(node.left, value));
    case "index": {
      if (!Array.isArray(value)) return null;
      const index = node.index < 0 ? value.length + node.index : node.index;
      return index >= 0 && index < value.length ? value[index] : null;
    }
    case "slice":
      return slice(evaluate(node.left, value), node.parts);
    case "flatten": {
      const base = evaluate(node.left, value);
      return Array.isArray(base) ? base.flatMap((item) => (Array.isArray(item) ? item : [item])) : null;
    }
    case "project": {
      const base = evaluate(node.left, value);
      return Array.isArray(base) ? collect(base, node.right) : null;
    }
    case "values": {
      const base = evaluate(node.left, value);
      return isObject(base) ? collect(Object.values(base), node.right) : null;
    }
    case "filter": {
      const base = evaluate(node.left, value);
      return Array.isArray(base)
        ? collect(
            base.filter((item) => truthy(evaluate(node.condition, item))),
            node.right,
          )
        : null;
    }
    case "compare":
      return compare(node.op, evaluate(node.left, value), evaluate(node.right, value));
    case "or": {
      const left = evaluate(node.left, value);
      return truthy(left) ? left : evaluate(node.right, value);
    }
    case "and": {
      const left = evaluate(node.left, value);
      return truthy(left) ? evaluate(node.right, value) : left;
    }
    case "not":
      return !truthy(evaluate(node.left, value));
    case "list":
      return value === null ? null : node.items.map((item) => evaluate(item, value));
    case "hash":
      return value === null
        ? null
        : node.pairs.reduce((object, [key, item]) => put(object, key, evaluate(item, value)), {});
    case "expref":
      return { type: "expref", tree: node.left };
    case "function":
      return callFunction(
        node.name,
        node.args.map((arg) => evaluate(arg, value)),
      );
    default:
      throw new JMESPathTypeError(`unknown node ${node.type}`);
  }
}

function collect(items, right) {
  const out = [];
  for (const item of items) {
    const result = evaluate(right, item);
    if (result !== null) out.push(result);
  }
  return out;
}

function slice(value, [start, stop, step]) {
  if (!Array.isArray(value)) return null;
  step ??= 1;
  if (step === 0) throw new JMESPathTypeError("a slice step cannot be 0");
  const length = value.length;
  const clamp = (index, fallback) => {
    if (index === null) return fallback;
    if (index < 0) return Math.max(step < 0 ? -1 : 0, length + index);
    return Math.min(index, step < 0 ? length - 1 : length);
  };
  const from = clamp(start, step < 0 ? length - 1 : 0);
  const to = clamp(stop, step < 0 ? -1 : length);
  const out = [];
  for (let index = from; step > 0 ? index < to : index > to; index += step) out.push(value[index]);
  return out;
}

// [ARGS-6] Ordering: numbers by value and strings by code point; a string against a number fails; any other
// operand gives null.
function compare(op, left, right) {
  if (op === "eq") return equal(left, right);
  if (op === "ne") return !equal(left, right);
  const orderable = (value) => isNumber(value) || typeof value === "string";
  if (!orderable(left) || !orderable(right)) return null;
  if (typeof left !== typeof right) {
    throw new JMESPathTypeError(`'${op}' cannot order a ${typeName(left)} and a ${typeName(right)}`);
  }
  const order = isNumber(left) ? left - right : compareStrings(left, right);
  return { lt: order < 0, lte: order <= 0, gt: order > 0, gte: order >= 0 }[op];
}

// Functions: [minimum arguments, variadic, implementation]

function check(condition, name, wanted, got) {
  if (!condition)
    throw new JMESPathTypeError(
      `In function ${name}(), invalid type for value: ${JSON.stringify(got) ?? "?"}, expected one of: ${wanted}, received: "${typeName(got)}"`,
    );
}

function sortable(name, array) {
  check(Array.isArray(array), name, "['array-number', 'array-string']", array);
  if (array.every(isNumber)) return (a, b) => a - b;
  if (array.every((item) => typeof item === "string")) return compareStrings;
  return check(false, name, "['array-number', 'array-string']", array);
}

function keyed(name, array, expref) {
  check(Array.isArray(array), name, "['array']", array);
  check(expref?.type === "expref", name, "['expref']", expref);
  const keys = array.map((item) => evaluate(expref.tree, item));
  const order = keys.every(isNumber)
    ? (a, b) => a - b
    : keys.every((key) => typeof key === "string")
      ? compareStrings
      : null;
  check(
    order !== null || keys.length === 0,
    name,
    "['number', 'string']",
    keys.find((key) => !isNumber(key) && typeof key !== "string"),
  );
  return { keys, order: order ?? ((a, b) => a - b) };
}

function pick(name, array, better) {
  const order = sortable(name, array);
  return array.length === 0 ? null : array.reduce((best, item) => (better(order(item, best)) ? item : best));
}

function pickBy(name, array, expref, better) {
  const { keys, order } = keyed(name, array, expref);
  if (array.length === 0) return null;
  let best = 0;
  for (let index = 1; index < array.length; index++) if (better(order(keys[index], keys[best]))) best = index;
  return array[best];
}

const number = (name, value) => (check(isNumber(value), name, "['number']", value), value);
const string = (name, value) => (check(typeof value === "string", name, "['string']", value), value);
const numbers = (name, value) => (
  check(Array.isArray(value) && value.every(isNumber), name, "['array-number']", value), value
);
const object = (name, value) => (check(isObject(value), name, "['object']", value), value);

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

export const FUNCTIONS = {
  abs: [1, false, (x) => Math.abs(number("abs", x))],
  avg: [1, false, (x) => (numbers("avg", x).length ? x.reduce((a, b) => a + b, 0) / x.length : null)],
  ceil: [1, false, (x) => Math.ceil(number("ceil", x))],
  contains: [
    2,
    false,
    (subject, search) => {
      if (typeof subject === "string") return typeof search === "string" && subject.includes(search);
      check(Array.isArray(subject), "contains", "['array', 'string']", subject);
      return subject.some((item) => equal(item, search));
    },
  ],
  ends_with: [2, false, (s, suffix) => string("ends_with", s).endsWith(string("ends_with", suffix))],
  floor: [1, false, (x) => Math.floor(number("floor", x))],
  join: [
    2,
    false,
    (glue, items) => {
      check(Array.isArray(items) && items.every((item) => typeof item === "string"), "join", "['array-string']", items);
      return items.join(string("join", glue));
    },
  ],
  keys: [1, false, (x) => Object.keys(object("keys", x))],
  length: [
    1,
    false,
    (x) => {
      if (typeof x === "string") return [...x].length;
      check(Array.isArray(x) || isObject(x), "length", "['string', 'array', 'object']", x);
      return Array.isArray(x) ? x.length : Object.keys(x).length;
    },
  ],
  map: [
    2,
    false,
    (expref, array) => {
      check(expref?.type === "expref", "map", "['expref']", expref);
      check(Array.isArray(array), "map", "['array']", array);
      return array.map((item) => evaluate(expref.tree, item));
    },
  ],
  max: [1, false, (x) => pick("max", x, (difference) => difference > 0)],
  max_by: [2, false, (x, e) => pickBy("max_by", x, e, (difference) => difference > 0)],
  merge: [
    1,
    true,
    (...objects) =>
      objects.reduce((out, x) => Object.entries(object("merge", x)).reduce((o, [k, v]) => put(o, k, v), out), {}),
  ],
  min: [1, false, (x) => pick("min", x, (difference) => difference < 0)],
  min_by: [2, false, (x, e) => pickBy("min_by", x, e, (difference) => difference < 0)],
  not_null: [1, true, (...values) => values.find((value) => value !== null) ?? null],
  reverse: [
    1,
    false,
    (x) => {
      if (typeof x === "string") return [...x].reverse().join("");
      check(Array.isArray(x), "reverse", "['array', 'string']", x);
      return [...x].reverse();
    },
  ],
  sort: [
    1,
    false,
    (x) => {
      const order = sortable("sort", x); // checked before the array is read: an object is not iterable
      return [...x].sort(order);
    },
  ],
  sort_by: [
    2,
    false,
    (x, e) => {
      const { keys, order } = keyed("sort_by", x, e);
      return x
        .map((item, index) => [keys[index], index, item])
        .sort((a, b) => order(a[0], b[0]) || a[1] - b[1])
        .map(([, , item]) => item);
    },
  ],
  starts_with: [2, false, (s, prefix) => string("starts_with", s).startsWith(string("starts_with", prefix))],
  sum: [1, false, (x) => numbers("sum", x).reduce((a, b) => a + b, 0)],
  to_array: [1, false, (x) => (Array.isArray(x) ? x : [x])],
  to_number: [1, false, (x) => (isNumber(x) ? x : typeof x === "string" && JSON_NUMBER.test(x) ? Number(x) : null)],
  to_string: [1, false, (x) => (typeof x === "string" ? x : pythonJson(x))],
  type: [1, false, (x) => typeName(x)],
  values: [1, false, (x) => Object.values(object("values", x))],
};

function callFunction(name, args) {
  const entry = FUNCTIONS[name];
  if (!entry) throw new JMESPathTypeError(`unknown function ${name}()`);
  try {
    return entry[2](...args);
  } catch (error) {
    // Each function checks its arguments; a host TypeError that still gets through is a wrong type all the same.
    if (error instanceof TypeError) throw new JMESPathTypeError(`In function ${name}(): ${error.message}`);
    throw error;
  }
}
