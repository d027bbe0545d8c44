"""csrc/ builds without Python: compiled for WebAssembly with zig (ziglang, pinned in the dev
group) against the plain C host (csrc/nuif_host_libc.h), with no Python headers on any include
path, and called through its exports under wasmtime (pinned too), it gives the bytes, hashes and
errors of the Python codec on the conformance files.

The module is the one packages/nuif-web ships (packages/nuif-core/wasm/build.py builds it from
wasm/nuif_wasm.c, whose header comment gives its exports and answers); tests/web/test_wasm_core.py
runs it under Node with its messages.  The oracle here is the pure-Python twin; an error is
compared by code, JSON Pointer, line and column (which the module computes itself)."""

from __future__ import annotations

import importlib.util
import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from benchmarks import corpus
from nuif_core import NuifError, _codec

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime is in the dev group")
pytest.importorskip("ziglang", reason="ziglang is in the dev group")

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "packages" / "nuif-core"
CSRC = CORE / "csrc"
TWIN = _codec.twin()
MAX_DEPTH = 128
MAX_NODES = 100_000


MODES = {"json": 0, "document": 1, "hash": 2}
#: the NUIF_* code of each reason of a refused text (csrc/nuif_fault.h; 100, 101: nuif_wasm.c)
FAULT_CODES = {100: "NUIF_UTF8", 14: "NUIF_UNICODE", 15: "NUIF_UNICODE", 16: "NUIF_DUPLICATE_KEY",
               17: "NUIF_NUMBER", 18: "NUIF_NUMBER", 19: "NUIF_DEPTH"}  # fmt: skip
REPORT_CODES = ["NUIF_SCHEMA", "NUIF_VERSION", "NUIF_LIMIT_NODES", "NUIF_ID",
                "NUIF_DUPLICATE_ID", "NUIF_KIND", "NUIF_ATTR"]  # fmt: skip


def _build_script() -> Any:
    path = CORE / "wasm" / "build.py"
    spec = importlib.util.spec_from_file_location("nuif_wasm_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def program() -> Path:
    """The module packages/nuif-web ships, built by wasm/build.py (unless current) with the C
    and C++ warnings the extension's strict build has, as errors."""
    return _build_script().ensure()  # type: ignore[no-any-return]


@dataclass
class Answer:
    status: int
    out: bytes
    digest: bytes


class Reader:
    """The fields of an answer of status 1 or 2 (the layout: the top of wasm/nuif_wasm.c)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.i = data, 0

    def u32(self) -> int:
        (v,) = struct.unpack_from("<I", self.data, self.i)
        self.i += 4
        return v  # type: ignore[no-any-return]

    def str(self) -> str:
        n = self.u32()
        self.i += n
        return self.data[self.i - n : self.i].decode()


class Wasm:
    """The compiled module, a fresh instance for each run, called through its exports."""

    def __init__(self, path: Path) -> None:
        self.engine = wasmtime.Engine()
        self.module = wasmtime.Module.from_file(self.engine, str(path))

    def run(
        self,
        data: bytes,
        mode: str = "json",
        max_depth: int = MAX_DEPTH,
        max_nodes: int = MAX_NODES,
        float_libs: int = 1,
    ) -> Answer:
        store = wasmtime.Store(self.engine)
        x = wasmtime.Instance(store, self.module, []).exports(store)
        x["_initialize"](store)
        memory = x["memory"]
        at = x["nuif_input"](store, len(data))
        memory.write(store, data, at)
        status = x["nuif_run"](store, len(data), MODES[mode], max_depth, max_nodes, 100, float_libs)
        start = x["nuif_answer"](store)
        out = memory.read(store, start, start + x["nuif_answer_len"](store))
        digest = memory.read(store, x["nuif_digest"](store), x["nuif_digest"](store) + 32)
        return Answer(status, bytes(out), bytes(digest))


@pytest.fixture(scope="module")
def wasm(program: Path) -> Wasm:
    return Wasm(program)


def error_of(out: bytes) -> tuple[str, str | None, int, int]:
    """(code, pointer, line, column) of a refused text's answer."""
    r = Reader(out)
    what, _, _, line, column, has_pointer = (r.u32() for _ in range(6))
    pointer = r.str()
    return (FAULT_CODES.get(what, "NUIF_PARSE"), pointer if has_pointer else None, line, column)


def expect_json(wasm: Wasm, data: bytes, max_depth: int = MAX_DEPTH, float_libs: int = 1) -> None:
    """The module's answer for ``data`` in mode json is the twin's."""
    got = wasm.run(data, "json", max_depth, float_libs=float_libs)
    want: bytes | tuple[str, str | None, int | None, int | None]
    try:
        want = TWIN.canonical_json(data, max_depth)
    except NuifError as e:
        want = (e.code, e.pointer, e.line, e.column)
    if isinstance(want, bytes):
        assert (got.status, got.out) == (0, want), data[:80]
    else:
        assert got.status == 1, (data[:80], got)
        assert error_of(got.out) == want, data[:80]


def test_no_file_in_csrc_includes_python_or_names_its_api() -> None:
    """The WebAssembly build would fail without the first; the second keeps a CPython call from
    hiding behind a macro only the extension defines."""
    files = sorted(p for p in CSRC.iterdir() if p.suffix in (".h", ".c", ".cpp"))
    assert len(files) > 20
    for path in files:
        text = path.read_text()
        assert not re.search(r'#\s*include\s*[<"](Python|structmember)\.h', text), path.name
        assert not re.findall(r"\b_?Py[A-Z][A-Za-z]*_\w*|\bPyObject\b", text), path.name


def test_every_json_test_suite_file_gives_the_twins_answer(wasm: Wasm, testdata: Path) -> None:
    files = sorted((testdata / "JSONTestSuite" / "test_parsing").iterdir())
    assert len(files) > 300
    for path in files:
        expect_json(wasm, path.read_bytes())


def test_the_rfc_8785_and_cyberphone_vectors_canonicalize_byte_for_byte(
    wasm: Wasm, testdata: Path
) -> None:
    base = testdata / "jcs-cyberphone" / "testdata"
    for path in sorted((base / "input").iterdir()):
        want = (base / "output" / path.name).read_bytes()
        assert wasm.run(path.read_bytes(), "json").out == want
    examples = testdata / "rfc8785-examples"
    for name in ("section-3.2.2-input.json", "section-3.2.3-sort-input.json"):
        expect_json(wasm, (examples / name).read_bytes())


@pytest.mark.parametrize("float_libs", [1, 0], ids=["vendored", "libc-fallback"])
def test_every_es6_number_is_written_exactly(wasm: Wasm, testdata: Path, float_libs: int) -> None:
    """The 10,000 doubles of the ES6 file, one array, through the vendored libraries and through
    the plain C host's fallback (strtod, and printf's shortest round-trip digits)."""
    lines = (testdata / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().split()
    texts = [line.split(",")[1] for line in lines]
    data = ("[" + ",".join(texts) + "]").encode()
    got = wasm.run(data, "json", float_libs=float_libs)
    assert got.status == 0
    assert got.out.decode()[1:-1].split(",") == texts
    # the same doubles as literals the libraries do not take (an exponent beyond their range)
    odd = b"[1e-400, 123456789012345678901234567890e-9999, 1e400, 0.1e-999]"
    expect_json(wasm, odd, float_libs=float_libs)


def documents() -> Iterator[bytes]:
    for shape in ("ui", "strings", "numbers"):
        yield corpus.load(shape, "64KiB")
    for n in range(0, 130, 7):  # canonical texts ending at every offset of a 64-byte block
        yield json.dumps(
            {"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"t": "x" * n}}}
        ).encode()


def test_documents_give_the_same_canonical_text_and_hash(wasm: Wasm) -> None:
    import nuif_core

    for data in documents():
        want = nuif_core.canonicalize(data)
        got = wasm.run(data, "hash")
        assert got.status == 0
        assert (got.out, "sha256:" + got.digest.hex()) == (want.canonical, want.hash)
        assert wasm.run(data, "document").out == want.canonical


SCHEMA_BAD = [
    b"[]",
    b'{"nuif": 2, "root": {"id": "a", "kind": "k"}}',
    b'{"root": {"id": "a", "kind": "k"}, "nuif": "0", "meta": [], "x~y/z": {}}',
    b'{"nuif": 0, "root": {"id": 1, "kind": null, "attrs": [], "children": {}}}',
    '{"nuif": 0, "root": {"id": "\u00e9", "kind": "b\u00e9", "attrs": {"\u00e9": 1}}}'.encode(),
    b'{"nuif": 0,\r\n "root": {"id": "a", "kind": "k",\r\n  "children": [\r\n'
    b'  {"id": "b", "kind": "k"}, {"id": "b", "kind": "k", "q/~": 1}, 7, {"kind": "k"}]}}',
]


@pytest.mark.parametrize("max_nodes", [MAX_NODES, 2])
def test_schema_problems_are_found_and_located_as_the_twin_finds_them(
    wasm: Wasm, max_nodes: int
) -> None:
    """The reporter (csrc/nuif_report.h) without Python: each problem's code, line, column and
    pointer (its message is worded by the host; a C program prints none)."""
    for data in SCHEMA_BAD:
        found, _ = TWIN.schema_report(data, MAX_DEPTH, max_nodes, 100)
        got = wasm.run(data, "document", MAX_DEPTH, max_nodes)
        assert got.status == 2, data
        r = Reader(got.out)
        count, _ = r.u32(), r.u32()
        findings = []
        for _ in range(count):
            code, _, line, column, _ = (r.u32() for _ in range(5))
            pointer, _, _ = r.str(), r.str(), r.str()
            findings.append((REPORT_CODES[code], pointer, line, column))
        assert findings == [(f[0], f[2], f[3], f[4]) for f in found], data


def test_an_invalid_document_and_the_limits_are_refused_as_the_twin_refuses_them(
    wasm: Wasm,
) -> None:
    not_a_document = b'{"nuif": 0, "root": {"id": "a", "kind": "b", "children": {}}}'
    assert TWIN.canonical_document(not_a_document, MAX_DEPTH, MAX_NODES) is None
    assert wasm.run(not_a_document, "document").status == 2
    assert wasm.run(not_a_document, "json").status == 0
    deep = b"[" * 200 + b"]" * 200
    expect_json(wasm, deep)
    expect_json(wasm, deep, 500)
    doc = b'{"nuif": 0, "root": {"id": "a", "kind": "b", "children": [{"id": "c", "kind": "d"}]}}'
    assert wasm.run(doc, "document", MAX_DEPTH, 1).status == 2
    assert wasm.run(doc, "document", MAX_DEPTH, 2).status == 0


def test_text_errors_at_every_site_give_the_twins_code_pointer_line_and_column(
    wasm: Wasm,
) -> None:
    cases = [
        b"",
        b" ",
        b"\xef\xbb\xbf[]",
        b"[1,]",
        b'{"a" 1}',
        b'{"a":1,"a":2}',
        b'{"a":{"b":[1,{"c":1,"c":2}]}}',
        b'[1, 2, {"x~/y": [1, 2, "\\ud800"]}]',
        b'{"\\ud800": 1}',
        b'["\\uFDD0"]',
        b"[1e400]",
        b"[9007199254740993]",
        b'["a\x01"]',
        b"[tru]",
        b"[nul]",
        b"[-]",
        b"[01]",
        b'["\\x"]',
        b'["\\u12"]',
        b"\n\n  [1 2]",
        b'["\xc3\xa9", "\xc3"]',
        b"{,}",
        b"[1]x",
        b'{"a":1,}',
    ]
    for data in cases:
        expect_json(wasm, data)
