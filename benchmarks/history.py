"""Runs for the dashboard's history: several revisions measured in one interleaved session.

    uv run python -m benchmarks.history REV [REV ...] [-k EXPR] [--rounds 11] [-o benchmarks/results]

Every revision is built as ``benchmarks.compare`` builds it, and the builds take turns in the
same rounds (in the given order, then reversed), each turn a fresh process held to one CPU and
timed with its CPU time (``--clock``, as in ``benchmarks.compare``), so that a busy machine
touches them all alike.  Naming a revision twice measures that build twice:
two runs of one build, the dashboard's check of its own noise.  Each revision's run is written
as one file in pytest-benchmark's layout, small enough to keep in the repository: per case the
median as ``stats.median`` and every round's figure in ``extra_info.samples`` (seconds per call),
the machine (``machine_info``, with the load average before each round) and the commit
(``commit_info``, with its date), and the session (``session``: its id, the builds in their
order, the rounds).  Runs of one session are compared round by round (paired), others unpaired.

By default the cases are the cheap ones and the peers (``HISTORY_CASES``): canonicalize of every
shape at 1 KiB and 64 KiB and of ``ui`` at 1 MiB by nuif, ``rfc8785``, ``json``, ``orjson`` and
the ``sha256`` floor, validate at 1 KiB and 64 KiB, and apply-patch of 10 operations on 100
nodes by nuif and ``jsonpatch``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import ssl
import statistics
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python benchmarks/history.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import compare

RESULTS = Path(__file__).resolve().parent / "results"
#: the default selection (pytest's -k grammar over "{op} {shape} {size} {impl}")
HISTORY_CASES = (
    "(canonicalize and (1KiB or 64KiB or (ui and 1MiB))) "
    "or (validate and (1KiB or 64KiB)) or (apply-patch and small)"
)


def cpu_brand() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info(load: Sequence[float]) -> dict[str, Any]:
    """The machine, described without its host name (which changes with every container)."""
    brand = cpu_brand()
    count = os.cpu_count() or 0
    py = f"{platform.python_implementation()} {platform.python_version()}"
    return {
        "machine_id": f"{brand}, {count} CPUs, {py}",
        "cpu": {"brand_raw": brand, "count": count},
        "machine": platform.machine(),
        "system": platform.system(),
        "release": platform.release(),
        "python_implementation": platform.python_implementation(),
        "python_version": platform.python_version(),
        "openssl": ssl.OPENSSL_VERSION,
        "load_average": list(load),
        "shared": "measured on CPUs shared with other work; rounds interleaved so load hits every "
        "build alike (load_average: the 1-minute load before each round)",
    }


def commit_info(sha: str) -> dict[str, Any]:
    out = subprocess.run(
        ["git", "-C", str(compare.REPO), "show", "-s", "--format=%H%n%cI%n%aI%n%s", sha],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return {
        "id": out[0],
        "time": out[1],
        "author_time": out[2],
        "subject": out[3] if len(out) > 3 else "",
        "dirty": False,
        "project": "nuif",
    }


def _short(x: float) -> float:
    return float(f"{x:.4g}")


def run_document(
    *,
    commit: dict[str, Any],
    machine: dict[str, Any],
    session: dict[str, Any],
    cases: Sequence[compare.Case],
    samples: dict[str, list[float]],
    sizes: dict[str, int],
    codec: str,
    when: str,
) -> dict[str, Any]:
    """One run in pytest-benchmark's layout (what ``benchmarks.dashboard`` reads)."""
    entries = []
    for c in cases:
        s = [_short(x) for x in samples[c.name]]
        info: dict[str, Any] = {
            "op": c.op,
            "shape": c.shape,
            "size": c.size,
            "impl": c.impl,
            "role": c.role,
            "input_bytes": sizes[c.name],
            "samples": s,
        }
        if c.role == "ours":
            info["nuif_codec"] = codec
        entries.append(
            {
                "group": f"{c.op} {c.shape} {c.size}",
                "name": c.name,
                "stats": {"median": statistics.median(s), "rounds": len(s)},
                "extra_info": info,
            }
        )
    return {
        "version": "nuif-history-1",
        "datetime": when,
        "machine_info": machine,
        "commit_info": commit,
        "session": session,
        "benchmarks": entries,
    }


def dump(doc: dict[str, Any]) -> str:
    """JSON text with one line per benchmark entry: small, and a diff shows which case moved."""
    head = {k: v for k, v in doc.items() if k != "benchmarks"}
    text = json.dumps(head, indent=1, ensure_ascii=False)
    entries = ",\n".join(
        "  " + json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in doc["benchmarks"]
    )
    return text[:-2] + ',\n "benchmarks": [\n' + entries + "\n ]\n}\n"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:32]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.history",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("revs", nargs="+", metavar="REV", help="revisions (one may appear twice)")
    ap.add_argument("-k", dest="expr", default=HISTORY_CASES, help="select cases (pytest -k)")
    ap.add_argument("--rounds", type=int, default=11, help="interleaved rounds (default 11)")
    ap.add_argument("--cpu", type=int, default=0, help="the CPU every build is held to")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu", help="see compare")
    ap.add_argument("-o", "--output", type=Path, default=RESULTS, help="folder of the runs")
    args = ap.parse_args(argv)
    if args.rounds < 3:
        ap.error("--rounds must be at least 3")
    try:
        cases = compare.select(compare.all_cases(peers=True), args.expr)
    except ValueError as exc:
        ap.error(str(exc))
    if not cases:
        ap.error(f"-k {args.expr!r} selects no case")
    try:
        commits = [compare.commit_of(r) for r in args.revs]
    except subprocess.CalledProcessError as exc:
        print(f"history: unknown revision: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    folder = compare.write_inputs(cases)
    pys = [compare.environment(r) for r in args.revs]
    labels = [f"{i}:{c[:12]}" for i, c in enumerate(commits)]
    session_id = uuid.uuid4().hex[:12]
    start = _dt.datetime.now(_dt.UTC)
    print(f"session {session_id}: {len(cases)} cases × {len(labels)} builds × {args.rounds} rounds")
    got = compare.interleaved(
        list(zip(labels, pys, strict=True)),
        folder,
        cases,
        args.rounds,
        cpu=args.cpu,
        clock=args.clock,
    )
    sizes = {c.name: compare.input_bytes(folder, c) for c in cases}
    machine = machine_info(got["load"])
    args.output.mkdir(parents=True, exist_ok=True)
    day = start.strftime("%Y-%m-%d")
    for i, (label, sha) in enumerate(zip(labels, commits, strict=True)):
        session = {
            "id": session_id,
            "builds": labels,
            "this": label,
            "rounds": args.rounds,
            "cpu": args.cpu,
            "clock": args.clock,
            "min_batch_s": compare.MIN_BATCH_S,
            "batches": compare.BATCHES,
            "selection": args.expr,
        }
        doc = run_document(
            commit=commit_info(sha),
            machine=machine,
            session=session,
            cases=cases,
            samples=got["samples"][label],
            sizes=sizes,
            codec=got["where"][label][1],
            when=start.isoformat(timespec="seconds"),
        )
        name = f"{day}-{sha[:12]}-{_slug(machine['cpu']['brand_raw'])}-{session_id[:6]}-{i}.json"
        path = args.output / name
        path.write_text(dump(doc), encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
