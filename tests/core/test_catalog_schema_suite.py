"""The JSON Schema of catalogs against the official JSON-Schema-Test-Suite (draft 2020-12).

tests/data/JSON-Schema-Test-Suite holds the files of the keywords a catalog schema may use
(NUIF-0 §9.4), plus the suite's optional ECMA-262 pattern tests.  Each test case's schema
becomes the schema of one attribute ``v`` of a kind (its ``$defs`` the catalog's), each test's
data that attribute's value, and ``validate(document, catalog=…)`` must give the suite's
verdict.  A case whose schema a catalog refuses (a keyword outside §9.4, a ``$ref`` other than
``#/$defs/NAME``, a pattern outside the linear-time subset) must be refused with NUIF_CATALOG for
one of those reasons, and the cases that run are counted, so that the check cannot quietly stop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from nuif_core import Catalog, NuifError

SUITE = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "JSON-Schema-Test-Suite"
    / "tests"
    / "draft2020-12"
)
FILES = sorted(SUITE.glob("*.json")) + sorted((SUITE / "optional").glob("*.json"))
#: why a catalog may refuse a case's schema (the words of its NUIF_CATALOG message)
REFUSALS = (
    "is not supported in a catalog",
    "does not name a definition of the catalog",
    "leaves the catalog",
    "definitions belong in the catalog's top-level",
    "the definition name",
    "the array form of",
    "are not supported in catalog patterns",
    "is not defined (with the u flag)",
    "a $ref cycle",
    "is beyond ±(2^53 - 1)",  # a schema number a NUIF text cannot hold exactly
)


def _catalog_for(schema: Any) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    if isinstance(schema, dict):
        schema = dict(schema)
        defs = schema.pop("$defs", {})
        schema.pop("$schema", None)
    out: dict[str, Any] = {
        "nuif_catalog": 0,
        "kinds": {"t": {"attrs": {"properties": {"v": schema}}}},
    }
    if defs:
        out["$defs"] = defs
    return out


def _document(data: Any) -> str:
    return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "t", "attrs": {"v": data}}})


def test_the_suite_subset_is_there() -> None:
    names = {p.name for p in FILES}
    assert {"type.json", "ref.json", "items.json", "ecmascript-regex.json"} <= names
    assert len(FILES) == 34
    assert (SUITE.parents[1] / "LICENSE").is_file() and (SUITE.parents[1] / "SOURCE.txt").is_file()


def _run(path: Path) -> tuple[int, int, list[Any]]:
    """(tests run, cases refused, wrong verdicts) of one suite file."""
    ran = refused = 0
    wrong = []
    for case in json.loads(path.read_text("utf-8")):
        try:
            catalog = Catalog(_catalog_for(case["schema"]))
        except NuifError as err:
            refused += 1
            if err.code != "NUIF_CATALOG" or not any(r in err.message for r in REFUSALS):
                wrong.append((case["description"], "refused for another reason", err))
            continue
        for test in case["tests"]:
            report = nuif_core.validate(_document(test["data"]), catalog=catalog)
            if any(not d.code.startswith("NUIF_CATALOG") for d in report.diagnostics):
                continue  # data a NUIF document cannot hold (a number beyond a double)
            ran += 1
            if report.valid != test["valid"]:
                wrong.append((case["description"], test["description"], report.diagnostics[:1]))
    return ran, refused, wrong


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.name + "/" + p.name)
def test_the_suite_verdicts(path: Path) -> None:
    ran, refused, wrong = _run(path)
    assert wrong == []
    assert ran > 0, f"no test of {path.name} ran ({refused} cases refused)"


def test_most_of_the_subset_runs() -> None:
    ran = refused = cases = 0
    for path in FILES:
        r, f, _ = _run(path)
        ran += r
        refused += f
        cases += len(json.loads(path.read_text("utf-8")))
    assert ran >= 700, ran
    assert refused <= cases // 4, (refused, cases)
