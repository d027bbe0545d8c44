// nuif-web: nuif-core for JavaScript, in browsers and Node 20+.
//
//   import { loadNuif } from "nuif-web";
//   const nuif = await loadNuif();                 // the C core as WebAssembly: milliseconds
//   nuif.canonicalize('{"nuif": 0, "root": {"id": "r", "kind": "screen"}}').hash
//   nuif.canonicalJson('{"b": 1, "a": [1.0, "x"]}')   // any strict I-JSON text, RFC 8785
//   await nuif.enablePython({ wheel: "/nuif_core-0.1.0-py3-none-any.whl" });  // patches, diff, catalogs
//   nuif.validate(text, { catalog }).diagnostics   // with a kind catalog's text (NUIF-0 §9)
//
// validate, inspect, canonicalize and canonicalJson run nuif-core's C pipeline compiled to
// WebAssembly (core.mjs, nuif_core.wasm): synchronous, the Python core's bytes, hashes, codes,
// messages and locations.  applyPatch, diff, basicCatalog and validate with a catalog run the
// pure-Python twin in Pyodide, loaded only when a wheel is given.  Strings (or UTF-8 bytes) and
// plain objects in and out; a NUIF failure throws NuifError (code, message, pointer, line,
// column), whose toJSON() is the plain object every other surface reports.  Nothing is fetched
// beyond the URLs given here.  Reference: docs/web.md.

import { NuifError, loadCore } from "./core.mjs";
import { VERSION } from "./messages.mjs";

export { NuifError };

/** The Pyodide release this module is built and tested against (package.json pins it). */
export const PYODIDE_VERSION = "314.0.8";

/** nuif-core's version, the WebAssembly core's (one release version for every component). */
export { VERSION };

/**
 * What an operation that runs in Pyodide throws while Python is not loaded: give `wheel` to
 * loadNuif, or call `enablePython` first.
 */
export class PythonRequiredError extends Error {
  constructor(operation) {
    super(
      `nuif-web: ${operation} runs nuif-core's Python twin in Pyodide, which is not loaded: ` +
        "pass { wheel } (the pure nuif-core wheel) to loadNuif, or await nuif.enablePython({ wheel }) first",
    );
    this.name = "PythonRequiredError";
    this.operation = operation;
  }
}

// The Python side: each call returns one JSON text, {"ok": value} or {"error": {...}}.  A text
// is a str, or a Uint8Array's proxy whose bytes nuif_core reads as UTF-8.
const BRIDGE = String.raw`
import json as _json

import nuif_core as _core
from nuif_core import NuifError as _NuifError


def _text(value):
    return value.to_bytes() if hasattr(value, "to_bytes") else value


def _answer(fn):
    try:
        return _json.dumps({"ok": fn()}, ensure_ascii=False)
    except _NuifError as err:
        return _json.dumps({"error": err.to_dict()}, ensure_ascii=False)


def validate(text, max_diagnostics, catalog):
    return _answer(
        lambda: _core.validate(
            _text(text), max_diagnostics=max_diagnostics, catalog=_text(catalog)
        ).to_dict()
    )


def apply_patch(text, patch, inverse, catalog):
    return _answer(
        lambda: _core.apply_patch(
            _text(text), _text(patch), inverse=inverse, catalog=_text(catalog)
        ).to_dict()
    )


def basic_catalog():
    from nuif_core import catalogs as _catalogs

    return _catalogs.basic_text()


def diff(a, b):
    return _answer(lambda: _core.diff(_text(a), _text(b)).decode("utf-8"))


def about():
    return _json.dumps({"version": _core.__version__, "implementation": _core.IMPLEMENTATION})
`;

const IN_NODE =
  typeof process !== "undefined" && !!process.versions?.node && typeof window === "undefined";

function report(onProgress, stage, message) {
  if (onProgress) onProgress({ stage, message });
}

async function wheelBytes(wheel) {
  if (wheel instanceof Uint8Array) return wheel;
  if (wheel instanceof ArrayBuffer) return new Uint8Array(wheel);
  if (typeof wheel !== "string" && !(wheel instanceof URL)) {
    throw new TypeError("enablePython: `wheel` is the pure nuif-core wheel: a URL, a path or its bytes");
  }
  const where = String(wheel);
  if (IN_NODE && !/^https?:/.test(where)) {
    const { readFile } = await import("node:fs/promises");
    const { fileURLToPath } = await import("node:url");
    return new Uint8Array(await readFile(where.startsWith("file:") ? fileURLToPath(where) : where));
  }
  const response = await fetch(where);
  if (!response.ok) {
    throw new Error(`loadNuif: the wheel ${where} could not be fetched (HTTP ${response.status})`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

function requireText(name, value) {
  if (typeof value !== "string" && !(value instanceof Uint8Array)) {
    throw new TypeError(
      `${name} must be a string or a Uint8Array (the text, UTF-8), not ${value === null ? "null" : typeof value}`,
    );
  }
}

function optionalText(name, value) {
  if (value === undefined || value === null) return undefined; // Python's None
  requireText(name, value);
  return value;
}

function requirePositiveInt(name, value, min) {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
}

/**
 * Start Pyodide, unpack the pure nuif-core wheel into its site-packages and import it: the
 * bridge the Python operations call.
 */
async function startPython({ wheel, indexURL, onProgress }) {
  if (wheel === undefined) {
    throw new TypeError("enablePython: `wheel` (the pure nuif-core wheel) is required");
  }
  report(onProgress, "runtime", `Loading the Python runtime (Pyodide ${PYODIDE_VERSION})…`);
  const wheelPromise = wheelBytes(wheel);
  wheelPromise.catch(() => {}); // handled by Promise.all below (not "unhandled" meanwhile)
  let loadPyodide;
  if (indexURL !== undefined) {
    let base = String(indexURL).endsWith("/") ? String(indexURL) : `${indexURL}/`;
    // in a page, relative to the page (as a fetch would be), for the import and for Pyodide alike
    if (!IN_NODE && globalThis.location) base = new URL(base, globalThis.location.href).href;
    indexURL = base;
    ({ loadPyodide } = await import(/* @vite-ignore */ `${base}pyodide.mjs`));
  } else {
    ({ loadPyodide } = await import("pyodide"));
  }
  // the wheel is fetched while the runtime starts; a wheel that cannot be had fails at once
  const [pyodide, bytes] = await Promise.all([
    loadPyodide({
      indexURL,
      stdout: () => {},
      stderr: () => {},
      // what the pure wheel means anyway: no build of the compiled codec could be picked up
      env: { NUIF_NO_EXTENSIONS: "1" },
    }),
    wheelPromise.then((wheelData) => {
      report(onProgress, "wheel", `Fetched the nuif-core wheel (${wheelData.length} bytes)`);
      return wheelData;
    }),
  ]);
  if (pyodide.version !== PYODIDE_VERSION) {
    throw new Error(
      `loadNuif: Pyodide ${pyodide.version} was loaded; nuif-web is tested with ${PYODIDE_VERSION}`,
    );
  }
  report(onProgress, "install", "Unpacking the nuif-core wheel into Pyodide's file system…");
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(bytes, "wheel", { extractDir: sitePackages });
  report(onProgress, "import", "Importing nuif_core…");
  const bridge = pyodide.runPython(
    `import types\n_nuif_web = types.ModuleType("_nuif_web")\n` +
      `exec(${JSON.stringify(BRIDGE)}, _nuif_web.__dict__)\n_nuif_web`,
  );
  const about = JSON.parse(bridge.about());
  if (about.version !== VERSION) {
    throw new Error(`loadNuif: the wheel is nuif-core ${about.version}; this nuif-web is ${VERSION}`);
  }
  return { bridge, about };
}

/**
 * nuif-core for JavaScript.  Compiles the WebAssembly core (a few milliseconds); with `wheel`,
 * also starts Pyodide with the pure nuif-core wheel, for applyPatch, diff, basicCatalog and
 * catalogs (else `enablePython` does that later).
 *
 * options.wasm        the module nuif_core.wasm: URL, path (Node) or bytes (default: the file
 *                     beside this one)
 * options.wheel       the pure wheel (nuif_core-<v>-py3-none-any.whl): URL, path (Node) or bytes
 * options.indexURL    where Pyodide's files are served (a folder URL ending in "/"); without it
 *                     the "pyodide" package is imported (Node, or a bundler that resolves it)
 * options.onProgress  called with {stage, message} at each step of the start
 */
export async function loadNuif({ wasm, wheel, indexURL, onProgress } = {}) {
  if (wheel === undefined && indexURL !== undefined) {
    throw new TypeError("loadNuif: `indexURL` is where Pyodide is served; it needs `wheel` (the pure nuif-core wheel)");
  }
  report(onProgress, "core", "Compiling the nuif-core WebAssembly module…");
  const core = await loadCore({ wasm });
  const nuif = makeApi(core);
  if (wheel !== undefined) await nuif.enablePython({ wheel, indexURL, onProgress });
  report(onProgress, "ready", `nuif-core ${VERSION} is ready`);
  return nuif;
}

function unwrap(answer) {
  const result = JSON.parse(answer);
  if ("error" in result) throw new NuifError(result.error);
  return result.ok;
}

function makeApi(core) {
  let python = null; // {bridge, about} once Pyodide has started
  let starting = null; // the start in progress (or done)

  function bridge(operation) {
    if (python === null) throw new PythonRequiredError(operation);
    return python.bridge;
  }

  return Object.freeze({
    /** nuif-core's version. */
    version: VERSION,
    /** "wasm": the C core compiled to WebAssembly answers validate, inspect, canonicalize. */
    implementation: "wasm",

    /** Pyodide and the wheel are loaded: applyPatch, diff, basicCatalog and catalogs work. */
    get pythonReady() {
      return python !== null;
    },

    /**
     * Start Pyodide with the pure wheel.  Calls made while it starts (or after) share that start;
     * after a failed start, a new call tries again.
     */
    enablePython({ wheel, indexURL, onProgress } = {}) {
      if (starting === null) {
        starting = startPython({ wheel, indexURL, onProgress }).then(
          (started) => {
            python = started;
          },
          (err) => {
            starting = null;
            throw err;
          },
        );
      }
      return starting;
    },

    validate(text, { maxDiagnostics = 100, catalog } = {}) {
      requireText("validate: text", text);
      requirePositiveInt("validate: maxDiagnostics", maxDiagnostics, 1);
      const catalogText = optionalText("validate: catalog", catalog);
      if (catalogText === undefined) return core.validate(text, maxDiagnostics);
      return unwrap(bridge("validate with a catalog").validate(text, maxDiagnostics, catalogText));
    },

    inspect(text, { maxOutlineNodes = 100 } = {}) {
      requireText("inspect: text", text);
      requirePositiveInt("inspect: maxOutlineNodes", maxOutlineNodes, 0);
      return core.inspect(text, maxOutlineNodes);
    },

    canonicalize(text) {
      requireText("canonicalize: text", text);
      return core.canonicalize(text);
    },

    canonicalJson(text) {
      requireText("canonicalJson: text", text);
      return core.canonicalJson(text);
    },

    canonicalJsonBytes(text) {
      requireText("canonicalJsonBytes: text", text);
      return core.canonicalJsonBytes(text);
    },

    applyPatch(text, patch, { inverse = false, catalog } = {}) {
      requireText("applyPatch: text", text);
      requireText("applyPatch: patch", patch);
      const catalogText = optionalText("applyPatch: catalog", catalog);
      return unwrap(bridge("applyPatch").apply_patch(text, patch, !!inverse, catalogText));
    },

    diff(a, b) {
      requireText("diff: a", a);
      requireText("diff: b", b);
      return unwrap(bridge("diff").diff(a, b));
    },

    /** The text of the basic kind catalog nuif-core ships (nuif_core.catalogs.basic_text()). */
    basicCatalog() {
      return bridge("basicCatalog").basic_catalog();
    },
  });
}
