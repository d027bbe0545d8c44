"""The compiled codec is what normally loads; the environment switches behave as documented."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import nuif_core

PROBE = "import nuif_core; from nuif_core import _codec; print(nuif_core.IMPLEMENTATION, *_codec.routes())"


def _run(env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUIF_")}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60
    )


def test_compiled_codec_loads_by_default() -> None:
    result = _run({})
    assert result.returncode == 0, result.stderr
    implementation, *routes = result.stdout.split()
    assert implementation == "compiled"
    # doubles, hashing, scanners, UTF-8 check: each one of its documented routes
    assert len(routes) == 4, routes
    assert routes[0] in ("fast_float+dragonbox", "dtoa")
    assert routes[1] in ("sha-ni", "portable")
    assert routes[2] in ("sse2", "portable")
    assert routes[3] in ("avx2", "ssse3", "neon", "scalar")


def test_ci_requires_the_extension() -> None:
    if os.environ.get("NUIF_REQUIRE_EXTENSION") == "1":
        assert nuif_core.IMPLEMENTATION == "compiled"
    result = _run({"NUIF_REQUIRE_EXTENSION": "1"})
    assert result.returncode == 0 and result.stdout.split()[0] == "compiled", result.stderr


def test_no_extensions_forces_the_pure_python_twin() -> None:
    result = _run({"NUIF_NO_EXTENSIONS": "1"})
    assert result.returncode == 0 and result.stdout.strip() == "python", result.stderr  # no routes


def test_contradictory_switches_fail_loudly() -> None:
    result = _run({"NUIF_NO_EXTENSIONS": "1", "NUIF_REQUIRE_EXTENSION": "1"})
    assert result.returncode != 0
    assert "contradict" in result.stderr


@pytest.mark.slow
def test_wheel_ships_the_extension_and_no_cython_sources(dists) -> None:
    """The sdist holds every source; the wheel built *from it* (as pip does from PyPI) holds the
    extension and no sources (the ``dists`` fixture, tests/packaging/conftest.py)."""
    import tarfile
    import zipfile
    from pathlib import Path

    with tarfile.open(dists.sdist) as sdist:
        sources = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    core = Path(__file__).resolve().parents[2] / "packages" / "nuif-core"
    # every file under csrc/ (the vendored libraries and their licences included) and glue/
    csrc = [
        p.relative_to(core).as_posix()
        for folder in ("csrc", "glue")
        for p in (core / folder).rglob("*")
        if p.is_file()
    ]
    assert "csrc/third_party/dragonbox/LICENSE-Boost" in csrc
    assert "glue/nuif_host_python.h" in csrc
    for needed in ("CMakeLists.txt", "pyproject.toml", "src/nuif_core/_speedups.pyx", *csrc):
        assert needed in sources, needed
    # nothing from a local build or the generated C
    assert not [n for n in sources if n.startswith("build/") or n.endswith("_speedups.c")]
    with zipfile.ZipFile(dists.compiled) as wheel:
        names = set(wheel.namelist())
    assert "nuif_core/py.typed" in names
    assert any(n.startswith("nuif_core/_speedups.") and n.endswith(".so") for n in names), names
    assert not any(n.endswith((".pyx", ".pxd", ".c", ".cpp", ".h")) for n in names), names
