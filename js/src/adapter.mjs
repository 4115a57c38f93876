// A protocol-v1 adapter (conformance/PROTOCOL.md) for an implementation written in JavaScript. No dependencies.
// The implementers' kit has it as conformance/adapters/node/adapter.mjs; copy it beside your implementation.
//
//   node adapter.mjs path/to/module.mjs [--export parse] [--features a,b] [--name NAME] [--version V]
//
// or, from your own entry point:
//
//   import { serve } from "./adapter.mjs";
//   serve({ parse, name: "mine", version: "1.0.0", features: ["regex-lookaround"] });
//
// `parse(schema, text)` returns the message or throws. An error with string `phase` and `category` properties
// is a categorized error result; anything else thrown is an error result with only a message (declare
// `categorizesErrors: false` when none of your errors are categorized). The module form reads the exports
// `parse` (or --export), `FEATURES`, `NAME`, `VERSION` and `CATEGORIZES_ERRORS`.
//
// What it takes care of: one JSON line per answer; stdout kept for the protocol (console output and writes to
// process.stdout by the implementation go to stderr); results JSON cannot hold (NaN, infinities, undefined,
// functions, BigInt, values nested deeper than 512) answered as {"unrepresentable": "..."}, never silently
// changed by JSON.stringify; lone surrogates written as \uXXXX escapes.
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

function result(parse, schema, text) {
  let output;
  try {
    output = parse(schema, text);
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

/** Answers protocol requests on stdin until shutdown or the end of input. */
export function serve({ parse, name, version = "", language = "javascript", features = [], categorizesErrors = true }) {
  const send = (message) => writeSync(1, JSON.stringify(message) + "\n");
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
      send({
        protocol: 1,
        implementation: { name, version, language },
        features,
        categorizes_errors: categorizesErrors,
      });
    } else if (request.cmd === "run") {
      send({ seq: request.seq, results: request.tests.map((test) => result(parse, request.schema, test.input)) });
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
    name: options.name ?? module.NAME ?? positional[0],
    version: options.version ?? module.VERSION ?? "",
    features: options.features !== undefined ? options.features.split(",").filter(Boolean) : (module.FEATURES ?? []),
    categorizesErrors: module.CATEGORIZES_ERRORS ?? true,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await main(process.argv.slice(2));
}
