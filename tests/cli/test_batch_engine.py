"""``nuif batch`` on one machine: which engine runs (the rule, not its speed) and that every
engine gives the same report.  The threshold comes from benchmarks/batch_engine.py; no test here
reads a clock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nuif_cli._batch_cmd import (
    POOL_MIN_BYTES,
    POOL_MIN_PARTITION,
    choose_engine,
    pool_partition,
)

from .batch_corpus import make_tree
from .conftest import script

MB = 1024 * 1024


@pytest.mark.parametrize(
    ("engine", "scheduler", "total", "jobs", "cpus", "expected"),
    [
        # small inputs stay in this process, whatever the CPUs
        ("auto", None, 0, None, 8, ("serial", 0)),
        ("auto", None, POOL_MIN_BYTES - 1, None, 8, ("serial", 0)),
        ("auto", None, POOL_MIN_BYTES - 1, 4, 8, ("serial", 0)),
        # from the threshold on, a pool of every CPU (or -j N)
        ("auto", None, POOL_MIN_BYTES, None, 2, ("processes", 2)),
        ("auto", None, 100 * MB, 3, 2, ("processes", 3)),
        # one CPU, or -j 1: this process
        ("auto", None, 100 * MB, None, 1, ("serial", 0)),
        ("auto", None, 100 * MB, 1, 8, ("serial", 0)),
        # a named scheduler: Dask, whatever the size
        ("auto", "tcp://127.0.0.1:8786", 0, None, 2, ("dask", 0)),
        # an engine named is the engine run
        ("serial", "tcp://127.0.0.1:8786", 100 * MB, None, 8, ("serial", 0)),
        ("processes", None, 0, None, 2, ("processes", 2)),
        ("processes", None, 0, 1, 2, ("serial", 0)),
        ("dask", None, 0, None, 2, ("dask", 2)),
        ("dask", None, 0, 3, 2, ("dask", 3)),
    ],
)
def test_the_engine_rule(engine, scheduler, total, jobs, cpus, expected) -> None:
    assert choose_engine(engine, scheduler, total, jobs, cpus) == expected


def test_the_pool_partition_gives_every_worker_work() -> None:
    assert pool_partition(64 * MB, 2, 32 * MB) == 4 * MB  # 16 tasks for 2 workers
    assert pool_partition(2 * MB, 2, 32 * MB) == POOL_MIN_PARTITION  # no task below the floor
    assert pool_partition(10_000 * MB, 2, 32 * MB) == 32 * MB  # never above --partition-size
    assert pool_partition(64 * MB, 2, 1024) == 1024


def _run(*argv: str, cwd: Path | None = None):
    import subprocess

    return subprocess.run([*script(), "batch", *argv], capture_output=True, timeout=300, cwd=cwd)


def test_a_small_batch_runs_in_this_process_and_says_so(tmp_path: Path) -> None:
    make_tree(tmp_path / "t", 30)
    proc = _run("hash", str(tmp_path / "t"), "--json")
    summary = json.loads(proc.stderr)
    assert (summary["engine"], summary["workers"]) == ("serial", 0)
    assert "in this process" in _run("hash", str(tmp_path / "t")).stderr.decode()


@pytest.mark.parametrize("operation", ["validate", "canonicalize", "hash"])
def test_the_pool_report_equals_the_serial_report(tmp_path: Path, operation: str) -> None:
    make_tree(tmp_path / "t", 120)
    (tmp_path / "t" / "lines.jsonl").write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"k"}}\n' * 50)
    serial = _run(operation, str(tmp_path / "t"), "--engine", "serial")
    pool = _run(
        operation,
        str(tmp_path / "t"),
        "--engine",
        "processes",
        "-j",
        "2",
        "--partition-size",
        "4KiB",
        "--json",
    )
    assert serial.returncode == pool.returncode
    assert pool.stdout == serial.stdout and len(serial.stdout.splitlines()) == 170
    summary = json.loads(pool.stderr)
    assert (summary["engine"], summary["workers"]) == ("processes", 2) and summary["tasks"] > 2


def test_no_dask_is_needed_unless_dask_runs(tmp_path: Path) -> None:
    """The engines of one machine import no Dask (the light install has none)."""
    make_tree(tmp_path / "t", 10)
    code = (
        "import sys; from nuif_cli._cli import main; "
        "sys.modules['dask'] = None; sys.modules['distributed'] = None; "
        f"sys.exit(main(['batch', 'hash', {str(tmp_path / 't')!r}, '--engine', 'processes', "
        "'-j', '2', '-q']))"
    )
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stdout.count(b"\n") == 10
    proc = _run("hash", str(tmp_path / "t"), "--engine", "dask", "--scheduler", "nonsense://x")
    assert proc.returncode == 3  # Dask is asked for: it runs (and refuses the address)
