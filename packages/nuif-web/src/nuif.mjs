// nuif-web: nuif-core's pure-Python twin in WebAssembly (Pyodide), for browsers and Node 20+.
//
//   import { loadNuif } from "nuif-web";
//   const nuif = await loadNuif({ wheel: "/nuif_core-0.1.0-py3-none-any.whl" });
//   nuif.canonicalize('{"nuif": 0, "root": {"id": "r", "kind": "screen"}}').hash
//   nuif.validate(text, { catalog }).diagnostics   // with a kind catalog's text (NUIF-0 §9)
//
// Strings and plain objects in and out. A NUIF failure throws NuifError (code, message,
// pointer, line, column); its toJSON() is the plain object every other surface reports.
// The pure wheel is unpacked into Pyodide's file system and imported: no micropip, no network
// beyond the URLs given here. Reference: docs/web.md.

/** The Pyodide release this module is built and tested against (package.json pins it). */
export const PYODIDE_VERSION = "314.0.8";

// The Python side: each call returns one JSON text, {"ok": value} or {"error": {...}}.
const BRIDGE = String.raw`
import json as _json

import nuif_core as _core
from nuif_core import NuifError as _NuifError


def _answer(fn):
    try:
        return _json.dumps({"ok": fn()}, ensure_ascii=False)
    except _NuifError as err:
        return _json.dumps({"error": err.to_dict()}, ensure_ascii=False)


def validate(text, max_diagnostics, catalog):
    return _answer(
        lambda: _core.validate(text, max_diagnostics=max_diagnostics, catalog=catalog).to_dict()
    )


def inspect(text, max_outline_nodes):
    return _answer(
        lambda: _core.inspect(text, max_outline_nodes=max_outline_nodes).to_dict()
    )


def canonicalize(text):
    return _answer(lambda: _core.canonicalize(text).to_dict())


def apply_patch(text, patch, inverse, catalog):
    return _answer(
        lambda: _core.apply_patch(text, patch, inverse=inverse, catalog=catalog).to_dict()
    )


def basic_catalog():
    from nuif_core import catalogs as _catalogs

    return _catalogs.basic_text()


def diff(a, b):
    return _answer(lambda: _core.diff(a, b).decode("utf-8"))


def about():
    return _json.dumps({"version": _core.__version__, "implementation": _core.IMPLEMENTATION})
`;

/** A NUIF failure: a stable code, a message to act on, and where (all as in nuif_core). */
export class NuifError extends Error {
  constructor({ code, message, pointer = null, line = null, column = null }) {
    super(message);
    this.name = "NuifError";
    this.code = code;
    this.pointer = pointer;
    this.line = line;
    this.column = column;
  }

  /** ``at /p, line L column C`` (empty when nothing is known), as Python's ``location()``. */
  location() {
    const parts = [];
    if (this.pointer !== null) parts.push(this.pointer ? `at ${this.pointer}` : "at the top level");
    if (this.line !== null) parts.push(`line ${this.line} column ${this.column}`);
    return parts.join(", ");
  }

  /** ``CODE: message (at …)``: the text ``str(error)`` gives in Python. */
  toString() {
    const where = this.location();
    return `${this.code}: ${this.message}` + (where ? ` (${where})` : "");
  }

  /** The plain object every surface reports: {code, message, pointer, line, column}. */
  toJSON() {
    const { code, message, pointer, line, column } = this;
    return { code, message, pointer, line, column };
  }
}

const IN_NODE =
  typeof process !== "undefined" && !!process.versions?.node && typeof window === "undefined";

function report(onProgress, stage, message) {
  if (onProgress) onProgress({ stage, message });
}

async function wheelBytes(wheel) {
  if (wheel instanceof Uint8Array) return wheel;
  if (wheel instanceof ArrayBuffer) return new Uint8Array(wheel);
  if (typeof wheel !== "string" && !(wheel instanceof URL)) {
    throw new TypeError("loadNuif: `wheel` is the pure nuif-core wheel: a URL, a path or its bytes");
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

function requireString(name, value) {
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string (the NUIF text), not ${typeof value}`);
  }
}

function requirePositiveInt(name, value, min) {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
}

/**
 * Start Pyodide, unpack the pure nuif-core wheel into its site-packages and import it.
 *
 * options.wheel       the pure wheel (nuif_core-<v>-py3-none-any.whl): URL, path (Node) or bytes
 * options.indexURL    where Pyodide's files are served (a folder URL ending in "/"); without it
 *                     the "pyodide" package is imported (Node, or a bundler that resolves it)
 * options.onProgress  called with {stage, message} at each step of the start
 */
export async function loadNuif({ wheel, indexURL, onProgress } = {}) {
  if (wheel === undefined) {
    throw new TypeError("loadNuif: `wheel` (the pure nuif-core wheel) is required");
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
  const nuif = makeApi(bridge, about);
  report(onProgress, "ready", `nuif-core ${about.version} (${about.implementation} codec) is ready`);
  return nuif;
}

function unwrap(answer) {
  const result = JSON.parse(answer);
  if ("error" in result) throw new NuifError(result.error);
  return result.ok;
}

function optionalString(name, value) {
  if (value === undefined || value === null) return undefined; // Python's None
  requireString(name, value);
  return value;
}

function makeApi(bridge, about) {
  return Object.freeze({
    /** nuif-core's version (the wheel's). */
    version: about.version,
    /** "python": the pure-Python twin (the only codec that runs in Pyodide). */
    implementation: about.implementation,

    validate(text, { maxDiagnostics = 100, catalog } = {}) {
      requireString("validate: text", text);
      requirePositiveInt("validate: maxDiagnostics", maxDiagnostics, 1);
      const catalogText = optionalString("validate: catalog", catalog);
      return unwrap(bridge.validate(text, maxDiagnostics, catalogText));
    },

    inspect(text, { maxOutlineNodes = 100 } = {}) {
      requireString("inspect: text", text);
      requirePositiveInt("inspect: maxOutlineNodes", maxOutlineNodes, 0);
      return unwrap(bridge.inspect(text, maxOutlineNodes));
    },

    canonicalize(text) {
      requireString("canonicalize: text", text);
      return unwrap(bridge.canonicalize(text));
    },

    applyPatch(text, patch, { inverse = false, catalog } = {}) {
      requireString("applyPatch: text", text);
      requireString("applyPatch: patch", patch);
      const catalogText = optionalString("applyPatch: catalog", catalog);
      return unwrap(bridge.apply_patch(text, patch, !!inverse, catalogText));
    },

    diff(a, b) {
      requireString("diff: a", a);
      requireString("diff: b", b);
      return unwrap(bridge.diff(a, b));
    },

    /** The text of the basic kind catalog nuif-core ships (nuif_core.catalogs.basic_text()). */
    basicCatalog() {
      return bridge.basic_catalog();
    },
  });
}
