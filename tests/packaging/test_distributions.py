"""The pure wheel and the sdist install and work in a fresh virtual environment, offline.

``NUIF_NO_EXTENSIONS=1`` at build time makes ``nuif_core-<v>-py3-none-any.whl`` (the pure-Python
twin only, no compiler needed); the sdist builds the compiled codec.  Each is installed with the
nuif-cli wheel into its own new venv offline (``--offline``: the built files, and nuif-cli's
third-party dependency from uv's cache), and a smoke check — canonicalize, validate, apply_patch
with its inverse, ``nuif --version``, ``nuif demo`` — must give the same hashes everywhere: pure wheel, wheel built from the sdist, and the
build these tests run on.  A missing C compiler fails the build with a message naming the switch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest
from dist_build import CORE, Dists, clean_env, uv_binary

import nuif_core

pytestmark = pytest.mark.slow

SMOKE = r"""
import json, os, shutil, subprocess, sys
from importlib import resources
import nuif_core
from nuif_core import _codec

data = resources.files("nuif_cli").joinpath("data")
doc = data.joinpath("example.json").read_bytes()
patch = data.joinpath("example.patch.json").read_bytes()
canon = nuif_core.canonicalize(doc)
report = nuif_core.validate(doc)
bad = nuif_core.validate(b'{"nuif": 0, "root": {"id": "-x", "kind": "Screen"}}')
applied = nuif_core.apply_patch(canon.text, patch, inverse=True)
undone = nuif_core.apply_patch(applied.text, applied.inverse)
nuif = shutil.which("nuif", path=os.path.dirname(sys.executable))
version = subprocess.run([nuif, "--version"], capture_output=True, text=True, timeout=60)
demo = subprocess.run([nuif, "demo"], capture_output=True, text=True, timeout=300)
print(json.dumps({
    "location": os.path.dirname(nuif_core.__file__),
    "implementation": nuif_core.IMPLEMENTATION,
    "routes": list(_codec.routes()),
    "hash": canon.hash,
    "canonical": canon.text,
    "valid": report.valid,
    "valid_hash": report.hash,
    "bad": [[d.code, d.pointer] for d in bad.diagnostics],
    "patched": applied.hash,
    "undone": undone.hash,
    "version": version.stdout.strip(),
    "demo_rc": demo.returncode,
    "demo": demo.stdout,
}))
"""


def _expected() -> dict[str, object]:
    """What the build these tests run on computes for the same example."""
    data = resources.files("nuif_cli").joinpath("data")
    canon = nuif_core.canonicalize(data.joinpath("example.json").read_bytes())
    applied = nuif_core.apply_patch(canon.text, data.joinpath("example.patch.json").read_bytes())
    return {"hash": canon.hash, "canonical": canon.text, "patched": applied.hash}


def _fresh_venv_with(tmp_path: Path, *wheels: Path, **env: str) -> dict:
    uv = uv_binary()
    venv = tmp_path / "venv"
    subprocess.run(
        [uv, "venv", "-q", str(venv), "--python", sys.executable],
        check=True,
        timeout=120,
        env=clean_env(),
    )
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    links = [arg for wheel in wheels for arg in ("--find-links", str(wheel.parent))]
    install = subprocess.run(
        [
            uv,
            "pip",
            "install",
            "-q",
            "--python",
            str(py),
            # the built files, and nuif-cli's one third-party dependency (shtab, pure Python)
            # from uv's cache: the test command's own sync put it there
            "--offline",
            *links,
            *[str(w) for w in wheels],
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_env(),
    )
    assert install.returncode == 0, install.stderr
    # run from an empty directory: nothing of the repository is importable
    result = subprocess.run(
        [str(py), "-c", SMOKE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=clean_env(**env),
    )
    assert result.returncode == 0, result.stderr[-4000:]
    got = json.loads(result.stdout)
    assert Path(got["location"]).is_relative_to(venv), got["location"]
    return got


def _check_smoke(got: dict) -> None:
    expected = _expected()
    assert got["hash"] == expected["hash"]
    assert got["canonical"] == expected["canonical"]
    assert got["valid"] is True and got["valid_hash"] == expected["hash"]
    assert got["bad"] == [["NUIF_ID", "/root/id"], ["NUIF_KIND", "/root/kind"]]
    assert got["patched"] == expected["patched"] and got["undone"] == expected["hash"]
    assert got["demo_rc"] == 0, got["demo"]
    assert "demo: every check passed" in got["demo"]
    assert f"hash  {expected['hash']}" in got["demo"]
    assert f"new  {expected['patched']}" in got["demo"]


def _members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_pure_wheel_is_py3_none_any_with_the_twin_only(dists: Dists) -> None:
    version = nuif_core.__version__
    assert dists.pure.name == f"nuif_core-{version}-py3-none-any.whl"
    members = _members(dists.pure)
    assert b"Root-Is-Purelib: true" in members[f"nuif_core-{version}.dist-info/WHEEL"]
    assert b"Tag: py3-none-any" in members[f"nuif_core-{version}.dist-info/WHEEL"]
    assert not [
        n
        for n in members
        if n.endswith((".so", ".pyd", ".dylib", ".pyx", ".pxd", ".pxi", ".pyi", ".c"))
    ]
    shipped = {n.removeprefix("nuif_core/") for n in members if n.startswith("nuif_core/")}
    package = CORE / "src" / "nuif_core"
    sources = {p.name for p in package.iterdir() if p.suffix in (".py", ".typed")}
    # and the shipped kind catalogs (nuif_core.catalogs: its module and the catalog files)
    sources |= {
        f"catalogs/{p.name}"
        for p in (package / "catalogs").iterdir()
        if p.suffix in (".py", ".json")
    }
    assert "catalogs/basic.json" in sources
    assert shipped == sources
    # built from the sdist (pip without a compiler) it is the same wheel, file for file
    assert _members(dists.pure_from_sdist) == members


def test_compiled_wheel_is_platform_specific(dists: Dists) -> None:
    assert "-py3-none-any" not in dists.compiled.name
    assert f"-cp{sys.version_info[0]}{sys.version_info[1]}-" in dists.compiled.name
    # the module and its type stub, never the Cython or C sources it is built from
    members = _members(dists.compiled)
    assert "nuif_core/_speedups.pyi" in members and "nuif_core/py.typed" in members
    assert "nuif_core/catalogs/basic.json" in members
    assert not [n for n in members if n.endswith((".pyx", ".pxd", ".pxi", ".c", ".h"))]


def test_pure_wheel_installs_offline_and_gives_the_same_hashes(
    dists: Dists, tmp_path: Path
) -> None:
    got = _fresh_venv_with(tmp_path, dists.pure, dists.cli)
    assert got["implementation"] == "python" and got["routes"] == []
    assert "python codec" in got["version"], got["version"]
    _check_smoke(got)


def test_sdist_build_installs_offline_and_gives_the_same_hashes(
    dists: Dists, tmp_path: Path
) -> None:
    got = _fresh_venv_with(tmp_path, dists.compiled, dists.cli, NUIF_REQUIRE_EXTENSION="1")
    assert got["implementation"] == "compiled" and len(got["routes"]) == 4
    assert "compiled codec" in got["version"], got["version"]
    _check_smoke(got)


def test_missing_compiler_fails_with_a_message_naming_the_switch(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-compiler")
    env = clean_env(CC=missing, CXX=missing)
    result = subprocess.run(
        [
            uv_binary(),
            "build",
            "--wheel",
            "--out-dir",
            str(tmp_path / "out"),
            "-C",
            f"build-dir={tmp_path / 'build'}",
            str(CORE),
        ],
        cwd=CORE.parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode != 0
    output = " ".join((result.stdout + result.stderr).split())
    assert "nuif-core: no C compiler found" in output
    assert "NUIF_NO_EXTENSIONS=1" in output
    assert not list((tmp_path / "out").glob("*.whl"))
