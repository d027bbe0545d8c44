"""The final newline (NUIF-0 §2.4), through the ``nuif`` script: a file is canonical as the
canonical text or as the text and one line feed; ``canonicalize`` writes the text and one line
feed (``--no-newline``: the bare text); hashes are of the canonical text alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import nuif_core

from .conftest import PRETTY

CANONICAL = nuif_core.canonicalize(PRETTY).canonical
HASH = nuif_core.canonicalize(PRETTY).hash


def test_canonicalize_writes_the_text_and_one_line_feed(nuif_script, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    r = nuif_script("canonicalize", str(tmp_path / "a.json"))
    assert (r.code, r.out) == (0, CANONICAL + b"\n")
    r = nuif_script("canonicalize", "-", "-o", str(tmp_path / "out.json"), stdin=PRETTY)
    assert r.code == 0 and (tmp_path / "out.json").read_bytes() == CANONICAL + b"\n"


def test_no_newline_writes_the_bare_text(nuif_script, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    r = nuif_script("canonicalize", "--no-newline", str(tmp_path / "a.json"))
    assert (r.code, r.out) == (0, CANONICAL)
    out = tmp_path / "out.json"
    r = nuif_script("canonicalize", "--no-newline", "-", "-o", str(out), stdin=PRETTY)
    assert r.code == 0 and out.read_bytes() == CANONICAL


@pytest.mark.parametrize(
    ("tail", "canonical"),
    [
        (b"", True),
        (b"\n", True),
        (b"\n\n", False),
        (b"\r\n", False),
        (b" ", False),
        (b" \n", False),
    ],
)
def test_check_accepts_the_text_with_or_without_one_line_feed(
    nuif_script, tmp_path: Path, tail: bytes, canonical: bool
) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(CANONICAL + tail)
    r = nuif_script("canonicalize", "--check", str(path))
    assert r.code == (0 if canonical else 1)
    assert r.text == ("" if canonical else f"{path}\n")
    r = nuif_script("canonicalize", "--check", "-", stdin=CANONICAL + tail)
    assert r.code == (0 if canonical else 1)


def test_check_of_a_pretty_text_ending_in_a_line_feed_still_fails(nuif_script, tmp_path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    assert PRETTY.endswith(b"}\n")
    assert nuif_script("canonicalize", "--check", str(tmp_path / "a.json")).code == 1


def test_hashes_ignore_the_final_line_feed(nuif_script, tmp_path: Path) -> None:
    (tmp_path / "bare.json").write_bytes(CANONICAL)
    (tmp_path / "lf.json").write_bytes(CANONICAL + b"\n")
    r = nuif_script("hash", str(tmp_path / "bare.json"), str(tmp_path / "lf.json"))
    assert r.code == 0
    assert r.text == f"{HASH}  {tmp_path / 'bare.json'}\n{HASH}  {tmp_path / 'lf.json'}\n"


def test_in_place_writes_the_line_feed_and_leaves_canonical_files_alone(
    nuif_script, tmp_path: Path
) -> None:
    pretty, bare, lf = tmp_path / "pretty.json", tmp_path / "bare.json", tmp_path / "lf.json"
    pretty.write_bytes(PRETTY)
    bare.write_bytes(CANONICAL)
    lf.write_bytes(CANONICAL + b"\n")
    for path in (bare, lf):
        os.utime(path, (1_000_000, 1_000_000))
    r = nuif_script("canonicalize", "-i", str(pretty), str(bare), str(lf))
    assert r.code == 0 and "1 file canonicalized, 2 already canonical" in r.err
    assert pretty.read_bytes() == CANONICAL + b"\n"
    assert bare.read_bytes() == CANONICAL and lf.read_bytes() == CANONICAL + b"\n"
    assert os.stat(bare).st_mtime == 1_000_000 and os.stat(lf).st_mtime == 1_000_000
    pretty.write_bytes(PRETTY)
    r = nuif_script("canonicalize", "-i", "--no-newline", str(pretty))
    assert r.code == 0 and pretty.read_bytes() == CANONICAL


def test_no_newline_with_check_is_a_usage_error(nuif_script, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(CANONICAL)
    r = nuif_script("canonicalize", "--check", "--no-newline", str(tmp_path / "a.json"))
    assert r.code == 2 and "--no-newline" in r.err and r.out == b""


def test_batch_follows_the_file_rule(nuif_script, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lf.json").write_bytes(CANONICAL + b"\n")
    (docs / "pretty.json").write_bytes(PRETTY)
    # a line of JSON Lines is a text, not a file: only the bare text is canonical
    (docs / "lines.jsonl").write_bytes(CANONICAL + b"\n" + PRETTY.replace(b"\n", b" ") + b"\n")
    r = nuif_script("batch", "canonicalize", "--serial", str(docs))
    records = [json.loads(line) for line in r.out.splitlines()]
    assert [(x["source"][len(str(docs)) + 1 :], x["line"], x["changed"]) for x in records] == [
        ("lf.json", None, False),
        ("lines.jsonl", 1, False),
        ("lines.jsonl", 2, True),
        ("pretty.json", None, True),
    ]
    r = nuif_script("batch", "canonicalize", "--serial", "-i", str(docs / "pretty.json"))
    assert r.code == 0 and (docs / "pretty.json").read_bytes() == CANONICAL + b"\n"
    (docs / "pretty.json").write_bytes(PRETTY)
    r = nuif_script(
        "batch", "canonicalize", "--serial", "-i", "--no-newline", str(docs / "pretty.json")
    )
    assert r.code == 0 and (docs / "pretty.json").read_bytes() == CANONICAL
    r = nuif_script("batch", "canonicalize", "--serial", "--no-newline", str(docs))
    assert r.code == 2 and "--no-newline" in r.err
