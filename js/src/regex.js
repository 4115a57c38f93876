// The regex dialect of SPEC.md appendix A (Python's `re`, DOTALL), translated to ECMAScript as A.5 says, with
// iteration as A.2 says and Python replacement templates as A.3 says.

const WORD = String.raw`\p{L}\p{N}_`;
const SPACE = String.raw`\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
const CLASSES = { d: String.raw`\p{Nd}`, w: WORD, s: SPACE };
const SYNTAX = new Set("^$\\.*+?()[]{}|/");
const QUANTIFIER = /^\{(\d*)(?:(,)(\d*))?\}/;

/** A construct A.5 does not translate: it is behind a feature (A.4), or it is not valid in the dialect. */
export class Untranslatable extends Error {}

/** The ECMAScript source and extra flags ("i" or "") for a pattern of the dialect ([RE-1] to [RE-5]). */
export function translate(pattern) {
  let flags = "";
  let multiline = false;
  let at = 0;
  for (let match; (match = /^\(\?([a-zA-Z]+)\)/.exec(pattern.slice(at))); at += match[0].length) {
    for (const flag of match[1]) {
      if (flag === "i") flags = "i";
      else if (flag === "m") multiline = true;
      else if (flag !== "s") throw new Untranslatable(`the inline flag (?${flag}) is not supported`);
    }
  }
  const out = [];
  const next = () => pattern[at++];
  const take = (count) => {
    const text = pattern.slice(at, at + count);
    at += count;
    return text;
  };
  const quantifierSuffix = () => {
    if (pattern[at] === "+") throw new Untranslatable("possessive quantifiers are the feature regex-atomic");
    if (pattern[at] === "?") out.push(next());
  };
  const classEscape = (char, inClass) => {
    const contents = CLASSES[char.toLowerCase()];
    if (char === char.toLowerCase()) return inClass ? contents : `[${contents}]`;
    if (inClass) {
      if (char === "D") return String.raw`\P{Nd}`;
      throw new Untranslatable(`\\${char} inside a character class does not translate`);
    }
    return `[^${contents}]`;
  };
  const escape = (inClass) => {
    if (at >= pattern.length) throw new Untranslatable("a pattern cannot end with a backslash");
    const char = next();
    if ("dDwWsS".includes(char)) return classEscape(char, inClass);
    if (/[0-9]/.test(char)) {
      const octal = /^(?:0[0-7]{0,2}|[0-7]{3})/.exec(pattern.slice(at - 1));
      if (octal && (char === "0" || inClass || octal[0].length === 3)) {
        at += octal[0].length - 1;
        return `\\u{${parseInt(octal[0], 8).toString(16)}}`;
      }
      if (inClass) throw new Untranslatable("a backreference inside a character class");
      const digits = /^\d{1,2}/.exec(pattern.slice(at - 1))[0];
      at += digits.length - 1;
      return `\\${digits}`;
    }
    if (char === "b" || char === "B") {
      if (inClass) {
        if (char === "B") throw new Untranslatable("bad escape \\B in a character class");
        return String.raw`\x08`;
      }
      const word = `[${WORD}]`;
      const boundary = `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
      return char === "b" ? boundary : `(?!${boundary})`;
    }
    if (char === "A" && !inClass) return String.raw`(?<![\s\S])`;
    if (char === "Z" && !inClass) return String.raw`(?![\s\S])`;
    if (char === "a") return String.raw`\x07`;
    if ("nrtfv".includes(char)) return `\\${char}`;
    if (char === "x" || char === "u") {
      const hex = take(char === "x" ? 2 : 4);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== (char === "x" ? 2 : 4))
        throw new Untranslatable(`bad escape \\${char}`);
      return `\\${char}${hex}`;
    }
    if (char === "U") {
      const hex = take(8);
      if (!/^[0-9a-fA-F]{8}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) throw new Untranslatable("bad escape \\U");
      return `\\u{${parseInt(hex, 16).toString(16)}}`;
    }
    if (char === "N") throw new Untranslatable("\\N{NAME} is the feature regex-python-only");
    if (/[A-Za-z]/.test(char)) throw new Untranslatable(`bad escape \\${char}`);
    if (SYNTAX.has(char) || (inClass && char === "-")) return `\\${char}`;
    return char;
  };
  const charClass = () => {
    out.push("[");
    if (pattern[at] === "^") out.push(next());
    let first = true;
    for (;;) {
      if (at >= pattern.length) throw new Untranslatable("unterminated character set");
      const char = next();
      if (char === "]" && !first) break;
      first = false;
      if (char === "\\") out.push(escape(true));
      else if (char === "[" || char === "]") out.push(`\\${char}`);
      else out.push(char);
    }
    out.push("]");
  };
  const group = () => {
    const rest = pattern.slice(at);
    let match;
    if ((match = /^\?P<([^>]*)>/.exec(rest))) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(match[1])) throw new Untranslatable(`bad group name ${match[1]}`);
      out.push(`(?<${match[1]}>`);
      at += match[0].length;
    } else if ((match = /^\?P=(\w+)\)/.exec(rest))) {
      out.push(`\\k<${match[1]}>`);
      at += match[0].length;
    } else if (rest.startsWith("?#")) {
      const end = pattern.indexOf(")", at);
      if (end < 0) throw new Untranslatable("missing ), unterminated comment");
      at = end + 1;
    } else if (/^\?(?::|=|!|<=|<!)/.test(rest) || !rest.startsWith("?")) {
      out.push("(");
    } else if (/^\?[a-zA-Z-]+:/.test(rest)) {
      throw new Untranslatable("scoped inline flags are the feature regex-scoped-flags");
    } else if (rest.startsWith("?>")) {
      throw new Untranslatable("atomic groups are the feature regex-atomic");
    } else if (rest.startsWith("?(")) {
      throw new Untranslatable("conditionals are the feature regex-python-only");
    } else {
      throw new Untranslatable(`unknown extension (${rest.slice(0, 3)}`);
    }
  };
  while (at < pattern.length) {
    const char = next();
    if (char === "\\") out.push(escape(false));
    else if (char === "[") charClass();
    else if (char === "(") group();
    else if (char === "{") {
      const match = QUANTIFIER.exec(pattern.slice(at - 1));
      if (!match || (!match[1] && !match[3])) out.push("\\{");
      else {
        out.push(`{${match[1] || "0"}${match[2] ?? ""}${match[3] ?? ""}}`);
        at += match[0].length - 1;
        quantifierSuffix();
      }
    } else if (char === "}") out.push("\\}");
    else if (char === "^") out.push(multiline ? String.raw`(?<![^\n])` : "^");
    else if (char === "$") out.push(multiline ? String.raw`(?=\n|(?![\s\S]))` : String.raw`(?=\n?(?![\s\S]))`);
    else if ("*+?".includes(char)) {
      out.push(char);
      quantifierSuffix();
    } else out.push(char);
  }
  return { source: out.join(""), flags };
}

/** A compiled pattern of the dialect. */
export class Pattern {
  constructor(pattern) {
    const { source, flags } = translate(pattern);
    this.pattern = pattern; // as the schema wrote it: the streaming analysis reads it (stream/pike.js)
    this.source = source;
    this.flags = flags;
    try {
      this.search = new RegExp(source, `${flags}gsu`);
    } catch (error) {
      throw new Untranslatable(error.message);
    }
    const probe = new RegExp(`${source}|`, `${flags}su`).exec("");
    this.groups = probe.length - 1;
    this.names = Object.keys(probe.groups ?? {});
  }

  /** The first match from the start ([REGEX-2]), or null. */
  first(text) {
    this.search.lastIndex = 0;
    return this.search.exec(text);
  }

  /** The first match with the offsets of its groups (`match.indices`), or null. */
  firstIndexed(text) {
    const search = this.indexed();
    search.lastIndex = 0;
    return search.exec(text);
  }

  indexed() {
    this.withIndices ??= new RegExp(this.search.source, `${this.flags}dgsu`);
    return this.withIndices;
  }

  /** Every match, left to right, as appendix A.2 says ([RE-6]); `indexed`: with `match.indices`. */
  *all(text, indexed = false) {
    const search = indexed ? this.indexed() : this.search;
    let position = 0;
    while (position <= text.length) {
      search.lastIndex = position;
      let match = search.exec(text);
      if (match === null) return;
      yield match;
      let end = match.index + match[0].length;
      while (match !== null && match[0].length === 0) {
        // After an empty match at p, only a non-empty match at p is taken: one that does not end at p.
        const codePoints = [...text.slice(0, end)].length;
        const retry = new RegExp(
          `(?:${this.source})(?<!^[\\s\\S]{${codePoints}})`,
          `${this.flags}ysu${indexed ? "d" : ""}`,
        );
        retry.lastIndex = end;
        match = retry.exec(text);
        if (match !== null) {
          yield match;
          end = match.index + match[0].length;
        }
      }
      if (match === null) {
        if (end >= text.length) return;
        position = end + (text.codePointAt(end) > 0xffff ? 2 : 1);
      } else {
        position = end;
      }
    }
  }

  /** Every match replaced by the expansion of ``template`` ([SUBS-2]). */
  replace(text, template) {
    let out = "";
    let last = 0;
    for (const match of this.all(text)) {
      out += text.slice(last, match.index) + template.expand(match);
      last = match.index + match[0].length;
    }
    return out + text.slice(last);
  }
}

const ESCAPES = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", a: "\x07", b: "\b", "\\": "\\" };

/** A Python replacement template ([SUBS-3], [RE-7]), checked against a pattern's groups. */
export class Template {
  constructor(template, pattern) {
    this.parts = []; // strings, and group numbers or names
    let literal = "";
    for (let at = 0; at < template.length; at++) {
      const char = template[at];
      if (char !== "\\") {
        literal += char;
        continue;
      }
      const next = template[++at];
      if (next === undefined) throw new Untranslatable("bad escape (end of template)");
      let match;
      const rest = template.slice(at);
      if (next === "g") {
        if (!(match = /^g<([^>]*)>/.exec(rest))) throw new Untranslatable("missing group name in \\g<...>");
        const name = match[1];
        const reference = /^\d+$/.test(name) ? Number(name) : name;
        if (typeof reference === "number" ? reference > pattern.groups : !pattern.names.includes(reference)) {
          throw new Untranslatable(`invalid group reference ${name}`);
        }
        this.parts.push(literal, reference);
        literal = "";
        at += match[0].length - 1;
      } else if ((match = /^(?:0[0-7]{0,2}|[0-7]{3})/.exec(rest)) && (next === "0" || match[0].length === 3)) {
        const code = parseInt(match[0], 8);
        if (code > 0o377) throw new Untranslatable(`octal escape value \\${match[0]} outside of range 0-0o377`);
        literal += String.fromCodePoint(code);
        at += match[0].length - 1;
      } else if ((match = /^\d{1,2}/.exec(rest))) {
        const number = Number(match[0]);
        if (number > pattern.groups) throw new Untranslatable(`invalid group reference ${number}`);
        this.parts.push(literal, number);
        literal = "";
        at += match[0].length - 1;
      } else if (next in ESCAPES) {
        literal += ESCAPES[next];
      } else if (/[A-Za-z]/.test(next)) {
        throw new Untranslatable(`bad escape \\${next}`);
      } else {
        literal += `\\${next}`;
      }
    }
    this.parts.push(literal);
  }

  expand(match) {
    return this.parts
      .map((part, index) =>
        index % 2 === 0 ? part : ((typeof part === "number" ? match[part] : match.groups?.[part]) ?? ""),
      )
      .join("");
  }
}
