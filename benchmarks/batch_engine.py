"""Where a process pool starts paying for itself in ``nuif batch`` (the ``--engine auto`` rule).

``uv run python -m benchmarks.batch_engine`` (a few minutes; ``--sizes``, ``--rounds``,
``--jobs``, ``--json``).

For each input size (MB of ~1 KiB document files, a third not canonical, one in twenty invalid),
the installed ``nuif`` script runs ``nuif batch hash DIR --engine serial`` and ``--engine
processes -j N`` in fresh processes, interleaved, and the figure is the median wall time of
``--rounds`` runs, start-up included, as a user sees it.  Both reports are checked to be equal.
The crossover is the smallest size from which the pool's median is below the serial one at every
larger size measured; ``POOL_MIN_BYTES`` in ``nuif_cli._batch_cmd`` is set at or above it.  Wall
time on a shared machine moves between runs: read the ratio, and measure again before moving the
threshold.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.cli.batch_corpus import document, invalid


def nuif() -> str:
    here = Path(sys.executable).parent / "nuif"
    return str(here) if here.exists() else "nuif"


def corpus(root: Path, megabytes: float) -> int:
    """Files of ~1 KiB under ``root`` (nested) adding up to about ``megabytes``; their count."""
    total, i = 0, 0
    while total < megabytes * 1e6:
        sub = root / f"d{i % 13}"
        sub.mkdir(parents=True, exist_ok=True)
        data = invalid(i) if i % 20 == 0 else document(i, pretty=i % 3 == 0, children=8)
        (sub / f"doc{i:06}.json").write_bytes(data)
        total += len(data)
        i += 1
    return i


def timed(argv: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv}: exit {proc.returncode}: {proc.stderr.decode()}")
    return elapsed, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="0.05,0.25,1,2,4,8,16", help="MB of input, comma-separated")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    opts = ap.parse_args()
    rows = []
    for size in (float(x) for x in opts.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            files = corpus(root / "c", size)
            serial_cmd = [nuif(), "batch", "hash", str(root / "c"), "--engine", "serial", "-q"]
            pool_cmd = [nuif(), "batch", "hash", str(root / "c"), "--engine", "processes"]
            pool_cmd += ["-j", str(opts.jobs), "-q"]
            serial, pool = [], []
            for _ in range(opts.rounds):  # interleaved, so that load hits both alike
                t, out_serial = timed(serial_cmd)
                serial.append(t)
                t, out_pool = timed(pool_cmd)
                pool.append(t)
                if out_serial != out_pool:
                    raise SystemExit(f"{size} MB: the reports differ")
            row = {
                "mb": size,
                "files": files,
                "serial_s": round(statistics.median(serial), 3),
                "pool_s": round(statistics.median(pool), 3),
            }
            row["pool_over_serial"] = round(row["pool_s"] / row["serial_s"], 2)
            rows.append(row)
            print(row, file=sys.stderr)
    crossover = None
    for k in range(len(rows)):
        if all(r["pool_s"] < r["serial_s"] for r in rows[k:]):
            crossover = rows[k]["mb"]
            break
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    if opts.json:
        print(json.dumps({"rows": rows, "crossover_mb": crossover, "load": load}, indent=2))
        return
    print(f"| MB | files | serial s | pool -j {opts.jobs} s | pool ÷ serial |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['mb']} | {r['files']} | {r['serial_s']} | {r['pool_s']} | "
            f"{r['pool_over_serial']} |"
        )
    print(f"\ncrossover: {crossover} MB (load average {load})")


if __name__ == "__main__":
    main()
