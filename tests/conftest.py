"""Shared fixtures: the conformance data (tests/data), and both codecs."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

# Property tests are repeatable by default, so that CI on main is deterministic: the same
# examples every run.  HYPOTHESIS_PROFILE=explore draws new examples (the fuzzers in fuzz/ and
# local exploration runs look for new failures; each one found becomes a regression test).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# tests/cross_surface.py (the corpus shared by the cross-surface tests) is importable everywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))

REPO = Path(__file__).resolve().parent.parent
#: the public conformance suites, copied into the repository byte for byte (tests/data/README.md)
TESTDATA = REPO / "tests" / "data"


def _codecs() -> list[ModuleType]:
    """The compiled codec (when it is built) and the twin, through the test hook of the codec
    selection (``nuif_core._codec.compiled``/``twin``)."""
    from nuif_core import _codec

    mods = [_codec.twin()]
    compiled = _codec.compiled()
    if compiled is None:
        if os.environ.get("NUIF_REQUIRE_EXTENSION") == "1":
            raise ImportError("NUIF_REQUIRE_EXTENSION=1 but nuif_core._speedups did not load")
    else:
        mods.insert(0, compiled)
    return mods


def _compiled_only_files() -> list[str]:
    """Test files that take the compiled module at the top (they test it directly:
    ``compiled = _codec.compiled()``), or skip without it (``… = _codec.compiled() or
    pytest.skip(…)``: another file may import names from them)."""
    pattern = re.compile(
        r"^\w+ = _codec\.compiled\(\)(?: or pytest\.skip\(| +# this file tests)", re.MULTILINE
    )
    return sorted(
        path.relative_to(REPO / "tests").as_posix()
        for path in (REPO / "tests").glob("*/test_*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    )


#: Built without the compiled codec (NUIF_NO_EXTENSIONS=1 at build time: the pure wheel, which
#: ``NUIF_NO_EXTENSIONS=1 uv run`` installs): the files that test ``_speedups`` directly are not
#: collected, and the header says which.  Under NUIF_REQUIRE_EXTENSION=1 _codecs() raised above.
COMPILED = any(m.__name__ == "nuif_core._speedups" for m in _codecs())
collect_ignore = [] if COMPILED else _compiled_only_files()


def pytest_report_header(config: pytest.Config) -> list[str]:
    import nuif_core

    if COMPILED:
        return [f"nuif_core: {nuif_core.IMPLEMENTATION} codec in use, compiled codec built"]
    return [
        f"nuif_core: built without the compiled codec; not collected: {', '.join(collect_ignore)}"
    ]


@pytest.fixture(params=_codecs(), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def codec(request: pytest.FixtureRequest) -> ModuleType:
    """Each codec in turn: the compiled ``_speedups`` and the pure-Python twin ``_codec_py``."""
    return request.param


@pytest.fixture(scope="session")
def testdata() -> Path:
    if not TESTDATA.is_dir():
        pytest.fail(f"conformance data not found at {TESTDATA} (it is part of the repository)")
    return TESTDATA
