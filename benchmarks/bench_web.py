"""What JavaScript gets (``uv run pytest benchmarks/bench_web.py --benchmark-only``): nuif-web's
WebAssembly core beside the npm peers and the native core, and the Pyodide route.

Groups ``js-canonical-json <shape> <size>`` and ``js-canonicalize <shape> <size>`` (``ui``,
``strings`` and ``numbers`` at 64 KiB, 1 MiB and 16 MiB), timed in one Node process
(``packages/nuif-web/bench/bench-lines.mjs``) and, for ``compiled``, in this one:

* ``wasm``: ``nuif.canonicalJson(text)`` / ``nuif.canonicalize(text)`` (the C core as WebAssembly,
  a JavaScript string in, its canonical text out; the document hash with node:crypto);
* ``wasm-bytes``: ``nuif.canonicalJsonBytes(bytes)``, UTF-8 bytes in and out;
* ``npm-canonicalize``, ``json-canonicalize``: ``JSON.parse`` and the npm package's RFC 8785 writer
  (neither refuses duplicate keys or keeps integers beyond 2^53 exact);
* ``json-parse-stringify``: ``JSON.stringify(JSON.parse(text))``, V8's own parser and writer with
  no sorting and no checks: a floor, not a peer;
* ``compiled``: ``nuif_core.canonical_json`` / ``nuif_core.canonicalize`` on the native codec.

Each Node implementation first runs ``JS_WARM_CALLS`` calls untimed (V8 optimizes hot code after
some calls); a round is then ``JS_CALLS`` calls (timed by pytest-benchmark around one ``repeat``
request, so the pipe's ~0.1 ms is spread over them); every implementation's last output is checked to be
the native core's bytes (``same_bytes`` in extra_info for the peers, asserted for ours).

Group ``web-canonicalize ui <size>``, the 1 KiB and 1 MiB ``ui`` documents, three ways of running
the same ``nuif_core.canonicalize`` (parse, §3 checks, normalize, RFC 8785, SHA-256):

* ``pyodide``: nuif-web under Node — the pure wheel in Pyodide (WebAssembly), called through the
  module's JavaScript API (``nuif.canonicalize(text)``: the JS string into Python, the result back
  as a plain object), in one ``nuif-web-lines.mjs`` process started once.  The text is stored in
  that process first; a round asks it for ``CALLS`` calls on it (``repeat``), so the pipe carries a
  few bytes per round, not the text;
* ``cpython-pure``: the pure-Python twin on this CPython, the call ``canonicalize`` makes when the
  twin is the codec (``_codec_py.canonical_result``; ``NUIF_NO_EXTENSIONS`` is read at import and
  cannot be switched in-process);
* ``compiled``: ``nuif_core.canonicalize`` on the compiled codec.

Every round is ``CALLS`` calls (50 at 1 KiB, 1 at 1 MiB) for all three, so ratios compare like
with like and the pipe's ~0.1 ms is shared among 50 calls.  ``extra_info.in_process_ms`` is the
per-call time Node measured itself (``performance.now()`` around the calls), without the pipe.
Node and the pinned ``pyodide`` (``npm ci --prefix packages/nuif-web``) are needed; without them
the cases skip with that reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from benchmarks import corpus
from benchmarks.harness import run
from nuif_core import CanonicalResult
from nuif_core._codec import twin

JS_SHAPES = ("ui", "strings", "numbers")
JS_SIZES = ("64KiB", "1MiB", "16MiB")
#: calls per round in Node: a round of at least a few milliseconds at every size
JS_CALLS = {"64KiB": 20, "1MiB": 2, "16MiB": 1}
#: calls of each Node implementation before it is timed (its last output is checked)
JS_WARM_CALLS = 10
JS_IMPLS = {
    "js-canonical-json": (
        "wasm",
        "wasm-bytes",
        "npm-canonicalize",
        "json-canonicalize",
        "json-parse-stringify",
        "compiled",
    ),
    "js-canonicalize": ("wasm", "compiled"),
}
JS_NODE_IMPL = {
    ("js-canonical-json", "wasm"): "canonicalJson",
    ("js-canonical-json", "wasm-bytes"): "canonicalJson-bytes",
    ("js-canonicalize", "wasm"): "canonicalize",
}
JS_CASES = [
    (op, shape, size, impl)
    for op, impls in JS_IMPLS.items()
    for shape in JS_SHAPES
    for size in JS_SIZES
    for impl in impls
]

SIZES = ("1KiB", "1MiB")
CALLS = {"1KiB": 50, "1MiB": 1}
IMPLS = ("pyodide", "cpython-pure", "compiled")
CASES = [(size, impl) for size in SIZES for impl in IMPLS]


def _web_support() -> Any:
    """tests/web/nuif_web_support.py, where the Node helpers live (imported by its path)."""
    import sys

    tests_web = Path(__file__).resolve().parents[1] / "tests" / "web"
    sys.path.insert(0, str(tests_web))
    try:
        import nuif_web_support
    finally:
        sys.path.remove(str(tests_web))
    return nuif_web_support


@pytest.fixture(scope="module")
def node_peers() -> Iterator[Any]:
    """bench-lines.mjs: the WebAssembly core and the npm peers, in one Node process."""
    support = _web_support()
    support.pyodide_dir()  # node and `npm ci` (which installs the peers too)
    lines = support.NodeLines(None, script=support.WEB / "bench" / "bench-lines.mjs")
    yield lines
    lines.close()


def _node_calls(lines: Any, impl: str, key: str, calls: int, check: bool = False) -> dict[str, Any]:
    answer = lines.send("repeat", impl, key, calls, check)
    assert "ok" in answer, answer
    return answer["ok"]


def _native_canonical_json(data: bytes, calls: int) -> bytes:
    for _ in range(calls):
        out = nuif_core.canonical_json(data)
    return out


@pytest.mark.parametrize(
    ("op", "shape", "size", "impl"), JS_CASES, ids=["-".join(c) for c in JS_CASES]
)
def test_js(
    benchmark: Any, request: pytest.FixtureRequest, op: str, shape: str, size: str, impl: str
) -> None:
    data = corpus.load(shape, size)
    calls = JS_CALLS[size]
    want = nuif_core.canonical_json(data) if op == "js-canonical-json" else None
    if want is None:
        want = nuif_core.canonicalize(data).canonical
    extra: dict[str, Any] = {"calls_per_round": calls}
    if impl == "compiled":
        fn: Any = _native_canonical_json if op == "js-canonical-json" else _compiled
        args: tuple[Any, ...] = (data, calls)
        role = "ours"
    else:
        lines = request.getfixturevalue("node_peers")
        key = f"{shape}-{size}"
        assert lines.send("store", key, data.decode("utf-8"))["ok"]["length"] > 0
        node_impl = JS_NODE_IMPL.get((op, impl), impl)
        # warm: V8 moves hot WebAssembly and JavaScript to its optimizing tier after some calls
        first = _node_calls(lines, node_impl, key, JS_WARM_CALLS, True)
        same = first["sha256"] == hashlib.sha256(want).hexdigest()
        role = "ours" if impl.startswith("wasm") else "peer"
        if role == "ours":
            assert same, f"{impl} did not give the native core's bytes"
            extra["nuif_codec"] = "wasm"
        else:
            extra["same_bytes"] = same
        fn, args = _node_calls, (lines, node_impl, key, calls)
    run(
        benchmark,
        fn,
        *args,
        op=op,
        shape=shape,
        size=size,
        impl=impl,
        role=role,
        input_bytes=len(data) * calls,
        **extra,
    )


@pytest.fixture(scope="module")
def pyodide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    support = _web_support()
    NodeLines = support.NodeLines
    from nuif_cli._playground import pure_wheel

    support.pyodide_dir()  # skips with the reason (or fails under NUIF_REQUIRE_PYODIDE=1)
    name, data = pure_wheel()  # the release pure wheel's files (tests/web checks that)
    wheel = tmp_path_factory.mktemp("wheel") / name
    wheel.write_bytes(data)
    lines = NodeLines(wheel)
    yield lines
    lines.close()


def _pyodide_calls(lines: Any, key: str, calls: int) -> dict[str, Any]:
    answer = lines.send("repeat", "canonicalize", key, calls)
    assert "ok" in answer, answer
    return answer["ok"]


def _cpython_pure(data: bytes, calls: int) -> CanonicalResult:
    for _ in range(calls):
        result = twin().canonical_result(data, 128, 250_000, CanonicalResult)
    return result


def _compiled(data: bytes, calls: int) -> CanonicalResult:
    for _ in range(calls):
        result = nuif_core.canonicalize(data)
    return result


@pytest.mark.parametrize(("size", "impl"), CASES, ids=[f"{s}-{i}" for s, i in CASES])
def test_web_canonicalize(
    benchmark: Any, request: pytest.FixtureRequest, size: str, impl: str
) -> None:
    data = corpus.load("ui", size)
    calls = CALLS[size]
    expected = nuif_core.canonicalize(data)
    extra: dict[str, Any] = {"calls_per_round": calls}
    if impl == "pyodide":
        lines = request.getfixturevalue("pyodide")
        key = f"ui-{size}"
        assert lines.send("store", key, data.decode("utf-8"))["ok"]["length"] > 0
        # the work is the one claimed: the same hash as the compiled codec
        assert _pyodide_calls(lines, key, 1)["hash"] == expected.hash
        fn, args = _pyodide_calls, (lines, key, calls)
        extra["nuif_codec"] = "python (Pyodide " + lines.ready["pyodide"] + ")"
    elif impl == "cpython-pure":
        assert _cpython_pure(data, 1).hash == expected.hash
        fn, args = _cpython_pure, (data, calls)
        extra["nuif_codec"] = "python"
    else:
        fn, args = _compiled, (data, calls)
    out = run(
        benchmark,
        fn,
        *args,
        op="web-canonicalize",
        shape="ui",
        size=size,
        impl=impl,
        role="ours",
        input_bytes=len(data) * calls,
        slow=impl != "compiled" and size != "1KiB",
        **extra,
    )
    if impl == "pyodide" and out is not None:
        benchmark.extra_info["in_process_ms"] = out["ms_per_call"]
