// The corpus's case files, for the tests that read them (no tests here).
import { readdirSync } from "node:fs";
import { join } from "node:path";

const CASES = new URL("../../conformance/cases/", import.meta.url).pathname;

/** Every case file below `folder`. */
export function files(folder = CASES) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(folder, entry.name))
      : entry.name.endsWith(".json")
        ? [join(folder, entry.name)]
        : [],
  );
}
