"""Turning pytest-benchmark entries into dashboard figures (pure stdlib; shared by the conftest
hook that annotates ``--benchmark-json`` output and by the dashboard that reads saved runs).

Conventions (also in benchmarks/README.md):

* ``extra_info.input_bytes``: bytes of input the operation reads per call;
* ``extra_info.mb_per_s``: ``input_bytes / median seconds / 1e6`` (MB = 10^6 bytes);
* ``extra_info.ratio_to``: ``{other impl: other's median / this median}`` over the implementations
  of the same group (operation, shape, size) — how many times *faster* this one is; > 1 is better;
* memory entries (``extra_info.metric == "memory"``) compare ``extra_rss_bytes`` the same way
  (how many times *less* extra memory); they carry no ``mb_per_s``;
* latency entries (``extra_info.metric == "latency"``, or an ``op`` whose name contains
  ``startup``: operations whose input size is not the point) carry no ``mb_per_s``; the dashboard
  shows their median in ms.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

MB = 1e6


def metric_value(entry: dict[str, Any]) -> float | None:
    """The number compared across implementations (lower is better)."""
    info = entry.get("extra_info") or {}
    if info.get("metric") == "memory":
        v = info.get("extra_rss_bytes")
    else:
        v = (entry.get("stats") or {}).get("median")
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def mb_per_s(input_bytes: float, median_s: float) -> float:
    return input_bytes / median_s / MB


def annotate(entries: Iterable[dict[str, Any]]) -> None:
    """Add ``mb_per_s`` and ``ratio_to`` to each entry's ``extra_info`` (in place)."""
    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        info = e.setdefault("extra_info", {})
        median = (e.get("stats") or {}).get("median")
        if (
            info.get("metric", "throughput") == "throughput"
            and "startup" not in str(info.get("op", ""))
            and isinstance(info.get("input_bytes"), int)
            and isinstance(median, (int, float))
            and median > 0
        ):
            info["mb_per_s"] = float(f"{mb_per_s(info['input_bytes'], median):.6g}")
        if "impl" in info:
            groups[e.get("group")].append(e)
    for members in groups.values():
        for e in members:
            mine = metric_value(e)
            ratios = {}
            for other in members:
                if other is e or other["extra_info"]["impl"] == e["extra_info"]["impl"]:
                    continue
                theirs = metric_value(other)
                if mine and theirs:
                    ratios[other["extra_info"]["impl"]] = round(theirs / mine, 4)
            e["extra_info"]["ratio_to"] = dict(sorted(ratios.items()))


def fmt_rate(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    if x < 0.01:
        return f"{x:.2g}"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"
