"""nuif CLI start-up (``uv run pytest benchmarks/bench_cli.py --benchmark-only``).

Each round starts one fresh process and waits for it to finish, output read through a pipe:

* ``process version``: ``nuif --version`` (the interpreter, the CLI's imports, nuif-core's import
  and the codec's route list) against ``python -c pass``, the interpreter alone — the floor that
  no Python command can go below;
* ``ui 1KiB``: ``nuif canonicalize FILE`` on the 1 KiB ``ui`` document (parse, §3 checks, the
  canonical text on stdout) against the stdlib's own JSON command doing the closest job,
  ``python -m json.tool --sort-keys --compact --no-ensure-ascii FILE``, and against the floor.

The interpreter is this environment's, started the same way for every implementation (the
``nuif`` console script of the same virtual environment), with bytecode caching on: the
environment is passed on without ``PYTHONDONTWRITEBYTECODE``, so the warm-up round writes the
``__pycache__`` of an editable checkout and every measured round loads compiled modules, as a
pip-installed package does (pip compiles them at install; the stdlib's come compiled).  With
caching off, nuif would compile its own sources on every start (~40 ms here) and json.tool would
not.  Start-up is dominated by imports, so these figures move with the machine's file cache and
load; compare ratios.  The dashboard shows the median in ms (an ``op`` containing ``startup`` is
a latency).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from benchmarks import corpus
from benchmarks.harness import run

PYTHON = sys.executable
NUIF = str(Path(sys.executable).with_name("nuif"))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _commands(path: str) -> dict[str, dict[str, list[str]]]:
    """group size -> implementation -> argv."""
    floor = [PYTHON, "-c", "pass"]
    return {
        "version": {"nuif": [NUIF, "--version"], "python": floor},
        "1KiB": {
            "nuif": [NUIF, "canonicalize", path],
            "json.tool": [
                PYTHON,
                "-m",
                "json.tool",
                "--sort-keys",
                "--compact",
                "--no-ensure-ascii",
                path,
            ],
            "python": floor,
        },
    }


CASES = [(size, impl) for size, impls in _commands("-").items() for impl in impls]


def run_command(argv: list[str]) -> bytes:
    """Start ``argv``, read all of its stdout, wait for it; a failure is an error, not a time."""
    done = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, env=ENV, timeout=60, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {done.returncode}: {done.stderr[-500:]!r}")
    return done.stdout


@pytest.mark.parametrize(("size", "impl"), CASES, ids=[f"{s}-{i}" for s, i in CASES])
def test_cli_startup(benchmark: Any, size: str, impl: str) -> None:
    path = corpus.load_path("ui", "1KiB")
    argv = _commands(str(path))[size][impl]
    out = run_command(argv)
    # the work is the one claimed: nuif's output is the canonical text, json.tool's a JSON text
    if size == "1KiB" and impl == "nuif":
        assert out.rstrip(b"\n") == nuif_core.canonicalize(path.read_bytes()).canonical
    elif impl == "json.tool":
        assert out.startswith(b"{") and out.rstrip().endswith(b"}")
    elif size == "version" and impl == "nuif":
        assert out.startswith(b"nuif " + nuif_core.__version__.encode())
    run(
        benchmark,
        run_command,
        argv,
        op="cli-startup",
        shape="ui" if size == "1KiB" else "process",
        size=size,
        impl=impl,
        role="ours" if impl == "nuif" else "peer",
        input_bytes=path.stat().st_size if size == "1KiB" else 0,
        metric="latency",
        rounds=(7, 1),
    )
