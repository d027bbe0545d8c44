"""Semantic diff (NUIF-0 §5): examples of each decision.  Properties: test_patch_properties.py."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import nuif_core
from nuif_core import Limits, apply_patch, diff

A: dict[str, Any] = {
    "nuif": 0,
    "root": {
        "id": "s",
        "kind": "screen",
        "attrs": {"title": "Hi", "n": 1},
        "children": [
            {"id": "a", "kind": "text", "attrs": {"v": 1}},
            {"id": "b", "kind": "text"},
            {
                "id": "g",
                "kind": "group",
                "children": [{"id": "g1", "kind": "text"}, {"id": "g2", "kind": "text"}],
            },
            {"id": "c", "kind": "text"},
        ],
    },
    "meta": {"author": "x", "deep": {"k": [1, 2], "z": True}},
}


def variant(change: Any) -> dict[str, Any]:
    b = copy.deepcopy(A)
    change(b)
    return b


def ops_of(a: dict[str, Any], b: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    """The diff's operations, after checking that it turns a into exactly b."""
    ta, tb = json.dumps(a), json.dumps(b)
    d = diff(ta, tb, **kw)
    assert apply_patch(ta, d, **kw).canonical == nuif_core.canonicalize(tb).canonical
    patch = json.loads(d)
    assert patch["base"] == nuif_core.document_hash(ta)
    return [op for tx in patch["transactions"] for op in tx["ops"]]


def kids(doc: dict[str, Any], *path: int) -> list[dict[str, Any]]:
    node = doc["root"]
    for i in path:
        node = node["children"][i]
    return node["children"]  # type: ignore[no-any-return]


def test_diff_of_a_document_with_itself_is_an_empty_transactions_list():
    text = json.dumps(A)
    d = diff(text, json.dumps(A, indent=2, sort_keys=True))
    assert (
        d
        == b'{"base":"'
        + nuif_core.document_hash(text).encode()
        + b'","nuif_patch":0,"transactions":[]}'
    )


def test_attribute_changes_are_set_and_unset_in_name_order():
    def change(b: dict[str, Any]) -> None:
        b["root"]["attrs"] = {"title": "Hello", "new": None}

    assert ops_of(A, variant(change)) == [
        {"op": "unset", "id": "s", "attr": "n"},
        {"op": "set", "id": "s", "attr": "new", "value": None},
        {"op": "set", "id": "s", "attr": "title", "value": "Hello"},
    ]


def test_true_replacing_1_is_a_change_and_1_0_replacing_1_is_not():
    assert ops_of(A, variant(lambda b: b["root"]["attrs"].update(n=True))) == [
        {"op": "set", "id": "s", "attr": "n", "value": True}
    ]
    assert ops_of(A, variant(lambda b: b["root"]["attrs"].update(n=1.0))) == []


def test_a_kind_change_is_a_retype():
    assert ops_of(A, variant(lambda b: kids(b)[1].update(kind="ui:label"))) == [
        {"op": "retype", "id": "b", "kind": "ui:label"}
    ]


def test_reordering_siblings_moves_only_what_left_the_longest_kept_order():
    def change(b: dict[str, Any]) -> None:
        k = kids(b)
        k.append(k.pop(0))  # a goes last: one move, not three

    assert ops_of(A, variant(change)) == [{"op": "move", "id": "a", "parent": "s", "index": 3}]


def test_a_node_moved_to_another_parent_keeps_its_id_and_content():
    def change(b: dict[str, Any]) -> None:
        a = kids(b).pop(0)
        kids(b, 1).insert(1, a)

    assert ops_of(A, variant(change)) == [{"op": "move", "id": "a", "parent": "g", "index": 1}]


def test_new_nodes_are_inserted_whole_and_removed_nodes_removed():
    def change(b: dict[str, Any]) -> None:
        kids(b).pop(1)
        kids(b).insert(0, {"id": "n", "kind": "box", "children": [{"id": "n1", "kind": "text"}]})

    assert ops_of(A, variant(change)) == [
        {"op": "remove", "id": "b"},
        {"op": "insert", "parent": "s", "index": 0,
         "node": {"id": "n", "kind": "box", "children": [{"id": "n1", "kind": "text"}]}},
    ]  # fmt: skip


def test_a_new_wrapper_around_persisting_nodes_is_a_shell_plus_moves():
    def change(b: dict[str, Any]) -> None:
        k = kids(b)
        a, bb = k.pop(0), k.pop(0)
        k.insert(0, {"id": "w", "kind": "box", "attrs": {"x": 1}, "children": [bb, a]})

    assert ops_of(A, variant(change)) == [
        {
            "op": "insert",
            "parent": "s",
            "index": 0,
            "node": {"id": "w", "kind": "box", "attrs": {"x": 1}},
        },
        {"op": "move", "id": "b", "parent": "w", "index": 0},
        {"op": "move", "id": "a", "parent": "w", "index": 1},
    ]


def test_a_removed_parent_gives_up_its_persisting_children_first():
    def change(b: dict[str, Any]) -> None:
        g = kids(b).pop(2)
        kids(b).append(g["children"][1])

    assert ops_of(A, variant(change)) == [
        {"op": "move", "id": "g2", "parent": "s", "index": 4},
        {"op": "remove", "id": "g"},
    ]


def test_a_renamed_node_is_a_different_node():
    ops = ops_of(A, variant(lambda b: kids(b)[3].update(id="c2")))
    assert [op["op"] for op in ops] == ["remove", "insert"]


def test_a_new_root_id_replaces_the_root():
    def change(b: dict[str, Any]) -> None:
        b["root"]["id"] = "s2"

    ops = ops_of(A, variant(change))
    assert [op["op"] for op in ops] == ["replace"]
    assert ops[0]["id"] == "s"


def test_meta_changes_are_one_meta_operation_with_json_patch_inside():
    def change(b: dict[str, Any]) -> None:
        b["meta"] = {"deep": {"k": [1, 2, 3], "z": True, "a/b": 1}, "rev~": 2}

    assert ops_of(A, variant(change)) == [
        {"op": "meta", "patch": [
            {"op": "remove", "path": "/author"},
            {"op": "add", "path": "/deep/a~1b", "value": 1},
            {"op": "replace", "path": "/deep/k", "value": [1, 2, 3]},
            {"op": "add", "path": "/rev~0", "value": 2},
        ]}
    ]  # fmt: skip


def test_meta_removed_entirely():
    def change(b: dict[str, Any]) -> None:
        del b["meta"]

    ops = ops_of(A, variant(change))
    assert ops == [{"op": "meta", "patch": [
        {"op": "remove", "path": "/author"}, {"op": "remove", "path": "/deep"}]}]  # fmt: skip


def test_operations_are_split_into_transactions_by_the_limit():
    def change(b: dict[str, Any]) -> None:
        for k in kids(b):
            k["attrs"] = {"q": 1}

    limits = Limits(max_operations_per_transaction=2)
    d = json.loads(diff(json.dumps(A), json.dumps(variant(change)), limits=limits))
    assert [len(tx["ops"]) for tx in d["transactions"]] == [2, 2, 1]
    assert ops_of(A, variant(change), limits=limits)


def test_a_diff_too_big_for_the_limits_falls_back_to_replacing_the_root():
    def change(b: dict[str, Any]) -> None:
        for k in kids(b):
            k["kind"] = "other"

    limits = Limits(max_operations=3)
    ops = ops_of(A, variant(change), limits=limits)
    assert ops == [{"op": "replace", "id": "s", "node": variant(change)["root"]}]


def _many_small_edits() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two documents whose minimal patch (one long `set` per node) outweighs the new root."""
    kinds = [{"id": f"n{i}", "kind": "item", "attrs": {"v": "x" * 20}} for i in range(30)]
    a = {"nuif": 0, "root": {"id": "r", "kind": "list", "children": kinds}}
    b = copy.deepcopy(a)
    for k in b["root"]["children"]:
        k["attrs"]["v"] = "y" * 20
        k["attrs"]["w"] = "z" * 20
    return a, b


def test_a_minimal_patch_over_the_patch_size_limit_falls_back_to_replacing_the_root():
    a, b = _many_small_edits()
    ta, tb = json.dumps(a), json.dumps(b)
    minimal = diff(ta, tb)
    replace = {"nuif_patch": 0, "base": nuif_core.document_hash(ta), "transactions": [
        {"ops": [{"op": "replace", "id": "r", "node": b["root"]}]}]}  # fmt: skip
    whole = nuif_core.canonical_json(json.dumps(replace))
    assert len(whole) < len(minimal)  # the premise: here the new root is the shorter patch
    limits = Limits(max_patch_bytes=len(whole))
    assert diff(ta, tb, limits=limits) == whole
    assert apply_patch(ta, whole, limits=limits).canonical == nuif_core.canonicalize(tb).canonical
    assert diff(ta, tb, limits=Limits(max_patch_bytes=len(minimal))) == minimal


def test_a_diff_that_no_patch_within_the_size_limit_expresses_is_refused():
    a, b = _many_small_edits()
    ta, tb = json.dumps(a), json.dumps(b)
    with pytest.raises(nuif_core.NuifError) as info:
        diff(ta, tb, limits=Limits(max_patch_bytes=200))
    assert info.value.code == "NUIF_TOO_LARGE"
    assert "patch limit is 200 bytes" in info.value.message
    # a limit equal to the patch text's length lets it through (the limit is inclusive)
    text = diff(ta, tb)
    assert diff(ta, tb, limits=Limits(max_patch_bytes=len(text))) == text


def test_diff_is_deterministic_and_ignores_formatting():
    def change(b: dict[str, Any]) -> None:
        kids(b).reverse()
        b["root"]["attrs"]["n"] = 2

    b = variant(change)
    one = diff(json.dumps(A), json.dumps(b))
    two = diff(json.dumps(A, indent=3, sort_keys=True), json.dumps(b, indent=1, ensure_ascii=True))
    assert one == two
    assert nuif_core.canonical_json(one) == one


def test_diff_rejects_an_invalid_document():
    with pytest.raises(nuif_core.NuifError) as info:
        diff(json.dumps(A), '{"nuif": 0}')
    assert info.value.code == "NUIF_SCHEMA"


def _chain_doc(root: dict[str, Any]) -> str:
    return json.dumps({"nuif": 0, "root": root})


def _n(nid: str, *children: dict[str, Any], **attrs: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"id": nid, "kind": "k"}
    if attrs:
        node["attrs"] = attrs
    if children:
        node["children"] = list(children)
    return node


def _chain(prefix: str, n: int, leaf: dict[str, Any] | None = None) -> dict[str, Any]:
    node = leaf if leaf is not None else _n(f"{prefix}{n}")
    for i in range(n - 1, 0, -1):
        node = _n(f"{prefix}{i}", node)
    return node


def test_a_minimal_patch_that_nests_too_deep_on_the_way_falls_back_with_a_big_integral_number():
    # c moves 10 levels down while it still carries d1 > ... > d55 (they move out after): the
    # minimal patch passes through a document deeper than 128 (fuzz finding F3), so the diff
    # falls back.  The new node k carries 3e20, whose canonical form (an integer literal) the
    # reader accepts since NUIF-0.1: the fallback applies and gives exactly b.
    a = _chain_doc(_n("r", _n("c", _chain("d", 55))))
    b = _chain_doc(_n("r", _chain("g", 10, _n("g10", _n("c"))), _n("k", _chain("d", 55), n=3e20)))
    ops = ops_of_text(a, b)
    assert [op["op"] for op in ops] == ["replace"]
    assert apply_patch(a, diff(a, b)).canonical == nuif_core.canonicalize(b).canonical
    # without the number, the same pair falls back for the depth too
    b_plain = b.replace("3e+20", "3")
    assert [op["op"] for op in ops_of(json.loads(a), json.loads(b_plain))] == ["replace"]


def ops_of_text(a: str, b: str) -> list[dict[str, Any]]:
    return [op for tx in json.loads(diff(a, b))["transactions"] for op in tx["ops"]]


def test_a_new_root_and_new_meta_are_two_operations_that_one_allowed_operation_refuses():
    b = variant(lambda d: (d["root"].update(id="s2"), d.update(meta={"author": "y"})))
    ta, tb = json.dumps(A), json.dumps(b)
    assert [op["op"] for op in ops_of(A, b)] == ["replace", "meta"]
    with pytest.raises(nuif_core.NuifError) as info:
        diff(ta, tb, limits=Limits(max_operations=1))
    assert info.value.code == "NUIF_LIMIT_OPERATIONS"
    assert "takes 2 operations; the limits allow 1" in info.value.message
    # either change alone fits in one operation
    new_root = variant(lambda d: d["root"].update(id="s2"))
    assert [op["op"] for op in ops_of(A, new_root, limits=Limits(max_operations=1))] == ["replace"]
