"""Shared machinery of the NUIF fuzz targets (see docs/fuzzing.md).

Every target imports this module *before* nuif_core, inside ``atheris.instrument_imports``, so
that the Python layers of nuif_core (the pure-Python codec twin, validation, the patch engine,
diff, the package reader) are coverage-instrumented.  The compiled codec is native code: its
coverage is not seen by libFuzzer, but its faults are (run with the AddressSanitizer build:
``fuzz/run.py --asan``).

What every target checks on each input:

* nothing but :class:`nuif_core.NuifError` escapes, and its code is in ``ERROR_CODES``
  (any other exception propagates and libFuzzer records it as a crash);
* the compiled codec and the pure-Python twin agree (codec calls directly; higher layers run once
  under each codec by swapping the functions ``nuif_core._codec`` dispatches to);
* canonical output is a fixed point that re-parses to the same hash, with no exception: since
  NUIF-0.1 an integral double in [2^53, 1e21), which RFC 8785 writes as an integer literal,
  reads back (docs/canonical-json.md, "Large integers").
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import atheris

with atheris.instrument_imports(include=["nuif_core"]):
    import nuif_core
    import nuif_core.package  # imported lazily by nuif_core itself
    from nuif_core import ERROR_CODES, NuifError, _codec

    _codec_py = _codec.twin()
    _speedups = _codec.compiled()  # imported here, so that it is instrumented too
if _speedups is None:  # the fuzzers are about the compiled codec: no fallback
    raise ImportError("the fuzzers need the compiled codec (nuif_core._speedups)")


def _instrument(prefixes: tuple[str, ...]) -> int:
    """Instrument every function of the loaded modules under ``prefixes``.

    ``instrument_imports`` rewrites bytecode while a module is imported, but it cannot see
    modules imported through a custom loader — and an editable install of nuif-core (uv's
    default for the workspace) is exactly that: it warns and leaves the code uninstrumented.
    Instrumenting the function objects after import works for every install, so we do both.
    """
    import types

    count = 0
    seen: set[int] = set()

    def visit(f: Any, module: str) -> None:
        nonlocal count
        f = getattr(f, "__wrapped__", f)  # functools.lru_cache
        if isinstance(f, (staticmethod, classmethod)):
            f = f.__func__
        if isinstance(f, property):
            for g in (f.fget, f.fset, f.fdel):
                visit(g, module)
            return
        if isinstance(f, types.FunctionType) and f.__module__ == module and id(f) not in seen:
            seen.add(id(f))
            atheris.instrument_func(f)
            count += 1

    for name, mod in list(sys.modules.items()):
        if mod is None or not any(name == p or name.startswith(p + ".") for p in prefixes):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, type) and obj.__module__ == name:
                for member in list(vars(obj).values()):
                    visit(member, name)
            else:
                visit(obj, name)
    return count


INSTRUMENTED = _instrument(("nuif_core", "zipfile"))

__all__ = [
    "ERROR_CODES",
    "TWINS",
    "Finding",
    "NuifError",
    "check_error",
    "expect_fixed_point",
    "nuif_core",
    "outcome",
    "shape",
    "split2",
    "twin_outcomes",
    "using",
]

#: (name, module): the compiled codec first, then the pure-Python twin
TWINS = (("compiled", _speedups), ("python", _codec_py))

MAX_SAFE = 2**53 - 1


class Finding(AssertionError):
    """A property violation (raised so libFuzzer records the input as a crash)."""


def fail(message: str, *context: Any) -> None:
    details = "".join(f"\n  {c!r}"[:2000] for c in context)
    raise Finding(message + details)


# -- errors and outcomes ---------------------------------------------------------------------------


def check_error(err: NuifError) -> None:
    """A NuifError is allowed only with a known code and well-typed locations."""
    if err.code not in ERROR_CODES:
        fail(f"unknown error code {err.code!r}", err)
    if not isinstance(err.message, str) or not err.message:
        fail("error without a message", err)
    if err.pointer is not None and not (err.pointer == "" or err.pointer.startswith("/")):
        fail("error pointer is not a JSON Pointer", err)
    for loc in (err.line, err.column):
        if loc is not None and (not isinstance(loc, int) or loc < 1):
            fail("error line/column is not a 1-based int", err)


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """``("ok", result)`` or ``("error", code, message, pointer, line, column)``.

    Only NuifError is caught: any other exception escapes to libFuzzer (a finding).
    """
    try:
        result = fn(*args, **kwargs)
    except NuifError as err:
        check_error(err)
        return ("error", err.code, err.message, err.pointer, err.line, err.column)
    return ("ok", result)


def shape(value: Any) -> Any:
    """A comparable rendering that keeps types (True vs 1, 1 vs 1.0, -0.0) and dict order."""
    if isinstance(value, dict):
        return ("dict", [(k, shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return ("list", [shape(v) for v in value])
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


#: the functions ``nuif_core._codec`` dispatches to (every public callable both codecs have)
CODEC_FUNCTIONS = tuple(
    name
    for name in getattr(_codec, "__all__", ("loads", "dumps", "canonical_json"))
    if callable(getattr(_codec, name, None))
    and hasattr(_speedups, name)
    and hasattr(_codec_py, name)
)


@contextlib.contextmanager
def using(impl: Any) -> Iterator[None]:
    """Run the higher layers of nuif_core over one codec (``_speedups`` or ``_codec_py``)."""
    saved = {name: getattr(_codec, name) for name in CODEC_FUNCTIONS}
    for name in CODEC_FUNCTIONS:
        setattr(_codec, name, getattr(impl, name))
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(_codec, name, fn)


def twin_outcomes(
    fn: Callable[..., Any], *args: Any, render: Callable[[Any], Any] = lambda r: r, **kwargs: Any
) -> tuple[Any, ...]:
    """Run ``fn`` under the compiled codec and under the twin; they must agree.  Returns the
    compiled outcome (with the raw result, not the rendering)."""
    results = []
    for _, impl in TWINS:
        with using(impl):
            out = outcome(fn, *args, **kwargs)
        results.append(out)
    rendered = [(o[0], render(o[1])) if o[0] == "ok" else o for o in results]
    if rendered[0] != rendered[1]:
        fail(
            f"compiled and python twins disagree on {getattr(fn, '__name__', fn)}",
            rendered[0],
            rendered[1],
            args,
        )
    return results[0]


# -- canonical output ------------------------------------------------------------------------------


def expect_fixed_point(canonical: bytes, reread: Callable[[bytes], bytes], what: str) -> None:
    """``reread(canonical)`` must return ``canonical`` again: every canonical text reads back
    (NUIF-0.1), so any refusal of it is a finding."""
    try:
        again = reread(canonical)
    except NuifError as err:
        check_error(err)
        fail(f"{what}: canonical output does not re-read", canonical, err)
    if again != canonical:
        fail(f"{what}: canonical output is not a fixed point", canonical, again)


# -- inputs ----------------------------------------------------------------------------------------

#: separates two texts in a raw input (patch: document / patch; diff: a / b)
SEP = b"\x1e"


def split2(data: bytes) -> tuple[bytes, bytes]:
    a, _, b = data.partition(SEP)
    return a, b


def env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def main(test_one_input: Callable[[bytes], None]) -> None:
    """Run a target under libFuzzer; argv is passed through (``-runs``, ``-max_total_time``…).

    ``NUIF_FUZZ_SCRATCH=BYTES`` (``run.py --scratch BYTES``): the writer keeps output scratch
    buffers of at most BYTES, so longer texts move into their bytes object while they are written
    (``_speedups_buffer.pxi``)."""
    from nuif_core import _codec

    scratch = int(os.environ.get("NUIF_FUZZ_SCRATCH", "0") or 0)
    if scratch > 0:
        _codec.compiled()._settings(scratch_keep=scratch)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


def finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))
