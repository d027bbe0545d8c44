"""csrc/ builds without Python: compiled for wasm32-wasi with zig (ziglang, pinned in the dev
group) against the plain C host (csrc/nuif_host_libc.h), with no Python headers on any include
path, and run under wasmtime (pinned too), it gives the bytes, hashes and errors of the Python
codec on the conformance files.

The program is packages/nuif-core/wasm/nuif_wasm.c (its header comment says what it prints).
The oracle is the pure-Python twin; an error is compared by code, JSON Pointer, line and column
(the program prints the byte offset, from which ``_errors.line_column`` makes both)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks import corpus
from nuif_core import NuifError, _codec
from nuif_core._errors import line_column

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime is in the dev group")
pytest.importorskip("ziglang", reason="ziglang is in the dev group")

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "packages" / "nuif-core"
CSRC = CORE / "csrc"
TWIN = _codec.twin()
MAX_DEPTH = 128
MAX_NODES = 100_000


def zig(*args: str, cwd: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "ziglang", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-6000:]
    assert "warning" not in build.stderr, build.stderr[-6000:]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """nuif_wasm.c, csrc/nuif_sha256.c and csrc/nuif_float.cpp compiled for wasm32-wasi with
    the C and C++ warnings the extension's strict build has, as errors."""
    out = tmp_path_factory.mktemp("wasm")
    warn = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", "-Wno-unused-function"]
    target = ["-target", "wasm32-wasi", "-O2"]
    zig(
        "cc",
        *target,
        "-std=c11",
        *warn,
        f"-I{CSRC}",
        "-c",
        str(CORE / "wasm" / "nuif_wasm.c"),
        "-o",
        "main.o",
        cwd=out,
    )
    zig("cc", *target, "-std=c11", *warn, "-c", str(CSRC / "nuif_sha256.c"), "-o", "sha.o", cwd=out)
    zig(
        "c++",
        *target,
        "-std=c++17",
        "-fno-exceptions",
        *warn,
        f"-isystem{CSRC / 'third_party'}",
        "-c",
        str(CSRC / "nuif_float.cpp"),
        "-o",
        "float.o",
        cwd=out,
    )
    zig("c++", *target, "main.o", "sha.o", "float.o", "-o", "nuif.wasm", cwd=out)
    return out / "nuif.wasm"


@dataclass
class Answer:
    status: int
    out: bytes


class Wasm:
    """The compiled module, instantiated afresh for each run (a WASI command runs once)."""

    def __init__(self, path: Path) -> None:
        self.engine = wasmtime.Engine()
        self.module = wasmtime.Module.from_file(self.engine, str(path))
        self.linker = wasmtime.Linker(self.engine)
        self.linker.define_wasi()
        self.dir = Path(tempfile.mkdtemp(prefix="nuif-wasm-"))

    def run(self, data: bytes, *args: str) -> Answer:
        src, dst = self.dir / "in", self.dir / "out"
        src.write_bytes(data)
        config = wasmtime.WasiConfig()
        config.argv = ["nuif", *args]
        config.stdin_file = str(src)
        config.stdout_file = str(dst)
        store = wasmtime.Store(self.engine)
        store.set_wasi(config)
        instance = self.linker.instantiate(store, self.module)
        try:
            instance.exports(store)["_start"](store)
            status = 0
        except wasmtime.ExitTrap as exit:
            status = exit.code
        return Answer(status, dst.read_bytes())


@pytest.fixture(scope="module")
def wasm(program: Path) -> Iterator[Wasm]:
    w = Wasm(program)
    yield w
    for f in w.dir.iterdir():
        f.unlink()
    w.dir.rmdir()


def error_of(data: bytes, line: bytes) -> tuple[str, str | None, int, int]:
    """(code, pointer, line, column) of the program's error line for ``data``."""
    code, offset, pointer = line.decode().rstrip("\n").split(" ", 2)
    return (code, None if pointer == "-" else pointer, *line_column(data, int(offset)))


def expect_json(wasm: Wasm, data: bytes, *args: str) -> None:
    """The program's answer for ``data`` in mode json is the twin's."""
    got = wasm.run(data, "json", *args)
    want: bytes | tuple[str, str | None, int | None, int | None]
    try:
        want = TWIN.canonical_json(data, int(args[0]) if args else MAX_DEPTH)
    except NuifError as e:
        want = (e.code, e.pointer, e.line, e.column)
    if isinstance(want, bytes):
        assert (got.status, got.out) == (0, want), data[:80]
    else:
        assert got.status == 1, (data[:80], got)
        assert error_of(data, got.out) == want, data[:80]


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
        assert wasm.run(path.read_bytes(), "json").out == (base / "output" / path.name).read_bytes()
    examples = testdata / "rfc8785-examples"
    for name in ("section-3.2.2-input.json", "section-3.2.3-sort-input.json"):
        expect_json(wasm, (examples / name).read_bytes())


@pytest.mark.parametrize("float_libs", ["1", "0"], ids=["vendored", "libc-fallback"])
def test_every_es6_number_is_written_exactly(wasm: Wasm, testdata: Path, float_libs: str) -> None:
    """The 10,000 doubles of the ES6 file, one array, through the vendored libraries and through
    the plain C host's fallback (strtod, and printf's shortest round-trip digits)."""
    lines = (testdata / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().split()
    texts = [line.split(",")[1] for line in lines]
    data = ("[" + ",".join(texts) + "]").encode()
    got = wasm.run(data, "json", str(MAX_DEPTH), str(MAX_NODES), float_libs)
    assert got.status == 0
    assert got.out.decode()[1:-1].split(",") == texts
    # the same doubles as literals the libraries do not take (an exponent beyond their range)
    odd = b"[1e-400, 123456789012345678901234567890e-9999, 1e400, 0.1e-999]"
    expect_json(wasm, odd, str(MAX_DEPTH), str(MAX_NODES), float_libs)


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
        text, _, digest = got.out.rpartition(b"\n")[0].rpartition(b"\n")
        assert (text, digest.decode()) == (want.canonical, want.hash)
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
        got = wasm.run(data, "document", str(MAX_DEPTH), str(max_nodes))
        assert got.status == 2, data
        lines = [line.split(" ", 3) for line in got.out.decode().splitlines()]
        assert [(c, p, int(ln), int(col)) for c, ln, col, p in lines] == [
            (f[0], f[2], f[3], f[4]) for f in found
        ], data


def test_an_invalid_document_and_the_limits_are_refused_as_the_twin_refuses_them(
    wasm: Wasm,
) -> None:
    not_a_document = b'{"nuif": 0, "root": {"id": "a", "kind": "b", "children": {}}}'
    assert TWIN.canonical_document(not_a_document, MAX_DEPTH, MAX_NODES) is None
    assert wasm.run(not_a_document, "document").status == 2
    assert wasm.run(not_a_document, "json").status == 0
    deep = b"[" * 200 + b"]" * 200
    expect_json(wasm, deep)
    expect_json(wasm, deep, "500")
    doc = b'{"nuif": 0, "root": {"id": "a", "kind": "b", "children": [{"id": "c", "kind": "d"}]}}'
    assert wasm.run(doc, "document", str(MAX_DEPTH), "1").status == 2
    assert wasm.run(doc, "document", str(MAX_DEPTH), "2").status == 0


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
