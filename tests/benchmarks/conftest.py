"""Tests of the benchmark tooling (benchmarks/: corpus, suites, dashboard).

``benchmarks`` is not a distribution: it is imported from the repository root.  Until the root
pytest config carries ``pythonpath = ["."]``, put the root on ``sys.path`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
