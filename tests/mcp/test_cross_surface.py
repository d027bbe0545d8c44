"""Cross-surface: for a corpus of documents and patches, valid and invalid, the MCP tools give the
same canonical text, hashes and error codes as the direct API (with ``Limits.MCP``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nuif_core
import pytest
from nuif_core import Limits, NuifError
from nuif_mcp_wire import DOC, DUPLICATE_ID_DOC, call, exchange, line

pytestmark = pytest.mark.timeout(300)

SHARED = (
    Path(__file__).resolve().parents[3] / "shared" / "testdata" / "JSONTestSuite" / "test_parsing"
)


def _documents() -> list[str]:
    docs = [
        DOC,
        DUPLICATE_ID_DOC,
        nuif_core.canonicalize(DOC).text,
        '{"nuif": 0, "root": {"id": "r", "kind": "screen", "attrs": {}, "children": []}, "meta": {}}',
        '{"nuif": 1, "root": {"id": "r", "kind": "screen"}}',
        '{"nuif": 0, "root": {"id": "bad id", "kind": "screen"}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "Screen"}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"9": 1}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"n": 1e400}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"n": 9007199254740993}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"a": 1, "a": 2}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"s": "\\ud800"}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"v": [1.0, -0, 1e21, 1e-7, "é\\u2028"]}}, "meta": {"z": 1, "a": null}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x"}, "extra": 1}',
        "[" * 200 + "]" * 200,
        "",
        "\ufeff{}",
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "children": ['
        + ",".join(f'{{"id": "c{i}", "kind": "k{i % 3}"}}' for i in range(300))
        + "]}}",
    ]
    if SHARED.is_dir():
        for path in sorted(SHARED.glob("*.json"))[::6]:
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue  # not representable as a JSON string argument
            if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
                continue
            docs.append(text)
    return docs


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
    for doc in _documents():
        cases.append(("validate", {"document": doc}))
        cases.append(("inspect", {"document": doc, "max_outline_nodes": 50}))
        cases.append(("canonicalize", {"document": doc}))
    if hasattr(nuif_core, "apply_patch"):
        base = nuif_core.canonicalize(DOC).hash
        patches = [
            {
                "nuif_patch": 0,
                "base": base,
                "transactions": [
                    {"ops": [{"op": "set", "id": "login", "attr": "title", "value": "Hi"}]}
                ],
            },
            {
                "nuif_patch": 0,
                "transactions": [
                    {
                        "ops": [
                            {
                                "op": "insert",
                                "parent": "login",
                                "index": 0,
                                "node": {"id": "n", "kind": "text"},
                            }
                        ]
                    }
                ],
            },
            {"nuif_patch": 0, "transactions": [{"ops": [{"op": "remove", "id": "login"}]}]},
            {"nuif_patch": 0, "transactions": [{"ops": [{"op": "remove", "id": "nope"}]}]},
            {"nuif_patch": 0, "base": "sha256:" + "1" * 64, "transactions": []},
            {"nuif_patch": 1, "transactions": []},
            {
                "nuif_patch": 0,
                "transactions": [
                    {"ops": [{"op": "move", "id": "login.submit", "parent": "login.submit"}]}
                ],
            },
        ]
        for patch in patches:
            cases.append(
                (
                    "apply-patch",
                    {"document": DOC, "patch": json.dumps(patch), "include_inverse": True},
                )
            )
        cases.append(("apply-patch", {"document": DOC, "patch": "{", "include_inverse": True}))
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
