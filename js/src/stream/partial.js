// Partial values ([STREAM-2]) as the analysis of open content builds them: JSON values whose strings may be
// `OpenText` (the final string starts with it and may go on), objects and arrays that may be `OpenObject` and
// `OpenArray` (only part of them is known), and `UNKNOWN` (a value is there, nothing is known of it). `meet` is
// what two possible results have in common ([STREAM-6]); `join` puts together two parts of one result.

import { put } from "../data.js";
import { equal as jsonEqual } from "../jmespath.js";

/** A string of which only the beginning is known; `source`, when it is a span of a buffer (`[buffer, base]`), is
 * where a part of it is read again at the cost of that part (`piece`). */
export class OpenText {
  constructor(text, source = null) {
    this.text = text;
    this.source = source;
  }

  /** The text from `from` on. */
  piece(from) {
    if (this.source === null) return this.text.slice(from);
    const [buffer, base] = this.source;
    return buffer.slice(base + from, base + this.text.length);
  }
}

/** An object of which only some keys, or parts of their values, are known. */
export class OpenObject {}

/** An array of which only the first items, or parts of them, are known. Its first `settled` items are what every
 * later feed gives them, until the output is complete (values of matches known whole): what has sent them need not
 * read them again. It may leave out its first `skipped` items: they are then the first items of `head`, an array
 * that only grows and that the arrays of later feeds share, and the array holds the items after them (copied on
 * every feed, the calls found so far would make a stream of many calls quadratic). `arrayLength`, `arrayItem` and
 * `arrayItems` read it whole. */
export class OpenArray extends Array {
  settled = 0;
  skipped = 0;
  head = NO_ITEMS;

  static get [Symbol.species]() {
    return Array;
  }

  /** The array whose first `skipped` items are those of `head`, with no items after them yet. */
  static after(head, skipped) {
    const array = new OpenArray();
    array.head = head;
    array.skipped = skipped;
    return array;
  }
}

const NO_ITEMS = Object.freeze([]);

/** How many items an array holds, those an `OpenArray` leaves out included. */
export const arrayLength = (array) => (array instanceof OpenArray ? array.skipped + array.length : array.length);

export function arrayItem(array, index) {
  if (!(array instanceof OpenArray)) return array[index];
  return index < array.skipped ? array.head[index] : array[index - array.skipped];
}

/** Every item of an array, those an `OpenArray` leaves out included. */
export function arrayItems(array) {
  if (!(array instanceof OpenArray) || array.skipped === 0) return array;
  return [...array.head.slice(0, array.skipped), ...array];
}

/** An OpenArray of the first `length` items of `array`, sharing them when they are in its `head`; a copy is set by
 * index (V8 pushes onto an Array subclass on a slow path: 66 µs for 3,000 items, 8 by index). */
export function arrayPrefix(array, length) {
  if (array instanceof OpenArray && array.skipped >= length) return OpenArray.after(array.head, length);
  const copy = new OpenArray();
  copy.length = length;
  for (let index = 0; index < length; index++) copy[index] = arrayItem(array, index);
  return copy;
}

/** How many first items two arrays leave out of one `head` (the same matches' values). */
function shared(first, second) {
  if (first instanceof OpenArray && second instanceof OpenArray && first.head === second.head)
    return Math.min(first.skipped, second.skipped);
  return 0;
}

/** How many first items two arrays both hold settled (`OpenArray`), when they are the same objects (the same
 * matches' values): their meet, each item itself. The first `common` are, being one head's. */
function settledInBoth(first, second, common) {
  const count = Math.min(first.settled ?? 0, second.settled ?? 0);
  for (let index = common; index < count; index++) if (arrayItem(first, index) !== arrayItem(second, index)) return 0;
  return count;
}

/** A value sent as the JSON text it is parsed from ([STREAM-7] "json"): `text` is what every possible result's
 * text begins with; `origins` are where those texts start (`[buffer, offset]` pairs), so that the rest of the
 * text can be read there once the value is known. */
export const UNKNOWN = Symbol("unknown");

/** A value sent as the JSON text it is parsed from ([STREAM-7] "json"): `text` is what every possible result's text
 * begins with; `origins` are where those texts start, so that the rest of the text can be read there once the value
 * is known. `value` is that value when every possible result has this text whole (UNKNOWN while it may go on). */
export class JSONText {
  constructor(text, origins, value = UNKNOWN) {
    this.text = text;
    this.origins = origins;
    this.value = value;
  }
}

const isText = (value) => typeof value === "string" || value instanceof OpenText;
const textOf = (value) => (typeof value === "string" ? value : value.text);
const isObject = (value) =>
  value !== null &&
  typeof value === "object" &&
  !Array.isArray(value) &&
  !(value instanceof OpenText) &&
  !(value instanceof JSONText);

/** Whether a partial value is known whole (nothing in it is open). */
export function complete(value) {
  return (
    value !== UNKNOWN &&
    !(
      value instanceof OpenText ||
      value instanceof OpenObject ||
      value instanceof OpenArray ||
      value instanceof JSONText
    )
  );
}

/** The most that two partial values both contain ([STREAM-6]): the common prefix of strings, the keys and items
 * both have, equal scalars; UNKNOWN when they disagree on the kind of value. */
export function meet(first, second) {
  if (first === UNKNOWN || second === UNKNOWN) return UNKNOWN;
  if (first instanceof JSONText || second instanceof JSONText) {
    if (!(first instanceof JSONText && second instanceof JSONText)) return UNKNOWN;
    // texts that begin where one text begins are prefixes of one another: the shorter, without comparing them
    const text = first.origins.some((origin) => second.origins.some((other) => sameSpan(origin, other)))
      ? shorter(first.text, second.text)
      : commonPrefix(first.text, second.text);
    const whole = first.value !== UNKNOWN && second.value !== UNKNOWN && first.text === second.text;
    return new JSONText(text, [...first.origins, ...second.origins], whole ? first.value : UNKNOWN);
  }
  if (isText(first) && isText(second)) {
    if (typeof first === "string" && typeof second === "string" && first === second) return first;
    if (first instanceof OpenText && second instanceof OpenText && sameSpan(first.source, second.source))
      return first.text.length <= second.text.length ? first : second; // spans of one text: the shorter
    return new OpenText(commonPrefix(textOf(first), textOf(second)));
  }
  if (isObject(first) && isObject(second)) {
    if (complete(first) && complete(second) && jsonEqual(first, second)) return first;
    const common = new OpenObject();
    for (const [key, value] of Object.entries(first)) {
      if (Object.hasOwn(second, key)) {
        const both = meet(value, second[key]);
        if (both !== UNKNOWN) put(common, key, both);
      }
    }
    return common;
  }
  if (Array.isArray(first) && Array.isArray(second)) {
    if (complete(first) && complete(second) && jsonEqual(first, second)) return first;
    const common = shared(first, second);
    const settled = settledInBoth(first, second, common);
    const items = arrayPrefix(first, common);
    items.settled = settled;
    for (let index = common; index < Math.min(arrayLength(first), arrayLength(second)); index++) {
      const both = meet(arrayItem(first, index), arrayItem(second, index)); // settled: the same object in both
      if (both === UNKNOWN) break;
      items.push(both);
    }
    return items;
  }
  if (typeof first === typeof second && !isObject(first) && !Array.isArray(first) && jsonEqual(first, second))
    return first;
  return UNKNOWN;
}

const sameSpan = (one, other) => one !== null && other !== null && one[0] === other[0] && one[1] === other[1];
const shorter = (one, other) => (one.length <= other.length ? one : other);

/** The longest common prefix of two strings, not cutting a code point in two. Native comparisons only: the
 * usual case, one a prefix of the other, is one `startsWith`; otherwise a binary search. */
export function commonPrefix(first, second) {
  if (first.length > second.length) [first, second] = [second, first];
  if (second.startsWith(first)) return first;
  let low = 0; // first.slice(0, low) is common, first.slice(0, high + 1) is not
  let high = first.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (second.startsWith(first.slice(0, middle))) low = middle;
    else high = middle - 1;
  }
  const code = first.charCodeAt(low - 1);
  if (low > 0 && code >= 0xd800 && code <= 0xdbff) low--; // the two differ in the second half of a code point
  return first.slice(0, low);
}

/** `sent` grown by what `known` adds (both are parts of the same result, so they agree where both have something),
 * with the deltas that say what it adds pushed to `deltas` ([STREAM-7]; added values are copies). `sent` is the
 * stream's own, changed in place (a string is returned grown); null at path "" is nothing sent yet. A string grows
 * by the piece of `known` beyond it, read where it came from: a feed never re-reads a whole string. The first
 * `settled.get(path)` items of an array were sent as far as they go before the end: they are not read again. */
export function grow(sent, known, path, deltas, settled) {
  if (known === UNKNOWN) return sent;
  if (sent === null) return added(known, path, deltas);
  if (typeof sent === "string" && isText(known)) {
    if (textOf(known).length <= sent.length) return sent;
    const piece = known instanceof OpenText ? known.piece(sent.length) : known.slice(sent.length);
    deltas.push({ op: "append", path, text: piece });
    return sent + piece;
  }
  if (isObject(sent) && isObject(known)) {
    for (const [key, value] of Object.entries(known)) {
      if (value === UNKNOWN) continue;
      const where = `${path}/${escaped(key)}`;
      put(
        sent,
        key,
        Object.hasOwn(sent, key) ? grow(sent[key], value, where, deltas, settled) : added(value, where, deltas),
      );
    }
    return sent;
  }
  if (Array.isArray(sent) && Array.isArray(known)) {
    const length = arrayLength(known);
    for (let index = settled.get(path) ?? 0; index < length; index++) {
      const where = `${path}/${index}`;
      if (index < sent.length) sent[index] = grow(sent[index], arrayItem(known, index), where, deltas, settled);
      else sent.push(added(arrayItem(known, index), where, deltas));
    }
  }
  return sent;
}

/** What a stream has sent, as a plain JSON value of its own (a stream keeps changing its `sent`). */
export function sentValue(sent) {
  return plain(sent);
}

function added(known, path, deltas) {
  const value = plain(known);
  deltas.push({ op: "add", path, value: structuredClone(value) });
  return value;
}

/** `value` as plain JSON: OpenText as a string, open objects and arrays as plain ones. */
function plain(value) {
  if (value instanceof OpenText) return value.text;
  if (Array.isArray(value)) return Array.from(arrayItems(value), plain);
  if (isObject(value)) {
    const out = {};
    for (const [key, item] of Object.entries(value)) put(out, key, plain(item));
    return out;
  }
  return value;
}

const escaped = (key) =>
  key.includes("~") || key.includes("/") ? key.replaceAll("~", "~0").replaceAll("/", "~1") : key;

/** `value` with its JSONText values as the values they are known to be (UNKNOWN while their texts may go on), and
 * those JSONText values by pointer (a Map). */
export function jsonTexts(value, settled) {
  const found = new Map();
  const arrays = new Map();
  return [withoutTexts(value, "", found, settled, arrays), found, arrays];
}

function withoutTexts(value, path, found, settled, arrays) {
  if (value instanceof JSONText) {
    found.set(path, value);
    return value.value; // in what is sent once its text is known whole, UNKNOWN before
  }
  if (value instanceof OpenObject) {
    const kept = new OpenObject();
    for (const key of Object.keys(value)) {
      const part = withoutTexts(value[key], `${path}/${escaped(key)}`, found, settled, arrays);
      if (part !== UNKNOWN) put(kept, key, part);
    }
    return kept;
  }
  if (value instanceof OpenArray) {
    const length = arrayLength(value);
    const skip = Math.min(settled.get(path) ?? 0, length); // read before: they hold no JSON text still open
    const items = arrayPrefix(value, skip);
    for (let index = skip; index < length; index++) {
      const part = withoutTexts(arrayItem(value, index), `${path}/${index}`, found, settled, arrays);
      if (part === UNKNOWN) break;
      items.push(part);
    }
    // settled and sent: an item that is a JSON text not known whole is not in what is sent, nor any after it
    items.settled = Math.min(value.settled, arrayLength(items));
    arrays.set(path, items.settled);
    return items;
  }
  return value;
}

/** The pointers of the outermost values in `value` that are complete, but for the first `settled.get(path)` items
 * of an array (their pointers were given before). */
export function ended(value, settled, path = "", found = []) {
  if (complete(value)) found.push(path);
  else if (value instanceof OpenObject) {
    for (const key of Object.keys(value)) ended(value[key], settled, `${path}/${escaped(key)}`, found);
  } else if (value instanceof OpenArray) {
    for (let index = settled.get(path) ?? 0; index < arrayLength(value); index++) {
      ended(arrayItem(value, index), settled, `${path}/${index}`, found);
    }
  }
  return found;
}
