"""Throughput dashboard: saved runs → one self-contained HTML page, a text table, a comparison
of two runs, or a feed for another dashboard.

    uv run python -m benchmarks.dashboard benchmarks/results/*.json    # the shipped history
    uv run python -m benchmarks.dashboard                     # every run saved under .benchmarks/
    uv run python -m benchmarks.dashboard A.json B.json -o report.html
    uv run python -m benchmarks.dashboard --text              # plain-text table (terminals, CI)
    uv run python -m benchmarks.dashboard --compare A.json B.json   # exit 1 on a regression
    uv run python -m benchmarks.dashboard RUN.json --export bmf -o bmf.json
    uv run python -m benchmarks.dashboard RUN.json --export github-action-benchmark -o gab.json

Runs are pytest-benchmark JSON files, or the smaller ones ``benchmarks.history`` writes in the
same layout with every round's figure (``extra_info.samples``).  The history is keyed by commit
and machine; a case's noise band comes from its repeated measurements, and a change is flagged
only when it is outside the noise (``benchmarks.stats``).  The page has no network dependency:
charts are inline SVG on linear axes from 0, styles are inline, there is no JavaScript.  Figures
are recomputed from each entry's median and ``extra_info.input_bytes`` (MB/s = input bytes /
median seconds / 10^6).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import html
import json
import math
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python benchmarks/dashboard.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import stats
from benchmarks.results import annotate, fmt_bytes, fmt_rate, fmt_ratio, mb_per_s

OP_ORDER = [
    "canonicalize",
    "validate",
    "inspect",
    "apply-patch",
    "diff",
    "mcp-roundtrip",
    "cli-startup",
    "memory",
]
SIZE_ORDER = ["1KiB", "64KiB", "1MiB", "16MiB"]
SHAPE_ORDER = ["ui", "numbers", "strings"]
IMPL_COLORS = {
    "nuif": "#1b6ac9",
    "nuif-codec": "#5aa0f2",
    "nuif-py": "#9cc3ee",
    "rfc8785": "#d9822b",
    "json": "#7d8b99",
    "orjson": "#c23b22",
    "jsonpatch": "#8e44ad",
    "orjson+walk": "#c23b22",
    "sha256": "#3d4a5c",
}
PALETTE = ["#2e8b57", "#b8860b", "#6b5b95", "#ff6f61", "#4682b4", "#a0522d"]


def _rank(value: str, preferred: Sequence[str]) -> int:
    return preferred.index(value) if value in preferred else len(preferred)


def _order(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    vals = set(values)
    return [v for v in preferred if v in vals] + sorted(vals - set(preferred))


# ---------------------------------------------------------------------------------------------
# Model


@dataclass
class Row:
    op: str
    shape: str
    size: str
    impl: str
    role: str
    median: float | None
    input_bytes: int | None
    info: dict[str, Any]

    @property
    def memory(self) -> bool:
        return self.info.get("metric") == "memory"

    @property
    def latency(self) -> bool:
        if self.memory:
            return False
        return self.info.get("metric") == "latency" or "startup" in self.op or not self.input_bytes

    @property
    def ms(self) -> float | None:
        return self.median * 1e3 if self.median else None

    @property
    def mbps(self) -> float | None:
        if self.memory or self.latency or not self.median or not self.input_bytes:
            return None
        return mb_per_s(self.input_bytes, self.median)

    @property
    def ratios(self) -> dict[str, float]:
        return dict(self.info.get("ratio_to") or {})

    @property
    def samples(self) -> list[float]:
        """Seconds per call of each repeated measurement (``extra_info.samples``: one per round,
        each round a fresh process), or, without them, the median alone."""
        got = self.info.get("samples")
        if isinstance(got, list) and got and all(_positive(x) for x in got):
            return [float(x) for x in got]
        return [self.median] if self.median else []

    @property
    def repeated(self) -> bool:
        """Whether the entry carries repeated measurements (the noise can be estimated)."""
        return len(self.samples) >= 2

    def value(self) -> float | None:
        """The figure charted: MB/s, or ms for latencies."""
        return self.mbps if self.mbps is not None else self.ms

    def band(self) -> tuple[float, float] | None:
        """The noise band in the figure's unit: where the middle 80 % of the samples lie."""
        if not self.repeated:
            return None
        lo_s, hi_s = stats.spread(self.samples)
        if self.mbps is not None and self.input_bytes:
            return mb_per_s(self.input_bytes, hi_s), mb_per_s(self.input_bytes, lo_s)
        return lo_s * 1e3, hi_s * 1e3


def _positive(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


@dataclass
class Run:
    name: str
    when: str
    machine: str
    commit: str
    rows: list[Row] = field(default_factory=list)
    #: the commit's full id and date (``commit_info``), its subject line when recorded
    commit_id: str = ""
    commit_time: str = ""
    subject: str = ""
    #: what identifies the machine across runs (no host name: containers get a new one each time)
    machine_id: str = ""
    #: runs measured together (``benchmarks.history``): ``{"id", "builds", "rounds", ...}``
    session: dict[str, Any] = field(default_factory=dict)
    #: the 1-minute load average before each round, when recorded
    load_average: list[float] = field(default_factory=list)

    @classmethod
    def from_entries(
        cls,
        entries: list[dict[str, Any]],
        *,
        name: str,
        when: str = "",
        machine: str = "",
        commit: str = "",
        **more: Any,
    ) -> Run:
        annotate(entries)  # idempotent: fills ratio_to for runs saved without it
        rows = []
        for e in entries:
            info = dict(e.get("extra_info") or {})
            stats = e.get("stats") or {}
            median = stats.get("median")
            ib = info.get("input_bytes")
            rows.append(
                Row(
                    op=str(info.get("op") or e.get("group") or "other"),
                    shape=str(info.get("shape") or ""),
                    size=str(info.get("size") or ""),
                    impl=str(info.get("impl") or e.get("name") or "?"),
                    role=str(info.get("role") or "ours"),
                    median=float(median)
                    if isinstance(median, (int, float)) and median > 0
                    else None,
                    input_bytes=int(ib) if isinstance(ib, (int, float)) else None,
                    info=info,
                )
            )
        return cls(name=name, when=when, machine=machine, commit=commit, rows=rows, **more)

    @classmethod
    def load(cls, path: Path) -> Run:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        mi = data.get("machine_info") or {}
        cpu = mi.get("cpu") or {}
        py = " ".join(
            str(x)
            for x in (mi.get("python_implementation", "Python"), mi.get("python_version"))
            if x
        )
        brand = cpu.get("brand_raw") or mi.get("processor")
        count = f"{cpu['count']} CPUs" if cpu.get("count") else None
        machine = ", ".join(str(x) for x in (mi.get("node"), brand, count, py) if x)
        machine_id = str(mi.get("machine_id") or ", ".join(str(x) for x in (brand, count, py) if x))
        ci = data.get("commit_info") or {}
        commit = (str(ci.get("id") or "")[:10] + (" (dirty)" if ci.get("dirty") else "")).strip()
        load = mi.get("load_average")
        return cls.from_entries(
            list(data.get("benchmarks") or []),
            name=Path(path).stem,
            when=str(data.get("datetime") or ""),
            machine=machine,
            commit=commit,
            commit_id=str(ci.get("id") or ""),
            commit_time=str(ci.get("time") or ci.get("author_time") or ""),
            subject=str(ci.get("subject") or ""),
            machine_id=machine_id,
            session=dict(data.get("session") or {}),
            load_average=[float(x) for x in load if _positive(x)] if isinstance(load, list) else [],
        )

    @property
    def codec(self) -> str:
        """The nuif_core codec the run measured (``compiled (fast_float+dragonbox, sha-ni)``,
        ``python``, …)."""
        seen = {str(r.info["nuif_codec"]) for r in self.rows if r.info.get("nuif_codec")}
        return "/".join(sorted(seen)) or "?"

    def index(self) -> dict[tuple[str, str, str, str], Row]:
        return {(r.op, r.shape, r.size, r.impl): r for r in self.rows}

    def ops(self) -> list[str]:
        return _order((r.op for r in self.rows), OP_ORDER)


def primary_impl(rows: Iterable[Row]) -> str:
    """The implementation whose ratios a table shows: the first ``ours`` (``nuif`` if present)."""
    order = impl_order(rows)
    return "nuif" if "nuif" in order else (order[0] if order else "nuif")


def impl_order(rows: Iterable[Row]) -> list[str]:
    """Column order: NUIF's implementations, the peers, then baselines (``sha256``), each in the
    order they first appear."""
    ours: list[str] = []
    peers: list[str] = []
    baselines: list[str] = []
    for r in rows:
        bucket = ours if r.role == "ours" else baselines if r.role == "baseline" else peers
        if r.impl not in ours and r.impl not in peers and r.impl not in baselines:
            bucket.append(r.impl)
    return ours + peers + baselines


def find_runs(storage: Path) -> list[Path]:
    return sorted(storage.glob("**/*.json"))


def load_runs(paths: Sequence[Path]) -> list[Run]:
    """The runs, oldest first (by the date of the run, then of its commit, then by name)."""
    runs = [Run.load(p) for p in paths]
    runs.sort(key=lambda r: (r.when, r.commit_time, r.name))
    return runs


# ---------------------------------------------------------------------------------------------
# Targets (evaluated on the latest run), in four plainly named groups

GROUP_PEERS = "speed against the peers"
GROUP_SHA256 = "canonical bytes + SHA-256 against SHA-256 alone"
GROUP_VALIDATE = "validate against canonicalize"
GROUP_MEMORY = "memory"
GROUP_JS = "JavaScript: the WebAssembly core against the native core and npm"
TARGET_GROUPS = (GROUP_PEERS, GROUP_SHA256, GROUP_VALIDATE, GROUP_MEMORY, GROUP_JS)

#: the JavaScript groups' shapes and sizes (benchmarks/bench_web.py)
JS_SHAPES = ("ui", "strings", "numbers")
JS_SIZES = ("64KiB", "1MiB", "16MiB")

#: canonical bytes + SHA-256 (``nuif``) within this many times the time of ``hashlib.sha256``
#: over the same input bytes (the ``sha256`` baseline of the canonicalize group)
SHA256_LIMITS = (("64KiB", 2.0), ("1MiB", 2.0), ("16MiB", 2.5))


def sha256_label(shape: str, size: str, limit: float) -> str:
    """The wording of one SHA-256 target (``benchmarks.interleaved`` uses it too)."""
    return f"canonicalize {shape} {size}: time ÷ hashlib.sha256 time ≤ {limit:g}×"


@dataclass
class Target:
    label: str
    measured: float | None
    threshold: float
    higher_is_better: bool = True
    #: how ``measured`` was obtained: "medians" (of two groups, or of one group's implementations)
    #: or "interleaved" (the median of interleaved pairs, ``benchmarks/interleaved.py``)
    how: str = "medians"
    spread: tuple[float, float] | None = None  # the interleaved pairs' lowest and highest
    group: str = GROUP_PEERS  # one of TARGET_GROUPS

    @property
    def met(self) -> bool | None:
        if self.measured is None:
            return None
        if self.higher_is_better:
            return self.measured >= self.threshold
        return self.measured <= self.threshold


def targets(run: Run) -> list[Target]:
    idx = run.index()

    def ratio(op: str, shape: str, size: str, peer: str) -> float | None:
        r = idx.get((op, shape, size, "nuif"))
        return r.ratios.get(peer) if r else None

    def time_ratio(a: tuple[str, str, str, str], b: tuple[str, str, str, str]) -> float | None:
        """a's median ÷ b's median (lower is better for a)."""
        ra, rb = idx.get(a), idx.get(b)
        return ra.median / rb.median if ra and rb and ra.median and rb.median else None

    out: list[Target] = []
    for size, need in (("1MiB", 1.5), ("16MiB", 3.0)):
        out.append(
            Target(
                f"canonicalize ui {size}: nuif vs orjson round trip ≥ {need}×",
                ratio("canonicalize", "ui", size, "orjson"),
                need,
            )
        )
    for shape in ("ui", "numbers"):
        for size in SIZE_ORDER:
            out.append(
                Target(
                    f"canonicalize {shape} {size}: nuif vs rfc8785 ≥ 15×",
                    ratio("canonicalize", shape, size, "rfc8785"),
                    15.0,
                )
            )
    for size in SIZE_ORDER:
        out.append(
            Target(
                f"canonicalize strings {size}: nuif vs orjson round trip ≥ 1.5×",
                ratio("canonicalize", "strings", size, "orjson"),
                1.5,
            )
        )
    for shape in SHAPE_ORDER:
        for size, limit in SHA256_LIMITS:
            out.append(
                Target(
                    sha256_label(shape, size, limit),
                    time_ratio(
                        ("canonicalize", shape, size, "nuif"),
                        ("canonicalize", shape, size, "sha256"),
                    ),
                    limit,
                    higher_is_better=False,
                    group=GROUP_SHA256,
                )
            )
    for shape in SHAPE_ORDER:
        for size in SIZE_ORDER:
            out.append(
                Target(
                    f"validate {shape} {size}: time ÷ canonicalize time ≤ 1.2",
                    time_ratio(
                        ("validate", shape, size, "nuif"), ("canonicalize", shape, size, "nuif")
                    ),
                    1.2,
                    higher_is_better=False,
                    group=GROUP_VALIDATE,
                )
            )
    for shape in SHAPE_ORDER:
        r = idx.get(("memory", shape, "16MiB", "nuif"))
        out.append(
            Target(
                f"memory {shape} 16MiB: nuif extra peak RSS ÷ input ≤ 2.5",
                r.info.get("extra_rss_ratio") if r else None,
                2.5,
                higher_is_better=False,
                group=GROUP_MEMORY,
            )
        )
    # nuif-web's WebAssembly core (Node) against the native core (CPython) and npm's canonicalize:
    # speed ratios, higher is better (the other's median time ÷ the core's)
    for shape in JS_SHAPES:
        for size in JS_SIZES:
            for label, ours, other, need in (
                ("canonicalJsonBytes vs native canonical_json", "wasm-bytes", "compiled", 0.5),
                ("canonicalJson vs native canonical_json", "wasm", "compiled", 0.5),
                ("canonicalJson vs npm canonicalize", "wasm", "npm-canonicalize", 5.0),
            ):
                out.append(
                    Target(
                        f"js-canonical-json {shape} {size}: {label} ≥ {need:g}×",
                        time_ratio(
                            ("js-canonical-json", shape, size, other),
                            ("js-canonical-json", shape, size, ours),
                        ),
                        need,
                        group=GROUP_JS,
                    )
                )
            out.append(
                Target(
                    f"js-canonicalize {shape} {size}: canonicalize vs native ≥ 0.4×",
                    time_ratio(
                        ("js-canonicalize", shape, size, "compiled"),
                        ("js-canonicalize", shape, size, "wasm"),
                    ),
                    0.4,
                    group=GROUP_JS,
                )
            )
    # a figure measured as interleaved pairs (recorded on the nuif entry it belongs to) replaces
    # the medians' one: it does not depend on which second each group happened to run in
    paired = {}
    for r in run.rows:
        for label, fig in (r.info.get("interleaved") or {}).items():
            paired[label] = fig
    for t in out:
        fig = paired.get(t.label)
        if fig:
            t.measured, t.how = float(fig["median"]), "interleaved"
            t.spread = (float(fig["low"]), float(fig["high"]))
    return [t for t in out if t.measured is not None]


def _how(t: Target) -> str:
    if t.spread is None:
        return t.how
    return f"{t.how} (pairs {t.spread[0]:.2f}–{t.spread[1]:.2f})"


# ---------------------------------------------------------------------------------------------
# Text


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)
    ]

    def fmt(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    lines += [fmt(b) for b in body]
    return "\n".join(lines)


#: below this input size a memory row shows bytes, not a ratio: the kernel counts memory in pages
#: (4 KiB), so at 1 KiB "6 pages ÷ 1 KiB" would read as 24× and "0 pages" as nothing at all
MEMORY_RATIO_MIN_INPUT = 1 << 20
PAGE = 4096


def memory_figure(r: Row) -> tuple[float | None, str]:
    """(extra peak RSS ÷ input, or None where pages dwarf the input; the text to show)."""
    extra = r.info.get("extra_rss_bytes")
    ratio = r.info.get("extra_rss_ratio")
    if r.input_bytes and r.input_bytes >= MEMORY_RATIO_MIN_INPUT and _positive(ratio):
        return float(ratio), f"{float(ratio):.2f}"  # type: ignore[arg-type]
    if isinstance(extra, (int, float)) and extra >= 0:
        pages = round(extra / PAGE)
        if not pages:
            return None, "< 1 page"
        return None, f"{fmt_bytes(extra)} ({pages} page{'s' if pages != 1 else ''})"
    return None, "-"


def _op_kind(
    rows: list[Row],
) -> tuple[str, Callable[[Row], float | None], Callable[[float | None], str]]:
    """(unit, value of a row, formatter) for the table of one operation."""
    if any(r.memory for r in rows):
        return (
            "extra RSS ÷ input",
            lambda r: memory_figure(r)[0],
            lambda v: "-" if v is None else f"{v:.2f}",
        )
    if all(r.latency for r in rows):
        return "median ms", lambda r: r.ms, lambda v: "-" if v is None else f"{v:.4g}"
    return "MB/s", lambda r: r.mbps, fmt_rate


def _op_rows(run: Run, op: str) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    rows = [r for r in run.rows if r.op == op]
    impls = impl_order(rows)
    peers = [i for i in impls if any(r.impl == i and r.role == "peer" for r in rows)]
    keys = sorted(
        {(r.shape, r.size) for r in rows},
        key=lambda k: (_rank(k[0], SHAPE_ORDER), k[0], _rank(k[1], SIZE_ORDER), k[1]),
    )
    return impls, peers, keys


def _mains(runs: Sequence[Run]) -> dict[str, str]:
    by_op: dict[str, list[Row]] = defaultdict(list)
    for run_ in runs:
        for r in run_.rows:
            by_op[r.op].append(r)
    return {op: primary_impl(rows) for op, rows in by_op.items()}


def _history_keys(runs: Sequence[Run], mains: dict[str, str]) -> list[tuple[str, str, str]]:
    """Every (operation, shape, size) any run measured with its operation's main implementation,
    in display order: the rows of the history tables and charts."""
    return sorted(
        {
            (r.op, r.shape, r.size)
            for run_ in runs
            for r in run_.rows
            if r.impl == mains.get(r.op) and r.mbps
        },
        key=lambda k: (_rank(k[0], OP_ORDER), _rank(k[1], SHAPE_ORDER), _rank(k[2], SIZE_ORDER), k),
    )


def text_table(runs: Sequence[Run]) -> str:
    """The latest run as one table per operation, then the history of NUIF's figures."""
    if not runs:
        return "no benchmark runs found"
    run = runs[-1]
    idx = run.index()
    out = [f"run {run.name}  {run.when}  {run.machine}  {run.commit}  nuif codec: {run.codec}"]
    for op in run.ops():
        impls, peers, keys = _op_rows(run, op)
        op_rows = [r for r in run.rows if r.op == op]
        unit, value, fmt = _op_kind(op_rows)
        main = primary_impl(op_rows)
        peers = [p_ for p_ in peers if p_ != main]
        header = ["shape", "size"] + list(impls) + [f"{main} vs {p_}" for p_ in peers]
        body = []
        for shape, size in keys:
            cells = [shape, size]
            for impl in impls:
                r = idx.get((op, shape, size, impl))
                if r is None:
                    cells.append("-")
                else:
                    cells.append(memory_figure(r)[1] if r.memory else fmt(value(r)))
            ours = idx.get((op, shape, size, main))
            for p_ in peers:
                small = ours is not None and ours.memory and memory_figure(ours)[0] is None
                cells.append(fmt_ratio(ours.ratios.get(p_)) if ours and not small else "-")
            body.append(cells)
        out += [
            "",
            f"{op} ({unit}; ratio = how many times faster/leaner {main} is)",
            _table(header, body),
        ]
    for machine, points in history(runs).items():
        if len(points) > 1:  # one commit is no history (its figures are the tables above)
            out += ["", f"history on {machine} (oldest commit first)"]
            out.append(history_text(points))
    ts = targets(run)
    for group in TARGET_GROUPS:
        if not any(t.group == group for t in ts):
            continue
        out += ["", f"targets: {group}"]
        for t in ts:
            if t.group == group:
                mark = "met" if t.met else "NOT met"
                out.append(f"  [{mark:7}] {t.label}: measured {t.measured:.2f}, {_how(t)}")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# History by commit and machine; comparisons of two runs


Key = tuple[str, str, str, str]  # (op, shape, size, impl)


@dataclass
class Point:
    """Every run of one commit on one machine: one point of the history."""

    commit_id: str
    commit: str
    commit_time: str
    subject: str
    runs: list[Run] = field(default_factory=list)

    @property
    def short(self) -> str:
        """The label on an axis: 7 digits of the commit, or the run's name when it has none."""
        return self.commit[:24] if self.commit_id.startswith("run:") else self.commit[:7]

    def rows(self, key: Key) -> list[Row]:
        return [r for run in self.runs if (r := run.index().get(key)) is not None]

    def samples(self, key: Key) -> list[float]:
        return [x for r in self.rows(key) for x in r.samples]

    def mark(self, key: Key) -> Mark | None:
        """The figure (from the median of every sample of the commit) and its noise band."""
        rows = self.rows(key)
        if not rows or rows[0].memory:
            return None
        pooled = self.samples(key)
        if not pooled:
            return None
        merged = Row(**{**rows[0].__dict__, "median": statistics.median(pooled)})
        merged.info = {**rows[0].info, "samples": pooled}
        value = merged.value()
        return Mark(value, merged.band()) if value else None


def history(runs: Sequence[Run]) -> dict[str, list[Point]]:
    """The runs as points, one per commit, per machine (in order of first appearance), each
    machine's points in the order of their commits' dates."""
    out: dict[str, dict[str, Point]] = {}
    for run in runs:
        machine = run.machine_id or run.machine or "?"
        # a run outside a git checkout ("unversioned") is its own point, named after its file
        known = re.fullmatch(r"[0-9a-f]{7,40}", run.commit_id)
        key = run.commit_id if known else f"run:{run.name}"
        label = run.commit[:10] if known else run.name
        points = out.setdefault(machine, {})
        if key not in points:
            points[key] = Point(key, label, run.commit_time, run.subject)
        points[key].runs.append(run)
    return {
        m: sorted(pts.values(), key=lambda p: (p.commit_time, min(r.when for r in p.runs)))
        for m, pts in out.items()
    }


def compare_rows(
    a: Sequence[Row],
    b: Sequence[Row],
    *,
    same_session: bool = False,
    threshold: float = stats.THRESHOLD,
    confidence: float = stats.CONFIDENCE,
) -> stats.Change | None:
    """B against A for one case, from every sample of each side: round by round when both are
    one run each of the same session with as many rounds, else unpaired.  None for memory."""
    if not a or not b or a[0].memory or b[0].memory:
        return None
    sa = [x for r in a for x in r.samples]
    sb = [x for r in b for x in r.samples]
    if not sa or not sb:
        return None
    if same_session and len(a) == len(b) == 1 and len(sa) == len(sb) >= 2:
        return stats.paired(sa, sb, threshold=threshold, confidence=confidence)
    return stats.unpaired(sa, sb, threshold=threshold, confidence=confidence)


def _same_session(a: Sequence[Run], b: Sequence[Run]) -> bool:
    ids = {r.session.get("id") for r in (*a, *b)}
    return len(ids) == 1 and None not in ids


def point_change(
    prev: Point, cur: Point, key: Key, threshold: float = stats.THRESHOLD
) -> stats.Change | None:
    return compare_rows(
        prev.rows(key),
        cur.rows(key),
        same_session=_same_session(prev.runs, cur.runs),
        threshold=threshold,
    )


def _keys(runs: Iterable[Run]) -> list[Key]:
    keys = {k for run in runs for k, r in run.index().items() if not r.memory and r.value()}
    impls = impl_order([r for run in runs for r in run.rows])
    return sorted(
        keys,
        key=lambda k: (
            _rank(k[0], OP_ORDER),
            k[0],
            _rank(k[1], SHAPE_ORDER),
            _rank(k[2], SIZE_ORDER),
            k[2],
            _rank(k[3], impls),
        ),
    )


def _unit(key: Key, points: Sequence[Point]) -> str:
    row = next((r for p in points for r in p.rows(key)), None)
    return "MB/s" if row is not None and row.mbps is not None else "ms"


def _pct_of_figure(change: stats.Change, unit: str) -> float:
    """The change in the charted figure: throughput moves as 1 ÷ time, milliseconds as time."""
    return (1 / change.ratio - 1) * 100 if unit == "MB/s" else change.percent


def _describe(change: stats.Change | None, unit: str) -> str:
    if change is None:
        return "-"
    if change.verdict == "untested":
        return f"{_pct_of_figure(change, unit):+.1f}% (no repeated measurements)"
    return (
        f"{_pct_of_figure(change, unit):+.1f}% {change.verdict} "
        f"(time ×{change.ratio:.3f}, {change.confidence * 100:g}% CI "
        f"{change.low:.3f}–{change.high:.3f})"
    )


def history_text(points: Sequence[Point], threshold: float = stats.THRESHOLD) -> str:
    runs = [r for p in points for r in p.runs]
    keys = _keys(runs)
    header = ["case", "unit"] + [p.commit[:10] for p in points]
    if len(points) > 1:
        header.append("last change")
    body = []
    for key in keys:
        unit = _unit(key, points)
        cells = [" ".join(key), unit]
        for p in points:
            m = p.mark(key)
            cells.append("-" if m is None else _fmt_value(m.value, unit))
        if len(points) > 1:
            cells.append(_describe(point_change(points[-2], points[-1], key, threshold), unit))
        body.append(cells)
    return _table(header, body) if body else "(no timed cases)"


def history_html(runs: Sequence[Run], threshold: float = stats.THRESHOLD) -> str:
    e = html.escape
    machines = history(runs)
    p = [
        f'<h2 id="history">History ({len(runs)} saved run{"s" if len(runs) != 1 else ""}, '
        f"{len(machines)} machine{'s' if len(machines) != 1 else ''})</h2>",
        '<p class="muted">One point per commit and machine, oldest commit left; runs of one '
        "commit are pooled. The shaded band is the noise: where the middle 80 % of the repeated "
        "measurements lie (each a fresh process). A point is ringed, with its change, only when "
        "the change from the previous commit is outside the noise: the whole "
        f"{stats.CONFIDENCE * 100:g} % confidence interval of the ratio of median times "
        f"beyond ±{threshold * 100:g} % (paired round by round when both were measured in one "
        "session; at least 6 rounds a side). Runs without repeated measurements are "
        "shown, never flagged. Axes start at 0.</p>",
    ]
    # machines with the longest history first
    for machine, points in sorted(machines.items(), key=lambda kv: -len(kv[1])):
        mruns = [r for pt in points for r in pt.runs]
        load = [x for r in mruns for x in r.load_average]
        p.append(f'<h3 class="machine"{_attrs(machine=machine)}>{e(machine)}</h3>')
        p.append(
            '<table class="runs"><tr><th>commit</th><th>date</th><th>subject</th><th>runs</th>'
            "<th>rounds</th><th>load average</th><th>nuif codec</th></tr>"
        )
        for pt in points:
            rounds = sorted({int(r.session["rounds"]) for r in pt.runs if r.session.get("rounds")})
            pl = [x for r in pt.runs for x in r.load_average]
            p.append(
                f"<tr{_attrs(commit=pt.commit_id)}><td><code>{e(pt.commit[:10])}</code></td>"
                f"<td>{e(pt.commit_time[:10])}</td><td>{e(pt.subject[:90])}</td>"
                f"<td>{len(pt.runs)}</td><td>{', '.join(map(str, rounds)) or '-'}</td>"
                f"<td>{f'{min(pl):.1f}–{max(pl):.1f}' if pl else '-'}</td>"
                f"<td>{e(pt.runs[-1].codec)}</td></tr>"
            )
        p.append("</table>")
        if load:
            p.append(
                f'<p class="muted">Load average while measuring: {min(load):.1f}–{max(load):.1f} '
                "on this machine's CPUs, shared with other work; the builds of a session took "
                "turns round by round, so the load fell on all of them alike.</p>"
            )
        keys = _keys(mruns)
        if len(points) < 2:
            p.append('<p class="muted">One commit measured on this machine: no history yet.</p>')
        else:
            xl = [pt.short for pt in points]
            xt = [f"{pt.commit} {pt.commit_time[:10]} {pt.subject[:80]}" for pt in points]
            charts = []
            groups = dict.fromkeys(k[:3] for k in keys)
            for group in groups:
                gkeys = [k for k in keys if k[:3] == group]
                unit = _unit(gkeys[0], points)
                series: dict[str, list[Mark | None]] = {}
                for k in gkeys:
                    marks = [pt.mark(k) for pt in points]
                    for i in range(1, len(points)):
                        m = marks[i]
                        if m is not None and marks[i - 1] is not None:
                            m.change = point_change(points[i - 1], points[i], k, threshold)
                    series[k[3]] = marks
                charts.append(history_chart(" ".join(group), xl, xt, series, unit, list(series)))
            p.append('<div class="charts">' + "".join(charts) + "</div>")
        if len(points) < 2:  # the figures of one commit: folded away, they are no history
            p.append(f"<details><summary>the figures of this commit ({len(keys)} cases)</summary>")
        p.append(
            f'<table class="history"{_attrs(machine=machine)}><tr><th>case</th><th>unit</th>'
            + "".join(f"<th><code>{e(pt.short)}</code></th>" for pt in points)
            + ("<th>last change</th>" if len(points) > 1 else "")
            + "</tr>"
        )
        for key in keys:
            unit = _unit(key, points)
            cells = []
            for i, pt in enumerate(points):
                m = pt.mark(key)
                ch = point_change(points[i - 1], pt, key, threshold) if i else None
                verdict = ch.verdict if ch else ""
                cls = f"rate flag-{verdict}" if verdict in ("slower", "faster") else "rate"
                where = where_of(*key)
                cells.append(
                    f'<td class="{cls}"'
                    f"{_attrs(run=pt.commit, **where, value=_num(m.value if m else None, 6), verdict=verdict)}>"
                    f"{_fmt_value(m.value, unit) if m else '–'}</td>"
                )
            last = ""
            if len(points) > 1:
                ch = point_change(points[-2], points[-1], key, threshold)
                v = ch.verdict if ch else ""
                cls = f"flag-{v}" if v in ("slower", "faster") else "noise"
                last = f'<td class="{cls}">{e(_describe(ch, unit))}</td>'
            p.append(
                f"<tr><td>{e(' '.join(key))}</td><td>{e(unit)}</td>{''.join(cells)}{last}</tr>"
            )
        p.append("</table>")
        if len(points) < 2:
            p.append("</details>")
    return "\n".join(p)


@dataclass(frozen=True)
class CaseChange:
    key: Key
    role: str
    unit: str
    a: float | None
    b: float | None
    change: stats.Change


def compare_runs(
    a: Run,
    b: Run,
    *,
    threshold: float = stats.THRESHOLD,
    confidence: float = stats.CONFIDENCE,
) -> list[CaseChange]:
    """Every timed case both runs measured, B against A."""
    ia, ib = a.index(), b.index()
    same = _same_session([a], [b])
    out = []
    for key in _keys([a, b]):
        ra, rb = ia.get(key), ib.get(key)
        if ra is None or rb is None:
            continue
        ch = compare_rows([ra], [rb], same_session=same, threshold=threshold, confidence=confidence)
        if ch is None:
            continue
        unit = "MB/s" if ra.mbps is not None else "ms"
        out.append(CaseChange(key, ra.role, unit, ra.value(), rb.value(), ch))
    return out


def compare_text(a: Run, b: Run, changes: Sequence[CaseChange]) -> str:
    how = "paired round by round (one session)" if _same_session([a], [b]) else "unpaired"
    moved = [c for c in changes if c.change.verdict in ("slower", "faster")]
    untested = [c for c in changes if c.change.verdict == "untested"]
    th = changes[0].change if changes else None
    lines = [
        f"A = {a.name} ({a.commit or '?'}), B = {b.name} ({b.commit or '?'}): {len(changes)} "
        f"cases, {how}",
    ]
    if th is not None:
        lines.append(
            f"a change counts when the whole {th.confidence * 100:g}% interval of B's time ÷ "
            f"A's lies beyond ±{th.threshold * 100:g}% (benchmarks.stats)"
        )
    if moved:
        body = [
            [
                " ".join(c.key),
                c.role,
                _fmt_value(c.a, c.unit) if c.a else "-",
                _fmt_value(c.b, c.unit) if c.b else "-",
                c.unit,
                f"{c.change.ratio:.3f}",
                f"{c.change.low:.3f}–{c.change.high:.3f}",
                c.change.verdict,
            ]
            for c in moved
        ]
        lines.append(_table(["case", "role", "A", "B", "unit", "time B÷A", "CI", "verdict"], body))
    else:
        lines.append("no change outside the noise")
    if untested:
        lines.append(
            f"{len(untested)} case(s) without repeated measurements on both sides: not tested"
        )
    bad = regressions(changes)
    lines.append(
        f"{len(bad)} regression(s) of nuif"
        + (": " + ", ".join(" ".join(c.key) for c in bad) if bad else "")
    )
    return "\n".join(lines)


def regressions(changes: Sequence[CaseChange]) -> list[CaseChange]:
    """NUIF's own cases that are slower beyond the threshold (peers and baselines measure the
    machine, not this project, and never count)."""
    return [c for c in changes if c.role == "ours" and c.change.verdict == "slower"]


# ---------------------------------------------------------------------------------------------
# Feeds for other dashboards


def _case_name(key: Key) -> str:
    return " ".join(key)


def export_github_action_benchmark(run: Run) -> list[dict[str, Any]]:
    """github-action-benchmark's ``customBiggerIsBetter`` input: a JSON array of
    ``{"name", "unit", "value", "range"?, "extra"?}``, bigger is better.  Throughputs as MB/s,
    latencies as calls per second (1 ÷ the median); memory (smaller is better) is left out."""
    out = []
    for key in _keys([run]):
        r = run.index()[key]
        band = r.band()
        extra = f"median of {len(r.samples)} rounds; commit {run.commit or '?'}; {run.machine_id}"
        if r.mbps is not None:
            item: dict[str, Any] = {"name": _case_name(key), "unit": "MB/s", "value": r.mbps}
            if band:
                item["range"] = f"{band[0]:.4g}–{band[1]:.4g}"
        else:
            assert r.median is not None
            item = {"name": _case_name(key), "unit": "calls/s", "value": 1 / r.median}
            if band:
                item["range"] = f"{1e3 / band[1]:.4g}–{1e3 / band[0]:.4g}"
        item["extra"] = extra
        out.append(item)
    return out


def export_bmf(run: Run) -> dict[str, dict[str, dict[str, float]]]:
    """Bencher Metric Format: ``{benchmark: {measure: {"value", "lower_value"?,
    "upper_value"?}}}``.  Every timed case has ``latency`` (Bencher's built-in measure, in
    nanoseconds; the bounds are the noise band of the repeated measurements) and, for
    throughputs, ``megabytes-per-second``; memory cases have ``extra-rss-bytes``."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for key, r in sorted(run.index().items()):
        measures: dict[str, dict[str, float]] = {}
        if r.memory:
            extra = r.info.get("extra_rss_bytes")
            if isinstance(extra, (int, float)):
                measures["extra-rss-bytes"] = {"value": float(extra)}
        elif r.median:
            lat = {"value": r.median * 1e9}
            if r.repeated:
                lo, hi = stats.spread(r.samples)
                lat.update(lower_value=lo * 1e9, upper_value=hi * 1e9)
            measures["latency"] = lat
            if r.mbps is not None:
                mb = {"value": r.mbps}
                band = r.band()
                if band:
                    mb.update(lower_value=band[0], upper_value=band[1])
                measures["megabytes-per-second"] = mb
        if measures:
            out[_case_name(key)] = measures
    return out


# ---------------------------------------------------------------------------------------------
# SVG


def _color(impl: str, known: list[str]) -> str:
    if impl in IMPL_COLORS:
        return IMPL_COLORS[impl]
    return PALETTE[known.index(impl) % len(PALETTE)] if impl in known else PALETTE[0]


def nice_ticks(hi: float, most: int = 6) -> list[float]:
    """Ticks of a linear axis from 0 to at least ``hi``: 0, then steps of 1, 2 or 5 × 10^k, at
    most ``most`` of them past 0.  Every axis starts at 0, so a bar's height is its value."""
    if not hi > 0 or not math.isfinite(hi):
        return [0.0, 1.0]
    raw = hi / most
    base = 10.0 ** math.floor(math.log10(raw))
    step = next(m * base for m in (1, 2, 5, 10) if m * base >= raw)
    n = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(n + 1)]


def _tick_label(v: float) -> str:
    if v == 0:
        return "0"
    if v >= 1e5:
        return f"{v:.0e}"
    return f"{v:g}" if v >= 1 else f"{v:.2g}"


def _fmt_value(v: float, unit: str) -> str:
    return fmt_rate(v) if unit == "MB/s" else f"{v:.3g}"


def bar_chart(
    title: str,
    groups: list[str],
    series: list[str],
    value: Callable[[str, str], float | None],
    unit: str,
    colors: list[str],
) -> str:
    """Grouped vertical bars on a linear axis from 0 (a bar twice as tall is twice the value),
    each labelled with its value, so a short bar stays readable."""
    vals = [v for g in groups for s in series if (v := value(g, s))]
    if not vals:
        return ""
    ticks = nice_ticks(max(vals))
    top = ticks[-1]
    W, H, L, B, T = 560, 270, 56, 40, 34
    pw, ph = W - L - 130, H - B - T

    def y(v: float) -> float:
        return T + ph - v / top * ph

    gw = pw / max(1, len(groups))
    bw = max(2.0, (gw - 10) / max(1, len(series)))
    p = [
        (
            f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'viewBox="0 0 {W} {H}" role="img" aria-label="{html.escape(title)}">'
        ),
        f'<text x="{L}" y="16" class="ct">{html.escape(title)}</text>',
    ]
    for t in ticks:
        p.append(
            f'<line x1="{L}" x2="{L + pw}" y1="{y(t):.1f}" y2="{y(t):.1f}" class="grid"/>'
            f'<text x="{L - 4}" y="{y(t) + 3:.1f}" class="tick" text-anchor="end">'
            f"{_tick_label(t)}</text>"
        )
    p.append(
        f'<text x="12" y="{T + ph / 2}" class="tick" transform="rotate(-90 12 {T + ph / 2})" '
        f'text-anchor="middle">{html.escape(unit)}</text>'
    )
    for gi, g in enumerate(groups):
        x0 = L + gi * gw + 5
        p.append(
            f'<text x="{x0 + (gw - 10) / 2:.1f}" y="{T + ph + 16}" class="tick" '
            f'text-anchor="middle">{html.escape(g)}</text>'
        )
        for si, s in enumerate(series):
            v = value(g, s)
            if not v:
                continue
            yy = y(v)
            xc = x0 + si * bw + (bw - 1) / 2
            p.append(
                f'<rect x="{x0 + si * bw:.1f}" y="{yy:.1f}" width="{bw - 1:.1f}" '
                f'height="{T + ph - yy:.1f}" fill="{_color(s, colors)}" '
                f'data-series="{html.escape(s)}" data-group="{html.escape(g)}" '
                f'data-value="{v:.6g}"><title>{html.escape(s)} {html.escape(g)}: '
                f"{v:.4g} {html.escape(unit)}</title></rect>"
                f'<text x="{xc:.1f}" y="{yy - 3:.1f}" class="val" text-anchor="start" '
                f'transform="rotate(-90 {xc:.1f} {yy - 3:.1f})">{_fmt_value(v, unit)}</text>'
            )
    for si, s in enumerate(series):
        ly = T + 4 + si * 16
        p.append(
            f'<rect x="{L + pw + 12}" y="{ly}" width="10" height="10" '
            f'fill="{_color(s, colors)}"/><text x="{L + pw + 26}" y="{ly + 9}" class="tick">'
            f"{html.escape(s)}</text>"
        )
    p.append("</svg>")
    return "".join(p)


@dataclass
class Mark:
    """One point of a history line: the figure, its noise band, and the verdict of the change
    from the previous commit (``slower`` / ``faster`` flag it; ``same`` and ``untested`` do not)."""

    value: float
    band: tuple[float, float] | None = None
    change: stats.Change | None = None

    @property
    def flag(self) -> str | None:
        v = self.change.verdict if self.change else None
        return v if v in ("slower", "faster") else None


def history_chart(
    title: str,
    xlabels: list[str],
    xtitles: list[str],
    series: dict[str, list[Mark | None]],
    unit: str,
    colors: list[str],
) -> str:
    """One case's history: a line per implementation over the commits (oldest left), its noise
    band shaded, and a ring with the change where it is outside the noise.  Linear axis from 0."""
    tops = [
        max(m.value, m.band[1] if m.band else 0)
        for ms in series.values()
        for m in ms
        if m is not None
    ]
    if not tops or len(xlabels) < 2:
        return ""
    ticks = nice_ticks(max(tops))
    top = ticks[-1]
    W, H, L, B, T = 470, 230, 52, 38, 28
    pw, ph = W - L - 110, H - B - T

    def y(v: float) -> float:
        return T + ph - v / top * ph

    def x(i: int) -> float:
        return L + 14 + (i / (len(xlabels) - 1)) * (pw - 28)

    e = html.escape
    p = [
        f'<svg class="chart history" xmlns="http://www.w3.org/2000/svg" width="{W}" '
        f'height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="{e(title)}">',
        f'<text x="{L}" y="16" class="ct">{e(title)}</text>',
    ]
    for t in ticks:
        p.append(
            f'<line x1="{L}" x2="{L + pw}" y1="{y(t):.1f}" y2="{y(t):.1f}" class="grid"/>'
            f'<text x="{L - 4}" y="{y(t) + 3:.1f}" class="tick" text-anchor="end">'
            f"{_tick_label(t)}</text>"
        )
    p.append(
        f'<text x="12" y="{T + ph / 2}" class="tick" transform="rotate(-90 12 {T + ph / 2})" '
        f'text-anchor="middle">{e(unit)}</text>'
    )
    for i, (lab, tip) in enumerate(zip(xlabels, xtitles, strict=True)):
        p.append(
            f'<text x="{x(i):.1f}" y="{T + ph + 14}" class="tick" text-anchor="middle">'
            f"{e(lab)}<title>{e(tip)}</title></text>"
        )
    for si, (name, marks) in enumerate(series.items()):
        color = _color(name, colors)
        pts = [(i, m) for i, m in enumerate(marks) if m is not None]
        banded = [(i, m) for i, m in pts if m.band]
        if len(banded) > 1:
            upper = " ".join(f"{x(i):.1f},{y(m.band[1]):.1f}" for i, m in banded)  # type: ignore[index]
            lower = " ".join(
                f"{x(i):.1f},{y(m.band[0]):.1f}"  # type: ignore[index]
                for i, m in reversed(banded)
            )
            p.append(
                f'<polygon points="{upper} {lower}" fill="{color}" fill-opacity="0.18" '
                f'stroke="none" class="band" data-series="{e(name)}"/>'
            )
        for i, m in banded:
            p.append(
                f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(m.band[0]):.1f}" '  # type: ignore[index]
                f'y2="{y(m.band[1]):.1f}" stroke="{color}" stroke-opacity="0.5"/>'  # type: ignore[index]
            )
        if len(pts) > 1:
            d = " ".join(f"{x(i):.1f},{y(m.value):.1f}" for i, m in pts)
            p.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2"/>')
        for i, m in pts:
            band = f" (band {m.band[0]:.4g}–{m.band[1]:.4g})" if m.band else ""
            change = (
                f"; {_pct_of_figure(m.change, unit):+.1f}% vs previous commit, {m.change.verdict}"
                if m.change
                else ""
            )
            p.append(
                f'<circle cx="{x(i):.1f}" cy="{y(m.value):.1f}" r="3" fill="{color}"'
                f"{_attrs(series=name, x=xlabels[i], value=f'{m.value:.6g}', flag=m.flag or '')}>"
                f"<title>{e(name)} at {e(xlabels[i])}: {m.value:.4g} {e(unit)}{band}{change}"
                "</title></circle>"
            )
            if m.flag:
                ring = "#b3261e" if m.flag == "slower" else "#17703a"
                p.append(
                    f'<circle cx="{x(i):.1f}" cy="{y(m.value):.1f}" r="7" fill="none" '
                    f'stroke="{ring}" stroke-width="2" class="flag"/>'
                    f'<text x="{x(i) + 9:.1f}" y="{y(m.value) - 6:.1f}" class="flagtext" '
                    f'fill="{ring}">{_pct_of_figure(m.change, unit) if m.change else 0:+.0f}%</text>'
                )
        ly = T + 4 + si * 15
        p.append(
            f'<rect x="{L + pw + 10}" y="{ly}" width="10" height="10" fill="{color}"/>'
            f'<text x="{L + pw + 24}" y="{ly + 9}" class="tick">{e(name)}</text>'
        )
    p.append("</svg>")
    return "".join(p)


# ---------------------------------------------------------------------------------------------
# HTML

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2733}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dde}
h3{font-size:15px;margin:18px 0 6px} .muted{color:#667}
table{border-collapse:collapse;margin:6px 0 12px}
th,td{padding:3px 9px;border-bottom:1px solid #eef}
th{text-align:left;background:#f5f7fa;font-weight:600} td.rate,td.ratio,td.mem{text-align:right;
font-variant-numeric:tabular-nums} td.good{color:#17703a} td.bad{color:#b3261e}
.chart{margin:4px 12px 12px 0;vertical-align:top} .chart .ct{font-weight:600;font-size:13px}
.chart .tick{font-size:11px;fill:#556} .chart .grid{stroke:#e6e9ef;stroke-width:1}
.chart .val{font-size:9px;fill:#334} .chart .flagtext{font-size:11px;font-weight:600}
td.flag-slower{color:#b3261e;font-weight:600} td.flag-faster{color:#17703a;font-weight:600}
td.noise{color:#667}
.charts{display:flex;flex-wrap:wrap} .met{color:#17703a;font-weight:600}
.notmet{color:#b3261e;font-weight:600}
"""


def _num(v: float | None, digits: int) -> str:
    return "" if not v else f"{v:.{digits}f}"


def where_of(op: str, shape: str, size: str, impl: str) -> dict[str, str]:
    return {"op": op, "shape": shape, "size": size, "impl": impl}


def _attrs(**kw: Any) -> str:
    return "".join(f' data-{k.replace("_", "-")}="{html.escape(str(v))}"' for k, v in kw.items())


def render_html(runs: Sequence[Run], *, title: str = "NUIF benchmarks") -> str:
    if not runs:
        raise ValueError("no runs to render")
    run = runs[-1]
    idx = run.index()
    e = html.escape
    p = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        (
            f'<p class="muted">Latest run <b>{e(run.name)}</b> · {e(run.when)} · '
            f"{e(run.machine)} · "
            f"commit {e(run.commit or '?')} · nuif codec <b class=codec>{e(run.codec)}</b> · "
            f"page generated "
            f"{_dt.datetime.now(_dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}</p>"
        ),
        (
            '<p class="muted">MB/s = input bytes ÷ median seconds ÷ 10<sup>6</sup>. '
            "Ratio = the peer's median ÷ the NUIF implementation's median (<code>nuif</code>, or "
            "the surface's own, e.g. <code>nuif-mcp</code>) within the same operation, shape and "
            "size: how many times faster NUIF is (&gt; 1 is better). Start-up times: median ms. "
            "Memory: extra peak RSS ÷ input bytes, measured in a fresh process. A baseline "
            "(<code>sha256</code> in canonicalize: <code>hashlib.sha256</code> over the input "
            "bytes) is not a peer: it has MB/s and no ratio column; targets use it.</p>"
        ),
    ]

    ts = targets(run)
    if ts:
        p.append(
            '<h2 id="targets">Targets</h2><p class="muted">"nuif vs X" = X\'s time ÷ '
            "nuif's, at least the figure named. At most the figure named: \"time ÷ canonicalize "
            'time" = validate\'s time ÷ canonicalize\'s; "time ÷ hashlib.sha256 time" '
            "= <code>nuif_core.canonicalize</code>'s time ÷ the time of "
            "<code>hashlib.sha256</code> over the same input bytes (the <code>sha256</code> "
            "baseline).</p>"
            '<table class="targets"><tr><th>kind</th><th>target</th>'
            "<th>measured</th><th>how</th><th>status</th></tr>"
        )
        for t in sorted(ts, key=lambda t: TARGET_GROUPS.index(t.group)):
            cls = "met" if t.met else "notmet"
            p.append(
                f"<tr{_attrs(target=t.label, group=t.group)}>"
                f'<td class="group">{e(t.group)}</td><td>{e(t.label)}</td>'
                f'<td class="ratio">{t.measured:.2f}</td><td class="how">{e(_how(t))}</td>'
                f'<td class="{cls}">{"met" if t.met else "not met"}</td></tr>'
            )
        p.append("</table>")

    for op in run.ops():
        rows = [r for r in run.rows if r.op == op]
        impls, peers, keys = _op_rows(run, op)
        unit, value, fmt = _op_kind(rows)
        memory = any(r.memory for r in rows)
        main = primary_impl(rows)
        peers = [pr for pr in peers if pr != main]
        p.append(f'<h2 id="op-{e(op)}" class="op"{_attrs(op=op)}>{e(op)}</h2>')
        shapes = _order({k[0] for k in keys}, SHAPE_ORDER)
        charts = []
        for shape in shapes:
            sizes = [k[1] for k in keys if k[0] == shape]

            def val(
                g: str,
                s: str,
                op: str = op,
                shape: str = shape,
                value: Callable[[Row], float | None] = value,
            ) -> float | None:
                r = idx.get((op, shape, g, s))
                return value(r) if r else None

            charts.append(bar_chart(f"{op} · {shape}", sizes, impls, val, unit, impls))
        p.append('<div class="charts">' + "".join(charts) + "</div>")
        head = "".join(f"<th>{e(i)}<br><span class=muted>{e(unit)}</span></th>" for i in impls)
        head += "".join(f"<th>{e(main)} vs {e(pr)}</th>" for pr in peers)
        p.append(
            f'<table class="results"{_attrs(op=op)}><tr><th>shape</th><th>size</th>{head}</tr>'
        )
        for shape, size in keys:
            cells = [f"<td>{e(shape)}</td><td>{e(size)}</td>"]
            for impl in impls:
                r = idx.get((op, shape, size, impl))
                where = {"op": op, "shape": shape, "size": size, "impl": impl}
                if r is None:
                    cells.append('<td class="rate">–</td>')
                elif memory:
                    v, shown = memory_figure(r)
                    extra = r.info.get("extra_rss_bytes")
                    cells.append(
                        f'<td class="mem"{_attrs(**where, ratio="" if v is None else v)}'
                        f' title="{e(fmt_bytes(extra))} over {e(fmt_bytes(r.input_bytes))}">'
                        f"{e(shown)}</td>"
                    )
                elif r.latency:
                    cells.append(
                        f'<td class="ms"{_attrs(**where, ms=_num(r.ms, 6))}>{fmt(r.ms)}</td>'
                    )
                else:
                    mb = r.mbps
                    cells.append(
                        f'<td class="rate"{_attrs(**where, mbps=f"{mb:.6f}" if mb else "")}'
                        f' title="median {r.median or 0:.6g} s over {r.input_bytes} bytes">'
                        f"{fmt_rate(mb)}</td>"
                    )
            ours = idx.get((op, shape, size, main))
            for pr in peers:
                v = ours.ratios.get(pr) if ours else None
                if memory and ours is not None and memory_figure(ours)[0] is None:
                    v = None  # pages against pages: no ratio worth reading
                cls = "" if v is None else (" good" if v >= 1 else " bad")
                cells.append(
                    f'<td class="ratio{cls}"'
                    f"{_attrs(**where_of(op, shape, size, main), peer=pr, ratio=_num(v, 4))}>"
                    f"{fmt_ratio(v)}</td>"
                )
            p.append(f"<tr>{''.join(cells)}</tr>")
        p.append("</table>")

    p.append(history_html(runs))
    p.append("</body></html>")
    return "\n".join(p)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.dashboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "runs",
        nargs="*",
        type=Path,
        help="pytest-benchmark JSON files (default: every run under --storage)",
    )
    ap.add_argument(
        "-o",
        "--output",
        type=Path,
        help="the file to write: the HTML page (default benchmarks/out/report.html unless --text "
        "is given), or the feed of --export",
    )
    ap.add_argument("--text", action="store_true", help="print a plain-text table to stdout")
    ap.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("A.json", "B.json"),
        help="print the changes of B against A outside the noise; exit 1 on a regression of nuif",
    )
    ap.add_argument(
        "--export",
        choices=["github-action-benchmark", "bmf"],
        help="write the latest run as github-action-benchmark's customBiggerIsBetter list or as "
        "Bencher Metric Format JSON (-o FILE, or stdout)",
    )
    ap.add_argument(
        "--threshold",
        type=float,
        default=stats.THRESHOLD,
        help="the change that counts, as a fraction (default 0.05 = 5%%)",
    )
    ap.add_argument(
        "--storage",
        type=Path,
        default=Path(".benchmarks"),
        help="pytest-benchmark storage directory (default: .benchmarks)",
    )
    ap.add_argument("--title", default="NUIF benchmarks")
    args = ap.parse_args(argv)
    if not (args.threshold >= 0 and math.isfinite(args.threshold)):
        ap.error("--threshold must be a number ≥ 0")
    if args.compare:
        if args.runs or args.export:
            ap.error("--compare takes exactly two runs and nothing else")
        try:
            a, b = (Run.load(p) for p in args.compare)
        except (OSError, ValueError) as exc:
            print(f"dashboard: cannot read a run: {exc}", file=sys.stderr)
            return 2
        changes = compare_runs(a, b, threshold=args.threshold)
        if not changes:
            print("dashboard: the two runs have no timed case in common", file=sys.stderr)
            return 2
        print(compare_text(a, b, changes))
        return 1 if regressions(changes) else 0
    paths = list(args.runs) or find_runs(args.storage)
    if not paths:
        print(
            f"no runs given and none saved under {args.storage}/ "
            "(run: uv run pytest benchmarks --benchmark-only --benchmark-autosave)",
            file=sys.stderr,
        )
        return 2
    try:
        runs = load_runs(paths)
    except (OSError, ValueError) as exc:
        print(f"dashboard: cannot read a run: {exc}", file=sys.stderr)
        return 2
    if args.export:
        feed: Any = (
            export_github_action_benchmark(runs[-1])
            if args.export == "github-action-benchmark"
            else export_bmf(runs[-1])
        )
        if not feed:
            print(f"dashboard: {runs[-1].name} has nothing to export", file=sys.stderr)
            return 2
        text = json.dumps(feed, indent=1, ensure_ascii=False) + "\n"
        if args.output:
            args.output.write_text(text, encoding="utf-8")
            print(
                f"wrote {args.output} ({len(feed)} benchmarks of {runs[-1].name})", file=sys.stderr
            )
        else:
            sys.stdout.write(text)
        return 0
    if args.text:
        print(text_table(runs))
    if args.output or not args.text:
        out = args.output or Path(__file__).resolve().parent / "out" / "report.html"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_html(runs, title=args.title), encoding="utf-8")
        print(f"wrote {out} ({len(runs)} run{'s' if len(runs) != 1 else ''})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
