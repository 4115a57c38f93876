// The examples of js/README.md run as written (the package name pointed at src/index.js), and print what their
// comments say.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const INDEX = new URL("../src/index.js", import.meta.url).href;
const streaming = README.slice(README.indexOf("## Streaming"), README.indexOf("## What it supports"));
const blocks = [...streaming.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);

test("the streaming examples run, and print what their comments say", async () => {
  assert.equal(blocks.length, 2);
  const folder = mkdtempSync(join(tmpdir(), "readme-"));
  const printed = [];
  const log = console.log;
  console.log = (...values) => printed.push(values.map((value) => inspect(value, { breakLength: Infinity })).join(" "));
  try {
    for (const [index, block] of blocks.entries()) {
      const file = join(folder, `example-${index}.mjs`);
      writeFileSync(file, block.replaceAll('"response-schema-js"', JSON.stringify(INDEX)));
      await import(pathToFileURL(file).href);
    }
  } finally {
    console.log = log;
    rmSync(folder, { recursive: true });
  }
  const said = blocks
    .join("\n")
    .split("\n")
    .flatMap((line) => {
      const comment = /(?:^|; )\/\/ (.*)$/.exec(line.trim());
      return comment ? [comment[1]] : [];
    });
  const values = said.filter((text) => text.startsWith("[") || text.startsWith("{"));
  assert.ok(values.length >= 7, `${values.length} printed values said`);
  for (const line of values) {
    const value = line.replace(/ {2,}.*$/, "");
    assert.ok(
      printed.some((out) => out.replaceAll("\n", " ").includes(value)),
      `${value} not in ${printed.join("\n")}`,
    );
  }
});
