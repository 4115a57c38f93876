#!/usr/bin/env node
// The JavaScript implementation speaking protocol 2 (conformance/PROTOCOL.md), through the kit's Node adapter.
import { serve } from "../src/adapter.mjs";
import { FEATURES, VERSION, parse, stream } from "../src/index.js";

serve({
  parse,
  stream: (schema, prefix, options = {}) => stream(schema, { ...options, prefix }),
  name: "response-schema-js",
  version: VERSION,
  features: [...FEATURES],
});
