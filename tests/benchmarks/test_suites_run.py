"""Every benchmark of benchmarks/ runs once (``--benchmark-disable``) so none rots.

The smoke run picks, for every benchmark *function* of every ``bench_*.py`` file, its cheap cases:
the ids containing ``1KiB`` or ``small`` (pytest ids carry the size label), or — for a function
whose cases are not sized (start-up times) — every case without a larger size label.  It then
checks that every function ran at least once (or was skipped with a reason).
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHEAP = ("1KiB", "small")
LARGE = ("64KiB", "1MiB", "16MiB", "10k-nodes")


def _pytest(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _functions(nodeids: list[str]) -> set[str]:
    return {n.split("[", 1)[0] for n in nodeids}


def smoke_selection(nodeids: list[str]) -> list[str]:
    """The cheap cases of every benchmark function (see the module docstring)."""
    by_function: dict[str, list[str]] = {}
    for n in nodeids:
        by_function.setdefault(n.split("[", 1)[0], []).append(n)
    chosen = []
    for function, ids in by_function.items():
        cheap = [i for i in ids if any(c in i for c in CHEAP)]
        cheap = cheap or [i for i in ids if not any(c in i for c in LARGE)]
        assert cheap, f"{function} has no cheap case: give one an id containing 1KiB or small"
        chosen += cheap
    return chosen


def test_the_smoke_selection_takes_cheap_cases_and_unsized_ones():
    ids = [
        "b.py::t[ui-1KiB-x]",
        "b.py::t[ui-16MiB-x]",
        "b.py::u[small-1]",
        "b.py::u[10k-nodes]",
        "b.py::start[nuif]",
        "b.py::start[bare]",
        "b.py::plain",
    ]
    assert smoke_selection(ids) == [
        "b.py::t[ui-1KiB-x]",
        "b.py::u[small-1]",
        "b.py::start[nuif]",
        "b.py::start[bare]",
        "b.py::plain",
    ]


@pytest.mark.slow
def test_every_benchmark_runs_once_with_benchmarks_disabled(tmp_path):
    collected = _pytest("benchmarks", "--collect-only", "-q", timeout=120)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    all_ids = [line for line in collected.stdout.splitlines() if "::" in line]
    assert all_ids, collected.stdout
    files = {i.split("::", 1)[0] for i in all_ids}
    assert {
        "benchmarks/bench_canonicalize.py",
        "benchmarks/bench_validate.py",
        "benchmarks/bench_patch.py",
        "benchmarks/bench_memory.py",
    } <= files

    junit = tmp_path / "smoke.xml"
    smoke = _pytest(
        "--benchmark-disable", "-q", f"--junitxml={junit}", *smoke_selection(all_ids), timeout=400
    )
    assert smoke.returncode == 0, smoke.stdout[-5000:] + smoke.stderr[-3000:]
    cases = ET.parse(junit).getroot().iter("testcase")
    ran, skipped = [], []
    for case in cases:
        path = case.get("classname", "").replace(".", "/")
        nodeid = f"{path}.py::{case.get('name')}"
        skip = case.find("skipped")
        if skip is None:
            ran.append(nodeid)
        else:
            assert skip.get("message"), f"{nodeid} skipped without a reason"
            skipped.append(nodeid)
    assert len(ran) >= 40, smoke.stdout[-3000:]
    # every benchmark function ran (or was skipped with its reason) at least once
    assert _functions(ran + skipped) == _functions(all_ids)
