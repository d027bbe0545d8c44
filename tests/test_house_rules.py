"""The house rules check themselves: lint, format, types and the C layout, on the whole
repository, in the README's test command (so CI fails when a rule is broken).

Each rule is also shown to catch a planted violation, so a configuration that silently checks
nothing (a wrong path, an emptied rule set) fails here too.  The configuration lives in
pyproject.toml (``[tool.ruff]``, ``[tool.mypy]``, ``[tool.cython-lint]``) and
packages/nuif-core/.clang-format; .pre-commit-config.yaml runs the same tools before a commit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORE = REPO / "packages" / "nuif-core"
BIN = Path(sys.executable).parent
TYPING = REPO / "tests" / "typing"


def run(*argv: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """One tool run, with the environment's bin directory first on PATH (cython-lint runs
    pycodestyle by name)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("MYPYPATH", None)
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def c_sources() -> list[Path]:
    """The C and C++ of the codec that the project writes (third_party/ is vendored as is): csrc/,
    the CPython host (glue/) and the WebAssembly program (wasm/), all under the one
    .clang-format of packages/nuif-core."""
    folders = (CORE / "csrc", CORE / "glue", CORE / "wasm")
    return sorted(p for f in folders for p in f.iterdir() if p.suffix in (".c", ".h", ".cpp"))


def cython_sources() -> list[Path]:
    src = CORE / "src" / "nuif_core"
    return sorted(
        [
            *src.glob("*.pyx"),
            *src.glob("*.pxi"),
            *(CORE / "csrc").glob("*.pxd"),
            *(CORE / "glue").glob("*.pxd"),
        ]
    )


def clang_format() -> str:
    found = shutil.which("clang-format")
    if found is None:
        if os.environ.get("NUIF_REQUIRE_CLANG_FORMAT") == "1":
            pytest.fail("NUIF_REQUIRE_CLANG_FORMAT=1 but clang-format is not on PATH")
        pytest.skip("clang-format is not installed (Debian: apt-get install clang-format)")
    return found


# -- the repository keeps the rules -----------------------------------------------------------


def test_ruff_check_passes() -> None:
    done = run(sys.executable, "-m", "ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_check_passes() -> None:
    done = run(sys.executable, "-m", "ruff", "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_passes_on_the_packages_and_the_typed_usage() -> None:
    done = run(sys.executable, "-m", "mypy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Success: no issues found in \d+ source files", done.stdout)


def test_the_typed_usage_file_runs() -> None:
    """Every call in the usage file is a real call that works (not only one that type-checks)."""
    done = run(sys.executable, TYPING / "usage.py")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stub_matches_the_compiled_module() -> None:
    """mypy's stubtest: every name _speedups.pyi declares exists in the compiled module with a
    matching signature, and every public name of the module is in the stub."""
    from nuif_core import _codec

    if _codec.compiled() is None:
        pytest.skip("the compiled codec is not built")
    done = run(sys.executable, "-m", "mypy.stubtest", "nuif_core._speedups", "--concise")
    assert done.returncode == 0, done.stdout + done.stderr


def test_clang_format_leaves_the_c_as_it_is() -> None:
    tool = clang_format()
    done = run(tool, "--dry-run", "--Werror", *c_sources(), cwd=CORE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_cython_lint_passes() -> None:
    done = run(BIN / "cython-lint", *cython_sources())
    assert done.returncode == 0, done.stdout + done.stderr


# -- each rule catches a planted violation ----------------------------------------------------


def test_wrong_uses_of_the_api_are_refused_by_the_type_checker() -> None:
    """tests/typing/wrong_uses.py marks each wrong line with the mypy error code it must draw;
    the errors mypy reports are exactly those, line for line."""
    source = TYPING / "wrong_uses.py"
    expected = {
        (number, code)
        for number, line in enumerate(source.read_text().splitlines(), 1)
        for code in re.findall(r"# E: ([\w-]+)$", line)
    }
    assert len(expected) >= 10
    done = run(
        sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--hide-error-context", source
    )
    assert done.returncode == 1, done.stdout + done.stderr
    found = {
        (int(number), code)
        for number, code in re.findall(
            r"^tests/typing/wrong_uses\.py:(\d+): error: .*\[([\w-]+)\]$", done.stdout, re.M
        )
    }
    assert found == expected, done.stdout


def test_ruff_catches_a_planted_bug(tmp_path: Path) -> None:
    """The configured rule sets are live: a zip() of two lists without strict= (B905) and a
    closure over a loop variable (B023) in a file under the repository's configuration."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def pairs(a: list[int], b: list[int]) -> list[tuple[int, int]]:\n"
        "    return list(zip(a, b))\n"
        "\n"
        "\n"
        "def makers() -> list[object]:\n"
        "    out = []\n"
        "    for i in range(3):\n"
        "        out.append(lambda: i)\n"
        "    return out\n"
    )
    done = run(
        sys.executable,
        "-m",
        "ruff",
        "check",
        "--config",
        REPO / "pyproject.toml",
        "--output-format",
        "concise",
        planted,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "B905" in done.stdout and "B023" in done.stdout, done.stdout


def test_ruff_format_catches_a_planted_layout(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("x = {  'a':1 }\n")
    done = run(
        sys.executable,
        "-m",
        "ruff",
        "format",
        "--check",
        "--config",
        REPO / "pyproject.toml",
        planted,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 file would be reformatted" in done.stdout + done.stderr


def test_clang_format_catches_a_planted_layout(tmp_path: Path) -> None:
    tool = clang_format()
    shutil.copy(CORE / ".clang-format", tmp_path / ".clang-format")
    planted = tmp_path / "planted.h"
    planted.write_text("static int f(int x){\n  return x+1;}\n")
    done = run(tool, "--dry-run", "--Werror", planted, cwd=tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "code should be clang-formatted" in done.stderr


def test_cython_lint_catches_a_planted_violation(tmp_path: Path) -> None:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    planted = tmp_path / "planted.pyx"
    planted.write_text(
        "from cpython.bytes cimport PyBytes_GET_SIZE\n\ncdef int f():\n    return 1\n"
    )
    done = run(BIN / "cython-lint", planted, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "'PyBytes_GET_SIZE' imported but unused" in done.stdout + done.stderr
