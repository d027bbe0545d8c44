"""benchmarks/adversarial.py: the adversarial cases through a real ``nuif-mcp``.

The cases run here at 1/16 of their size (64 KiB documents, 256 operations; the copy-doubling
and past-the-limit cases keep theirs, their point is a limit of the server), each on a fresh
server subprocess, every wait bounded (``run_case``'s waits, the module's timeout mark).  They
assert the answers only — the answer's kind and code, that it is exactly what the direct API
gives for the same input, the document a successful result must be, and that the server then
serves the next request.  No time is asserted: wall-clock figures and the 2 s / 300 MB done-when
belong to the script's runs (benchmarks/README.md, "Adversarial inputs through nuif-mcp").

The invalid-id cases (``id-*``) run only in the script: the server's answer to them is being
changed and is tested with that change (tests/mcp).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

import nuif_core
from benchmarks import adversarial as adv
from nuif_core import Limits, NuifError, _patch_read

pytestmark = pytest.mark.timeout(600)

SIZES = adv.Sizes.at(1 / 16)
SERVED = [n for n in adv.BUILDERS if not n.startswith("id-")]
TOOL_CASES = [n for n in SERVED if n != "nested-100k-arrays"]


@functools.cache
def served(name: str) -> tuple[adv.Case, adv.Outcome, adv.Answer]:
    """Build the case at 1/16 and run it on a fresh server, once per test session."""
    (case,) = adv.build([name], SIZES)
    outcome, answer = adv.run_case(case, timeout=120)
    return case, outcome, answer


def direct(case: adv.Case) -> tuple[str, Any, Any]:
    """What ``nuif_core.apply_patch`` with the MCP limits gives for the case's arguments."""
    args = case.arguments
    assert args is not None
    try:
        r = nuif_core.apply_patch(
            args["document"],
            args["patch"],
            inverse=args.get("include_inverse", False),
            limits=Limits.MCP,
        )
    except NuifError as exc:
        return exc.code, exc.pointer, exc.message
    return "ok", r.to_dict(), None


@pytest.mark.parametrize("name", TOOL_CASES)
def test_each_case_gets_the_direct_api_answer_and_the_server_serves_the_next_request(name):
    case, outcome, answer = served(name)
    assert answer.id == adv.CASE_ID
    assert answer.label in case.expect, answer
    label, detail, message = direct(case)
    assert answer.label == label
    if label == "ok":
        assert answer.result == detail  # structuredContent is the API's to_dict(), byte for byte
        assert case.expect_document is not None
        assert answer.result["document"] == case.expect_document
    else:
        assert answer.pointer == detail and answer.message == message
    assert outcome.next_ok and outcome.late == []
    assert outcome.exit_code == 0
    assert outcome.peak_rss_bytes and outcome.idle_rss_bytes
    assert outcome.peak_rss_bytes >= outcome.idle_rss_bytes
    # judge() agrees: whatever it reports is about time or memory, never the answer
    assert all(f.endswith(" s > 2 s") or f.startswith("peak RSS") for f in outcome.failures)


@pytest.mark.parametrize(
    ("name", "around"),
    # what the document gains around the growing array: `"meta":{"a":…},` / `"a":…` in {}
    [("copy-doubling-meta", len('"meta":{"a":},')), ("copy-doubling-edit", len('"a":'))],
)
def test_copy_doubling_stops_at_the_copy_that_passes_the_size_limit(name, around):
    _, _, answer = served(name)
    assert answer.label == "NUIF_TOO_LARGE"
    # the step is the first copy whose value makes the document longer than 1 MiB
    base = len(adv.TINY) + around
    value: list[Any] = [0]
    for copies in range(1, 27):
        value = [*value, value]
        if base + len(json.dumps(value, separators=(",", ":"))) > Limits.MCP.max_document_bytes:
            step = copies
            break
    else:
        raise AssertionError("26 copies never pass 1 MiB")
    assert answer.pointer == f"/transactions/0/ops/0/patch/{step}"
    assert "the limit is 1048576 bytes" in (answer.message or "")


def test_a_result_past_the_document_limit_is_refused_at_the_set():
    case, outcome, answer = served("set-past-limit")
    assert case.arguments is not None
    assert len(case.arguments["document"]) > 0.9 * adv.MiB  # full size: the limit is the server's
    assert (answer.label, answer.pointer) == ("NUIF_TOO_LARGE", "/transactions/0/ops/0/value")
    assert outcome.next_ok


def test_a_line_nesting_100k_arrays_is_a_json_rpc_error_and_the_server_goes_on():
    case, outcome, answer = served("nested-100k-arrays")
    assert case.raw is not None and case.raw.count(b"[") == adv.NESTING
    nest = b"[" * adv.NESTING + b"]" * adv.NESTING
    # valid JSON: one balanced nest (too deep for Python's json) inside a valid request
    assert case.raw.count(nest) == 1
    msg = json.loads(case.raw.replace(nest, b"[]"))
    assert msg["params"]["arguments"]["document"] == [] and msg["id"] == 7
    assert answer.label in case.expect  # which code and message is the MCP engineer's change
    assert outcome.next_ok and outcome.late == [] and outcome.exit_code == 0


# ---------------------------------------------------------------------------------------------
# the inputs are what the script says they are


@pytest.mark.parametrize("name", TOOL_CASES)
def test_every_input_is_a_valid_document_and_patch_within_the_mcp_limits(name):
    (case,) = adv.build([name], SIZES)
    args = case.arguments
    assert args is not None and case.tool == "apply-patch"
    doc, patch = args["document"], args["patch"]
    assert nuif_core.validate(doc, limits=Limits.MCP).valid
    assert nuif_core.canonicalize(doc).canonical.decode() == doc  # sizes are canonical sizes
    assert len(patch.encode()) <= Limits.MCP.max_patch_bytes
    assert (
        _patch_read.read_patch(patch, limits=Limits.MCP, base=nuif_core.canonicalize(doc).hash)
        is not None
    )
    assert len(case.line()) <= adv.LINE_LIMIT


def test_at_full_size_the_documents_fill_the_limit_and_the_patches_use_every_operation():
    full = adv.Sizes.at(1)
    assert (full.document, full.ops, full.per_tx) == (adv.MiB, 4096, 1024)
    # reverse-widest-from-diff is left out: building it is a diff of two ~1 MiB documents
    for name in ["empty-meta-ops", "root-hash-tests", "moves-wide-parent", "subtree-down-and-back"]:
        (case,) = adv.build([name], full)
        assert case.arguments is not None
        doc, patch = case.arguments["document"], json.loads(case.arguments["patch"])
        assert adv.MiB - 128 < len(doc) <= adv.MiB, (name, len(doc))
        assert sum(len(t["ops"]) for t in patch["transactions"]) == 4096
        assert all(len(t["ops"]) <= 1024 for t in patch["transactions"])
        assert len(case.line()) <= adv.LINE_LIMIT


def test_the_widest_parent_uses_the_shortest_ids_and_no_two_are_equal():
    doc, ids = adv.wide_document(64 * 1024)
    assert len(set(ids)) == len(ids) and len(ids) > 2500
    assert [len(i) for i in ids] == sorted(len(i) for i in ids)
    assert not any(i.startswith("_") for i in ids)
    assert len(doc) > 64 * 1024 - 24  # one more child would not fit
    assert nuif_core.validate(doc, limits=Limits.MCP).valid


# ---------------------------------------------------------------------------------------------
# the script's own logic: classifying answers, judging the done-when, the command line


def _line(msg: dict[str, Any]) -> bytes:
    return json.dumps(msg).encode() + b"\n"


def test_classify_tells_results_tool_errors_rpc_errors_and_garbage_apart():
    ok = adv.classify(
        _line(
            {"jsonrpc": "2.0", "id": 1, "result": {"isError": False, "structuredContent": {"a": 1}}}
        )
    )
    assert (ok.label, ok.id, ok.result) == ("ok", 1, {"a": 1})
    tool_error = {
        "isError": True,
        "content": [{"type": "text", "text": "NUIF_TOO_LARGE: too big (at /x)"}],
        "_meta": {
            "dev.nuif/error": {"code": "NUIF_TOO_LARGE", "message": "too big", "pointer": "/x"}
        },
    }
    err = adv.classify(_line({"jsonrpc": "2.0", "id": 1, "result": tool_error}))
    assert (err.label, err.pointer, err.text()) == ("NUIF_TOO_LARGE", "/x", "NUIF_TOO_LARGE at /x")
    rpc = adv.classify(
        _line({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "m"}})
    )
    assert (rpc.label, rpc.id, rpc.text()) == ("rpc -32600", None, "rpc -32600 id=null")
    assert adv.classify(b"{oops\n").label == "not JSON-RPC"
    assert adv.classify(_line({"id": 1, "result": {}})).label == "not JSON-RPC"


def _case(**kw: Any) -> adv.Case:
    base: dict[str, Any] = {
        "name": "c",
        "klass": "k",
        "title": "t",
        "expect": ("ok",),
        "raw": b"{}\n",
    }
    return adv.Case(**{**base, **kw})


def test_judge_lists_each_way_a_case_misses_the_done_when():
    ok = adv.Answer("ok", id=1, result={"document": "D"})
    assert adv.judge(_case(expect_document="D"), ok, 0.5, 100_000_000, True) == []
    assert adv.judge(_case(expect_document="E"), ok, 0.5, 100_000_000, True) == [
        "the result is not the document the patch must give"
    ]
    assert adv.judge(_case(), ok, 2.5, 100_000_000, True) == ["2.50 s > 2 s"]
    assert adv.judge(_case(), ok, 0.5, 300_000_000, True) == ["peak RSS 300 MB ≥ 300 MB"]
    assert adv.judge(_case(), ok, 0.5, 1, False) == ["the next request was not served"]
    silent = adv.Answer("no answer (3 s)")
    assert adv.judge(_case(expect=("rpc -32600",), answer_id=None), silent, None, 1, True) == [
        "answer no answer (3 s), the issue accepts rpc -32600"
    ]
    wrong_id = adv.Answer("rpc -32600", id=5)
    assert adv.judge(_case(expect=("rpc -32600",), answer_id=None), wrong_id, 0.1, 1, True) == [
        "answer id 5, expected null"
    ]
    said = adv.Answer("rpc -32700", id=None, message="the line is not valid UTF-8 JSON")
    assert adv.judge(
        _case(expect=("rpc -32700",), answer_id=adv.ANY_ID, forbid="UTF-8"), said, 0.1, 1, True
    ) == ["message says 'UTF-8': the line is not valid UTF-8 JSON"]


def test_case_selection_by_name_and_pattern():
    assert adv.select(None) == list(adv.BUILDERS)
    assert adv.select("copy-*, set-past-limit") == [
        "copy-doubling-meta",
        "copy-doubling-edit",
        "set-past-limit",
    ]
    with pytest.raises(SystemExit, match="no case matches nope"):
        adv.select("copy-*,nope")
    with pytest.raises(ValueError, match=r"^scale must be in \(0, 1\]$"):
        adv.Sizes.at(0)


def test_the_command_writes_json_whose_verdicts_match_its_exit_status(tmp_path, capsys):
    out = tmp_path / "adv.json"
    status = adv.main(["--cases", "copy-doubling-meta,set-past-limit", "--json", str(out)])
    data = json.loads(out.read_text())
    rows = data["outcomes"]
    assert [r["case"] for r in rows] == ["copy-doubling-meta", "set-past-limit"]
    assert all(r["answer_detail"]["label"] == "NUIF_TOO_LARGE" and r["next_ok"] for r in rows)
    assert all(r["wall_s"] is not None and r["peak_rss_bytes"] > 0 for r in rows)
    assert status == (0 if all(r["met"] for r in rows) else 1)
    assert data["sizes"]["document"] == adv.MiB and data["limits"]["wall_s"] == 2.0
    printed = capsys.readouterr().out
    assert "copy-doubling-meta" in printed and "cases meet their bound" in printed
