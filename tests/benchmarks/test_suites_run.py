"""Every benchmark of benchmarks/ runs once (``--benchmark-disable``) so none rots.

Every collected case of every ``bench_*.py`` file runs once, the 16 MiB documents, the memory
probes and the server start-ups included (about 40 s; the interleaved target pairs are skipped
under ``--benchmark-disable``).  The test then checks that every case ran or was skipped with a
reason, and that no benchmark file was left out of the collection.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


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


@pytest.mark.slow
def test_every_benchmark_runs_once_with_benchmarks_disabled(tmp_path):
    collected = _pytest("benchmarks", "--collect-only", "-q", timeout=120)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    all_ids = [line for line in collected.stdout.splitlines() if "::" in line]
    assert all_ids, collected.stdout
    files = {i.split("::", 1)[0] for i in all_ids}
    # every suite file is collected (a file that fails to import would be missing here)
    assert {f"benchmarks/{p.name}" for p in (REPO / "benchmarks").glob("bench_*.py")} == files
    assert "benchmarks/bench_canonicalize.py" in files and "benchmarks/bench_cli.py" in files

    junit = tmp_path / "smoke.xml"
    smoke = _pytest("benchmarks", "--benchmark-disable", "-q", f"--junitxml={junit}", timeout=540)
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
    # every collected case ran once (or was skipped with its reason)
    assert sorted(ran + skipped) == sorted(all_ids), smoke.stdout[-3000:]
    assert len(ran) >= 170, smoke.stdout[-3000:]
