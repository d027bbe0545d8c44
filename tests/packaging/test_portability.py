"""The C and C++ sources build with clang as well as gcc, with warnings as errors, and the
clang-built codec passes the codec tests.

``-DNUIF_WERROR=ON`` (packages/nuif-core/CMakeLists.txt) compiles csrc/ under ``-std=c11`` /
``-std=c++17`` with ``-Wall -Wextra -Wpedantic -Wshadow -Werror`` and the C that Cython generates
with ``-Wall -Wextra -Werror``.  gcc is covered by tests/packaging/test_portable_scan.py (the
portable scanners); this test builds with clang the other way round: SSE2 scanners, as the
release wheels are.  Neither links a library beyond the C and C++ runtimes: SHA-256 is
csrc/nuif_sha256.c.
Debian's clang package provides the compiler (.ci/run installs it); without it the test skips,
unless ``NUIF_REQUIRE_CLANG=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CODEC_TESTS = [
    "tests/core/test_codec_twins.py",
    "tests/core/test_conformance.py",
    "tests/core/test_hash_backends.py",
]


def _clang() -> tuple[str, str]:
    cc, cxx = shutil.which("clang"), shutil.which("clang++")
    if not (cc and cxx):
        if os.environ.get("NUIF_REQUIRE_CLANG") == "1":
            pytest.fail("NUIF_REQUIRE_CLANG=1 but clang/clang++ are not on PATH")
        pytest.skip("clang is not installed (Debian: apt-get install clang)")
    return cc, cxx


@pytest.mark.slow
def test_clang_builds_with_warnings_as_errors_and_passes_the_codec_tests(tmp_path: Path) -> None:
    cc, cxx = _clang()
    uv = os.environ.get("UV") or shutil.which("uv")
    assert uv, "uv runs the test suite, so it must be reachable"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUIF_")}
    venv = tmp_path / "venv"
    py = venv / "bin" / "python"
    subprocess.run(
        [uv, "venv", "-q", str(venv), "--python", sys.executable], check=True, timeout=120, env=env
    )
    tools = [
        f"{name}=={version(name)}" for name in ("pytest", "pytest-timeout", "hypothesis", "rfc8785")
    ]
    build = subprocess.run(
        [
            uv,
            "pip",
            "install",
            "--python",
            str(py),
            "-v",
            "-C",
            "cmake.define.NUIF_WERROR=ON",
            "-C",
            "build.verbose=true",
            "-C",
            f"build-dir={tmp_path / 'build'}",
            str(REPO / "packages" / "nuif-core"),
            *tools,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**env, "CC": cc, "CXX": cxx},
    )
    assert build.returncode == 0, build.stderr[-6000:]
    log = build.stdout + build.stderr
    # the flags really reached the compiler, and it was clang
    assert "The C compiler identification is Clang" in log
    assert "The CXX compiler identification is Clang" in log
    # the Cython module, nuif_sha256.c and nuif_float.cpp: three compiled sources
    assert log.count("-Werror") >= 3, "NUIF_WERROR did not reach every source"
    probe = subprocess.run(
        [
            str(py),
            "-c",
            "import nuif_core; from nuif_core import _codec, _speedups; "
            "print(nuif_core.IMPLEMENTATION, *_codec.routes(), _speedups.__file__)",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    implementation, floats, hashing, *_, extension = probe.stdout.split()
    # SHA-256 is the codec's own (SHA-NI where the CPU has it), built by clang too
    assert (implementation, floats) == ("compiled", "fast_float+dragonbox")
    assert hashing in ("sha-ni", "portable")
    needed = subprocess.run(
        ["objdump", "-p", extension], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    assert "NEEDED" in needed and "libcrypto" not in needed
    result = subprocess.run(
        [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *CODEC_TESTS],
        cwd=REPO,
        env={**env, "NUIF_REQUIRE_EXTENSION": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and " failed" not in result.stdout
