#!/usr/bin/env node
// nuif-web-lines: the nuif-web module behind JSON lines on stdin/stdout (one module, and one
// Pyodide when a wheel is given, for many requests). Used by the test suite (tests/web) and the
// benchmarks (benchmarks/bench_web.py); also a way for any program to reach nuif-web.
//
//   node bin/nuif-web-lines.mjs [WHEEL]
//
// Without WHEEL only the WebAssembly core's operations answer (the others throw
// PythonRequiredError).
// First line out: {"ready": {"version", "implementation", "python", "pyodide", "start_ms"}}
// (python: whether Pyodide is loaded).
// Each line in: {"id": any, "op": "validate"|"inspect"|"canonicalize"|"canonicalJson"|"applyPatch"|
//                "diff"|"basicCatalog", "args": [...]}
//            or {"id": any, "op": "store", "args": [NAME, TEXT]} (keep a text here), then
//               {"id": any, "op": "repeat", "args": [OP, NAME, N]}: N calls of OP on the stored
//                text, timed here (performance.now()), answered {calls, ms_per_call, hash} (the last result's hash)
//                (the benchmark's way: no text crosses the pipe per call)
// Each line out: {"id", "ok": result} | {"id", "error": {code, message, pointer, line, column}}
//             | {"id", "throw": {"name", "message"}} (a JavaScript error: bad arguments)
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";

import { PYODIDE_VERSION, NuifError, loadNuif } from "../src/nuif.mjs";

const OPS = ["validate", "inspect", "canonicalize", "canonicalJson", "applyPatch", "diff", "basicCatalog"];
const REPEATED = ["validate", "inspect", "canonicalize", "canonicalJson"];
const stored = new Map();

function write(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const [wheel, ...rest] = process.argv.slice(2);
if (rest.length > 0) {
  process.stderr.write("usage: nuif-web-lines.mjs [WHEEL] (the pure nuif-core wheel)\n");
  process.exit(2);
}
const started = performance.now();
let nuif;
try {
  nuif = await loadNuif(wheel === undefined ? {} : { wheel });
} catch (err) {
  process.stderr.write(`nuif-web-lines: ${err.message}\n`);
  process.exit(1);
}
write({
  ready: {
    version: nuif.version,
    implementation: nuif.implementation,
    python: nuif.pythonReady,
    pyodide: PYODIDE_VERSION,
    start_ms: performance.now() - started,
  },
});

function answer(request) {
  const { id, op, args = [] } = request;
  try {
    if (op === "store") {
      const [name, text] = args;
      if (typeof name !== "string" || typeof text !== "string") {
        throw new TypeError("store: args are [name, text]");
      }
      stored.set(name, text);
      return { id, ok: { name, length: text.length } };
    }
    if (op === "repeat") {
      const [name, key, count] = args;
      if (!REPEATED.includes(name) || !stored.has(key) || !Number.isInteger(count) || count < 1) {
        throw new TypeError(`repeat: args are [${REPEATED.join("|")}, stored name, calls]`);
      }
      const text = stored.get(key);
      let last;
      const t0 = performance.now();
      for (let i = 0; i < count; i++) last = nuif[name](text);
      const ms = performance.now() - t0;
      // the answer's hash, or (canonicalJson) the length of the canonical text
      const hash = typeof last === "string" ? last.length : last.hash;
      return { id, ok: { calls: count, ms_per_call: ms / count, hash } };
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
