// Section 7 of benchmarks/run.py: the JavaScript implementation's parse time per output on the real formats.
// Reads {family: {schema, inputs}} on stdin; writes {family: microseconds per output} (median of rounds).
import { readFileSync } from "node:fs";
import { compile } from "../js/src/index.js";

const ROUNDS = Number(process.argv[2] ?? 25);
const families = JSON.parse(readFileSync(0, "utf8"));
const results = {};
for (const [family, { schema, inputs }] of Object.entries(families)) {
  const parser = compile(schema);
  const once = () => {
    for (const text of inputs) {
      try {
        parser.parse(text);
      } catch {
        // a failing parse costs time too; both implementations are timed on the same inputs
      }
    }
  };
  for (let warmup = 0; warmup < 200; warmup++) once();
  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let repeat = 0; repeat < 100; repeat++) once();
    samples.push(Number(process.hrtime.bigint() - started) / 1000 / 100 / inputs.length);
  }
  samples.sort((a, b) => a - b);
  results[family] = samples[Math.floor(samples.length / 2)];
}
process.stdout.write(JSON.stringify(results));
