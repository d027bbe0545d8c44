"""Cross-surface: for a corpus of documents and patches, valid and invalid, the MCP tools give the
same canonical text, hashes and error codes as the direct API (with ``Limits.MCP``)."""

from __future__ import annotations

from typing import Any

import pytest
from cross_surface import DOC, documents, patches
from nuif_mcp_wire import call, exchange, line

import nuif_core
from nuif_core import Limits, NuifError

pytestmark = pytest.mark.timeout(300)


def _direct(name: str, arguments: dict[str, Any]) -> tuple[str, Any]:
    try:
        if name == "validate":
            return "ok", nuif_core.validate(arguments["document"], limits=Limits.MCP).to_dict()
        if name == "inspect":
            return "ok", nuif_core.inspect(
                arguments["document"], max_outline_nodes=50, limits=Limits.MCP
            ).to_dict()
        if name == "canonicalize":
            return "ok", nuif_core.canonicalize(arguments["document"], limits=Limits.MCP).to_dict()
        result = nuif_core.apply_patch(
            arguments["document"], arguments["patch"], inverse=True, limits=Limits.MCP
        )
        return "ok", result.to_dict()
    except NuifError as err:
        return "error", str(err)


def _mcp(message: dict[str, Any]) -> tuple[str, Any]:
    result = message["result"]
    if result["isError"]:
        return "error", result["content"][0]["text"]
    return "ok", result["structuredContent"]


def _cases() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for doc in documents():
        cases.append(("validate", {"document": doc}))
        cases.append(("inspect", {"document": doc, "max_outline_nodes": 50}))
        cases.append(("canonicalize", {"document": doc}))
    for patch in patches():
        cases.append(("apply-patch", {"document": DOC, "patch": patch, "include_inverse": True}))
    return cases


def test_mcp_tools_and_direct_api_agree_on_text_hashes_and_error_codes():
    cases = _cases()
    ex = exchange(
        [line(call(i, name, arguments)) for i, (name, arguments) in enumerate(cases)], timeout=240
    )
    assert ex.returncode == 0
    by_id = ex.by_id()
    assert len(by_id) == len(cases)
    mismatches = []
    for i, (name, arguments) in enumerate(cases):
        if _mcp(by_id[i]) != _direct(name, arguments):
            mismatches.append(
                (name, arguments.get("document", "")[:80], _mcp(by_id[i]), _direct(name, arguments))
            )
    assert mismatches == []
    outcomes = {kind for kind, _ in (_mcp(by_id[i]) for i in range(len(cases)))}
    assert outcomes == {"ok", "error"}  # the corpus exercises both
