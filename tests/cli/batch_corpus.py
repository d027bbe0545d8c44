"""Generated inputs for ``nuif batch`` and an independent oracle of its records.

The oracle reads each input whole with plain Python and calls ``nuif_core.validate`` and
``nuif_core.canonicalize`` directly, one document at a time: it shares nothing with the batch
layer's planning, byte ranges or line numbering, which is what the tests check.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import nuif_core


def document(i: int, *, pretty: bool = False, children: int = 3) -> bytes:
    kids = ",".join(
        f'{{"id":"n{i}.{k}","kind":"text","attrs":{{"label":"item {k} of {i}"}}}}'
        for k in range(children)
    )
    text = f'{{"nuif":0,"root":{{"id":"root{i}","kind":"screen","children":[{kids}]}}}}'
    if pretty:  # member order as written, spaces: valid, not canonical
        return text.replace('{"nuif":0,', '{ "nuif": 0, ').replace(',"kind"', ', "kind"').encode()
    return nuif_core.canonicalize(text).canonical


def invalid(i: int) -> bytes:
    if i % 3 == 0:
        return (
            f'{{"nuif": 0, "root": {{"id": "-x{i}", "kind": "Bad", "attrs": {{"9": 1}}}}}}'.encode()
        )
    if i % 3 == 1:
        return b'{"nuif": 0,  "root": }'
    return b'{"nuif": 0, "root": {"id": "a", "kind": "screen"}}\xff'


def make_tree(root: Path, n: int, seed: int = 20261201) -> list[str]:
    """``n`` document files under ``root`` (nested directories): canonical, pretty (not
    canonical), duplicates of earlier ones, invalid ones, and dangling links (unreadable).
    Returns the paths in the order ``nuif batch`` reports a directory (sorted)."""
    rng = random.Random(seed)
    paths = []
    for i in range(n):
        sub = root / f"d{i % 7}" / f"e{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"doc{i:05}.json"
        roll = rng.random()
        if roll < 0.04:
            os.symlink(root / "gone" / f"{i}.json", path)  # unreadable: the target is missing
        elif roll < 0.14:
            path.write_bytes(invalid(i))
        elif roll < 0.34:
            path.write_bytes(document(i, pretty=True))
        elif roll < 0.50 and i > 10:
            path.write_bytes(document(rng.randrange(i)))  # a duplicate of an earlier document
        else:
            path.write_bytes(document(i, children=1 + i % 5))
        paths.append(str(path))
    return sorted(paths)


def make_jsonl(path: Path, n: int, *, bad_every: int = 97, blank_every: int = 113) -> list[int]:
    """A JSON Lines file of ``n`` lines (CRLF on some), with bad and blank lines; returns the
    numbers of the bad lines."""
    bad = []
    with open(path, "wb") as fh:
        for i in range(1, n + 1):
            if i % blank_every == 0:
                fh.write(b"\n")
                continue
            if i % bad_every == 0:
                fh.write(b'{"nuif": 0, "root": {"id": "x%d", "kind": "screen"\n' % i)  # cut short
                bad.append(i)
                continue
            end = b"\r\n" if i % 5 == 0 else b"\n"
            fh.write(document(i % 400, pretty=i % 2 == 0) + end)
    return bad


def oracle_record(
    source: str, line: int | None, data: bytes | None, error: str | None = None
) -> dict[str, Any]:
    if data is None:
        return {
            "source": source,
            "source_hex": None,
            "line": line,
            "bytes": None,
            "valid": None,
            "hash": None,
            "changed": None,
            "diagnostics": [
                {"code": "NUIF_IO", "message": error, "pointer": None, "line": None, "column": None}
            ],
            "truncated": False,
        }
    report = nuif_core.validate(data, max_diagnostics=100)
    changed = nuif_core.canonicalize(data).changed if report.valid else None
    return {
        "source": source,
        "source_hex": None,
        "line": line,
        "bytes": len(data),
        "valid": report.valid,
        "hash": report.hash,
        "changed": changed,
        "diagnostics": [d.to_dict() for d in report.diagnostics],
        "truncated": report.truncated,
    }


def oracle_file(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return oracle_record(path, None, None, f"cannot read: {exc.strerror}")
    return oracle_record(path, None, data)


def oracle_jsonl(path: str) -> list[dict[str, Any]]:
    with open(path, "rb") as fh:
        lines = fh.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for number, line in enumerate(lines, 1):
        text = line[:-1] if line.endswith(b"\r") else line
        if text.strip(b" \t\r"):
            out.append(oracle_record(path, number, text))
    return out
