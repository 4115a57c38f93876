// Matching a pattern on text that is still arriving: an incremental Pike VM (SPEC.md [STREAM-6]).
//
// A pattern of the dialect (appendix A) is parsed here into a tree and compiled into a small program, run as a
// Thompson simulation in leftmost-first priority order ([RE-4]) with capture registers, one code point at a time,
// never re-reading what it has read. An assertion that needs text not yet seen (`$`, `\Z` or `\b` at the end of
// what arrived, a lookahead reaching past it) does not block: the thread goes on under a *condition*, dropped
// when the text refutes it. From the live threads a search lists every match the complete text can still give,
// in priority order (`candidates`), which is what lets a stream send a group's text before the match is decided.
//
// The one-shot parse matches with the host RegExp (appendix A.5); this VM follows the same semantics, including
// ECMAScript's reset of the groups of a repeated group at each iteration. A construct it does not model
// (backreferences, lookbehind, captures inside a lookaround, a repeated body that can match empty, IGNORECASE)
// makes `compileProgram` return null: the stage is *opaque*, and its node sends nothing until the output is
// complete ([STREAM-6]: late, never wrong). Positions are UTF-16 offsets, as the host's strings count them.

import { translate } from "../regex.js";

const MAX_PROGRAM = 4000; // instructions; a longer program (a large counted repeat) is opaque

// Instruction kinds. An instruction is an array: [CHAR, test, next], [SPLIT, first, second], [JMP, to],
// [SAVE, slot, next], [CLEAR, slots, next], [ASSERT, kind, next], [LOOK, program, negate, next], [MATCH].
const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const SAVE = 3;
const CLEAR = 4;
const ASSERT = 5;
const LOOK = 6;
const MATCH = 7;
// Assertion kinds.
const BOS = 0;
const BOL = 1;
const DOLLAR = 2;
const EOL = 3;
const EOS = 4;
const BOUNDARY = 5;
const NON_BOUNDARY = 6;

class Opaque extends Error {}

/** The test of `.` ([RE-1], DOTALL): every code point. */
const universal = () => true;

const WORD = /^[\p{L}\p{N}_]$/u; // [RE-3]
const isWord = (char) => WORD.test(char);

/** The code point of `text` at UTF-16 offset `index`, as a string of one or two units. */
function charAt(text, index) {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return text.slice(index, index + 2);
  }
  return text[index];
}

// ---- Parsing a pattern of the dialect into a tree ----
// Items: {op: "char", test, literal?}, {op: "group", index, body}, {op: "branch", alternatives},
// {op: "repeat", low, high, greedy, body}, {op: "at", kind}, {op: "look", negate, body}.

const QUANTIFIER = /^\{(\d*)(?:(,)(\d*))?\}/; // as regex.js reads it
const LITERAL_ESCAPES = { n: "\n", r: "\r", t: "\t", f: "\f", v: "\v", a: "\x07" };

/** A test for one code point from a piece of the dialect that stands for one (a class, an escape). */
function classTest(piece) {
  const { source, flags } = translate(piece);
  if (flags) throw new Opaque("IGNORECASE");
  const regex = new RegExp(`^(?:${source})$`, "su");
  const ascii = [];
  for (let code = 0; code < 128; code++) ascii.push(regex.test(String.fromCharCode(code)));
  return (char) => (char.length === 1 && char.charCodeAt(0) < 128 ? ascii[char.charCodeAt(0)] : regex.test(char));
}

function literal(char) {
  const test = (other) => other === char;
  test.literal = char; // read by `first` and `literals`
  return { op: "char", test, literal: char };
}

class TreeParser {
  constructor(pattern) {
    this.pattern = pattern;
    this.at = 0;
    this.groups = 0;
    this.names = {};
    this.multiline = false;
    for (let match; (match = /^\(\?([a-zA-Z]+)\)/.exec(pattern.slice(this.at))); this.at += match[0].length) {
      for (const flag of match[1]) {
        if (flag === "m") this.multiline = true;
        else if (flag !== "s") throw new Opaque(`the inline flag (?${flag})`); // (?i): IGNORECASE
      }
    }
  }

  parse() {
    const tree = this.alternation();
    if (this.at < this.pattern.length) throw new Opaque("unbalanced parenthesis");
    return tree;
  }

  alternation() {
    const alternatives = [this.sequence()];
    while (this.pattern[this.at] === "|") {
      this.at++;
      alternatives.push(this.sequence());
    }
    return alternatives.length === 1 ? alternatives[0] : [{ op: "branch", alternatives }];
  }

  sequence() {
    const items = [];
    const pattern = this.pattern;
    while (this.at < pattern.length && pattern[this.at] !== "|" && pattern[this.at] !== ")") {
      const item = this.atom();
      if (item === null) continue; // a comment
      items.push(this.quantified(item));
    }
    return items;
  }

  quantified(item) {
    const pattern = this.pattern;
    let low;
    let high;
    const char = pattern[this.at];
    if (char === "*") [low, high] = [0, Infinity];
    else if (char === "+") [low, high] = [1, Infinity];
    else if (char === "?") [low, high] = [0, 1];
    else if (char === "{") {
      const match = QUANTIFIER.exec(pattern.slice(this.at));
      if (!match || (!match[1] && !match[3])) return item;
      low = match[1] ? Number(match[1]) : 0;
      high = match[2] ? (match[3] ? Number(match[3]) : Infinity) : low;
      this.at += match[0].length - 1;
    } else return item;
    this.at++;
    let greedy = true;
    if (pattern[this.at] === "?") {
      greedy = false;
      this.at++;
    } else if (pattern[this.at] === "+") throw new Opaque("possessive");
    return { op: "repeat", low, high, greedy, body: [item] };
  }

  atom() {
    const pattern = this.pattern;
    const char = charAt(pattern, this.at);
    this.at += char.length;
    if (char === "\\") return this.escape();
    if (char === "[") return this.characterClass();
    if (char === "(") return this.group();
    if (char === ".") return { op: "char", test: universal };
    if (char === "^") return { op: "at", kind: this.multiline ? BOL : BOS };
    if (char === "$") return { op: "at", kind: this.multiline ? EOL : DOLLAR };
    if ("*+?".includes(char)) throw new Opaque("nothing to repeat");
    return literal(char);
  }

  escape() {
    const pattern = this.pattern;
    const start = this.at - 1;
    const char = pattern[this.at++];
    if (char === undefined) throw new Opaque("a trailing backslash");
    if (char === "b" || char === "B") return { op: "at", kind: char === "b" ? BOUNDARY : NON_BOUNDARY };
    if (char === "A") return { op: "at", kind: BOS };
    if (char === "Z") return { op: "at", kind: EOS };
    if (/[0-9]/.test(char)) {
      const octal = /^(?:0[0-7]{0,2}|[0-7]{3})/.exec(pattern.slice(this.at - 1));
      if (!(octal && (char === "0" || octal[0].length === 3))) throw new Opaque("a backreference");
      this.at += octal[0].length - 1;
      return literal(String.fromCodePoint(parseInt(octal[0], 8)));
    }
    if (char in LITERAL_ESCAPES) return literal(LITERAL_ESCAPES[char]);
    if (char === "x" || char === "u" || char === "U") {
      const width = { x: 2, u: 4, U: 8 }[char];
      const hex = pattern.slice(this.at, this.at + width);
      this.at += width;
      return literal(String.fromCodePoint(parseInt(hex, 16)));
    }
    if ("dDwWsS".includes(char)) return { op: "char", test: classTest(pattern.slice(start, this.at)) };
    if (/[A-Za-z]/.test(char)) throw new Opaque(`the escape \\${char}`);
    const escaped = charAt(pattern, this.at - 1);
    this.at += escaped.length - 1;
    return literal(escaped);
  }

  characterClass() {
    const pattern = this.pattern;
    const start = this.at - 1;
    if (pattern[this.at] === "^") this.at++;
    let first = true;
    for (;;) {
      if (this.at >= pattern.length) throw new Opaque("unterminated character set");
      const char = pattern[this.at++];
      if (char === "]" && !first) break;
      first = false;
      if (char === "\\") this.at++;
    }
    const piece = pattern.slice(start, this.at);
    const single = /^\[(?:([^\\\]^])|\\([^A-Za-z0-9]))\]$/u.exec(piece);
    if (single) return literal(single[1] ?? single[2]);
    return { op: "char", test: classTest(piece) };
  }

  group() {
    const pattern = this.pattern;
    const rest = pattern.slice(this.at);
    let index = null;
    let look = null;
    let match;
    if ((match = /^\?P<([^>]*)>/.exec(rest))) {
      index = ++this.groups;
      this.names[match[1]] = index;
      this.at += match[0].length;
    } else if (rest.startsWith("?#")) {
      this.at = pattern.indexOf(")", this.at) + 1;
      return null;
    } else if (rest.startsWith("?:")) {
      this.at += 2;
    } else if (rest.startsWith("?=") || rest.startsWith("?!")) {
      look = rest[1] === "!";
      this.at += 2;
    } else if (rest.startsWith("?")) {
      throw new Opaque(`the extension (${rest.slice(0, 3)}`); // lookbehind, backreference by name
    } else {
      index = ++this.groups;
    }
    const body = this.alternation();
    if (pattern[this.at] !== ")") throw new Opaque("missing )");
    this.at++;
    if (look !== null) {
      if (hasGroup(body)) throw new Opaque("a capture inside a lookaround");
      return { op: "look", negate: look, body };
    }
    return { op: "group", index, body };
  }
}

function hasGroup(items) {
  return items.some(
    (item) =>
      (item.op === "group" && (item.index !== null || hasGroup(item.body))) ||
      (item.op === "branch" && item.alternatives.some(hasGroup)) ||
      ((item.op === "repeat" || item.op === "look") && hasGroup(item.body)),
  );
}

/** The group numbers in a sequence. */
function groupsIn(items, found = []) {
  for (const item of items) {
    if (item.op === "group" && item.index !== null) found.push(item.index);
    if (item.op === "branch") for (const alternative of item.alternatives) groupsIn(alternative, found);
    else if (item.body) groupsIn(item.body, found);
  }
  return found;
}

/** Whether a sequence can match the empty string. */
function nullable(items) {
  for (const item of items) {
    if (item.op === "char") return false;
    if (item.op === "group" && !nullable(item.body)) return false;
    if (item.op === "branch" && !item.alternatives.some(nullable)) return false;
    if (item.op === "repeat" && item.low > 0 && !nullable(item.body)) return false;
  }
  return true;
}

/** The texts of a sequence that is a finite set of plain literals (`<a>|<b>`), else null. */
function literals(items) {
  let texts = [""];
  for (const item of items) {
    let options;
    if (item.op === "char" && item.literal !== undefined) options = [item.literal];
    else if (item.op === "group" && item.index === null) options = literals(item.body);
    else if (item.op === "branch") {
      options = [];
      for (const alternative of item.alternatives) {
        const found = literals(alternative);
        if (found === null) return null;
        options.push(...found);
      }
    } else return null;
    if (options === null || texts.length * options.length > 256) return null;
    texts = texts.flatMap((text) => options.map((option) => text + option));
  }
  return texts.includes("") ? null : texts;
}

/**
 * `(?=A|B|$)` as `(?:(?=A|B)|$)`: a positive lookahead is zero-width and captures nothing, so it holds where one of
 * its alternatives would, and which one does not matter to what follows. Its literal alternatives stay one literal
 * lookahead (decided by the next character where none of them starts), each other alternative is a lookahead of its
 * own, and an assertion alone (`$`) is itself: a lazy loop that stops at `(?=MARKER|$)` takes steps the memo can
 * keep. Null when the body is no alternation, or all of its alternatives are literal texts (as pike.py).
 */
function splitLookahead(body) {
  if (body.length !== 1 || body[0].op !== "branch") return null;
  const alternatives = body[0].alternatives;
  const literal = alternatives.filter((alternative) => literals(alternative) !== null);
  const rest = alternatives.filter((alternative) => literals(alternative) === null);
  if (rest.length === 0) return null;
  const split = [];
  if (literal.length > 0) {
    const looked = literal.length > 1 ? [{ op: "branch", alternatives: literal }] : literal[0];
    split.push([{ op: "look", negate: false, body: looked }]);
  }
  return split.concat(rest.map((alternative) => [{ op: "look", negate: false, body: alternative }]));
}

// ---- Compiling a tree into a program ----

class Compiler {
  constructor(multiline) {
    this.code = [];
    this.multiline = multiline;
  }

  emit(inst) {
    this.code.push(inst);
    if (this.code.length > MAX_PROGRAM) throw new Opaque("program too long");
    return this.code.length - 1;
  }

  /** Instructions whose `next` is null fall through to the following one. */
  link() {
    return this.code.map((inst, pc) => {
      const linked = [...inst];
      const last = linked.length - 1;
      if ([CHAR, SAVE, CLEAR, ASSERT, LOOK].includes(linked[0]) && linked[last] === null) linked[last] = pc + 1;
      return linked;
    });
  }

  sequence(items) {
    for (const item of items) this.item(item);
  }

  item(item) {
    switch (item.op) {
      case "char":
        this.emit([CHAR, item.test, null]);
        break;
      case "group":
        if (item.index === null) this.sequence(item.body);
        else {
          this.emit([SAVE, 2 * item.index, null]);
          this.sequence(item.body);
          this.emit([SAVE, 2 * item.index + 1, null]);
        }
        break;
      case "branch":
        this.branch(item.alternatives);
        break;
      case "repeat":
        this.repeat(item);
        break;
      case "at":
        this.emit([ASSERT, item.kind, null]);
        break;
      case "look": {
        const split = item.negate ? null : splitLookahead(item.body);
        if (split !== null) {
          this.branch(split);
          break;
        }
        if (!item.negate && item.body.length === 1 && item.body[0].op === "at") {
          this.item(item.body[0]); // (?=$) is $: an assertion reads nothing
          break;
        }
        const sub = new Compiler(this.multiline);
        sub.sequence(item.body);
        sub.emit([MATCH]);
        const code = sub.link();
        const program = makeProgram(code, 2, true, literals(item.body), []);
        this.emit([LOOK, program, item.negate, null]);
        break;
      }
      default:
        throw new Opaque(`${item.op} is not modelled`);
    }
  }

  branch(alternatives) {
    const jumps = [];
    alternatives.forEach((alternative, index) => {
      if (index < alternatives.length - 1) {
        const split = this.emit([SPLIT, null, null]);
        this.code[split][1] = this.code.length;
        this.sequence(alternative);
        jumps.push(this.emit([JMP, null]));
        this.code[split][2] = this.code.length;
      } else {
        this.sequence(alternative);
      }
    });
    for (const jump of jumps) this.code[jump][1] = this.code.length;
  }

  repeat({ low, high, greedy, body }) {
    const unbounded = high === Infinity;
    if ((unbounded || high > 1) && nullable(body)) throw new Opaque("a repeated body that can match empty");
    // ECMAScript clears the groups of a repeated atom at each iteration (RepeatMatcher).
    const groups = groupsIn(body);
    const iteration = () => {
      if (groups.length > 0 && (unbounded || high > 1)) {
        this.emit([CLEAR, groups.flatMap((index) => [2 * index, 2 * index + 1]), null]);
      }
      this.sequence(body);
    };
    for (let count = 0; count < low; count++) iteration();
    if (unbounded) {
      const loop = this.emit([SPLIT, null, null]);
      iteration();
      this.emit([JMP, loop]);
      this.order(loop, loop + 1, this.code.length, greedy);
      return;
    }
    const exits = [];
    for (let count = low; count < high; count++) {
      exits.push(this.emit([SPLIT, null, null]));
      iteration();
    }
    for (const split of exits) this.order(split, split + 1, this.code.length, greedy);
  }

  order(split, body, out, greedy) {
    this.code[split][1] = greedy ? body : out;
    this.code[split][2] = greedy ? out : body;
  }
}

function makeProgram(code, slots, anchored, literalTexts, names) {
  return {
    code,
    slots,
    anchored,
    literals: literalTexts,
    starts: literalTexts === null ? null : new Set(literalTexts.map((text) => text[0])), // their first units
    names,
    reopens: reopens(code),
    total: total(code),
    first: first(code),
    memos: [new Memo(), new Memo()], // the steps its searches learned, by whether they are anchored
    kinds: null, // characters by kind (`kindsOf`)
    // UTF-16 units from the one a step reads that its literal lookaheads and `$` may read (the character read, then
    // a literal lookahead's longest text, or a newline and the character after it): `Memo.far`
    reach: Math.max(
      5,
      ...code.filter((inst) => inst[0] === LOOK && inst[1].literals !== null).map((inst) => 2 + longestOf(inst[1])),
    ),
  };
}

/** The length of a literal program's longest text. */
function longestOf(program) {
  return Math.max(...program.literals.map((text) => text.length));
}

/** The program of a pattern of the dialect, or null when it is opaque. */
export function compileProgram(pattern) {
  try {
    const parser = new TreeParser(pattern);
    const tree = parser.parse();
    const compiler = new Compiler(parser.multiline);
    compiler.emit([SAVE, 0, null]);
    compiler.sequence(tree);
    compiler.emit([SAVE, 1, null]);
    compiler.emit([MATCH]);
    const code = compiler.link();
    const head = tree[0];
    const anchored = head !== undefined && head.op === "at" && head.kind === BOS;
    return makeProgram(code, 2 * (parser.groups + 1), anchored, literals(tree), parser.names);
  } catch (error) {
    if (error instanceof Opaque || error instanceof RangeError || error instanceof SyntaxError) return null;
    throw error;
  }
}

function successors(inst) {
  switch (inst[0]) {
    case SPLIT:
      return [inst[1], inst[2]];
    case JMP:
      return [inst[1]];
    case CHAR:
    case SAVE:
    case CLEAR:
    case ASSERT:
      return [inst[2]];
    case LOOK:
      return [inst[3]];
    default:
      return [];
  }
}

/** The instructions reached without reading a character, for the analysis of `total`: assertions pass only when
 * they surely hold (at the end of the text: `$`, `\Z`, and a lookahead that surely holds on the empty rest). */
function epsilonEdges(inst, atEnd) {
  switch (inst[0]) {
    case SPLIT:
      return [inst[1], inst[2]];
    case JMP:
      return [inst[1]];
    case SAVE:
    case CLEAR:
      return [inst[2]];
    case ASSERT:
      return atEnd && [DOLLAR, EOL, EOS].includes(inst[1]) ? [inst[2]] : [];
    case LOOK:
      return atEnd && emptyRest(inst[1]) === !inst[2] ? [inst[3]] : [];
    default:
      return [];
  }
}

/** Whether a lookahead's program matches at the end of the text: true, false, or null when that takes more than
 * `$` and `\Z` to tell. */
function emptyRest(program) {
  const reached = closure(program.code, 0, true);
  if ([...reached].some((pc) => program.code[pc][0] === MATCH)) return true;
  const exact = [...reached].every((pc) => {
    const inst = program.code[pc];
    return (
      [CHAR, SPLIT, JMP, SAVE, CLEAR].includes(inst[0]) || (inst[0] === ASSERT && [DOLLAR, EOL, EOS].includes(inst[1]))
    );
  });
  return exact ? false : null;
}

function closure(code, pc, atEnd) {
  const seen = new Set([pc]);
  const stack = [pc];
  while (stack.length > 0) {
    for (const target of epsilonEdges(code[stack.pop()], atEnd)) {
      if (!seen.has(target)) {
        seen.add(target);
        stack.push(target);
      }
    }
  }
  return seen;
}

/** The pcs from which a match is reached whatever text follows, the empty text included (a greatest fixed point):
 * at the end a MATCH is in reach, and otherwise a `.` leads back into the set. */
function total(code) {
  const ends = code.map((_, pc) => [...closure(code, pc, true)].some((q) => code[q][0] === MATCH));
  const steps = code.map((_, pc) =>
    [...closure(code, pc, false)].filter((q) => code[q][0] === CHAR && code[q][1] === universal).map((q) => code[q][2]),
  );
  const set = new Set(code.map((_, pc) => pc).filter((pc) => ends[pc]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const pc of [...set]) {
      if (!steps[pc].some((step) => set.has(step))) {
        set.delete(pc);
        changed = true;
      }
    }
  }
  return set;
}

/** The set of characters a match can begin with, when the start reaches only literal characters: a search with
 * no live thread skips to the next of them. */
function first(code) {
  const chars = new Set();
  for (const pc of closure(code, 0, false)) {
    const inst = code[pc];
    if (inst[0] === CHAR) {
      if (inst[1].literal === undefined) return null;
      chars.add(inst[1].literal);
    } else if (![SPLIT, JMP, SAVE, CLEAR].includes(inst[0])) return null;
  }
  if (chars.size === 0) return null;
  const escaped = [...chars].map((char) => char.replace(/[\\\]^-]/g, "\\$&"));
  return new RegExp(`[${escaped.join("")}]`, "gu");
}

/** Per pc, the groups (a bitmask, as a Set of numbers) whose value can still change from it: their opening SAVE,
 * or a CLEAR of them, can still be reached. */
function reopens(code) {
  const predecessors = code.map(() => []);
  code.forEach((inst, pc) => {
    for (const target of successors(inst)) predecessors[target].push(pc);
  });
  const masks = code.map(() => new Set());
  code.forEach((inst, pc) => {
    let groups = [];
    if (inst[0] === SAVE && inst[1] % 2 === 0 && inst[1] > 0) groups = [inst[1] / 2];
    else if (inst[0] === CLEAR) groups = inst[1].filter((slot) => slot % 2 === 0).map((slot) => slot / 2);
    for (const group of groups) {
      const stack = [pc];
      const seen = new Set([pc]);
      while (stack.length > 0) {
        const node = stack.pop();
        masks[node].add(group);
        for (const previous of predecessors[node]) {
          if (!seen.has(previous)) {
            seen.add(previous);
            stack.push(previous);
          }
        }
      }
    }
  });
  return masks;
}

// Patterns of the walk ("x-regex" and the others) mapped to their programs, made once per pattern.
const programs = new WeakMap();

/** The program of a compiled Pattern (regex.js), or null when it is opaque; made once. */
export function programOf(pattern) {
  if (!programs.has(pattern)) programs.set(pattern, compileProgram(pattern.pattern));
  return programs.get(pattern);
}

// ---- What searches learn: a lazy DFA over the VM's entries ----

const MEMO_LIMIT = 4096; // names kept by a memo; past it the memo starts again
const KINDS_LIMIT = 1000; // kinds of characters a program tells apart in its keys; past it, no memo

/**
 * Characters by kind, for a program: two characters of a kind are as long, pass the same character tests, are both
 * newlines or not, both word characters or not, and both start a literal lookahead's text or not, so a step reads
 * them alike (`Memo`).
 */
function kindsOf(program) {
  if (program.kinds === null) {
    const tests = [...new Set(program.code.filter((inst) => inst[0] === CHAR).map((inst) => inst[1]))];
    const starts = program.code.filter((inst) => inst[0] === LOOK && inst[1].starts !== null).map((i) => i[1].starts);
    const signatures = new Map();
    const kinds = new Map();
    program.kinds = (char) => {
      let kind = kinds.get(char);
      if (kind === undefined) {
        const signature = [char.length, char === "\n", isWord(char), ...tests.map((test) => test(char))]
          .concat(starts.map((set) => set.has(char[0])))
          .map(Number)
          .join("");
        if (!signatures.has(signature)) signatures.set(signature, signatures.size);
        kind = signatures.get(signature);
        kinds.set(char, kind);
      }
      return kind;
    };
  }
  return program.kinds;
}

/** What makes a condition made at a position, the position aside. */
function templateOf(condition) {
  if (condition instanceof Boundary) {
    return {
      make: Boundary,
      before: condition.before,
      want: condition.want,
      key: `b${+condition.before}${+condition.want}`,
    };
  }
  if (condition instanceof Lookahead) {
    const { program, negate, pc } = condition;
    return { make: Lookahead, program, negate, pc, key: `l${pc}${+negate}` };
  }
  return { make: condition.constructor, key: condition.constructor.name };
}

/**
 * The steps a program's searches have taken, kept to be taken again. A step reads one code point; from the same
 * entries, on a character of the same kind with a next character of the same kind (`kindsOf`; no next character is
 * a kind too), it gives the same entries. Entries are *named* by their pcs, their registers and their conditions
 * (numbers into the name's templates, each a condition made at the position read). A register is named by its
 * *place*: 0 the position read, 1 the one before it, 2 on an older position, the name's *values* in the order the
 * entries first hold them, which the search keeps beside the name. So a name holds no position: a steady stretch
 * of text repeats a few names, and so does each of many calls alike, and a step is a look-up and, when a register
 * moved to an older place, a new array of values. A step that reads past the next character where only a literal
 * lookahead or `$` reads (a tempered dot's `(?!<tool_call>|</think>)` at a `<`: HTML, XML, code) is kept by the text
 * it read, up to the program's `reach` (`far`), which repeats as tags do; one that reads further is not kept. The
 * first step of a feed decides the conditions the last one left open.
 */
class Memo {
  constructor() {
    this.names = new Map(); // by their text, each once
    this.steps = new Map(); // (name id, kind, next kind) as a number -> {to, idle, sources}
    this.far = new Map(); // `${name id}:${the text from the character read, reach long or to the end}` -> as `steps`
    this.count = 0; // names ever made: an id is never given twice
  }

  intern(entries, templates) {
    const text =
      entries.map(([pc, regs, conds]) => `${pc}:${regs.join(",")}:${conds.join(",")}`).join("|") +
      `#${templates.map((template) => template.key).join("|")}`;
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= MEMO_LIMIT) {
        this.names = new Map();
        this.steps = new Map();
        this.far = new Map();
      }
      name = { id: this.count++, entries, templates, chosen: null, matches: null }; // matches: analysis.js
      this.names.set(text, name);
    }
    return name;
  }

  /** The name of `entries` at `position` and its values; null when a thread holds a condition. */
  name(entries, position) {
    const places = new Map(); // an older position -> its place
    const named = [];
    for (const [pc, regs, conds] of entries) {
      if (conds.length > 0) return null;
      named.push([pc, regs.map((r) => placeOf(r, position, places)), NONE]);
    }
    return [this.intern(named, []), [...places.keys()]];
  }

  /** Keep the step `search` just took from `old` (a name with `values`) to `position` under `key` (the kinds it
   * read), or, when it read past the next character, under the text it read (`far`); the name it reached and its
   * values (null when the step read further than a literal lookahead does). A step only copies registers and sets
   * them to `position`, so an older position was one of `values`, or `old`, or the one before `old`. */
  learn(key, search, values, old, position, name) {
    let table = this.steps;
    if (search.far) {
      if (search.reach) return null;
      table = this.far;
      key = farKey(name, search.buffer, old, search.program);
    }
    const was = new Map(values.map((value, index) => [value, index]));
    const places = new Map();
    const numbers = new Map();
    const named = search.entries.map(([pc, regs, conds]) => [
      pc,
      regs.map((r) => placeOf(r, position, places)),
      conds.map((condition) => {
        if (!numbers.has(condition)) numbers.set(condition, numbers.size);
        return numbers.get(condition);
      }),
    ]);
    const reachedValues = [...places.keys()];
    // per value reached: the index of the value it was, or -1 for `old`, -2 for the one before it
    const sources = reachedValues.map((r) => (r === old ? -1 : r === old - 1 ? -2 : was.get(r)));
    const same = sources.length === values.length && sources.every((source, index) => source === index);
    const reached = this.intern(named, [...numbers.keys()].map(templateOf));
    if (table === this.far && table.size >= MEMO_LIMIT) table.clear(); // (names and their steps: `intern`)
    table.set(key, { to: reached, idle: search.idle, sources: same ? null : sources });
    return [reached, reachedValues];
  }
}

/** The key in `Memo.far` of a step from `name` that reads the character at `at`: the name, and the text from there,
 * the program's `reach` long or to the end of the buffer (where it ends decides too). */
function farKey(name, buffer, at, program) {
  return `${name.id}:${buffer.slice(at, Math.min(buffer.length, at + program.reach))}`;
}

/** A register's place at `position` (`Memo`): 0 there, 1 the one before, 2 on an older one (added to `places`). */
function placeOf(r, position, places) {
  if (r === null) return null;
  if (r === position) return 0;
  if (r === position - 1) return 1;
  let place = places.get(r);
  if (place === undefined) {
    place = places.size + 2;
    places.set(r, place);
  }
  return place;
}

// ---- Text that grows, and what a thread assumed about text not yet seen ----

const TAIL = 256; // characters a buffer keeps in its tail (see Buffer)
const MIDDLE = 8192; // characters it keeps in its middle

/**
 * Text that only grows: the output, or what a stage has certainly produced from it. It is kept in three parts, a
 * head, a middle and a short tail: appending to a string makes a rope that V8 copies whole when it is next read, so
 * growing one long string on every feed would make a stream's cost grow with the output. A feed copies at most the
 * tail (where the matcher reads); the tail joins the middle every TAIL characters and the middle joins the head
 * every MIDDLE, so the whole text is copied once per MIDDLE characters.
 */
export class Buffer {
  #head;
  #middle = "";
  #tail = "";

  constructor(text = "") {
    this.#head = text;
    this.spans = new Map(); // the analysis's exact spans of this text, by start, then end
    this.spanCount = 0; // how many spans that is
  }

  get length() {
    return this.#head.length + this.#middle.length + this.#tail.length;
  }

  /** The whole text (a copy of it, once per MIDDLE characters at most). */
  get text() {
    if (this.#middle || this.#tail) {
      this.#head += this.#middle + this.#tail;
      this.#middle = this.#tail = "";
    }
    return this.#head;
  }

  grow(more) {
    this.#tail += more;
    if (this.#tail.length < TAIL) return;
    this.#middle += this.#tail;
    this.#tail = "";
    if (this.#middle.length < MIDDLE) return;
    this.#head += this.#middle;
    this.#middle = "";
  }

  /** `text.slice(start, end)`, read from the part where it lies. */
  slice(start, end = this.length) {
    const middle = this.#head.length;
    const tail = middle + this.#middle.length;
    if (start >= tail) return this.#tail.slice(start - tail, end - tail);
    if (start >= middle && end <= tail) return this.#middle.slice(start - middle, end - middle);
    if (end <= middle) return this.#head.slice(start, end);
    let text = "";
    let offset = 0;
    for (const part of [this.#head, this.#middle, this.#tail]) {
      if (start < offset + part.length && end > offset) text += part.slice(Math.max(start - offset, 0), end - offset);
      offset += part.length;
    }
    return text;
  }

  /** The UTF-16 unit at `index`, as a string. */
  unit(index) {
    const middle = this.#head.length;
    if (index < middle) return this.#head[index];
    const tail = middle + this.#middle.length;
    return index < tail ? this.#middle[index - middle] : this.#tail[index - tail];
  }

  /** The code point at `index`, as a string of one or two units (a lone half stays one). */
  char(index) {
    const unit = this.unit(index);
    const code = unit.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < this.length) {
      const low = this.unit(index + 1);
      if (/[\udc00-\udfff]/.test(low)) return unit + low;
    }
    return unit;
  }

  /** The code point that ends at `index`. */
  charBefore(index) {
    const unit = this.unit(index - 1);
    if (/[\udc00-\udfff]/.test(unit) && index >= 2 && /[\ud800-\udbff]/.test(this.unit(index - 2))) {
      return this.unit(index - 2) + unit;
    }
    return unit;
  }
}

class Condition {
  constructor(buffer, position) {
    this.buffer = buffer;
    this.position = position;
  }

  /** Whether it holds if the text ends where it is now. */
  holdsAtEnd() {
    return false;
  }
}

/** `\Z`: the text ends here. */
class AtEnd extends Condition {
  decide() {
    return this.buffer.length === this.position ? null : false;
  }

  holdsAtEnd() {
    return this.buffer.length === this.position;
  }
}

/** `$` without MULTILINE: the text ends here, or after one newline that is here ([RE-1]). */
class Dollar extends Condition {
  decide() {
    const { buffer } = this;
    const at = this.position;
    if (buffer.length === at) return null;
    if (buffer.unit(at) !== "\n") return false;
    return buffer.length === at + 1 ? null : false;
  }

  holdsAtEnd() {
    return this.decide() === null;
  }
}

/** `$` under MULTILINE: a newline here, or the end. */
class LineEnd extends Condition {
  decide() {
    const { buffer } = this;
    return buffer.length === this.position ? null : buffer.unit(this.position) === "\n";
  }

  holdsAtEnd() {
    return this.buffer.length === this.position;
  }
}

/** `\b` (`want`) or `\B` at the end of the text seen: the next character decides. */
class Boundary extends Condition {
  constructor(buffer, position, before, want) {
    super(buffer, position);
    this.before = before;
    this.want = want;
  }

  decide() {
    const { buffer } = this;
    if (buffer.length === this.position) return null;
    return (this.before !== isWord(buffer.char(this.position))) === this.want;
  }

  holdsAtEnd() {
    // no word character on either side at the end of an empty text: \b fails, \B holds (ECMAScript)
    return this.buffer.length === this.position && this.before === this.want;
  }
}

/** `(?=...)` or `(?!...)` at a position: decided once the text there settles it. */
class Lookahead extends Condition {
  constructor(buffer, position, program, negate, base) {
    super(buffer, position);
    this.program = program;
    this.negate = negate;
    this.search = program.literals !== null ? null : new Search(program, buffer, base, position, true);
    this.longest = program.literals === null ? 0 : longestOf(program);
  }

  decide() {
    const found = this.found();
    return found === null ? null : found !== this.negate;
  }

  holdsAtEnd() {
    const verdict = this.decide();
    if (verdict !== null) return verdict;
    if (this.search === null) return this.negate;
    const matches = this.search.entries.filter(([pc]) => pc < 0).map(([, , conds]) => conds);
    const found = matches.some((conds) => conds.every((condition) => condition.holdsAtEnd()));
    if (!this.negate) return found;
    const exact = matches.every((conds) =>
      conds.every(
        (condition) => condition instanceof AtEnd || condition instanceof Dollar || condition instanceof LineEnd,
      ),
    );
    return exact && !found;
  }

  found() {
    if (this.search === null) {
      const seen = this.buffer.slice(this.position, Math.min(this.buffer.length, this.position + this.longest));
      let possible = false;
      for (const literalText of this.program.literals) {
        if (seen.startsWith(literalText)) return true;
        possible = possible || literalText.startsWith(seen);
      }
      return possible ? null : false;
    }
    this.search.advance();
    const { entries } = this.search;
    if (entries.some(([pc, , conds]) => pc < 0 && conds.length === 0)) return true;
    return entries.length === 0 ? false : null;
  }
}

const NONE = Object.freeze([]);
const subset = (small, big) => small.every((condition) => big.includes(condition));

/**
 * `pattern.search(text, start)` on a text still arriving (`buffer.slice(base)` so far), leftmost-first:
 * `entries` are the live threads and the matches found, in priority order, each `[pc, registers, conditions]`
 * (pc -1 for a match found). `advance` reads what arrived since the last call.
 */
export class Search {
  constructor(program, buffer, base, start, anchored = false, mustAdvance = false, memoize = true) {
    this.program = program;
    this.code = program.code;
    this.buffer = buffer;
    this.base = base;
    this.start = start;
    this.position = start;
    this.anchored = anchored || program.anchored;
    this.mustAdvance = mustAdvance; // after an empty match, a match at start must not be empty ([RE-6])
    this.pending = new Set();
    this.looks = new Map();
    this.memoize = memoize; // take the steps `Memo` knows instead of running them
    this.far = false; // the step read past the next character: `Memo` keeps it by what it read (`Memo.far`)
    this.reach = false; // and past where a literal lookahead reads: `Memo` does not keep it
    this.named = null; // the `Memo` name of `entries` (its conditions `pending` once made)
    this.values = []; // the positions at the name's older places
    this.entries = this.fresh(start);
    this.idle = !this.anchored; // no thread but a fresh start's
  }

  #entries;
  #lazy = null; // [name, values, position] of entries not made yet (`entries`)

  /** The live threads and the matches found, in priority order. After a feed that ends on a `Memo` name they are
   * made from the name when first read: a search whose match values come from its name (`matches` in analysis.js)
   * and whose next feed steps from the name needs none. */
  get entries() {
    if (this.#lazy !== null) this.makeEntries();
    return this.#entries;
  }

  set entries(entries) {
    this.#lazy = null;
    this.#entries = entries;
  }

  /** Make the entries the last feed left to be made, and with them the conditions they hold (`pending`). */
  makeEntries() {
    if (this.#lazy !== null) this.entries = this.materialize(...this.#lazy);
  }

  /** A match is certain: the search's result no longer depends on what follows (read from the name when the
   * entries are not made). */
  get matched() {
    const entries = this.#lazy !== null ? this.#lazy[0].entries : this.#entries;
    return entries.length > 0 && entries[0][0] < 0 && entries[0][2].length === 0;
  }

  /** The entries the final match can still come from, in priority order, and whether the search may also end with
   * a match that starts later, or with none. */
  candidates() {
    const { named } = this;
    if (named !== null && named.chosen !== null) return [this.entries.slice(0, named.chosen[0]), named.chosen[1]];
    const found = this.listed();
    if (named !== null) named.chosen = [found[0].length, found[1]];
    return found;
  }

  listed() {
    const { code } = this;
    const totals = this.program.total;
    const chosen = [];
    let atEnd = false;
    let step = false;
    for (const entry of this.entries) {
      chosen.push(entry);
      const [pc, , conds] = entry;
      if (pc < 0) {
        if (conds.length === 0) return [chosen, false];
        atEnd = atEnd || conds.every((condition) => condition.holdsAtEnd());
      } else if (conds.length === 0 && code[pc][1] === universal && totals.has(code[pc][2])) {
        step = true;
      }
      if (atEnd && step) return [chosen, false];
    }
    return [chosen, true];
  }

  advance() {
    const { buffer } = this;
    let end = buffer.length;
    if (end > 0 && /[\ud800-\udbff]/.test(buffer.unit(end - 1))) end--; // half a code point: read it whole, later
    if (this.position >= end) return;
    if (this.matched) {
      this.position = end; // a certain match: no text that follows changes it, so there is nothing to read
      return;
    }
    const memo = this.memoize ? this.program.memos[this.anchored ? 1 : 0] : null;
    const kinds = memo === null ? null : kindsOf(this.program);
    let state = memo === null ? null : this.named; // the entries as `Memo` names them, while it steps
    let { values } = this; // and the positions at the name's older places
    this.named = null;
    if (state === null) this.resolve();
    const { first: starts } = this.program;
    let stale = false; // `entries` are behind `state`
    let index = this.position;
    while (index < end) {
      if (this.idle && starts !== null) {
        starts.lastIndex = 0;
        const found = starts.exec(buffer.slice(index, end));
        index = found === null ? end : index + found.index;
        this.entries = this.fresh(index);
        state = null;
        stale = false;
        if (index === end) break;
      }
      const char = buffer.char(index);
      const next = index + char.length;
      if (memo !== null && (state !== null || this.pending.size === 0)) {
        if (state === null) {
          const named = memo.name(this.entries, index);
          if (named !== null) [state, values] = named;
        }
        if (state !== null) {
          const kind = kinds(char);
          const nextKind = next < buffer.length ? kinds(buffer.char(next)) : -1;
          const key =
            kind < KINDS_LIMIT && nextKind < KINDS_LIMIT ? (state.id * 1024 + kind) * 1024 + nextKind + 1 : -1;
          let step = memo.steps.get(key);
          if (step === undefined && memo.far.size > 0) step = memo.far.get(farKey(state, buffer, index, this.program));
          if (step !== undefined) {
            if (state.templates.length > 0) this.pending.clear(); // they were the conditions of its entries only
            state = step.to;
            this.idle = step.idle;
            const { sources } = step;
            if (sources !== null) {
              // a register moved to an older place: -1 is `index`, -2 the one before it
              values = sources.map((source) => (source >= 0 ? values[source] : source === -1 ? index : index - 1));
            }
            stale = true;
          } else {
            if (stale) {
              this.entries = this.materialize(state, values, index);
              stale = false;
            }
            this.far = this.reach = key < 0;
            if (state.templates.length > 0) {
              // the conditions the last feed left open are decided by this character
              this.makeEntries();
              const first = char[0];
              for (const condition of this.pending) {
                if (condition instanceof Lookahead && condition.program.starts.has(first)) this.far = true;
              }
              this.resolve();
              if (this.pending.size > 0) this.far = this.reach = true; // a name holds no condition made before
            }
            this.step(char, next);
            const learned = memo.learn(key, this, values, index, next, state);
            [state, values] = learned === null ? [null, []] : learned;
          }
          index = next;
          if (this.anchored && (stale ? state.entries : this.entries).length === 0) break;
          continue;
        }
      }
      if (stale) {
        this.entries = this.materialize(state, values, index);
        stale = false;
      }
      state = null;
      this.step(char, next);
      index = next;
      if (this.entries.length === 0 && this.anchored) break;
    }
    this.position = end;
    if (stale) {
      this.pending.clear();
      this.#lazy = [state, values, index]; // made when read, with its conditions: made at the end of the text,
      this.named = state; // they are all undecided
      this.values = values;
    } else if (this.pending.size > 0) this.resolve();
  }

  /** Read `char`, which ends at `next`: every thread that accepts it moves on. */
  step(char, next) {
    const { code } = this;
    const out = [];
    const seen = new Map();
    let cut = false;
    const done = code.length - 1; // the MATCH a match found reached (every program ends with it)
    const { entries } = this;
    for (const entry of entries) {
      const pc = entry[0];
      if (pc < 0) {
        const prior = seen.get(done);
        if (prior === undefined) seen.set(done, [entry[2]]);
        else if (prior.some((earlier) => subset(earlier, entry[2])))
          continue; // a match before it holds wherever it would: it is never the one found
        else prior.push(entry[2]);
        out.push(entry);
        if (entry[2].length === 0) {
          cut = true;
          break;
        }
        continue;
      }
      const inst = code[pc];
      if (inst[1](char) && this.add(out, seen, inst[2], entry[1], entry[2], next, entries)) {
        cut = true;
        break;
      }
    }
    this.idle = out.length === 0 && !cut;
    if (!cut && !this.anchored) {
      this.add(out, seen, 0, new Array(this.program.slots).fill(null), NONE, next, entries);
    }
    this.entries = out;
  }

  /** The entries a `Memo` name with `values` stands for at `position`, its conditions made anew (and pending). */
  materialize(name, values, position) {
    const made = name.templates.map((template) => {
      let condition;
      if (template.make === Boundary) condition = new Boundary(this.buffer, position, template.before, template.want);
      else if (template.make === Lookahead) {
        condition = this.kept(
          new Lookahead(this.buffer, position, template.program, template.negate, this.base),
          template.pc,
        );
      } else condition = new template.make(this.buffer, position);
      this.pending.add(condition);
      return condition;
    });
    return name.entries.map(([pc, regs, conds]) => [
      pc,
      regs.map((r) => (r === null ? null : r === 0 ? position : r === 1 ? position - 1 : values[r - 2])),
      conds.length === 0 ? NONE : conds.map((number) => made[number]),
    ]);
  }

  /** The threads of a match starting at `position`. */
  fresh(position) {
    const out = [];
    this.add(out, new Map(), 0, new Array(this.program.slots).fill(null), NONE, position);
    return out;
  }

  /** Drop the entries whose conditions the text refuted; forget the conditions it confirmed. */
  resolve() {
    const decided = new Map();
    for (const condition of this.pending) {
      const verdict = condition.decide();
      if (verdict !== null) decided.set(condition, verdict);
    }
    if (decided.size === 0) return;
    for (const condition of decided.keys()) this.pending.delete(condition);
    const out = [];
    for (const [pc, regs, held] of this.entries) {
      let conds = held;
      if (conds.some((condition) => decided.has(condition))) {
        if (conds.some((condition) => decided.get(condition) === false)) continue;
        conds = conds.filter((condition) => !decided.has(condition));
      }
      out.push([pc, regs, conds]);
      if (pc < 0 && conds.length === 0) break;
    }
    this.entries = out;
  }

  /** Add the thread at `pc` and everything it reaches without reading, in priority order; true when it found a
   * certain match (which cuts every thread after it). `before`: the entries of the step that reads up to
   * `position`. */
  add(out, seen, pc, regs, conds, position, before = []) {
    const { code } = this;
    const stack = [[pc, regs, conds]];
    while (stack.length > 0) {
      [pc, regs, conds] = stack.pop();
      const prior = seen.get(pc);
      if (prior === undefined) seen.set(pc, [conds]);
      else if (prior.some((earlier) => subset(earlier, conds)))
        continue; // a thread before it does all it would
      else prior.push(conds);
      const inst = code[pc];
      switch (inst[0]) {
        case CHAR:
          out.push([pc, regs, conds]);
          break;
        case SPLIT:
          stack.push([inst[2], regs, conds], [inst[1], regs, conds]);
          break;
        case JMP:
          stack.push([inst[1], regs, conds]);
          break;
        case SAVE: {
          const slot = inst[1];
          const copy = regs.slice();
          copy[slot] = position;
          if (slot % 2 === 0) copy[slot + 1] = null; // a group (re)opens: its end is not known any more
          stack.push([inst[2], copy, conds]);
          break;
        }
        case CLEAR: {
          const copy = regs.slice();
          for (const slot of inst[1]) copy[slot] = null;
          stack.push([inst[2], copy, conds]);
          break;
        }
        case MATCH:
          if (this.mustAdvance && position === this.start && regs[0] === this.start) break;
          out.push([-1, regs, conds]);
          if (conds.length === 0) return true;
          break;
        default: {
          const verdict = inst[0] === ASSERT ? this.assertion(inst, position) : this.look(inst, pc, position);
          if (verdict === true) stack.push([inst[inst.length - 1], regs, conds]);
          else if (verdict !== false) {
            const condition =
              verdict instanceof Lookahead && verdict.search !== null ? this.alike(verdict, conds, before) : verdict;
            this.pending.add(condition);
            stack.push([inst[inst.length - 1], regs, conds.includes(condition) ? conds : [...conds, condition]]);
          }
        }
      }
    }
    return false;
  }

  assertion(inst, at) {
    const kind = inst[1];
    const { buffer } = this;
    if (kind === BOS) return at === this.base;
    if (kind === BOL) return at === this.base || buffer.unit(at - 1) === "\n";
    let condition;
    if (kind === BOUNDARY || kind === NON_BOUNDARY) {
      const before = at > this.base && isWord(buffer.charBefore(at));
      condition = new Boundary(this.buffer, at, before, kind === BOUNDARY);
    } else if (kind === DOLLAR) {
      if (at < buffer.length && buffer.unit(at) === "\n") this.far = true; // it reads the character after
      condition = new Dollar(this.buffer, at);
    } else if (kind === EOL) condition = new LineEnd(this.buffer, at);
    else condition = new AtEnd(this.buffer, at);
    return open(condition);
  }

  look(inst, pc, at) {
    const { starts } = inst[1];
    // no literal starts here: (?=...) fails and (?!...) holds, whatever follows
    if (starts !== null && at < this.buffer.length && !starts.has(this.buffer.unit(at))) return inst[2];
    // it reads past the next character: kept by what it read (`Memo.far`), or not at all past the program's reach
    if (starts === null) this.far = this.reach = true;
    else if (at < this.buffer.length) this.far = true;
    let condition = this.looks.get(`${pc}:${at}`);
    if (condition === undefined) {
      condition = this.kept(new Lookahead(this.buffer, at, inst[1], inst[2], this.base), pc);
    }
    return open(condition);
  }

  /** A lookahead the thread (`conds`) or a thread before the step (`before`) holds that decides as `look` will, when
   * there is one, else `look`: of the same program and sign, its search read to the same position holds the same
   * threads with the same conditions (registers aside: a lookahead's captures are not read), so what follows decides
   * both alike. So a thread that passes a lookahead on each turn of a loop (`(?:(?=\s*<)\s)*`) holds one condition,
   * not one per position read while it is open, and the matches a lazy loop before one finds at each position
   * (`.*?(?=\s*<)`) hold the same one, which keeps only the first (`step`): the search's cost per character stays
   * bounded ([STREAM-6]). */
  alike(look, conds, before) {
    let threads = null;
    for (const held of [conds, ...before.map((entry) => entry[2])]) {
      for (const other of held) {
        if (!(other instanceof Lookahead) || other === look) continue;
        if (other.program !== look.program || other.negate !== look.negate || other.decide() !== null) continue;
        if (threads === null) threads = look.search.entries;
        const theirs = other.search.entries;
        if (other.search.position === look.search.position && sameThreads(threads, theirs)) return other;
      }
    }
    return look;
  }

  /** `look`, the lookahead of the instruction at `pc`, kept to be met again at its position (another thread reaching
   * the same lookahead there). */
  kept(look, pc) {
    const at = look.position;
    look.pc = pc;
    if (this.looks.size > 64) {
      // threads only move forward: a lookahead before `at - 1` is not met again (`at`, not the search's
      // position, which one large feed does not move until it is read whole)
      for (const [other, held] of this.looks) if (held.position < at - 1) this.looks.delete(other);
    }
    this.looks.set(`${pc}:${at}`, look);
    return look;
  }
}

/** What `condition` says now: its verdict, or itself while the text does not decide it (`Search.add` makes it
 * pending once a thread holds it). */
function open(condition) {
  const verdict = condition.decide();
  return verdict === null ? condition : verdict;
}

/** Whether two lists of entries hold the same threads with the same conditions, registers aside (`Search.alike`). */
function sameThreads(one, other) {
  return (
    one.length === other.length &&
    one.every(
      ([pc, , conds], index) =>
        pc === other[index][0] &&
        conds.length === other[index][2].length &&
        conds.every((condition, k) => condition === other[index][2][k]),
    )
  );
}
