"""File names in the line-oriented outputs (``hash`` lines, ``hash --check`` verdicts,
``validate`` diagnostics, the ``canonicalize --check`` list, every ``FILE: …`` message).

A POSIX file name is any bytes but ``/`` and NUL: it may hold a line feed, a carriage return or
another control character, and it may not be UTF-8.  Such a name is written in the escaped form
(docs/cli.md, "file names in lines"): a leading backslash, ``\\\\`` for a backslash, ``\\n`` and
``\\r``, ``\\xNN`` for any other control byte or byte that is not UTF-8 (what GNU sha256sum does
for ``\\``, ``\\n`` and ``\\r``), so one name is always one line of UTF-8 text, and ``hash
--check`` reads the escaped form back to the exact bytes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import nuif_core

from .conftest import INVALID, PRETTY, script

HASH = nuif_core.canonicalize(PRETTY).hash

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX names are bytes")


def _make(directory: Path, raw_name: bytes, data: bytes = PRETTY) -> str:
    """The file ``raw_name`` (bytes) in ``directory``, as the ``str`` argv would give."""
    raw = os.fsencode(str(directory)) + b"/" + raw_name
    try:
        with open(raw, "wb") as fh:
            fh.write(data)
    except OSError as exc:  # a file system that refuses the name (macOS: UTF-8 only)
        pytest.skip(f"cannot create the file name {raw_name!r} here: {exc}")
    return os.fsdecode(raw)


def _escaped(directory: Path, tail: str) -> str:
    r"""The escaped form of ``directory/`` + the already-escaped ``tail`` (``\`` + …)."""
    return "\\" + str(directory).replace("\\", "\\\\") + "/" + tail


def _escaped_tail(directory: Path, tail: str) -> str:
    r"""The same without its leading backslash: the name in a hash line, whose own first
    character is the mark (GNU sha256sum's ``\HASH  a\nb``)."""
    return _escaped(directory, tail)[1:]


def _run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*script(), *argv], capture_output=True, timeout=120, check=False, env=env
    )


# ---------------------------------------------------------------------------------------------
# names that are not UTF-8 (item 14)


@posix_only
def test_hash_check_reads_back_the_list_hash_wrote_for_a_name_that_is_not_utf8(
    tmp_path: Path,
) -> None:
    bad = _make(tmp_path, b"caf\xe9-\xff.json")
    good = _make(tmp_path, b"ok.json")
    written = _run(["hash", bad, good])
    assert written.returncode == 0, written.stderr
    written.stdout.decode("utf-8")  # the list is UTF-8 text, whatever the names
    assert written.stdout.decode().splitlines() == [
        "\\" + HASH + "  " + _escaped_tail(tmp_path, "caf\\xe9-\\xff.json"),
        f"{HASH}  {good}",
    ]
    listing = tmp_path / "sums.txt"
    listing.write_bytes(written.stdout)
    checked = _run(["hash", "--check", str(listing)])
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.decode().splitlines() == [
        _escaped(tmp_path, "caf\\xe9-\\xff.json") + ": OK",
        f"{good}: OK",
    ]


@posix_only
def test_hash_check_reads_a_list_holding_the_raw_bytes_of_a_name_that_is_not_utf8(
    tmp_path: Path,
) -> None:
    # the form sha256sum (and nuif before the escaped form) writes: the name's bytes as they are
    bad = _make(tmp_path, b"\xff.json")
    good = _make(tmp_path, b"ok.json")
    listing = tmp_path / "sums.txt"
    listing.write_bytes(
        HASH.encode() + b"  " + os.fsencode(bad) + b"\n" + f"{HASH}  {good}\n".encode()
    )
    checked = _run(["hash", "--check", str(listing)])
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.decode().splitlines() == [
        _escaped(tmp_path, "\\xff.json") + ": OK",
        f"{good}: OK",
    ]


@posix_only
def test_a_name_that_is_not_utf8_is_printed_without_an_internal_error_in_a_strict_locale(
    tmp_path: Path,
) -> None:
    # en_US.UTF-8 and most desktop locales: stdout refuses lone surrogates (errors='strict')
    bad = _make(tmp_path, b"\xfe.json", INVALID)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    r = _run(["validate", bad], env)
    assert r.returncode == 1, r.stderr
    assert b"internal error" not in r.stderr
    lines = r.stdout.decode("utf-8").splitlines()
    assert lines and all(line.startswith(_escaped(tmp_path, "\\xfe.json:1:")) for line in lines)
    bad_ok = _make(tmp_path, b"\xff.json")
    r = _run(["hash", bad_ok], env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode() == "\\" + HASH + "  " + _escaped_tail(tmp_path, "\\xff.json") + "\n"


# ---------------------------------------------------------------------------------------------
# control characters in names (item 16)


@posix_only
def test_a_newline_in_a_file_name_does_not_forge_a_validate_line(tmp_path: Path) -> None:
    forged = _make(tmp_path, b"a.json:1:1: NUIF_FAKE forged\nb.json", INVALID)
    r = _run(["validate", forged])
    assert r.returncode == 1, r.stderr
    lines = r.stdout.decode().splitlines()
    report = nuif_core.validate(INVALID)
    assert len(lines) == len(report.diagnostics)  # one line per diagnostic, none forged
    where = _escaped(tmp_path, "a.json:1:1: NUIF_FAKE forged\\nb.json")
    for line, d in zip(lines, report.diagnostics, strict=True):
        assert line.startswith(f"{where}:{d.line}:{d.column}: {d.code} ")


@posix_only
def test_a_newline_in_a_file_name_does_not_forge_a_hash_line_and_check_reads_it_back(
    tmp_path: Path,
) -> None:
    name = _make(tmp_path, b"x\n" + HASH.encode() + b"  forged.json")
    other = _make(tmp_path, b"back\\slash\rcr.json")
    written = _run(["hash", name, other])
    assert written.returncode == 0, written.stderr
    assert written.stdout.decode().splitlines() == [
        "\\" + HASH + "  " + _escaped_tail(tmp_path, "x\\n" + HASH + "  forged.json"),
        "\\" + HASH + "  " + _escaped_tail(tmp_path, "back\\\\slash\\rcr.json"),
    ]
    listing = tmp_path / "sums.txt"
    listing.write_bytes(written.stdout)
    checked = _run(["hash", "--check", str(listing)])
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.decode().splitlines() == [
        _escaped(tmp_path, "x\\n" + HASH + "  forged.json") + ": OK",
        _escaped(tmp_path, "back\\\\slash\\rcr.json") + ": OK",
    ]


@posix_only
def test_control_characters_in_a_file_name_are_escaped_in_every_line_output(
    tmp_path: Path,
) -> None:
    name = _make(tmp_path, b"t\x1b[2K\tz\n.json", INVALID)
    shown = _escaped(tmp_path, "t\\x1b[2K\\x09z\\n.json")
    r = _run(["canonicalize", "--check", name])  # invalid: its diagnostic on stderr
    assert r.stderr.decode().startswith(f"{shown}:1:")
    pretty = _make(tmp_path, b"p\n.json")
    r = _run(["canonicalize", "--check", pretty])  # not canonical: listed on stdout
    assert (r.returncode, r.stdout.decode()) == (1, _escaped(tmp_path, "p\\n.json") + "\n")
    r = _run(["json", "check", pretty])
    assert (r.returncode, r.stdout.decode()) == (1, _escaped(tmp_path, "p\\n.json") + "\n")
    r = _run(["hash", name])
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.decode().startswith(f"{shown}:1:")
    assert len(r.stderr.decode().splitlines()) == 1
    missing = str(tmp_path / "gone\n.json")
    r = _run(["validate", missing])
    assert r.returncode == 2
    assert r.stderr.decode() == (
        "nuif: " + _escaped(tmp_path, "gone\\n.json") + ": No such file or directory\n"
    )
    r = _run(["inspect", pretty])
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().splitlines()[0] == "file       " + _escaped(tmp_path, "p\\n.json")


def test_a_name_without_control_characters_is_printed_as_given(nuif, tmp_path: Path) -> None:
    path = tmp_path / "café – ok.json"
    path.write_bytes(PRETTY)
    r = nuif("hash", str(path))
    assert (r.code, r.text) == (0, f"{HASH}  {path}\n")
    listing = tmp_path / "sums.txt"
    listing.write_bytes(r.out)
    r = nuif("hash", "--check", str(listing))
    assert (r.code, r.text) == (0, f"{path}: OK\n")


def test_hash_check_splits_a_list_on_line_feeds_only(nuif, tmp_path: Path) -> None:
    # str.splitlines() also splits on U+2028, U+0085, form feeds…, which a name may hold
    path = tmp_path / "a\u2028b\x85c.json"
    try:
        path.write_bytes(PRETTY)
    except OSError as exc:  # pragma: no cover - a file system that refuses the name
        pytest.skip(f"cannot create {path!r}: {exc}")
    listing = tmp_path / "sums.txt"
    listing.write_bytes(nuif("hash", str(path)).out)
    r = nuif("hash", "--check", str(listing))
    assert r.code == 0, r.err
    assert len(r.text.splitlines()) == 1 and r.text.endswith(": OK\n")


def test_hash_check_reads_a_list_with_crlf_line_endings(nuif, tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(PRETTY)
    listing = tmp_path / "sums.txt"
    listing.write_bytes(f"{HASH}  {path}\r\n".encode())
    r = nuif("hash", "--check", str(listing))
    assert (r.code, r.text) == (0, f"{path}: OK\n")


def test_hash_check_refuses_an_escaped_line_with_an_unknown_escape(nuif, tmp_path: Path) -> None:
    r = nuif("hash", "--check", "-", stdin=f"\\{HASH}  a\\q.json\n".encode())
    assert r.code == 1
    assert "<stdin>:1: not a 'sha256:<hex>  FILE' line" in r.err


def test_hash_check_reads_a_literal_name_that_starts_with_a_backslash(nuif, tmp_path: Path) -> None:
    # only a backslash at the start of the line marks the escaped form (as in GNU sha256sum)
    path = tmp_path / "x.json"
    path.write_bytes(PRETTY)
    r = nuif("hash", "--check", "-", stdin=f"{HASH}  {path}\n".encode())
    assert (r.code, r.text) == (0, f"{path}: OK\n")
    r = nuif("hash", "--check", "-", stdin=f"{HASH}  \\n-nope.json\n".encode())
    assert r.code == 1 and "FAILED open or read" in r.text and "not a 'sha256" not in r.err
