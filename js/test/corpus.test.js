// Every case of the corpus whose features this implementation declares, in process (the harness runs the same
// cases through the protocol: tox -e js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { files } from "./cases.js";
import { FEATURES, compile } from "../src/index.js";

/** JSON equality: objects without key order, numbers by value, booleans never numbers. */
function jsonEqual(a, b) {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}

function outcome(schema, input, tools) {
  try {
    return { output: compile(schema).parse(input, { tools }) };
  } catch (error) {
    if (error.phase === undefined) throw error;
    return { error: { phase: error.phase, category: error.category } };
  }
}

const declared = new Set(FEATURES);
let judged = 0;
for (const file of files()) {
  for (const group of JSON.parse(readFileSync(file, "utf8")).groups) {
    for (const caseTest of group.tests) {
      const tools = caseTest.tools ?? group.tools; // SPEC.md section 15: a group's tools are its tests'
      const features = [...(group.features ?? []), ...(caseTest.features ?? []), ...(tools ? ["typed-arguments"] : [])];
      const skip = features.find((feature) => !declared.has(feature));
      test(caseTest.id, { skip: skip && `needs ${skip}` }, () => {
        judged++;
        const actual = outcome(group.schema, (caseTest.prefix ?? "") + caseTest.input, tools); // [GEN-5]: the prefix, then the input
        const { expect } = caseTest;
        if ("output" in expect) {
          assert.ok("output" in actual && jsonEqual(actual.output, expect.output), JSON.stringify(actual));
        } else {
          const categories = [expect.error.category].flat();
          assert.ok("error" in actual, JSON.stringify(actual));
          assert.equal(actual.error.phase, expect.error.phase);
          assert.ok(categories.includes(actual.error.category), `${actual.error.category} not in ${categories}`);
        }
      });
    }
  }
}

test("the corpus was found and judged", () => {
  assert.ok(judged > 450, `only ${judged} tests judged`);
});
