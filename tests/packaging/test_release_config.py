"""The release-wheel configuration (cibuildwheel, in packages/nuif-core/pyproject.toml) builds
what docs/install.md promises: CPython 3.11-3.14 on Linux x86_64/aarch64 (manylinux and
musllinux), macOS x86_64/arm64 and Windows AMD64, built with the defaults every build has (no
setting of their own: what the tests run is what the wheels ship), pinned build tools and a test
command that runs existing tests against each wheel."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "packages" / "nuif-core"
PYTHONS = ("cp311", "cp312", "cp313", "cp314")
EXPECTED = {
    "linux": {
        f"{py}-{libc}_{arch}"
        for py in PYTHONS
        for libc in ("manylinux", "musllinux")
        for arch in ("x86_64", "aarch64")
    },
    "macos": {f"{py}-macosx_{arch}" for py in PYTHONS for arch in ("x86_64", "arm64")},
    "windows": {f"{py}-win_amd64" for py in PYTHONS},
}


def _config() -> dict:
    with open(CORE / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["cibuildwheel"]


def _cibuildwheel() -> str:
    found = shutil.which("cibuildwheel", path=os.path.dirname(sys.executable))
    assert found, "cibuildwheel is in the dev group (pyproject.toml): run through uv"
    return found


@pytest.mark.parametrize("platform", sorted(EXPECTED))
def test_cibuildwheel_builds_exactly_the_promised_wheels(platform: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CIBW_")}
    result = subprocess.run(
        [_cibuildwheel(), "--platform", platform, "--print-build-identifiers", str(CORE)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == EXPECTED[platform]


def test_release_wheels_build_as_every_build_does() -> None:
    """No config-settings of their own, and no library looked for beyond the compilers'
    runtimes: SHA-256 and the float conversions are compiled in (csrc/)."""
    assert "config-settings" not in _config()
    cmake = (CORE / "CMakeLists.txt").read_text()
    assert not re.search(r"find_package\((?!Python|Cython)", cmake)
    assert "target_link_libraries" not in cmake


def _pins(lines: list[str]) -> dict[str, str]:
    pins = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def test_release_build_tools_are_pinned_as_the_workspace_pins_them() -> None:
    assert _config()["environment"] == {
        "PIP_CONSTRAINT": "packages/nuif-core/build-constraints.txt"
    }
    release = _pins((CORE / "build-constraints.txt").read_text().splitlines())
    with open(REPO / "pyproject.toml", "rb") as fh:
        workspace = _pins(tomllib.load(fh)["tool"]["uv"]["build-constraint-dependencies"])
    # every build requirement of nuif-core is pinned, at the workspace's version
    with open(CORE / "pyproject.toml", "rb") as fh:
        requires = tomllib.load(fh)["build-system"]["requires"]
    names = {re.split(r"[<>=!~ ]", r, maxsplit=1)[0].lower() for r in requires}
    assert names <= set(release), names - set(release)
    assert release == {name: workspace[name] for name in release}


def test_test_command_runs_existing_tests_with_the_dev_pins() -> None:
    config = _config()
    assert config["test-environment"] == {"NUIF_REQUIRE_EXTENSION": "1"}
    for source in config["test-sources"]:
        assert (REPO / source).exists(), source
    paths = [
        arg
        for command in config["test-command"]
        for arg in shlex.split(command)
        if arg.startswith("tests/")
    ]
    assert len(paths) >= 5 and all((REPO / p).is_file() for p in paths), paths
    with open(REPO / "pyproject.toml", "rb") as fh:
        dev = _pins(
            d.split(";")[0] for d in tomllib.load(fh)["dependency-groups"]["dev"] if "==" in d
        )
    test_requires = _pins(config["test-requires"])
    assert test_requires == {name: dev[name] for name in test_requires}


def test_every_build_switch_is_passed_explicitly_with_its_cmake_default() -> None:
    """A build-dir kept between builds keeps CMake's cache: a switch one build set (``uv build
    -C cmake.define.NUIF_OPENSSL=OFF``) would stay set in the next unless every build passes
    every switch.  pyproject.toml's cmake.define does, with the defaults CMakeLists.txt gives."""
    with open(CORE / "pyproject.toml", "rb") as fh:
        defines = tomllib.load(fh)["tool"]["scikit-build"]["cmake"]["define"]
    options = dict(
        re.findall(
            r'option\((NUIF_\w+)\s+"[^"]*"\s+(ON|OFF)\)', (CORE / "CMakeLists.txt").read_text()
        )
    )
    assert options and defines == options
