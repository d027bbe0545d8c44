"""Throughput dashboard: saved pytest-benchmark runs → one self-contained HTML page or a text table.

    uv run python -m benchmarks.dashboard                     # every run saved under .benchmarks/
    uv run python -m benchmarks.dashboard A.json B.json -o report.html
    uv run python -m benchmarks.dashboard --text              # plain-text table (terminals, CI)

The page has no network dependency: charts are inline SVG written here, styles are inline, there
is no JavaScript.  Figures are recomputed from each entry's median and ``extra_info.input_bytes``
(MB/s = input bytes / median seconds / 10^6), so runs saved before ``extra_info.mb_per_s`` existed
read the same.  Pure standard library.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import html
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python benchmarks/dashboard.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
        if self.memory or self.latency or not self.median:
            return None
        return mb_per_s(self.input_bytes, self.median)

    @property
    def ratios(self) -> dict[str, float]:
        return dict(self.info.get("ratio_to") or {})


@dataclass
class Run:
    name: str
    when: str
    machine: str
    commit: str
    rows: list[Row] = field(default_factory=list)

    @classmethod
    def from_entries(
        cls,
        entries: list[dict[str, Any]],
        *,
        name: str,
        when: str = "",
        machine: str = "",
        commit: str = "",
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
        return cls(name=name, when=when, machine=machine, commit=commit, rows=rows)

    @classmethod
    def load(cls, path: Path) -> Run:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        mi = data.get("machine_info") or {}
        cpu = mi.get("cpu") or {}
        machine = ", ".join(
            str(x)
            for x in (
                mi.get("node"),
                cpu.get("brand_raw") or mi.get("processor"),
                f"{cpu['count']} CPUs" if cpu.get("count") else None,
                " ".join(
                    str(x)
                    for x in (mi.get("python_implementation", "Python"), mi.get("python_version"))
                    if x
                ),
            )
            if x
        )
        ci = data.get("commit_info") or {}
        commit = (str(ci.get("id") or "")[:10] + (" (dirty)" if ci.get("dirty") else "")).strip()
        return cls.from_entries(
            list(data.get("benchmarks") or []),
            name=Path(path).stem,
            when=str(data.get("datetime") or ""),
            machine=machine,
            commit=commit,
        )

    @property
    def codec(self) -> str:
        """The nuif_core codec the run measured (``compiled (fast_float+dragonbox, openssl)``,
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
    runs = [Run.load(p) for p in paths]
    runs.sort(key=lambda r: (r.when, r.name))
    return runs


# ---------------------------------------------------------------------------------------------
# Targets of issues 6 and 21 (evaluated on the latest run)

#: issue 21: canonical bytes + SHA-256 (``nuif``) within this many times the time of
#: ``hashlib.sha256`` over the same input bytes (the ``sha256`` baseline of the canonicalize group)
SHA256_LIMITS = (("64KiB", 2.0), ("1MiB", 2.0), ("16MiB", 2.5))


def sha256_label(shape: str, size: str, limit: float) -> str:
    """Issue 21's wording of one target (``benchmarks.interleaved`` uses it too)."""
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
    issue: int = 6  # the issue that set the target

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
                    issue=21,
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


def _op_kind(
    rows: list[Row],
) -> tuple[str, Callable[[Row], float | None], Callable[[float | None], str]]:
    """(unit, value of a row, formatter) for the table of one operation."""
    if any(r.memory for r in rows):
        return (
            "extra RSS ÷ input",
            lambda r: (
                r.info.get("extra_rss_ratio")
                if isinstance(r.info.get("extra_rss_ratio"), (int, float))
                else None
            ),
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
                cells.append("-" if r is None else fmt(value(r)))
            ours = idx.get((op, shape, size, main))
            for p_ in peers:
                cells.append(fmt_ratio(ours.ratios.get(p_)) if ours else "-")
            body.append(cells)
        out += [
            "",
            f"{op} ({unit}; ratio = how many times faster/leaner {main} is)",
            _table(header, body),
        ]
    if len(runs) > 1:
        mains = _mains(runs)
        keys = _history_keys(runs, mains)
        header = ["operation", "shape size"] + [r.name[:24] for r in runs]
        body = []
        for op, shape, size in keys:
            cells = [f"{op} ({mains[op]})", f"{shape} {size}"]
            for run_ in runs:
                r = run_.index().get((op, shape, size, mains[op]))
                cells.append(fmt_rate(r.mbps) if r else "-")
            body.append(cells)
        out += ["", "history: MB/s per saved run (oldest first)", _table(header, body)]
    ts = targets(run)
    for issue in sorted({t.issue for t in ts}):
        out += ["", f"targets (issue {issue})"]
        for t in ts:
            if t.issue == issue:
                mark = "met" if t.met else "NOT met"
                out.append(f"  [{mark:7}] {t.label}: measured {t.measured:.2f}, {_how(t)}")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# SVG


def _color(impl: str, known: list[str]) -> str:
    if impl in IMPL_COLORS:
        return IMPL_COLORS[impl]
    return PALETTE[known.index(impl) % len(PALETTE)] if impl in known else PALETTE[0]


def _log_ticks(lo: float, hi: float) -> tuple[float, float, list[float]]:
    a = math.floor(math.log10(lo))
    b = math.ceil(math.log10(hi))
    if a == b:
        b += 1
    ticks = [10.0**e * m for e in range(a, b + 1) for m in (1, 2, 5) if 10.0**e * m <= 10.0**b]
    return 10.0**a, 10.0**b, ticks


def _tick_label(v: float) -> str:
    return f"{v:g}" if v < 1e5 else f"{v:.0e}"


def bar_chart(
    title: str,
    groups: list[str],
    series: list[str],
    value: Callable[[str, str], float | None],
    unit: str,
    colors: list[str],
) -> str:
    """Grouped vertical bars on a log scale: one group per x label, one bar per series."""
    vals = [v for g in groups for s in series if (v := value(g, s))]
    if not vals:
        return ""
    lo, hi, ticks = _log_ticks(min(vals), max(vals))
    W, H, L, B, T = 560, 260, 56, 40, 28
    pw, ph = W - L - 130, H - B - T

    def y(v: float) -> float:
        return T + ph - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * ph

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
        f'text-anchor="middle">{html.escape(unit)} (log)</text>'
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
            p.append(
                f'<rect x="{x0 + si * bw:.1f}" y="{yy:.1f}" width="{bw - 1:.1f}" '
                f'height="{T + ph - yy:.1f}" fill="{_color(s, colors)}" '
                f'data-series="{html.escape(s)}" data-group="{html.escape(g)}" '
                f'data-value="{v:.6g}"><title>{html.escape(s)} {html.escape(g)}: '
                f"{v:.4g} {html.escape(unit)}</title></rect>"
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


def line_chart(
    title: str, xlabels: list[str], series: dict[str, list[float | None]], unit: str
) -> str:
    vals = [v for vs in series.values() for v in vs if v]
    if not vals or len(xlabels) < 2:
        return ""
    lo, hi, ticks = _log_ticks(min(vals), max(vals))
    W, H, L, B, T = 560, 220, 56, 34, 28
    pw, ph = W - L - 130, H - B - T

    def y(v: float) -> float:
        return T + ph - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * ph

    def x(i: int) -> float:
        return L + (i / (len(xlabels) - 1)) * pw

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
    for i, lab in enumerate(xlabels):
        p.append(
            f'<text x="{x(i):.1f}" y="{T + ph + 16}" class="tick" text-anchor="middle">'
            f"{i + 1}<title>{html.escape(lab)}</title></text>"
        )
    for si, (name, vs) in enumerate(series.items()):
        color = PALETTE[si % len(PALETTE)]
        pts = [(x(i), y(v)) for i, v in enumerate(vs) if v]
        if len(pts) > 1:
            d = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            p.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2"/>')
        for (a, b), v in zip(pts, [v for v in vs if v], strict=True):
            p.append(
                f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{color}">'
                f"<title>{html.escape(name)}: {v:.4g} {html.escape(unit)}</title></circle>"
            )
        ly = T + 4 + si * 16
        p.append(
            f'<rect x="{L + pw + 12}" y="{ly}" width="10" height="10" fill="{color}"/>'
            f'<text x="{L + pw + 26}" y="{ly + 9}" class="tick">{html.escape(name)}</text>'
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
            'time" = validate\'s time ÷ canonicalize\'s; "time ÷ hashlib.sha256 time" (issue 21) '
            "= <code>nuif_core.canonicalize</code>'s time ÷ the time of "
            "<code>hashlib.sha256</code> over the same input bytes (the <code>sha256</code> "
            "baseline).</p>"
            '<table class="targets"><tr><th>target</th>'
            "<th>measured</th><th>how</th><th>status</th><th>issue</th></tr>"
        )
        for t in ts:
            cls = "met" if t.met else "notmet"
            p.append(
                f"<tr{_attrs(target=t.label, issue=t.issue)}><td>{e(t.label)}</td>"
                f'<td class="ratio">{t.measured:.2f}</td><td class="how">{e(_how(t))}</td>'
                f'<td class="{cls}">{"met" if t.met else "not met"}</td>'
                f'<td class="issue">{t.issue}</td></tr>'
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
                    v = value(r)
                    extra = r.info.get("extra_rss_bytes")
                    cells.append(
                        f'<td class="mem"{_attrs(**where, ratio="" if v is None else v)}'
                        f' title="{e(fmt_bytes(extra))} over {e(fmt_bytes(r.input_bytes))}">'
                        f"{fmt(v)}</td>"
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
                cls = "" if v is None else (" good" if v >= 1 else " bad")
                cells.append(
                    f'<td class="ratio{cls}"'
                    f"{_attrs(**where_of(op, shape, size, main), peer=pr, ratio=_num(v, 4))}>"
                    f"{fmt_ratio(v)}</td>"
                )
            p.append(f"<tr>{''.join(cells)}</tr>")
        p.append("</table>")

    p.append(
        f'<h2 id="history">History ({len(runs)} saved run{"s" if len(runs) != 1 else ""})</h2>'
    )
    p.append(
        '<table class="runs"><tr><th>#</th><th>run</th><th>date</th><th>machine</th>'
        "<th>commit</th><th>nuif codec</th></tr>"
    )
    for i, r in enumerate(runs, 1):
        p.append(
            f"<tr><td>{i}</td><td>{e(r.name)}</td><td>{e(r.when)}</td><td>{e(r.machine)}"
            f"</td><td>{e(r.commit)}</td><td>{e(r.codec)}</td></tr>"
        )
    p.append("</table>")
    if len(runs) > 1:
        mains = _mains(runs)
        indexes = [run_.index() for run_ in runs]

        def rate(i: int, op: str, shape: str, size: str) -> float | None:
            rr = indexes[i].get((op, shape, size, mains[op]))
            return rr.mbps if rr else None

        all_keys = _history_keys(runs, mains)
        charts = []
        for op, shape in dict.fromkeys((k[0], k[1]) for k in all_keys):
            series = {
                size: [rate(i, op, shape, size) for i in range(len(runs))]
                for o, sh, size in all_keys
                if (o, sh) == (op, shape)
            }
            charts.append(
                line_chart(
                    f"{mains[op]} {op} · {shape} (MB/s per run)",
                    [r.name for r in runs],
                    series,
                    "MB/s",
                )
            )
        p.append('<div class="charts">' + "".join(charts) + "</div>")
        p.append(
            '<table class="history"><tr><th>operation</th><th>impl</th><th>shape</th>'
            "<th>size</th>"
            + "".join(f"<th>#{i}</th>" for i in range(1, len(runs) + 1))
            + "<th>last vs previous</th></tr>"
        )
        for op, shape, size in all_keys:
            vals = [rate(i, op, shape, size) for i in range(len(runs))]
            where = where_of(op, shape, size, mains[op])
            cells = "".join(
                f'<td class="rate"{_attrs(run=run_.name, **where, mbps=_num(v, 6))}>'
                f"{fmt_rate(v)}</td>"
                for run_, v in zip(runs, vals, strict=True)
            )
            if vals[-1] and vals[-2]:
                d = (vals[-1] / vals[-2] - 1) * 100
                delta = f'<td class="ratio {"good" if d >= 0 else "bad"}">{d:+.1f}%</td>'
            else:
                delta = '<td class="ratio">–</td>'
            p.append(
                f"<tr><td>{e(op)}</td><td>{e(mains[op])}</td><td>{e(shape)}</td>"
                f"<td>{e(size)}</td>{cells}{delta}</tr>"
            )
        p.append("</table>")
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
        help="HTML page to write (default: benchmarks/out/report.html unless --text is given)",
    )
    ap.add_argument("--text", action="store_true", help="print a plain-text table to stdout")
    ap.add_argument(
        "--storage",
        type=Path,
        default=Path(".benchmarks"),
        help="pytest-benchmark storage directory (default: .benchmarks)",
    )
    ap.add_argument("--title", default="NUIF benchmarks")
    args = ap.parse_args(argv)
    paths = list(args.runs) or find_runs(args.storage)
    if not paths:
        print(
            f"no runs given and none saved under {args.storage}/ "
            "(run: uv run pytest benchmarks --benchmark-only --benchmark-autosave)",
            file=sys.stderr,
        )
        return 2
    runs = load_runs(paths)
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
