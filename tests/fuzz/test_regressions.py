"""One test per fuzzing finding (docs/fuzzing.md, "Runs and findings").

Each test is the minimized reproducer of what a fuzz target reported, named after what broke.
Findings in code owned elsewhere that are not fixed yet are ``xfail(strict=True)`` with the
reason, so the test starts to fail (and must be un-marked) the day the bug is fixed.
"""

from __future__ import annotations

import json

import pytest

import nuif_core
from nuif_core import Limits, NuifError, Session, apply_patch, canonicalize, diff

# -- F1 (diff target): diff wrote patches that the patch reader refused with NUIF_DEPTH ---------
#
# A patch carries a value or a node a few levels below the document's own nesting
# (/transactions/i/ops/j/value sits 5 levels deep), so a document holding content within 5
# levels of max_depth produced a diff whose text was deeper than max_depth.  The engine already
# *wrote* its patches (diff, inverse) with a 16-level slack (_WRAP_DEPTH) but *read* patch text
# with max_depth only: NUIF-0 §5 "applying it to a yields exactly the canonical text of b" failed.
# Fixed in _patch._load_patch: patch text is read with the same slack; every carried value and
# node is still checked against max_depth where it lands (unchanged: see the tests below).


def _doc(attrs: str = "", children: str = "") -> str:
    members = ['"id":"r"', '"kind":"k"']
    if attrs:
        members.append(f'"attrs":{attrs}')
    if children:
        members.append(f'"children":[{children}]')
    return '{"nuif":0,"root":{' + ",".join(members) + "}}"


def _chain(levels: int) -> str:
    node = '{"id":"n0","kind":"k"}'
    for i in range(1, levels):
        node = f'{{"id":"n{i}","kind":"k","children":[{node}]}}'
    return node


A = _doc()
# a value nested 125 levels: the document is exactly 128 deep (document, root, attrs)
DEEP_VALUE = _doc(attrs='{"x":' + "[" * 125 + "]" * 125 + "}")
# 63 nested nodes under the root: the deepest node object sits at depth 2 * 64 = 128
DEEP_NODES = _doc(children=_chain(63))


@pytest.mark.parametrize("b", [DEEP_VALUE, DEEP_NODES], ids=["deep-value", "deep-subtree"])
def test_diff_to_a_document_nested_at_the_depth_limit_applies(b: str) -> None:
    expected = canonicalize(b).canonical
    patch = diff(A, b)
    assert apply_patch(A, patch).canonical == expected
    # the same through a Session, with the patch as a mapping
    session = Session(A)
    session.apply(json.loads(patch))
    assert session.canonical() == expected


@pytest.mark.parametrize("b", [DEEP_VALUE, DEEP_NODES], ids=["deep-value", "deep-subtree"])
def test_inverse_that_restores_content_at_the_depth_limit_applies(b: str) -> None:
    result = apply_patch(b, diff(b, A), inverse=True)
    assert apply_patch(result.canonical, result.inverse).canonical == canonicalize(b).canonical


def test_patch_content_is_still_held_to_the_document_depth_limit() -> None:
    too_deep = "[" * 126 + "]" * 126  # 3 + 126 = 129 levels once set on the root
    patch = {"nuif_patch": 0, "transactions": [{"ops": [
        {"op": "set", "id": "r", "attr": "x", "value": json.loads(too_deep)}]}]}  # fmt: skip
    with pytest.raises(NuifError) as info:
        apply_patch(A, json.dumps(patch))
    assert (info.value.code, info.value.pointer) == ("NUIF_DEPTH", "/transactions/0/ops/0/value")
    with pytest.raises(NuifError) as info:
        apply_patch(A, {"nuif_patch": 0, "transactions": [{"ops": [
            {"op": "insert", "parent": "r", "node": json.loads(_chain(64))}]}]})  # fmt: skip
    assert (info.value.code, info.value.pointer) == ("NUIF_DEPTH", "/transactions/0/ops/0/node")


def test_patch_text_nested_past_the_reading_slack_is_refused_while_parsing() -> None:
    lim = Limits(max_depth=20)
    deep = '{"nuif_patch":0,"transactions":[{"ops":[{"op":"set","id":"r","attr":"x","value":' + (
        "[" * 40 + "]" * 40 + "}]}]}"
    )
    with pytest.raises(NuifError) as info:
        apply_patch(A, deep, limits=lim)
    assert info.value.code == "NUIF_DEPTH" and info.value.line == 1


def test_documents_are_still_read_with_the_plain_depth_limit() -> None:
    with pytest.raises(NuifError) as info:
        nuif_core.canonicalize(_doc(attrs='{"x":' + "[" * 126 + "]" * 126 + "}"))
    assert info.value.code == "NUIF_DEPTH"
