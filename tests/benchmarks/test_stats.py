"""benchmarks.stats on synthetic measurements: no change within the noise is ever called a
change, a real one beyond the threshold is, and bad input is refused.  No clock is read."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks import stats
from tests.benchmarks import noise


@pytest.mark.parametrize("seed", range(40))
def test_the_same_build_measured_twice_round_by_round_is_never_a_change(seed):
    rng = np.random.default_rng(seed)
    a, b = noise.shared_rounds(rng, 2e-6, 11)
    ch = stats.paired(a, b)
    assert ch.verdict == "same"
    assert ch.low <= ch.ratio <= ch.high


@pytest.mark.parametrize("seed", range(40))
def test_the_same_build_in_two_sessions_is_never_a_change(seed):
    rng = np.random.default_rng(1000 + seed)
    drift = rng.uniform(0.98, 1.02)  # one session a little slower as a whole
    a = noise.samples(rng, 5e-4, 11)
    b = noise.samples(rng, 5e-4, 11, drift=drift)
    assert stats.unpaired(a, b).verdict == "same"


@pytest.mark.parametrize("seed", range(20))
def test_thirty_percent_slower_with_the_same_noise_is_slower(seed):
    rng = np.random.default_rng(2000 + seed)
    a, b = noise.shared_rounds(rng, 2e-6, 11)
    ch = stats.paired(a, [x * 1.3 for x in b])
    assert ch.verdict == "slower"
    assert ch.low > 1.05 and ch.low <= 1.3 <= ch.high * 1.05
    assert ch.percent == pytest.approx(30, abs=6)

    a = noise.samples(rng, 5e-4, 11)
    b = noise.samples(rng, 5e-4 * 1.3, 11)
    un = stats.unpaired(a, b)
    assert un.verdict == "slower" and not un.paired
    assert un.ratio == pytest.approx(1.3, rel=0.06)


def test_faster_beyond_the_threshold_is_faster_and_small_changes_are_the_same():
    rng = np.random.default_rng(7)
    a, b = noise.shared_rounds(rng, 1e-3, 15, sigma=0.01)
    assert stats.paired(a, [x / 1.25 for x in b]).verdict == "faster"
    # 3 % slower, clearly measured: real, but under the 5 % threshold, so not a regression
    small = stats.paired(a, [x * 1.03 for x in b])
    assert small.low > 1.0 and small.verdict == "same"
    # the threshold is the caller's: at 1 % the same 3 % counts
    assert stats.paired(a, [x * 1.03 for x in b], threshold=0.01).verdict == "slower"


def test_fewer_than_six_rounds_decide_nothing_however_consistent():
    # five rounds, all 50 % slower: a bootstrap of five is no wider than their range
    a = [1.0, 1.01, 0.99, 1.0, 1.02]
    b = [1.5, 1.52, 1.49, 1.5, 1.53]
    assert stats.paired(a, b).verdict == "untested"
    assert stats.unpaired(a, b).verdict == "untested"
    six = stats.paired([*a, 0.98], [*b, 1.47])
    assert six.verdict == "slower" and six.low > 1.4


def test_two_long_rounds_in_eleven_neither_hide_a_slowdown_nor_make_one_up():
    a = [1.0] * 11
    b = [1.3] * 11
    a[3], a[7] = 2.0, 1.8  # A ran long twice: its rank test would no longer reject
    ch = stats.paired(a, b)
    assert ch.pvalue > 0.05 and ch.verdict == "slower"
    same = stats.paired(a, [1.0] * 11)
    assert same.verdict == "same"


def test_one_sample_a_side_is_untested_and_noise_free_samples_give_a_point_interval():
    one = stats.unpaired([1.0], [2.0])
    assert one.verdict == "untested" and one.ratio == pytest.approx(2.0)
    assert math.isnan(one.low) and math.isnan(one.high)
    assert stats.paired([1.0], [2.0]).verdict == "untested"
    assert stats.paired([1.0, 1.1], [2.0, 2.1]).verdict == "untested"
    flat = stats.paired([1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [2.0] * 6)
    assert (flat.low, flat.ratio, flat.high) == (pytest.approx(2.0),) * 3
    assert flat.verdict == "slower"
    same = stats.unpaired([1.0] * 6, [1.0] * 6)
    assert (same.ratio, same.pvalue, same.verdict) == (1.0, 1.0, "same")


def test_the_verdict_reads_the_same_every_time():
    rng = np.random.default_rng(11)
    a, b = noise.shared_rounds(rng, 3e-6, 11)
    first = stats.paired(a, b)
    assert all(stats.paired(a, b) == first for _ in range(3))


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ([], [1.0], "A: no samples"),
        ([1.0], [0.0], "B: every sample must be a positive"),
        ([1.0, float("nan")], [1.0, 1.0], "A: every sample must be a positive"),
        ([1.0, -1.0], [1.0, 1.0], "A: every sample must be a positive"),
    ],
)
def test_bad_samples_are_refused(a, b, message):
    with pytest.raises(ValueError, match=message):
        stats.unpaired(a, b)
    with pytest.raises(ValueError, match=message):
        stats.paired(a, b if len(b) == len(a) else b * max(1, len(a)))


def test_paired_samples_must_match_and_settings_must_make_sense():
    with pytest.raises(ValueError, match="differ in number: A 2, B 3"):
        stats.paired([1.0, 1.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="threshold"):
        stats.paired([1.0, 1.0], [1.0, 1.0], threshold=-0.1)
    with pytest.raises(ValueError, match="threshold"):
        stats.unpaired([1.0, 1.0], [1.0, 1.0], threshold=math.inf)
    with pytest.raises(ValueError, match="confidence"):
        stats.unpaired([1.0, 1.0], [1.0, 1.0], confidence=1.0)


def test_the_noise_band_is_the_middle_of_the_samples():
    xs = [float(x) for x in range(1, 12)]  # 1 … 11
    assert stats.spread(xs) == (pytest.approx(2.0), pytest.approx(10.0))
    assert stats.centre(xs) == 6.0
    with pytest.raises(ValueError, match="no samples"):
        stats.spread([])
