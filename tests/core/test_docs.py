"""The reference docs cover the whole public contract."""

from __future__ import annotations

from pathlib import Path

from nuif_core import ERROR_CODES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_error_code_is_documented() -> None:
    text = (DOCS / "errors.md").read_text()
    missing = [code for code in ERROR_CODES if f"`{code}`" not in text]
    assert missing == []
