"""The measuring process of ``benchmarks.compare`` and ``benchmarks.history``.

    python benchmarks/_probe.py SPEC.json

It runs under the interpreter of the build being measured (a revision's own environment), so it
imports nothing from ``benchmarks`` (that would bring the working tree's code along): the calls
below are those of ``benchmarks.impls``, written out again.  SPEC is a JSON object:

* ``docs``: the folder of input files the parent wrote (``{shape}-{size}.json``, and for
  apply-patch ``patch-{label}.doc.json`` / ``.nuif.json`` / ``.rfc6902.json``);
* ``peers``: folders appended to ``sys.path`` *after* the build's own (where ``rfc8785``,
  ``orjson`` and ``jsonpatch`` come from, so every build runs the very same peers);
* ``cases``: names ``"{op} {shape} {size} {impl}"``;
* ``min_batch_s`` and ``batches``: each case is called in batches of as many calls as make a
  batch last at least ``min_batch_s``, ``batches`` times after one warm-up call; its figure is
  the median batch's seconds per call;
* ``clock``: ``"cpu"`` (the default: ``time.process_time``, the CPU time of this process, which
  other processes taking turns on the same CPU do not inflate; the calls start no thread) or
  ``"wall"`` (``time.perf_counter``).

It prints one JSON object: ``{"nuif_core": the file imported, "codec": which codec ran,
"seconds": {case: seconds per call}}``.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _codec_name() -> str:
    try:
        from nuif_core import _codec
    except ImportError:
        return "?"
    if getattr(_codec, "IMPLEMENTATION", "python") != "compiled":
        return "python"
    routes = getattr(_codec, "routes", None)
    return f"compiled ({', '.join(routes())})" if routes else "compiled"


def callables(docs: Path) -> dict[tuple[str, str], Callable[[str, str], Callable[[], Any]]]:
    """(op, impl) → a function of (shape, size) returning the zero-argument call to time."""
    import nuif_core

    def text(shape: str, size: str) -> bytes:
        return (docs / f"{shape}-{size}.json").read_bytes()

    def patch_files(size: str) -> tuple[bytes, bytes, bytes]:
        base = docs / f"patch-{size}"
        return tuple(  # type: ignore[return-value]
            Path(f"{base}.{part}.json").read_bytes() for part in ("doc", "nuif", "rfc6902")
        )

    def canonicalize(shape: str, size: str) -> Callable[[], Any]:
        d = text(shape, size)
        return lambda: nuif_core.canonicalize(d)

    def validate(shape: str, size: str) -> Callable[[], Any]:
        d = text(shape, size)
        return lambda: nuif_core.validate(d)

    def loads(shape: str, size: str) -> Callable[[], Any]:
        d = text(shape, size)
        return lambda: nuif_core.loads(d)

    def dumps(shape: str, size: str) -> Callable[[], Any]:
        value = nuif_core.loads(text(shape, size))
        return lambda: nuif_core.dumps(value)

    def canonical_json(shape: str, size: str) -> Callable[[], Any]:
        d = text(shape, size)
        return lambda: nuif_core.canonical_json(d)

    def validate_late_error(shape: str, size: str) -> Callable[[], Any]:
        # a text error near the end: the last closing brace becomes a colon
        d = text(shape, size)
        cut = d.rindex(b"}")
        bad = d[:cut] + b":" + d[cut + 1 :]
        return lambda: nuif_core.validate(bad)

    def validate_schema_errors(shape: str, size: str) -> Callable[[], Any]:
        # 100 schema problems spread over the document (or one a node, where it has fewer):
        # kinds made invalid by a leading capital
        d = text(shape, size)
        spots = [m.end() for m in re.finditer(rb'"kind":\s*"', d)]
        chosen = spots[:: max(1, len(spots) // 100)][:100]
        out, last = [], 0
        for at in chosen:
            out += [d[last:at], b"X"]
            last = at
        bad = b"".join([*out, d[last:]])
        return lambda: nuif_core.validate(bad)

    def rfc(shape: str, size: str) -> Callable[[], Any]:
        import rfc8785

        d = text(shape, size)
        return lambda: rfc8785.dumps(json.loads(d))

    def stdlib(shape: str, size: str) -> Callable[[], Any]:
        d = text(shape, size)
        opts: dict[str, Any] = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False}
        return lambda: json.dumps(json.loads(d), **opts)

    def orj(shape: str, size: str) -> Callable[[], Any]:
        import orjson

        d = text(shape, size)
        return lambda: orjson.dumps(orjson.loads(d), option=orjson.OPT_SORT_KEYS)

    def sha(shape: str, size: str) -> Callable[[], Any]:
        d = text(shape, size)
        return lambda: hashlib.sha256(d).digest()

    def apply(shape: str, size: str) -> Callable[[], Any]:
        doc, patch, _ = patch_files(size)
        return lambda: nuif_core.apply_patch(doc, patch)

    def jsonpatch_apply(shape: str, size: str) -> Callable[[], Any]:
        import jsonpatch

        doc, _, rfc6902 = patch_files(size)

        def call() -> Any:
            d = json.loads(doc)
            jsonpatch.JsonPatch.from_string(rfc6902).apply(d, in_place=True)
            out = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            return hashlib.sha256(out.encode()).hexdigest()

        return call

    return {
        ("canonicalize", "nuif"): canonicalize,
        ("canonicalize", "rfc8785"): rfc,
        ("canonicalize", "json"): stdlib,
        ("canonicalize", "orjson"): orj,
        ("canonicalize", "sha256"): sha,
        ("validate", "nuif"): validate,
        ("validate-text-error", "nuif"): validate_late_error,
        ("validate-schema-errors", "nuif"): validate_schema_errors,
        ("loads", "nuif"): loads,
        ("dumps", "nuif"): dumps,
        ("canonical-json", "nuif"): canonical_json,
        ("apply-patch", "nuif"): apply,
        ("apply-patch", "jsonpatch"): jsonpatch_apply,
    }


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def time_call(
    call: Callable[[], Any],
    min_batch_s: float,
    batches: int,
    clock: Callable[[], float] = time.process_time,
) -> float:
    """Seconds per call: the median of ``batches`` batches, each long enough to time."""
    call()
    n = 1
    while True:
        t0 = clock()
        for _ in range(n):
            call()
        if clock() - t0 >= min_batch_s:
            break
        n *= 2
    runs = []
    for _ in range(batches):
        t0 = clock()
        for _ in range(n):
            call()
        runs.append((clock() - t0) / n)
    return statistics.median(runs)


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    sys.path.extend(spec.get("peers", []))
    import nuif_core

    table = callables(Path(spec["docs"]))
    clock = CLOCKS[spec.get("clock", "cpu")]
    seconds = {}
    for case in spec["cases"]:
        op, shape, size, impl = case.split(" ")
        call = table[(op, impl)](shape, size)
        seconds[case] = time_call(call, float(spec["min_batch_s"]), int(spec["batches"]), clock)
    print(json.dumps({"nuif_core": nuif_core.__file__, "codec": _codec_name(), "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
