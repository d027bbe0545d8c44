"""pytest configuration of the benchmark suites (``uv run pytest benchmarks --benchmark-only``).

* collects ``bench_*.py`` (the root config's ``python_files`` only names ``test_*.py``);
* makes ``import benchmarks.…`` work from the repository root (until the root pytest config has
  ``pythonpath = ["."]``);
* annotates every entry of the saved JSON with ``mb_per_s`` and ``ratio_to`` (benchmarks.results),
  and prints a throughput table at the end of the run.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# after the sys.path setup above, which makes the ``benchmarks`` package importable
from benchmarks import corpus, results  # noqa: E402


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".py" or not fnmatch.fnmatch(file_path.name, "bench_*.py"):
        return None
    if parent.session.isinitpath(file_path):
        return None  # named on the command line: pytest's python plugin collects it already
    patterns = parent.config.getini("python_files")
    if any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return None  # the root config already collects bench_*.py
    return pytest.Module.from_parent(parent, path=file_path)


def pytest_benchmark_update_json(config: Any, benchmarks: Any, output_json: dict[str, Any]) -> None:
    results.annotate(output_json.get("benchmarks", []))


def _entries(config: pytest.Config) -> list[dict[str, Any]]:
    session = getattr(config, "_benchmarksession", None)
    out = []
    for bench in getattr(session, "benchmarks", None) or []:
        stats = getattr(bench, "stats", None)
        if stats is None or not getattr(stats, "data", None):
            continue
        out.append(
            {
                "group": bench.group,
                "name": bench.name,
                "extra_info": bench.extra_info,
                "stats": {"median": stats.median},
            }
        )
    return out


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    entries = _entries(config)
    if not entries:
        return
    results.annotate(entries)
    from benchmarks import dashboard

    run = dashboard.Run.from_entries(entries, name="this run")
    terminalreporter.write_sep(
        "-", "NUIF throughput (MB/s = input bytes / median; ratio = peer median / ours)"
    )
    terminalreporter.write_line(dashboard.text_table([run]))


@pytest.fixture(scope="session")
def corpus_module() -> Any:
    """The seeded generator (``benchmarks.corpus``), for suites that prefer a fixture."""
    return corpus
