"""What the browser costs: canonicalize in Pyodide (``uv run pytest benchmarks/bench_web.py
--benchmark-only``).

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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from benchmarks import corpus
from benchmarks.harness import run
from nuif_core import CanonicalResult
from nuif_core._codec import twin

SIZES = ("1KiB", "1MiB")
CALLS = {"1KiB": 50, "1MiB": 1}
IMPLS = ("pyodide", "cpython-pure", "compiled")
CASES = [(size, impl) for size in SIZES for impl in IMPLS]


@pytest.fixture(scope="module")
def pyodide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import sys

    tests_web = Path(__file__).resolve().parents[1] / "tests" / "web"
    sys.path.insert(0, str(tests_web))
    try:
        from nuif_web_support import NodeLines, pyodide_dir
    finally:
        sys.path.remove(str(tests_web))
    from nuif_cli._playground import pure_wheel

    pyodide_dir()  # skips with the reason (or fails under NUIF_REQUIRE_PYODIDE=1)
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
