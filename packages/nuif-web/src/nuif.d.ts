// Types of nuif-web (src/nuif.mjs). Reference: docs/web.md.

/** The Pyodide release nuif-web is built and tested against. */
export declare const PYODIDE_VERSION: string;

/** nuif-core's version (every component of a release has the same). */
export declare const VERSION: string;

/** A NUIF text: a string, or its UTF-8 bytes. */
export type Text = string | Uint8Array;

/** Where a problem is: a JSON Pointer into the input, and a 1-based line and column (characters). */
export interface NuifLocation {
  pointer: string | null;
  line: number | null;
  column: number | null;
}

/** One problem, as every NUIF surface reports it. */
export interface Diagnostic extends NuifLocation {
  /** A stable NUIF_* code (docs/errors.md). */
  code: string;
  message: string;
}

/** A NUIF failure, thrown by every operation but `validate`. */
export declare class NuifError extends Error implements Diagnostic {
  constructor(diagnostic: Diagnostic);
  readonly name: "NuifError";
  code: string;
  message: string;
  pointer: string | null;
  line: number | null;
  column: number | null;
  /** `at /p, line L column C` (empty when nothing is known). */
  location(): string;
  /** `CODE: message (at …)`, the text Python's `str(error)` gives. */
  toString(): string;
  /** The plain object: {code, message, pointer, line, column}. */
  toJSON(): Diagnostic;
}

/** What an operation that runs in Pyodide throws while Python is not loaded. */
export declare class PythonRequiredError extends Error {
  constructor(operation: string);
  readonly name: "PythonRequiredError";
  /** "applyPatch", "diff", "basicCatalog" or "validate with a catalog". */
  operation: string;
}

export interface ValidationReport {
  valid: boolean;
  /** `sha256:<hex>` of the canonical text when valid, else null. */
  hash: string | null;
  diagnostics: Diagnostic[];
  /** More diagnostics existed than `maxDiagnostics` allowed. */
  truncated: boolean;
}

export interface CanonicalResult {
  /** The canonical text (RFC 8785 over the normalized document). */
  canonical: string;
  hash: string;
  /** The input differed from the canonical text. */
  changed: boolean;
}

export interface OutlineEntry {
  id: string;
  kind: string;
  /** The root is 1. */
  depth: number;
  children: number;
}

export interface Inspection {
  hash: string;
  is_canonical: boolean;
  input_bytes: number;
  canonical_bytes: number;
  node_count: number;
  max_depth: number;
  /** Nodes per kind, sorted by kind. */
  kinds: Record<string, number>;
  root: { id: string; kind: string };
  outline: { nodes: OutlineEntry[]; truncated: boolean };
}

export interface PatchCounts {
  transactions: number;
  operations: number;
  nodes_inserted: number;
  nodes_removed: number;
  nodes_moved: number;
  attrs_set: number;
  attrs_unset: number;
  attrs_edited: number;
}

export interface PatchResult {
  /** The new document's canonical text. */
  document: string;
  hash: string;
  /** The hash of the document the patch was applied to. */
  base: string;
  changed: boolean;
  counts: PatchCounts;
  /** The inverse patch's canonical text when `inverse: true` was asked, else null. */
  inverse: string | null;
}

export interface Progress {
  stage: "core" | "runtime" | "wheel" | "install" | "import" | "ready";
  message: string;
}

export interface PythonOptions {
  /** The pure wheel nuif_core-<v>-py3-none-any.whl: a URL, a file path (Node) or its bytes. */
  wheel: string | URL | Uint8Array | ArrayBuffer;
  /** The folder URL Pyodide's files are served from (in a page: relative to it); omitted: `import("pyodide")`. */
  indexURL?: string;
  onProgress?: (progress: Progress) => void;
}

export interface LoadOptions extends Partial<PythonOptions> {
  /** nuif_core.wasm: a URL, a file path (Node) or its bytes; default: the file beside nuif.mjs. */
  wasm?: string | URL | Uint8Array | ArrayBuffer;
}

export interface Nuif {
  /** nuif-core's version. */
  readonly version: string;
  /** "wasm": the C core compiled to WebAssembly. */
  readonly implementation: string;
  /** Pyodide is loaded: applyPatch, diff, basicCatalog and catalogs work. */
  readonly pythonReady: boolean;
  /** Start Pyodide with the pure wheel (once: later calls share the first start). */
  enablePython(options: PythonOptions): Promise<void>;
  /** Every problem of a document (never throws a NuifError); with `catalog` (a kind catalog's
   * text, NUIF-0 §9, which needs Python) the catalog's problems too. */
  validate(
    text: Text,
    options?: { maxDiagnostics?: number; catalog?: Text | null },
  ): ValidationReport;
  inspect(text: Text, options?: { maxOutlineNodes?: number }): Inspection;
  canonicalize(text: Text): CanonicalResult;
  /** The RFC 8785 canonical text of any strict I-JSON text (nuif_core.canonical_json). */
  canonicalJson(text: Text): string;
  /** canonicalJson's UTF-8 bytes. */
  canonicalJsonBytes(text: Text): Uint8Array;
  /** Needs Python. With `catalog`, a patch whose result breaks that kind catalog throws (nothing applied). */
  applyPatch(
    text: Text,
    patch: Text,
    options?: { inverse?: boolean; catalog?: Text | null },
  ): PatchResult;
  /** Needs Python. The canonical text of the patch that turns `a` into `b`. */
  diff(a: Text, b: Text): string;
  /** Needs Python. The text of the basic kind catalog nuif-core ships (a starting point to copy). */
  basicCatalog(): string;
}

/** Compile the WebAssembly core; with `wheel`, also start Pyodide (as `enablePython`). */
export declare function loadNuif(options?: LoadOptions): Promise<Nuif>;
