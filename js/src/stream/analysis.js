// What the output received so far already decides ([STREAM-6]): the schema's nodes run on *descriptions* of their
// content instead of the content, and give what every successful continuation agrees on.
//
// A description is one of: `Exact` (the content is known whole: the one-shot walk gives the value), `Open` (a
// string that starts with `buffer.slice(base)` and may go on), `Fields` (the object of an `x-regex` with
// named groups), `Items` (the matches of an `x-regex-iterator`), `ANY` (anything, or nothing) and `NO_MATCH` (a
// regex keyword found nothing). A node gives an outcome `{none, value}`: whether it may give no value, and the
// meet of the values it may give (`NOTHING` when it cannot give one: every continuation fails there).
//
// A stage on an open string keeps its state between feeds, keyed by the node and the span it reads, so each
// character is read once per stage (linear cost). A stage this file cannot run on open content is opaque: its node
// gives ANY until the output is complete.

import { put } from "../data.js";
import { ParseError } from "../errors.js";
import { NO_VALUE, TYPES, laterStages, stages, walk } from "../parser.js";
import { JsonFailure, readJson } from "../textparsers.js";
import { JSONText, OpenArray, OpenObject, OpenText, UNKNOWN, commonPrefix, meet } from "./partial.js";
import { Buffer, Search, programOf } from "./pike.js";

class Exact {
  constructor(value, origin = null) {
    this.value = value;
    this.origin = origin; // [buffer, offset] where a text value starts, when it is a span of a buffer
  }
}

class Open {
  constructor(buffer, base, end = null) {
    this.buffer = buffer;
    this.base = base;
    this.end = end; // known only up to here (`collapsed`), or to the end of the buffer
  }

  get text() {
    return this.buffer.slice(this.base, this.end ?? this.buffer.length);
  }
}

class Fields {
  constructor(fields) {
    this.fields = fields;
  }
}

class Items {
  constructor(known, count, tails, mayEnd, source = null) {
    this.known = known; // the matches found, each an item's content: its first `count` (an iterator's array, which
    this.count = count; // later matches are added to, is given as it is, not copied on every feed)
    this.tails = tails; // what the next item's content may be
    this.mayEnd = mayEnd; // whether there may be no next item
    this.source = source; // the Iterator that found them on an open text (it only adds to `known`)
  }
}

const JSON_END = /^[}\]"el0-9]$/;

/** The items an array node has read of an iterator's matches ([ARR-2]): a match only comes after the matches
 * before it, and the value of one known whole since an earlier feed no longer depends on what came before it
 * (`remembered`), so each is read once and every later feed gives it the same value. `values` holds those values up
 * to the first that has none known; `seen` is how many matches there were at the last feed. */
class ItemsRead {
  count = 0;
  seen = 0;
  values = [];
  whole = true;
  impossible = false;
}

/** The JSON text a node passes through whole (`jsonText`): sent as text ([STREAM-7] "json"). A text known whole
 * has its parsed `value` (UNKNOWN while the text may go on). */
class Source {
  constructor(text, origin, value = UNKNOWN) {
    this.text = text;
    this.origin = origin;
    this.value = value;
  }
}

const ANY = Symbol("any");
const NO_MATCH = Symbol("no match");
export const NOTHING = Symbol("nothing"); // an outcome's value when the node cannot give one

const outcome = (none, value) => ({ none, value });
const IMPOSSIBLE = outcome(false, NOTHING); // every continuation fails here
const UNSURE = outcome(true, UNKNOWN);

function merged(outcomes) {
  if (outcomes.length === 1) return outcomes[0]; // the meet of one outcome is itself
  const none = outcomes.some((each) => each.none);
  const values = outcomes.map((each) => each.value).filter((value) => value !== NOTHING);
  if (values.length === 0) return outcome(none, NOTHING);
  return outcome(none, values.slice(1).reduce(meet, values[0]));
}

/** A number for an object (a node, a buffer, a content), for the keys of what a stream keeps: kept on the object
 * under a symbol of this module (a WeakMap look-up was a twentieth of a feed). */
const ID = Symbol("id");
let lastId = 0;
function idOf(object) {
  return object[ID] ?? (object[ID] = ++lastId);
}

const CUT = 256; // characters: a longer text that is one of several candidates is read only as far as cost allows
const KEPT = 16; // feeds: how many outcomes of a node on one open text are remembered (`candidate`)

/** One stream's analysis: `run(buffer)` gives the root's outcome for the output received so far. */
export class Analysis {
  constructor(root) {
    this.root = root;
    this.holds = new Map(); // whether a node holds JSON text, by node
    this.states = new Map();
    this.used = new Map();
    this.opened = new Map(); // a node's outcomes on an open text: [buffer length, outcome], by node and text
    this.openedNow = new Map();
    this.touched = null; // the keys of what is kept, when `substituted` asks
  }

  run(buffer) {
    this.used = new Map();
    this.openedNow = new Map();
    const result = this.node(this.root, new Open(buffer, 0));
    this.states = this.used; // what this feed did not use is never used again
    this.opened = this.openedNow;
    return result;
  }

  /** What a stage keeps between feeds (its search, or its result on a span known whole), made when first needed
   * and kept while it is used. */
  state(key, make) {
    let state = this.used.get(key);
    if (state === undefined) {
      state = this.states.get(key);
      if (state === undefined) state = make();
      this.used.set(key, state);
    }
    this.touched?.push(key);
    return state;
  }

  // The nodes ([NODE-1]), on descriptions.

  node(node, content) {
    if (node.hasConst) return node.const === null ? outcome(true, NOTHING) : outcome(false, node.const); // [CONST-1]
    if (content instanceof Exact) {
      if (content.origin === null) return this.exact(node, content.value);
      // a text of the output, known whole: what is done with it is done once, not on every feed
      return this.state(`exact:${idOf(node)}:${idOf(content)}`, () => this.known(node, content));
    }
    if (content === ANY) return UNSURE;
    const result = this.described(node, content);
    if (content instanceof Open && content.end === null) {
      this.remember(`node:${idOf(node)}:${idOf(content.buffer)}:${content.base}`, content.buffer.length, result);
    }
    return result;
  }

  known(node, content) {
    if (!this.holdsText(node)) return this.exact(node, content.value);
    return this.described(node, content); // read here, so that the texts sent as JSON text are found
  }

  described(node, content) {
    if (!hasStages(node)) return this.typed(node, content);
    if (content instanceof Exact) return merged(this.exactRegex(node, content).map((each) => this.typed(node, each)));
    if (content instanceof Open && substitutedText(node)) return this.substituted(node, content);
    return merged(this.regexed(node, content).map((each) => this.rest(node, each)));
  }

  /** A text node's substitutions on an open string, then its x-regex and type on their output. Those read only the
   * output, which only grows ([STREAM-3]): while it does not, the node gives the outcome it gave when the output
   * last grew, and what those stages keep between feeds is kept as they left it (`keep`). */
  substituted(node, content) {
    const substitutions = this.substitutions(node, content);
    const out = substitutions.advance();
    if (substitutions.read === out.buffer.length) {
      this.keep(substitutions.touched);
      return substitutions.outcome;
    }
    this.touched = [];
    const result = merged(this.searched(node, out).map((each) => this.rest(node, each)));
    substitutions.touched = this.touched;
    this.touched = null;
    substitutions.read = out.buffer.length;
    substitutions.outcome = result;
    return result;
  }

  /** Keep the states and the remembered outcomes of `keys` for the next feed, as if this one used them. */
  keep(keys) {
    for (const key of keys) {
      if (this.states.has(key)) {
        if (!this.used.has(key)) this.used.set(key, this.states.get(key));
      } else if (this.opened.has(key) && !this.openedNow.has(key)) this.openedNow.set(key, this.opened.get(key));
    }
  }

  /** Steps 6 to 8 and the type on one content the regex stages may give. A long text known whole, cut from a text
   * still open, is not read whole again: its outcome is the outcome on that open text when the output ended at or
   * before the cut (`remembered`). */
  rest(node, content) {
    if (content instanceof Open && content.end === null) {
      const result = merged(this.afterRegex(node, content).map((each) => this.typed(node, each)));
      this.remember(`rest:${idOf(node)}:${idOf(content.buffer)}:${content.base}`, content.buffer.length, result);
      return result;
    }
    return (
      this.remembered("rest", node, content) ??
      merged(this.afterRegex(node, content).map((each) => this.typed(node, each)))
    );
  }

  /** The node on one of several contents the output may give it (the next item of an iterator), a long text known
   * whole cut from a text still open read as `remembered` says. */
  candidate(node, content) {
    return this.remembered("node", node, content) ?? this.node(node, content);
  }

  /** For a long text known whole, cut from a text still open (it ends here if the output does): the outcome of
   * `stage` ("node", or the "rest" after the regex stages) on that open text when the output ended at or before
   * the cut, which was the meet over every text beginning there, this one included (sound, [STREAM-6]; it may send
   * less). Null when there is none, or the text is short. Reading each such text whole would cost its length on
   * every feed that cuts it anew: quadratic in a long call. */
  remembered(stage, node, content) {
    if (content instanceof Exact && content.origin !== null && typeof content.value === "string") {
      const [buffer, start] = content.origin;
      if (content.value.length > CUT) {
        const key = `${stage}:${idOf(node)}:${idOf(buffer)}:${start}`;
        const kept = this.openedNow.get(key) ?? this.opened.get(key) ?? [];
        for (let index = kept.length - 1; index >= 0; index--) {
          if (kept[index][0] <= start + content.value.length) return kept[index][1];
        }
      }
    }
    return null;
  }

  remember(key, at, result) {
    this.touched?.push(key);
    let kept = this.openedNow.get(key);
    if (kept === undefined) {
      kept = this.opened.get(key) ?? []; // moved, not copied: the last feed's lists are not read after this one
      this.openedNow.set(key, kept);
    }
    if (kept.length > 0 && kept[kept.length - 1][0] === at) kept[kept.length - 1] = [at, result];
    else {
      kept.push([at, result]);
      if (kept.length > KEPT) kept.shift();
    }
  }

  /** The one-shot walk on content known whole. */
  exact(node, value) {
    let result;
    try {
      result = walk(node, value);
    } catch (error) {
      if (error instanceof ParseError) return IMPOSSIBLE;
      throw error;
    }
    return result === null ? outcome(true, NOTHING) : outcome(false, result);
  }

  /** Whether a value under `node` may be sent as JSON text: then a text known whole is still read here, not by the
   * walk, so that the value's text is found (`source`). */
  holdsText(node) {
    if (!this.holds.has(node)) {
      const children = [...node.properties.map(([, child]) => child), node.items, node.additional];
      this.holds.set(
        node,
        jsonText(node) ||
          children.some((child) => child !== null && typeof child === "object" && this.holdsText(child)),
      );
    }
    return this.holds.get(node);
  }

  /** Steps 3 to 5 of [NODE-1] on a description: what the content after the regex stages may be. */
  regexed(node, content) {
    if (node.needsString && !(content instanceof Open)) return []; // [NODE-3]: Fields and Items are not strings
    if (node.substitutions.length > 0) content = this.substitutions(node, content).advance();
    return this.searched(node, content);
  }

  /** Step 4 of [NODE-1], x-regex-substitutions, on an open string: kept between feeds. */
  substitutions(node, content) {
    return this.state(
      `subs:${idOf(node)}:${idOf(content.buffer)}:${content.base}`,
      () => new Substitutions(node, content),
    );
  }

  /** Step 5 of [NODE-1], x-regex, on what the substitutions left: what the content after it may be. */
  searched(node, content) {
    let contents = node.regex !== null ? this.regex(node.regex, content) : [content];
    const textNode = [null, "any", "string"].includes(node.type) && node.iterator === null && node.parser === null;
    if (textNode) contents = collapsed(contents);
    return contents;
  }

  /** Steps 3 to 8 of [NODE-1] on a text known whole, keeping where each group's text starts: what the content
   * after them may be. */
  exactRegex(node, content) {
    const { value: text, origin } = content;
    if (typeof text !== "string" || origin === null) return [];
    if (node.substitutions.length > 0) {
      // the text changes: where it came from is lost
      const found = this.exactStages(node, text, true);
      return found === null ? [] : [found];
    }
    if (node.regex === null) return this.afterRegex(node, content);
    const match = node.regex.firstIndexed(text); // [REGEX-2]
    if (match === null) return [NO_MATCH]; // [REGEX-4]
    return this.afterRegex(node, spannedValue(node.regex, match, origin));
  }

  afterRegex(node, content) {
    if (content === NO_MATCH || content === ANY) return [content];
    if (jsonText(node)) {
      if (content instanceof Exact && content.origin !== null && typeof content.value === "string") {
        // not parsed on every feed that cuts it anew
        if (content.value.length > CUT) return this.longSource(node, content.origin, content.value.length);
      }
      return this.source(node, content);
    }
    if (content instanceof Exact && node.iterator !== null && content.origin && this.holdsText(node)) {
      if (typeof content.value !== "string") return []; // [NODE-4]
      const matches = [...node.iterator.all(content.value, true)].map((match) =>
        spannedValue(node.iterator, match, content.origin),
      );
      return matches.length > 0 ? [new Items(matches, matches.length, [], true)] : [NO_MATCH]; // [ITER-2], [ITER-4]
    }
    if (content instanceof Exact && this.openJson(node, content)) {
      const [buffer, start] = content.origin;
      return [this.parsed(node, new Open(buffer, start, buffer.length))];
    }
    if (content instanceof Exact) {
      const found = this.state(`stages:${idOf(node)}:${idOf(content)}`, () => [
        this.exactStages(node, content.value),
      ])[0];
      return found === null ? [] : [found];
    }
    let contents = [content];
    if (node.iterator !== null) {
      if (!(content instanceof Open)) return []; // [NODE-4]
      const found = this.state(
        `iter:${idOf(node)}:${idOf(content.buffer)}:${content.base}`,
        () => new Iterator(node.iterator, content),
      ).advance();
      contents = found.count === 0 && found.mayEnd ? [found, NO_MATCH] : [found]; // [ITER-4]
    }
    const result = [];
    for (const each of contents) {
      if (each === NO_MATCH) result.push(each);
      else if (node.keyValue !== null) {
        if (each instanceof Open) result.push(ANY); // opaque on open content
      } else if (node.parser !== null) {
        const parsed = this.parsed(node, each);
        if (parsed !== null) result.push(parsed);
      } else result.push(each);
    }
    return result;
  }

  /** A node that passes its JSON text's value through unchanged ([PARSER-2], [OBJ-4], [OBJ-6]): its text is what
   * streams. Text known whole must parse; when it is not an object, an object node types it as the walk does. */
  source(node, content) {
    if (content instanceof Open) return [new Source(content.text, [content.buffer, content.base])];
    if (content instanceof Exact && typeof content.value === "string") {
      // the `json` parser alone (`jsonText`), [JSON-1], without the exceptions a failing text costs: a text that runs
      // to the end of what arrived fails on most feeds, and JSON ends with a bracket, a quote, a literal or a digit
      if (!JSON_END.test(content.value.trimEnd().slice(-1))) return [];
      const value = readJson(content.value);
      if (value instanceof JsonFailure) return [];
      // [OBJ-2]: a string gives the object of its properties, not the string's JSON text
      if ((node.type === "object" && !isPlainObject(value)) || !content.origin) return [new Exact(value)];
      return [new Source(content.value, content.origin, value)];
    }
    return content instanceof Exact ? [] : [content];
  }

  /** `source` on a long text known whole, which a feed may cut anew where the output ends: read by a scan of the text
   * from where it starts (`JSONScan`, kept between feeds), so each character is read once. Its value when the scan
   * saw a value close with only whitespace after it to the text's end; otherwise only its text (sent whether it
   * parses or not: sound, the one-shot parse decides at the end). */
  longSource(node, origin, length) {
    const [buffer, start] = origin;
    const scan = this.state(`whole:${idOf(node)}:${idOf(buffer)}:${start}`, () => new JSONScan(buffer, start));
    const found = scan.wholeUntil(start + length, (text) => this.completeJson(node, text));
    const value = found instanceof Exact ? found.value : UNKNOWN;
    if (node.type === "object" && value !== UNKNOWN && !isPlainObject(value)) return [new Exact(value)]; // as `source`
    return [new Source(buffer.slice(start, start + length), origin, value)];
  }

  /** The stages after x-regex (with `all`, every stage), on a value known whole, as the walk does them. */
  exactStages(node, value, all = false) {
    let result;
    try {
      result = all ? stages(node, value) : laterStages(node, value);
    } catch (error) {
      if (error instanceof ParseError) return null;
      throw error;
    }
    return result === NO_VALUE ? NO_MATCH : new Exact(result);
  }

  /** [REGEX-2] on an open string: the match value of every match the complete text may give. */
  regex(pattern, content) {
    const program = programOf(pattern);
    if (program === null) return [ANY];
    const search = this.state(
      `regex:${idOf(pattern)}:${idOf(content.buffer)}:${content.base}`,
      () => new Search(program, content.buffer, content.base, content.base),
    );
    search.advance();
    const [contents, more] = matches(program, search);
    if (more) {
      contents.push(NO_MATCH); // [REGEX-4]
      if (!search.anchored) contents.push(ANY); // a match that starts later
    }
    return distinct(contents);
  }

  /** [PARSER-2] on an open string: JSON text that no continuation changes is parsed; anything else is not known
   * yet. */
  parsed(node, content) {
    if (!(content instanceof Open)) return null; // [NODE-4]
    if (node.parser !== "json" || node.transform !== null || node.allowNonJson) return ANY;
    if (content.end !== null && content.end !== content.buffer.length) return this.completeJson(node, content.text);
    const scan = this.state(
      `json:${idOf(node)}:${idOf(content.buffer)}:${content.base}`,
      () => new JSONScan(content.buffer, content.base),
    );
    return scan.advance((text) => this.completeJson(node, text));
  }

  /** Whether `content` is a long JSON text that only `parsed` reads and that runs to the end of what arrived (a
   * match that ends if the output does): it is read as the open text it begins, by the scan that text keeps
   * (`JSONScan`), not parsed whole on every feed. Sound: an open text may give more than the text that ends
   * here (and the match that goes on is most often an alternative beside it anyway). */
  openJson(node, content) {
    const plain = node.iterator === null && node.keyValue === null && node.transform === null;
    if (!plain || node.parser !== "json" || content.origin === null || typeof content.value !== "string") {
      return false;
    }
    const [buffer, start] = content.origin;
    return content.value.length > CUT && start + content.value.length === buffer.length;
  }

  completeJson(node, text) {
    return jsonComplete(text) ? this.exactStages(node, text) : ANY;
  }

  // The types, on what the stages left.

  /** A value sent as its JSON text: with its value once the text is known whole ([STREAM-7]: the texts sent then
   * parse to it). JSON null gives no value, but not to an object node (it fails there); an object node sends only a
   * text that is an object. */
  sourced(node, content) {
    if (content.value === UNKNOWN) {
      const head = firstAfterSpace(content.origin, content.origin[1] + content.text.length);
      // [OBJ-2]: a string's object is not its JSON text; anything else fails
      if (node.type === "object" && head !== "{") return outcome(false, UNKNOWN);
      const maybeNull = node.type !== "object" && (head === "" || head === "n");
      return outcome(maybeNull, new JSONText(content.text, [content.origin]));
    }
    return this.walkTyped(node, content.value, (value) => new JSONText(content.text, [content.origin], value));
  }

  /** The walk's type on a value known whole, as an outcome (`wrap` makes its value of the typed one). */
  walkTyped(node, value, wrap = (typed) => typed) {
    let typed;
    try {
      typed = TYPES[node.type ?? "any"](node, value);
    } catch (error) {
      if (error instanceof ParseError) return IMPOSSIBLE;
      throw error;
    }
    return typed === null ? outcome(true, NOTHING) : outcome(false, wrap(typed));
  }

  typed(node, content) {
    if (content === NO_MATCH) return outcome(true, NOTHING); // the node gives no value
    if (content === ANY) return UNSURE;
    if (content instanceof Source) return this.sourced(node, content);
    if (content instanceof Exact && !(node.type === "object" && content.origin && this.holdsText(node))) {
      return this.walkTyped(node, content.value);
    }
    const kind = node.type ?? "any";
    if (kind === "object") return this.object(node, content);
    if (kind === "array") return this.array(node, content);
    if (content instanceof Open) {
      if (kind === "string" || kind === "any") {
        return outcome(false, new OpenText(content.text, [content.buffer, content.base])); // [STR-1], [ANY-1]
      }
      return outcome(false, UNKNOWN); // a number or a boolean: whole, at the end
    }
    if (content instanceof Fields && kind === "any") return outcome(false, fieldsValue(content));
    if (kind === "any") return outcome(false, UNKNOWN);
    return IMPOSSIBLE; // [STR-1], [INT-3], [NUM-*], [BOOL-*]: an object or an array where text is needed
  }

  object(node, content) {
    const value = new OpenObject();
    const required = new Set(node.required);
    if (content instanceof Open || (content instanceof Exact && typeof content.value === "string")) {
      if (!node.hasProperties) return IMPOSSIBLE; // [OBJ-3]
      for (const [name, child] of node.properties) {
        // [OBJ-2]
        if (!place(value, name, this.node(child, content), required.has(name))) return IMPOSSIBLE;
      }
    } else if (content instanceof Fields) {
      // [OBJ-4]
      const { fields } = content;
      for (const [name, child] of node.properties) {
        let each;
        if (child.hasConst) each = outcome(false, child.const);
        else if (Object.hasOwn(fields, name)) each = fields[name] === ANY ? UNSURE : this.node(child, fields[name]);
        else if (child.hasDefault)
          each = outcome(false, child.default); // [OBJ-5]
        else each = outcome(true, NOTHING);
        if (!place(value, name, each, required.has(name))) return IMPOSSIBLE;
      }
      if (node.additional !== false) {
        // [OBJ-6]
        for (const [name, item] of Object.entries(fields)) {
          if (node.propertyNames.has(name)) continue;
          let each;
          if (item === ANY) each = UNSURE;
          else if (node.additional === true) each = outcome(false, described(item));
          else each = this.node(node.additional, item);
          if (!place(value, name, each, required.has(name))) return IMPOSSIBLE;
        }
      }
      for (const name of node.required) {
        // [OBJ-7] a required key no field can give
        if (!Object.hasOwn(value, name) && !Object.hasOwn(fields, name) && !node.propertyNames.has(name))
          return IMPOSSIBLE;
      }
    } else {
      return IMPOSSIBLE; // an object node needs a string or an object
    }
    return outcome(false, value);
  }

  array(node, content) {
    if (!(content instanceof Items) || node.items === null) return outcome(false, UNKNOWN); // [ARR-1] to [ARR-4]
    const read =
      content.source === null
        ? new ItemsRead()
        : this.state(`array:${idOf(node)}:${idOf(content.source)}`, () => new ItemsRead());
    if (read.impossible) return IMPOSSIBLE;
    for (; read.count < Math.min(read.seen, content.count); read.count++) {
      // known since an earlier feed, read once
      const part = this.item(node.items, content.known[read.count]);
      if (part === NOTHING) {
        read.impossible = true;
        return IMPOSSIBLE;
      }
      read.whole = read.whole && part !== UNKNOWN;
      if (read.whole) read.values.push(part);
    }
    read.seen = content.count;
    const value = OpenArray.after(read.values, read.values.length); // shared, not copied: `read.values` only grows
    value.settled = read.values.length;
    let whole = read.whole;
    for (let index = read.count; index < content.count; index++) {
      // found in this feed: read again in the next one
      const part = this.item(node.items, content.known[index]);
      if (part === NOTHING) return IMPOSSIBLE;
      whole = whole && part !== UNKNOWN;
      if (whole) value.push(part);
    }
    if (whole && !content.mayEnd && content.tails.length > 0) {
      const part = itemValue(merged(content.tails.map((tail) => this.candidate(node.items, tail))));
      if (part !== UNKNOWN) value.push(part);
    }
    return outcome(false, value);
  }

  /** A known item's value ([ARR-2]): UNKNOWN when none is known yet, NOTHING when the item cannot succeed (nor can
   * the array). */
  item(node, content) {
    const each = this.node(node, content);
    return each.value === NOTHING && !each.none ? NOTHING : itemValue(each);
  }
}

/** The first character of the text from `start` to `end` of a buffer that is not JSON whitespace, "" when there is
 * none: read from the buffer (reading a character of a text made by joining two flattens it: a copy). */
function firstAfterSpace([buffer, start], end) {
  for (let index = start; index < end; index++) {
    const unit = buffer.unit(index);
    if (!" \t\n\r".includes(unit)) return unit;
  }
  return "";
}

/** `contents` without repeats, in order. Threads that differ only in what the match value does not read (a group
 * ended or still open at the same place) give the same description; it gives the same outcome, and the meet of an
 * outcome with itself is that outcome ([STREAM-6]), so each is analysed once (as analysis.py's `distinct`). */
function distinct(contents) {
  if (contents.length < 2) return contents;
  const kept = [];
  for (const each of contents) {
    if (!kept.some((other) => same(other, each))) kept.push(each);
  }
  return kept;
}

/** Whether two contents are one description: open texts that start and stop at the same places, fields with the
 * same fields in the same order, the same ANY or NO_MATCH, or one object (a buffer's spans are one object each:
 * `bufferExact`). A list of threads is short: comparing pairs costs less than a key for each. */
function same(first, second) {
  if (first === second) return true;
  if (first instanceof Open) {
    return (
      second instanceof Open && first.buffer === second.buffer && first.base === second.base && first.end === second.end
    );
  }
  if (!(first instanceof Fields && second instanceof Fields)) return false;
  const names = Object.keys(first.fields);
  const others = Object.keys(second.fields);
  return (
    names.length === others.length &&
    names.every((name, index) => others[index] === name && same(first.fields[name], second.fields[name]))
  );
}

/** Texts of one buffer from one offset are prefixes of one another: what a text node makes of several of them,
 * when one is open, is the shortest as open text (their meet, [STREAM-6]), found from their lengths instead of by
 * comparing them (a pass over the whole text for each, on every feed). Other contents are kept. */
function collapsed(contents) {
  let origin = null;
  let open = false;
  let end = Infinity;
  const kept = [];
  for (const each of contents) {
    const span =
      each instanceof Open && each.end === null
        ? [each.buffer, each.base, each.buffer.length]
        : each instanceof Exact && each.origin !== null && typeof each.value === "string"
          ? [each.origin[0], each.origin[1], each.origin[1] + each.value.length]
          : null;
    if (span === null) kept.push(each);
    else if (origin !== null && (span[0] !== origin[0] || span[1] !== origin[1])) return contents;
    else {
      origin = span;
      open ||= each instanceof Open;
      end = Math.min(end, span[2]);
    }
  }
  return open ? [new Open(origin[0], origin[1], end), ...kept] : contents;
}

/** Put a property's outcome into the object's partial value; false when the object cannot succeed. A required key
 * cannot be missing from a successful result ([OBJ-7]), so its "no value" is dropped. */
function place(value, name, each, required) {
  if (each.value === NOTHING) return !(required || !each.none);
  if ((each.none && !required) || each.value === UNKNOWN) return true;
  put(value, name, each.value);
  return true;
}

const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function hasStages(node) {
  return node.needsString || node.parser !== null; // steps 3 to 7 of [NODE-1]
}

/** Whether a node's value is the JSON value of its text, unchanged: the `json` parser with nothing after it, under
 * an untyped node or an object node that keeps every key as it is. */
function jsonText(node) {
  if (node.parser !== "json" || node.transform !== null || node.allowNonJson || node.hasConst) return false;
  if (node.iterator !== null || node.keyValue !== null || node.substitutions.length > 0) return false;
  if (node.type === null || node.type === "any") return true;
  return (
    node.type === "object" && node.properties.length === 0 && node.additional === true && node.required.length === 0
  );
}

/** An array item's partial value: an item that gives no value is null ([ARR-2]). */
function itemValue(each) {
  if (each.none) return each.value === NOTHING ? null : UNKNOWN;
  return each.value === NOTHING ? UNKNOWN : each.value;
}

function described(content) {
  if (content instanceof Exact) return content.value;
  if (content instanceof Open) return new OpenText(content.text);
  return UNKNOWN;
}

/** Whether a node's stages are substitutions, then at most an x-regex, and its type reads a text
 * (`Analysis.substituted`): a content node of the library. */
function substitutedText(node) {
  if (node.substitutions.length === 0 || ![null, "any", "string"].includes(node.type)) return false;
  return node.iterator === null && node.keyValue === null && node.parser === null;
}

function fieldsValue(content) {
  const value = new OpenObject();
  for (const [name, item] of Object.entries(content.fields)) {
    const part = described(item);
    if (part !== UNKNOWN) put(value, name, part);
  }
  return value;
}

/** [REGEX-5] The match value of a match (with indices) on a text known whole that starts at `origin`, each
 * group's text with where it starts. */
function spannedValue(pattern, match, origin) {
  const [buffer, start] = origin;
  const spanned = (text, indices) => (text === undefined ? null : new Exact(text, [buffer, start + indices[0]]));
  if (pattern.names.length > 0) {
    const fields = {};
    for (const name of pattern.names) {
      const value = spanned(match.groups[name], match.indices.groups[name]);
      if (value !== null) put(fields, name, value);
    }
    return new Fields(fields);
  }
  return spanned(match[1], match.indices[1]) ?? new Exact(null); // [REGEX-6]
}

/** [REGEX-5] The match values of the matches a search on an open string may still end with, without repeats
 * (`distinct`), and whether it may also end otherwise (`Search.candidates`). While its threads have a `Memo` name,
 * the values depend only on the name and the positions its places hold: they are worked out once per name, as
 * places (`placedValue`), kept on the name, and made again from the positions on the feeds that meet the name again
 * (as analysis.py's `matches`). */
function matches(program, search) {
  const { named, buffer } = search;
  const usable = named !== null && !search.matched; // a certain match keeps its name while the position moves on
  if (usable && named.matches !== null) {
    const places = [null, search.position, search.position - 1, ...search.values];
    return [named.matches[0].map((each) => madeValue(each, places, buffer)), named.matches[1]];
  }
  const [entries, more] = search.candidates();
  const values = distinct(entries.map((entry) => matchValue(program, buffer, entry)));
  if (usable) {
    const at = new Map(search.values.map((position, index) => [position, index + 3]));
    at.set(search.position, 1).set(search.position - 1, 2);
    const placed = values.map((each) => placedValue(each, at));
    if (!placed.includes(null)) named.matches = [placed, more];
  }
  return [values, more];
}

const EMPTY_GROUP = ["none"]; // a group 1 that took no part: a new Exact(null) each time ([REGEX-6])

/** A match value with its positions written as their places (`matches`); null when one is not a place. */
function placedValue(value, at) {
  if (value === ANY) return value;
  if (value instanceof Open) return value.end === null && at.has(value.base) ? ["open", at.get(value.base)] : null;
  if (value instanceof Exact) {
    if (value.origin === null) return value.value === null ? EMPTY_GROUP : null;
    const [buffer, start] = value.origin;
    const end = start + value.value.length;
    const span = buffer.spans.get(start)?.get(end) === value; // made by bufferExact
    return span && at.has(start) && at.has(end) ? ["span", at.get(start), at.get(end)] : null;
  }
  if (value instanceof Fields) {
    const fields = Object.entries(value.fields).map(([name, each]) => [name, placedValue(each, at)]);
    return fields.some(([, each]) => each === null) ? null : ["fields", fields];
  }
  return null;
}

/** The match value `placedValue` wrote as places, at the positions `places` holds. */
function madeValue(placed, places, buffer) {
  if (placed === ANY) return placed;
  const [kind, first, second] = placed;
  if (kind === "open") return new Open(buffer, places[first]);
  if (kind === "span") return bufferExact(buffer, places[first], places[second]);
  if (kind === "fields") {
    const fields = {};
    for (const [name, each] of first) put(fields, name, madeValue(each, places, buffer));
    return new Fields(fields);
  }
  return new Exact(null);
}

/** [REGEX-5] The match value of one possible match, as a description. */
function matchValue(program, buffer, entry) {
  const names = Object.entries(program.names);
  if (names.length > 0) {
    const fields = {};
    for (const [name, index] of names) {
      const value = group(program, buffer, entry, index);
      if (value !== null) put(fields, name, value);
    }
    return new Fields(fields);
  }
  return group(program, buffer, entry, 1) ?? new Exact(null); // [REGEX-6]
}

/** Group `index` of a possible match: Exact text, Open text, ANY (it may still change), or null (it took no part
 * and cannot any more). */
function group(program, buffer, entry, index) {
  const [pc, regs, conds] = entry;
  const start = regs[2 * index];
  const end = regs[2 * index + 1];
  if (pc >= 0 && program.reopens[pc].has(index)) return ANY;
  if (start === null) return null;
  if (end === null || (conds.length > 0 && end === buffer.length)) {
    // open, or ends here only if the text does (a match waiting on `$`): read as open text, which includes
    // ending here, so that a long value is not read whole again on every feed (linear cost)
    return new Open(buffer, start);
  }
  return bufferExact(buffer, start, end);
}

/** The text `buffer.slice(start, end)` as an Exact span: the same object while it is used, so that what is
 * done with it is done once (`Analysis.state`), not on every feed. */
function bufferExact(buffer, start, end) {
  let found = buffer.spans.get(start)?.get(end);
  if (found === undefined) {
    if (buffer.spanCount > 256) {
      buffer.spans.clear(); // only the spans of the threads alive now are asked for again
      buffer.spanCount = 0;
    }
    let ends = buffer.spans.get(start);
    if (ends === undefined) buffer.spans.set(start, (ends = new Map()));
    found = new Exact(buffer.slice(start, end), [buffer, start]);
    ends.set(end, found);
    buffer.spanCount++;
  }
  return found;
}

/** [SUBS-2] on an open string: every replacement already certain, and the text no match can reach any more, in
 * `out`; the rest waits. An opaque pattern stops the output where it is. For a text node (`Analysis.substituted`),
 * the outcome of the stages after them, the length of the output they read, and the keys of what they keep between
 * feeds. */
class Substitutions {
  constructor(node, content) {
    this.read = -1;
    this.outcome = IMPOSSIBLE;
    this.touched = [];
    this.steps = [];
    let source = content;
    for (const [pattern, template] of node.substitutions) {
      const step = new Replacing(pattern, template, programOf(pattern), source);
      this.steps.push(step);
      source = new Open(step.out, 0);
    }
    this.result = source;
  }

  advance() {
    for (const step of this.steps) step.advance();
    return this.result;
  }
}

/** One substitution pattern, applied as its input arrives. `out` is the output of the input before `done`, which
 * no later text changes (its first `fixed` characters), then what every match still possible in the rest begins
 * with ([STREAM-6]). `out` only grows, so what reads it reads each character once. */
class Replacing {
  constructor(pattern, template, program, source) {
    this.program = program;
    this.source = source;
    // the template's parts, groups by number ([RE-7])
    this.template =
      program === null
        ? []
        : template.parts
            .map((part, index) => (index % 2 === 0 ? part : typeof part === "number" ? part : program.names[part]))
            .filter((part) => part !== "");
    this.out = new Buffer();
    this.fixed = 0;
    this.done = source.base;
    this.search = program === null ? null : new Search(program, source.buffer, source.base, source.base);
  }

  advance() {
    if (this.search === null) return; // opaque: nothing more is certain
    const text = this.source.buffer;
    const parts = [];
    for (;;) {
      this.search.advance();
      if (!this.search.matched) break;
      const regs = this.search.entries[0][1];
      parts.push(text.slice(this.done, regs[0]), this.expand(text, regs));
      this.done = regs[1];
      const empty = regs[0] === regs[1];
      this.search = new Search(this.program, this.source.buffer, this.source.base, regs[1], false, empty);
    }
    const { search } = this;
    // no match has begun before the end (every thread starts there, as when the search waits for a start): the
    // text so far is certain and `pending` has nothing to read
    const quiet =
      search.position === text.length && search.entries.every(([pc, regs]) => pc >= 0 && regs[0] === search.position);
    let reach = search.position;
    if (!quiet) {
      const starts = search.entries.map(([, regs]) => regs[0]).filter((start) => start !== null);
      if (starts.length > 0) reach = Math.min(...starts);
    }
    if (reach > this.done) {
      parts.push(text.slice(this.done, reach));
      this.done = reach;
    }
    const added = parts.join("");
    const tail = quiet ? added : added + this.pending(text); // the output after the first `fixed` characters
    const sent = this.out.length - this.fixed;
    if (tail.length > sent) {
      if (!tail.startsWith(this.out.slice(this.fixed))) throw new Error("a substitution's certain output changed"); // [STREAM-3]
      this.out.grow(tail.slice(sent));
    }
    this.fixed += added.length;
  }

  /** What the output of the input from `done` begins with, whichever match the search ends with. */
  pending(text) {
    const [entries, more] = this.search.candidates();
    const begins = entries.map((entry) => this.begins(text, entry));
    if (more) begins.push(text.slice(this.done)); // no match, or one that starts later: the text as it is so far
    if (begins.length === 0) return "";
    return begins.slice(1).reduce(commonPrefix, begins[0]);
  }

  /** The text before a possible match, then its replacement as far as it is known. */
  begins(text, entry) {
    const [pc, regs] = entry;
    const reopens = pc >= 0 ? this.program.reopens[pc] : null;
    const parts = [text.slice(this.done, regs[0])];
    for (const part of this.template) {
      if (typeof part === "string") {
        parts.push(part);
        continue;
      }
      if (reopens !== null && reopens.has(part)) break; // the group may still change
      const start = regs[2 * part];
      const end = regs[2 * part + 1];
      if (start === null) continue; // it took no part and cannot: an unmatched group inserts nothing
      if (end === null) {
        parts.push(text.slice(start)); // open: what it holds so far
        break;
      }
      parts.push(text.slice(start, end));
    }
    return parts.join("");
  }

  expand(text, regs) {
    return this.template
      .map((part) => {
        if (typeof part === "string") return part;
        const start = regs[2 * part];
        const end = regs[2 * part + 1];
        return start !== null && end !== null ? text.slice(start, end) : "";
      })
      .join("");
  }
}

/** [ITER-2] on an open string: the matches certain so far, and what the next one may be. */
class Iterator {
  constructor(pattern, source) {
    this.source = source;
    this.program = programOf(pattern);
    this.known = [];
    this.search = this.program === null ? null : new Search(this.program, source.buffer, source.base, source.base);
  }

  advance() {
    if (this.search === null) return new Items([], 0, [ANY], true);
    const { buffer } = this.source;
    for (;;) {
      this.search.advance();
      if (!this.search.matched) break;
      const entry = this.search.entries[0];
      this.known.push(matchValue(this.program, buffer, entry));
      const [start, end] = entry[1];
      this.search = new Search(this.program, buffer, this.source.base, end, false, start === end);
    }
    const [tails, more] = matches(this.program, this.search);
    if (more && !this.search.anchored) tails.push(ANY);
    return new Items(this.known, this.known.length, tails, more, this);
  }
}

/** [PARSER-2] on a text still open, read once per character, as `tooDeep` reads brackets and strings: while the
 * object, array or string it begins with is open, no parse can succeed; when it closes, the text is parsed once,
 * and that stays the answer while only whitespace follows ([JSON-1]); after anything else no continuation
 * parses. `true`, `false` and `null` close at their last letter; a number may always go on, so a text that
 * begins with one is never complete; one that begins otherwise never parses. */
export class JSONScan {
  constructor(buffer, base) {
    this.buffer = buffer;
    this.base = base;
    this.at = base; // read up to here
    this.depth = 0;
    this.string = false;
    this.skip = 0; // a backslash escapes the character before it
    this.outcome = null; // once the value closed: its parse, until more than whitespace follows
    this.end = null; // where the value closed
    this.after = null; // the first character after `end` that is not whitespace, once read
    this.parse = UNREAD; // the text to `end` completed, once asked for
  }

  advance(complete) {
    const { buffer, base } = this;
    if (this.at === base && this.outcome === null) {
      const first = NOT_SPACE.exec(buffer.slice(base));
      if (first === null) return ANY; // only whitespace so far
      if (!'{["'.includes(first[0])) return this.literal(base + first.index, complete);
    }
    const offset = this.at;
    const piece = buffer.slice(offset);
    this.at = buffer.length;
    if (this.outcome !== null) {
      if (this.end !== null && this.after === null) {
        const found = NOT_SPACE.exec(piece);
        if (found !== null) [this.after, this.outcome] = [offset + found.index, ANY]; // [JSON-1]: only whitespace
      }
      return this.outcome;
    }
    const tokens = /[[\]{}"\\]/g;
    for (let token = tokens.exec(piece); token !== null; token = tokens.exec(piece)) {
      const index = offset + token.index;
      if (index < this.skip) continue;
      const char = token[0];
      if (this.string) {
        if (char === "\\") {
          this.skip = index + 2;
          continue;
        }
        this.string = char !== '"';
      } else if (char === '"') {
        this.string = true;
      } else if (char === "\\") {
        this.outcome = ANY; // a backslash outside a string: never JSON
        return ANY;
      } else {
        this.depth += "[{".includes(char) ? 1 : -1;
      }
      // the value closed (or a stray closer: it fails at once)
      if (this.depth <= 0 && !this.string) return this.closed(index + 1, complete);
    }
    return ANY;
  }

  /** The value ends at `end`: parsed once, and never complete if more than whitespace follows it. */
  closed(end, complete) {
    const { buffer } = this;
    this.at = buffer.length;
    this.end = end;
    const found = NOT_SPACE.exec(buffer.slice(end));
    this.after = found === null ? null : end + found.index;
    this.outcome = this.after !== null ? ANY : this.whole(complete);
    return this.outcome;
  }

  /** The text up to where the value closed, completed (parsed) once. */
  whole(complete) {
    if (this.parse === UNREAD) this.parse = complete(this.buffer.slice(this.base, this.end));
    return this.parse;
  }

  /** The text from the scan's start to `stop` (at most what arrived) completed, read as the scan reads: ANY unless a
   * value closed in it and only whitespace follows to `stop` ([JSON-1]). */
  wholeUntil(stop, complete) {
    this.advance(complete);
    if (this.end === null || this.end > stop || (this.after !== null && this.after < stop)) return ANY;
    return this.whole(complete);
  }

  /** A text that does not begin with a bracket or a quote: complete once it holds a whole `true`, `false` or
   * `null`; never, when it begins with a number (more digits may follow) or with what no literal begins with. */
  literal(start, complete) {
    const { buffer } = this;
    const word = buffer.slice(start, start + 5);
    const name = LITERALS.find((literal) => word.startsWith(literal));
    if (name === undefined) {
      if (!LITERALS.some((literal) => literal.startsWith(word))) {
        this.outcome = ANY; // a number, or what never parses
        this.at = buffer.length;
      }
      return ANY;
    }
    return this.closed(start + name.length, complete);
  }
}

const LITERALS = ["true", "false", "null"];
const UNREAD = Symbol("unread"); // a scan's text not completed yet
const NOT_SPACE = /[^ \t\n\r]/; // anything but JSON whitespace ([JSON-1])

/** Whether `text` is JSON that no continuation can change: it parses, and it ends with a closing bracket, a
 * closing quote or a literal, so more text is only whitespace or makes it fail ([JSON-1]). */
export function jsonComplete(text) {
  const stripped = text.replace(/[ \t\n\r]+$/, "");
  if (stripped === "" || !'}]"el'.includes(stripped[stripped.length - 1])) return false;
  return !(readJson(text) instanceof JsonFailure);
}
