"""Every benchmark of benchmarks/ runs once (``--benchmark-disable``) so none rots.

The smoke run selects the cheap cases (``-k "1KiB or small"``: pytest ids carry the size label)
and checks that every benchmark *function* of every ``bench_*.py`` file ran at least once — so a
new suite must give its cheapest case an id containing ``1KiB`` or ``small``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SMOKE = "1KiB or small"


def _pytest(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )


def _functions(nodeids: list[str]) -> set[str]:
    return {n.split("[", 1)[0] for n in nodeids}


@pytest.mark.slow
def test_every_benchmark_runs_once_with_benchmarks_disabled(tmp_path):
    collected = _pytest("--collect-only", "-q", timeout=120)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    all_ids = [line for line in collected.stdout.splitlines() if "::" in line]
    assert all_ids, collected.stdout
    files = {i.split("::", 1)[0] for i in all_ids}
    assert {"benchmarks/bench_canonicalize.py", "benchmarks/bench_validate.py",
            "benchmarks/bench_patch.py", "benchmarks/bench_memory.py"} <= files

    junit = tmp_path / "smoke.xml"
    smoke = _pytest("--benchmark-disable", "-q", "-k", SMOKE, f"--junitxml={junit}",
                    timeout=400)
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
