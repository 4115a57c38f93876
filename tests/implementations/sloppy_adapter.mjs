// A hand-written adapter with one mistake of the kind `conformance adapter-check` must catch, around a tiny
// implementation that is right on the checks' inputs (or, in its own way, wrong: NaN for "nan").
//   node sloppy_adapter.mjs prints-to-stdout | nan-as-null | drops-undefined | stops-answering
// (stops-answering: after its third run request it reads on and answers nothing; PID_FILE gets its pid).
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const MODE = process.argv[2];
if (process.env.PID_FILE) writeFileSync(process.env.PID_FILE, String(process.pid));
let runs = 0;

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
    console.log(
      JSON.stringify({
        protocol: 1,
        implementation: { name: `sloppy-${MODE}`, version: "0", language: "javascript" },
        features: [],
      }),
    );
  } else if (request.cmd === "run") {
    runs += 1;
    if (MODE === "stops-answering" && runs > 3) return;
    const results = request.tests.map((test) => ({ output: parse(request.schema, test.input) }));
    console.log(JSON.stringify({ seq: request.seq, results }));
  } else {
    process.exit(0);
  }
});
