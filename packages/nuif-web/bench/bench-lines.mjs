#!/usr/bin/env node
// bench-lines: nuif-web's WebAssembly core and its npm peers behind JSON lines, for
// benchmarks/bench_web.py (not shipped: the peers are development dependencies).
//
//   node bench/bench-lines.mjs
//
// First line out: {"ready": {"version", "start_ms"}} (start_ms: loadNuif() without Python).
// Each line in:  {"id", "op": "store", "args": [NAME, TEXT]}       keep a text here
//                {"id", "op": "repeat", "args": [IMPL, NAME, N, CHECK]}  N calls of IMPL on it
// Each line out: {"id", "ok": {calls, ms_per_call, bytes, sha256}}: with CHECK true, the last
//                output's UTF-8 length and SHA-256, to check that the implementation did the work
//                claimed (computed after the calls; null without CHECK, so that a timed round
//                does nothing else)
//              | {"id", "throw": {"name", "message"}}
//
// IMPL is one of
//   canonicalJson        nuif.canonicalJson(text): strict I-JSON parse and RFC 8785, a string out
//   canonicalJson-bytes  the same on the text's UTF-8 bytes (a Uint8Array in)
//   canonicalize         nuif.canonicalize(text): the document's §3 checks, canonical text and hash
//   npm-canonicalize     canonicalize(JSON.parse(text)) (npm `canonicalize`)
//   json-canonicalize    canonicalize(JSON.parse(text)) (npm `json-canonicalize`)
//   json-parse-stringify JSON.stringify(JSON.parse(text)): no sorting, no checks (a floor)
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";

import canonicalizeNpm from "canonicalize";
import { canonicalize as jsonCanonicalize } from "json-canonicalize";

import { loadNuif } from "../src/nuif.mjs";

const started = performance.now();
const nuif = await loadNuif();
const startMs = performance.now() - started;
const encoder = new TextEncoder();

const IMPLS = {
  canonicalJson: (s) => nuif.canonicalJson(s.text),
  "canonicalJson-bytes": (s) => nuif.canonicalJsonBytes(s.bytes),
  canonicalize: (s) => nuif.canonicalize(s.text).canonical,
  "npm-canonicalize": (s) => canonicalizeNpm(JSON.parse(s.text)),
  "json-canonicalize": (s) => jsonCanonicalize(JSON.parse(s.text)),
  "json-parse-stringify": (s) => JSON.stringify(JSON.parse(s.text)),
};
const stored = new Map();

function write(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function answer({ id, op, args = [] }) {
  try {
    if (op === "store") {
      const [name, text] = args;
      if (typeof name !== "string" || typeof text !== "string") throw new TypeError("store: [name, text]");
      stored.set(name, { text, bytes: encoder.encode(text) });
      return { id, ok: { name, length: text.length } };
    }
    if (op !== "repeat") throw new TypeError(`unknown op ${JSON.stringify(op)}`);
    const [impl, name, count, check = false] = args;
    const fn = IMPLS[impl];
    if (!fn || !stored.has(name) || !Number.isInteger(count) || count < 1) {
      throw new TypeError(`repeat: [${Object.keys(IMPLS).join("|")}, stored name, calls]`);
    }
    const input = stored.get(name);
    let last;
    const t0 = performance.now();
    for (let i = 0; i < count; i++) last = fn(input);
    const ms = performance.now() - t0;
    if (!check) return { id, ok: { calls: count, ms_per_call: ms / count, bytes: null, sha256: null } };
    const bytes = typeof last === "string" ? encoder.encode(last) : last;
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    return { id, ok: { calls: count, ms_per_call: ms / count, bytes: bytes.length, sha256 } };
  } catch (err) {
    return { id, throw: { name: err.name, message: err.message } };
  }
}

write({ ready: { version: nuif.version, start_ms: startMs } });
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim()) write(answer(JSON.parse(line)));
}
