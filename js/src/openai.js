// The OpenAI view of a stream (SPEC.md [STREAM-8]): what a server puts in `choices[0].delta` of its
// chat-completion chunks, from a message in the library's shape (`content`, `thinking`, `tool_calls`).
//
//   const chat = new OpenAIStream(parser.stream({ prefix: "<think>\n" }));
//   for await (const text of modelOutput) for (const delta of chat.feed(text)) send({ choices: [{ index: 0, delta }] });
//   for (const delta of chat.finish()) send({ choices: [{ index: 0, delta }] }); // throws the one-shot ParseError

import { apply } from "./stream/index.js";

/**
 * A Stream seen as chat-completion-chunk deltas: `content`, `reasoning_content` (from `thinking`) and `tool_calls`
 * entries (`index`, `id`, `type`, the whole `function.name` first, then `function.arguments` as fragments of its
 * JSON text). `makeId(index)` names a call the message gives no `id` to.
 */
export class OpenAIStream {
  #message = null; // the partial value, assembled from the stream's deltas
  #ended = new Set(); // paths the stream said will not change ([STREAM-7] "end")
  #texts = new Map(); // JSON texts the stream sent for values not yet complete ("json")
  #calls = []; // per call whose header was sent: how much of its arguments text was sent
  #roleSent = false;

  constructor(stream, makeId = (index) => `call_${index}`) {
    this.stream = stream;
    this.makeId = makeId;
  }

  feed(text) {
    return this.#view(this.stream.feed(text), false);
  }

  finish() {
    return this.#view(this.stream.finish(), true);
  }

  #view(deltas, finished) {
    const text = { reasoning_content: "", content: "" }; // what the deltas add to each: never a whole string again
    for (const delta of deltas) {
      if (delta.op === "end") this.#ended.add(delta.path);
      else if (delta.op === "json") this.#texts.set(delta.path, (this.#texts.get(delta.path) ?? "") + delta.text);
      for (const [key, field] of FIELDS) {
        const added = addedText(delta, key);
        if (added) text[field] += added;
      }
      this.#message = apply(this.#message, delta);
    }
    const message = isObject(this.#message) ? this.#message : {};
    const out = [];
    for (const [, field] of FIELDS) if (text[field]) out.push({ [field]: text[field] });
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    calls.forEach((call, index) => out.push(...this.#call(index, call, finished)));
    if (out.length > 0 && !this.#roleSent) {
      out[0] = { role: "assistant", ...out[0] };
      this.#roleSent = true;
    }
    return out;
  }

  /** Whether the stream ended the value at `path` or one that holds it ([STREAM-7] "end"). */
  #isEnded(path) {
    for (const ended of this.#ended) if (path === ended || path.startsWith(`${ended}/`)) return true;
    return false;
  }

  /** The deltas of call `index`: its header once its name is whole, then what is new of its arguments. */
  #call(index, call, finished) {
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(fn)) return [];
    const where = `/tool_calls/${index}/function`;
    const out = [];
    if (index === this.#calls.length) {
      // header not sent yet: calls are sent in order
      const { name } = fn;
      if (typeof name !== "string" || !(finished || this.#isEnded(`${where}/name`))) return [];
      if (Object.hasOwn(call, "id") && !(finished || this.#isEnded(`/tool_calls/${index}/id`))) return []; // whole, in the header
      const id = typeof call.id === "string" ? call.id : this.makeId(index);
      out.push({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] });
      this.#calls.push(0);
    }
    if (index >= this.#calls.length) return out;
    let text = this.#texts.get(`${where}/arguments`) ?? "";
    if (finished || this.#isEnded(`${where}/arguments`)) text = text || JSON.stringify(fn.arguments ?? {});
    if (text.length > this.#calls[index]) {
      out.push({ tool_calls: [{ index, function: { arguments: text.slice(this.#calls[index]) } }] });
      this.#calls[index] = text.length;
    }
    return out;
  }
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const FIELDS = [
  ["thinking", "reasoning_content"],
  ["content", "content"],
];

/** The text a delta adds to the message's string `key`. */
function addedText(delta, key) {
  if (delta.op === "append" && delta.path === `/${key}`) return delta.text;
  if (delta.op !== "add") return "";
  const value = delta.path === "" ? (isObject(delta.value) ? delta.value[key] : undefined) : delta.value;
  return (delta.path === "" || delta.path === `/${key}`) && typeof value === "string" ? value : "";
}
