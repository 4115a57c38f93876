// A protocol adapter (conformance/PROTOCOL.md, versions 1 and 2) for an implementation written in JavaScript.
// No dependencies.
// The implementers' kit has it as conformance/adapters/node/adapter.mjs; copy it beside your implementation.
//
//   node adapter.mjs path/to/module.mjs [--export parse] [--features a,b] [--name NAME] [--version V]
//
// or, from your own entry point:
//
//   import { serve } from "./adapter.mjs";
//   serve({ parse, name: "mine", version: "1.0.0", features: ["regex-lookaround"] });
//
// `parse(schema, text)` returns the message or throws (a test with tools, SPEC.md section 15, calls
// `parse(schema, text, { tools })`: declare the feature typed-arguments). An error with string `phase` and `category` properties
// is a categorized error result; anything else thrown is an error result with only a message (declare
// `categorizesErrors: false` when none of your errors are categorized). The module form reads the exports
// `parse` (or --export), `FEATURES`, `NAME`, `VERSION`, `CATEGORIZES_ERRORS` and `STREAM`. Given `stream(schema,
// prefix)` (the export `STREAM`), which opens a stream with `feed(text)`, `finish()` and `message` (SPEC.md
// section 14), the adapter answers protocol 2 and its `stream` command (a request with tools calls
// `stream(schema, prefix, { tools })`).
//
// What it takes care of: one JSON line per answer; stdout kept for the protocol (console output and writes to
// process.stdout by the implementation go to stderr); results JSON cannot hold (NaN, infinities, undefined,
// functions, BigInt, values nested deeper than 512) answered as {"unrepresentable": "..."}, never silently
// changed by JSON.stringify; lone surrogates written as \uXXXX escapes.
import { Buffer } from "node:buffer";
import { realpathSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const MAX_DEPTH = 512;

/** Why a value cannot be written as JSON, or "" when it can. Iterative: any depth. */
export function unrepresentable(value) {
  const stack = [[value, "", 0]];
  while (stack.length > 0) {
    const [item, path, depth] = stack.pop();
    const where = path || '""';
    if (item === null || typeof item === "string" || typeof item === "boolean") continue;
    if (typeof item === "number") {
      if (!Number.isFinite(item)) return `${item} at ${where}`;
      continue;
    }
    if (item === undefined) return `undefined at ${where}`;
    if (typeof item !== "object") return `a ${typeof item} at ${where}`;
    if (depth >= MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels at ${where}`;
    if (Array.isArray(item)) {
      for (let index = 0; index < item.length; index++) stack.push([item[index], `${path}/${index}`, depth + 1]);
      continue;
    }
    const prototype = Object.getPrototypeOf(item);
    if (prototype !== Object.prototype && prototype !== null)
      return `a ${item.constructor?.name ?? "non-plain"} object at ${where}`;
    for (const [key, child] of Object.entries(item)) {
      stack.push([child, `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, depth + 1]);
    }
  }
  return "";
}

function result(parse, schema, test) {
  // a test with tools (SPEC.md section 15, feature typed-arguments) is parse(schema, text, { tools })
  return outcome(() =>
    test.tools === undefined ? parse(schema, test.input) : parse(schema, test.input, { tools: test.tools }),
  );
}

/** A run result: what `work()` returned, or the error it threw. */
function outcome(work) {
  let output;
  try {
    output = work();
  } catch (error) {
    const message = String(error?.message ?? error);
    if (typeof error?.phase === "string" && typeof error?.category === "string") {
      return { error: { phase: error.phase, category: error.category, message } };
    }
    return { error: { message: `${error?.name ?? "Error"}: ${message}` } };
  }
  const problem = unrepresentable(output === undefined ? null : output);
  return problem ? { unrepresentable: problem } : { output: output === undefined ? null : output };
}

/** One stream of a `stream` request: the partial value after each chunk (null: nothing sent), and the end. */
function streamed(stream, schema, prefix, tools, chunks) {
  const partials = [];
  const end = outcome(() => {
    const open = tools === undefined ? stream(schema, prefix) : stream(schema, prefix, { tools });
    for (const chunk of chunks) {
      open.feed(chunk);
      const problem = unrepresentable(open.message === undefined ? null : open.message);
      if (problem) throw new Error(`a partial value JSON cannot hold: ${problem}`);
      partials.push(open.message ?? null); // a value the stream does not change
    }
    open.finish();
    return open.message;
  });
  while (partials.length < chunks.length) partials.push(partials.length ? partials[partials.length - 1] : null);
  return { partials, end };
}

/** Writes all of `text` to `fd`, waiting while a pipe is full: Node makes a piped stdout non-blocking, so a large
 * answer to a harness that reads slowly meets EAGAIN, which must not lose the answer's tail. */
function writeAll(fd, text) {
  const bytes = Buffer.from(text, "utf8");
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let offset = 0; offset < bytes.length; ) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 2); // 2 ms, then try again
    }
  }
}

/** Answers protocol requests on stdin until shutdown or the end of input. */
export function serve({
  parse,
  stream,
  name,
  version = "",
  language = "javascript",
  features = [],
  categorizesErrors = true,
}) {
  const send = (message) => writeAll(1, JSON.stringify(message) + "\n");
  // The implementation's own output must not reach the protocol stream.
  const toStderr = (...args) => process.stderr.write(args.map(String).join(" ") + "\n");
  console.log = console.info = console.debug = toStderr;
  process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      process.stderr.write(`adapter: not a JSON line: ${line.slice(0, 80)}\n`);
      return;
    }
    if (request.cmd === "hello") {
      const offered = Array.isArray(request.protocols) && request.protocols.includes(2);
      send({
        protocol: stream && offered ? 2 : 1,
        implementation: { name, version, language },
        features,
        categorizes_errors: categorizesErrors,
      });
    } else if (request.cmd === "run") {
      send({ seq: request.seq, results: request.tests.map((test) => result(parse, request.schema, test)) });
    } else if (request.cmd === "stream" && stream) {
      const results = request.chunkings.map((chunks) =>
        streamed(stream, request.schema, request.prefix, request.tools, chunks),
      );
      send({ seq: request.seq, results });
    } else if (request.cmd === "shutdown") {
      lines.close();
      process.exit(0);
    } else {
      process.stderr.write(`adapter: unknown request ${JSON.stringify(request.cmd)}\n`);
    }
  });
}

async function main(argv) {
  const options = { export: "parse" };
  const positional = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg.startsWith("--")) options[arg.slice(2)] = argv[++index];
    else positional.push(arg);
  }
  if (positional.length !== 1) {
    process.stderr.write("usage: node adapter.mjs MODULE [--export parse] [--features a,b] [--name N] [--version V]\n");
    process.exit(2);
  }
  const module = await import(pathToFileURL(resolve(positional[0])).href);
  const parse = module[options.export];
  if (typeof parse !== "function") {
    process.stderr.write(`adapter: ${positional[0]} exports no function ${options.export}\n`);
    process.exit(2);
  }
  serve({
    parse,
    stream: typeof module.STREAM === "function" ? module.STREAM : undefined,
    name: options.name ?? module.NAME ?? positional[0],
    version: options.version ?? module.VERSION ?? "",
    features: options.features !== undefined ? options.features.split(",").filter(Boolean) : (module.FEATURES ?? []),
    categorizesErrors: module.CATEGORIZES_ERRORS ?? true,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await main(process.argv.slice(2));
}
