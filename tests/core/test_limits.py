"""Limits: named, documented, can be tightened and never raised."""

from __future__ import annotations

import dataclasses

import pytest

import nuif_core
from nuif_core import Limits, NuifError

DOC = '{"nuif":0,"root":{"id":"r","kind":"screen","children":[{"id":"a","kind":"box","children":[{"id":"b","kind":"text"}]}]}}'


def test_defaults_are_the_nuif_0_ceilings() -> None:
    d = Limits.DEFAULT
    assert d.max_document_bytes == d.max_patch_bytes == 16 * 1024 * 1024
    assert (d.max_depth, d.max_nodes) == (128, 250_000)
    assert (d.max_transactions, d.max_operations_per_transaction, d.max_operations) == (
        128,
        1024,
        4096,
    )
    assert (d.max_package_entries, d.max_asset_bytes, d.max_package_bytes) == (
        10_000,
        64 * 1024 * 1024,
        256 * 1024 * 1024,
    )
    assert Limits.MCP.max_document_bytes == Limits.MCP.max_patch_bytes == 1024 * 1024


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Limits)])
def test_every_limit_can_be_tightened_but_not_raised(field: str) -> None:
    default = getattr(Limits.DEFAULT, field)
    assert getattr(Limits(**{field: 1}), field) == 1
    with pytest.raises(ValueError, match="tightened"):
        Limits(**{field: default + 1})
    with pytest.raises(ValueError, match=rf"^Limits\.{field} must be at least 1, got 0$"):
        Limits(**{field: 0})
    with pytest.raises(TypeError):
        Limits(**{field: "5"})
    with pytest.raises(ValueError, match=r"^Limits\.max_depth can only be tightened: 5 > 4$"):
        Limits.DEFAULT.tighten(max_depth=4).tighten(max_depth=5)


def test_tightened_node_limit_applies() -> None:
    report = nuif_core.validate(DOC, limits=Limits(max_nodes=2))
    assert not report.valid
    assert [d.code for d in report.diagnostics] == ["NUIF_LIMIT_NODES"]
    assert report.diagnostics[0].pointer == "/root/children/0/children/0"
    assert nuif_core.validate(DOC, limits=Limits(max_nodes=3)).valid


def test_tightened_depth_limit_applies_to_documents() -> None:
    with pytest.raises(NuifError) as info:
        nuif_core.canonicalize(DOC, limits=Limits(max_depth=5))
    assert info.value.code == "NUIF_DEPTH"


def test_tightened_size_limit_applies_to_every_entry_point() -> None:
    small = Limits(max_document_bytes=10)
    for call in (
        nuif_core.canonicalize,
        nuif_core.inspect,
        nuif_core.canonical_json,
        nuif_core.is_canonical,
        nuif_core.document_hash,
    ):
        with pytest.raises(NuifError) as info:
            call(DOC, limits=small)
        assert info.value.code == "NUIF_TOO_LARGE"
    assert nuif_core.validate(DOC, limits=small).diagnostics[0].code == "NUIF_TOO_LARGE"


def test_limits_argument_must_be_limits() -> None:
    with pytest.raises(TypeError):
        nuif_core.canonicalize(DOC, limits={"max_depth": 3})  # type: ignore[arg-type]
