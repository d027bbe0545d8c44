// nuif-web's WebAssembly core: nuif-core's C pipeline (packages/nuif-core/csrc, built by
// packages/nuif-core/wasm/build.py into nuif_core.wasm beside this file), called synchronously.
// It gives what the Python core gives — bytes, hashes, codes, messages, pointers, lines and
// columns — for canonicalJson, canonicalize, validate (without a catalog) and inspect.  The
// answers' layout is described at the top of packages/nuif-core/wasm/nuif_wasm.c; the messages
// are worded here from nuif_core's templates (messages.mjs, generated from _messages.py).

import { MESSAGES as M } from "./messages.mjs";

/** nuif_core.Limits.DEFAULT: the size, depth and node limits every call here uses. */
export const LIMITS = Object.freeze({
  maxDocumentBytes: 16 * 1024 * 1024,
  maxDepth: 128,
  maxNodes: 250_000,
});

// a call that leaves the module's memory larger than this lets the instance go, and the next
// call starts a fresh one: WebAssembly memory never shrinks, a new instance's starts small
const RESET_BYTES = 64 * 1024 * 1024;

const MODE_JSON = 0;
const MODE_DOCUMENT = 1;
const MODE_HASH = 2;

// csrc/nuif_fault.h's NUIF_FAULT_* and nuif_wasm.c's own two
const EXPECTED = {
  1: M.EXPECT_VALUE,
  2: M.EXPECT_ARRAY_NEXT,
  3: M.EXPECT_OBJECT_NEXT,
  4: M.EXPECT_FIRST_KEY,
  5: M.EXPECT_KEY,
  6: M.EXPECT_COLON,
  7: M.EXPECT_END,
  8: M.EXPECT_DIGIT,
  10: M.EXPECT_STRING_END,
  11: M.EXPECT_ESCAPE,
  12: M.EXPECT_HEX,
};
const F_LITERAL = 9;
const F_CONTROL = 13;
const F_SURROGATE = 14;
const F_NONCHARACTER = 15;
const F_DUPLICATE_KEY = 16;
const F_NUMBER_OVERFLOW = 17;
const F_BIG_INTEGER = 18;
const F_DEPTH = 19;
const F_UTF8 = 100;
const F_BOM = 101;
const LITERALS = { 0x74: "true", 0x66: "false", 0x6e: "null" };

// csrc/nuif_report.h's NUIF_RC_* and NUIF_RP_*, and the JSON types of NUIF_T_*
const REPORT_CODES = [
  "NUIF_SCHEMA",
  "NUIF_VERSION",
  "NUIF_LIMIT_NODES",
  "NUIF_ID",
  "NUIF_DUPLICATE_ID",
  "NUIF_KIND",
  "NUIF_ATTR",
];
const RP = [
  "DOC_TYPE",
  "NO_NUIF",
  "NUIF_TYPE",
  "VERSION",
  "NO_ROOT",
  "META_TYPE",
  "DOC_MEMBER",
  "LIMIT_NODES",
  "NODE_TYPE",
  "NO_ID",
  "NO_KIND",
  "ID_TYPE",
  "KIND_TYPE",
  "ID_LENGTH",
  "ID_PATTERN",
  "DUPLICATE_ID",
  "KIND",
  "ATTRS_TYPE",
  "ATTR",
  "CHILDREN_TYPE",
  "NODE_MEMBER",
];
const PLAIN = new Set(["NO_NUIF", "NO_ROOT", "NO_ID", "NO_KIND", "LIMIT_NODES"]);
const NAMES = new Set(["DOC_MEMBER", "NODE_MEMBER", "ATTR"]); // a member name: decoded bytes
const JSON_TYPES = ["null", "a boolean", "a boolean", "a number", "a number", "a string", "an array", "an object"];
const T_INT = 3;

const utf8 = new TextDecoder("utf-8", { fatal: false });
const utf16 = new TextDecoder("utf-16le", { fatal: false });
const encoder = new TextEncoder();

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

/** Python's str.format for the templates of messages.mjs: {} {0} {1} {:04X} {:04x}. */
export function format(template, ...args) {
  let next = 0;
  return template.replace(/\{(\d*)(?::04([Xx]))?\}/g, (_, index, hex) => {
    const value = args[index === "" ? next++ : Number(index)];
    if (!hex) return String(value);
    const digits = value.toString(16).padStart(4, "0");
    return hex === "X" ? digits.toUpperCase() : digits;
  });
}

/** nuif_core._messages.quote: a name JSON-quoted, at most 64 characters shown. */
export function quote(s) {
  const chars = Array.from(s);
  return JSON.stringify(chars.length <= 64 ? s : chars.slice(0, 61).join("") + "...");
}

function short(literal) {
  return literal.length <= 40 ? literal : literal.slice(0, 37) + "...";
}

/** nuif_core._messages.describe_found: what a parse error found at byte `at`. */
function describeFound(bytes, at) {
  if (at >= bytes.length) return "end of text";
  const b = bytes[at];
  if (b < 0x80) return b >= 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `U+${hex4(b)}`;
  let end = at + 1;
  while (end < bytes.length && end - at < 4 && bytes[end] >= 0x80 && bytes[end] < 0xc0) end++;
  const ch = utf8.decode(bytes.subarray(at, end)).codePointAt(0);
  return `U+${hex4(ch)}`;
}

function hex4(n) {
  return n.toString(16).toUpperCase().padStart(4, "0");
}

/** Why the integer `literal` (beyond ±(2^53 − 1)) is refused (nuif_core big_integer_problem). */
function bigIntegerMessage(literal) {
  const x = Number(literal);
  if (!Number.isFinite(x)) return format(M.BIG_INTEGER_OVERFLOW, short(literal));
  return format(M.BIG_INTEGER, short(literal), String(x));
}

/** NUIF_TOO_LARGE, as nuif_core's NuifError.too_large words it for a `what` text. */
function tooLarge(what, size, limit) {
  const has = size === null ? "longer than that" : `${size} bytes`;
  return new NuifError({
    code: "NUIF_TOO_LARGE",
    message: `the ${what} text is ${has}; the limit is ${limit} bytes`,
  });
}

/**
 * A text given as bytes, checked against the size limit: a Uint8Array (or an ArrayBuffer's
 * bytes), else null for a string (whose UTF-8 `Core.put` writes into the module itself).
 */
function inputBytes(input, what, limit) {
  if (input instanceof ArrayBuffer) input = new Uint8Array(input);
  if (input instanceof Uint8Array) {
    if (input.length > limit) throw tooLarge(what, input.length, limit);
    return input;
  }
  if (typeof input !== "string") {
    throw new TypeError(`a NUIF ${what} is a string or a Uint8Array, not ${typeof input}`);
  }
  // more code points than the limit allows bytes: too large before any is encoded
  if (input.length > limit && codePoints(input) > limit) throw tooLarge(what, null, limit);
  return null;
}

function codePoints(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// TextEncoder wrote each lone surrogate as U+FFFD (EF BF BD), three bytes as its own encoding
// would take: write those instead, as nuif_core's as_bytes does (Python's "surrogatepass",
// ED A0..BF xx), so that the text is refused as NUIF_UTF8 at the surrogate's own offset, never
// silently replaced
function surrogatePass(s, bytes) {
  let at = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) at += 1;
    else if (c < 0x800) at += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      at += 4;
      i++;
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        bytes[at] = 0xed;
        bytes[at + 1] = 0x80 | ((c >> 6) & 0x3f);
        bytes[at + 2] = 0x80 | (c & 0x3f);
      }
      at += 3;
    }
  }
}

// the answer of a refused text or of a §3 report, read from the module's memory
class Reader {
  constructor(memory, at, length) {
    this.view = new DataView(memory.buffer, at, length);
    this.bytes = new Uint8Array(memory.buffer, at, length);
    this.i = 0;
  }

  u32() {
    const v = this.view.getUint32(this.i, true);
    this.i += 4;
    return v;
  }

  raw() {
    const n = this.u32();
    const b = this.bytes.subarray(this.i, this.i + n);
    this.i += n;
    return b;
  }

  str() {
    return utf8.decode(this.raw());
  }
}

function faultError(r, bytes, maxDepth) {
  const what = r.u32();
  const at = r.u32();
  const aux = r.u32();
  const line = r.u32();
  const column = r.u32();
  const hasPointer = r.u32();
  const pointerText = r.str();
  const name = r.str();
  const pointer = hasPointer ? pointerText : null;
  const error = (code, message, withPointer = null) =>
    new NuifError({ code, message, pointer: withPointer, line, column });
  if (what === F_UTF8) return error("NUIF_UTF8", M.UTF8);
  if (what === F_BOM) return error("NUIF_PARSE", M.BOM);
  if (what in EXPECTED) return error("NUIF_PARSE", `${EXPECTED[what]}, found ${describeFound(bytes, at)}`);
  switch (what) {
    case F_LITERAL:
      return error("NUIF_PARSE", `${format(M.EXPECT_LITERAL, LITERALS[aux])}, found ${describeFound(bytes, at)}`);
    case F_CONTROL:
      return error("NUIF_PARSE", format(M.CONTROL_IN_STRING, aux));
    case F_SURROGATE:
      return error("NUIF_UNICODE", format(M.SURROGATE_ESCAPE, aux), pointer);
    case F_NONCHARACTER:
      return error("NUIF_UNICODE", format(M.NONCHARACTER, aux), pointer);
    case F_DUPLICATE_KEY:
      return error("NUIF_DUPLICATE_KEY", format(M.DUPLICATE_KEY, quote(name)), pointer);
    case F_DEPTH:
      return error("NUIF_DEPTH", format(M.DEPTH, maxDepth), pointer);
    case F_NUMBER_OVERFLOW:
    case F_BIG_INTEGER: {
      const literal = utf8.decode(bytes.subarray(at, at + aux));
      const message = what === F_NUMBER_OVERFLOW ? format(M.NUMBER_OVERFLOW, short(literal)) : bigIntegerMessage(literal);
      return error("NUIF_NUMBER", message, pointer);
    }
    default:
      throw new Error(`nuif-web: the WebAssembly core refused a text with an unknown reason ${what}`);
  }
}

// a string value's bytes are its canonical text: RFC 8785's escapes, which JSON reads
function valueString(bytes) {
  const s = utf8.decode(bytes);
  return s.includes("\\") ? JSON.parse(`"${s}"`) : s;
}

function reportFindings(r, maxNodes) {
  const count = r.u32();
  const truncated = r.u32() !== 0;
  const found = [];
  for (let k = 0; k < count; k++) {
    const code = REPORT_CODES[r.u32()];
    const msg = RP[r.u32()];
    const line = r.u32();
    const column = r.u32();
    const kind = r.u32();
    const pointer = r.str();
    const arg = r.raw();
    const first = r.str();
    let message;
    if (msg === "LIMIT_NODES") message = format(M.SCHEMA_LIMIT_NODES, maxNodes);
    else if (PLAIN.has(msg)) message = M[`SCHEMA_${msg}`];
    else if (msg.endsWith("_TYPE")) message = format(M[`SCHEMA_${msg}`], JSON_TYPES[kind]);
    else if (msg === "VERSION") {
      const literal = utf8.decode(arg);
      message = format(M.SCHEMA_VERSION, kind === T_INT ? BigInt(literal).toString() : String(Number(literal)));
    } else if (NAMES.has(msg)) message = format(M[`SCHEMA_${msg}`], quote(utf8.decode(arg)));
    else if (msg === "DUPLICATE_ID") message = format(M.SCHEMA_DUPLICATE_ID, quote(valueString(arg)), first);
    else message = format(M[`SCHEMA_${msg}`], quote(valueString(arg))); // KIND, ID_LENGTH, ID_PATTERN
    found.push({ code, message, pointer, line, column });
  }
  return { found, truncated };
}

/**
 * One instance of the module and the calls on it.  Not for two threads at once (nor is any
 * JavaScript object); every answer is a pure function of the call's arguments.
 */
export class Core {
  /**
   * module: the compiled nuif_core.wasm (WebAssembly.Module).  sha256: a function of a
   * Uint8Array to its SHA-256 as 64 hex digits (Node's crypto), or null to hash in the module.
   */
  constructor(module, sha256 = null, units = null) {
    this.module = module;
    this.sha256 = sha256;
    // a string of n UTF-16 code units at a byte address of a buffer (Node's Buffer is faster
    // at it than TextDecoder)
    this.units = units ?? ((buffer, at, n) => utf16.decode(new Uint8Array(buffer, at, 2 * n)));
    this.exports = null;
  }

  // the instance, a fresh one when the last call left the memory large
  instance() {
    if (this.exports === null) {
      const instance = new WebAssembly.Instance(this.module, {});
      this.exports = instance.exports;
      this.exports._initialize();
    }
    return this.exports;
  }

  // room for n input bytes in the module: [exports, address]
  room(n) {
    let x = this.instance();
    let at = x.nuif_input(n);
    if (at === 0) {
      this.exports = null; // a fresh instance may have the room a used one lacks
      x = this.instance();
      at = x.nuif_input(n);
      if (at === 0) throw new RangeError("nuif-web: out of memory for the input");
    }
    return [x, at];
  }

  // the input's UTF-8 written into the module: {x (the exports), at, n}.  A string is encoded
  // straight into the module's memory (no copy of its own) into room for its length and a
  // quarter more; what did not fit then goes after it, in room for three bytes per UTF-16 unit
  // (the most one takes).
  put(input, what) {
    const limit = LIMITS.maxDocumentBytes;
    const bytes = inputBytes(input, what, limit);
    if (bytes !== null) {
      const [x, at] = this.room(bytes.length);
      new Uint8Array(x.memory.buffer, at, bytes.length).set(bytes);
      return { x, at, n: bytes.length };
    }
    const first = input.length + (input.length >> 2) + 16;
    let [x, at] = this.room(first);
    const done = encoder.encodeInto(input, new Uint8Array(x.memory.buffer, at, first));
    let n = done.written;
    if (done.read < input.length) {
      // (encodeInto stops before a character that does not fit: the rest starts with a whole one)
      const rest = input.slice(done.read);
      const cap = n + 3 * rest.length;
      const kept = x.nuif_input(cap); // the n bytes written stay
      if (kept !== 0) {
        at = kept;
        n += encoder.encodeInto(rest, new Uint8Array(x.memory.buffer, at + n, cap - n)).written;
      } else {
        [x, at] = this.room(3 * input.length); // a fresh instance: all of it again
        n = encoder.encodeInto(input, new Uint8Array(x.memory.buffer, at, 3 * input.length)).written;
      }
    }
    if (!input.isWellFormed()) surrogatePass(input, new Uint8Array(x.memory.buffer, at, n));
    if (n > limit) throw tooLarge(what, n, limit);
    return { x, at, n };
  }

  // run the pipeline on a text: {status, x (the exports), at, n}
  run(input, what, mode, maxDiagnostics = 1) {
    const r = this.put(input, what);
    r.input = input;
    r.status = r.x.nuif_run(r.n, mode, LIMITS.maxDepth, LIMITS.maxNodes, maxDiagnostics, 1);
    if (r.status === 3) {
      this.exports = null;
      throw new RangeError("nuif-web: the WebAssembly core ran out of memory");
    }
    return r;
  }

  // what a public call runs: a memory grown large is let go at the end (the next call starts a
  // fresh instance), so that a large input does not keep its pages
  call(fn) {
    try {
      return fn();
    } finally {
      if (this.exports !== null && this.exports.memory.buffer.byteLength > RESET_BYTES) this.exports = null;
    }
  }

  answer(x) {
    return new Uint8Array(x.memory.buffer, x.nuif_answer(), x.nuif_answer_len());
  }

  // the canonical text (status 0) as a string.  Where it is not ASCII, the module writes its
  // UTF-16 code units, which become a string faster than its UTF-8 does (a JavaScript string
  // is UTF-16); ASCII bytes become one as fast as they are.
  answerString(x, r, same) {
    // a string that is its canonical text already (byte for byte): that string
    if (same && typeof r.input === "string") return r.input;
    const at = x.nuif_utf16();
    if (at === 0) return utf8.decode(this.answer(x));
    return this.units(x.memory.buffer, at, x.nuif_utf16_len());
  }

  reader(x) {
    return new Reader(x.memory, x.nuif_answer(), x.nuif_answer_len());
  }

  // the error of a refused text (status 1) or the first §3 problem (status 2)
  failure(r) {
    // the input as the module holds it (the memory may have grown since it was written)
    const bytes = new Uint8Array(r.x.memory.buffer, r.at, r.n);
    if (r.status === 1) return faultError(this.reader(r.x), bytes, LIMITS.maxDepth);
    return new NuifError(reportFindings(this.reader(r.x), LIMITS.maxNodes).found[0]);
  }

  // a valid document's canonical text and hash
  document(text) {
    const r = this.run(text, "document", this.sha256 ? MODE_DOCUMENT : MODE_HASH);
    if (r.status !== 0) throw this.failure(r);
    const view = this.answer(r.x);
    const hash = this.sha256 ? this.sha256(view) : hexDigest(new Uint8Array(r.x.memory.buffer, r.x.nuif_digest(), 32));
    const same = r.x.nuif_same(r.n) === 1;
    const size = view.length;
    return { canonical: this.answerString(r.x, r, same), hash: `sha256:${hash}`, changed: !same, size, inputBytes: r.n };
  }

  /** RFC 8785 canonical text of any strict I-JSON text (nuif_core.canonical_json), a string. */
  canonicalJson(text) {
    return this.call(() => {
      const r = this.run(text, "JSON", MODE_JSON);
      if (r.status !== 0) throw this.failure(r);
      return this.answerString(r.x, r, r.x.nuif_same(r.n) === 1);
    });
  }

  /** canonicalJson's UTF-8 bytes (a Uint8Array of its own). */
  canonicalJsonBytes(text) {
    return this.call(() => {
      const r = this.run(text, "JSON", MODE_JSON);
      if (r.status !== 0) throw this.failure(r);
      return this.answer(r.x).slice();
    });
  }

  /** nuif_core.canonicalize(text).to_dict(): {canonical, hash, changed}. */
  canonicalize(text) {
    return this.call(() => {
      const { canonical, hash, changed } = this.document(text);
      return { canonical, hash, changed };
    });
  }

  /** nuif_core.validate(text, max_diagnostics=…).to_dict(): {valid, hash, diagnostics, truncated}. */
  validate(text, maxDiagnostics = 100) {
    return this.call(() => {
      let r;
      try {
        r = this.run(text, "document", this.sha256 ? MODE_DOCUMENT : MODE_HASH, maxDiagnostics);
      } catch (err) {
        if (err instanceof NuifError) return { valid: false, hash: null, diagnostics: [err.toJSON()], truncated: false };
        throw err;
      }
      if (r.status === 1) {
        return { valid: false, hash: null, diagnostics: [this.failure(r).toJSON()], truncated: false };
      }
      if (r.status === 2) {
        const { found, truncated } = reportFindings(this.reader(r.x), LIMITS.maxNodes);
        return { valid: false, hash: null, diagnostics: found, truncated };
      }
      const hash = this.sha256 ? this.sha256(this.answer(r.x)) : hexDigest(new Uint8Array(r.x.memory.buffer, r.x.nuif_digest(), 32));
      return { valid: true, hash: `sha256:${hash}`, diagnostics: [], truncated: false };
    });
  }

  /** nuif_core.inspect(text, max_outline_nodes=…).to_dict(). */
  inspect(text, maxOutlineNodes = 100) {
    return this.call(() => {
      const doc = this.document(text);
      return inspection(JSON.parse(doc.canonical).root, doc, doc.inputBytes, maxOutlineNodes);
    });
  }
}

function hexDigest(digest) {
  let s = "";
  for (const b of digest) s += b.toString(16).padStart(2, "0");
  return s;
}

// the summary of a valid, normalized node tree (nuif_core._schema.outline), pre-order
function inspection(root, doc, inputBytes, maxOutline) {
  const kinds = new Map();
  const nodes = [];
  let count = 0;
  let deepest = 0;
  const stack = [[root, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop();
    count++;
    if (depth > deepest) deepest = depth;
    kinds.set(node.kind, (kinds.get(node.kind) ?? 0) + 1);
    const children = node.children ?? [];
    if (nodes.length < maxOutline) nodes.push({ id: node.id, kind: node.kind, depth, children: children.length });
    for (let k = children.length - 1; k >= 0; k--) stack.push([children[k], depth + 1]);
  }
  // kinds sorted as Python sorts str (by code point); kinds are ASCII (NUIF-0 §3.2)
  const sorted = {};
  for (const kind of [...kinds.keys()].sort()) sorted[kind] = kinds.get(kind);
  return {
    hash: doc.hash,
    is_canonical: !doc.changed,
    input_bytes: inputBytes,
    canonical_bytes: doc.size,
    node_count: count,
    max_depth: deepest,
    kinds: sorted,
    root: { id: root.id, kind: root.kind },
    outline: { nodes, truncated: count > nodes.length },
  };
}

const IN_NODE = typeof process !== "undefined" && !!process.versions?.node && typeof window === "undefined";

/**
 * Compile nuif_core.wasm and make a Core: `wasm` is the module's URL, path (Node) or bytes
 * (default: the file beside this one).  In Node the hash is Node's SHA-256 (node:crypto, which
 * uses the CPU's SHA instructions); elsewhere the module's own.  `hash: "module"` asks for the
 * module's everywhere.
 */
export async function loadCore({ wasm, hash } = {}) {
  const module = await WebAssembly.compile(await wasmBytes(wasm ?? new URL("./nuif_core.wasm", import.meta.url)));
  let sha256 = null;
  let units = null;
  if (IN_NODE) {
    if (hash !== "module") {
      const { createHash } = await import("node:crypto");
      sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");
    }
    const { Buffer } = await import("node:buffer");
    units = (buffer, at, n) => Buffer.from(buffer, at, 2 * n).toString("utf16le");
  }
  return new Core(module, sha256, units);
}

async function wasmBytes(source) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return source;
  const where = String(source);
  if (IN_NODE && !/^https?:/.test(where)) {
    const { readFile } = await import("node:fs/promises");
    const { fileURLToPath } = await import("node:url");
    return readFile(where.startsWith("file:") ? fileURLToPath(where) : where);
  }
  const response = await fetch(where);
  if (!response.ok) throw new Error(`nuif-web: ${where} could not be fetched (HTTP ${response.status})`);
  return response.arrayBuffer();
}
