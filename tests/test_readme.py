"""The README's API tour runs as written (so the first code a user copies works)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_tour_runs_and_its_comments_hold() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has no python block"
    namespace: dict = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    result = namespace["result"]
    assert result.text == '{"nuif":0,"root":{"attrs":{"title":"Hi"},"id":"home","kind":"screen"}}'
    assert result.changed is True
    # the tour's last comment: the error it catches
    import nuif_core

    with pytest.raises(nuif_core.NuifError) as info:  # the duplicate key is refused
        nuif_core.canonicalize('{"nuif": 0, "root": {"id": "a", "kind": "k", "id": "b"}}')
    err = info.value
    assert (err.code, err.pointer, err.line, err.column) == (
        "NUIF_DUPLICATE_KEY",
        "/root/id",
        1,
        46,
    )
    assert "('NUIF_DUPLICATE_KEY', '/root/id', 1, 46)" in blocks[0]
    assert namespace["applied"].inverse is not None
