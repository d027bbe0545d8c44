"""Batches: --jobs gives the same output in the same order, and the progress bar stays off pipes."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

import nuif_core
from nuif_cli import _batch

from .conftest import INVALID, PRETTY, script

CANONICAL = nuif_core.canonicalize(PRETTY).canonical


@pytest.fixture
def many(tmp_path: Path) -> list[str]:
    """40 files: every third pretty (not canonical), every seventh invalid, the rest canonical."""
    names = []
    for i in range(40):
        path = tmp_path / f"doc{i:02}.json"
        path.write_bytes(INVALID if i % 7 == 0 else PRETTY if i % 3 == 0 else CANONICAL)
        names.append(str(path))
    return names


@pytest.mark.parametrize("command", [["canonicalize", "--check"], ["hash"], ["validate"]])
def test_jobs_2_prints_the_same_lines_in_the_same_order_as_jobs_1(
    nuif, many: list[str], command: list[str]
) -> None:
    serial = nuif(*command, "--jobs", "1", *many)
    parallel = nuif(*command, "--jobs", "2", *many)
    assert serial.code == parallel.code == 1
    assert serial.out == parallel.out
    assert serial.err == parallel.err


def test_in_place_with_jobs_rewrites_every_non_canonical_file(nuif, many: list[str]) -> None:
    r = nuif("canonicalize", "--in-place", "-j", "2", *many)
    assert r.code == 1  # the invalid ones
    assert "canonicalized" in r.err
    assert nuif("canonicalize", "--check", *[n for i, n in enumerate(many) if i % 7]).code == 0


def test_jobs_must_be_a_non_negative_number(nuif, many: list[str]) -> None:
    assert nuif("hash", "--jobs", "-1", many[1]).code == 2
    assert nuif("hash", "--jobs", "two", many[1]).code == 2
    assert nuif("hash", "--jobs", "0", many[1]).code == 0  # 0 = every CPU


def test_chunks_cover_every_item_once_in_order() -> None:
    items = list(range(10_000))
    parts = _batch.chunks(items, 2)
    assert [x for part in parts for x in part] == items
    assert 16 <= len(parts) <= 64


def test_effective_jobs_defaults_and_stdin() -> None:
    assert _batch.effective_jobs(None, 10, ["a"] * 10) == 1
    assert _batch.effective_jobs(None, 1000, ["a"] * 1000) == _batch.cpu_count()
    assert _batch.effective_jobs(4, 1000, ["a"] * 999 + ["-"]) == 1
    assert _batch.effective_jobs(8, 3, ["a"] * 3) == 3


def test_progress_bar_draws_on_a_terminal_and_erases_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    bar = _batch.Progress(100, "check", enabled=True, delay=0)
    bar.advance(50)
    assert "\rcheck [" in err.getvalue() and "50/100" in err.getvalue()
    bar.clear()
    assert err.getvalue().endswith("\r\x1b[K")


def test_progress_bar_stays_off_when_stderr_is_not_a_terminal(many: list[str]) -> None:
    proc = subprocess.run([*script(), "hash", "-j", "1", *many], capture_output=True, timeout=120)
    assert b"\r" not in proc.stderr and b"\x1b" not in proc.stderr
