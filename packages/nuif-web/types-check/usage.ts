// Compiled by tests/web/test_web_package.py (`tsc -p types-check`, strict): the types of
// src/nuif.d.ts accept the documented use and refuse the wrong one (each @ts-expect-error line
// must be an error, or tsc fails).
import { loadNuif, NuifError, PythonRequiredError, PYODIDE_VERSION, VERSION } from "nuif-web";
import type { Diagnostic, Inspection, Nuif, PatchResult, Progress, ValidationReport } from "nuif-web";

const version: string = PYODIDE_VERSION + VERSION;

async function use(): Promise<void> {
  const stages: Progress["stage"][] = [];
  const nuif: Nuif = await loadNuif({
    wheel: new Uint8Array(0),
    indexURL: "/pyodide/",
    onProgress: (p: Progress) => stages.push(p.stage),
  });
  const core: Nuif = await loadNuif();
  const canonical: string = core.canonicalJson(new Uint8Array(0)) + core.canonicalJson("[]");
  const bytes: Uint8Array = core.canonicalJsonBytes("{}");
  if (!core.pythonReady) await core.enablePython({ wheel: "/nuif_core.whl", indexURL: "/pyodide/" });
  await loadNuif({ wasm: new URL("/nuif_core.wasm", "file:///srv/") });
  const report: ValidationReport = nuif.validate("{}", { maxDiagnostics: 10 });
  const first: Diagnostic | undefined = report.diagnostics[0];
  const line: number | null = first ? first.line : null;
  const summary: Inspection = nuif.inspect("{}", { maxOutlineNodes: 5 });
  const depth: number = summary.outline.nodes[0].depth;
  const hash: string = nuif.canonicalize("{}").hash;
  const result: PatchResult = nuif.applyPatch("{}", "{}", { inverse: true });
  const inverse: string | null = result.inverse;
  const patch: string = nuif.diff("{}", "{}");
  const checked: ValidationReport = nuif.validate("{}", { catalog: '{"nuif_catalog": 0, "kinds": {}}' });
  nuif.applyPatch("{}", "{}", { catalog: null });
  try {
    nuif.canonicalize("{");
  } catch (err) {
    if (err instanceof PythonRequiredError) console.log(err.operation);
    if (err instanceof NuifError) {
      const plain: Diagnostic = err.toJSON();
      const where: string = err.location();
      console.log(plain.code, err.pointer, err.column, where, String(err));
    }
  }
  // @ts-expect-error: the text is a string
  nuif.canonicalize(5);
  // @ts-expect-error: a patch is text, not an object
  nuif.applyPatch("{}", { nuif_patch: 0 });
  // @ts-expect-error: enablePython needs the wheel
  await core.enablePython({});
  // @ts-expect-error: the text is a string or bytes, not an object
  core.canonicalJson({ a: 1 });
  // @ts-expect-error: no such option
  nuif.validate("{}", { maxDiagnostic: 1 });
  // @ts-expect-error: a catalog is its text, not an object
  nuif.validate("{}", { catalog: { nuif_catalog: 0 } });
  // @ts-expect-error: the result is read-only data, not a promise
  await nuif.diff("{}", "{}").then(() => {});
  console.log(version, line, depth, hash, inverse, patch, checked.valid, canonical, bytes.length);
}

void use();
