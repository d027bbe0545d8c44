"""A default call starts no thread and leaves no work behind: whatever the input's size, every
call of the codec runs on the caller's thread and is over when it returns."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import json, os, sys, time
import nuif_core
from benchmarks import corpus

def threads():
    return len(os.listdir("/proc/self/task"))

docs = [corpus.load(shape, size) for shape in ("ui", "strings", "numbers")
        for size in ("1KiB", "64KiB", "1MiB", 4 << 20)]
before = threads()
most = before
for doc in docs:
    for call in (nuif_core.canonicalize, nuif_core.validate, nuif_core.inspect):
        call(doc)
        most = max(most, threads())
    nuif_core.canonical_json(doc)
    nuif_core.loads(doc)
    most = max(most, threads())
cpu = time.process_time()
time.sleep(0.3)
idle = time.process_time() - cpu
print(json.dumps({"before": before, "most": most, "after": threads(), "idle_cpu": idle}))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
def test_calls_of_any_size_start_no_thread_and_use_no_cpu_once_they_return() -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["before"] == seen["most"] == seen["after"]
    # a thread spinning or hashing after a call would show as CPU time while the caller sleeps;
    # with none, the process uses none (the bound is far above the interpreter's own noise)
    assert seen["idle_cpu"] < 0.05
