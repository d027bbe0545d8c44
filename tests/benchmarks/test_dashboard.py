"""The dashboard builds one self-contained page (and a text table) from two saved runs, and its
figures are the runs' medians converted to MB/s.

The two runs are real pytest-benchmark JSON files: a tiny suite written with benchmarks.harness is
run twice with benchmarks/conftest.py as a plugin (so its JSON annotation hook runs too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from benchmarks import dashboard
from benchmarks.results import fmt_rate

REPO = Path(__file__).resolve().parents[2]

TINY_SUITE = """
import hashlib, json, pytest
from benchmarks.harness import run

DATA = {"1KiB": b"x" * 1024, "64KiB": b"y" * 65536}

@pytest.mark.parametrize("size", list(DATA))
@pytest.mark.parametrize("impl,role,fn", [
    ("nuif", "ours", lambda d: hashlib.sha256(d).hexdigest()),
    ("orjson", "peer", lambda d: hashlib.sha1(d).hexdigest()),
    ("rfc8785", "peer", lambda d: json.dumps(d.decode())),
], ids=["nuif", "orjson", "rfc8785"])
def test_canonicalize(benchmark, size, impl, role, fn):
    run(benchmark, fn, DATA[size], op="canonicalize", shape="ui", size=size, impl=impl,
        role=role, input_bytes=len(DATA[size]))

@pytest.mark.parametrize("impl,role,extra", [("nuif", "ours", 2 << 20), ("json", "peer", 6 << 20)],
                         ids=["nuif", "json"])
def test_memory(benchmark, impl, role, extra):
    run(benchmark, lambda: None, op="memory", shape="ui", size="16MiB", impl=impl, role=role,
        input_bytes=16 << 20, rounds=(1, 0), metric="memory", extra_rss_bytes=extra,
        extra_rss_ratio=extra / (16 << 20))
"""


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> list[Path]:
    work = tmp_path_factory.mktemp("runs")
    (work / "bench_tiny.py").write_text(TINY_SUITE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    paths = []
    for i in (1, 2):
        out = work / f"000{i}_run.json"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "bench_tiny.py",
                "-p",
                "benchmarks.conftest",
                "-p",
                "no:cacheprovider",
                "-q",
                "--benchmark-max-time=0.02",
                "--benchmark-min-rounds=3",
                f"--benchmark-json={out}",
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        paths.append(out)
    return paths


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag: str, cls: str | None = None) -> list[dict[str, str | None]]:
        return [
            a
            for t, a in self.tags
            if t == tag and (cls is None or cls in (a.get("class") or "").split())
        ]


def _entries(path: Path) -> list[dict]:
    return json.loads(path.read_text())["benchmarks"]


def test_saved_runs_carry_mb_per_s_and_ratios_from_the_medians(two_runs):
    for path in two_runs:
        entries = _entries(path)
        medians = {(e["group"], e["extra_info"]["impl"]): e["stats"]["median"] for e in entries}
        for e in entries:
            info = e["extra_info"]
            assert info["input_bytes"] > 0
            if info.get("metric") == "memory":
                assert "mb_per_s" not in info
                continue
            assert info["mb_per_s"] == pytest.approx(
                info["input_bytes"] / e["stats"]["median"] / 1e6, rel=1e-3
            )
            others = {impl for (g, impl) in medians if g == e["group"]} - {info["impl"]}
            assert set(info["ratio_to"]) == others
            for other in others:
                assert info["ratio_to"][other] == pytest.approx(
                    medians[(e["group"], other)] / e["stats"]["median"], rel=1e-3
                )


def test_the_page_shows_the_latest_medians_as_mb_per_s_and_the_history_of_both(two_runs, tmp_path):
    out = tmp_path / "report.html"
    assert dashboard.main([str(p) for p in two_runs] + ["-o", str(out)]) == 0
    page = _Page()
    page.feed(out.read_text(encoding="utf-8"))

    # self-contained: no scripts, no stylesheets or images fetched from anywhere
    assert not page.find("script") and not page.find("link") and not page.find("img")
    assert all(not (a.get("href") or "").startswith("http") for _, a in page.tags)
    assert len(page.find("svg")) >= 3  # one bar chart per op and shape + history lines

    latest = _entries(two_runs[-1])
    rates = [a for a in page.find("td", "rate") if a.get("data-run") is None]
    by_key = {(a["data-op"], a["data-shape"], a["data-size"], a["data-impl"]): a for a in rates}
    throughput = [e for e in latest if e["extra_info"].get("metric") != "memory"]
    assert len(throughput) == 6 == len(by_key)
    for e in throughput:
        info = e["extra_info"]
        cell = by_key[("canonicalize", "ui", info["size"], info["impl"])]
        expected = info["input_bytes"] / e["stats"]["median"] / 1e6
        assert float(cell["data-mbps"]) == pytest.approx(expected, rel=1e-6)
        assert fmt_rate(expected) in page.text

    ratios = {
        (a["data-size"], a["data-peer"]): float(a["data-ratio"])
        for a in page.find("td", "ratio")
        if a.get("data-peer")
    }
    med = {
        (e["extra_info"]["size"], e["extra_info"]["impl"]): e["stats"]["median"] for e in throughput
    }
    for (size, peer), value in ratios.items():
        if peer in ("orjson", "rfc8785"):
            assert value == pytest.approx(med[(size, peer)] / med[(size, "nuif")], rel=1e-3)
    assert {p for _, p in ratios} >= {"orjson", "rfc8785", "json"}

    mem = {a["data-impl"]: float(a["data-ratio"]) for a in page.find("td", "mem")}
    assert mem == {"nuif": pytest.approx(0.125), "json": pytest.approx(0.375)}

    # the history: one point per run (these are outside a git checkout), every implementation
    history = [a for a in page.find("td", "rate") if a.get("data-run")]
    runs = {a["data-run"] for a in history}
    assert runs == {p.stem for p in two_runs}
    for path in two_runs:
        for e in _entries(path):
            info = e["extra_info"]
            if info.get("metric") == "memory":
                continue
            cell = next(
                a
                for a in history
                if a["data-run"] == path.stem
                and a["data-size"] == info["size"]
                and a["data-impl"] == info["impl"]
            )
            assert float(cell["data-value"]) == pytest.approx(
                info["input_bytes"] / e["stats"]["median"] / 1e6, rel=1e-6
            )
            assert cell["data-verdict"] in ("", "untested")  # no repeated measurements
    assert page.find("table", "targets")  # the targets, evaluated on the latest run
    # the codec nuif_core ran on is on the page, so nobody credits the wrong code
    from benchmarks.harness import nuif_codec

    assert nuif_codec() in "".join(page.text)


def test_the_text_table_lists_every_figure_and_the_history(two_runs, capsys):
    assert dashboard.main([str(p) for p in two_runs] + ["--text"]) == 0
    text = capsys.readouterr().out
    assert "canonicalize" in text and "memory" in text and "history" in text
    for e in _entries(two_runs[-1]):
        info = e["extra_info"]
        if info.get("metric") != "memory":
            assert fmt_rate(info["input_bytes"] / e["stats"]["median"] / 1e6) in text
    assert "nuif vs orjson" in text and "0.12" in text  # memory: 2 MiB extra over 16 MiB
    assert "nuif codec: " in text


def test_by_default_it_reads_the_runs_saved_under_the_storage_directory(two_runs, tmp_path):
    storage = tmp_path / ".benchmarks" / "Linux-CPython-3.11-64bit"
    storage.mkdir(parents=True)
    for p in two_runs:
        (storage / p.name).write_bytes(p.read_bytes())
    out = tmp_path / "r.html"
    assert dashboard.main(["--storage", str(tmp_path / ".benchmarks"), "-o", str(out)]) == 0
    assert "History (2 saved runs, 1 machine)" in out.read_text(encoding="utf-8")
    assert dashboard.main(["--storage", str(tmp_path / "nothing")]) == 2


def _entry(op, impl, role, median, input_bytes, size="1KiB", shape="ui", **info):
    return {
        "group": f"{op} {shape} {size}",
        "name": f"test_{op}[{impl}]",
        "stats": {"median": median},
        "extra_info": {
            "op": op,
            "shape": shape,
            "size": size,
            "impl": impl,
            "role": role,
            "input_bytes": input_bytes,
            **info,
        },
    }


def test_start_up_times_read_as_milliseconds_and_other_surfaces_compare_to_their_peers():
    run = dashboard.Run.from_entries(
        [
            _entry("cli-startup", "nuif", "ours", 0.080, 0, shape="process", size="--version"),
            _entry(
                "cli-startup", "python -c pass", "peer", 0.020, 0, shape="process", size="--version"
            ),
            _entry("mcp-roundtrip", "nuif-mcp", "ours", 0.002, 1024),
            _entry("mcp-roundtrip", "bare-echo", "peer", 0.001, 1024),
        ],
        name="r1",
    )
    text = dashboard.text_table([run])
    assert "cli-startup (median ms" in text and "80" in text and "0.25x" in text
    assert "nuif-mcp vs bare-echo" in text and "0.50x" in text
    assert "0.51" in text  # 1024 B / 2 ms = 0.512 MB/s
    page = _Page()
    page.feed(dashboard.render_html([run, run]))
    ms = {a["data-impl"]: float(a["data-ms"]) for a in page.find("td", "ms")}
    assert ms == {"nuif": pytest.approx(80.0), "python -c pass": pytest.approx(20.0)}
    ratio = [a for a in page.find("td", "ratio") if a.get("data-op") == "mcp-roundtrip"]
    assert [(a["data-impl"], a["data-peer"], float(a["data-ratio"])) for a in ratio] == [
        ("nuif-mcp", "bare-echo", 0.5)
    ]


def test_a_target_measured_as_interleaved_pairs_replaces_the_medians_figure():
    label = "canonicalize ui 1KiB: nuif vs orjson round trip ≥ 1.5×"
    fig = {"median": 1.6, "low": 1.4, "high": 1.9, "rounds": 41}
    entries = [
        _entry("canonicalize", "nuif", "ours", 0.002, 1024, size="1MiB"),
        _entry("canonicalize", "orjson", "peer", 0.002, 1024, size="1MiB"),
        _entry("validate", "nuif", "ours", 0.004, 1024, size="1MiB"),
    ]
    for e in entries:
        e["extra_info"]["ratio_to"] = {}
    entries[0]["extra_info"]["ratio_to"] = {"orjson": 1.0}
    without = {t.label: t for t in dashboard.targets(dashboard.Run.from_entries(entries, name="a"))}
    ui = "canonicalize ui 1MiB: nuif vs orjson round trip ≥ 1.5×"
    val = "validate ui 1MiB: time ÷ canonicalize time ≤ 1.2"
    assert (without[ui].measured, without[ui].how, without[ui].met) == (1.0, "medians", False)
    assert without[val].measured == pytest.approx(2.0) and without[val].met is False

    entries[0]["extra_info"]["interleaved"] = {ui: {**fig, "median": 2.2}}
    entries[2]["extra_info"]["interleaved"] = {val: {**fig, "median": 0.98, "low": 0.9}}
    run = dashboard.Run.from_entries(entries, name="b")
    got = {t.label: t for t in dashboard.targets(run)}
    assert (got[ui].measured, got[ui].how, got[ui].spread, got[ui].met) == (
        2.2,
        "interleaved",
        (1.4, 1.9),
        True,
    )
    assert (got[val].measured, got[val].met) == (0.98, True)
    assert label not in got  # no 1 KiB entries: nothing to evaluate
    text = dashboard.text_table([run])
    assert f"[met    ] {ui}: measured 2.20, interleaved (pairs 1.40–1.90)" in text
    page = dashboard.render_html([run])
    assert "interleaved (pairs 1.40–1.90)" in page


def test_the_sha256_targets_read_canonicalize_time_over_the_sha256_baselines():
    """canonicalize's median ÷ the sha256 baseline's median of the same group, ≤ 2× at 64 KiB
    and 1 MiB, ≤ 2.5× at 16 MiB; an interleaved figure replaces it; the baseline has MB/s and
    no ratio column."""
    nuif_ms = {
        ("ui", "64KiB"): 1.9,
        ("ui", "1MiB"): 2.05,
        ("ui", "16MiB"): 2.4,
        ("strings", "16MiB"): 2.6,
        ("numbers", "1KiB"): 9.0,
    }
    entries = []
    for (shape, size), ms in nuif_ms.items():
        entries.append(_entry("canonicalize", "nuif", "ours", ms / 1e3, 1 << 20, size, shape))
        entries.append(_entry("canonicalize", "sha256", "baseline", 1e-3, 1 << 20, size, shape))
        entries.append(_entry("canonicalize", "orjson", "peer", 4e-3, 1 << 20, size, shape))
    run = dashboard.Run.from_entries(entries, name="r")
    got = {t.label: t for t in dashboard.targets(run) if t.group == dashboard.GROUP_SHA256}
    want = {
        "canonicalize ui 64KiB: time ÷ hashlib.sha256 time ≤ 2×": (1.9, 2.0, True),
        "canonicalize ui 1MiB: time ÷ hashlib.sha256 time ≤ 2×": (2.05, 2.0, False),
        "canonicalize ui 16MiB: time ÷ hashlib.sha256 time ≤ 2.5×": (2.4, 2.5, True),
        "canonicalize strings 16MiB: time ÷ hashlib.sha256 time ≤ 2.5×": (2.6, 2.5, False),
    }
    # numbers 1 KiB is no target; the groups without both entries have no figure
    assert set(got) == set(want)
    for label, (measured, threshold, met) in want.items():
        t = got[label]
        assert (t.measured, t.threshold, t.met, t.how) == (
            pytest.approx(measured),
            threshold,
            met,
            "medians",
        ), label
        assert t.higher_is_better is False

    text = dashboard.text_table([run])
    heading = f"targets: {dashboard.GROUP_SHA256}"
    sha_part = text[text.index(heading) :]
    assert (
        "[met    ] canonicalize ui 64KiB: time ÷ hashlib.sha256 time ≤ 2×: measured 1.90, "
        "medians" in sha_part
    )
    assert (
        "[NOT met] canonicalize ui 1MiB: time ÷ hashlib.sha256 time ≤ 2×: measured 2.05" in sha_part
    )
    assert "[NOT met] canonicalize strings 16MiB: time ÷ hashlib.sha256 time ≤ 2.5×" in sha_part
    # the targets against the peers keep their own plainly named heading, before these
    assert text.index(f"targets: {dashboard.GROUP_PEERS}") < text.index(heading)
    assert "time ÷ hashlib.sha256" not in text[: text.index(heading)]
    assert "issue" not in text
    # the baseline is a column of MB/s (1 MiB / 1 ms), not a "nuif vs" ratio
    header = next(line for line in text.splitlines() if line.startswith("shape"))
    assert header.split()[:5] == ["shape", "size", "nuif", "orjson", "sha256"]
    assert "nuif vs orjson" in header and "nuif vs sha256" not in text
    assert "1049" in text  # 1,048,576 B ÷ 1 ms = 1049 MB/s

    page = _Page()
    page.feed(dashboard.render_html([run]))
    rows = {a["data-target"]: a for a in page.find("tr") if a.get("data-target")}
    assert {k for k, a in rows.items() if a["data-group"] == dashboard.GROUP_SHA256} == set(want)
    html_text = dashboard.render_html([run])
    for label, (measured, _, met) in want.items():
        row = html_text[html_text.index(f'data-target="{label}"') :]
        row = row[: row.index("</tr>")]
        assert f"{measured:.2f}" in row
        assert (">met<" in row, ">not met<" in row) == (met, not met)
    assert not [a for a in page.find("td", "ratio") if a.get("data-peer") == "sha256"]
    assert [
        a["data-mbps"]
        for a in page.find("td", "rate")
        if a.get("data-impl") == "sha256" and a["data-size"] == "1MiB" and not a.get("data-run")
    ] == ["1048.576000"]

    # measured as interleaved pairs, the figure replaces the medians' one, and decides met
    label = "canonicalize ui 1MiB: time ÷ hashlib.sha256 time ≤ 2×"
    entries[3]["extra_info"]["interleaved"] = {
        label: {"median": 1.97, "low": 1.9, "high": 2.3, "rounds": 9}
    }
    run = dashboard.Run.from_entries(entries, name="s")
    t = {t.label: t for t in dashboard.targets(run)}[label]
    assert (t.measured, t.how, t.spread, t.met) == (1.97, "interleaved", (1.9, 2.3), True)


def test_bars_start_at_zero_so_their_heights_keep_the_values_proportions():
    run = dashboard.Run.from_entries(
        [
            _entry("canonicalize", "nuif", "ours", 1024 / 660e6, 1024),
            _entry("canonicalize", "rfc8785", "peer", 1024 / 112e6, 1024),
        ],
        name="r",
    )
    page = _Page()
    page.feed(dashboard.render_html([run]))
    bars = {a["data-series"]: float(a["height"]) for a in page.find("rect") if a.get("data-value")}
    assert bars["nuif"] / bars["rfc8785"] == pytest.approx(660 / 112, rel=0.02)
    assert dashboard.nice_ticks(660)[0] == 0 and dashboard.nice_ticks(660)[-1] >= 660


def test_small_memory_rows_read_as_pages_not_as_ratios():
    small = _entry(
        "memory", "nuif", "ours", 1.0, 1024, metric="memory", extra_rss_bytes=24576,
        extra_rss_ratio=24.0,
    )  # fmt: skip
    zero = _entry(
        "memory", "json", "peer", 1.0, 1024, metric="memory", extra_rss_bytes=0, extra_rss_ratio=0.0
    )
    run = dashboard.Run.from_entries([small, zero], name="r")
    text = dashboard.text_table([run])
    assert "24.0 KiB (6 pages)" in text and "< 1 page" in text
    assert "24.00" not in text and "0.00" not in text
    page = _Page()
    page.feed(dashboard.render_html([run]))
    assert {a["data-impl"]: a["data-ratio"] for a in page.find("td", "mem")} == {
        "nuif": "",
        "json": "",
    }


def _history_entries(median_s: float, samples: list[float]) -> list[dict]:
    e = _entry("canonicalize", "nuif", "ours", median_s, 1 << 20)
    e["extra_info"]["samples"] = samples
    return [e]


def test_the_history_flags_a_commit_only_outside_the_noise():
    from tests.benchmarks import noise

    rng = np.random.default_rng(3)
    machine = "Test CPU, 2 CPUs"
    runs = []
    for i, factor in enumerate([1.0, 1.02, 1.3]):  # +2 %: noise; then 30 % slower
        s = noise.samples(rng, 1e-3 * factor, 11, spike_p=0.0)
        runs.append(
            dashboard.Run.from_entries(
                _history_entries(sorted(s)[5], s),
                name=f"r{i}",
                when=f"2026-12-0{i + 1}",
                commit=f"{i}" * 10,
                commit_id=f"{i}" * 40,
                commit_time=f"2026-11-0{i + 1}",
                machine_id=machine,
            )
        )
    runs.reverse()  # the history is ordered by the commits' dates, not by the files' order
    (points,) = dashboard.history(runs).values()
    assert [p.commit for p in points] == ["0" * 10, "1" * 10, "2" * 10]
    page = _Page()
    page.feed(dashboard.render_html(runs))
    cells = {
        a["data-run"]: a["data-verdict"]
        for a in page.find("td")
        if a.get("data-run") and a.get("data-impl") == "nuif"
    }
    assert cells == {"0" * 10: "", "1" * 10: "same", "2" * 10: "slower"}
    flagged = [a for a in page.find("circle") if a.get("data-flag")]
    assert [(a["data-x"], a["data-flag"]) for a in flagged] == [("2222222", "slower")]
    assert page.find("polygon", "band")  # the noise band is drawn
    text = dashboard.text_table(runs)
    line = next(x for x in text.splitlines() if x.startswith("canonicalize ui 1KiB nuif"))
    assert line.split()[-1] != "same" and " slower (time ×" in line
