"""Is B slower than A?  The statistics behind ``benchmarks.compare`` and the dashboard.

A measurement of one case is a list of *samples*: seconds per call, one per fresh process (a
round).  Two builds are compared on the logarithm of their times, so that a change reads as a
ratio (B's time ÷ A's time: above 1, B is slower) and a process that ran twice as long weighs
the same as one that ran half as long.

* **Paired** (``paired``): the two builds were measured in the same rounds, alternating (A B,
  then B A), so round *i* of A and round *i* of B saw the same machine.  The per-round log
  ratios are tested with a one-sample t-test (``scipy.stats.ttest_1samp``); the ratio is their
  geometric mean, with its confidence interval.
* **Unpaired** (``unpaired``): the runs were measured at different times.  Welch's t-test on the
  log samples (``scipy.stats.ttest_ind(equal_var=False)``) gives the ratio of geometric means
  and its confidence interval.

**The verdict** (``Change.verdict``): a case is ``slower`` when the whole confidence interval
(95 % by default) lies above ``1 + threshold``, ``faster`` when it lies below
``1 / (1 + threshold)``, and ``same`` otherwise.  That is a one-sided test at 2.5 % of "the
slowdown is at most the threshold": a change smaller than the threshold is never flagged, and
neither is a larger one the noise cannot tell from no change.  With too few samples to estimate
the noise (fewer than 2 on a side) the verdict is ``untested``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _stats

#: the default threshold: a slowdown must be surely beyond 5 % to count
THRESHOLD = 0.05
#: the default confidence level of the interval
CONFIDENCE = 0.95


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
        if min(self.n_a, self.n_b) < 2 or not (
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
    mean = float(np.mean(d))
    if len(d) < 2:
        nan = math.nan
        return Change(math.exp(mean), nan, nan, nan, 1, 1, True, threshold, confidence)
    if float(np.ptp(d)) == 0.0:  # no noise at all: the interval is the point itself
        low = high = mean
        pvalue = 1.0 if mean == 0 else 0.0
    else:
        res = _stats.ttest_1samp(d, 0.0)
        ci = res.confidence_interval(confidence)
        low, high, pvalue = float(ci.low), float(ci.high), float(res.pvalue)
    return Change(
        math.exp(mean),
        math.exp(low),
        math.exp(high),
        pvalue,
        len(la),
        len(lb),
        True,
        threshold,
        confidence,
    )


def unpaired(
    a: Sequence[float],
    b: Sequence[float],
    *,
    threshold: float = THRESHOLD,
    confidence: float = CONFIDENCE,
) -> Change:
    """B against A from samples taken at different times (Welch's t-test on the logarithms)."""
    _check(threshold, confidence)
    la, lb = _logs(a, "A"), _logs(b, "B")
    diff = float(np.mean(lb) - np.mean(la))
    if min(len(la), len(lb)) < 2:
        nan = math.nan
        return Change(math.exp(diff), nan, nan, nan, len(la), len(lb), False, threshold, confidence)
    if float(np.ptp(la)) == 0.0 and float(np.ptp(lb)) == 0.0:
        low = high = diff
        pvalue = 1.0 if diff == 0 else 0.0
    else:
        res = _stats.ttest_ind(lb, la, equal_var=False)
        ci = res.confidence_interval(confidence)
        low, high, pvalue = float(ci.low), float(ci.high), float(res.pvalue)
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
    """The geometric mean of the samples: the figure a run reports for a case (it is what the
    tests above compare)."""
    return float(math.exp(np.mean(_logs(samples, "samples"))))
