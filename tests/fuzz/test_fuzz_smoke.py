"""Every fuzz target runs for a few seconds in the test suite, so regressions show in CI.

Each target runs in its own process (libFuzzer owns the process and exits on a finding), over
its committed seed corpus plus a throw-away working corpus, bounded by ``-runs`` and
``-max_total_time`` and by a subprocess timeout.  The test asserts exit status 0 (no crash, no
property violation, no hang) and that inputs were actually executed.

atheris is a dev dependency (root pyproject, linux and CPython < 3.13 only, where a wheel
exists).  Where it should be installed and is not, these tests fail rather than skip: a fuzz
smoke run that silently does nothing would hide regressions.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FUZZ = REPO / "fuzz"
TARGETS = ["codec", "document", "patch", "diff", "package", "cost", "inverse", "catalog"]
#: the platforms where the dev group installs atheris (keep in step with the root pyproject)
ATHERIS_EXPECTED = sys.platform == "linux" and sys.version_info < (3, 13)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def atheris_available() -> None:
    if importlib.util.find_spec("atheris") is not None:
        return
    if ATHERIS_EXPECTED:
        pytest.fail("atheris is not installed: add the dev dependency atheris==3.0.0 (uv sync)")
    pytest.skip(f"atheris has no wheel for {sys.platform} / Python {sys.version.split()[0]}")


def _rss_limit_mb() -> int:
    """2 GiB for the target itself, above what it inherits: libFuzzer reads its RSS as
    ``getrusage``'s peak, which Linux carries across ``fork`` and ``exec`` from this process
    (the test run, whose peak grows with the suite before it), so a fixed limit would fail a
    target that uses nothing."""
    import resource

    inherited = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # KiB on Linux
    return 2048 + inherited


def executions(output: str) -> int:
    m = re.search(r"^Done (\d+) runs in", output, re.M)
    if m:
        return int(m.group(1))
    counts = [int(x) for x in re.findall(r"^#(\d+)\s", output, re.M)]
    return max(counts, default=0)


@pytest.mark.parametrize("target", TARGETS)
def test_fuzz_target_runs_clean_for_a_few_seconds(
    target: str, atheris_available: None, tmp_path: Path
) -> None:
    work = tmp_path / "corpus"
    work.mkdir()
    seeds = FUZZ / "corpus" / target
    assert len(list(seeds.iterdir())) >= 10, f"seed corpus of {target} is missing"
    cmd = [
        sys.executable, str(FUZZ / f"fuzz_{target}.py"),
        "-runs=2000", "-max_total_time=5", "-timeout=20", f"-rss_limit_mb={_rss_limit_mb()}",
        "-max_len=8192", "-seed=1", f"-artifact_prefix={tmp_path}/", "-print_final_stats=1",
        str(work), str(seeds),
    ]  # fmt: skip
    env = {**os.environ, "NUIF_REQUIRE_EXTENSION": "1"}
    proc = subprocess.run(
        cmd, capture_output=True, text=True, errors="replace", timeout=120, cwd=tmp_path, env=env
    )
    output = proc.stdout + proc.stderr
    tail = output[-6000:]
    assert proc.returncode == 0, f"fuzz target {target} failed (exit {proc.returncode}):\n{tail}"
    ran = executions(output)
    # the seeds alone are 20 to 50 inputs; a run that executed fewer did not really run
    assert ran >= 20, f"fuzz target {target} executed only {ran} inputs:\n{tail}"
    assert not list(tmp_path.glob("crash-*")), tail


@pytest.mark.parametrize("target", TARGETS)
def test_committed_seed_corpus_holds_only_generated_seeds(target: str) -> None:
    # fuzz/make_corpus.py names seeds by 16 hex digits; libFuzzer names what it adds by 40:
    # a run that used fuzz/corpus/<target> as its writable corpus must not leak into git
    names = [p.name for p in (FUZZ / "corpus" / target).iterdir()]
    assert names and all(re.fullmatch(r"[0-9a-f]{16}", n) for n in names), names
