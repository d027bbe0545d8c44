"""Synthetic measurements with the noise of a shared machine, for the statistics tests.

The model follows what ``benchmarks.history`` recorded on 2 shared CPUs at a load average of
4–7 (CPU time per call, one sample per fresh process; the shipped session's 1,892 samples): a
spread of about 2 % around the median (1.4826 × the median absolute log deviation), and now and
then a round that runs long (3.6 % of them by more than 15 %, 1.5 % by more than 30 %, the worst
2.5×: a cold cache after a migration, a neighbour's burst on the memory bus).  The model is a
little harsher than that: 3 %, and 5 % of rounds 1.2–2× long.  Two sessions also differ as a
whole by a little (``drift``).  Seeded: every test reads the same numbers every time; no clock
is read.
"""

from __future__ import annotations

import numpy as np

#: the spread of one round around the true time (log scale, ~ relative)
SIGMA = 0.03
#: the share of rounds that run long, and by how much (uniform between the two factors)
SPIKE_P = 0.05
SPIKE = (1.2, 2.0)


def samples(
    rng: np.random.Generator,
    seconds: float,
    n: int,
    *,
    sigma: float = SIGMA,
    spike_p: float = SPIKE_P,
    drift: float = 1.0,
) -> list[float]:
    """``n`` rounds of a case whose true time is ``seconds`` × ``drift``."""
    base = seconds * drift * np.exp(rng.normal(0.0, sigma, n))
    spikes = np.where(rng.random(n) < spike_p, rng.uniform(*SPIKE, n), 1.0)
    return [float(x) for x in base * spikes]


def shared_rounds(
    rng: np.random.Generator, seconds: float, n: int, *, sigma: float = SIGMA
) -> tuple[list[float], list[float]]:
    """Two builds of the same speed measured round by round in one session: each round's load
    touches both (a common factor), plus each process's own noise."""
    common = np.exp(rng.normal(0.0, sigma, n))
    a = samples(rng, seconds, n, sigma=sigma / 2)
    b = samples(rng, seconds, n, sigma=sigma / 2)
    return [x * c for x, c in zip(a, common, strict=True)], [
        x * c for x, c in zip(b, common, strict=True)
    ]
