"""The catalog cases every surface runs (NUIF-0 §9.7): the API's answers are the reference.

Each case is a catalog's text and a document's text (and, for ``apply-patch``, a patch); the
API, the ``nuif`` CLI (tests/cli/test_catalog.py), the MCP tools (tests/mcp/test_catalog.py) and
nuif-web in Pyodide (tests/web/test_catalog.py) must report the same codes, messages, pointers,
lines and columns for them.  Built from the catalog corpus (tests/data/catalogs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nuif_core
from nuif_core import NuifError, catalogs

DATA = Path(__file__).resolve().parent / "data" / "catalogs"


@dataclass(frozen=True)
class Case:
    name: str
    catalog: str
    document: str


@dataclass(frozen=True)
class PatchCase:
    name: str
    catalog: str
    document: str
    patch: str


def validate_cases() -> list[Case]:
    """Every document of the corpus against the basic catalog, and a valid document against each
    invalid catalog."""
    basic = catalogs.basic_text()
    cases = [
        Case(f"{kind}/{p.name}", basic, p.read_text("utf-8"))
        for kind in ("valid", "invalid")
        for p in sorted((DATA / "basic" / kind).glob("*.json"))
    ]
    minimal = (DATA / "basic" / "valid" / "minimal.json").read_text("utf-8")
    cases += [
        Case(f"catalog/{p.name}", p.read_text("utf-8"), minimal)
        for p in sorted((DATA / "invalid-catalogs").glob("*.json"))
    ]
    return cases


def _patch(*ops: dict[str, Any]) -> str:
    return json.dumps({"nuif_patch": 0, "transactions": [{"ops": list(ops)}]})


def patch_cases() -> list[PatchCase]:
    """A patch the basic catalog accepts, patches whose result it refuses (each code), and a
    patch with an invalid catalog."""
    basic = catalogs.basic_text()
    doc = (DATA / "basic" / "valid" / "checkout.json").read_text("utf-8")
    cases = [
        (
            "accepted",
            _patch({"op": "set", "id": "checkout.pay", "attr": "label", "value": "Pay now"}),
        ),
        (
            "kind",
            _patch({"op": "insert", "parent": "checkout", "node": {"id": "w", "kind": "widget"}}),
        ),
        ("attrs", _patch({"op": "set", "id": "checkout.pay", "attr": "variant", "value": "huge"})),
        (
            "children",
            _patch(
                {
                    "op": "insert",
                    "parent": "checkout.pay",
                    "node": {"id": "t", "kind": "text", "attrs": {"text": "x"}},
                }
            ),
        ),
        ("unset-required", _patch({"op": "unset", "id": "checkout.pay", "attr": "label"})),
    ]
    out = [PatchCase(name, basic, doc, patch) for name, patch in cases]
    bad = (DATA / "invalid-catalogs" / "ref-cycle.json").read_text("utf-8")
    out.append(PatchCase("bad-catalog", bad, doc, cases[0][1]))
    return out


def validate_answer(case: Case) -> list[dict[str, Any]]:
    """The API's diagnostics for a case (the reference)."""
    report = nuif_core.validate(case.document, catalog=case.catalog)
    return [d.to_dict() for d in report.diagnostics]


def patch_answer(case: PatchCase) -> dict[str, Any]:
    """The API's answer for a patch case: ``{"ok": result}`` or ``{"error": error}``."""
    try:
        return {
            "ok": nuif_core.apply_patch(case.document, case.patch, catalog=case.catalog).to_dict()
        }
    except NuifError as err:
        return {"error": err.to_dict()}
