"""Building the distributions for the packaging tests (tests/packaging): uv build, a clean
environment, and the set of files one session builds (the ``dists`` fixture)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "packages" / "nuif-core"


def uv_binary() -> str:
    uv = os.environ.get("UV") or shutil.which("uv")
    assert uv, "uv runs the test suite, so it must be reachable"
    return uv


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any NUIF_* switch (and without the dev venv leaking in)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("NUIF_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(extra)
    return env


def uv_build(*args: str, env: dict[str, str]) -> None:
    # run from the repository, so that its uv settings (exclude-newer, build constraints) apply
    result = subprocess.run(
        [uv_binary(), "build", "-q", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, f"uv build {' '.join(args)} failed:\n{result.stderr[-4000:]}"


@dataclass(frozen=True)
class Dists:
    sdist: Path
    compiled: Path  # nuif-core wheel built from the sdist (CMake, the compiled codec)
    pure: Path  # NUIF_NO_EXTENSIONS=1 wheel built from the source tree (the release command)
    pure_from_sdist: (
        Path  # NUIF_NO_EXTENSIONS=1 wheel built from the sdist (pip without a compiler)
    )
    cli: Path  # nuif-cli wheel (pure Python)
