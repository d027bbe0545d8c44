#!/usr/bin/env node
// nuif-web-lines: the nuif-web module behind JSON lines on stdin/stdout (one Pyodide for many
// requests). Used by the test suite (tests/web) and the benchmark (benchmarks/bench_web.py);
// also a way for any program to reach the Pyodide build of nuif-core.
//
//   node bin/nuif-web-lines.mjs WHEEL
//
// First line out: {"ready": {"version", "implementation", "pyodide", "start_ms"}}.
// Each line in: {"id": any, "op": "validate"|"inspect"|"canonicalize"|"applyPatch"|"diff",
//                "args": [...]}
//            or {"id": any, "op": "time", "args": ["canonicalize", TEXT, N]} (N calls, timed
//                here with performance.now(): milliseconds per call, no pipe cost)
// Each line out: {"id", "ok": result} | {"id", "error": {code, message, pointer, line, column}}
//             | {"id", "throw": {"name", "message"}} (a JavaScript error: bad arguments)
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";

import { PYODIDE_VERSION, NuifError, loadNuif } from "../src/nuif.mjs";

const OPS = ["validate", "inspect", "canonicalize", "applyPatch", "diff"];

function write(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const [wheel] = process.argv.slice(2);
if (!wheel) {
  process.stderr.write("usage: nuif-web-lines.mjs WHEEL (the pure nuif-core wheel)\n");
  process.exit(2);
}
const started = performance.now();
let nuif;
try {
  nuif = await loadNuif({ wheel });
} catch (err) {
  process.stderr.write(`nuif-web-lines: ${err.message}\n`);
  process.exit(1);
}
write({
  ready: {
    version: nuif.version,
    implementation: nuif.implementation,
    pyodide: PYODIDE_VERSION,
    start_ms: performance.now() - started,
  },
});

function answer(request) {
  const { id, op, args = [] } = request;
  try {
    if (op === "time") {
      const [name, text, count] = args;
      if (!OPS.includes(name) || !Number.isInteger(count) || count < 1) {
        throw new TypeError("time: args are [operation, text, number of calls]");
      }
      nuif[name](text); // warm-up, and the call must succeed
      const t0 = performance.now();
      for (let i = 0; i < count; i++) nuif[name](text);
      return { id, ok: { ms_per_call: (performance.now() - t0) / count, calls: count } };
    }
    if (!OPS.includes(op)) throw new TypeError(`unknown op ${JSON.stringify(op)}`);
    return { id, ok: nuif[op](...args) };
  } catch (err) {
    if (err instanceof NuifError) return { id, error: err.toJSON() };
    return { id, throw: { name: err.name, message: err.message } };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    write({ id: null, throw: { name: "SyntaxError", message: err.message } });
    continue;
  }
  write(answer(request));
}
