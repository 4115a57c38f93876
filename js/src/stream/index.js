// Streaming (SPEC.md section 14): a Stream reads an output in chunks and sends the message as it grows.
//
// What a stream has sent is always a part of the one-shot result ([STREAM-3]); after `finish` it is the result
// ([STREAM-4]), or `finish` throws the one-shot error ([STREAM-5]). The one-shot parse does the parsing, on the
// complete output, so equality holds by construction.
//
// Before `finish`, after each feed, the stream sends what the output received so far already decides
// ([STREAM-6]): `analysis.js` runs the schema on descriptions of open content, with `pike.js` matching patterns on
// text still arriving; `partial.js` holds the partial values. What it cannot prove it does not send.

import { put } from "../data.js";
import { equal as jsonEqual } from "../jmespath.js";
import { JsonFailure, readJson } from "../textparsers.js";
import { Analysis, NOTHING } from "./analysis.js";
import {
  JSONText,
  OpenArray,
  UNKNOWN,
  arrayItem,
  arrayLength,
  arrayPrefix,
  complete,
  ended,
  grow,
  jsonTexts,
  sentValue,
} from "./partial.js";
import { Buffer } from "./pike.js";

/** `feed` or `finish` on a stream that has finished: a mistake in the calling code ([STREAM-5]). */
export class StreamFinished extends Error {
  constructor(message) {
    super(message);
    this.name = "StreamFinished";
  }
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const HIGH_SURROGATE = /[\ud800-\udbff]$/;

/**
 * One output being parsed as it arrives, from `parser.stream({ prefix, tools })`. `feed(text)` and `finish()`
 * return the deltas of what they sent ([STREAM-7]); `message` is the partial value sent so far (null before
 * anything was sent, [STREAM-1]). One compiled parser serves any number of streams.
 */
export class Stream {
  #parser;
  #tools;
  #buffer;
  #analysis;
  #sent = null; // what was sent, changed in place as it grows
  #message = null; // `#sent` as a value of its own, when it was asked for since it last changed
  #ended = new Set();
  #texts = new Map(); // values being sent as JSON text: path -> [how much was sent, the JSONText]
  #openTexts = new Set(); // those of #texts whose value may be known before the end
  #settled = new Map(); // how many first items of an array are sent as far as they go, by pointer
  #held = ""; // the first half of a code point whose second half has not arrived
  #finished = false;

  constructor(parser, prefix, tools) {
    if (typeof prefix !== "string") throw new TypeError(`the prefix must be a string, not ${typeof prefix}`);
    this.#parser = parser;
    this.#tools = tools;
    this.#buffer = new Buffer(prefix); // [STREAM-9]: the prefix is read first
    this.#analysis = new Analysis(parser.root);
  }

  /** The partial value sent so far ([STREAM-1]): null before anything is sent. Built when asked for after it
   * changed, so it costs the size of the message; a value it gave is never changed by the stream. */
  get message() {
    if (this.#message === null && this.#sent !== null) this.#message = sentValue(this.#sent);
    return this.#message;
  }

  /** Read the next chunk of the output; the deltas of what it lets the stream send ([STREAM-7]). */
  feed(text) {
    this.#checkOpen("feed");
    if (typeof text !== "string") throw new TypeError(`a chunk must be a string, not ${typeof text}`);
    text = this.#held + text;
    this.#held = HIGH_SURROGATE.test(text) ? text.slice(-1) : "";
    if (this.#held) text = text.slice(0, -1);
    if (!text) return [];
    this.#buffer.grow(text);
    const outcome = this.#analysis.run(this.#buffer);
    if (outcome.none || outcome.value === NOTHING || outcome.value === UNKNOWN) return []; // [STREAM-6]
    const value =
      this.#tools === null
        ? outcome.value
        : typedCalls(outcome.value, this.#tools, this.#settled.get("/tool_calls") ?? 0);
    const [known, texts, arrays] = jsonTexts(value, this.#settled);
    const deltas = [];
    for (const [path, source] of texts) {
      // [STREAM-7] "json": a value that grows as its text
      if (has(this.#sent, path)) continue; // its value was sent, and the rest of its text with it
      let sent = this.#texts.has(path) ? this.#texts.get(path)[0] : 0;
      if (source.text.length > sent) {
        // it begins with what was sent ([STREAM-3])
        const [buffer, start] = source.origins[0]; // where its text is: a piece of a joined text would copy it whole
        deltas.push({ op: "json", path, text: buffer.slice(start + sent, start + source.text.length) });
        sent = source.text.length;
      }
      this.#texts.set(path, [sent, source]);
      this.#openTexts.add(path);
    }
    const grown = [];
    const sent = (this.#sent = grow(this.#sent, known, "", grown, this.#settled));
    for (const path of [...this.#openTexts]) {
      if (has(sent, path)) deltas.push(...this.#closeText(path, at(sent, path)));
    }
    deltas.push(...grown);
    if (grown.length) this.#message = null;
    for (const path of ended(known, this.#settled)) {
      if (!this.#ended.has(path) && has(sent, path)) {
        this.#ended.add(path);
        deltas.push({ op: "end", path });
      }
    }
    this.#settle(arrays);
    return deltas;
  }

  /** Keep how many first items of each array every later feed gives as this one did (`OpenArray`): they were read
   * in this feed or before (sent, their ends sent), so the next feeds skip them; a JSON text in them stays open
   * until the end. */
  #settle(arrays) {
    for (const [path, count] of arrays) {
      if (count > (this.#settled.get(path) ?? 0)) this.#settled.set(path, count);
    }
    for (const path of [...this.#openTexts]) if (this.#inSettled(path)) this.#openTexts.delete(path);
  }

  #inSettled(path) {
    for (const [array, count] of this.#settled) {
      if (!path.startsWith(array + "/")) continue;
      const index = path.slice(array.length + 1).split("/")[0];
      if (/^\d+$/.test(index) && Number(index) < count) return true;
    }
    return false;
  }

  /** The rest of a value's JSON text, now that its value is known: the rest of the text when it is known whole, else
   * read where its text starts. */
  #closeText(path, value) {
    const [length, source] = this.#texts.get(path);
    this.#texts.delete(path);
    this.#openTexts.delete(path);
    if (source.value !== UNKNOWN) {
      // every possible result has this text whole, and it parses to the value
      const rest = source.text.slice(length);
      return rest ? [{ op: "json", path, text: rest }] : [];
    }
    const sent = source.text.slice(0, length);
    for (const [buffer, start] of source.origins) {
      const text = buffer.slice(start); // from there on only: a feed does not read the whole output
      if (!text.startsWith(sent)) continue;
      const found = jsonValueAt(text, 0);
      if (found !== null && jsonEqual(found.value, value)) {
        const rest = found.end > length ? text.slice(length, found.end) : "";
        return rest ? [{ op: "json", path, text: rest }] : [];
      }
    }
    throw new Error(`the JSON text sent at ${path} does not lead to its value`); // [STREAM-7]
  }

  /** The output is complete: send the rest of the one-shot result ([STREAM-4]), or throw its ParseError
   * ([STREAM-5]); either way the stream is finished. */
  finish() {
    this.#checkOpen("finish");
    this.#finished = true;
    const result = this.#parser.parse(this.#buffer.text + this.#held, { tools: this.#tools });
    const deltas = [];
    for (const path of [...this.#texts.keys()]) deltas.push(...this.#closeText(path, at(result, path)));
    this.#buffer = new Buffer();
    // [STREAM-4]: the deltas to the result itself, which completes what no feed could send
    if (result !== null) grow(this.#sent, result, "", deltas, new Map());
    this.#sent = null;
    this.#message = result;
    return deltas;
  }

  #checkOpen(what) {
    if (this.#finished) throw new StreamFinished(`${what} on a finished stream`);
  }
}

/** A copy of an object or an array of the same kind (open or not), one level deep. */
function shallow(value) {
  if (Array.isArray(value)) {
    const copy = new value.constructor();
    copy.push(...value);
    return copy;
  }
  const copy = Object.create(Object.getPrototypeOf(value));
  for (const [key, item] of Object.entries(value)) put(copy, key, item);
  return copy;
}

/** [TOOLS-7] The partial value with the arguments of each call held back until they can be typed: kept as they
 * stream when the call's name is known and is no tool's, typed when they are complete and the name is a tool's,
 * left out otherwise (a text may still become a number). The first `settled` calls were sent typed and are not read
 * again: they stay as they are. */
function typedCalls(value, tools, settled) {
  if (!isObject(value) || !Array.isArray(value.tool_calls)) return value;
  const held = shallow(value);
  const open = value.tool_calls instanceof OpenArray;
  // sent typed: kept as they are
  const calls = open ? arrayPrefix(value.tool_calls, settled) : value.tool_calls.slice(0, settled);
  for (let index = settled; index < arrayLength(value.tool_calls); index++) {
    calls.push(typedCall(arrayItem(value.tool_calls, index), tools));
  }
  if (open) calls.settled = value.tool_calls.settled;
  held.tool_calls = calls;
  return held;
}

function typedCall(call, tools) {
  const fn = isObject(call) ? call.function : undefined;
  if (!isObject(fn) || !Object.hasOwn(fn, "arguments")) return call;
  const { name } = fn;
  const args = closed(fn.arguments);
  const knownName = typeof name === "string"; // an OpenText may still grow
  if (knownName && !tools.knows(name)) return call; // [TOOLS-3]: kept as parsed
  const held = shallow(call);
  held.function = shallow(fn);
  if (knownName && isObject(args) && complete(args)) held.function.arguments = tools.typedArguments(name, args);
  else delete held.function.arguments;
  return held;
}

/** Arguments sent as JSON text whose text so far is a whole object: its value, which no continuation changes (after
 * the closing brace, only whitespace can follow in a text that parses, [JSON-1]); anything else as it is. Only a
 * text that ends with a brace is parsed, so a long text is not read on every feed. */
function closed(args) {
  if (!(args instanceof JSONText)) return args;
  if (args.value !== UNKNOWN) return args.value; // known whole
  const [buffer, start] = args.origins[0];
  const end = start + args.text.length;
  if (
    !buffer
      .slice(Math.max(end - 64, start), end)
      .replace(/[ \t\n\r]+$/, "")
      .endsWith("}")
  )
    return args;
  const value = readJson(buffer.slice(start, end));
  return value instanceof JsonFailure ? args : value;
}

const unescaped = (token) => token.replaceAll("~1", "/").replaceAll("~0", "~");

/** `message` after one delta of the generic view ([STREAM-7]): what a client does with each delta it receives.
 * `end` changes nothing; a `json` text is kept by the client until the value is complete. */
export function apply(message, delta) {
  if (delta.op === "end" || delta.op === "json") return message;
  const tokens = delta.path.split("/").slice(1).map(unescaped);
  if (tokens.length === 0) return delta.value;
  let parent = message;
  for (const token of tokens.slice(0, -1)) parent = parent[Array.isArray(parent) ? Number(token) : token];
  const last = tokens[tokens.length - 1];
  if (delta.op === "add") {
    if (Array.isArray(parent)) parent.push(delta.value);
    else put(parent, last, delta.value);
  } else {
    const key = Array.isArray(parent) ? Number(last) : last;
    parent[key] += delta.text;
  }
  return message;
}

const MISSING = Symbol("missing");

/** The value at the pointer `path` in `message`, or MISSING. */
function at(message, path) {
  let value = message;
  for (const token of path.split("/").slice(1).map(unescaped)) {
    if (Array.isArray(value) && /^\d+$/.test(token) && Number(token) < value.length) value = value[Number(token)];
    else if (isObject(value) && Object.hasOwn(value, token)) value = value[token];
    else return MISSING;
  }
  return value;
}

/** Whether the pointer `path` names a value of what was sent (null: nothing, [STREAM-1]). */
function has(message, path) {
  return message !== null && at(message, path) !== MISSING;
}

const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** The JSON value that begins at `start` of `text` (after whitespace) and where it ends, as [JSON-1] to [JSON-3]
 * read it; null when there is none. What follows it is not read. */
function jsonValueAt(text, start) {
  let index = start;
  while (index < text.length && " \t\n\r".includes(text[index])) index++;
  const end = valueEnd(text, index);
  if (end === null) return null;
  const value = readJson(text.slice(index, end));
  return value instanceof JsonFailure ? null : { value, end };
}

/** Where the JSON value at `index` ends, read lexically; null when it does not end in `text`. */
function valueEnd(text, index) {
  const head = text[index];
  if (head === '"' || head === "{" || head === "[") {
    let depth = 0;
    for (let at = index; at < text.length; at++) {
      const char = text[at];
      if (char === '"') {
        for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === "\\") at++;
        if (at >= text.length) return null;
        if (depth === 0) return at + 1;
      } else if (char === "{" || char === "[") depth++;
      else if (char === "}" || char === "]") {
        depth--;
        if (depth === 0) return at + 1;
      }
    }
    return null;
  }
  SCALAR.lastIndex = index;
  const match = SCALAR.exec(text);
  return match === null ? null : index + match[0].length;
}
