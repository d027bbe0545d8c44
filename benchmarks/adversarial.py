"""Issue 14's adversarial inputs, sent to a real ``nuif-mcp`` over stdio: time, memory, answer.

    uv run python -m benchmarks.adversarial                        # every case (a few minutes)
    uv run python -m benchmarks.adversarial --cases 'copy-*,ids-*'  # names or fnmatch patterns
    uv run python -m benchmarks.adversarial --json adversarial.json
    uv run python -m benchmarks.adversarial --list

Issue 14's done-when: through ``nuif-mcp``, every adversarial case answers within 2 s of wall
time with a peak RSS under 300 MB, and the server serves the next request.  For each case this
command:

1. starts a **fresh** server process (``nuif-mcp`` next to the interpreter, else
   ``python -m nuif_mcp``), so that the kernel's high-water mark of its resident memory
   (``VmHWM`` in ``/proc/<pid>/status``) belongs to that case alone; it opens with
   ``server/discover`` (protocol 2026-07-28, the ``_meta`` envelope on every request) and reads
   ``VmHWM`` once the server is idle (``idle MB``, what start-up and the first request cost);
2. writes the case's request line and reads the first message that comes back, within a bounded
   wait (``--timeout``, 120 s; 3 s for the invalid-id cases, which today get no answer at all).
   ``wall s`` runs from the first byte written to the last byte of the answer line (writing a
   3 MiB line through the pipe is part of it); ``peak MB`` is ``VmHWM`` read right after the
   answer (10^6 bytes, as in the issue);
3. classifies the answer: ``ok`` (a tool result), a NUIF code (a tool error, from
   ``_meta["dev.nuif/error"]``, with its pointer), ``rpc <code>`` (a JSON-RPC error, with its
   id), ``no answer`` or ``closed``; and checks it against what the issue accepts for the case;
4. sends a normal ``tools/call validate`` of a small document and checks that it is answered
   ``valid: true`` (any message that arrives before it is listed as ``late``); then closes stdin
   and waits for the process to exit.

A case meets the done-when when all four hold: the answer is one the issue accepts (and carries
the right id), ``wall s`` ≤ 2, ``peak MB`` < 300, the next request is served.  The exit status is
0 when every selected case meets it, 1 otherwise.  Nothing here is a test: the test module
(``tests/benchmarks/test_adversarial.py``) drives the same cases at a smaller scale and asserts
the answers only, never a time.

The inputs use the MCP inline limits (``Limits.MCP``: 1 MiB of document text, 1 MiB of patch
text; 4,096 operations, 1,024 per transaction) and are the largest of their shape that fit.
``--scale`` shrinks the documents and operation counts (the copy-doubling, past-the-limit and
protocol cases keep their size: their point is a limit of the server).  ``--memory-cap-mb``
(default 4096) caps the server's address space (``RLIMIT_AS``) so that a regression cannot take
a shared machine's memory; a case that hits it shows up as an error answer or ``closed``.
``diff`` is not an MCP tool (docs/mcp.md), so it is not timed here: the two reversal cases send
``apply-patch`` with a patch that ``nuif_core.diff`` built in this process beforehand.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import resource
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

if __package__ in (None, ""):  # ``python benchmarks/adversarial.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nuif_core
from benchmarks.harness import nuif_codec
from nuif_core import Limits

MiB = 1024 * 1024
#: the longest JSON-RPC line the server reads (packages/nuif-mcp/README.md)
LINE_LIMIT = 4 * MiB
#: the bound each case must meet
WALL_LIMIT_S = 2.0
RSS_LIMIT_BYTES = 300 * 1000 * 1000
#: the bounded wait for an answer to an invalid-id request (today: none comes)
ID_WAIT_S = 3.0
#: the bounded waits around each case: start-up + discover, the next request, the exit
START_WAIT_S = 60.0
NEXT_WAIT_S = 30.0
EXIT_WAIT_S = 10.0

VERSION = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "nuif-adversarial", "version": "0"},
}
#: the small document of the "next request" (valid, not canonical)
SMALL_DOC = (
    '{"root": {"kind": "screen", "id": "login", "children": [{"id": "login.submit", '
    '"kind": "button", "attrs": {"label": "Sign in"}}]}, "nuif": 0}'
)
CASE_ID = 1
NEXT_ID = "next"
#: an expected answer id that accepts any id (the line could not be read far enough to know it)
ANY_ID = "<any>"


def server_command() -> list[str]:
    """The installed console script, next to the interpreter running this, else ``-m``."""
    script = Path(sys.executable).with_name("nuif-mcp")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "nuif_mcp"]


def rpc(rid: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": ENVELOPE}}


def encode(msg: Any) -> bytes:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


DISCOVER = encode(rpc("discover", "server/discover", {}))
NEXT = encode(
    rpc(NEXT_ID, "tools/call", {"name": "validate", "arguments": {"document": SMALL_DOC}})
)


# ---------------------------------------------------------------------------------------------
# the cases


@dataclass(frozen=True)
class Case:
    """One adversarial request.  Either a tool call (``tool`` + ``arguments``, id 1) or a raw
    line sent as is (``raw``, for the protocol cases)."""

    name: str
    klass: str  # the class of attack it belongs to
    title: str
    expect: tuple[str, ...]  # the answers the issue accepts (labels, see ``classify``)
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    raw: bytes | None = None
    answer_id: Any = CASE_ID  # the id the answer must carry (None: null; ANY_ID: any)
    wait_s: float | None = None  # the bounded wait for the answer (None: the run's --timeout)
    forbid: str | None = None  # text the answer's message must not contain
    expect_document: str | None = None  # the canonical text a successful result must carry

    def line(self) -> bytes:
        if self.raw is not None:
            return self.raw
        assert self.tool is not None and self.arguments is not None
        return encode(rpc(CASE_ID, "tools/call", {"name": self.tool, "arguments": self.arguments}))


@dataclass(frozen=True)
class Sizes:
    """What the inputs are built to fill: the MCP inline limits, times ``scale``."""

    document: int = Limits.MCP.max_document_bytes
    patch: int = Limits.MCP.max_patch_bytes
    ops: int = Limits.MCP.max_operations
    per_tx: int = Limits.MCP.max_operations_per_transaction

    @classmethod
    def at(cls, scale: float) -> Sizes:
        if not 0 < scale <= 1:
            raise ValueError("scale must be in (0, 1]")
        full = cls()
        return cls(
            document=max(4096, int(full.document * scale)),
            patch=full.patch,
            ops=max(16, int(full.ops * scale)) & ~1,  # even: some shapes come in pairs
            per_tx=full.per_tx,
        )


def canonical(value: Any) -> str:
    """RFC 8785 text of ``value`` (ASCII keys and strings, integers only: sorted compact JSON)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


FIRST = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
REST = FIRST + "_.:-"


def short_ids() -> Iterator[str]:
    """Every node id by length, shortest first (NUIF-0 id rule; none starts with ``_``, which
    the cases keep for their own fixed ids)."""
    width = 1
    while True:
        for i in range(len(FIRST) * len(REST) ** (width - 1)):
            head, i = divmod(i, len(REST) ** (width - 1))
            tail = []
            for _ in range(width - 1):
                i, r = divmod(i, len(REST))
                tail.append(REST[r])
            yield FIRST[head] + "".join(reversed(tail))
        width += 1


def leaves(budget: int) -> list[str]:
    """The ids of as many ``{"id":…,"kind":"k"}`` children as fit in ``budget`` bytes of
    canonical text (commas included)."""
    out: list[str] = []
    used = 0
    for nid in short_ids():
        cost = len(nid) + 20 + (1 if out else 0)  # {"id":"…","kind":"k"} is 20 + len(id)
        if used + cost > budget:
            return out
        out.append(nid)
        used += cost
    raise AssertionError("unreachable")


def leaf_nodes(ids: Sequence[str]) -> list[dict[str, Any]]:
    return [{"id": i, "kind": "k"} for i in ids]


def wide_document(budget: int, attrs: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """The widest parent that fits: a root ``_root`` whose children are minimal leaves, the
    canonical text at most ``budget`` bytes.  Returns the text and the children's ids."""
    root: dict[str, Any] = {"children": [], "id": "_root", "kind": "k"}
    if attrs:
        root["attrs"] = attrs
    frame = len(canonical({"nuif": 0, "root": root}))
    ids = leaves(budget - frame)
    root["children"] = leaf_nodes(ids)
    text = canonical({"nuif": 0, "root": root})
    assert len(text) <= budget, (len(text), budget)
    return text, ids


def patch_text(ops: list[dict[str, Any]], per_tx: int, base: str | None = None) -> str:
    txs = [{"ops": ops[i : i + per_tx]} for i in range(0, len(ops), per_tx)] or [{"ops": []}]
    patch: dict[str, Any] = {"nuif_patch": 0, "transactions": txs}
    if base is not None:
        patch["base"] = base
    return canonical(patch)


def apply_case(
    name: str,
    klass: str,
    title: str,
    document: str,
    patch: str,
    *,
    expect: tuple[str, ...],
    inverse: bool = False,
    sizes: Sizes,
    result: str | None = None,
) -> Case:
    assert len(document.encode()) <= Limits.MCP.max_document_bytes, (name, len(document))
    assert len(patch.encode()) <= sizes.patch, (name, len(patch))
    args: dict[str, Any] = {"document": document, "patch": patch}
    if inverse:
        args["include_inverse"] = True
    return Case(
        name, klass, title, expect, tool="apply-patch", arguments=args, expect_document=result
    )


#: the answers a bounded-cost case may get: the result, or the refusal of a patch whose work
#: (NUIF_LIMIT_WORK) or result (NUIF_TOO_LARGE) would pass what its size allows
BOUNDED = ("ok", "NUIF_LIMIT_WORK", "NUIF_TOO_LARGE")

DOUBLING = [{"op": "add", "path": "/a", "value": [0]}] + [
    {"op": "copy", "from": "/a", "path": "/a/-"}
] * 26
TINY = '{"nuif":0,"root":{"attrs":{"x":{}},"id":"_r","kind":"k"}}'


def copy_doubling_meta(sizes: Sizes) -> Case:
    patch = canonical(
        {"nuif_patch": 0, "transactions": [{"ops": [{"op": "meta", "patch": DOUBLING}]}]}
    )
    return apply_case(
        "copy-doubling-meta",
        "1 copy doubling",
        f"26 RFC 6902 copies doubling a value inside one meta op ({len(patch):,} B patch)",
        TINY,
        patch,
        expect=("NUIF_TOO_LARGE",),
        sizes=sizes,
    )


def copy_doubling_edit(sizes: Sizes) -> Case:
    op = {"op": "edit", "id": "_r", "attr": "x", "patch": DOUBLING}
    patch = canonical({"nuif_patch": 0, "transactions": [{"ops": [op]}]})
    return apply_case(
        "copy-doubling-edit",
        "1 copy doubling",
        f"the same 27 RFC 6902 operations inside one edit op ({len(patch):,} B patch)",
        TINY,
        patch,
        expect=("NUIF_TOO_LARGE",),
        sizes=sizes,
    )


def _big_meta(sizes: Sizes) -> str:
    # meta holds one array of empty arrays: 3 bytes of text per Python object, the most objects
    # a value of this size can hold (a per-op deep copy would copy every one of them)
    frame = len(canonical({"meta": {"big": []}, "nuif": 0, "root": {"id": "_r", "kind": "k"}}))
    n = (sizes.document - frame + 1) // 3
    doc = canonical({"meta": {"big": [[]] * n}, "nuif": 0, "root": {"id": "_r", "kind": "k"}})
    assert len(doc) <= sizes.document
    return doc


def _empty_metas(sizes: Sizes, inverse: bool) -> Case:
    doc = _big_meta(sizes)
    patch = patch_text([{"op": "meta", "patch": []}] * sizes.ops, sizes.per_tx)
    suffix = "-inverse" if inverse else ""
    return apply_case(
        f"empty-meta-ops{suffix}",
        "2 per-op copies",
        f"{sizes.ops:,} empty meta ops, meta holding {len(doc):,} B of [[],[],…]"
        + (", with the inverse" if inverse else ""),
        doc,
        patch,
        expect=BOUNDED,
        inverse=inverse,
        sizes=sizes,
        result=doc,  # empty JSON Patches change nothing
    )


def empty_metas(sizes: Sizes) -> Case:
    return _empty_metas(sizes, False)


def empty_metas_inverse(sizes: Sizes) -> Case:
    return _empty_metas(sizes, True)


def _root_hash(doc: str) -> str:
    return nuif_core.Session(doc, limits=Limits.MCP).node_hash("_root")


def root_hash_tests(sizes: Sizes) -> Case:
    doc, ids = wide_document(sizes.document, {"t": "x"})
    ops = [{"op": "test", "id": "_root", "hash": _root_hash(doc)}] * sizes.ops
    return apply_case(
        "root-hash-tests",
        "3 hash tests",
        f"{sizes.ops:,} test ops of the root's hash, {len(ids):,}-child document of {len(doc):,} B",
        doc,
        patch_text(ops, sizes.per_tx),
        expect=BOUNDED,
        sizes=sizes,
        result=doc,
    )


def root_hash_tests_with_sets(sizes: Sizes) -> Case:
    doc, _ = wide_document(sizes.document, {"t": "x"})
    test = {"op": "test", "id": "_root", "hash": _root_hash(doc)}
    same = {"op": "set", "id": "_root", "attr": "t", "value": "x"}  # keeps the hash true
    ops = [same, test] * (sizes.ops // 2)
    return apply_case(
        "root-hash-tests-with-sets",
        "3 hash tests",
        f"{sizes.ops // 2:,} × (set the root's attribute to its value, test the root's hash), "
        f"{len(doc):,} B",
        doc,
        patch_text(ops, sizes.per_tx),
        expect=BOUNDED,
        sizes=sizes,
        result=doc,  # every set writes the value already there
    )


def moves_wide(sizes: Sizes) -> Case:
    doc, ids = wide_document(sizes.document)
    # the last child to the front, again and again: every remembered position is stale
    ops = [
        {"op": "move", "id": ids[-1 - i], "parent": "_root", "index": 0} for i in range(sizes.ops)
    ]
    k = sizes.ops
    rotated = canonical(
        {
            "nuif": 0,
            "root": {"children": leaf_nodes(ids[-k:] + ids[:-k]), "id": "_root", "kind": "k"},
        }
    )
    return apply_case(
        "moves-wide-parent",
        "4 moves",
        f"{sizes.ops:,} moves of the last child to the front of a {len(ids):,}-child parent",
        doc,
        patch_text(ops, sizes.per_tx),
        expect=BOUNDED,
        sizes=sizes,
        result=rotated,  # the last k children, in their order, then the others
    )


SPINE = 40


def subtree_down_and_back(sizes: Sizes) -> Case:
    # _big: a chain of SPINE nodes whose last one holds as many leaves as fit; _box: a sibling.
    # Every move into _box makes the whole subtree one level deeper (its height matters for the
    # depth limit); every move back restores it.
    def spine(kids: list[dict[str, Any]]) -> dict[str, Any]:
        node: dict[str, Any] = {"children": kids, "id": f"_s{SPINE - 1}", "kind": "k"}
        for d in range(SPINE - 2, -1, -1):
            node = {"children": [node], "id": f"_s{d}" if d else "_big", "kind": "k"}
        return node

    def doc_of(kids: list[dict[str, Any]]) -> str:
        root = {"children": [spine(kids), {"id": "_box", "kind": "k"}], "id": "_root", "kind": "k"}
        return canonical({"nuif": 0, "root": root})

    frame = len(doc_of([]))
    # 64 bytes of room: the first move gives _box a "children" member (the result must fit)
    ids = leaves(sizes.document - frame - 64)
    doc = doc_of(leaf_nodes(ids))
    assert len(doc) <= sizes.document
    ops: list[dict[str, Any]] = []
    for _ in range(sizes.ops // 2):
        ops.append({"op": "move", "id": "_big", "parent": "_box"})
        ops.append({"op": "move", "id": "_big", "parent": "_root", "index": 0})
    return apply_case(
        "subtree-down-and-back",
        "4 moves",
        f"a {len(ids) + SPINE:,}-node subtree moved one level down and back "
        f"{sizes.ops // 2:,} times",
        doc,
        patch_text(ops, sizes.per_tx),
        expect=BOUNDED,
        sizes=sizes,
        result=doc,  # back where it started
    )


def _reversed(doc: str, start: int) -> str:
    value = json.loads(doc)
    kids = value["root"]["children"]
    kids[start:] = kids[start:][::-1]
    return canonical(value)


def reverse_widest(sizes: Sizes) -> Case:
    # the widest parent whose reversal diff fits the patch limit: past ~4,096 children the diff
    # is one replace of the root carrying the whole document, so it needs a little room
    doc, ids = wide_document(sizes.document - 512)
    target = _reversed(doc, 0)
    patch = nuif_core.diff(doc, target, limits=Limits.MCP).decode()
    return apply_case(
        "reverse-widest-from-diff",
        "5 reversal",
        f"the diff reversing all {len(ids):,} children, applied ({len(patch):,} B patch)",
        doc,
        patch,
        expect=BOUNDED,
        sizes=sizes,
        result=target,
    )


def reverse_tail(sizes: Sizes) -> Case:
    doc, ids = wide_document(sizes.document)
    target = _reversed(doc, len(ids) - sizes.ops)
    patch = nuif_core.diff(doc, target, limits=Limits.MCP).decode()
    return apply_case(
        "reverse-tail-from-diff",
        "5 reversal",
        f"the diff reversing the last {sizes.ops:,} of {len(ids):,} children, applied "
        f"({len(patch):,} B patch)",
        doc,
        patch,
        expect=BOUNDED,
        sizes=sizes,
        result=target,
    )


def set_past_limit(sizes: Sizes) -> Case:
    big = int(0.9 * MiB)
    doc = canonical({"nuif": 0, "root": {"attrs": {"a": "x" * big}, "id": "_r", "kind": "k"}})
    op = {"op": "set", "id": "_r", "attr": "b", "value": "y" * big}
    return apply_case(
        "set-past-limit",
        "6 result size",
        f"a {len(doc):,} B document + a set of a {big:,} B string (the result would pass 1 MiB)",
        doc,
        patch_text([op], sizes.per_tx),
        expect=("NUIF_TOO_LARGE",),
        inverse=True,
        sizes=sizes,
    )


def _bad_id(name: str, rid: Any) -> Callable[[Sizes], Case]:
    def build(sizes: Sizes) -> Case:
        msg = rpc(rid, "tools/call", {"name": "validate", "arguments": {"document": SMALL_DOC}})
        return Case(
            f"id-{name}",
            "7 protocol",
            f"tools/call validate with id {json.dumps(rid)}",
            ("rpc -32600",),
            raw=encode(msg),
            answer_id=None,
            wait_s=ID_WAIT_S,
        )

    return build


NESTING = 100_000


def nested_params(sizes: Sizes) -> Case:
    head = encode(rpc(7, "tools/call", {"name": "validate", "arguments": {"document": 0}}))
    raw = head.replace(b'"document":0', b'"document":' + b"[" * NESTING + b"]" * NESTING)
    return Case(
        "nested-100k-arrays",
        "7 protocol",
        f"a valid JSON-RPC line nesting {NESTING:,} arrays in params ({len(raw):,} B)",
        ("rpc -32700", "rpc -32600", "rpc -32602"),
        raw=raw,
        answer_id=ANY_ID,
        forbid="not valid UTF-8",
    )


#: every case, in the issue's order: name → builder (built only when selected)
BUILDERS: dict[str, Callable[[Sizes], Case]] = {
    "copy-doubling-meta": copy_doubling_meta,
    "copy-doubling-edit": copy_doubling_edit,
    "empty-meta-ops": empty_metas,
    "empty-meta-ops-inverse": empty_metas_inverse,
    "root-hash-tests": root_hash_tests,
    "root-hash-tests-with-sets": root_hash_tests_with_sets,
    "moves-wide-parent": moves_wide,
    "subtree-down-and-back": subtree_down_and_back,
    "reverse-widest-from-diff": reverse_widest,
    "reverse-tail-from-diff": reverse_tail,
    "set-past-limit": set_past_limit,
    "id-null": _bad_id("null", None),
    "id-float": _bad_id("float", 1.5),
    "id-bool": _bad_id("bool", True),
    "id-object": _bad_id("object", {"n": 1}),
    "id-array": _bad_id("array", [1]),
    "nested-100k-arrays": nested_params,
}


def select(patterns: str | None) -> list[str]:
    """The case names matching a comma-separated list of names or fnmatch patterns."""
    if not patterns:
        return list(BUILDERS)
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    names = [n for n in BUILDERS if any(fnmatch.fnmatchcase(n, p) for p in wanted)]
    unknown = [p for p in wanted if not any(fnmatch.fnmatchcase(n, p) for n in BUILDERS)]
    if unknown:
        raise SystemExit(f"no case matches {', '.join(unknown)} (--list shows the names)")
    return names


def build(names: Sequence[str], sizes: Sizes) -> list[Case]:
    return [BUILDERS[n](sizes) for n in names]


# ---------------------------------------------------------------------------------------------
# the server on pipes, every wait bounded


class Closed(Exception):
    """The server closed its end (stdout at end of file, or stdin's pipe broken)."""


class Server:
    """A ``nuif-mcp`` process on non-blocking pipes; stderr goes to a temporary file."""

    def __init__(self, cmd: Sequence[str] | None = None, memory_cap_mb: int | None = None) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        cap = memory_cap_mb * MiB if memory_cap_mb else None

        def limit() -> None:  # in the child, before exec
            if cap is not None:
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

        self.proc = subprocess.Popen(
            list(cmd or server_command()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            preexec_fn=limit if cap is not None else None,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buf = bytearray()
        self._eof = False
        self._stderr_text = ""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_some(self) -> None:
        try:
            chunk = os.read(self._out, 1 << 20)
        except BlockingIOError:
            return
        if chunk:
            self._buf += chunk
        else:
            self._eof = True

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` whole, reading stdout meanwhile (so that neither side can block the
        other); TimeoutError past ``deadline``, Closed if the server stopped reading."""
        view = memoryview(data)
        with selectors.DefaultSelector() as sel:
            sel.register(self._in, selectors.EVENT_WRITE)
            if not self._eof:
                sel.register(self._out, selectors.EVENT_READ)
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the server did not read the request in time")
                for key, _ in sel.select(left):
                    if key.fd == self._out:
                        self._read_some()
                        if self._eof:
                            sel.unregister(self._out)
                    else:
                        try:
                            n = os.write(self._in, view[: 1 << 16])
                        except BlockingIOError:
                            continue
                        except BrokenPipeError as exc:
                            raise Closed("the server closed its stdin") from exc
                        view = view[n:]

    def receive(self, deadline: float) -> bytes | None:
        """The next line from stdout, or None when none is complete by ``deadline``; Closed at
        end of file."""
        with selectors.DefaultSelector() as sel:
            sel.register(self._out, selectors.EVENT_READ)
            while True:
                nl = self._buf.find(b"\n")
                if nl >= 0:
                    line = bytes(self._buf[: nl + 1])
                    del self._buf[: nl + 1]
                    return line
                if self._eof:
                    raise Closed("the server closed its stdout")
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                if sel.select(left):
                    self._read_some()

    def peak_rss(self) -> int | None:
        """``VmHWM``: the high-water mark of the process's resident memory, in bytes."""
        try:
            for row in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if row.startswith("VmHWM:"):
                    return int(row.split()[1]) * 1024
        except OSError:
            pass
        return None

    def cpu_s(self) -> float | None:
        """User + system CPU time the process has used so far, in seconds."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stderr_tail(self, n: int = 2000) -> str:
        if not self._stderr.closed:
            self._stderr.seek(0)
            self._stderr_text = self._stderr.read().decode("utf-8", "replace")
        return self._stderr_text[-n:]

    def close(self) -> int | None:
        """Close stdin (the graceful shutdown) and wait; kill past the bounded wait.  The exit
        status; stderr stays readable through :meth:`stderr_tail`."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self._stderr.closed:
            return self.proc.returncode
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.proc.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=EXIT_WAIT_S)
        self.proc.stdout.close()
        self.stderr_tail()
        self._stderr.close()
        return self.proc.returncode


# ---------------------------------------------------------------------------------------------
# running a case


@dataclass
class Answer:
    label: str  # "ok", a NUIF code, "rpc <code>", "no answer", "closed", "not JSON-RPC"
    id: Any = None
    message: str | None = None
    pointer: str | None = None
    result: dict[str, Any] | None = None  # structuredContent of a tool result / error data

    def text(self) -> str:
        if self.label == "ok":
            return "ok"
        if self.label.startswith("NUIF_"):
            return f"{self.label} at {self.pointer}" if self.pointer else self.label
        if self.label.startswith("rpc "):
            return f"{self.label} id={json.dumps(self.id)}"
        return self.label


def classify(raw: bytes) -> Answer:
    """What one stdout line says: a tool result, a tool error, a JSON-RPC error."""
    try:
        msg = json.loads(raw)
    except ValueError:
        return Answer("not JSON-RPC", message=raw[:200].decode("utf-8", "replace"))
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or "id" not in msg:
        return Answer("not JSON-RPC", message=raw[:200].decode("utf-8", "replace"))
    rid = msg["id"]
    if isinstance(msg.get("error"), dict):
        err = msg["error"]
        return Answer(
            f"rpc {err.get('code')}", id=rid, message=err.get("message"), result=err.get("data")
        )
    result = msg.get("result")
    if not isinstance(result, dict):
        return Answer("not JSON-RPC", id=rid)
    if result.get("isError"):
        info = (result.get("_meta") or {}).get("dev.nuif/error") or {}
        text = (result.get("content") or [{}])[0].get("text", "")
        code = info.get("code") or text.split(":", 1)[0]
        return Answer(code, id=rid, message=info.get("message", text), pointer=info.get("pointer"))
    return Answer("ok", id=rid, result=result.get("structuredContent"))


@dataclass
class Outcome:
    case: str
    klass: str
    title: str
    request_bytes: int
    answer: str  # Answer.text()
    answer_detail: dict[str, Any]
    wall_s: float | None  # None: no answer
    cpu_s: float | None  # the server's user + system CPU time over the same span
    peak_rss_bytes: int | None
    idle_rss_bytes: int | None
    next_ok: bool
    late: list[str] = field(default_factory=list)  # messages before the next request's answer
    exit_code: int | None = None
    failures: list[str] = field(default_factory=list)  # why the done-when is not met
    stderr_tail: str = ""
    build_s: float | None = None  # building the input in this process (diff included)

    @property
    def met(self) -> bool:
        return not self.failures


def judge(
    case: Case, answer: Answer, wall_s: float | None, peak: int | None, next_ok: bool
) -> list[str]:
    """Issue 14's done-when for one case: the list of what is not met (empty: met)."""
    out: list[str] = []
    if answer.label not in case.expect:
        out.append(f"answer {answer.text()}, the issue accepts {' / '.join(case.expect)}")
    elif case.answer_id != ANY_ID and answer.id != case.answer_id:
        out.append(f"answer id {json.dumps(answer.id)}, expected {json.dumps(case.answer_id)}")
    if (
        answer.label == "ok"
        and case.expect_document is not None
        and (answer.result or {}).get("document") != case.expect_document
    ):
        out.append("the result is not the document the patch must give")
    if case.forbid and answer.message and case.forbid in answer.message:
        out.append(f"message says {case.forbid!r}: {answer.message}")
    if wall_s is None:
        if answer.label in case.expect:  # e.g. "closed" would already be listed above
            out.append("no answer")
    elif wall_s > WALL_LIMIT_S:
        out.append(f"{wall_s:.2f} s > {WALL_LIMIT_S:g} s")
    if peak is None or peak >= RSS_LIMIT_BYTES:
        out.append("peak RSS unknown" if peak is None else f"peak RSS {peak / 1e6:.0f} MB ≥ 300 MB")
    if not next_ok:
        out.append("the next request was not served")
    return out


def run_case(
    case: Case,
    *,
    timeout: float = 120.0,
    memory_cap_mb: int | None = 4096,
    cmd: Sequence[str] | None = None,
) -> tuple[Outcome, Answer]:
    """Run one case on a fresh server (see the module docstring)."""
    line = case.line()
    if len(line) - 1 > LINE_LIMIT:
        raise ValueError(f"{case.name}: the request line is {len(line):,} bytes, over 4 MiB")
    wait = case.wait_s if case.wait_s is not None else timeout
    with Server(cmd, memory_cap_mb) as srv:
        srv.send(DISCOVER, time.monotonic() + START_WAIT_S)
        first = srv.receive(time.monotonic() + START_WAIT_S)
        if first is None or classify(first).id != "discover":
            raise RuntimeError(
                f"the server did not answer server/discover: {first!r}\n{srv.stderr_tail()}"
            )
        idle = srv.peak_rss()

        wall: float | None = None
        cpu0 = srv.cpu_s()
        t0 = time.perf_counter()
        deadline = time.monotonic() + wait
        try:
            srv.send(line, deadline)
            raw = srv.receive(deadline)
            wall = time.perf_counter() - t0 if raw is not None else None
            answer = classify(raw) if raw is not None else Answer(f"no answer ({wait:g} s)")
        except Closed:
            answer = Answer("closed")
        except TimeoutError:
            answer = Answer(f"no answer ({wait:g} s)")
        peak = srv.peak_rss()
        cpu1 = srv.cpu_s()
        cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0

        next_ok = False
        late: list[str] = []
        if answer.label != "closed":
            try:
                deadline = time.monotonic() + NEXT_WAIT_S
                srv.send(NEXT, deadline)
                while (raw := srv.receive(deadline)) is not None:
                    got = classify(raw)
                    if got.id == NEXT_ID:
                        next_ok = got.label == "ok" and (got.result or {}).get("valid") is True
                        break
                    late.append(got.text())
            except (Closed, TimeoutError):
                pass
        code = srv.close()
        tail = srv.stderr_tail()

    outcome = Outcome(
        case=case.name,
        klass=case.klass,
        title=case.title,
        request_bytes=len(line),
        answer=answer.text(),
        answer_detail={
            "label": answer.label,
            "id": answer.id,
            "message": answer.message,
            "pointer": answer.pointer,
        },
        wall_s=wall,
        cpu_s=cpu,
        peak_rss_bytes=peak,
        idle_rss_bytes=idle,
        next_ok=next_ok,
        late=late,
        exit_code=code,
        failures=judge(case, answer, wall, peak, next_ok),
        stderr_tail=tail
        if code not in (0, None) or answer.label in ("closed", "rpc -32603")
        else "",
    )
    return outcome, answer


# ---------------------------------------------------------------------------------------------
# output


def table(outcomes: Sequence[Outcome]) -> str:
    rows = [("case", "wall s", "cpu s", "peak MB", "idle MB", "answer", "next ok", "done-when")]
    for o in outcomes:
        rows.append(
            (
                o.case,
                "—" if o.wall_s is None else f"{o.wall_s:.3f}",
                "?" if o.cpu_s is None else f"{o.cpu_s:.2f}",
                "?" if o.peak_rss_bytes is None else f"{o.peak_rss_bytes / 1e6:.0f}",
                "?" if o.idle_rss_bytes is None else f"{o.idle_rss_bytes / 1e6:.0f}",
                o.answer,
                "yes" if o.next_ok else "NO",
                "met" if o.met else "NOT met: " + "; ".join(o.failures),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for k, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    try:
        info["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    info["nuif_codec"] = nuif_codec()
    return info


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.adversarial",
        description="Issue 14's adversarial cases through a real nuif-mcp: "
        "wall time, peak RSS, answer.",
    )
    ap.add_argument("--cases", help="comma-separated case names or fnmatch patterns (default: all)")
    ap.add_argument("--json", metavar="OUT", type=Path, help="write the outcomes as JSON to OUT")
    ap.add_argument("--list", action="store_true", help="list the case names and exit")
    ap.add_argument(
        "--scale", type=float, default=1.0, help="shrink documents and operation counts (0, 1]"
    )
    ap.add_argument(
        "--timeout", type=float, default=120.0, help="bounded wait for an answer, s (default 120)"
    )
    ap.add_argument(
        "--memory-cap-mb",
        type=int,
        default=4096,
        help="the server's address-space cap, MiB (0: none; default 4096)",
    )
    args = ap.parse_args(argv)
    if args.list:
        for name in BUILDERS:
            print(name)
        return 0
    names = select(args.cases)
    sizes = Sizes.at(args.scale)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    outcomes: list[Outcome] = []
    for name in names:
        t = time.perf_counter()
        (case,) = build([name], sizes)
        built = time.perf_counter() - t
        outcome, _ = run_case(case, timeout=args.timeout, memory_cap_mb=args.memory_cap_mb or None)
        outcome.build_s = built
        outcomes.append(outcome)
        print(
            f"{name}: {outcome.answer}, "
            + ("no answer" if outcome.wall_s is None else f"{outcome.wall_s:.3f} s")
            + f", peak {outcome.peak_rss_bytes and outcome.peak_rss_bytes / 1e6:.0f} MB"
            + f" (input built in {built:.1f} s)",
            file=sys.stderr,
            flush=True,
        )
    print(table(outcomes))
    met = sum(o.met for o in outcomes)
    print(
        f"\n{met} of {len(outcomes)} cases meet their bound "
        f"(≤ {WALL_LIMIT_S:g} s, < 300 MB, next request served)"
    )
    if args.json:
        doc = {
            "started": started,
            "machine": machine(),
            "server": server_command(),
            "scale": args.scale,
            "sizes": asdict(sizes),
            "limits": {"wall_s": WALL_LIMIT_S, "peak_rss_bytes": RSS_LIMIT_BYTES},
            "memory_cap_mb": args.memory_cap_mb or None,
            "outcomes": [asdict(o) | {"met": o.met} for o in outcomes],
        }
        args.json.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return 0 if met == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
