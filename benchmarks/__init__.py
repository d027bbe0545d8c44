"""NUIF benchmarks: the seeded document corpus, the pytest-benchmark suites and the dashboard.

Not a distribution: run from the repository root (``uv run pytest benchmarks --benchmark-only``,
``uv run python -m benchmarks.dashboard``).  See benchmarks/README.md.
"""
