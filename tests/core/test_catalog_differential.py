"""Catalog verdicts against jsonschema 2020-12 (made exact on numbers) over generated schemas
and values: tests/catalog_gen.py says what is generated and why; scripts/catalog_differential.py
runs any number of cases (the figures in docs/catalogs.md come from it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import catalog_differential


@pytest.mark.slow
def test_twenty_thousand_generated_cases_agree_with_jsonschema() -> None:
    out = catalog_differential.run(20_000, seed=20261207)
    assert out["wrong"] == []
    assert out["compared"] == 20_000
    # both verdicts are common, so a validator that always answered one way would be caught
    assert 0.3 < out["accepted"] / out["compared"] < 0.8


def test_the_differential_catches_inexact_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """With multipleOf by float division planted back, the differential finds disagreements."""
    from nuif_core import _catalog, _catalog_eval

    monkeypatch.setattr(_catalog_eval, "exact", lambda number: number)
    monkeypatch.setattr(_catalog._cache, "_entries", type(_catalog._cache._entries)())
    out = catalog_differential.run(20_000, seed=3)
    assert out["wrong"] != []
