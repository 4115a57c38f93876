import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { test } from "node:test";
import { ParseError, SchemaError, Tools, ToolsError, compile, parse } from "../src/index.js";
import { unrepresentable } from "../src/adapter.mjs";
import { FUNCTIONS, compileExpression, search } from "../src/jmespath.js";
import { Pattern, Template } from "../src/regex.js";

test("a schema's problems are all reported, each with its pointer", () => {
  let error;
  try {
    compile({ type: "object", "x-nope": 1, properties: { a: { type: "array" } } });
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof SchemaError);
  assert.deepEqual(
    error.problems.map((problem) => [problem.category, problem.path]),
    [
      ["unknown-keyword", "/x-nope"],
      ["invalid-keyword", "/properties/a"],
    ],
  );
});

test("an input error has its category and the node's pointer", () => {
  assert.throws(
    () => parse({ type: "object", properties: { n: { type: "integer", "x-regex": "n=(.*)" } } }, "n=x"),
    (error) => error instanceof ParseError && error.category === "invalid-value" && error.path === "/properties/n",
  );
});

test("a key named __proto__ is data, not a prototype", () => {
  const out = parse({ "x-parser": "json", type: "object", properties: {} }, '{"__proto__": {"polluted": 1}}');
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ["__proto__"]);
  assert.equal({}.polluted, undefined);
});

test("typed arguments keep a key named __proto__ as data ([TOOLS-3])", () => {
  const schema = {
    type: "object",
    properties: {
      tool_calls: { type: "array", "x-regex-iterator": "<c>(.*?)</c>", items: { type: "object", "x-parser": "json" } },
    },
  };
  const tools = [{ type: "function", function: { name: "f", parameters: { properties: { n: { type: "integer" } } } } }];
  const out = parse(schema, '<c>{"function": {"name": "f", "arguments": {"__proto__": "5", "n": "7"}}}</c>', { tools });
  const args = out.tool_calls[0].function.arguments;
  assert.deepEqual(Object.keys(args), ["__proto__", "n"]);
  assert.equal(args.n, 7);
  assert.equal(Object.getPrototypeOf(args), Object.prototype);
});

test("empty matches are iterated as Python iterates them", () => {
  assert.deepEqual(
    [...new Pattern("(x*?)").all("xx")].map((m) => m[1]),
    ["", "x", "", "x", ""],
  );
  const pattern = new Pattern("x*?");
  assert.equal(pattern.replace("xx", new Template("-", pattern)), "-----");
});

test("templates are checked against the pattern", () => {
  const pattern = new Pattern("(a)");
  assert.throws(() => new Template("\\2", pattern), /invalid group reference/);
  assert.throws(() => new Template("\\q", pattern), /bad escape/);
  assert.equal(new Template("[\\1\\\\\\-]", pattern).expand(["a", "a"]), "[a\\\\-]");
});

test("JMESPath functions follow SPEC [ARGS-6]", () => {
  const run = (expression, value) => search(compileExpression(expression), value);
  assert.equal(run("length(@)", "a😀"), 2);
  assert.equal(run("reverse(@)", "a😀b"), "b😀a");
  assert.deepEqual(run("[max(@), min(@)]", ["\uffff", "😀", "a"]), ["😀", "a"]);
  assert.deepEqual(run("sort(@)", [10, 9, 1.5, -2]), [-2, 1.5, 9, 10]);
  assert.equal(run("to_string(@)", { k: "ü", n: [1, true, null] }), '{"k":"\\u00fc","n":[1,true,null]}');
  assert.deepEqual(run("calls[?name != 'skip'].name", { calls: [{ name: "a" }, { name: "skip" }] }), ["a"]);
  assert.deepEqual(run("[*].{f: a || b}", [{ a: 1 }, { b: 2 }]), [{ f: 1 }, { f: 2 }]);
  assert.deepEqual(run("a[1:3]", { a: [0, 1, 2, 3] }), [1, 2]);
  assert.deepEqual(run("sort_by(@, &n)[].n", [{ n: 2 }, { n: 1 }]), [1, 2]);
});

test("the adapter names what JSON cannot hold", () => {
  assert.equal(unrepresentable({ a: [1, NaN] }), "NaN at /a/1");
  assert.equal(unrepresentable({ a: undefined }), "undefined at /a");
  assert.equal(unrepresentable("\ud800"), "");
  let deep = [];
  for (let i = 0; i < 600; i++) deep = [deep];
  assert.match(unrepresentable(deep), /deeper than 512/);
});

test("every JMESPath function on every wrong type gives transform-failed or a value, never a host error", () => {
  const values = ["5", '"s"', '{"a": 1}', '[1, "a"]', "[[1]]", "null", "true", '[{"a": {}}]', "[]"];
  const expressions = [];
  for (const [name, [minimum]] of Object.entries(FUNCTIONS)) {
    for (const value of values) {
      const literal = `\`${value}\``;
      expressions.push(`${name}(${Array(Math.max(minimum, 1)).fill("@").join(", ")})`);
      if (minimum >= 2)
        expressions.push(`${name}(${literal}, @)`, `${name}(@, ${literal})`, `${name}(&a, @)`, `${name}(@, &a)`);
    }
  }
  let checked = 0;
  for (const transform of new Set(expressions)) {
    for (const input of values) {
      try {
        parse({ "x-parser": "json", "x-parser-args": { transform } }, input);
      } catch (error) {
        assert.ok(
          error instanceof ParseError && error.category === "transform-failed",
          `${transform} on ${input}: ${error}`,
        );
      }
      checked += 1;
    }
  }
  assert.ok(checked > 1000);
});

test("the README's first example prints what its comments say", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const index = JSON.stringify(new URL("../src/index.js", import.meta.url).href);
  const example = readme.match(/```js\n(import \{ compile[\s\S]*?)```/)[1].replace('"response-schema-js"', index);
  const printed = [];
  const log = console.log;
  console.log = (...args) => printed.push(args.map((arg) => (typeof arg === "string" ? arg : inspect(arg))).join(" "));
  try {
    await import(`data:text/javascript,${encodeURIComponent(example)}`);
  } finally {
    console.log = log;
  }
  const promised = [...example.matchAll(/\/\/ (.+)$/gm)]
    .map((match) => match[1])
    .filter((comment) => /^[{[]|^true|^false/.test(comment));
  assert.deepEqual(
    printed.map((line) => line.replace(/\s+/g, " ")),
    promised.map((line) => line.replace(/\s+/g, " ")),
  );
});

test("tools type the arguments of calls to them (SPEC.md section 15)", () => {
  const schema = {
    type: "object",
    properties: {
      tool_calls: {
        type: "array",
        "x-regex-iterator": "<call (\\w+>.*?)</call>",
        items: {
          type: "object",
          properties: {
            function: {
              type: "object",
              properties: {
                name: { type: "string", "x-regex": "^(\\w+)>" },
                arguments: {
                  type: "object",
                  "x-regex": "^\\w+>(.*)$",
                  "x-regex-key-value": "<(?P<key>\\w+)>(?P<value>.*?)</\\w+>",
                },
              },
            },
          },
        },
      },
    },
  };
  const tools = [
    {
      type: "function",
      function: { name: "f", parameters: { properties: { n: { type: "integer" }, s: { type: "string" } } } },
    },
  ];
  const text = "<call f><n>07</n><s>07</s><x>07</x></call><call g><n>07</n></call>";
  const typed = parse(schema, text, { tools });
  assert.deepEqual(typed.tool_calls[0].function.arguments, { n: 7, s: "07", x: "07" });
  assert.deepEqual(typed.tool_calls[1].function.arguments, { n: "07" }); // an unknown tool: kept
  assert.deepEqual(compile(schema).parse(text, { tools: new Tools(tools) }), typed);
  assert.deepEqual(parse(schema, text).tool_calls[0].function.arguments, { n: "07", s: "07", x: "07" });
  for (const [bad, path] of [
    [{ name: "f" }, ""],
    [[{ parameters: {} }], "/0"],
    [[{ name: "f" }, { name: "f" }], "/1"],
  ]) {
    assert.throws(
      () => parse(schema, text, { tools: bad }),
      (error) =>
        error instanceof ToolsError &&
        error.phase === "tools" &&
        error.category === "invalid-tools" &&
        error.path === path,
    );
  }
});
