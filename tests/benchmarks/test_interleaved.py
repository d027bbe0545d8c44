"""``benchmarks.interleaved``: the paired measurement, the target list and the command."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import dashboard, interleaved

REPO = Path(__file__).resolve().parents[2]


class FakeClock:
    """A clock that only moves when a fake implementation 'runs'."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls: list[str] = []

    def __call__(self) -> float:
        return self.now

    def impl(self, name: str, cost: float):
        def run(data: bytes) -> None:
            self.calls.append(name)
            self.now += cost

        return run


def test_paired_ratios_alternate_the_order_and_divide_other_by_ours() -> None:
    clock = FakeClock()
    ours, other = clock.impl("ours", 0.001), clock.impl("other", 0.003)
    ratios, n = interleaved.paired_ratios(ours, other, b"x", 4, clock=clock, min_batch_s=0.004)
    assert ratios == [pytest.approx(3.0)] * 4
    # the faster side's batch reaches 4 ms at 4 calls (1, 2 calls were too short)
    assert n == 4
    timed = clock.calls[2 + 2 * (1 + 2 + 4) :]  # after the warm-up calls and the calibration
    batches = [timed[i] for i in range(0, len(timed), n)]
    assert batches == ["ours", "other", "other", "ours", "ours", "other", "other", "ours"]


def test_a_budget_adds_rounds_while_they_fit_up_to_the_cap() -> None:
    # calibrated pair: 4 calls of each = 4 ms + 12 ms = 16 ms; 0.1 s of budget fits 6 pairs
    clock = FakeClock()
    ours, other = clock.impl("ours", 0.001), clock.impl("other", 0.003)
    ratios, n = interleaved.paired_ratios(
        ours, other, b"x", 2, clock=clock, min_batch_s=0.004, budget_s=0.1
    )
    assert (len(ratios), n) == (6, 4)
    # the floor wins over a budget that fits fewer pairs, and the cap over a large budget
    for rounds, budget, cap, want in ((9, 0.1, 41, 9), (2, 10.0, 11, 11), (3, 0.0, 41, 3)):
        clock = FakeClock()
        ratios, _ = interleaved.paired_ratios(
            clock.impl("ours", 0.001),
            clock.impl("other", 0.003),
            b"x",
            rounds,
            clock=clock,
            min_batch_s=0.004,
            budget_s=budget,
            max_rounds=cap,
        )
        assert len(ratios) == want, (rounds, budget, cap)


def test_measure_budgets_by_default_and_takes_an_exact_count(monkeypatch) -> None:
    seen = []

    def fake(ours, other, data, rounds, **kw):
        seen.append((rounds, kw["budget_s"]))
        return [1.0] * rounds, 1

    monkeypatch.setattr(interleaved, "paired_ratios", fake)
    pair = interleaved.pairs(["1MiB"])[0]
    interleaved.measure(pair)
    interleaved.measure(pair, 3)
    assert seen == [(interleaved.default_rounds("1MiB"), interleaved.PAIRS_BUDGET_S), (3, 0.0)]


def test_paired_ratios_refuses_zero_rounds() -> None:
    clock = FakeClock()
    with pytest.raises(ValueError, match=r"^rounds must be at least 1$"):
        interleaved.paired_ratios(clock.impl("a", 1), clock.impl("b", 1), b"", 0, clock=clock)


def test_outcome_is_met_by_the_median_in_the_targets_direction() -> None:
    up = interleaved.Outcome("x", 1.5, True, 1.5, 1.0, 2.0, 3, 1)
    down = interleaved.Outcome("y", 1.2, False, 1.21, 1.0, 1.3, 3, 1)
    assert up.met and not down.met


def test_the_pairs_are_the_dashboards_time_targets() -> None:
    labels = [p.label for p in interleaved.pairs(["1KiB", "64KiB", "1MiB", "16MiB"])]
    assert len(labels) == 2 + 8 + 4 + 9 + 12 == len(set(labels))
    assert "canonicalize ui 16MiB: nuif vs orjson round trip ≥ 3.0×" in labels
    assert "validate strings 1KiB: time ÷ canonicalize time ≤ 1.2" in labels
    one = interleaved.pairs(["1KiB"])
    assert {p.size for p in one} == {"1KiB"} and len(one) == 6
    validate = next(p for p in one if p.label.startswith("validate"))
    assert not validate.higher_is_better and validate.ours is interleaved.impls.nuif_canonicalize


def test_the_sha256_pairs_divide_canonicalize_time_by_sha256_time_lower_is_better() -> None:
    sha = [
        p
        for p in interleaved.pairs(["1KiB", "64KiB", "1MiB", "16MiB"])
        if "hashlib.sha256" in p.label
    ]
    assert {(p.shape, p.size): p.threshold for p in sha} == {
        (shape, size): limit
        for shape in ("ui", "numbers", "strings")
        for size, limit in (("64KiB", 2.0), ("1MiB", 2.0), ("16MiB", 2.5))
    }
    for p in sha:
        assert p.label == f"canonicalize {p.shape} {p.size}: time ÷ hashlib.sha256 time ≤ " + (
            "2.5×" if p.size == "16MiB" else "2×"
        )
        assert not p.higher_is_better and p.op == "canonicalize"
        # time(other) / time(ours) = canonicalize's time ÷ the hash's time
        assert p.ours is interleaved.impls.baseline_sha256
        assert p.other is interleaved.impls.nuif_canonicalize
    assert not [p for p in interleaved.pairs(["1KiB"]) if "hashlib.sha256" in p.label]
    # the baseline is the digest of the input bytes themselves, not of the canonical text
    text = b'{"nuif":0, "root":{"kind":"x","id":"a"}}'
    assert interleaved.impls.baseline_sha256(text) == hashlib.sha256(text).digest()
    _, canonical_hash = interleaved.impls.nuif_canonicalize(text)
    assert canonical_hash != "sha256:" + hashlib.sha256(text).hexdigest()


@pytest.mark.parametrize(("canonicalize_cost", "met"), [(0.0019, True), (0.0021, False)])
def test_a_sha256_pair_is_met_when_canonicalize_takes_at_most_twice_the_hash(
    canonicalize_cost: float, met: bool
) -> None:
    clock = FakeClock()
    pair = next(
        p
        for p in interleaved.pairs(["64KiB"])
        if p.label.startswith("canonicalize ui 64KiB: time ÷ hashlib.sha256")
    )
    fake = dataclasses.replace(
        pair, ours=clock.impl("sha256", 0.001), other=clock.impl("canonicalize", canonicalize_cost)
    )
    o = interleaved.measure(fake, 3, clock=clock)
    assert o.median == pytest.approx(canonicalize_cost / 0.001) and o.rounds == 3
    assert o.met is met
    assert ("[met    ]" if met else "[NOT met]") in interleaved.report([o])


def test_the_dashboard_evaluates_the_same_targets_from_the_medians() -> None:
    """Every pair's label, threshold and direction is a dashboard target, which a run holding
    every entry the targets read evaluates in the same direction."""
    entries = []
    for shape in ("ui", "numbers", "strings"):
        for size in ("1KiB", "64KiB", "1MiB", "16MiB"):
            for op, impl, median in (
                ("canonicalize", "nuif", 2.0),
                ("canonicalize", "orjson", 4.0),
                ("canonicalize", "rfc8785", 40.0),
                ("canonicalize", "sha256", 1.0),
                ("validate", "nuif", 2.0),
            ):
                entries.append(
                    {
                        "group": f"{op} {shape} {size}",
                        "stats": {"median": median},
                        "extra_info": {
                            "op": op,
                            "shape": shape,
                            "size": size,
                            "impl": impl,
                            "input_bytes": 1024,
                            "role": "ours" if impl == "nuif" else "peer",
                        },
                    }
                )
    got = {t.label: t for t in dashboard.targets(dashboard.Run.from_entries(entries, name="r"))}
    for p in interleaved.pairs(["1KiB", "64KiB", "1MiB", "16MiB"]):
        t = got[p.label]
        assert (t.threshold, t.higher_is_better) == (p.threshold, p.higher_is_better), p.label
        kind = (
            dashboard.GROUP_SHA256
            if "hashlib.sha256" in p.label
            else dashboard.GROUP_VALIDATE
            if p.label.startswith("validate")
            else dashboard.GROUP_PEERS
        )
        assert t.group == kind
        if t.group == dashboard.GROUP_SHA256:  # 2.0 ÷ 1.0
            assert t.measured == pytest.approx(2.0) and t.met is True


def test_the_command_measures_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.interleaved",
            "--sizes",
            "1KiB",
            "--rounds",
            "1",
            "--json",
            str(out),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "time targets met (medians of interleaved pairs)" in done.stdout
    rows = json.loads(out.read_text())["targets"]
    assert [r["label"] for r in rows] == [p.label for p in interleaved.pairs(["1KiB"])]
    for r in rows:
        assert r["rounds"] == 1 and r["low"] <= r["median"] <= r["high"] and r["median"] > 0
        assert r["met"] == (
            r["median"] >= r["threshold"]
            if r["higher_is_better"]
            else r["median"] <= r["threshold"]
        )


@pytest.mark.parametrize("args", [["--sizes", "2KiB"], ["--rounds", "0"]])
def test_the_command_refuses_bad_arguments(args: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        interleaved.main(args)
    assert exc.value.code == 2


class _Bench:
    def __init__(self, disabled: bool) -> None:
        self.disabled = disabled
        self.extra_info: dict = {}


def test_record_puts_the_entrys_own_targets_in_extra_info(monkeypatch) -> None:
    seen = []

    def fake_measure(pair, rounds=None, clock=None):
        seen.append(pair.label)
        return interleaved.Outcome(
            pair.label, pair.threshold, pair.higher_is_better, 2.0, 1.5, 2.5, 3, 7
        )

    monkeypatch.setattr(interleaved, "measure", fake_measure)
    bench = _Bench(disabled=False)
    interleaved.record(bench, "canonicalize", "ui", "1MiB")
    assert seen == [
        "canonicalize ui 1MiB: nuif vs orjson round trip ≥ 1.5×",
        "canonicalize ui 1MiB: nuif vs rfc8785 ≥ 15×",
        "canonicalize ui 1MiB: time ÷ hashlib.sha256 time ≤ 2×",
    ]
    assert bench.extra_info["interleaved"][seen[1]] == {
        "median": 2.0,
        "low": 1.5,
        "high": 2.5,
        "rounds": 3,
    }
    seen.clear()
    bench = _Bench(disabled=False)
    interleaved.record(bench, "validate", "strings", "1KiB")
    assert seen == ["validate strings 1KiB: time ÷ canonicalize time ≤ 1.2"]
    # no target for this entry, or the smoke run (--benchmark-disable): nothing measured
    seen.clear()
    for bench, op in ((_Bench(disabled=False), "inspect"), (_Bench(disabled=True), "validate")):
        interleaved.record(bench, op, "ui", "1KiB")
        assert "interleaved" not in bench.extra_info
    assert seen == []
