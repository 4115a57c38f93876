// The streaming API (SPEC.md section 14): deltas, the partial value, the OpenAI view, and the incremental matcher
// against the host RegExp. The harness judges soundness over the corpus under every generated chunking (tox -e js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { files } from "./cases.js";
import { FEATURES, OpenAIStream, ParseError, StreamFinished, apply, compile } from "../src/index.js";
import { Pattern } from "../src/regex.js";
import { Analysis, JSONScan, jsonComplete } from "../src/stream/analysis.js";
import { Buffer, Search, compileProgram } from "../src/stream/pike.js";

const declared = new Set(FEATURES);

/** `part ⊑ whole` ([STREAM-2]). */
function isPart(part, whole) {
  if (part === null || typeof part !== "object") {
    return typeof part === "string" && typeof whole === "string" ? whole.startsWith(part) : part === whole;
  }
  if (whole === null || typeof whole !== "object" || Array.isArray(part) !== Array.isArray(whole)) return false;
  if (Array.isArray(part))
    return part.length <= whole.length && part.every((item, index) => isPart(item, whole[index]));
  return Object.keys(part).every((key) => Object.hasOwn(whole, key) && isPart(part[key], whole[key]));
}

/** The library formats of the corpus (fmt.*) with an output, streamed a character at a time. */
function formatCases() {
  const found = [];
  for (const file of files()) {
    for (const group of JSON.parse(readFileSync(file, "utf8")).groups ?? []) {
      if (!group.id.startsWith("fmt.") || !(group.features ?? []).every((name) => declared.has(name))) continue;
      for (const item of group.tests) {
        if (item.expect?.output === undefined || !(item.features ?? []).every((name) => declared.has(name))) continue;
        found.push({
          id: item.id,
          schema: group.schema,
          input: item.input,
          prefix: item.prefix ?? "",
          tools: item.tools,
        });
      }
    }
  }
  return found;
}

test("on every library format, the deltas rebuild each partial value, each a part of the next and of the result", () => {
  const cases = formatCases();
  assert.ok(cases.length > 100, `${cases.length} cases`);
  let sentEarly = 0;
  let jsonTexts = 0; // arguments sent as their JSON text ([STREAM-7] "json"), as the reference sends them
  for (const { id, schema, input, prefix, tools } of cases) {
    const parser = compile(schema);
    const result = parser.parse(input, { prefix, tools });
    const stream = parser.stream({ prefix, tools });
    let rebuilt = null;
    let previous = null;
    for (const char of input) {
      for (const delta of stream.feed(char)) {
        rebuilt = apply(rebuilt, delta);
        if (delta.op === "json") jsonTexts++;
      }
      const message = structuredClone(stream.message);
      assert.deepEqual(rebuilt, message, id);
      assert.ok(isPart(previous, message) || previous === null, `${id}: retracted`);
      assert.ok(message === null || isPart(message, result), `${id}: ${JSON.stringify(message)} is not a part`);
      previous = message;
    }
    if (previous !== null) sentEarly++;
    for (const delta of stream.finish()) rebuilt = apply(rebuilt, delta);
    assert.deepEqual(stream.message, result, id);
    assert.deepEqual(rebuilt, result, id);
  }
  assert.ok(sentEarly > cases.length / 2, `only ${sentEarly} of ${cases.length} sent anything before finishing`);
  assert.ok(jsonTexts > 100, `${jsonTexts} JSON text deltas`);
});

const CHAT = {
  type: "object",
  properties: {
    thinking: { type: "string", "x-regex": "^\\s*<think>\\s*(.*?)\\s*(?:</think>|$)" },
    content: { type: "string", "x-regex": "(?:</think>|^(?!\\s*<think>))\\s*(.*?)\\s*(?:<call>|$)" },
    tool_calls: {
      type: "array",
      "x-regex-iterator": "<call>\\s*(.*?)\\s*(?:</call>|$)",
      items: {
        type: "object",
        properties: {
          type: { const: "function" },
          function: {
            type: "object",
            "x-regex": "^(?P<name>[\\w.]+)\\s*(?P<arguments>.*)$",
            properties: { name: { type: "string" }, arguments: { "x-parser": "json" } },
          },
        },
      },
    },
  },
};

test("the OpenAI view: reasoning and content fragments, then each call's header whole and its arguments as text", () => {
  const output = 'Let me look.</think>On it. <call>get_weather {"city": "Brest", "days": [1, 2]}</call>';
  const chat = new OpenAIStream(compile(CHAT).stream({ prefix: "<think>\n" }));
  const chunks = [...output].flatMap((char) => chat.feed(char));
  chunks.push(...chat.finish());
  assert.deepEqual(chunks[0].role, "assistant");
  const joined = (field) => chunks.map((chunk) => chunk[field] ?? "").join("");
  assert.equal(joined("reasoning_content"), "Let me look.");
  assert.equal(joined("content"), "On it.");
  const calls = chunks.flatMap((chunk) => chunk.tool_calls ?? []);
  assert.deepEqual(calls[0], {
    index: 0,
    id: "call_0",
    type: "function",
    function: { name: "get_weather", arguments: "" },
  });
  const text = calls.map((call) => call.function.arguments).join("");
  assert.deepEqual(JSON.parse(text), { city: "Brest", days: [1, 2] });
  assert.ok(calls.length > 3, "the arguments arrive in fragments"); // [STREAM-8]
});

test("a prefix is read first and sends nothing of its own ([STREAM-9])", () => {
  const stream = compile(CHAT).stream({ prefix: "<think>\n" });
  assert.deepEqual(stream.feed(""), []);
  assert.equal(stream.message, null);
  stream.feed("Hmm");
  assert.equal(stream.message.thinking, "Hmm");
});

test("a code point cut between two chunks is sent whole", () => {
  const stream = compile({ type: "string" }).stream();
  const emoji = "\u{1F30A}";
  stream.feed(`a${emoji[0]}`);
  assert.equal(stream.message, "a");
  stream.feed(`${emoji[1]}b`);
  assert.equal(stream.message, `a${emoji}b`);
  stream.finish();
  assert.equal(stream.message, `a${emoji}b`);
});

test("finish throws the one-shot error, and a finished stream takes nothing more ([STREAM-5])", () => {
  const stream = compile({ type: "object", properties: { n: { type: "integer", "x-regex": "n=(\\w+)" } } }).stream();
  stream.feed("n=4");
  stream.feed("x");
  assert.throws(
    () => stream.finish(),
    (error) => error instanceof ParseError && error.path === "/properties/n",
  );
  assert.throws(() => stream.feed("more"), StreamFinished);
  assert.throws(() => stream.finish(), StreamFinished);
  assert.throws(() => compile({ type: "string" }).stream({ prefix: 3 }), TypeError);
});

test("arguments typed by the tools are never sent untyped ([TOOLS-7])", () => {
  const tools = [
    { type: "function", function: { name: "get_weather", parameters: { properties: { days: { type: "integer" } } } } },
  ];
  const stream = compile(CHAT).stream({ prefix: "<think>\n", tools });
  for (const char of '</think><call>get_weather {"days": "3"') {
    stream.feed(char);
    const call = stream.message?.tool_calls?.[0];
    assert.ok(call === undefined || !Object.hasOwn(call.function, "arguments"), JSON.stringify(call));
  }
  stream.feed("}</call>");
  stream.finish();
  assert.deepEqual(stream.message.tool_calls[0].function.arguments, { days: 3 });
});

// The incremental matcher against the host RegExp: at the end of the text, the first candidate whose conditions hold
// there is the match the host finds, group for group.
const PATTERNS = [
  "<think>(.*?)</think>",
  "^\\s*(.*?)\\s*$",
  "(?:(a)|b)*c",
  "(\\w+)\\b",
  "x(?=y)(.)",
  "(?!ab)(..)",
  "(?P<key>\\w+)=(?P<value>[^;]*);?",
  "(a|ab)(c|bcd)(d*)",
  "\\A(.+?)\\Z",
  "(?m)^(\\d+)$",
  "([^\\s<]+)(?:<|$)",
  "\\B(.)",
];
const TEXTS = ["", "abc", "<think>hm</think>rest", "  padded \n", "bbac", "xyz", "a=1;b=2", "abcd", "12\n34", "été ok"];

function finalMatch(program, text) {
  const buffer = new Buffer("");
  const search = new Search(program, buffer, 0, 0);
  for (const char of text) {
    buffer.grow(char);
    search.advance();
  }
  for (const [pc, regs, conds] of search.entries) {
    if (pc < 0 && conds.every((condition) => condition.holdsAtEnd())) return regs;
  }
  return null;
}

test("the incremental matcher finds the match the host RegExp finds", () => {
  for (const source of PATTERNS) {
    const pattern = new Pattern(source);
    const program = compileProgram(source);
    assert.notEqual(program, null, source);
    for (const text of TEXTS) {
      const host = pattern.firstIndexed(text);
      const regs = finalMatch(program, text);
      if (host === null) {
        assert.equal(regs, null, `${source} on ${JSON.stringify(text)}`);
        continue;
      }
      const spans = host.indices.map((span) => span ?? [null, null]).flat();
      assert.deepEqual(regs, spans, `${source} on ${JSON.stringify(text)}`);
    }
  }
});

/** A seeded generator of numbers in [0, 1) (a linear congruential one: the same cases on every run). */
function seeded(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const ATOMS = ["a", "b", "<", ">", " ", "\\s", "\\d", "\\w", "[^<]", "[a-c]", ".", "\\n", "(?:ab|a)", "x", "😀"];
const LOOKS = ["<", "ab", "a|<b", "\\s*<", "a<b|b", "<|$", "a|\\s*<|\\Z"];
const ALPHABET = [..."ab< >1x\n_é", "😀"];

function randomPattern(random, depth = 0) {
  const pick = (items) => items[Math.floor(random() * items.length)];
  let source = "";
  for (let count = 1 + Math.floor(random() * 4); count > 0; count--) {
    const roll = random();
    let part;
    if (roll < 0.45 || depth > 2) part = pick(ATOMS);
    else if (roll < 0.6) part = `(${randomPattern(random, depth + 1)})`;
    else if (roll < 0.7) part = `(?:${randomPattern(random, depth + 1)}|${randomPattern(random, depth + 1)})`;
    else if (roll < 0.8) part = `(?${pick("=!")}${pick(LOOKS)})`;
    else part = pick(["^", "$", "\\Z", "\\A", "\\b", "\\B"]);
    if (!/[\^$ZAbB)]$/.test(part) || (part.endsWith(")") && !part.startsWith("(?="))) {
      part += pick(["", "", "*", "+", "?", "*?", "+?", "??", "{1,2}", "{2}"]);
    }
    source += part;
  }
  return source;
}

/** A search's entries with each condition as what it is and where (objects differ between two searches). */
const described = (search) =>
  search.entries.map(([pc, regs, conds]) => [pc, regs, conds.map((c) => `${c.constructor.name}@${c.position}`).sort()]);

/** Unless `read` is false for a feed, the entries are read after it: unread, the entries of a name are made only if
 * the next feed needs them (`Search.entries`). */
function sameSteps(program, chunks, label, lead = "", base = 0, read = () => true) {
  const buffer = new Buffer(lead); // a name holds no position: searches at any offset share steps
  const memo = new Search(program, buffer, base, lead.length);
  const plain = new Search(program, buffer, base, lead.length, false, false, false);
  for (const chunk of chunks) {
    buffer.grow(chunk);
    memo.advance();
    plain.advance();
    assert.equal(memo.idle, plain.idle, label);
    assert.equal(memo.matched, plain.matched, label); // (read from a name, when it has one)
    if (!read()) continue;
    assert.deepEqual(described(memo), described(plain), `${label} after ${JSON.stringify(buffer.text)}`);
    for (let round = 0; round < 2; round++) {
      const [chosen, more] = memo.candidates();
      const [expected, expectedMore] = plain.candidates();
      assert.deepEqual([chosen.length, more], [expected.length, expectedMore], label);
    }
  }
}

test("the steps a memo takes are the steps the matcher takes, after every feed of every chunking, read or not", () => {
  const random = seeded(7);
  let learned = 0;
  for (let round = 0; round < 500; round++) {
    const source = randomPattern(random);
    const program = compileProgram(source);
    if (program === null) continue;
    for (let text = 0; text < 8; text++) {
      const chars = Array.from({ length: Math.floor(random() * 30) }, () => ALPHABET[Math.floor(random() * 11)]);
      const chunks = [];
      for (let at = 0; at < chars.length; ) {
        const size = [1, 2, 3, 4, 7, 30][Math.floor(random() * 6)];
        chunks.push(chars.slice(at, at + size).join(""));
        at += size;
      }
      const lead = [..."".padEnd([0, 0, 1, 5][Math.floor(random() * 4)])].map(
        () => ALPHABET[Math.floor(random() * 11)],
      );
      const base = Math.floor(random() * (lead.join("").length + 1));
      sameSteps(program, chunks, source, lead.join(""), base, () => random() >= 0.4);
    }
    learned += program.memos[0].steps.size + program.memos[1].steps.size;
  }
  assert.ok(learned > 1000, `${learned} steps learned`);
});

test("a memo name holds no position: the next of many calls takes the steps the first one learned", () => {
  const program = compileProgram("<args>\\s*(.*?)\\s*$");
  const buffer = new Buffer("Checking.");
  const learned = [];
  for (let index = 0; index < 12; index++) {
    const start = buffer.length;
    const memo = new Search(program, buffer, start, start);
    const plain = new Search(program, buffer, start, start, false, false, false);
    const text = `<call>get_weather:${index % 10}<args>{"city": "Paris ${index % 10}", "days": [1, 2]} `;
    const before = program.memos[0].steps.size + program.memos[1].steps.size;
    for (let at = 0; at < text.length; at += 4) {
      buffer.grow(text.slice(at, at + 4));
      memo.advance();
      plain.advance();
      assert.deepEqual(described(memo), described(plain), `${index} at ${buffer.length}`);
    }
    learned.push(program.memos[0].steps.size + program.memos[1].steps.size - before);
  }
  assert.ok(learned[0] > 20 && learned.slice(1).reduce((a, b) => a + b) <= 5, learned.join(" "));
});

test("a memo does not keep a step that read further than the next character", () => {
  // the first search learns the steps from the start, the second the first step of its second feed, and the third
  // must not be misled: a lookahead the next character cannot decide, a `$` still open after a feed's first step
  for (const [source, feeds] of [
    [
      "x(?=a<b)",
      [
        ["x", "a<b"],
        ["x", "a<b"],
        ["x", "a<c"],
      ],
    ],
    [
      "a$",
      [
        ["a", "\n"],
        ["a", "\n"],
        ["a", "\n", "\n"],
      ],
    ],
    [
      "a\\Z|ab",
      [
        ["a", "b"],
        ["a", "b"],
        ["a", "c"],
      ],
    ],
  ]) {
    const program = compileProgram(source);
    for (const chunks of feeds) sameSteps(program, chunks, source);
  }
});

test("a long search keeps few lookaheads, whether its steps ran or came from the memo", () => {
  const program = compileProgram("^\\s*((?:(?!<tool_call>|</think>).)*?)\\s*$");
  for (let round = 0; round < 2; round++) {
    const buffer = new Buffer("");
    const search = new Search(program, buffer, 0, 0);
    const text = "Checking the forecast for the coast, then the hills. ".repeat(100);
    for (let at = 0; at < text.length; at += 4) {
      buffer.grow(text.slice(at, at + 4));
      search.advance();
      assert.ok(search.looks.size <= 70 && search.pending.size <= 8, `${at}: ${search.looks.size} kept`);
    }
  }
});

test("a lookahead of markers or the end is decided by the next character: its steps come from the memo", () => {
  const program = compileProgram("\\[CALLS\\](.*?)(?=\\[CALLS\\]|</s>|$)");
  const text = "[CALLS]" + "Checking the forecast for the coast, then the hills. ".repeat(40);
  const step = Search.prototype.step;
  let steps = 0;
  Search.prototype.step = function (...args) {
    steps++;
    return step.apply(this, args);
  };
  try {
    for (let round = 0; round < 2; round++) {
      steps = 0;
      const buffer = new Buffer("");
      const search = new Search(program, buffer, 0, 0);
      for (let at = 0; at < text.length; at += 4) {
        buffer.grow(text.slice(at, at + 4));
        search.advance();
      }
    }
  } finally {
    Search.prototype.step = step;
  }
  assert.ok(steps < 30, `${steps} steps of the VM on the second stream`);
});

test("constructs the matcher does not model make a pattern opaque: late, never wrong", () => {
  for (const source of ["(a)\\1", "(?<=a)b", "(?i)abc", "(?:a*)*", "(?=(a))"])
    assert.equal(compileProgram(source), null, source);
});

test("a call longer than CUT streams its arguments as they arrive, each partial value a part of the result", () => {
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/kimi-k2.json", import.meta.url)));
  const body = "Checking the forecast for the coast, then the hills.\n  ".repeat(30);
  const call = (name, index, args) =>
    `<|tool_call_begin|>functions.${name}:${index}<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|>`;
  const output =
    "Saving it.<|tool_calls_section_begin|>" +
    call("write_file", 0, { path: "notes.md", text: body }) +
    call("get_weather", 1, { city: "Oslo" }) +
    "<|tool_calls_section_end|>";
  const parser = compile(schema);
  const result = parser.parse(output);
  const stream = parser.stream();
  const bodyEnd = output.indexOf('hills.\\n  "') + "hills.\\n".length;
  const argumentsAt = output.indexOf('{"path"');
  let previous = null;
  let sent = 0;
  for (let at = 0; at < output.length; at += 4) {
    for (const delta of stream.feed(output.slice(at, at + 4))) {
      if (delta.op === "json" && delta.path === "/tool_calls/0/function/arguments") sent += delta.text.length;
    }
    const message = structuredClone(stream.message);
    assert.ok(previous === null || isPart(previous, message), "retracted");
    assert.ok(message === null || isPart(message, result), `${JSON.stringify(message)} is not a part`);
    previous = message;
    if (at + 4 <= bodyEnd && at + 4 > bodyEnd - 4) assert.ok(sent >= at + 4 - argumentsAt - 8, `${sent} sent`);
  }
  stream.finish();
  assert.deepEqual(stream.message, result);
});

test("a long call is not read whole on every feed: the work on texts known whole stays linear", (context) => {
  // granite's calls section ends wherever the output may end: each feed gave a new candidate that ran to the end of
  // what arrived, read whole (quadratic) until it was described by the open text it is cut from (`remembered`)
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/granite.json", import.meta.url)));
  const parser = compile(schema);
  let read = 0;
  for (const method of ["exact", "exactStages"]) {
    const original = Analysis.prototype[method];
    context.mock.method(Analysis.prototype, method, function counted(node, value, ...rest) {
      if (typeof value === "string") read += value.length;
      return original.call(this, node, value, ...rest);
    });
  }
  const perChar = [1, 4].map((times) => {
    const text = "Checking the forecast for the coast, then the hills.\n  ".repeat(30 * times);
    const args = JSON.stringify({ path: "notes.md", text });
    const output = `Saving it.<|tool_call|>[{"name": "write_file", "arguments": ${args}}]<|end_of_text|>`;
    read = 0;
    const stream = parser.stream();
    for (let at = 0; at < output.length; at += 4) stream.feed(output.slice(at, at + 4));
    stream.finish();
    return read / output.length;
  });
  assert.ok(perChar[1] <= perChar[0] + 1, JSON.stringify(perChar));
});

test("a text node reads its substitutions' output only as it grows", (context) => {
  // the stages after content's substitutions (its x-regex, then its type) read only their output, which only grows:
  // while thinking streams it does not, and content's x-regex is not run again (`Analysis.substituted`); before,
  // every feed ran it
  const searched = [];
  const original = Analysis.prototype.regex;
  context.mock.method(Analysis.prototype, "regex", function counted(pattern, content) {
    searched.push(pattern.pattern);
    return original.call(this, pattern, content);
  });
  for (const name of ["qwen3", "smollm3", "deepseek-r1", "glm"]) {
    const schema = JSON.parse(readFileSync(new URL(`../../src/response_schema/schemas/${name}.json`, import.meta.url)));
    const contentRegex = schema.properties.content["x-regex"];
    const thinking = "Weighing it. ".repeat(20);
    const output = `<think>\n${thinking}</think>\n\n${"The answer is four. ".repeat(5)}`;
    const middle = 40;
    const last = output.indexOf("</think>") - 4;
    const stream = compile(schema).stream();
    stream.feed(output.slice(0, middle));
    searched.length = 0;
    for (let at = middle; at < last; at += 4) stream.feed(output.slice(at, Math.min(at + 4, last)));
    assert.ok(!searched.includes(contentRegex), name);
    for (let at = last; at < output.length; at += 4) stream.feed(output.slice(at, at + 4));
    assert.ok(searched.includes(contentRegex), name); // content arrived: its x-regex reads it
    stream.finish();
    assert.deepEqual(stream.message, compile(schema).parse(output), name);
  }
});

test("calls already sent are not analysed again: the work per character does not grow with the calls", (context) => {
  // every feed analysed every call found so far (and grew the message from each): 400 calls cost 3x to 3.6x what
  // 100 did per character; a call known whole since an earlier feed is read once (`ItemsRead`), and what sent it
  // skips it (`OpenArray.settled`)
  let analysed = 0;
  const original = Analysis.prototype.node;
  context.mock.method(Analysis.prototype, "node", function counted(...args) {
    analysed++;
    return original.apply(this, args);
  });
  const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];
  for (const [name, render] of [
    ["qwen3", (args) => `<tool_call>\n${JSON.stringify({ name: "get_weather", arguments: args })}\n</tool_call>`],
    [
      "kimi-k2",
      (args) =>
        `<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|>`,
    ],
  ]) {
    const schema = JSON.parse(readFileSync(new URL(`../../src/response_schema/schemas/${name}.json`, import.meta.url)));
    for (const options of [{}, { tools }]) {
      const perChar = [5, 60].map((count) => {
        const body = Array.from({ length: count }, (_, index) => render({ city: `Paris ${index}`, days: [1, 2] }));
        const calls = body.join("");
        const output =
          name === "kimi-k2"
            ? `Checking.<|tool_calls_section_begin|>${calls}<|tool_calls_section_end|>`
            : `Checking.${calls}`;
        analysed = 0;
        const stream = compile(schema).stream(options);
        for (let at = 0; at < output.length; at += 4) stream.feed(output.slice(at, at + 4));
        const message = stream.finish() && stream.message;
        assert.equal(message.tool_calls.length, count, name);
        return analysed / output.length;
      });
      assert.ok(perChar[1] <= perChar[0] * 1.5, `${name} ${JSON.stringify(perChar)}`);
    }
  }
});

test("calls already found are not copied on every feed: the arrays a feed gives share them", (context) => {
  // the array a feed gives leaves out its settled calls (`OpenArray.head`) and the iterator gives its matches as they
  // are; before, each feed copied the calls found so far (the matches, the array's values, the array without its JSON
  // texts, the typed calls): Kimi K2 outputs of 10,000 calls cost 2.4x what 1,000 did per character
  let copied = 0;
  const given = new Map();
  const original = Analysis.prototype.array;
  context.mock.method(Analysis.prototype, "array", function counted(node, content) {
    const result = original.call(this, node, content);
    if (content.source !== null && given.get(content.source) !== content.known) {
      copied += content.known.length;
      given.set(content.source, content.known);
    }
    if (Array.isArray(result.value)) copied += result.value.length; // the items it holds itself
    return result;
  });
  const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/kimi-k2.json", import.meta.url)));
  const render = (args) =>
    `<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|>`;
  for (const options of [{}, { tools }]) {
    const perChar = [5, 60].map((count) => {
      const calls = Array.from({ length: count }, (_, index) => render({ city: `Paris ${index}`, days: [1, 2] }));
      const output = `Checking.<|tool_calls_section_begin|>${calls.join("")}<|tool_calls_section_end|>`;
      copied = 0;
      given.clear();
      const stream = compile(schema).stream(options);
      for (let at = 0; at < output.length; at += 4) stream.feed(output.slice(at, at + 4));
      assert.equal((stream.finish() && stream.message).tool_calls.length, count);
      return copied / output.length;
    });
    assert.ok(perChar[1] <= perChar[0] * 1.5, JSON.stringify(perChar));
  }
});

test("a message the stream gave is never changed by what it sends later", () => {
  // the stream grows its own value in place and builds `message` from it when asked for after a change
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/kimi-k2.json", import.meta.url)));
  const call = (index) =>
    `<|tool_call_begin|>functions.get_weather:${index}<|tool_call_argument_begin|>{"city": "Oslo ${index}"}<|tool_call_end|>`;
  const output = `Checking.<|tool_calls_section_begin|>${call(0)}${call(1)}${call(2)}<|tool_calls_section_end|>`;
  const stream = compile(schema).stream();
  const given = [];
  for (let at = 0; at < output.length; at += 3) {
    stream.feed(output.slice(at, at + 3));
    assert.equal(stream.message, stream.message); // not built again while nothing changed
    if (stream.message !== null) given.push([stream.message, structuredClone(stream.message)]);
  }
  stream.finish();
  assert.equal(stream.message.tool_calls.length, 3);
  const distinct = new Set(given.map(([message]) => message)).size;
  assert.ok(distinct > 5 && distinct < given.length, `${distinct} of ${given.length}`);
  for (const [message, copy] of given) assert.deepEqual(message, copy);
});

test("arguments sent as JSON text are in the message once their call closes ([STREAM-7])", () => {
  // added as their value, and ended, when the call's text is known whole, not when the output ends; what was sent
  // of the text is not sent again, and the texts sent parse to the value; a text longer than CUT too (read by a scan
  // kept between feeds)
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/kimi-k2.json", import.meta.url)));
  const call = (name, index, args) =>
    `<|tool_call_begin|>functions.${name}:${index}<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|>`;
  const long = { path: "notes.md", text: 'Checking the coast, then the hills {and [the] "valleys"}.\n'.repeat(30) };
  for (const args of [{ city: "Oslo" }, long]) {
    const output = `Checking.<|tool_calls_section_begin|>${call("get_weather", 0, args)}${call("get_time", 1, { zone: "CET" })}<|tool_calls_section_end|>`;
    const secondStarts = output.indexOf("get_time");
    const pointer = "/tool_calls/0/function/arguments";
    const stream = compile(schema).stream();
    let texts = "";
    let knownAt = null;
    for (let at = 0; at < output.length; at += 4) {
      for (const delta of stream.feed(output.slice(at, at + 4))) {
        if (delta.path !== pointer) continue;
        if (delta.op === "json") {
          assert.equal(knownAt, null); // nothing of the text after its value
          texts += delta.text;
        } else if (delta.op === "add") {
          knownAt = at;
          assert.deepEqual(delta.value, args);
          assert.deepEqual(JSON.parse(texts), args);
        } else assert.ok(delta.op === "end" && knownAt === at); // sent with its value
      }
      if (knownAt !== null && at < secondStarts)
        assert.deepEqual(stream.message.tool_calls[0].function.arguments, args);
    }
    assert.ok(knownAt !== null && knownAt < secondStarts, `${knownAt}`);
    stream.finish();
  }
});

test("no feed reads the whole output: only finish does", (context) => {
  // closing each call's arguments (their JSON text known whole, [STREAM-7]) once read the whole buffer, which made an
  // output of many calls quadratic again
  let read = 0;
  const text = Object.getOwnPropertyDescriptor(Buffer.prototype, "text").get;
  context.mock.method(
    Buffer.prototype,
    "text",
    function counted() {
      read++;
      return text.call(this);
    },
    { getter: true },
  );
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/kimi-k2.json", import.meta.url)));
  const call = (index) =>
    `<|tool_call_begin|>functions.get_weather:${index}<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>`;
  const output = `Checking.<|tool_calls_section_begin|>${Array.from({ length: 20 }, (_, i) => call(i)).join("")}`;
  const stream = compile(schema).stream();
  for (let at = 0; at < output.length; at += 4) stream.feed(output.slice(at, at + 4));
  assert.equal(read, 0);
  stream.finish();
  assert.equal(stream.message.tool_calls.length, 20);
});

test("arguments streamed as JSON text to a tool are typed and sent when their object closes ([TOOLS-7])", () => {
  const schema = JSON.parse(readFileSync(new URL("../../src/response_schema/schemas/kimi-k2.json", import.meta.url)));
  const call = (name, index, args) =>
    `<|tool_call_begin|>functions.${name}:${index}<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|>`;
  const output =
    "Checking.<|tool_calls_section_begin|>" +
    call("get_weather", 0, { city: "Oslo", days: "3" }) +
    call("get_time", 1, { zone: "CET" }) +
    "<|tool_calls_section_end|>";
  const tools = [{ name: "get_weather", parameters: { properties: { days: { type: "integer" } } } }];
  const parser = compile(schema);
  const result = parser.parse(output, { tools });
  const stream = parser.stream({ tools });
  let sentAt = null;
  for (let at = 0; at < output.length; at++) {
    stream.feed(output[at]);
    const message = structuredClone(stream.message);
    assert.ok(message === null || isPart(message, result), `${JSON.stringify(message)} is not a part`);
    if (sentAt === null && message?.tool_calls?.[0]?.function?.arguments !== undefined) {
      sentAt = at;
      assert.deepEqual(message.tool_calls[0].function.arguments, { city: "Oslo", days: 3 });
    }
  }
  assert.equal(sentAt, output.indexOf('"3"}') + 3); // with the brace that closes them, not before, not at the end
  stream.finish();
  assert.deepEqual(stream.message, result);
});

test("a long JSON text to the end of the output is sent when it closes, escapes and all ([PARSER-2])", () => {
  const parser = compile({
    type: "object",
    properties: {
      args: { type: "object", "x-regex": "ARGS(.*)", "x-parser": "json", properties: { a: { type: "string" } } },
    },
  });
  const entries = Array.from({ length: 40 }, (_, index) => `"k${index}": "a \\" [{ ${index}"`);
  for (const tail of ["", "  \n", " trailing", ', "b": "x\\"}"}', "}"]) {
    const output = `ARGS {"a": "x", ${entries.join(", ")}}${tail}`;
    const close = output.length - tail.length;
    let result = null;
    try {
      result = parser.parse(output);
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
    }
    for (const size of [1, 4, 7]) {
      const stream = parser.stream();
      let previous = null;
      for (let at = 0; at < output.length; at += size) {
        stream.feed(output.slice(at, at + size));
        const message = structuredClone(stream.message);
        assert.ok(previous === null || isPart(previous, message), "retracted");
        if (result !== null) assert.ok(isPart(message, result), `${JSON.stringify(message)} is not a part`);
        if (size === 1 && at < close - 1) assert.deepEqual(message, {}, `sent at ${at}`);
        if (size === 1 && at === close - 1) assert.deepEqual(message, parser.parse(output.slice(0, close)));
        previous = message;
      }
      if (result === null) assert.throws(() => stream.finish(), ParseError);
      else {
        stream.finish();
        assert.deepEqual(stream.message, result);
      }
    }
  }
});

const SCANNED = [
  '{"a": "b\\"}", "c": [1, {"d": null}]}',
  ' [1, "]", 2] ',
  '"str\\\\" x',
  "  true ",
  " false x",
  "nul",
  "null",
  "truex",
  "falsey",
  "-3.5e7",
  "12 ",
  "the answer",
  '{"a": 1}}',
  '{"a": 1} \n',
  "\\{",
  "{]",
  "[[[]]]",
];

test("the JSON scan of an open text agrees with parsing every prefix of it ([PARSER-2])", () => {
  for (const text of SCANNED) {
    for (const size of [1, 3]) {
      const buffer = new Buffer();
      const scan = new JSONScan(buffer, 0);
      for (let at = 0; at < text.length; at += size) {
        buffer.grow(text.slice(at, at + size));
        const seen = buffer.slice(0);
        const got = scan.advance((whole) => (jsonComplete(whole) ? "complete" : null));
        assert.equal(got === "complete", jsonComplete(seen), `${JSON.stringify(seen)} in chunks of ${size}`);
      }
    }
  }
});

test("a buffer reads as the text it grew by, across its head, middle and tail", () => {
  let whole = "é";
  const buffer = new Buffer(whole);
  for (let chunk = 0; whole.length < 20000; chunk++) {
    const more = String.fromCharCode(97 + (chunk % 26)).repeat(1 + ((chunk * 37) % 300));
    buffer.grow(more);
    whole += more;
    assert.equal(buffer.length, whole.length);
    const end = whole.length;
    for (const [start, stop] of [
      [0, end],
      [end - 5, end],
      [end - 300, end - 2],
      [end - 9000, end - 100],
      [end >> 1, end],
    ].map(([from, to]) => [Math.max(0, from), to])) {
      assert.equal(buffer.slice(start, stop), whole.slice(start, stop), `${start}:${stop} of ${end}`);
    }
    for (const index of [0, end - 1, end - 257, end >> 1]) assert.equal(buffer.unit(index), whole[index]);
  }
  assert.equal(buffer.text, whole);
});
