"""MCP-PROFILE-0 edition 0.1: the ``catalog`` argument of ``validate`` and ``apply-patch``, over
stdio against the installed server: the API's answers on the shared catalog cases
(tests/catalog_cross_surface.py), null and mistyped catalogs, the 1 MiB bound, and the input
schemas the profile states (§3.8) being exactly those the server lists."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from catalog_cross_surface import patch_answer, patch_cases, validate_answer, validate_cases
from nuif_mcp_wire import call, exchange, line, request

import nuif_core
from nuif_core import Catalog, NuifError, catalogs

pytestmark = pytest.mark.timeout(300)

PROFILE = Path(__file__).resolve().parents[2] / "docs" / "spec" / "mcp-profile-0.md"
MINIMAL = '{"nuif": 0, "root": {"id": "home", "kind": "screen", "attrs": {"title": "Home"}}}'


def _run(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    ex = exchange([line(call(i, name, args)) for i, (name, args) in enumerate(calls)], timeout=240)
    assert ex.returncode == 0, ex.stderr
    by_id = ex.by_id()
    return [by_id[i]["result"] for i in range(len(calls))]


def test_validate_and_apply_patch_give_the_api_answers() -> None:
    vcases = validate_cases()
    pcases = patch_cases()
    calls = [("validate", {"document": c.document, "catalog": c.catalog}) for c in vcases]
    calls += [
        ("apply-patch", {"document": c.document, "patch": c.patch, "catalog": c.catalog})
        for c in pcases
    ]
    results = _run(calls)
    for case, result in zip(vcases, results[: len(vcases)], strict=True):
        assert result["isError"] is False, case.name
        assert result["structuredContent"]["diagnostics"] == validate_answer(case), case.name
        assert result["structuredContent"]["valid"] is (validate_answer(case) == []), case.name
    codes = set()
    for case, result in zip(pcases, results[len(vcases) :], strict=True):
        answer = patch_answer(case)
        if "ok" in answer:
            assert result["isError"] is False and result["structuredContent"] == answer["ok"]
            codes.add("ok")
            continue
        error = answer["error"]
        expected = NuifError(
            error["code"],
            error["message"],
            pointer=error["pointer"],
            line=error["line"],
            column=error["column"],
        )
        assert result["isError"] is True, case.name
        assert result["content"][0]["text"] == str(expected), case.name
        assert result["_meta"]["dev.nuif/error"] == error, case.name
        codes.add(error["code"])
    assert codes == {
        "ok",
        "NUIF_CATALOG",
        "NUIF_CATALOG_KIND",
        "NUIF_CATALOG_ATTRS",
        "NUIF_CATALOG_CHILDREN",
    }


def test_a_null_catalog_is_no_catalog_and_a_mistyped_one_is_refused() -> None:
    unknown = '{"nuif": 0, "root": {"id": "r", "kind": "widget"}}'
    results = _run(
        [
            ("validate", {"document": unknown}),
            ("validate", {"document": unknown, "catalog": None}),
            ("validate", {"document": unknown, "catalog": catalogs.basic_text()}),
            ("validate", {"document": unknown, "catalog": 1}),
            ("validate", {"document": unknown, "catalog": {"nuif_catalog": 0, "kinds": {}}}),
        ]
    )
    plain = nuif_core.validate(unknown).to_dict()
    assert results[0]["structuredContent"] == results[1]["structuredContent"] == plain
    assert [d["code"] for d in results[2]["structuredContent"]["diagnostics"]] == [
        "NUIF_CATALOG_KIND"
    ]
    for refused in results[3:]:
        assert refused["isError"] is True
        assert refused["content"][0]["text"].startswith("NUIF_ARGUMENTS: catalog:")


def test_a_catalog_over_one_mebibyte_is_a_catalog_diagnostic() -> None:
    big = json.dumps({"nuif_catalog": 0, "kinds": {}, "description": "x" * (1 << 20)})
    (result,) = _run([("validate", {"document": MINIMAL, "catalog": big})])
    (diagnostic,) = result["structuredContent"]["diagnostics"]
    assert diagnostic["code"] == "NUIF_CATALOG"
    assert f"the limit is {Catalog.BOUNDS['max_catalog_bytes']} bytes" in diagnostic["message"]


def _profile_schemas() -> dict[str, Any]:
    text = PROFILE.read_text("utf-8")
    section = text[text.index("### 3.8 Catalogs") : text.index("## 4. Clients")]
    blocks = re.findall(r"`([a-z-]+)`:\n\n```json\n(.*?)\n```", section, re.S)
    return {name: json.loads(body) for name, body in blocks}


def test_the_profile_states_the_input_schemas_the_server_lists() -> None:
    stated = _profile_schemas()
    assert set(stated) == {"validate", "apply-patch"}
    ex = exchange([line(request(1, "tools/list"))])
    assert ex.returncode == 0
    listed = {t["name"]: t["inputSchema"] for t in ex.by_id()[1]["result"]["tools"]}
    for name, schema in stated.items():
        assert listed[name] == schema
        assert "catalog" in schema["properties"] and "catalog" not in schema["required"]
