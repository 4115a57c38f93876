#!/usr/bin/env node
// The JavaScript implementation speaking protocol v1 (conformance/PROTOCOL.md), through the kit's Node adapter.
import { serve } from "../src/adapter.mjs";
import { FEATURES, VERSION, parse } from "../src/index.js";

serve({ parse, name: "response-schema-js", version: VERSION, features: [...FEATURES] });
