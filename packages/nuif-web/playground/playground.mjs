// The NUIF playground: every result comes from nuif-core (nuif.mjs): the checks, hashes, canonical
// text and outline from its C core in WebAssembly, at once; patches, diffs and catalogs from the
// pure wheel in Pyodide, started the first time one is asked for.  playground.json (written by
// whoever serves the page, e.g. `nuif playground`) says where the wheel and Pyodide's files are.
// Reference: docs/web.md.
import { NuifError, PYODIDE_VERSION, loadNuif } from "./nuif.mjs";
import { locatePointer } from "./locate.mjs";

const STAGES = { core: 0, runtime: 1, wheel: 2, install: 3, import: 4, ready: 4 };
/** The outline shows at most this many nodes (the count above it is always the whole). */
const MAX_TREE_NODES = 2000;
const MAX_DIAGNOSTICS = 200;
const EXAMPLE_DOC = `{
  "nuif": 0,
  "root": {
    "id": "login",
    "kind": "screen",
    "attrs": {"title": "Sign in"},
    "children": [
      {"id": "login.email", "kind": "text-field", "attrs": {"label": "Email", "required": true}},
      {"id": "login.password", "kind": "text-field", "attrs": {"label": "Password", "secret": true}},
      {"id": "login.submit", "kind": "button", "attrs": {"label": "Sign in"}}
    ]
  }
}
`;
const EXAMPLE_PATCH = `{
  "nuif_patch": 0,
  "transactions": [
    {"ops": [
      {"op": "set", "id": "login.submit", "attr": "label", "value": "Continue"},
      {"op": "insert", "parent": "login", "index": 2,
       "node": {"id": "login.remember", "kind": "checkbox", "attrs": {"label": "Remember me"}}}
    ]}
  ]
}
`;

const $ = (id) => document.getElementById(id);

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** The index of the closing quote of the string that opens at chars[start], else start. */
function stringEnd(chars, start) {
  if (chars[start] !== '"') return start;
  for (let i = start + 1; i < chars.length; i++) {
    if (chars[i] === "\\") i++;
    else if (chars[i] === '"') return i;
  }
  return start;
}

/** A textarea with a line-number gutter and a backdrop that marks line/column positions. */
class Editor {
  constructor(root) {
    this.root = root;
    this.textarea = root.querySelector("textarea");
    this.gutter = root.querySelector(".gutter");
    this.backdrop = root.querySelector(".backdrop");
    this.marks = [];
    this.lines = -1;
    this.textarea.addEventListener("input", () => this.render());
    this.textarea.addEventListener("scroll", () => this.syncScroll());
    this.render();
  }

  get value() {
    return this.textarea.value;
  }

  set value(text) {
    this.textarea.value = text;
    this.marks = [];
    this.render();
  }

  /** marks: [{line, column}] (1-based; the column counts Unicode characters, as nuif-core). */
  mark(marks) {
    this.marks = marks.filter((m) => Number.isInteger(m.line));
    this.render();
  }

  render() {
    const lines = this.value.split("\n");
    const badLines = new Set(this.marks.map((m) => m.line));
    let gutter = "";
    for (let i = 1; i <= lines.length; i++) {
      gutter += badLines.has(i) ? `<span class="bad">${i}</span>\n` : `${i}\n`;
    }
    this.gutter.innerHTML = gutter;
    if (!this.marks.length) {
      this.backdrop.textContent = this.value + "\n";
    } else {
      const columns = new Map();
      for (const m of this.marks) {
        if (!columns.has(m.line)) columns.set(m.line, new Set());
        columns.get(m.line).add(m.column ?? 1);
      }
      const html = lines.map((line, index) => {
        const marked = columns.get(index + 1);
        if (!marked) return escapeHtml(line);
        const chars = Array.from(line); // code points, as nuif-core counts columns
        const ends = new Map(); // a mark at a string's opening quote covers the whole string
        for (const col of marked) ends.set(col - 1, stringEnd(chars, col - 1));
        let out = "";
        for (let c = 0; c < chars.length; c++) {
          if (ends.has(c)) {
            const end = ends.get(c);
            out += `<mark>${escapeHtml(chars.slice(c, end + 1).join(""))}</mark>`;
            c = end;
          } else {
            out += escapeHtml(chars[c]);
          }
        }
        const past = [...marked].some((col) => col > chars.length);
        if (past) out += "<mark> </mark>"; // at the end of the line (or of the text)
        return `<mark class="line">${out}</mark>`;
      });
      this.backdrop.innerHTML = html.join("\n") + "\n";
    }
    this.syncScroll();
  }

  syncScroll() {
    this.backdrop.scrollTop = this.textarea.scrollTop;
    this.backdrop.scrollLeft = this.textarea.scrollLeft;
    this.gutter.scrollTop = this.textarea.scrollTop;
  }

  /** {line, col, offset, width, chars} of a 1-based line/column, clamped to the text. */
  place(line, column) {
    const lines = this.value.split("\n");
    const l = Math.min(Math.max(line, 1), lines.length);
    let offset = 0;
    for (let i = 0; i < l - 1; i++) offset += lines[i].length + 1;
    const chars = Array.from(lines[l - 1]);
    const col = Math.min(Math.max(column ?? 1, 1), chars.length + 1);
    offset += chars.slice(0, col - 1).join("").length;
    const width = col <= chars.length ? chars[col - 1].length : 0;
    return { line: l, col, offset, width, chars };
  }

  /** Scroll the text, both ways, so that line/column is in view (without moving the caret). */
  reveal(line, column) {
    const at = this.place(line, column);
    const style = getComputedStyle(this.textarea);
    const lineHeight = parseFloat(style.lineHeight) || 18;
    const top = (at.line - 1) * lineHeight;
    const ta = this.textarea;
    if (top < ta.scrollTop || top + lineHeight > ta.scrollTop + ta.clientHeight) {
      ta.scrollTop = Math.max(0, top - 3 * lineHeight);
    }
    // the mark's left edge: the width of the line's text before it, in the editor's font
    Editor.ruler ??= document.createElement("canvas").getContext("2d");
    Editor.ruler.font = style.font;
    const before = at.chars.slice(0, at.col - 1).join("").replace(/\t/g, "  ");
    const x = Editor.ruler.measureText(before).width;
    const room = ta.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (x < ta.scrollLeft || x + 24 > ta.scrollLeft + room) {
      ta.scrollLeft = Math.max(0, x - room / 3);
    }
    this.syncScroll();
  }

  /** Put the caret at line/column, select that character and scroll it into view. */
  jump(line, column) {
    const at = this.place(line, column);
    this.textarea.focus({ preventScroll: true });
    this.textarea.setSelectionRange(at.offset, at.offset + at.width);
    this.reveal(line, column);
  }
}

const editors = {
  doc: new Editor($("doc-editor")),
  patch: new Editor($("patch-editor")),
  catalog: new Editor($("catalog-editor")),
  other: new Editor($("other-editor")),
};

/** The catalog's text, or undefined when the catalog editor is empty (no catalog). */
function catalogText() {
  return editors.catalog.value.trim() ? editors.catalog.value : undefined;
}
let nuif = null;
let config = null; // playground.json: {wheel, pyodide}
let python = null; // the start of Python, once asked for: a promise of true (ready) or false

/** What the status line says once the WebAssembly core (and, later, Python) is ready. */
function readyText() {
  const core = `nuif-core ${nuif.version} ready: WebAssembly core`;
  return nuif.pythonReady ? `${core} and Python (Pyodide ${PYODIDE_VERSION})` : core;
}

/**
 * Start Python (Pyodide and the pure wheel) unless it is started: true when it is ready, false
 * when it could not start (the status line says why).  The buttons that need it wait meanwhile.
 */
function needPython() {
  if (nuif.pythonReady) return Promise.resolve(true);
  if (python === null) {
    for (const id of PYTHON_BUTTONS) $(id).disabled = true;
    python = nuif
      .enablePython({
        wheel: config.wheel,
        indexURL: config.pyodide, // relative to this page
        onProgress: ({ stage, message }) => setStatus(stage, message),
      })
      .then(
        () => {
          setStatus("ready", readyText());
          return true;
        },
        (err) => {
          setStatus("failed", `Python (Pyodide) could not start: ${err.message}`, true);
          python = null; // the next request tries again
          return false;
        },
      )
      .finally(() => {
        for (const id of PYTHON_BUTTONS) $(id).disabled = false;
      });
  }
  return python;
}

function setStatus(stage, message, failed = false) {
  const status = $("status");
  $("progress").value = STAGES[stage] ?? 0;
  $("progress").setAttribute("aria-label", message);
  $("status-text").textContent = message;
  status.classList.toggle("ready", stage === "ready");
  status.classList.toggle("failed", failed);
  status.dataset.stage = failed ? "failed" : stage;
  // every stage shown, in order (read by the browser test)
  status.dataset.history = `${status.dataset.history ?? ""} ${status.dataset.stage}`.trim();
}

function describe(err) {
  return err instanceof NuifError ? err.toString() : `${err.name}: ${err.message}`;
}

function indented(text) {
  return JSON.stringify(JSON.parse(text), null, 2);
}

// --- the document: diagnostics, hash, outline, canonical text ---------------------------------

function diagnosticItem(d, editor) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  const where = d.line !== null ? `line ${d.line}, column ${d.column}` : "whole text";
  button.innerHTML =
    `<span class="where">${escapeHtml(where)}</span> ` +
    `<span class="code-name">${escapeHtml(d.code)}</span> ${escapeHtml(d.message)}` +
    (d.pointer !== null ? ` <span class="pointer">${escapeHtml(d.pointer || "/")}</span>` : "");
  button.title = d.line !== null ? "Go to this place in the text" : "";
  button.dataset.line = d.line ?? "";
  button.dataset.column = d.column ?? "";
  button.dataset.code = d.code;
  if (d.line !== null) button.addEventListener("click", () => editor.jump(d.line, d.column));
  li.append(button);
  return li;
}

/** NUIF_CATALOG is located in the catalog's text; every other diagnostic in the document's. */
function editorOf(d) {
  return d.code === "NUIF_CATALOG" ? editors.catalog : editors.doc;
}

function showDiagnostics(diagnostics, truncated) {
  const list = $("diagnostics");
  list.replaceChildren(...diagnostics.map((d) => diagnosticItem(d, editorOf(d))));
  $("no-diagnostics").hidden = diagnostics.length > 0;
  $("no-diagnostics").textContent = "None.";
  if (truncated) {
    const li = document.createElement("li");
    li.className = "quiet";
    li.textContent = `Only the first ${MAX_DIAGNOSTICS} problems are listed.`;
    list.append(li);
  }
  const ownDiagnostics = diagnostics.filter((d) => editorOf(d) === editors.doc);
  editors.doc.mark(ownDiagnostics);
  editors.catalog.mark(diagnostics.filter((d) => editorOf(d) === editors.catalog));
  // a text put in (a file, an example, a link) shows its first problem; typing keeps its place
  const first = ownDiagnostics.find((d) => d.line !== null);
  if (first && document.activeElement !== editors.doc.textarea) {
    editors.doc.reveal(first.line, first.column);
  }
}

function attrsText(attrs) {
  if (!attrs) return "";
  return Object.entries(attrs)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(" ");
}

function buildOutline(root) {
  let shown = 0;
  const make = (node) => {
    shown += 1;
    const li = document.createElement("li");
    li.className = "node";
    li.dataset.id = node.id;
    const label =
      `<span class="kind">${escapeHtml(node.kind)}</span> <span class="id">#${escapeHtml(node.id)}</span>` +
      (node.attrs ? ` <span class="attrs">${escapeHtml(attrsText(node.attrs))}</span>` : "");
    const children = node.children ?? [];
    if (!children.length) {
      li.innerHTML = `<div class="leaf">${label}</div>`;
      return li;
    }
    const details = document.createElement("details");
    details.open = true;
    const summary = document.createElement("summary");
    summary.innerHTML = `${label} <span class="quiet">(${children.length})</span>`;
    const ul = document.createElement("ul");
    for (const child of children) {
      if (shown >= MAX_TREE_NODES) break;
      ul.append(make(child));
    }
    details.append(summary, ul);
    li.append(details);
    return li;
  };
  const ul = document.createElement("ul");
  ul.setAttribute("role", "list");
  ul.append(make(root));
  return { tree: ul, shown };
}

function clearDocumentResults(message) {
  for (const id of ["copy-hash", "copy-canonical"]) $(id).disabled = true;
  $("hash").textContent = "—";
  $("node-count").textContent = "—";
  $("canonical").textContent = "—";
  $("outline").innerHTML = `<p class="quiet">${escapeHtml(message)}</p>`;
}

function check() {
  if (!nuif) return;
  const text = editors.doc.value;
  const verdict = $("verdict");
  if (!text.trim()) {
    verdict.textContent = "No document yet.";
    verdict.className = "verdict";
    showDiagnostics([], false);
    clearDocumentResults("—");
    return;
  }
  let catalog = catalogText();
  let waiting = false;
  if (catalog && !nuif.pythonReady) {
    // the catalog's check runs in Python: check the document alone now, and again once it is ready
    waiting = true;
    catalog = undefined;
    needPython().then((ready) => ready && check());
  }
  const report = nuif.validate(text, { maxDiagnostics: MAX_DIAGNOSTICS, catalog });
  showDiagnostics(report.diagnostics, report.truncated);
  $("catalog-verdict").textContent = waiting
    ? "Loading Python (Pyodide) to check the document against this catalog…"
    : !catalog
      ? "No catalog: only the rules of NUIF-0 apply."
      : report.diagnostics.some((d) => d.code === "NUIF_CATALOG")
        ? "The catalog is not valid: see Diagnostics."
        : "The document is also checked against this catalog.";
  if (!report.valid) {
    const n = report.diagnostics.length;
    verdict.textContent = `Invalid: ${n}${report.truncated ? "+" : ""} problem${n === 1 ? "" : "s"}.`;
    verdict.className = "verdict bad";
    clearDocumentResults("Fix the problems to see the outline.");
    return;
  }
  const result = nuif.canonicalize(text);
  const summary = nuif.inspect(text, { maxOutlineNodes: 0 });
  verdict.textContent = result.changed ? "Valid (not in canonical form)." : "Valid and canonical.";
  verdict.className = "verdict good";
  $("hash").textContent = result.hash;
  $("node-count").textContent = `${summary.node_count} (depth ${summary.max_depth})`;
  $("node-count").dataset.count = summary.node_count;
  $("canonical").textContent = result.canonical;
  for (const id of ["copy-hash", "copy-canonical"]) $(id).disabled = false;
  const { tree, shown } = buildOutline(JSON.parse(result.canonical).root);
  const outline = $("outline");
  outline.replaceChildren(tree);
  if (shown < summary.node_count) {
    const note = document.createElement("p");
    note.className = "quiet";
    note.textContent = `Showing the first ${shown} of ${summary.node_count} nodes.`;
    outline.append(note);
  }
}

// --- patch and diff --------------------------------------------------------------------------

/**
 * Python for an operation whose verdict is `out`: true once it is loaded; while it loads, `out`
 * says so ("Loading Python (Pyodide) to <purpose>…"); if it cannot start, `out` says
 * "<refused>: Python (Pyodide) could not start" and the answer is false.
 */
async function pythonFor(out, purpose, refused) {
  if (nuif.pythonReady) return true;
  out.textContent = `Loading Python (Pyodide) to ${purpose}…`;
  out.className = "quiet";
  if (await needPython()) return true;
  out.textContent = `${refused}: Python (Pyodide) could not start (see the status line).`;
  out.className = "verdict bad";
  return false;
}

async function applyPatch() {
  if (!nuif) return;
  const out = $("patch-verdict");
  if (!(await pythonFor(out, "apply the patch", "Not applied"))) return;
  editors.patch.mark([]);
  $("patched-hash").textContent = "—";
  $("patched").textContent = "—";
  $("inverse").textContent = "—";
  $("inverse-check").textContent = "";
  out.className = "quiet";
  if (!nuif.validate(editors.doc.value, { maxDiagnostics: 1 }).valid) {
    // (the catalog is not asked here: a patch may repair what the catalog refuses)
    out.textContent = "The document is invalid: fix it before applying a patch.";
    out.className = "verdict bad";
    return;
  }
  try {
    const result = nuif.applyPatch(editors.doc.value, editors.patch.value, {
      inverse: true,
      catalog: catalogText(),
    });
    const c = result.counts;
    out.textContent =
      `Applied: ${c.transactions} transaction(s), ${c.operations} operation(s)` +
      (result.changed ? "." : "; the document did not change.");
    out.className = "verdict good";
    $("patched-hash").textContent = result.hash;
    $("patched").textContent = result.document;
    $("inverse").textContent = indented(result.inverse);
    // the promise of an inverse: applied to the result, it gives back the document's bytes
    const back = nuif.applyPatch(result.document, result.inverse);
    const original = nuif.canonicalize(editors.doc.value);
    $("inverse-check").textContent =
      back.document === original.canonical
        ? `Applied to the result, the inverse gives back the document (${back.hash}).`
        : `Applied to the result, the inverse gives ${back.hash}, not the document's ${original.hash}.`;
  } catch (err) {
    out.textContent = `Not applied (nothing changed): ${describe(err)}`;
    out.className = "verdict bad";
    if (err instanceof NuifError) {
      const at = err.line !== null ? err : locatePointer(editors.patch.value, err.pointer);
      if (at) {
        editors.patch.mark([at]);
        editors.patch.reveal(at.line, at.column);
        if (err.line === null) out.textContent += ` — in the patch at line ${at.line}, column ${at.column}`;
      }
    }
  }
}

async function runDiff() {
  if (!nuif) return;
  const out = $("diff-verdict");
  if (!(await pythonFor(out, "compare the documents", "No diff"))) return;
  editors.other.mark([]);
  $("diff-out").textContent = "—";
  try {
    const patch = nuif.diff(editors.doc.value, editors.other.value);
    const ops = JSON.parse(patch).transactions.reduce((n, t) => n + t.ops.length, 0);
    out.textContent = ops ? `${ops} operation(s) turn the document into the second one.` : "The documents are the same.";
    out.className = "verdict good";
    $("diff-out").textContent = indented(patch);
  } catch (err) {
    out.textContent = `No diff: ${describe(err)}`;
    out.className = "verdict bad";
  }
}

// --- copy and share --------------------------------------------------------------------------

/** Put text on the clipboard (the Clipboard API, else a selected textarea and "copy"). */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    return done;
  }
}

function flash(button, text) {
  const label = button.dataset.label ?? button.textContent;
  button.dataset.label = label;
  button.textContent = text;
  setTimeout(() => (button.textContent = label), 1500);
}

for (const button of document.querySelectorAll("button.copy")) {
  button.addEventListener("click", async () => {
    const ok = await copyText($(button.dataset.copy).textContent);
    flash(button, ok ? "Copied" : "Copy failed");
  });
}

// A shared link holds the inputs in the URL fragment (after #), which browsers never send to a
// server: "#v1.doc=…&patch=…&other=…", each the base64url of the text's UTF-8, deflated when the
// browser can (a "z" before the "=").
const SHARE_PREFIX = "v1.";

function base64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unbase64url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function through(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

async function encodeText(text) {
  const bytes = new TextEncoder().encode(text);
  if (typeof CompressionStream === "function") {
    return ["z", base64url(await through(bytes, new CompressionStream("deflate-raw")))];
  }
  return ["", base64url(bytes)];
}

async function decodeText(packed, value) {
  let bytes = unbase64url(value);
  if (packed) bytes = await through(bytes, new DecompressionStream("deflate-raw"));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

async function shareLink() {
  const parts = [];
  for (const name of ["doc", "patch", "other"]) {
    const text = editors[name].value;
    if (!text) continue;
    const [packed, value] = await encodeText(text);
    parts.push(`${name}${packed}=${value}`);
  }
  const fragment = parts.length ? SHARE_PREFIX + parts.join("&") : "";
  history.replaceState(null, "", fragment ? `#${fragment}` : location.pathname + location.search);
  return location.href;
}

/** The inputs of a shared link ({doc, patch, other}), or null when the fragment holds none. */
async function readLink() {
  const fragment = location.hash.slice(1);
  if (!fragment.startsWith(SHARE_PREFIX)) return null;
  const found = {};
  for (const part of fragment.slice(SHARE_PREFIX.length).split("&")) {
    const m = /^(doc|patch|other)(z?)=([A-Za-z0-9_-]*)$/.exec(part);
    if (!m) throw new Error(`the link has a part that is not an input: ${part.slice(0, 40)}`);
    found[m[1]] = await decodeText(m[2] === "z", m[3]);
  }
  return found;
}

async function openLink() {
  let found;
  try {
    found = await readLink();
  } catch (err) {
    $("share-note").textContent = `This link could not be read: ${err.message}`;
    return;
  }
  if (!found) return;
  for (const name of ["doc", "patch", "other"]) editors[name].value = found[name] ?? "";
  $("share-note").textContent = "Opened from a shared link.";
  check();
}

$("share").addEventListener("click", async () => {
  const url = await shareLink();
  const ok = await copyText(url);
  $("share-note").textContent = ok
    ? "Link copied: the inputs are in it, after #; nothing was sent anywhere."
    : "The link is in the address bar: the inputs are in it, after #.";
});
window.addEventListener("hashchange", openLink);

// --- wiring ----------------------------------------------------------------------------------

let timer = null;
for (const editor of [editors.doc, editors.catalog]) {
  editor.textarea.addEventListener("input", () => {
    clearTimeout(timer);
    // the check is quick (the WebAssembly core); drawing a large outline is not: wait a little
    // longer for typing to pause as the text grows
    timer = setTimeout(check, Math.min(1000, 150 + editors.doc.value.length / 4000));
  });
}
$("basic-catalog").addEventListener("click", async () => {
  if (!(await needPython())) return;
  editors.catalog.value = nuif.basicCatalog();
  check();
});
$("no-catalog").addEventListener("click", () => {
  editors.catalog.value = "";
  check();
});
$("apply").addEventListener("click", applyPatch);
$("diff").addEventListener("click", runDiff);
editors.patch.textarea.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    applyPatch();
  }
});
editors.other.textarea.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    runDiff();
  }
});
$("example").addEventListener("click", () => {
  editors.doc.value = EXAMPLE_DOC;
  editors.patch.value = EXAMPLE_PATCH;
  check();
});
$("expand").addEventListener("click", () => {
  for (const d of $("outline").querySelectorAll("details")) d.open = true;
});
$("collapse").addEventListener("click", () => {
  for (const d of $("outline").querySelectorAll("details")) d.open = false;
});

async function load(file, editor) {
  editor.value = await file.text();
  if (editor === editors.doc || editor === editors.catalog) check();
}
$("doc-file").addEventListener("change", (e) => {
  if (e.target.files[0]) load(e.target.files[0], editors.doc);
});
for (const editor of Object.values(editors)) {
  editor.root.addEventListener("dragover", (e) => {
    e.preventDefault();
    editor.root.classList.add("dragging");
  });
  editor.root.addEventListener("dragleave", () => editor.root.classList.remove("dragging"));
  editor.root.addEventListener("drop", (e) => {
    e.preventDefault();
    editor.root.classList.remove("dragging");
    const file = e.dataTransfer?.files?.[0];
    if (file) load(file, editor);
  });
}

const BUTTONS = ["apply", "diff", "example", "basic-catalog", "no-catalog"];
/** The buttons whose operation runs in Python (disabled while it starts). */
const PYTHON_BUTTONS = ["apply", "diff", "basic-catalog"];
for (const id of BUTTONS) $(id).disabled = true;

async function start() {
  try {
    const answer = await fetch("playground.json");
    if (!answer.ok) throw new Error(`playground.json could not be fetched (HTTP ${answer.status})`);
    config = await answer.json();
    // (its "ready" is said below, with what is ready)
    nuif = await loadNuif({ onProgress: ({ stage, message }) => stage !== "ready" && setStatus(stage, message) });
  } catch (err) {
    setStatus("failed", `The playground could not start: ${err.message}`, true);
    return;
  }
  setStatus("ready", readyText());
  for (const id of BUTTONS) $(id).disabled = false;
  $("about").textContent =
    `nuif-core ${nuif.version}: checks, hashes and canonical text from its C core in WebAssembly; ` +
    "patches, diffs and catalogs from its Python twin in Pyodide, loaded when one is first asked for. " +
    "Reference: docs/web.md.";
  check();
}
openLink().then(start);
