"""Kind catalogs in nuif-web (the pure wheel alone in Pyodide, under Node): the shared catalog
cases (tests/catalog_cross_surface.py) give the API's codes, messages, pointers, lines and
columns; and the JavaScript checks of the ``catalog`` option."""

from __future__ import annotations

import pytest
from catalog_cross_surface import patch_answer, patch_cases, validate_answer, validate_cases
from nuif_web_support import NodeLines

from nuif_core import catalogs

pytestmark = pytest.mark.timeout(600)


def test_validate_and_apply_patch_give_the_api_answers(node_lines: NodeLines) -> None:
    vcases = validate_cases()
    pcases = patch_cases()
    requests = [("validate", [c.document, {"catalog": c.catalog}]) for c in vcases]
    requests += [("applyPatch", [c.document, c.patch, {"catalog": c.catalog}]) for c in pcases]
    answers = node_lines.many(requests)
    for case, answer in zip(vcases, answers[: len(vcases)], strict=True):
        assert answer["ok"]["diagnostics"] == validate_answer(case), case.name
    codes = set()
    for case, answer in zip(pcases, answers[len(vcases) :], strict=True):
        answer.pop("id")
        expected = patch_answer(case)
        assert answer == expected, case.name
        codes.add("ok" if "ok" in expected else expected["error"]["code"])
    assert codes == {
        "ok",
        "NUIF_CATALOG",
        "NUIF_CATALOG_KIND",
        "NUIF_CATALOG_ATTRS",
        "NUIF_CATALOG_CHILDREN",
    }


def test_the_basic_catalog_is_the_shipped_text(node_lines: NodeLines) -> None:
    assert node_lines.send("basicCatalog")["ok"] == catalogs.basic_text()


@pytest.mark.parametrize(
    ("op", "args", "message"),
    [
        ("validate", ["{}", {"catalog": 5}], "validate: catalog must be a string"),
        (
            "validate",
            ["{}", {"catalog": {"nuif_catalog": 0}}],
            "validate: catalog must be a string",
        ),
        ("applyPatch", ["{}", "{}", {"catalog": []}], "applyPatch: catalog must be a string"),
    ],
)
def test_a_catalog_that_is_not_text_is_a_type_error(
    node_lines: NodeLines, op: str, args: list[object], message: str
) -> None:
    thrown = node_lines.send(op, *args)["throw"]
    assert thrown["name"] == "TypeError" and thrown["message"].startswith(message)


def test_a_null_catalog_is_no_catalog(node_lines: NodeLines) -> None:
    doc = '{"nuif": 0, "root": {"id": "r", "kind": "widget"}}'
    plain, null = node_lines.many([("validate", [doc]), ("validate", [doc, {"catalog": None}])])
    assert plain["ok"] == null["ok"] and plain["ok"]["valid"] is True
