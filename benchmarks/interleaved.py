"""The dashboard's time targets, measured interleaved in one process.

    uv run python -m benchmarks.interleaved                  # every time target (~2.5 min)
    uv run python -m benchmarks.interleaved --sizes 1KiB,1MiB --rounds 21
    uv run python -m benchmarks.interleaved --json targets.json

The pytest-benchmark suite measures each implementation for about a second, one after the other.
On a host shared with other machines a busy second lands on one implementation and not on its
peer, and a ratio moves by 10-20 % between runs minutes apart.  Here the two sides of each target
alternate in batches of at least ~10 ms (A B, then B A, ...): every pair of batches sees the same
machine, and the figure is the *median of the per-pair ratios* with its range.  The suite calls
:func:`record` after timing each ``nuif`` entry a target belongs to, and the dashboard reads the
targets from there; this command runs the same measurement alone.  Same callables
(``benchmarks.impls``), same documents.

Ratios read as the dashboard's: "nuif vs X" = X's time ÷ nuif's (> 1: nuif is faster); for
validate, validate's time ÷ canonicalize's (≤ 1.2 required); for the SHA-256 targets, canonicalize's time ÷
the time of ``hashlib.sha256`` over the same input bytes (≤ 2× at 64 KiB and 1 MiB, ≤ 2.5× at
16 MiB).  Memory targets are not timed and stay with ``bench_memory.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python benchmarks/interleaved.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _docs, impls
from benchmarks.dashboard import SHA256_LIMITS, sha256_label
from benchmarks.harness import nuif_codec

Clock = Callable[[], float]
#: the shortest batch worth timing: well above the clock's resolution and a scheduler tick
MIN_BATCH_S = 0.010
#: by default a target gets more pairs than its size's floor while they fit this many seconds...
PAIRS_BUDGET_S = 4.0
#: ... up to this many
MAX_ROUNDS = 41


@dataclass(frozen=True)
class Pair:
    """One target, measured as ``time(other) / time(ours)``: for a peer, how many times faster
    nuif is; for validate (``other``) against canonicalize (``ours``), validate's relative time;
    for canonicalize (``other``) against the ``hashlib.sha256`` baseline (``ours``),
    canonicalize's time in SHA-256 times.  ``ours`` is always the denominator."""

    label: str
    threshold: float
    higher_is_better: bool
    ours: Callable[[bytes], Any]
    other: Callable[[bytes], Any]
    op: str  # the suite's operation whose nuif entry carries the figure
    shape: str
    size: str


@dataclass(frozen=True)
class Outcome:
    label: str
    threshold: float
    higher_is_better: bool
    median: float
    low: float
    high: float
    rounds: int
    calls_per_batch: int

    @property
    def met(self) -> bool:
        return (
            self.median >= self.threshold
            if self.higher_is_better
            else self.median <= self.threshold
        )


def pairs(sizes: Sequence[str]) -> list[Pair]:
    """The time targets (the dashboard's ``targets`` list, minus memory)."""
    nuif, orjson, rfc = impls.nuif_canonicalize, impls.peer_orjson, impls.peer_rfc8785
    validate = next(i.fn for i in impls.VALIDATE if i.name == "nuif")
    out: list[Pair] = []
    for size, need in (("1MiB", 1.5), ("16MiB", 3.0)):
        out.append(
            Pair(
                f"canonicalize ui {size}: nuif vs orjson round trip ≥ {need}×",
                need,
                True,
                nuif,
                orjson,
                "canonicalize",
                "ui",
                size,
            )
        )
    for shape in ("ui", "numbers"):
        for size in _docs.SIZES:
            out.append(
                Pair(
                    f"canonicalize {shape} {size}: nuif vs rfc8785 ≥ 15×",
                    15.0,
                    True,
                    nuif,
                    rfc,
                    "canonicalize",
                    shape,
                    size,
                )
            )
    for size in _docs.SIZES:
        out.append(
            Pair(
                f"canonicalize strings {size}: nuif vs orjson round trip ≥ 1.5×",
                1.5,
                True,
                nuif,
                orjson,
                "canonicalize",
                "strings",
                size,
            )
        )
    for shape in _docs.SHAPES:
        for size, limit in SHA256_LIMITS:  # the dashboard's list and wording
            # ours = the hash alone, other = canonicalize: other ÷ ours is canonicalize's time in
            # hash times; recorded on the canonicalize entry of nuif
            out.append(
                Pair(
                    sha256_label(shape, size, limit),
                    limit,
                    False,
                    impls.baseline_sha256,
                    nuif,
                    "canonicalize",
                    shape,
                    size,
                )
            )
    for shape in _docs.SHAPES:
        for size in _docs.SIZES:
            # ours = canonicalize, other = validate: other ÷ ours is validate's relative time
            out.append(
                Pair(
                    f"validate {shape} {size}: time ÷ canonicalize time ≤ 1.2",
                    1.2,
                    False,
                    nuif,
                    validate,
                    "validate",
                    shape,
                    size,
                )
            )
    return [p for p in out if p.size in sizes]


def _batch(fn: Callable[[bytes], Any], data: bytes, n: int, clock: Clock) -> float:
    t0 = clock()
    for _ in range(n):
        fn(data)
    return clock() - t0


def paired_ratios(
    ours: Callable[[bytes], Any],
    other: Callable[[bytes], Any],
    data: bytes,
    rounds: int,
    *,
    clock: Clock = time.perf_counter,
    min_batch_s: float = MIN_BATCH_S,
    budget_s: float = 0.0,
    max_rounds: int = MAX_ROUNDS,
) -> tuple[list[float], int]:
    """At least ``rounds`` ratios time(other) / time(ours), each from one batch of each taken
    back to back, the order alternating between rounds; and the number of calls per batch (the
    same for both, enough for the faster side's batch to last ``min_batch_s``).  One untimed
    warm-up call each.  With ``budget_s``, more rounds (up to ``max_rounds``) while the pairs,
    at the calibrated pair's duration, fit that many seconds: cheap pairs get a steadier median."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    ours(data)
    other(data)
    n = 1
    while True:
        a, b = _batch(ours, data, n, clock), _batch(other, data, n, clock)
        if min(a, b) >= min_batch_s:
            break
        n *= 2
    if budget_s > 0 and a + b > 0:
        rounds = max(rounds, min(max_rounds, int(budget_s / (a + b))))
    ratios = []
    for r in range(rounds):
        if r % 2 == 0:
            a = _batch(ours, data, n, clock)
            b = _batch(other, data, n, clock)
        else:
            b = _batch(other, data, n, clock)
            a = _batch(ours, data, n, clock)
        ratios.append(b / a)
    return ratios, n


def default_rounds(size: str) -> int:
    """The fewest pairs for a size: bounded by the slowest peer (rfc8785: ~1 s per 16 MiB)."""
    return {"1KiB": 41, "64KiB": 21, "1MiB": 9}.get(size, 7)


def measure(pair: Pair, rounds: int | None = None, clock: Clock = time.perf_counter) -> Outcome:
    """One target: exactly ``rounds`` pairs, or by default the size's floor, raised to as many
    as fit ``PAIRS_BUDGET_S`` (at most ``MAX_ROUNDS``)."""
    data = _docs.doc(pair.shape, pair.size)
    ratios, n = paired_ratios(
        pair.ours,
        pair.other,
        data,
        rounds or default_rounds(pair.size),
        clock=clock,
        budget_s=0.0 if rounds else PAIRS_BUDGET_S,
    )
    return Outcome(
        pair.label,
        pair.threshold,
        pair.higher_is_better,
        statistics.median(ratios),
        min(ratios),
        max(ratios),
        len(ratios),
        n,
    )


def record(benchmark: Any, op: str, shape: str, size: str) -> None:
    """Measure, after the suite's own timing, the targets whose figure belongs to this nuif entry
    (``Pair.op``, shape, size) as interleaved pairs, into ``extra_info["interleaved"]``:
    ``{target label: {"median", "low", "high", "rounds"}}``.  The dashboard reads a target from
    there when present, else from the medians.  Nothing runs under ``--benchmark-disable``."""
    if getattr(benchmark, "disabled", False):
        return
    figures = {}
    for pair in pairs([size]):
        if pair.op == op and pair.shape == shape:
            o = measure(pair)
            figures[o.label] = {
                "median": o.median,
                "low": o.low,
                "high": o.high,
                "rounds": o.rounds,
            }
    if figures:
        benchmark.extra_info["interleaved"] = figures


def report(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for o in outcomes:
        mark = "met    " if o.met else "NOT met"
        lines.append(
            f"  [{mark}] {o.label}: median {o.median:.2f} "
            f"(range {o.low:.2f}–{o.high:.2f}, {o.rounds} pairs × {o.calls_per_batch} calls)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.interleaved",
        description="The dashboard's time targets, each measured as interleaved pairs in one "
        "process.",
    )
    parser.add_argument(
        "--sizes", default=",".join(_docs.SIZES), help="comma-separated size labels (default: all)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="pairs per target (default: at least 41 at 1 KiB … 7 at 16 MiB, "
        f"more while they fit {PAIRS_BUDGET_S:g} s, at most {MAX_ROUNDS})",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the outcomes as JSON")
    args = parser.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    unknown = [s for s in sizes if s not in _docs.SIZES]
    if unknown:
        parser.error(f"unknown size {unknown[0]!r} (choose from {', '.join(_docs.SIZES)})")
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    outcomes = []
    for pair in pairs(sizes):
        outcomes.append(measure(pair, args.rounds))
        print(report(outcomes[-1:]), flush=True)
    met = sum(o.met for o in outcomes)
    print(f"{met} of {len(outcomes)} time targets met (medians of interleaved pairs)")
    if args.json:
        rows = [{**asdict(o), "met": o.met} for o in outcomes]
        Path(args.json).write_text(json.dumps({"codec": nuif_codec(), "targets": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
