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
# Fixed in _patch._load_patch (now _patch_read.load_patch): patch text is read with the same slack; every carried value and
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


# -- F2, F3 (diff target, tightened limits): diff's patch passed through states beyond the limits -
#
# diff removes a dead subtree that still holds persisting nodes only at the end (after moving
# them out), and moves a persisting node into place together with the a-descendants it still
# carries (they move out later).  The final document is b, but an intermediate one could have
# more nodes than max_nodes (F2) or nest deeper than max_depth (F3), so applying the diff failed
# with NUIF_LIMIT_NODES / NUIF_DEPTH.  Fixed in _diff.diff: when cheap bounds do not rule it out,
# diff checks that its patch applies within the limits and otherwise falls back to the
# replace-the-root patch it already used for patches over the operation limits.


def _n(nid: str, *children: dict) -> dict:
    node: dict = {"id": nid, "kind": "k"}
    if children:
        node["children"] = list(children)
    return node


def _d(root: dict) -> str:
    return json.dumps({"nuif": 0, "root": root})


def _assert_diff_applies(a: str, b: str, limits: Limits | None = None) -> None:
    expected = canonicalize(b, limits=limits).canonical
    patch = diff(a, b, limits=limits)
    assert apply_patch(a, patch, limits=limits).canonical == expected


def test_diff_never_passes_through_more_nodes_than_the_node_limit() -> None:
    a = _d(_n("r", _n("dead", _n("p"))))
    b = _d(_n("r", _n("p"), _n("n1"), _n("n2")))
    _assert_diff_applies(a, b, Limits(max_nodes=4))


def test_diff_never_passes_through_a_deeper_document_than_the_depth_limit() -> None:
    a = _d(_n("r", _n("c", _n("d", _n("e", _n("f"))))))
    b = _d(_n("r", _n("g", _n("h", _n("c"))), _n("k", _n("m", _n("d", _n("e", _n("f")))))))
    _assert_diff_applies(a, b, Limits(max_depth=12))


def test_diff_between_deep_documents_applies_under_the_default_limits() -> None:
    def chain(prefix: str, n: int, leaf: dict | None = None) -> dict:
        node = leaf if leaf is not None else _n(f"{prefix}{n}")
        for i in range(n - 1, 0, -1):
            node = _n(f"{prefix}{i}", node)
        return node

    # a: r > c > d1 > ... > d55 ; b: r > g1 > ... > g10 > c  and  r > k > d1 > ... > d55
    a = _d(_n("r", _n("c", chain("d", 55))))
    b = _d(_n("r", chain("g", 10, _n("g10", _n("c"))), _n("k", chain("d", 55))))
    _assert_diff_applies(a, b)


def test_diff_keeps_the_minimal_patch_when_it_fits() -> None:
    a = _d(_n("r", _n("c", _n("d", _n("e", _n("f"))))))
    b = _d(_n("r", _n("g", _n("h", _n("c"))), _n("k", _n("m", _n("d", _n("e", _n("f")))))))
    ops = json.loads(diff(a, b))["transactions"][0]["ops"]
    assert [op["op"] for op in ops] == ["insert", "insert", "insert", "move", "insert", "move"]


# -- F4 (diff target): the F3 check made diff raise NUIF_NUMBER on two valid documents -----------
#
# When the cheap bounds did not hold, the check applied the patch to a scratch session, which
# re-reads the values it carries: a double in [2^53, 1e21) is written as an integer literal the
# strict reader refused before NUIF-0.1 (docs/canonical-json.md).  diff then raised instead of
# returning the patch it returned before.  Fixed: only NUIF_LIMIT_NODES / NUIF_DEPTH select the
# fallback (and since NUIF-0.1 such a literal reads back anyway).


def test_diff_of_deep_documents_with_a_big_integral_double_returns_its_patch() -> None:
    a = _d(_n("r"))
    deep_value = "[" * 120 + "]" * 120
    b = '{"nuif":0,"root":{"id":"r","kind":"k","attrs":{"deep":' + deep_value + ',"n":3e20}}}'
    patch = json.loads(diff(a, b))
    assert [op["op"] for op in patch["transactions"][0]["ops"]] == ["set", "set"]


# -- F5 (package target): pack wrote packages that read refuses ----------------------------------
#
# A valid document holding a double in [2^53, 1e21) (written 3e20) has a canonical text with
# the integer literal 300000000000000000000, which the strict reader refused before NUIF-0.1
# (NUIF_NUMBER).  pack stored that text, and read/verify then refused the package (NUIF_PACKAGE:
# document.json is not a valid NUIF document), against pack's promise that what it writes is read
# back with the same limits.  First fixed by refusing such a document in pack; since NUIF-0.1
# the literal reads back, so pack writes the package and read returns it.


def test_pack_writes_a_document_with_a_big_integral_double_that_read_returns() -> None:
    from nuif_core import package

    doc = '{"nuif":0,"root":{"id":"r","kind":"k","attrs":{"n":3e20}}}'
    assert canonicalize(doc).text.endswith('"n":300000000000000000000},"id":"r","kind":"k"}}')
    for n in ("3e20", "1e21", "9007199254740991", "3.5e15", "-9007199254740992", "2e20"):
        data = package.pack(doc.replace("3e20", n))
        assert package.read(data).document == canonicalize(doc.replace("3e20", n)).canonical
        assert package.verify(data).hash == canonicalize(doc.replace("3e20", n)).hash


# -- F6 (document target, tightened limits): validate reported more than max_diagnostics ---------
#
# The node limit is a fatal finding: the checker appended NUIF_LIMIT_NODES and stopped, without
# looking at the bound, so validate(max_diagnostics=1) could return two diagnostics with
# truncated=False.  Fixed in _document.Checker (now _schema.Checker): at the bound it stops with truncated=True, like
# every other diagnostic.


def test_validate_never_reports_more_than_max_diagnostics() -> None:
    doc = _d({"id": "r", "kind": "k", "attrs": {"é": 1}, "children": [_n("a", _n("b"))]})
    lim = Limits(max_nodes=2)
    report = nuif_core.validate(doc, max_diagnostics=1, limits=lim)
    assert [d.code for d in report.diagnostics] == ["NUIF_ATTR"] and report.truncated
    full = nuif_core.validate(doc, max_diagnostics=5, limits=lim)
    assert [d.code for d in full.diagnostics] == ["NUIF_ATTR", "NUIF_LIMIT_NODES"]
    assert not full.truncated
    with pytest.raises(NuifError) as info:
        canonicalize(doc, limits=lim)
    assert info.value.code == "NUIF_ATTR"


# -- F7 (diff target, tightened limits): diff returned a patch over the operation limits ---------
#
# When the minimal patch does not fit the cardinality limits, diff falls back to replacing the
# root plus one meta operation, without checking that this fits: with max_operations=1 (or one
# operation per transaction and one transaction) and a change in both root and meta, the patch
# it returned was refused by apply_patch with NUIF_LIMIT_OPERATIONS.  Fixed in _diff.diff: diff
# itself raises NUIF_LIMIT_OPERATIONS when no patch within the limits exists.


@pytest.mark.parametrize(
    "lim",
    [Limits(max_operations=1), Limits(max_operations_per_transaction=1, max_transactions=1)],
    ids=["one-operation", "one-transaction-of-one"],
)
def test_diff_refuses_when_no_patch_fits_the_operation_limits(lim: Limits) -> None:
    a = '{"nuif":0,"root":{"id":"r","kind":"k"},"meta":{"m":1}}'
    b = '{"nuif":0,"root":{"id":"r","kind":"x"},"meta":{"m":2}}'
    with pytest.raises(NuifError) as info:
        diff(a, b, limits=lim)
    assert info.value.code == "NUIF_LIMIT_OPERATIONS"
    # one change fits
    c = '{"nuif":0,"root":{"id":"r","kind":"x"},"meta":{"m":1}}'
    assert apply_patch(a, diff(a, c, limits=lim), limits=lim).canonical == canonicalize(c).canonical


# -- F8 (package target, ASan run, tightened limits): pack wrote a manifest read refuses ---------
#
# read caps document.json and manifest.json at min(max_asset_bytes, max_document_bytes); pack
# checked document.json against max_asset_bytes only and manifest.json not at all, so with a
# small max_asset_bytes (or a canonical text longer than its input, "1e21" -> "1e+21", at the
# document size limit) it wrote packages that read refused with NUIF_PACKAGE_LIMIT.  Fixed in
# package.pack: both entries are checked against the cap read applies.


def test_pack_refuses_a_manifest_larger_than_read_accepts() -> None:
    from nuif_core import package

    doc = '{"nuif":0,"root":{"id":"r","kind":"k"}}'
    lim = Limits(max_asset_bytes=72)  # the document fits, the 115-byte manifest does not
    with pytest.raises(NuifError) as info:
        package.pack(doc, limits=lim)
    assert info.value.code == "NUIF_PACKAGE_LIMIT" and "manifest.json" in info.value.message
    assert (
        package.read(
            package.pack(doc, limits=Limits(max_asset_bytes=115)),
            limits=Limits(max_asset_bytes=115),
        ).document
        == canonicalize(doc).canonical
    )


def test_pack_refuses_a_canonical_document_longer_than_the_document_limit() -> None:
    from nuif_core import package

    doc = '{"nuif":0,"root":{"id":"r","kind":"k","attrs":{"a":1e21,"b":1e21}}}'
    lim = Limits(max_document_bytes=len(doc))  # the input fits; "1e+21" twice does not
    assert len(canonicalize(doc, limits=lim).canonical) > len(doc)
    with pytest.raises(NuifError) as info:
        package.pack(doc, limits=lim)
    # refused by the read-back check of F5 (the canonical text passes the document limit)
    assert info.value.code == "NUIF_TOO_LARGE" and "cannot be read back" in info.value.message
