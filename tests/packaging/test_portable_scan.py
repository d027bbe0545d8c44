"""The portable byte-run scanners pass the codec tests too.

On x86-64 the compiled codec scans whitespace, string bodies and ASCII runs 16 bytes at a time
with SSE2; every other CPU (ARM servers and laptops included) gets the portable word-at-a-time
code in ``csrc/nuif_scan.h``.  So that CI on this x86-64 machine proves both, this test builds
the extension with ``-DNUIF_SCAN_PORTABLE=ON`` into a throw-away virtual environment and runs the
codec's twin, conformance, edge-case, document fast-path and UTF-8 route tests against it (that
build also leaves out the vector UTF-8 check of ``csrc/nuif_utf8.h``: only the scalar route runs).
It builds with ``-DNUIF_WERROR=ON`` too: the portable code compiles without a warning.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from nuif_core import _codec

_speedups = _codec.compiled()  # this file tests the compiled codec: not collected without it

REPO = Path(__file__).resolve().parents[2]
CORE_TESTS = [
    "tests/core/test_codec_twins.py",
    "tests/core/test_codec_edge.py",
    "tests/core/test_conformance.py",
    "tests/core/test_document_fast_path.py",
    "tests/core/test_utf8_routes.py",
]


def test_this_build_uses_sse2_on_x86_64() -> None:
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("SSE2 scanners exist only on x86-64")
    assert _speedups.scan_backend() == "sse2"


@pytest.mark.slow
def test_portable_scanners_pass_the_codec_tests(tmp_path: Path) -> None:
    uv = os.environ.get("UV") or shutil.which("uv")
    assert uv, "uv runs the test suite, so it must be reachable"
    venv = tmp_path / "venv"
    py = venv / "bin" / "python"
    subprocess.run(
        [uv, "venv", "-q", str(venv), "--python", sys.executable], check=True, timeout=120
    )
    tools = [
        f"{name}=={version(name)}" for name in ("pytest", "pytest-timeout", "hypothesis", "rfc8785")
    ]
    subprocess.run(
        [
            uv,
            "pip",
            "install",
            "-q",
            "--python",
            str(py),
            "-C",
            "cmake.define.NUIF_SCAN_PORTABLE=ON",
            "-C",
            "cmake.define.NUIF_WERROR=ON",
            "-C",
            f"build-dir={tmp_path / 'build'}",
            str(REPO / "packages" / "nuif-core"),
            *tools,
        ],
        check=True,
        capture_output=True,
        timeout=900,
    )
    probe = subprocess.run(
        [
            str(py),
            "-c",
            "from nuif_core import _speedups as s; print(s.scan_backend(), s.utf8_backend())",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert probe.stdout.split() == ["portable", "scalar"]
    env = {**os.environ, "NUIF_REQUIRE_EXTENSION": "1"}
    env.pop("NUIF_NO_EXTENSIONS", None)
    result = subprocess.run(
        [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *CORE_TESTS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and " failed" not in result.stdout
