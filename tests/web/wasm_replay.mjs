// Answers requests to nuif-web's WebAssembly core for tests/web/test_wasm_core.py: a file of JSON
// lines in (argv[2]), one JSON line out per request (argv[3]).  A request is {op, text} or
// {op, b64} (bytes), with `max` for validate's maxDiagnostics and inspect's maxOutlineNodes; an
// answer is {ok: value} or {error: {code, message, pointer, line, column}}.  argv[4] "module"
// hashes in the module instead of node:crypto.
import { readFileSync, writeFileSync } from "node:fs";
import { loadCore, NuifError } from "../../packages/nuif-web/src/core.mjs";

const core = await loadCore({ hash: process.argv[4] });
const out = [];
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (!line) continue;
  const { op, text, b64, max } = JSON.parse(line);
  const input = b64 === undefined ? text : new Uint8Array(Buffer.from(b64, "base64"));
  try {
    let value;
    if (op === "canonicalJson") value = core.canonicalJson(input);
    else if (op === "validate") value = core.validate(input, max ?? 100);
    else if (op === "canonicalize") value = core.canonicalize(input);
    else if (op === "inspect") value = core.inspect(input, max ?? 100);
    else throw new Error(`unknown op ${op}`);
    out.push(JSON.stringify({ ok: value }));
  } catch (err) {
    if (!(err instanceof NuifError)) throw err;
    out.push(JSON.stringify({ error: err.toJSON() }));
  }
}
writeFileSync(process.argv[3], out.join("\n") + "\n");
