"""The four tools through the SDK's own ``mcp.Client`` over stdio, in ``auto`` and pinned modes.

One server process per mode runs every case (spawning a process per assertion would dominate the
run time); each test then asserts one behaviour on the recorded results.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from nuif_mcp_wire import DOC, DUPLICATE_ID_DOC, VERSION, server_command

import nuif_core

pytestmark = pytest.mark.timeout(180)

HAS_PATCH = hasattr(nuif_core, "apply_patch")
needs_patch = pytest.mark.skipif(
    not HAS_PATCH, reason="nuif_core.apply_patch is not in the core yet"
)

MiB = 1024 * 1024
CANONICAL = nuif_core.canonicalize(DOC).text
HASH = nuif_core.canonicalize(DOC).hash
BIG_OK = json.dumps(
    {"nuif": 0, "root": {"id": "r", "kind": "box"}, "meta": {"pad": ""}}, separators=(",", ":")
)
BIG_OK = BIG_OK.replace('"pad":""', '"pad":"' + "x" * (MiB - len(BIG_OK)) + '"')
assert len(BIG_OK.encode()) == MiB
BIG_TOO_LARGE = BIG_OK.replace('"pad":"', '"pad":"x', 1)
# 2-byte characters: 600,000 characters, 1.2 MB of UTF-8
BIG_UTF8 = BIG_OK[: -(MiB - 40)] + "é" * 600_000 + '"}}'

PATCH = json.dumps(
    {
        "nuif_patch": 0,
        "base": HASH,
        "transactions": [
            {
                "label": "t",
                "ops": [{"op": "set", "id": "login.submit", "attr": "primary", "value": True}],
            }
        ],
    }
)
BAD_BASE_PATCH = json.dumps({"nuif_patch": 0, "base": "sha256:" + "0" * 64, "transactions": []})
NOT_FOUND_PATCH = json.dumps(
    {"nuif_patch": 0, "transactions": [{"ops": [{"op": "remove", "id": "missing"}]}]}
)

CASES: dict[str, tuple[str, dict[str, Any] | None]] = {
    "validate-ok": ("validate", {"document": DOC}),
    "validate-invalid": ("validate", {"document": DUPLICATE_ID_DOC}),
    "validate-not-json": ("validate", {"document": '{"nuif": 0,'}),
    "validate-unknown-arg": ("validate", {"document": DOC, "path": "/etc/passwd"}),
    "validate-missing-arg": ("validate", {}),
    "validate-no-arguments": ("validate", None),
    "validate-wrong-type": ("validate", {"document": 12}),
    "validate-too-large": ("validate", {"document": BIG_TOO_LARGE}),
    "inspect-ok": ("inspect", {"document": DOC, "max_outline_nodes": 1}),
    "inspect-invalid": ("inspect", {"document": DUPLICATE_ID_DOC}),
    "inspect-string-int": ("inspect", {"document": DOC, "max_outline_nodes": "2"}),
    "inspect-bool-int": ("inspect", {"document": DOC, "max_outline_nodes": True}),
    "inspect-float-int": ("inspect", {"document": DOC, "max_outline_nodes": 2.5}),
    "inspect-negative": ("inspect", {"document": DOC, "max_outline_nodes": -1}),
    "canonicalize-ok": ("canonicalize", {"document": DOC}),
    "canonicalize-canonical": ("canonicalize", {"document": CANONICAL}),
    "canonicalize-parse": ("canonicalize", {"document": '{"nuif": 0, "root": }'}),
    "canonicalize-duplicate-id": ("canonicalize", {"document": DUPLICATE_ID_DOC}),
    "canonicalize-1MiB": ("canonicalize", {"document": BIG_OK}),
    "canonicalize-too-large": ("canonicalize", {"document": BIG_TOO_LARGE}),
    "canonicalize-too-large-utf8": ("canonicalize", {"document": BIG_UTF8}),
    "apply-patch-unknown-arg": ("apply-patch", {"document": DOC, "patch": PATCH, "dry_run": True}),
    "apply-patch-string-bool": (
        "apply-patch",
        {"document": DOC, "patch": PATCH, "include_inverse": "true"},
    ),
    "apply-patch-too-large-patch": ("apply-patch", {"document": DOC, "patch": BIG_TOO_LARGE}),
}
if HAS_PATCH:
    CASES |= {
        "apply-patch-ok": (
            "apply-patch",
            {"document": DOC, "patch": PATCH, "include_inverse": True},
        ),
        "apply-patch-no-inverse": ("apply-patch", {"document": DOC, "patch": PATCH}),
        "apply-patch-base-mismatch": ("apply-patch", {"document": DOC, "patch": BAD_BASE_PATCH}),
        "apply-patch-not-found": ("apply-patch", {"document": DOC, "patch": NOT_FOUND_PATCH}),
        "apply-patch-bad-patch": ("apply-patch", {"document": DOC, "patch": "[]"}),
    }


async def _run_all(mode: str) -> dict[str, Any]:
    cmd = server_command()
    params = StdioServerParameters(command=cmd[0], args=cmd[1:])
    out: dict[str, Any] = {}
    with anyio.fail_after(150):
        async with Client(params, mode=mode, read_timeout_seconds=60) as client:
            out["protocol_version"] = client.protocol_version
            out["tools"] = await client.list_tools()
            for key, (name, arguments) in CASES.items():
                out[key] = await client.call_tool(name, arguments)
    return out


@pytest.fixture(scope="module", params=["auto", VERSION])
def results(request: pytest.FixtureRequest) -> dict[str, Any]:
    return anyio.run(_run_all, request.param)


def ok(results: dict[str, Any], key: str) -> dict[str, Any]:
    res = results[key]
    assert res.is_error is False, res.content
    assert len(res.content) == 1 and res.content[0].type == "text"
    text = res.content[0].text
    assert json.loads(text) == res.structured_content
    assert text == json.dumps(res.structured_content, separators=(",", ":"), ensure_ascii=False)
    return res.structured_content


def failed(results: dict[str, Any], key: str) -> str:
    res = results[key]
    assert res.is_error is True
    assert res.structured_content is None
    assert len(res.content) == 1
    text = res.content[0].text
    assert "Traceback" not in text
    code = text.split(":", 1)[0]
    assert code in nuif_core.ERROR_CODES
    assert res.meta["dev.nuif/error"]["code"] == code
    return text


def test_client_negotiates_2026_07_28(results):
    assert results["protocol_version"] == VERSION


def test_client_lists_the_four_tools_with_output_schemas(results):
    tools = results["tools"].tools
    assert [t.name for t in tools] == ["validate", "inspect", "canonicalize", "apply-patch"]
    assert all(t.output_schema and t.annotations.read_only_hint for t in tools)


def test_validate_reports_a_valid_document_with_its_hash(results):
    assert ok(results, "validate-ok") == {
        "valid": True,
        "hash": HASH,
        "diagnostics": [],
        "truncated": False,
    }


def test_validate_reports_problems_as_a_successful_result(results):
    value = ok(results, "validate-invalid")
    assert value["valid"] is False and value["hash"] is None
    assert value == nuif_core.validate(DUPLICATE_ID_DOC, limits=nuif_core.Limits.MCP).to_dict()
    assert value["diagnostics"][0]["code"] == "NUIF_DUPLICATE_ID"


def test_validate_reports_a_syntax_error_with_line_and_column(results):
    diag = ok(results, "validate-not-json")["diagnostics"][0]
    assert diag["code"] == "NUIF_PARSE" and diag["line"] == 1 and diag["column"]


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("validate-unknown-arg", "unknown argument 'path'"),
        ("validate-missing-arg", "missing required argument 'document'"),
        ("validate-no-arguments", "missing required argument 'document'"),
        ("validate-wrong-type", "document"),
        ("inspect-string-int", "max_outline_nodes"),
        ("inspect-bool-int", "max_outline_nodes"),
        ("inspect-float-int", "max_outline_nodes"),
        ("inspect-negative", "max_outline_nodes"),
        ("apply-patch-unknown-arg", "unknown argument 'dry_run'"),
        ("apply-patch-string-bool", "include_inverse"),
    ],
)
def test_wrong_arguments_are_a_nuif_arguments_tool_error(results, key, fragment):
    text = failed(results, key)
    assert text.startswith("NUIF_ARGUMENTS: ") and fragment in text


@pytest.mark.parametrize(
    "key",
    [
        "validate-too-large",
        "canonicalize-too-large",
        "canonicalize-too-large-utf8",
        "apply-patch-too-large-patch",
    ],
)
def test_text_over_one_mib_is_nuif_too_large(results, key):
    assert failed(results, key).startswith("NUIF_TOO_LARGE: ")


def test_document_of_exactly_one_mib_is_accepted(results):
    assert ok(results, "canonicalize-1MiB")["canonical"] == nuif_core.canonicalize(BIG_OK).text


def test_inspect_summarizes_with_a_bounded_outline(results):
    value = ok(results, "inspect-ok")
    assert (
        value == nuif_core.inspect(DOC, max_outline_nodes=1, limits=nuif_core.Limits.MCP).to_dict()
    )
    assert value["node_count"] == 2 and value["outline"]["truncated"] is True
    assert len(value["outline"]["nodes"]) == 1 and value["is_canonical"] is False


def test_inspect_of_an_invalid_document_is_a_tool_error_with_the_core_message(results):
    text = failed(results, "inspect-invalid")
    with pytest.raises(nuif_core.NuifError) as info:
        nuif_core.inspect(DUPLICATE_ID_DOC, limits=nuif_core.Limits.MCP)
    assert text == str(info.value)
    assert text.startswith('NUIF_DUPLICATE_ID: id "a" is used twice')


def test_canonicalize_returns_canonical_text_hash_and_changed(results):
    assert ok(results, "canonicalize-ok") == {"canonical": CANONICAL, "hash": HASH, "changed": True}
    assert ok(results, "canonicalize-canonical") == {
        "canonical": CANONICAL,
        "hash": HASH,
        "changed": False,
    }


def test_canonicalize_syntax_error_names_line_and_column(results):
    text = failed(results, "canonicalize-parse")
    assert text.startswith("NUIF_PARSE: ") and "line 1 column" in text


def test_canonicalize_duplicate_id_error_has_pointer_and_position(results):
    text = failed(results, "canonicalize-duplicate-id")
    assert text.startswith("NUIF_DUPLICATE_ID: ") and "/root/children/0/id" in text
    error = results["canonicalize-duplicate-id"].meta["dev.nuif/error"]
    assert error["pointer"] == "/root/children/0/id" and error["line"] == 1


@needs_patch
def test_apply_patch_returns_the_new_document_and_its_inverse(results):
    value = ok(results, "apply-patch-ok")
    direct = nuif_core.apply_patch(DOC, PATCH, inverse=True, limits=nuif_core.Limits.MCP).to_dict()
    assert value == direct
    assert value["base"] == HASH and value["changed"] is True and value["inverse"]


@needs_patch
def test_apply_patch_without_inverse_returns_null_inverse(results):
    assert ok(results, "apply-patch-no-inverse")["inverse"] is None


@needs_patch
@pytest.mark.parametrize(
    ("key", "code"),
    [
        ("apply-patch-base-mismatch", "NUIF_PATCH_BASE_MISMATCH"),
        ("apply-patch-not-found", "NUIF_PATCH_NOT_FOUND"),
        ("apply-patch-bad-patch", "NUIF_PATCH_SCHEMA"),
    ],
)
def test_apply_patch_failures_carry_the_core_code(results, key, code):
    assert failed(results, key).startswith(code + ": ")
