"""``nuif canonicalize --in-place`` killed with SIGKILL at random points.

The installed ``nuif`` script rewrites a ~6 MiB pretty document; each of 30 runs (seeded) is
killed after a random delay drawn uniformly from 0 to a little past the time an uninterrupted
run takes, measured first on this machine (real timing: no hook slows the command down). So the
kill lands anywhere: during start-up, while reading or canonicalizing, while the temporary file
is written or fsync'ed, around the rename, or after the command ended.

After every kill the document is byte-identical to the old text or to the new canonical text,
never a mix or a truncation, and it keeps its permission bits. The only other file that may remain is the hidden temporary file of
the interrupted write, ``.<name>.<random>.nuif-tmp`` in the same directory: SIGKILL leaves no
chance to remove it. It is never named like a document, it holds a prefix of the new canonical
text, and it is safe to delete (documented in SECURITY.md). Nothing else is ever created.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import time
from pathlib import Path

import pytest

import nuif_core

from .conftest import script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

RUNS = 30
SEED = 20260728
NAME = "screen.json"
TEMP = re.compile(r"^\." + re.escape(NAME) + r"\..+\.nuif-tmp$")


def pretty_document(target: int) -> bytes:
    """A valid, non-canonical (indented, member order) document of about ``target`` bytes."""
    rows = []
    size = 0
    i = 0
    while size < target:
        row = (
            f'    {{"kind": "text", "id": "t{i}",\n      "attrs": {{"label": "label number {i}", '
            f'"weight": {i % 7}, "visible": true}}}}'
        )
        rows.append(row)
        size += len(row) + 2
        i += 1
    body = ",\n".join(rows)
    head = '{\n  "nuif": 0,\n  "root": {"kind": "screen", "id": "root", "children": [\n'
    return (head + body + "\n  ]}\n}\n").encode()


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != NAME)


def test_sigkill_at_random_points_leaves_the_old_or_the_new_document(tmp_path: Path) -> None:
    old = pretty_document(6 * 1024 * 1024)
    assert 5 * 1024 * 1024 < len(old) < 10 * 1024 * 1024
    new = nuif_core.canonicalize(old).canonical + b"\n"  # the text and one line feed
    assert new != old
    doc = tmp_path / NAME
    cmd = [*script(), "canonicalize", "--in-place", str(doc)]

    # one uninterrupted run: it must succeed, and its duration bounds the kill delays
    doc.write_bytes(old)
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    full = time.monotonic() - t0
    assert done.returncode == 0, done.stderr
    assert doc.read_bytes() == new and leftovers(tmp_path) == []

    rng = random.Random(SEED)
    outcomes = {"old": 0, "new": 0, "temp file left": 0}
    for run in range(RUNS):
        doc.write_bytes(old)
        os.chmod(doc, 0o640)
        for stale in leftovers(tmp_path):
            (tmp_path / stale).unlink()
        delay = rng.uniform(0.0, full * 1.15)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(delay)
            proc.kill()  # SIGKILL (a no-op if it already finished)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        data = doc.read_bytes()
        assert data in (old, new), (
            f"run {run} (killed after {delay:.3f} s): the document is neither the old nor the new"
            f" text ({len(data)} bytes)"
        )
        outcomes["old" if data == old else "new"] += 1
        rest = leftovers(tmp_path)
        assert len(rest) <= 1, rest
        for name in rest:
            assert TEMP.match(name), f"run {run}: unexpected file {name!r}"
            assert not name.endswith(".json")
            assert new.startswith((tmp_path / name).read_bytes())
            outcomes["temp file left"] += 1
        assert doc.is_file() and not doc.is_symlink()
        assert doc.stat().st_mode & 0o777 == 0o640  # the new text never shows the temp file's mode
    print(
        f"\n{RUNS} SIGKILLs over 0-{full * 1.15:.2f} s (uninterrupted run {full:.2f} s, "
        f"{len(old) / 2**20:.1f} MiB): {outcomes}"
    )
