// benchmarks/streaming.py --js: the JavaScript implementation's stream measured as the reference's is.
// Reads {families: {name: {schema, outputs: [[prefix, text], ...]}}, cost: {schema, texts: {size: text}}, arguments:
// {schema, texts}, calls: {schema, texts}, long: {family: {schema, text}}, contents: {family: {schema, texts: {kind:
// text}}}} on stdin; writes {lag: {family: {kind: {mean, max}}}, cost: {size: {us_per_char_1, us_per_char_4}},
// arguments_cost and calls_cost: {size: {us_per_char_4}}, families_cost: {family: us}, contents_cost: {family: {kind:
// us}}}. Lag as streaming.py defines it: a character of content, thinking or the arguments' JSON text at position p,
// sent once n characters had arrived, lags n - (p + 1); a call's name from its last character to its `end`.
import { readFileSync } from "node:fs";
import { ParseError, compile } from "../js/src/index.js";

function leaves(message) {
  const found = {};
  if (message !== null && typeof message === "object" && !Array.isArray(message)) {
    for (const key of ["content", "thinking"]) if (typeof message[key] === "string") found[key] = message[key];
    (Array.isArray(message.tool_calls) ? message.tool_calls : []).forEach((call, index) => {
      const name = call?.function?.name;
      if (typeof name === "string") found[`tool_calls/${index}/name`] = name;
    });
  }
  return found;
}

function lags(parser, prefix, text) {
  const whole = prefix + text;
  const final = leaves(parser.parse(text, { prefix }));
  const sentAt = Object.fromEntries(Object.keys(final).map((path) => [path, []]));
  const jsonAt = {};
  const jsonText = {};
  const endedAt = {};
  const stream = parser.stream({ prefix });
  const chars = [...text];
  let offset = prefix.length;
  for (const char of chars) {
    offset += char.length;
    for (const delta of stream.feed(char)) {
      if (delta.op === "end") {
        for (const path of Object.keys(final)) {
          const pointer = `/${path.replace("/name", "/function/name")}`;
          if (`${pointer}/`.startsWith(`${delta.path}/`)) endedAt[path] ??= offset;
        }
      }
      if (delta.op === "json") {
        (jsonAt[delta.path] ??= []).push(...Array(delta.text.length).fill(offset));
        jsonText[delta.path] = (jsonText[delta.path] ?? "") + delta.text;
      }
    }
    for (const [path, value] of Object.entries(leaves(stream.message))) {
      if (path in sentAt) sentAt[path].push(...Array(Math.max(0, value.length - sentAt[path].length)).fill(offset));
    }
  }
  for (const delta of stream.finish()) {
    if (delta.op === "json") {
      (jsonAt[delta.path] ??= []).push(...Array(delta.text.length).fill(whole.length));
      jsonText[delta.path] = (jsonText[delta.path] ?? "") + delta.text;
    }
  }
  const out = {};
  for (const [path, value] of Object.entries(final)) {
    const times = [...sentAt[path], ...Array(value.length - sentAt[path].length).fill(whole.length)];
    const kind = path.split("/").pop();
    if (kind === "name") {
      const at = endedAt[path] ?? whole.length;
      const where = value ? whole.lastIndexOf(value, at - value.length) : -1;
      if (where >= 0) (out[kind] ??= []).push(at - (where + value.length));
      continue;
    }
    const where = value ? whole.indexOf(value) : -1;
    if (where < 0) continue;
    (out[kind] ??= []).push(...times.map((at, index) => at - (where + index + 1)));
  }
  let after = 0;
  for (const [path, value] of Object.entries(jsonText)) {
    const where = whole.indexOf(value, after);
    if (where < 0) continue;
    after = where + value.length;
    (out.arguments ??= []).push(...jsonAt[path].map((at, index) => at - (where + index + 1)));
  }
  return out;
}

const input = JSON.parse(readFileSync(0, "utf8"));
const lag = {};
for (const [family, { schema, outputs }] of Object.entries(input.families)) {
  const parser = compile(schema);
  const kinds = {};
  let count = 0;
  for (const [prefix, text] of outputs) {
    let measured;
    try {
      measured = lags(parser, prefix, text);
    } catch (error) {
      if (error instanceof ParseError) continue;
      throw error;
    }
    count++;
    for (const [kind, values] of Object.entries(measured)) (kinds[kind] ??= []).push(...values);
  }
  lag[family] = { outputs: count };
  for (const [kind, values] of Object.entries(kinds)) {
    if (values.length === 0) continue;
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    lag[family][kind] = { mean, max: Math.max(...values), chars: values.length };
  }
}
/** Microseconds per character of each text streamed in each chunk size, finish included (the JIT warmed up on
 * three streams of the first text). */
function costs({ schema, texts }, chunks) {
  const parser = compile(schema);
  const streamed = (text, chunk) => {
    const started = process.hrtime.bigint();
    const stream = parser.stream();
    for (let at = 0; at < text.length; at += chunk) stream.feed(text.slice(at, at + chunk));
    stream.finish();
    return Number(process.hrtime.bigint() - started) / 1000 / text.length;
  };
  const sizes = Object.keys(texts);
  for (let round = 0; round < 3; round++) streamed(texts[sizes[0]], 1);
  const rows = {};
  for (const size of sizes) {
    rows[size] = {};
    for (const chunk of chunks) rows[size][`us_per_char_${chunk}`] = streamed(texts[size], chunk);
  }
  return rows;
}
const cost = costs(input.cost, [1, 4]);
const argumentsCost = costs(input.arguments, [4]);
const callsCost = costs(input.calls, [4]);
// every family's long output in 4-character chunks: the median of three streams after a first one
const familiesCost = {};
for (const [family, { schema, text }] of Object.entries(input.long)) {
  const rows = [0, 1, 2, 3].map(() => costs({ schema, texts: { text } }, [4]).text.us_per_char_4).slice(1);
  familiesCost[family] = rows.sort((a, b) => a - b)[1];
}
// every family's outputs of each kind (4 KB of each kind of content, its 1 KB output, ten short calls): the median
// of three streams after a first one
const contentsCost = {};
for (const [family, { schema, texts }] of Object.entries(input.contents)) {
  contentsCost[family] = {};
  for (const [kind, text] of Object.entries(texts)) {
    const rows = [0, 1, 2, 3].map(() => costs({ schema, texts: { text } }, [4]).text.us_per_char_4).slice(1);
    contentsCost[family][kind] = rows.sort((a, b) => a - b)[1];
  }
}
process.stdout.write(
  JSON.stringify({
    lag,
    cost,
    arguments_cost: argumentsCost,
    calls_cost: callsCost,
    families_cost: familiesCost,
    contents_cost: contentsCost,
  }),
);
