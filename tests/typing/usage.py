"""Typed use of the public API: ``uv run mypy`` checks this file in strict mode (pyproject.toml
``[tool.mypy]``), so a change to a public signature or result type that breaks callers fails
the house rules (tests/test_house_rules.py).  It is also run, so every line is a real call."""

from __future__ import annotations

import io
from typing import Any, assert_type

import nuif_core
import nuif_core.catalogs
import nuif_core.package
from nuif_core import (
    CanonicalResult,
    Diagnostic,
    Inspection,
    Limits,
    NodeRef,
    NuifError,
    OutlineEntry,
    PatchCounts,
    PatchResult,
    Session,
    ValidationReport,
)

DOC = '{"nuif": 0, "root": {"id": "home", "kind": "screen", "children": [{"id": "go", "kind": "button"}]}}'
PATCH: dict[str, Any] = {
    "nuif_patch": 0,
    "transactions": [{"ops": [{"op": "set", "id": "go", "attr": "label", "value": "Go"}]}],
}


def main() -> None:
    limits = Limits(max_depth=64)
    assert_type(limits.max_nodes, int)
    assert_type(nuif_core.pointer_position(DOC, "/root/id"), tuple[int, int] | None)
    assert_type(nuif_core.ROUTES, tuple[str, ...])

    result = nuif_core.canonicalize(DOC, limits=limits)
    assert_type(result, CanonicalResult)
    assert_type(result.canonical, bytes)
    assert_type(result.hash, str)
    assert_type(result.changed, bool)

    report = nuif_core.validate(DOC.encode(), max_diagnostics=10)
    assert_type(report, ValidationReport)
    assert_type(report.valid, bool)
    assert_type(report.hash, str | None)
    for diagnostic in report.diagnostics:
        assert_type(diagnostic, Diagnostic)
        assert_type(diagnostic.code, str)
        assert_type(diagnostic.pointer, str | None)
        assert_type(diagnostic.line, int | None)

    info = nuif_core.inspect(DOC, max_outline_nodes=5)
    assert_type(info, Inspection)
    assert_type(info.root, NodeRef)
    assert_type(info.kinds, dict[str, int])
    for entry in info.outline:
        assert_type(entry, OutlineEntry)
        assert_type(entry.depth, int)

    patched = nuif_core.apply_patch(DOC, PATCH, inverse=True)
    assert_type(patched, PatchResult)
    assert_type(patched.counts, PatchCounts)
    assert_type(patched.inverse, bytes | None)

    assert_type(nuif_core.diff(DOC, patched.canonical), bytes)
    assert_type(nuif_core.document_hash(DOC), str)
    assert_type(nuif_core.node_hash(DOC, "go"), str)
    assert_type(nuif_core.is_canonical(result.canonical), bool)
    assert_type(nuif_core.canonical_json(b'{"b": 1, "a": [true, null]}'), bytes)
    assert_type(nuif_core.dumps({"a": 1}), bytes)
    assert_type(nuif_core.loads("[1, 2]"), Any)
    assert_type(nuif_core.ERROR_CODES, dict[str, str])
    assert_type(nuif_core.__version__, str)

    session = Session(DOC, limits=limits)
    assert_type(session.apply(PATCH), PatchResult)
    assert_type(session.canonical(), bytes)
    assert_type(session.node("go"), dict[str, Any])
    assert_type(session.parent("go"), str | None)
    assert_type(session.changed, bool)

    try:
        nuif_core.canonicalize("{")
    except NuifError as exc:
        assert_type(exc.code, str)
        assert_type(exc.line, int | None)

    catalog = nuif_core.catalogs.basic()
    assert_type(catalog, nuif_core.Catalog)
    assert_type(catalog.hash, str)
    screen = (
        '{"nuif": 0, "root": {"id": "home", "kind": "screen", "attrs": {"title": "Home"},'
        ' "children": [{"id": "go", "kind": "button", "attrs": {"label": "Start"}}]}}'
    )
    checked = nuif_core.validate(screen, catalog=catalog)
    assert_type(checked, ValidationReport)
    assert checked.valid, checked.diagnostics
    assert_type(nuif_core.apply_patch(screen, PATCH, catalog=catalog), PatchResult)

    archive = nuif_core.package.pack(DOC, {"assets/logo.svg": b"<svg/>"})
    assert_type(archive, bytes)
    package = nuif_core.package.read(io.BytesIO(archive))
    assert_type(package.assets["assets/logo.svg"], bytes)
    assert_type(nuif_core.package.verify(io.BytesIO(archive)).entries, int)


if __name__ == "__main__":
    main()
