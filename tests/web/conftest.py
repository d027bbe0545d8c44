"""tests/web fixtures: the pure wheel, and one Pyodide (under Node) for the whole test run.
The helpers live in ``nuif_web_support`` (beside this file); make it importable."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from dist_build import clean_env, uv_build  # noqa: E402
from nuif_web_support import NodeLines, pyodide_dir  # noqa: E402


@pytest.fixture(scope="session")
def pure_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """nuif-core's pure wheel, built as the release builds it (docs/install.md)."""
    out = tmp_path_factory.mktemp("pure-wheel")
    uv_build("--wheel", "packages/nuif-core", "-o", str(out), env=clean_env(NUIF_NO_EXTENSIONS="1"))
    [wheel] = out.glob("nuif_core-*-py3-none-any.whl")
    return wheel


@pytest.fixture(scope="session")
def node_lines(pure_wheel: Path) -> Iterator[NodeLines]:
    """Pyodide with the pure wheel (nuif-core has no dependency), started once for the run."""
    pyodide_dir()
    lines = NodeLines(pure_wheel)
    yield lines
    lines.close()
