"""Peak memory of canonicalization, each measurement in a fresh process (benchmarks._memprobe).

Recorded per implementation and shape: ``extra_rss_bytes`` (peak RSS during the call minus the
RSS once the input is loaded) and ``extra_rss_ratio`` (÷ input bytes; NUIF's target at 16 MiB is
≤ 2.5).  The timing pytest-benchmark records is the whole subprocess (start-up included) and is
not a throughput figure: these entries carry ``metric = "memory"`` and the dashboard shows memory.
The 1 KiB size is there so the test suite's smoke run exercises the probe; it measures noise.
The pure-Python twin is left out (minutes at 16 MiB, and not the path users run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import corpus
from benchmarks.harness import run

ROOT = Path(__file__).resolve().parent.parent
IMPLS = [
    ("nuif", "ours"),
    ("nuif-codec", "ours"),
    ("rfc8785", "peer"),
    ("json", "peer"),
    ("orjson", "peer"),
]


def probe(impl: str, path: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks._memprobe", impl, path],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"memory probe {impl} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


@pytest.mark.parametrize(("impl", "role"), IMPLS, ids=[i for i, _ in IMPLS])
@pytest.mark.parametrize("size", ["1KiB", "16MiB"])
@pytest.mark.parametrize("shape", list(corpus.SHAPES))
def test_memory(benchmark, shape, size, impl, role):
    path = str(corpus.load_path(shape, size))
    found: dict = {}

    def once() -> None:
        found.update(probe(impl, path))

    run(
        benchmark,
        once,
        op="memory",
        shape=shape,
        size=size,
        impl=impl,
        role=role,
        input_bytes=corpus.SIZES[size],
        rounds=(1, 0),
        metric="memory",
    )
    if not found:  # pragma: no cover - the benchmark always calls once()
        once()
    benchmark.extra_info.update(
        extra_rss_bytes=found["extra_rss_bytes"],
        extra_rss_ratio=found["extra_rss_ratio"],
        baseline_rss_bytes=found["baseline_rss_bytes"],
        peak_rss_bytes=found["peak_rss_bytes"],
        peak_reset=found["peak_reset"],
    )
    if role == "ours":  # the codec the fresh process loaded, not the one this process imported
        benchmark.extra_info["nuif_codec"] = found["nuif_codec"]
