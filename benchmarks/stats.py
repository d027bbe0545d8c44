"""Is B slower than A?  The statistics behind ``benchmarks.compare`` and the dashboard.

A measurement of one case is a list of *samples*: seconds per call, one per fresh process (a
round).  Two builds are compared on the logarithm of their times, so that a change reads as a
ratio (B's time ÷ A's time: above 1, B is slower).  Medians, not means: on a shared machine the
noise is a few busy rounds that run long, and a median does not follow them.

* **Paired** (``paired``): the two builds were measured in the same rounds, alternating (A B,
  then B A), so round *i* of A and round *i* of B saw the same machine.  The ratio is the median
  of the per-round ratios; its confidence interval is a bootstrap of that median
  (``scipy.stats.bootstrap``, percentile method, seeded so a run always reads the same); the
  p-value is Wilcoxon's signed-rank test of "no change" (``scipy.stats.wilcoxon``).
* **Unpaired** (``unpaired``): the runs were measured at different times.  The ratio is the
  Hodges-Lehmann estimate (the median of every ratio of a B sample to an A sample: as robust
  as a median, steadier than the ratio of two medians), its interval a two-sample bootstrap of
  that estimate, the p-value the Mann-Whitney U test (``scipy.stats.mannwhitneyu``).

**The verdict** (``Change.verdict``): a case is ``slower`` when the whole confidence interval
(95 % by default) lies above ``1 + threshold``, ``faster`` when it lies below
``1 / (1 + threshold)``, and ``same`` otherwise: a change smaller than the threshold is never
flagged, and neither is a larger one the noise cannot tell from no change.  A round that ran
long on one side moves a median little, so a few busy rounds neither hide a real change nor make
one up.  With fewer than ``MIN_SAMPLES`` (6) samples on a side the verdict is ``untested``: the
bootstrap of a handful of samples is no wider than their range, and would claim too much.  The
p-value (Wilcoxon's signed-rank test, or Mann-Whitney's U) is reported, not used: a rank test
weighs a long round by its rank and lets two of them in eleven hide a 30 % slowdown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as _stats  # type: ignore[import-untyped]

#: the default threshold: a slowdown must be surely beyond 5 % to count
THRESHOLD = 0.05
#: the default confidence level of the interval
CONFIDENCE = 0.95
#: the fewest samples a side for a verdict: a bootstrap of fewer is as narrow as their range
MIN_SAMPLES = 6


@dataclass(frozen=True)
class Change:
    """B against A for one case: ``ratio`` = B's time ÷ A's time, with its confidence interval."""

    ratio: float
    low: float
    high: float
    pvalue: float  # the two-sided test of "no change"
    n_a: int
    n_b: int
    paired: bool
    threshold: float
    confidence: float

    @property
    def verdict(self) -> str:
        """``slower``, ``faster``, ``same`` or ``untested`` (see the module's docstring)."""
        if min(self.n_a, self.n_b) < MIN_SAMPLES or not (
            math.isfinite(self.low) and math.isfinite(self.high)
        ):
            return "untested"
        if self.low > 1 + self.threshold:
            return "slower"
        if self.high < 1 / (1 + self.threshold):
            return "faster"
        return "same"

    @property
    def percent(self) -> float:
        """The change of time in percent (+ is slower)."""
        return (self.ratio - 1) * 100


def _logs(samples: Sequence[float], side: str) -> np.ndarray:
    arr = np.asarray(samples, dtype=float)
    if arr.ndim != 1 or not len(arr):
        raise ValueError(f"{side}: no samples")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{side}: every sample must be a positive, finite number of seconds")
    return np.log(arr)


def _check(threshold: float, confidence: float) -> None:
    if not (threshold >= 0 and math.isfinite(threshold)):
        raise ValueError("threshold must be a finite number ≥ 0")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")


#: bootstrap resamples, and the seed that makes a comparison read the same every time
RESAMPLES = 4999
SEED = 20261206


def _shift(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """The Hodges-Lehmann shift from a to b: the median of every difference b[j] − a[i]
    (vectorized over leading axes, as ``scipy.stats.bootstrap`` calls it)."""
    a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    d = b[..., np.newaxis, :] - a[..., :, np.newaxis]
    return np.median(d.reshape(*d.shape[:-2], -1), axis=-1)  # type: ignore[no-any-return]


def _interval(
    data: tuple[np.ndarray, ...], statistic: Any, confidence: float
) -> tuple[float, float]:
    res = _stats.bootstrap(
        data,
        statistic,
        n_resamples=RESAMPLES,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(SEED),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def paired(
    a: Sequence[float],
    b: Sequence[float],
    *,
    threshold: float = THRESHOLD,
    confidence: float = CONFIDENCE,
) -> Change:
    """B against A from samples taken in the same rounds (``a[i]`` and ``b[i]`` side by side)."""
    _check(threshold, confidence)
    la, lb = _logs(a, "A"), _logs(b, "B")
    if len(la) != len(lb):
        raise ValueError(f"paired samples differ in number: A {len(la)}, B {len(lb)}")
    d = lb - la
    mid = float(np.median(d))
    nan = math.nan
    if len(d) < 2:
        return Change(math.exp(mid), nan, nan, nan, 1, 1, True, threshold, confidence)
    if float(np.ptp(d)) == 0.0:  # no noise at all: the interval is the point itself
        low = high = mid
        pvalue = 1.0 if mid == 0 else 0.0
    else:
        low, high = _interval((d,), np.median, confidence)
        pvalue = float(_stats.wilcoxon(d).pvalue) if np.any(d != 0) else 1.0
    n = len(d)
    return Change(
        math.exp(mid), math.exp(low), math.exp(high), pvalue, n, n, True, threshold, confidence
    )


def unpaired(
    a: Sequence[float],
    b: Sequence[float],
    *,
    threshold: float = THRESHOLD,
    confidence: float = CONFIDENCE,
) -> Change:
    """B against A from samples taken at different times (Hodges-Lehmann shift of the log
    times, two-sample bootstrap)."""
    _check(threshold, confidence)
    la, lb = _logs(a, "A"), _logs(b, "B")
    diff = float(_shift(la, lb))
    nan = math.nan
    if min(len(la), len(lb)) < 2:
        return Change(math.exp(diff), nan, nan, nan, len(la), len(lb), False, threshold, confidence)
    if float(np.ptp(la)) == 0.0 and float(np.ptp(lb)) == 0.0:
        low = high = diff
        pvalue = 1.0 if diff == 0 else 0.0
    else:
        low, high = _interval((la, lb), _shift, confidence)
        pvalue = float(_stats.mannwhitneyu(lb, la).pvalue)
    return Change(
        math.exp(diff),
        math.exp(low),
        math.exp(high),
        pvalue,
        len(la),
        len(lb),
        False,
        threshold,
        confidence,
    )


def spread(samples: Sequence[float], low: float = 10, high: float = 90) -> tuple[float, float]:
    """The band the middle of the samples fills (10th and 90th percentiles by default): the
    noise band the dashboard draws around a case."""
    arr = np.asarray(samples, dtype=float)
    if not len(arr):
        raise ValueError("no samples")
    lo, hi = np.percentile(arr, [low, high])
    return float(lo), float(hi)


def centre(samples: Sequence[float]) -> float:
    """The figure a run reports for a case: the median of its samples."""
    return float(np.median(np.asarray(samples, dtype=float)))
