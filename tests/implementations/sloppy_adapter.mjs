// A hand-written adapter with one mistake of the kind `conformance adapter-check` must catch, around a tiny
// implementation that is right on the checks' inputs (or, in its own way, wrong: NaN for "nan").
//   node sloppy_adapter.mjs prints-to-stdout | nan-as-null | drops-undefined
import { createInterface } from "node:readline";

const MODE = process.argv[2];

function parse(schema, text) {
  if (schema["x-parser"] === "json") {
    const value = JSON.parse(text);
    // A port that keeps "no value" as undefined: JSON.stringify then drops the key.
    if (MODE === "drops-undefined" && value && typeof value === "object" && "a" in value) value.a = undefined;
    return value;
  }
  if (schema.type === "number") return Number(text.replace(/^nan$/, "NaN").replace(/^inf$/, "Infinity"));
  if (MODE === "prints-to-stdout") console.log(`parsing ${text.length} characters`);
  return text;
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.cmd === "hello") {
    console.log(JSON.stringify({ protocol: 1, implementation: { name: `sloppy-${MODE}`, version: "0", language: "javascript" }, features: [] }));
  } else if (request.cmd === "run") {
    const results = request.tests.map((test) => ({ output: parse(request.schema, test.input) }));
    console.log(JSON.stringify({ seq: request.seq, results }));
  } else {
    process.exit(0);
  }
});
