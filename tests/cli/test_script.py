"""The installed ``nuif`` script and ``python -m nuif_cli`` as real subprocesses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import nuif_core
from nuif_core import package

from .conftest import INVALID, PRETTY

HASH = nuif_core.document_hash(PRETTY)


def test_script_version(nuif_script) -> None:
    r = nuif_script("--version")
    assert r.code == 0 and r.text.startswith("nuif ") and "nuif-core" in r.text


def test_python_dash_m_runs_the_same_main() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nuif_cli", "hash", "-"],
        input=PRETTY,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stdout.decode() == f"{HASH}  -\n"


def test_script_hash_from_a_pipe(nuif_script) -> None:
    r = nuif_script("hash", "-", stdin=PRETTY)
    assert (r.code, r.text) == (0, f"{HASH}  -\n")


def test_script_validate_exit_codes(nuif_script, docs: Path) -> None:
    assert nuif_script("validate", str(docs / "pretty.json")).code == 0
    r = nuif_script("validate", "-", stdin=INVALID)
    assert r.code == 1 and r.text.startswith("<stdin>:1:") and "NUIF_ID" in r.text
    assert nuif_script("validate", str(docs / "missing.json")).code == 2
    assert nuif_script("validate").code == 2  # argparse: FILE is required


def test_script_canonicalize_check_and_stdout(nuif_script, docs: Path) -> None:
    r = nuif_script(
        "canonicalize", "--check", str(docs / "pretty.json"), str(docs / "canonical.json")
    )
    assert r.code == 1 and r.text == f"{docs / 'pretty.json'}\n"
    r = nuif_script("canonicalize", str(docs / "pretty.json"))
    assert r.out == nuif_core.canonicalize(PRETTY).canonical + b"\n"  # the text and a line feed


def test_script_error_is_short_without_verbose(nuif_script, docs: Path) -> None:
    r = nuif_script("inspect", str(docs / "invalid.json"))
    assert (
        r.code == 1
        and r.err.startswith(f"{docs / 'invalid.json'}:1:28: NUIF_ID")
        and "Traceback" not in r.err
    )
    assert "Traceback" in nuif_script("-v", "inspect", str(docs / "invalid.json")).err


def test_script_pack_unpack_verify(nuif_script, docs: Path, tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.bin").write_bytes(bytes(range(256)))
    pkg = tmp_path / "p.nuif"
    assert (
        nuif_script(
            "pack", str(docs / "pretty.json"), "--assets", str(tmp_path / "assets"), "-o", str(pkg)
        ).code
        == 0
    )
    assert nuif_script("verify", str(pkg)).code == 0
    r = nuif_script("unpack", "-", "-o", str(tmp_path / "out"), stdin=pkg.read_bytes())
    assert r.code == 0
    assert (tmp_path / "out" / "assets" / "a.bin").read_bytes() == bytes(range(256))
    assert package.verify(pkg).hash == HASH


@pytest.mark.skipif(
    not hasattr(nuif_core, "apply_patch"), reason="nuif_core.apply_patch not landed yet"
)
def test_script_demo(nuif_script, tmp_path: Path) -> None:
    r = nuif_script("demo", cwd=tmp_path)
    assert r.code == 0 and "every check passed" in r.text
    assert list(tmp_path.iterdir()) == []  # the demo cleans up its temporary directory
