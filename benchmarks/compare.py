"""Two builds of nuif-core side by side: canonicalize's time in alternating processes.

    uv run python -m benchmarks.compare REV_A REV_B [--rounds 9] [--cpu 0] [--docs ui-1KiB,...]

Each revision's nuif-core is built once into its own virtual environment (from a git worktree
of that revision, both under the system's temporary directory, ``nuif-compare/``, reused on the
next run), and the two
environments then take turns, A B then B A, each round in fresh processes held to one CPU
(``taskset``), on the same documents (``benchmarks.corpus``).  A process times ``canonicalize``
of each document in batches of at least 20 ms and keeps the median batch; the figure per
document is the median of the per-round ratios B ÷ A (below 1: B is faster) with their range,
and each build's time ÷ ``hashlib.sha256`` over the same input, measured in the same process.
Alternating processes cancel the drift of a shared machine; one CPU keeps a second thread from
counting (the codec starts none).  ``REV`` is anything ``git worktree add`` takes, or ``.`` for
the working tree's own environment (``.venv``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = Path(tempfile.gettempdir()) / "nuif-compare"
DOCS = [
    f"{shape}-{size}"
    for size in ("1KiB", "64KiB", "1MiB", "16MiB")
    for shape in ("ui", "strings", "numbers")
]

#: run in each measuring process: ``python -c PROBE DIR NAME...`` prints {name: [s, sha256 s]}
PROBE = r"""
import hashlib, json, sys, time
import nuif_core
folder, names = sys.argv[1], sys.argv[2:]
out = {}
for name in names:
    data = open(f"{folder}/{name}.json", "rb").read()
    f = nuif_core.canonicalize
    f(data)
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            f(data)
        if time.perf_counter() - t > 0.02:
            break
        n *= 2
    runs = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(n):
            f(data)
        runs.append((time.perf_counter() - t) / n)
    t = time.perf_counter()
    for _ in range(n):
        hashlib.sha256(data).digest()
    sha = (time.perf_counter() - t) / n
    out[name] = [sorted(runs)[3], sha]
print(json.dumps(out))
"""


def environment(rev: str) -> Path:
    """The interpreter of an environment with ``rev``'s nuif-core built into it."""
    if rev == ".":
        return REPO / ".venv" / "bin" / "python"
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    tree, venv = OUT / f"tree-{sha[:12]}", OUT / f"venv-{sha[:12]}"
    py = venv / "bin" / "python"
    if py.exists():
        return py
    OUT.mkdir(parents=True, exist_ok=True)
    if tree.exists():
        shutil.rmtree(tree)
        subprocess.run(["git", "-C", str(REPO), "worktree", "prune"], check=True)
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), sha],
        check=True,
        capture_output=True,
    )
    found = os.environ.get("UV") or shutil.which("uv")  # `uv run` sets UV to itself
    uv = [found] if found else [sys.executable, "-m", "uv"]
    subprocess.run([*uv, "venv", "-q", str(venv), "--python", sys.executable], check=True)
    core = tree / "packages" / "nuif-core"
    subprocess.run(
        [
            *uv,
            "pip",
            "install",
            "-q",
            "--python",
            str(py),
            str(core),
            "--build-constraints",
            str(core / "build-constraints.txt"),
        ],
        check=True,
        env={**os.environ, "NUIF_REQUIRE_EXTENSION": "1"},
    )
    return py


def documents(names: list[str]) -> Path:
    """The corpus documents as files both environments read (they import no benchmarks code)."""
    from benchmarks import corpus

    folder = OUT / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shape, size = name.split("-", 1)
        path = folder / f"{name}.json"
        if not path.exists():
            path.write_bytes(corpus.load(shape, size))
    return folder


def measure(py: Path, folder: Path, names: list[str], cpu: int) -> dict[str, list[float]]:
    run = subprocess.run(
        ["taskset", "-c", str(cpu), str(py), "-c", PROBE, str(folder), *names],
        check=True,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return json.loads(run.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("a", help="the base revision (A)")
    ap.add_argument("b", help="the revision compared with it (B)")
    ap.add_argument("--rounds", type=int, default=9, help="rounds of A B / B A (default 9)")
    ap.add_argument("--cpu", type=int, default=0, help="the CPU both are held to (default 0)")
    ap.add_argument("--docs", default=",".join(DOCS), help="comma-separated shape-size names")
    args = ap.parse_args(argv)
    names = args.docs.split(",")
    folder = documents(names)
    py_a, py_b = environment(args.a), environment(args.b)
    ratios: dict[str, list[float]] = {n: [] for n in names}
    per_sha: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in names}
    for k in range(args.rounds):
        order = [("a", py_a), ("b", py_b)] if k % 2 == 0 else [("b", py_b), ("a", py_a)]
        got = {side: measure(py, folder, names, args.cpu) for side, py in order}
        for n in names:
            ratios[n].append(got["b"][n][0] / got["a"][n][0])
            per_sha[n][0].append(got["a"][n][0] / got["a"][n][1])
            per_sha[n][1].append(got["b"][n][0] / got["b"][n][1])
    print(
        f"B = {args.b} against A = {args.a}: canonicalize time B ÷ A, one CPU, "
        f"medians of {args.rounds} alternating rounds (range); each ÷ hashlib.sha256"
    )
    for n in names:
        r = ratios[n]
        print(
            f"  {n:15s} {statistics.median(r):.3f} ({min(r):.3f}-{max(r):.3f})   "
            f"A {statistics.median(per_sha[n][0]):.2f}x sha256   "
            f"B {statistics.median(per_sha[n][1]):.2f}x sha256"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
