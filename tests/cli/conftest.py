"""Fixtures for the ``nuif`` command line: in-process ``main([...])`` and the installed script."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from nuif_cli._cli import main

PRETTY = b"""{
  "nuif": 0,
  "root": {"id": "login", "kind": "screen", "attrs": {"title": "Sign in"}, "children": [
    {"id": "login.email", "kind": "input", "attrs": {"type": "email"}},
    {"id": "login.submit", "kind": "button", "attrs": {"label": "Go", "primary": true}, "children": []}
  ]}
}
"""
#: three schema problems, reported together
INVALID = b'{"nuif": 0, "root": {"id": "-x", "kind": "Bad", "attrs": {"9": 1}}}'
BROKEN = b'{"nuif": 0,\n  "root": }'


@dataclass
class Run:
    code: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")


@pytest.fixture
def nuif(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch):
    """Call ``main(argv)`` in this process; ``stdin=`` feeds bytes to ``-``."""

    def run(*argv: str, stdin: bytes = b"") -> Run:
        capsysbinary.readouterr()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        code = main(list(argv))
        captured = capsysbinary.readouterr()
        return Run(code, captured.out, captured.err.decode("utf-8", "replace"))

    return run


def script() -> list[str]:
    """The installed ``nuif`` console script (next to this interpreter, or on PATH)."""
    here = Path(sys.executable).parent / ("nuif.exe" if os.name == "nt" else "nuif")
    if here.exists():
        return [str(here)]
    found = shutil.which("nuif")
    if found:
        return [found]
    pytest.fail("the nuif console script is not installed next to this Python")


@pytest.fixture
def nuif_script():
    """Run the installed script as a subprocess (bounded by a timeout)."""

    def run(*argv: str, stdin: bytes = b"", cwd: Path | None = None) -> Run:
        proc = subprocess.run(
            [*script(), *argv], input=stdin, capture_output=True, timeout=120, cwd=cwd
        )
        return Run(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))

    return run


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A directory with a pretty valid document, its canonical twin, and two invalid ones."""
    import nuif_core

    (tmp_path / "pretty.json").write_bytes(PRETTY)
    (tmp_path / "canonical.json").write_bytes(nuif_core.canonicalize(PRETTY).canonical)
    (tmp_path / "invalid.json").write_bytes(INVALID)
    (tmp_path / "broken.json").write_bytes(BROKEN)
    return tmp_path
