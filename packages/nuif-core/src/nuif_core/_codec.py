"""Pick the codec: the compiled ``_speedups`` module, or its pure-Python twin.

This is not a public API.  It is the only module of the core that imports either codec: every
other module calls the functions bound here, and tests, benchmarks and fuzzers that need one
codec in particular ask :func:`twin` and :func:`compiled` (the test hook).

* ``NUIF_NO_EXTENSIONS=1`` forces the pure-Python twin.
* ``NUIF_REQUIRE_EXTENSION=1`` makes a missing or broken compiled module an ``ImportError``
  instead of a silent fallback (CI sets it, so the compiled codec is what the tests prove).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import Any

__all__ = [
    "IMPLEMENTATION",
    "canonical_document",
    "canonical_json",
    "canonical_result",
    "compiled",
    "doors",
    "dumps",
    "hash_bytes",
    "inspect_summary",
    "loads",
    "node_spans",
    "routes",
    "schema_report",
    "twin",
    "valid_report",
]

loads: Callable[[bytes, int], Any]
dumps: Callable[[Any, int], bytes]
canonical_json: Callable[[bytes, int], bytes]
#: ``(data, max_depth, max_nodes)`` → the canonical text of a valid NUIF document, or None when
#: the document has any schema problem (text errors raise as in ``canonical_json``)
canonical_document: Callable[[bytes, int, int], bytes | None]
#: ``(data, max_depth, max_nodes, make)`` → ``make(canonical, hash, changed)`` for a valid NUIF
#: document, or None as ``canonical_document`` (``canonicalize`` in one call)
canonical_result: Callable[[bytes, int, int, Callable[[bytes, str, bool], Any]], Any]
#: ``(data, max_depth, max_nodes, make)`` → ``make(True, hash, (), False)`` for a valid NUIF
#: document, or None as ``canonical_document`` (``validate``'s valid report in one call)
valid_report: Callable[[bytes, int, int, Callable[[bool, str, tuple[()], bool], Any]], Any]
#: ``(data, max_depth, max_nodes, max_outline, make, entry, ref)`` → ``make(hash, is_canonical,
#: input_bytes, canonical_bytes, node_count, max_depth, kinds, ref(root_id, root_kind), outline,
#: truncated)`` with ``outline`` a tuple of ``entry(id, kind, depth, children)``, for a valid NUIF
#: document, or None as ``canonical_document`` (``inspect`` in one call)
inspect_summary: Callable[..., Any]
#: ``(data, max_depth, max_nodes, max_diagnostics)`` → ``(found, truncated)``: every NUIF-0 §3
#: problem of a valid JSON text in document order (at most ``max_diagnostics``), each ``(code,
#: message, pointer, line, column)``; ``((), False)`` for a valid document (text errors raise)
schema_report: Callable[
    [bytes, int, int, int], tuple[tuple[tuple[str, str, str, int | None, int | None], ...], bool]
]
#: ``"sha256:"`` + lowercase hex SHA-256 of the bytes
hash_bytes: Callable[[bytes], str]
#: canonical document text → ``(root_start, {id: (start, head_end, kind_start, kind_end, depth)})``
#: (see ``_codec_py.node_spans``); ValueError when the text does not have the canonical layout
node_spans: Callable[[bytes], tuple[int, dict[str, tuple[int, int, int, int, int]]]]


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def _choose() -> tuple[ModuleType, str]:
    """The codec module and its name, as the environment asks (see the module's docstring)."""
    if _truthy("NUIF_NO_EXTENSIONS"):
        if _truthy("NUIF_REQUIRE_EXTENSION"):
            raise ImportError(
                "NUIF_REQUIRE_EXTENSION=1 and NUIF_NO_EXTENSIONS=1 contradict each other"
            )
        return import_module("._codec_py", __package__), "python"
    try:
        return import_module("._speedups", __package__), "compiled"
    except ImportError as exc:  # pragma: no cover - exercised by the packaging tests
        if _truthy("NUIF_REQUIRE_EXTENSION"):
            raise ImportError(
                "NUIF_REQUIRE_EXTENSION=1 but the compiled module nuif_core._speedups did not "
                f"load: {exc}"
            ) from exc
        return import_module("._codec_py", __package__), "python"


_impl, IMPLEMENTATION = _choose()

loads = _impl.loads
dumps = _impl.dumps
canonical_json = _impl.canonical_json
canonical_document = _impl.canonical_document
canonical_result = _impl.canonical_result
valid_report = _impl.valid_report
inspect_summary = _impl.inspect_summary
schema_report = _impl.schema_report
hash_bytes = _impl.hash_bytes
#: the compiled codec's canonicalize and validate, which ``nuif_core`` exports in place of the
#: Python functions (``_speedups_doors.pxi``), or None with the twin
doors: tuple[Callable[..., Any], Callable[..., Any]] | None = (
    (_impl.canonicalize, _impl.validate) if IMPLEMENTATION == "compiled" else None
)
node_spans = _impl.node_spans


def routes() -> tuple[str, ...]:
    """The compiled codec's optional routes, for bug reports and benchmark records
    (``nuif_core.ROUTES``): doubles (``fast_float+dragonbox`` | ``dtoa``), the SHA-256 block
    function (``sha-ni`` | ``armv8`` | ``portable``), byte scanners (``sse2`` | ``portable``) and
    UTF-8 check (``avx2`` | ``ssse3`` | ``neon`` | ``scalar``); ``()`` for the pure-Python twin.
    See docs/format.md."""
    if IMPLEMENTATION != "compiled":
        return ()
    return (_impl.float_backend(), _impl.hash_backend(), _impl.scan_backend(), _impl.utf8_backend())


def twin() -> ModuleType:
    """The pure-Python codec, whichever codec is in use (test hook: the oracle of the twin tests,
    the fuzzers' second opinion)."""
    from . import _codec_py  # on demand: imported at start-up only when it is the codec in use

    return _codec_py


def compiled() -> ModuleType | None:
    """The compiled codec module, or None when it is not built or does not load (test hook: the
    tests and fuzzers that call it directly, whichever codec is in use)."""
    if IMPLEMENTATION == "compiled":
        return _impl
    try:
        from . import _speedups  # on demand: NUIF_NO_EXTENSIONS=1 does not load it at start-up
    except ImportError:
        return None
    return _speedups
