// Iterates ECMAScript patterns as SPEC.md appendix A.2 and A.5 say, for the translation test.
// Reads [{source, flags, inputs}] on stdin; writes, per job, {error} or {results: [[[text, [groups]]...] per input]}.
import { readFileSync } from "node:fs";

function iterate(source, flags, text) {
  const search = new RegExp(source, flags + "gsu");
  const matches = [];
  const record = (m) => matches.push([m[0], m.slice(1).map((g) => (g === undefined ? null : g))]);
  let pos = 0;
  while (pos <= text.length) {
    search.lastIndex = pos;
    let m = search.exec(text);
    if (m === null) break;
    record(m);
    let end = m.index + m[0].length;
    while (m !== null && m[0].length === 0) {
      // [RE-6]: retry at the same place, refusing a match that ends where it starts.
      const p = [...text.slice(0, end)].length;
      const retry = new RegExp(`(?:${source})(?<!^[\\s\\S]{${p}})`, flags + "ysu");
      retry.lastIndex = end;
      m = retry.exec(text);
      if (m !== null) {
        record(m);
        end = m.index + m[0].length;
      }
    }
    if (m === null) {
      if (end >= text.length) break;
      pos = end + (text.codePointAt(end) > 0xffff ? 2 : 1);
    } else {
      pos = end;
    }
  }
  return matches;
}

const jobs = JSON.parse(readFileSync(0, "utf8"));
const answers = jobs.map(({ source, flags, inputs }) => {
  try {
    return { results: inputs.map((text) => iterate(source, flags, text)) };
  } catch (error) {
    return { error: String(error) };
  }
});
process.stdout.write(JSON.stringify(answers));
