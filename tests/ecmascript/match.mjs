// Runs patterns of the corpus's dialect through the JavaScript implementation's translation (js/src/regex.js),
// iterated as SPEC.md A.2 says. Reads [{pattern, inputs}] on stdin; writes per job {untranslatable} or
// {results: [[[text, [groups]]...] per input]}.
import { readFileSync } from "node:fs";
import { Pattern, Untranslatable } from "../../js/src/regex.js";

const jobs = JSON.parse(readFileSync(0, "utf8"));
const answers = jobs.map(({ pattern, inputs }) => {
  let compiled;
  try {
    compiled = new Pattern(pattern);
  } catch (error) {
    if (error instanceof Untranslatable) return { untranslatable: error.message };
    throw error;
  }
  return {
    source: compiled.source,
    results: inputs.map((text) => [...compiled.all(text)].map((m) => [m[0], m.slice(1).map((g) => g ?? null)])),
  };
});
process.stdout.write(JSON.stringify(answers));
