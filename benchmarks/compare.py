"""Did a change make nuif-core slower?  Two revisions built side by side, measured interleaved.

    uv run python -m benchmarks.compare REV_A REV_B [-k EXPR] [--rounds 15] [--threshold 0.05]

Each revision's ``packages/nuif-core`` is exported (``git archive``) and built into its own
virtual environment under the system's temporary directory (``nuif-compare/``, kept and reused
while the core's tree is unchanged: two commits with the same core share one build).  The two
builds then take turns, A B, then B A, ..., each turn a fresh process held to one CPU
(``taskset``) measuring every selected case on the same input files; a process times a case in
batches of at least 10 ms of CPU time and keeps the median batch.  The clock is the process's
CPU time (``--clock cpu``, the default): on a shared machine, other processes taking turns on
the same CPU stretch wall time several-fold and leave CPU time nearly alone (the calls start no
thread); ``--clock wall`` times wall time instead.  Round *i* of A and round *i* of B ran
side by side, so the machine's load hits both alike, and their ratio is one paired sample.

Per case the table gives B's time ÷ A's time (the median of the per-round ratios) with its 95 %
confidence interval (a bootstrap of that median, ``benchmarks.stats.paired``), each side's
throughput (from its median round), and the verdict: ``slower`` when the whole interval lies
above ``1 + threshold`` (default 5 %), ``faster`` when it lies below ``1 / (1 + threshold)``,
else ``same`` (``untested`` below 6 rounds).  The exit status is 1 when one of nuif's cases is ``slower``, else 0; the peers
(``--peers``: the same code on both sides) are a control and never fail the comparison.

Cases are named ``"{op} {shape} {size} {impl}"`` (``canonicalize ui 1KiB nuif``); ``-k`` selects
them with pytest's ``-k`` grammar (``and``, ``or``, ``not``, parentheses) over whole words of the
name or their hyphen-separated parts (``-k "canonicalize and ui and not 16MiB"``).
``REV`` is anything ``git rev-parse`` takes, or ``.`` for the working tree's ``.venv``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python benchmarks/compare.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import stats
from benchmarks.results import fmt_rate, mb_per_s

REPO = Path(__file__).resolve().parent.parent
OUT = Path(tempfile.gettempdir()) / "nuif-compare"
PROBE = Path(__file__).resolve().parent / "_probe.py"
SIZES = ("1KiB", "64KiB", "1MiB", "16MiB")
SHAPES = ("ui", "numbers", "strings")
#: apply-patch scenarios: (label, nodes in the document, set operations), as in the suite
PATCHES = (("small-100-nodes-10-ops", 100, 10), ("10k-nodes-1k-ops", 10_000, 1_000))
#: the peers of each operation measured with ``--peers`` (``sha256``: the hash alone, a floor)
PEERS = {"canonicalize": ("rfc8785", "json", "orjson", "sha256"), "apply-patch": ("jsonpatch",)}
MIN_BATCH_S = 0.010
BATCHES = 5


@dataclass(frozen=True)
class Case:
    op: str
    shape: str
    size: str
    impl: str
    role: str = "ours"  # "ours" | "peer" | "baseline"

    @property
    def name(self) -> str:
        return f"{self.op} {self.shape} {self.size} {self.impl}"


def all_cases(peers: bool = False) -> list[Case]:
    """Every case: nuif's canonicalize, validate (of the document, and of it with a text error
    near its end), canonical_json, loads and dumps of each shape and size, and apply-patch;
    with ``peers``, the peers of canonicalize and apply-patch too."""
    out: list[Case] = []
    for size in SIZES:
        for shape in SHAPES:
            out.append(Case("canonicalize", shape, size, "nuif"))
            if peers:
                for impl in PEERS["canonicalize"]:
                    role = "baseline" if impl == "sha256" else "peer"
                    out.append(Case("canonicalize", shape, size, impl, role))
            out.append(Case("validate", shape, size, "nuif"))
            for op in (
                "validate-text-error",
                "validate-schema-errors",
                "canonical-json",
                "loads",
                "dumps",
            ):
                out.append(Case(op, shape, size, "nuif"))
    for label, _, _ in PATCHES:
        out.append(Case("apply-patch", "ui", label, "nuif"))
        if peers:
            out.extend(
                Case("apply-patch", "ui", label, impl, "peer") for impl in PEERS["apply-patch"]
            )
    return out


def select(cases: Sequence[Case], expr: str | None) -> list[Case]:
    """The cases whose name matches ``expr``: pytest's ``-k`` grammar (``and``, ``or``, ``not``,
    parentheses), where a word matches when it is one of the four words of the name, or a
    hyphen-separated part of one, ignoring case (``ui`` is not found in ``nuif``; ``patch`` and
    ``small`` are found in ``apply-patch ui small-100-nodes-10-ops``)."""
    if not expr:
        return list(cases)
    from _pytest.mark.expression import Expression  # the grammar of ``pytest -k``

    try:
        compiled = Expression.compile(expr)
    except Exception as exc:  # pytest's ParseError
        raise ValueError(f"-k {expr!r}: {exc}") from None

    def matches(case: Case) -> bool:
        words = set()
        for w in case.name.lower().split(" "):
            words.add(w)
            words.update(w.split("-"))

        def matcher(word: str, /, **kwargs: Any) -> bool:
            return not kwargs and word.lower() in words

        return bool(compiled.evaluate(matcher))

    return [c for c in cases if matches(c)]


# ---------------------------------------------------------------------------------------------
# Builds and inputs


def core_tree(rev: str) -> str:
    """The git tree of ``packages/nuif-core`` at ``rev``: what a build depends on."""
    return subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}:packages/nuif-core"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def commit_of(rev: str) -> str:
    if rev == ".":
        rev = "HEAD"
    return subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _uv() -> list[str]:
    found = os.environ.get("UV") or shutil.which("uv")  # `uv run` sets UV to itself
    if not found and (REPO / ".uv" / "bin" / "uv").exists():
        found = str(REPO / ".uv" / "bin" / "uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def environment(rev: str, log: Callable[[str], None] = print) -> Path:
    """The interpreter of an environment with ``rev``'s nuif-core built into it (compiled codec
    required), built on first use."""
    if rev == ".":
        return REPO / ".venv" / "bin" / "python"
    tree = core_tree(rev)
    venv = OUT / f"venv-{tree[:12]}"
    py = venv / "bin" / "python"
    if py.exists():
        return py
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"build-{tree[:12]}-", dir=OUT))
    try:
        log(f"building nuif-core of {rev} (core tree {tree[:12]}) ...")
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", tree],
            check=True,
            capture_output=True,
        ).stdout
        src = work / "nuif-core"
        src.mkdir()
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        uv = _uv()
        tmp_venv = work / "venv"
        subprocess.run(
            [*uv, "venv", "-q", "--relocatable", str(tmp_venv), "--python", sys.executable],
            check=True,
        )
        subprocess.run(
            [
                *uv,
                "pip",
                "install",
                "-q",
                "--python",
                str(tmp_venv / "bin" / "python"),
                str(src),
                "--build-constraints",
                str(src / "build-constraints.txt"),
            ],
            check=True,
            env={**os.environ, "NUIF_REQUIRE_EXTENSION": "1"},
        )
        try:
            tmp_venv.rename(venv)  # atomic: a concurrent build of the same tree may have won
        except OSError:
            if not py.exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return py


def write_inputs(cases: Sequence[Case]) -> Path:
    """The input files every build reads (generated once by ``benchmarks.corpus``)."""
    from benchmarks import corpus

    folder = OUT / "inputs"
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        if case.op == "apply-patch":
            base = folder / f"patch-{case.size}"
            if not Path(f"{base}.doc.json").exists():
                _, nodes, ops = next(p for p in PATCHES if p[0] == case.size)
                from benchmarks import _docs

                doc, patch, rfc6902 = _docs.patch_case(nodes, ops)
                Path(f"{base}.nuif.json").write_bytes(patch)
                Path(f"{base}.rfc6902.json").write_bytes(rfc6902)
                Path(f"{base}.doc.json").write_bytes(doc)  # last: marks the set complete
        else:
            path = folder / f"{case.shape}-{case.size}.json"
            if not path.exists():
                tmp = path.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(corpus.load(case.shape, case.size))
                tmp.replace(path)
    return folder


def input_bytes(folder: Path, case: Case) -> int:
    if case.op == "apply-patch":
        return (folder / f"patch-{case.size}.doc.json").stat().st_size
    return (folder / f"{case.shape}-{case.size}.json").stat().st_size


# ---------------------------------------------------------------------------------------------
# Measuring


def peer_paths() -> list[str]:
    """Where this interpreter's peers (rfc8785, orjson, jsonpatch) live: appended to the
    measuring process's path after its own, so every build runs the same peers."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([paths["purelib"], paths["platlib"]]))


def measure(
    py: Path,
    folder: Path,
    cases: Sequence[Case],
    *,
    cpu: int | None = 0,
    clock: str = "cpu",
    min_batch_s: float = MIN_BATCH_S,
    batches: int = BATCHES,
) -> dict[str, Any]:
    """One process of one build: ``{"nuif_core", "codec", "seconds": {case name: s}}``."""
    spec = {
        "docs": str(folder),
        "peers": peer_paths(),
        "cases": [c.name for c in cases],
        "min_batch_s": min_batch_s,
        "batches": batches,
        "clock": clock,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        cmd = [str(py), "-I", str(PROBE), f.name]
        if cpu is not None:
            cmd = ["taskset", "-c", str(cpu), *cmd]
        run = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def interleaved(
    builds: Sequence[tuple[str, Path]],
    folder: Path,
    cases: Sequence[Case],
    rounds: int,
    *,
    cpu: int | None = 0,
    clock: str = "cpu",
    measure_fn: Callable[..., dict[str, Any]] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """``rounds`` rounds over every build, in the given order on even rounds and the reverse on
    odd ones.  Returns ``{"samples": {label: {case: [s per round]}}, "load": [1-minute load
    average before each round], "where": {label: (nuif_core file, codec)}}``."""
    samples: dict[str, dict[str, list[float]]] = {
        label: {c.name: [] for c in cases} for label, _ in builds
    }
    where: dict[str, tuple[str, str]] = {}
    load: list[float] = []
    for k in range(rounds):
        load.append(round(os.getloadavg()[0], 2))
        order = list(builds) if k % 2 == 0 else list(reversed(builds))
        for label, py in order:
            got = (measure_fn or measure)(py, folder, cases, cpu=cpu, clock=clock)
            where[label] = (got["nuif_core"], got["codec"])
            for c in cases:
                samples[label][c.name].append(float(got["seconds"][c.name]))
        log(f"  round {k + 1}/{rounds} done (load average {load[-1]:.2f})")
    return {"samples": samples, "load": load, "where": where}


# ---------------------------------------------------------------------------------------------
# The table


@dataclass(frozen=True)
class Row:
    case: Case
    change: stats.Change
    mbps_a: float | None
    mbps_b: float | None


def rows(
    cases: Sequence[Case],
    a: dict[str, list[float]],
    b: dict[str, list[float]],
    sizes: dict[str, int],
    *,
    threshold: float = stats.THRESHOLD,
    confidence: float = stats.CONFIDENCE,
) -> list[Row]:
    out = []
    for c in cases:
        ch = stats.paired(a[c.name], b[c.name], threshold=threshold, confidence=confidence)
        n = sizes.get(c.name)
        out.append(
            Row(
                c,
                ch,
                mb_per_s(n, stats.centre(a[c.name])) if n else None,
                mb_per_s(n, stats.centre(b[c.name])) if n else None,
            )
        )
    return out


def table(result_rows: Sequence[Row]) -> str:
    head = ["case", "B ÷ A", "95% CI", "A MB/s", "B MB/s", "verdict"]
    body = []
    for r in result_rows:
        ch = r.change
        level = f"{ch.confidence * 100:g}%"
        head[2] = f"{level} CI"
        body.append(
            [
                r.case.name,
                f"{ch.ratio:.3f}",
                f"{ch.low:.3f}–{ch.high:.3f}",
                fmt_rate(r.mbps_a),
                fmt_rate(r.mbps_b),
                ch.verdict + ("" if r.case.role == "ours" else f" ({r.case.role})"),
            ]
        )
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in (0, 5) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(head), "  ".join("-" * w for w in widths), *map(line, body)])


def regressions(result_rows: Sequence[Row]) -> list[Row]:
    """nuif's cases that are surely slower by more than the threshold (peers never count)."""
    return [r for r in result_rows if r.case.role == "ours" and r.change.verdict == "slower"]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.compare",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("a", help="the base revision (A)")
    ap.add_argument("b", help="the revision compared with it (B)")
    ap.add_argument("-k", dest="expr", help="select cases by name (pytest's -k grammar)")
    ap.add_argument("--peers", action="store_true", help="measure the peers too (a control)")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of A B / B A (default 15)")
    ap.add_argument(
        "--threshold",
        type=float,
        default=stats.THRESHOLD,
        help="the slowdown that counts, as a fraction (default 0.05 = 5%%)",
    )
    ap.add_argument("--confidence", type=float, default=stats.CONFIDENCE)
    ap.add_argument("--cpu", type=int, default=0, help="the CPU both are held to (default 0)")
    ap.add_argument(
        "--clock", choices=["cpu", "wall"], default="cpu", help="what a batch is timed with"
    )
    ap.add_argument("--list", action="store_true", help="list the selected cases and stop")
    ap.add_argument("--json", metavar="FILE", help="also write the samples and verdicts")
    args = ap.parse_args(argv)
    if args.rounds < 3:
        ap.error("--rounds must be at least 3 (a confidence interval needs the noise)")
    if not args.threshold >= 0:
        ap.error("--threshold must be ≥ 0")
    if not 0 < args.confidence < 1:
        ap.error("--confidence must be between 0 and 1")
    try:
        cases = select(all_cases(args.peers), args.expr)
    except ValueError as exc:
        ap.error(str(exc))
    if not cases:
        ap.error(f"-k {args.expr!r} selects no case (see --list without -k)")
    if args.list:
        print("\n".join(c.name for c in cases))
        return 0
    try:
        commits = (commit_of(args.a), commit_of(args.b))
    except subprocess.CalledProcessError as exc:
        print(f"compare: unknown revision: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    folder = write_inputs(cases)
    py_a, py_b = environment(args.a), environment(args.b)
    print(f"A = {args.a} ({commits[0][:10]}), B = {args.b} ({commits[1][:10]}): {len(cases)} cases")
    got = interleaved(
        [("a", py_a), ("b", py_b)], folder, cases, args.rounds, cpu=args.cpu, clock=args.clock
    )
    sizes = {c.name: input_bytes(folder, c) for c in cases}
    result = rows(
        cases,
        got["samples"]["a"],
        got["samples"]["b"],
        sizes,
        threshold=args.threshold,
        confidence=args.confidence,
    )
    load = got["load"]
    print(
        f"\nB ÷ A, {args.clock} time per call (below 1: B is faster); {args.rounds} interleaved "
        f"rounds on CPU "
        f"{args.cpu}, load average {min(load):.2f}–{max(load):.2f}; a case is slower or faster "
        f"when its whole {args.confidence * 100:g}% interval is beyond ±{args.threshold * 100:g}%"
    )
    print(table(result))
    bad = regressions(result)
    controls = [r for r in result if r.case.role != "ours" and r.change.verdict != "same"]
    if controls:
        print(
            f"note: {len(controls)} control case(s) (the same code on both sides) differ: "
            "the measurement is disturbed; measure again"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "a": {"rev": args.a, "commit": commits[0], "where": got["where"]["a"]},
                    "b": {"rev": args.b, "commit": commits[1], "where": got["where"]["b"]},
                    "threshold": args.threshold,
                    "clock": args.clock,
                    "confidence": args.confidence,
                    "load": load,
                    "cases": {
                        r.case.name: {
                            "a": got["samples"]["a"][r.case.name],
                            "b": got["samples"]["b"][r.case.name],
                            "ratio": r.change.ratio,
                            "low": r.change.low,
                            "high": r.change.high,
                            "verdict": r.change.verdict,
                        }
                        for r in result
                    },
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    print(
        f"{len(bad)} regression(s) beyond {args.threshold * 100:g}%"
        + (": " + ", ".join(r.case.name for r in bad) if bad else "")
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
