"""Saved runs compared (``python -m benchmarks.dashboard --compare``), exported for other
dashboards (``--export``), and ``benchmarks.compare``'s selection and verdicts, on synthetic
runs with the noise of a shared machine and on the runs shipped in benchmarks/results/.  No
clock is read and nothing is built."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from benchmarks import compare, dashboard, history
from tests.benchmarks import noise

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results"
CASES = compare.select(compare.all_cases(peers=True), history.HISTORY_CASES)
MACHINE = {"machine_id": "Test CPU, 2 CPUs, CPython 3.11", "cpu": {"brand_raw": "Test CPU"}}
#: a plausible time per call for each case (seconds), by size
BASE = {"1KiB": 2e-6, "64KiB": 1.5e-4, "1MiB": 3e-3, "small-100-nodes-10-ops": 1.8e-4}


def _run(
    tmp: Path,
    name: str,
    samples: dict[str, list[float]],
    *,
    session: str,
    commit: str = "a" * 40,
    when: str = "2026-12-01T00:00:00+00:00",
) -> Path:
    doc = history.run_document(
        commit={"id": commit, "time": when, "subject": "s"},
        machine={**MACHINE, "load_average": [4.0] * len(next(iter(samples.values())))},
        session={"id": session, "rounds": len(next(iter(samples.values())))},
        cases=CASES,
        samples=samples,
        sizes={c.name: 1024 for c in CASES},
        codec="compiled (test)",
        when=when,
    )
    path = tmp / f"{name}.json"
    path.write_text(history.dump(doc), encoding="utf-8")
    return path


def _same_build(seed: int, paired: bool) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    rng = np.random.default_rng(seed)
    a: dict[str, list[float]] = {}
    b: dict[str, list[float]] = {}
    for c in CASES:
        base = BASE[c.size] * (30 if c.impl == "rfc8785" else 1)
        if paired:
            a[c.name], b[c.name] = noise.shared_rounds(rng, base, 11)
        else:
            drift = rng.uniform(0.98, 1.02)
            a[c.name] = noise.samples(rng, base, 11)
            b[c.name] = noise.samples(rng, base, 11, drift=drift)
    return a, b


SLOW = "canonicalize ui 64KiB nuif"


@pytest.mark.parametrize("paired", [True, False], ids=["one session", "two sessions"])
@pytest.mark.parametrize("seed", range(5))
def test_two_runs_of_the_same_build_give_no_regression_and_thirty_percent_gives_exactly_it(
    tmp_path, capsys, seed, paired
):
    a, b = _same_build(seed, paired)
    sessions = ("s1", "s1") if paired else ("s1", "s2")
    pa = _run(tmp_path, "a", a, session=sessions[0])
    pb = _run(tmp_path, "b", b, session=sessions[1])
    assert dashboard.main(["--compare", str(pa), str(pb)]) == 0
    out = capsys.readouterr().out
    assert "0 regression(s) of nuif" in out
    assert ("paired round by round" in out) == paired

    slow = {k: ([x * 1.3 for x in v] if k == SLOW else v) for k, v in b.items()}
    pb = _run(tmp_path, "b-slow", slow, session=sessions[1])
    assert dashboard.main(["--compare", str(pa), str(pb)]) == 1
    out = capsys.readouterr().out
    assert f"1 regression(s) of nuif: {SLOW}" in out
    changes = dashboard.compare_runs(dashboard.Run.load(pa), dashboard.Run.load(pb))
    assert [" ".join(c.key) for c in dashboard.regressions(changes)] == [SLOW]
    got = next(c for c in changes if " ".join(c.key) == SLOW).change
    assert got.low <= 1.3 * 1.05 and got.high >= 1.3 / 1.05


def test_a_slower_peer_is_reported_but_is_no_regression(tmp_path, capsys):
    a, b = _same_build(99, True)
    peer = "canonicalize ui 1KiB orjson"
    b = {k: ([x * 1.5 for x in v] if k == peer else v) for k, v in b.items()}
    pa, pb = _run(tmp_path, "a", a, session="s"), _run(tmp_path, "b", b, session="s")
    assert dashboard.main(["--compare", str(pa), str(pb)]) == 0
    out = capsys.readouterr().out
    assert peer in out and "slower" in out and "0 regression(s) of nuif" in out


def test_runs_without_repeated_measurements_are_shown_untested_never_flagged(tmp_path, capsys):
    a, b = _same_build(5, True)
    one = {k: v[:1] for k, v in a.items()}
    slow = {k: [v[0] * 2] for k, v in b.items()}
    pa, pb = _run(tmp_path, "a", one, session="s"), _run(tmp_path, "b", slow, session="s")
    assert dashboard.main(["--compare", str(pa), str(pb)]) == 0
    out = capsys.readouterr().out
    assert f"{len(CASES)} case(s) without repeated measurements on both sides: not tested" in out


def test_compare_refuses_what_it_cannot_read(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    a, _ = _same_build(1, True)
    good = _run(tmp_path, "a", a, session="s")
    assert dashboard.main(["--compare", str(good), str(bad)]) == 2
    assert "cannot read a run" in capsys.readouterr().err
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"benchmarks": []}))
    assert dashboard.main(["--compare", str(good), str(empty)]) == 2
    assert "no timed case in common" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        dashboard.main(["--compare", str(good), str(good), "--threshold", "-1"])


# -- the runs shipped as data -----------------------------------------------------------------


def _shipped() -> list[dashboard.Run]:
    runs = dashboard.load_runs(sorted(RESULTS.glob("*.json")))
    return [r for r in runs if r.session]


def test_the_shipped_runs_of_one_build_show_no_regression_and_a_scaled_case_is_found(tmp_path):
    runs = _shipped()
    by_commit: dict[str, list[dashboard.Run]] = {}
    for r in runs:
        by_commit.setdefault(r.commit_id, []).append(r)
    twins = next(v for v in by_commit.values() if len(v) == 2)
    a, b = twins
    changes = dashboard.compare_runs(a, b)
    assert len(changes) >= 40 and not dashboard.regressions(changes)
    assert not [c for c in changes if c.change.verdict == "untested"]

    data = json.loads((RESULTS / f"{b.name}.json").read_text())
    for e in data["benchmarks"]:
        if e["name"] == SLOW:
            e["extra_info"]["samples"] = [x * 1.3 for x in e["extra_info"]["samples"]]
            e["stats"]["median"] *= 1.3
    slowed = tmp_path / "slowed.json"
    slowed.write_text(json.dumps(data))
    changes = dashboard.compare_runs(a, dashboard.Run.load(slowed))
    assert [" ".join(c.key) for c in dashboard.regressions(changes)] == [SLOW]


def test_the_shipped_history_is_small_keyed_by_commit_and_describes_its_machine():
    runs = _shipped()
    assert len({r.commit_id for r in runs}) >= 3
    for r in runs:
        path = RESULTS / f"{r.name}.json"
        assert path.stat().st_size < 64_000, path
        assert r.machine_id and r.load_average and r.commit_time
        assert all(row.repeated for row in r.rows)
    points = dashboard.history(runs)
    (machine,) = points
    times = [p.commit_time for p in points[machine]]
    assert times == sorted(times)


# -- feeds for other dashboards ---------------------------------------------------------------

#: github-action-benchmark's custom tools read a JSON array of results, each with a name, a
#: unit and a numeric value, and optionally a range and an extra text (its README, "customBiggerIsBetter")
GAB_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": ["name", "unit", "value"],
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "unit": {"type": "string", "minLength": 1},
            "value": {"type": "number"},
            "range": {"type": "string"},
            "extra": {"type": "string"},
        },
        "additionalProperties": False,
    },
}
#: Bencher Metric Format as its reference page gives the schema: benchmark name → measure →
#: {value, lower_value?, upper_value?}
BMF_SCHEMA = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {
        ".+": {
            "type": "object",
            "patternProperties": {
                ".+": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "number"},
                        "lower_value": {"type": "number"},
                        "upper_value": {"type": "number"},
                    },
                    "required": ["value"],
                }
            },
        }
    },
}


def test_the_github_action_benchmark_feed_has_its_documented_shape(tmp_path):
    a, _ = _same_build(3, True)
    run_path = _run(tmp_path, "a", a, session="s")
    out = tmp_path / "gab.json"
    assert (
        dashboard.main([str(run_path), "--export", "github-action-benchmark", "-o", str(out)]) == 0
    )
    feed = json.loads(out.read_text())
    jsonschema.validate(feed, GAB_SCHEMA)
    assert {f["name"] for f in feed} == {c.name for c in CASES}
    for f in feed:
        samples = a[f["name"]]
        assert f["unit"] == "MB/s"  # bigger is better
        assert f["value"] == pytest.approx(1024 / float(np.median(samples)) / 1e6, rel=1e-3)
        lo, hi = (float(x) for x in f["range"].split("–"))
        assert lo <= f["value"] <= hi


def test_the_bencher_feed_validates_against_the_bmf_schema(tmp_path, capsys):
    a, _ = _same_build(4, True)
    run_path = _run(tmp_path, "a", a, session="s")
    assert dashboard.main([str(run_path), "--export", "bmf"]) == 0
    feed = json.loads(capsys.readouterr().out)
    jsonschema.validate(feed, BMF_SCHEMA)
    assert set(feed) == {c.name for c in CASES}
    for name, measures in feed.items():
        lat = measures["latency"]  # Bencher's built-in measure, in nanoseconds
        assert lat["value"] == pytest.approx(float(np.median(a[name])) * 1e9, rel=1e-3)
        assert lat["lower_value"] <= lat["value"] <= lat["upper_value"]
        mb = measures["megabytes-per-second"]
        assert mb["lower_value"] <= mb["value"] <= mb["upper_value"]
    # a schema that would let anything through is no check: a broken feed fails it
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"x": {"latency": {"lower_value": 1}}}, BMF_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"name": "x", "value": "1"}], GAB_SCHEMA)


def test_memory_and_latency_entries_in_the_feeds():
    entries = [
        {
            "group": "memory ui 16MiB",
            "name": "m",
            "stats": {"median": 1.0},
            "extra_info": {
                "op": "memory",
                "shape": "ui",
                "size": "16MiB",
                "impl": "nuif",
                "role": "ours",
                "input_bytes": 16 << 20,
                "metric": "memory",
                "extra_rss_bytes": 2 << 20,
                "extra_rss_ratio": 0.125,
            },
        },
        {
            "group": "cli-startup process --version",
            "name": "s",
            "stats": {"median": 0.05},
            "extra_info": {
                "op": "cli-startup",
                "shape": "process",
                "size": "--version",
                "impl": "nuif",
                "role": "ours",
                "input_bytes": 0,
            },
        },
    ]
    run = dashboard.Run.from_entries(entries, name="r")
    gab = dashboard.export_github_action_benchmark(run)
    assert gab == [
        {
            "name": "cli-startup process --version nuif",
            "unit": "calls/s",
            "value": pytest.approx(20.0),
            "extra": gab[0]["extra"],
        }
    ]
    bmf = dashboard.export_bmf(run)
    assert bmf["memory ui 16MiB nuif"] == {"extra-rss-bytes": {"value": float(2 << 20)}}
    assert bmf["cli-startup process --version nuif"] == {"latency": {"value": pytest.approx(5e7)}}
    jsonschema.validate(bmf, BMF_SCHEMA)
    jsonschema.validate(gab, GAB_SCHEMA)


# -- benchmarks.compare: selection, rounds, verdicts, exit status ------------------------------


def test_k_selects_whole_words_of_a_case_name():
    cases = compare.all_cases(peers=True)
    names = {c.name for c in compare.select(cases, "canonicalize and ui and 1MiB")}
    assert names == {
        f"canonicalize ui 1MiB {i}" for i in ("nuif", "rfc8785", "json", "orjson", "sha256")
    }
    # "ui" is a word of its own, not a piece of "nuif"
    assert not [c for c in compare.select(cases, "ui") if c.shape != "ui"]
    assert {c.size for c in compare.select(cases, "patch")} == {p[0] for p in compare.PATCHES}
    assert {c.impl for c in compare.select(cases, "small and not nuif")} == {"jsonpatch"}
    assert compare.select(cases, None) == cases
    with pytest.raises(ValueError, match="-k 'ui and \\(': "):
        compare.select(cases, "ui and (")
    assert {c.role for c in compare.all_cases()} == {"ours"}


def test_the_builds_alternate_round_by_round():
    calls = []

    def fake(py, folder, cases, *, cpu, clock):
        calls.append(str(py))
        return {"nuif_core": str(py), "codec": "c", "seconds": {c.name: 1.0 for c in cases}}

    cases = compare.all_cases()[:2]
    got = compare.interleaved(
        [("a", Path("A")), ("b", Path("B"))],
        Path("."),
        cases,
        4,
        measure_fn=fake,
        log=lambda s: None,
    )
    assert calls == ["A", "B", "B", "A", "A", "B", "B", "A"]
    assert got["samples"]["a"][cases[0].name] == [1.0] * 4 and len(got["load"]) == 4


def _fake_compare(monkeypatch, tmp_path, slow: dict[str, float]):
    rng = np.random.default_rng(42)

    def measure(py, folder, cases, *, cpu, clock):
        common = float(np.exp(rng.normal(0, 0.03)))
        secs = {}
        for c in cases:
            factor = slow.get(c.name, 1.0) if str(py) == "B" else 1.0
            secs[c.name] = (
                BASE.get(c.size, 1e-3) * factor * common * float(np.exp(rng.normal(0, 0.01)))
            )
        return {"nuif_core": str(py), "codec": "c", "seconds": secs}

    monkeypatch.setattr(compare, "environment", lambda rev: Path(rev))
    monkeypatch.setattr(compare, "commit_of", lambda rev: rev * 10)
    monkeypatch.setattr(compare, "write_inputs", lambda cases: tmp_path)
    monkeypatch.setattr(compare, "input_bytes", lambda folder, case: 1024)
    monkeypatch.setattr(compare, "measure", measure)


def test_compare_exits_1_on_exactly_the_slower_case_and_0_without_one(
    monkeypatch, tmp_path, capsys
):
    k = ["-k", "(1KiB or 64KiB) and not strings"]
    _fake_compare(monkeypatch, tmp_path, {"validate numbers 64KiB nuif": 1.3})
    out_json = tmp_path / "c.json"
    assert compare.main(["A", "B", *k, "--rounds", "11", "--json", str(out_json)]) == 1
    out = capsys.readouterr().out
    assert "1 regression(s) beyond 5%: validate numbers 64KiB nuif" in out
    saved = json.loads(out_json.read_text())
    assert saved["cases"]["validate numbers 64KiB nuif"]["verdict"] == "slower"
    assert {
        v["verdict"] for n, v in saved["cases"].items() if "validate numbers 64KiB" not in n
    } == {"same"}

    _fake_compare(monkeypatch, tmp_path, {"canonicalize ui 1KiB sha256": 1.5})
    assert compare.main(["A", "B", *k, "--peers", "--rounds", "11"]) == 0
    out = capsys.readouterr().out
    assert "0 regression(s)" in out and "control case(s)" in out


def test_compare_refuses_settings_it_cannot_use(capsys):
    for bad in (
        ["--rounds", "2"],
        ["--threshold", "-0.1"],
        ["--confidence", "1"],
        ["-k", "nothing"],
    ):
        with pytest.raises(SystemExit) as exc:
            compare.main(["A", "B", *bad])
        assert exc.value.code == 2
    assert "selects no case" in capsys.readouterr().err


def test_an_unknown_revision_is_refused_before_anything_is_built(capsys):
    assert compare.main(["no-such-revision-anywhere", "HEAD", "-k", "canonicalize and 1KiB"]) == 2
    assert "compare: unknown revision" in capsys.readouterr().err
    assert history.main(["no-such-revision-anywhere", "-k", "canonicalize and 1KiB"]) == 2
    assert "history: unknown revision" in capsys.readouterr().err


def test_a_run_records_its_commit_and_its_machine_without_a_host_name():
    import platform

    head = compare.commit_of("HEAD")
    info = history.commit_info(head)
    assert info["id"] == head and info["time"][:4].isdigit() and info["subject"]
    machine = history.machine_info([1.5, 2.5])
    assert machine["load_average"] == [1.5, 2.5]
    assert platform.node() not in json.dumps(machine)
    assert machine["machine_id"].endswith(f"CPython {platform.python_version()}")
