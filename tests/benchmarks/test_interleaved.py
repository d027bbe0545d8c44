"""``benchmarks.interleaved``: the paired measurement, the target list and the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import interleaved

REPO = Path(__file__).resolve().parents[2]


class FakeClock:
    """A clock that only moves when a fake implementation 'runs'."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls: list[str] = []

    def __call__(self) -> float:
        return self.now

    def impl(self, name: str, cost: float):  # noqa: ANN201 - a test callable
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
    timed = clock.calls[2 + 2 * (1 + 2 + 4):]  # after the warm-up calls and the calibration
    batches = [timed[i] for i in range(0, len(timed), n)]
    assert batches == ["ours", "other", "other", "ours", "ours", "other", "other", "ours"]


def test_a_budget_adds_rounds_while_they_fit_up_to_the_cap() -> None:
    # calibrated pair: 4 calls of each = 4 ms + 12 ms = 16 ms; 0.1 s of budget fits 6 pairs
    clock = FakeClock()
    ours, other = clock.impl("ours", 0.001), clock.impl("other", 0.003)
    ratios, n = interleaved.paired_ratios(ours, other, b"x", 2, clock=clock, min_batch_s=0.004,
                                          budget_s=0.1)
    assert (len(ratios), n) == (6, 4)
    # the floor wins over a budget that fits fewer pairs, and the cap over a large budget
    for rounds, budget, cap, want in ((9, 0.1, 41, 9), (2, 10.0, 11, 11), (3, 0.0, 41, 3)):
        clock = FakeClock()
        ratios, _ = interleaved.paired_ratios(clock.impl("ours", 0.001), clock.impl("other", 0.003),
                                              b"x", rounds, clock=clock, min_batch_s=0.004,
                                              budget_s=budget, max_rounds=cap)
        assert len(ratios) == want, (rounds, budget, cap)


def test_measure_budgets_by_default_and_takes_an_exact_count(monkeypatch) -> None:
    seen = []

    def fake(ours, other, data, rounds, **kw):  # noqa: ANN001, ANN202, ANN003 - a stand-in
        seen.append((rounds, kw["budget_s"]))
        return [1.0] * rounds, 1

    monkeypatch.setattr(interleaved, "paired_ratios", fake)
    pair = interleaved.pairs(["1MiB"])[0]
    interleaved.measure(pair)
    interleaved.measure(pair, 3)
    assert seen == [(interleaved.default_rounds("1MiB"), interleaved.PAIRS_BUDGET_S), (3, 0.0)]


def test_paired_ratios_refuses_zero_rounds() -> None:
    clock = FakeClock()
    with pytest.raises(ValueError):
        interleaved.paired_ratios(clock.impl("a", 1), clock.impl("b", 1), b"", 0, clock=clock)


def test_outcome_is_met_by_the_median_in_the_targets_direction() -> None:
    up = interleaved.Outcome("x", 1.5, True, 1.5, 1.0, 2.0, 3, 1)
    down = interleaved.Outcome("y", 1.2, False, 1.21, 1.0, 1.3, 3, 1)
    assert up.met and not down.met


def test_the_pairs_are_the_dashboards_time_targets() -> None:
    labels = [p.label for p in interleaved.pairs(["1KiB", "64KiB", "1MiB", "16MiB"])]
    assert len(labels) == 2 + 8 + 4 + 12 == len(set(labels))
    assert "canonicalize ui 16MiB: nuif vs orjson round trip ≥ 3.0×" in labels
    assert "validate strings 1KiB: time ÷ canonicalize time ≤ 1.2" in labels
    one = interleaved.pairs(["1KiB"])
    assert {p.size for p in one} == {"1KiB"} and len(one) == 6
    validate = next(p for p in one if p.label.startswith("validate"))
    assert not validate.higher_is_better and validate.ours is interleaved.impls.nuif_canonicalize


def test_the_command_measures_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.interleaved", "--sizes", "1KiB", "--rounds", "1",
         "--json", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "time targets met (medians of interleaved pairs)" in done.stdout
    rows = json.loads(out.read_text())["targets"]
    assert [r["label"] for r in rows] == [p.label for p in interleaved.pairs(["1KiB"])]
    for r in rows:
        assert r["rounds"] == 1 and r["low"] <= r["median"] <= r["high"] and r["median"] > 0
        assert r["met"] == (r["median"] >= r["threshold"] if r["higher_is_better"]
                            else r["median"] <= r["threshold"])


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

    def fake_measure(pair, rounds=None, clock=None):  # noqa: ANN001, ANN202 - a stand-in
        seen.append(pair.label)
        return interleaved.Outcome(pair.label, pair.threshold, pair.higher_is_better,
                                   2.0, 1.5, 2.5, 3, 7)

    monkeypatch.setattr(interleaved, "measure", fake_measure)
    bench = _Bench(disabled=False)
    interleaved.record(bench, "canonicalize", "ui", "1MiB")
    assert seen == ["canonicalize ui 1MiB: nuif vs orjson round trip ≥ 1.5×",
                    "canonicalize ui 1MiB: nuif vs rfc8785 ≥ 15×"]
    assert bench.extra_info["interleaved"][seen[1]] == {"median": 2.0, "low": 1.5, "high": 2.5,
                                                        "rounds": 3}
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
