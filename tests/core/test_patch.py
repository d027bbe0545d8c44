"""The semantic patch engine (NUIF-0 §5): every operation, every error code and its location."""

from __future__ import annotations

import json
from typing import Any

import pytest

import nuif_core
from nuif_core import Limits, NuifError, PatchCounts, PatchResult, Session, apply_patch

DOC: dict[str, Any] = {
    "nuif": 0,
    "root": {
        "id": "login",
        "kind": "screen",
        "attrs": {"title": "Sign in", "n": 1},
        "children": [
            {"id": "login.email", "kind": "input", "attrs": {"type": "email", "label": "Email"}},
            {
                "id": "login.form",
                "kind": "group",
                "children": [
                    {"id": "login.user", "kind": "input"},
                    {"id": "login.pass", "kind": "input", "attrs": {"type": "password"}},
                ],
            },
            {
                "id": "login.submit",
                "kind": "button",
                "attrs": {"label": "Sign in", "primary": True},
            },
        ],
    },
    "meta": {"author": "design-team"},
}
TEXT = json.dumps(DOC, indent=2)
CANONICAL = nuif_core.canonicalize(TEXT).canonical
BASE = nuif_core.document_hash(TEXT)


def patch(*ops: dict[str, Any], base: str | None = None, label: str | None = None) -> str:
    tx: dict[str, Any] = {"ops": list(ops)}
    if label is not None:
        tx["label"] = label
    p: dict[str, Any] = {"nuif_patch": 0, "transactions": [tx]}
    if base is not None:
        p["base"] = base
    return json.dumps(p)


def run(*ops: dict[str, Any], inverse: bool = True, doc: str = TEXT) -> PatchResult:
    result = apply_patch(doc, patch(*ops), inverse=inverse)
    if inverse:  # every successful patch in this file also proves its inverse
        assert result.inverse is not None
        back = apply_patch(result.canonical, result.inverse)
        assert back.canonical == nuif_core.canonicalize(doc).canonical
        assert back.hash == result.base
    return result


def tree(result: PatchResult | bytes) -> dict[str, Any]:
    data = result.canonical if isinstance(result, PatchResult) else result
    return json.loads(data)  # type: ignore[no-any-return]


def find(doc: dict[str, Any], node_id: str) -> dict[str, Any] | None:
    stack = [doc["root"]]
    while stack:
        n = stack.pop()
        if n["id"] == node_id:
            return n
        stack.extend(n.get("children", ()))
    return None


def fails(
    code: str, pointer: str, where: str, *ops: dict[str, Any], doc: str = TEXT, **kw: Any
) -> NuifError:
    """The patch fails with ``code`` at ``pointer`` and a message starting ``where``."""
    with pytest.raises(NuifError) as info:
        apply_patch(doc, patch(*ops), **kw)
    err = info.value
    assert err.code == code, err
    assert err.pointer == pointer, err
    assert err.message.startswith(where), err
    return err


# ---------------------------------------------------------------------------------------------
# results


def test_the_example_patch_of_the_spec_applies():
    result = run(
        {"op": "set", "id": "login.submit", "attr": "primary", "value": False},
        {
            "op": "insert",
            "parent": "login",
            "index": 1,
            "node": {"id": "login.password", "kind": "input", "attrs": {"type": "password"}},
        },
    )
    doc = tree(result)
    assert [c["id"] for c in doc["root"]["children"]] == [
        "login.email", "login.password", "login.form", "login.submit",
    ]  # fmt: skip
    assert find(doc, "login.submit")["attrs"]["primary"] is False
    assert result.base == BASE
    assert result.hash == nuif_core.document_hash(result.canonical)
    assert result.changed
    assert result.counts == PatchCounts(1, 2, nodes_inserted=1, attrs_set=1)


def test_result_to_dict_has_the_contract_shape():
    result = run({"op": "retype", "id": "login.submit", "kind": "link"})
    d = result.to_dict()
    assert list(d) == ["document", "hash", "base", "changed", "counts", "inverse"]
    assert d["document"] == result.text == result.canonical.decode()
    assert d["inverse"] == result.inverse.decode()
    assert d["counts"] == {
        "transactions": 1, "operations": 1, "nodes_inserted": 0, "nodes_removed": 0,
        "nodes_moved": 0, "attrs_set": 0, "attrs_unset": 0, "attrs_edited": 0,
    }  # fmt: skip
    assert apply_patch(TEXT, patch()).to_dict()["inverse"] is None


def test_empty_transactions_list_is_valid_and_changes_nothing():
    result = apply_patch(TEXT, json.dumps({"nuif_patch": 0, "transactions": []}), inverse=True)
    assert result.canonical == CANONICAL
    assert not result.changed
    assert result.counts == PatchCounts()
    assert json.loads(result.inverse) == {"nuif_patch": 0, "base": BASE, "transactions": []}


def test_changed_compares_with_the_canonical_input_not_the_input_text():
    # the input text is pretty-printed (not canonical); a test-only patch changes nothing
    result = run({"op": "test", "id": "login", "kind": "screen"})
    assert not result.changed
    assert result.hash == result.base == BASE


def test_documents_and_patches_are_accepted_as_str_or_bytes():
    p = patch({"op": "unset", "id": "login", "attr": "n"})
    a = apply_patch(TEXT, p)
    b = apply_patch(TEXT.encode(), p.encode())
    c = apply_patch(bytearray(TEXT.encode()), memoryview(p.encode()))
    assert a == b == c


def test_a_parsed_patch_mapping_is_accepted_and_not_mutated():
    p = json.loads(
        patch({"op": "insert", "parent": "login", "node": {"id": "x", "kind": "k", "attrs": {}}})
    )
    before = json.dumps(p)
    result = apply_patch(TEXT, p)
    assert find(tree(result), "x") == {"id": "x", "kind": "k"}  # empty attrs normalized away
    assert json.dumps(p) == before


def test_multiple_transactions_run_in_order_and_the_inverse_reverses_them():
    p = {
        "nuif_patch": 0,
        "base": BASE,
        "transactions": [
            {"label": "one", "ops": [{"op": "set", "id": "login", "attr": "title", "value": "A"}]},
            {"ops": [{"op": "set", "id": "login", "attr": "title", "value": "B"}]},
        ],
    }
    result = apply_patch(TEXT, json.dumps(p), inverse=True)
    assert tree(result)["root"]["attrs"]["title"] == "B"
    inverse = json.loads(result.inverse)
    assert inverse["base"] == result.hash
    assert inverse["transactions"] == [
        {"ops": [{"op": "set", "id": "login", "attr": "title", "value": "A"}]},
        {
            "label": "undo one",
            "ops": [{"op": "set", "id": "login", "attr": "title", "value": "Sign in"}],
        },
    ]
    assert apply_patch(result.canonical, result.inverse).canonical == CANONICAL


def test_inverse_is_canonical_text():
    result = run({"op": "remove", "id": "login.form"})
    assert nuif_core.canonical_json(result.inverse) == result.inverse


# ---------------------------------------------------------------------------------------------
# operations


def test_insert_appends_by_default_and_counts_every_node_of_the_subtree():
    node = {
        "id": "g",
        "kind": "group",
        "children": [{"id": "g.a", "kind": "x"}, {"id": "g.b", "kind": "x"}],
    }
    result = run({"op": "insert", "parent": "login.form", "node": node})
    assert [c["id"] for c in find(tree(result), "login.form")["children"]] == [
        "login.user",
        "login.pass",
        "g",
    ]
    assert result.counts.nodes_inserted == 3


def test_insert_under_a_leaf_creates_its_children():
    result = run(
        {"op": "insert", "parent": "login.user", "index": 0, "node": {"id": "leaf", "kind": "x"}}
    )
    assert find(tree(result), "login.user")["children"] == [{"id": "leaf", "kind": "x"}]


def test_remove_takes_the_subtree_and_the_last_child_leaves_no_empty_children():
    result = run(
        {"op": "remove", "id": "login.form"},
        {"op": "remove", "id": "login.email"},
        {"op": "remove", "id": "login.submit"},
    )
    assert "children" not in tree(result)["root"]
    assert result.counts.nodes_removed == 5


def test_move_counts_the_index_after_detaching():
    result = run({"op": "move", "id": "login.email", "parent": "login", "index": 2})
    assert [c["id"] for c in tree(result)["root"]["children"]] == [
        "login.form",
        "login.submit",
        "login.email",
    ]
    assert result.counts.nodes_moved == 1


def test_move_to_another_parent_and_back_to_the_same_place():
    result = run(
        {"op": "move", "id": "login.pass", "parent": "login", "index": 0},
        {"op": "move", "id": "login.user", "parent": "login.submit"},
    )
    doc = tree(result)
    assert [c["id"] for c in doc["root"]["children"]] == [
        "login.pass",
        "login.email",
        "login.form",
        "login.submit",
    ]
    assert "children" not in find(doc, "login.form")
    assert find(doc, "login.submit")["children"][0]["id"] == "login.user"
    same = run({"op": "move", "id": "login.form", "parent": "login", "index": 1})
    assert not same.changed


def test_replace_swaps_the_subtree_and_may_keep_the_old_id_or_reuse_ids_inside_it():
    node = {
        "id": "login.form",
        "kind": "stack",
        "children": [{"id": "login.pass", "kind": "secret"}],
    }
    result = run({"op": "replace", "id": "login.form", "node": node})
    assert find(tree(result), "login.form") == node
    assert find(tree(result), "login.user") is None
    assert result.counts.nodes_removed == 3
    assert result.counts.nodes_inserted == 2


def test_replace_the_root_with_a_new_id():
    result = run({"op": "replace", "id": "login", "node": {"id": "home", "kind": "screen"}})
    assert tree(result)["root"] == {"id": "home", "kind": "screen"}
    assert tree(result)["meta"] == {"author": "design-team"}


def test_set_creates_or_replaces_and_unset_removes_the_last_attribute():
    result = run(
        {"op": "set", "id": "login.user", "attr": "aria-label", "value": {"a": [1, None]}},
        {"op": "set", "id": "login.email", "attr": "label", "value": None},
        {"op": "unset", "id": "login.pass", "attr": "type"},
    )
    doc = tree(result)
    assert find(doc, "login.user")["attrs"] == {"aria-label": {"a": [1, None]}}
    assert find(doc, "login.email")["attrs"]["label"] is None  # null is a value
    assert "attrs" not in find(doc, "login.pass")
    assert (result.counts.attrs_set, result.counts.attrs_unset) == (2, 1)


def test_set_true_over_1_is_a_change():
    result = run({"op": "set", "id": "login", "attr": "n", "value": True})
    assert result.changed
    assert tree(result)["root"]["attrs"]["n"] is True
    same = run({"op": "set", "id": "login", "attr": "n", "value": 1.0})
    assert not same.changed


def test_edit_applies_json_patch_to_one_attribute():
    result = run(
        {"op": "set", "id": "login", "attr": "list", "value": [1, 2]},
        {
            "op": "edit",
            "id": "login",
            "attr": "list",
            "patch": [{"op": "add", "path": "/-", "value": 3}],
        },
    )
    assert tree(result)["root"]["attrs"]["list"] == [1, 2, 3]
    assert result.counts.attrs_edited == 1


def test_edit_can_replace_a_scalar_attribute_whole():
    result = run(
        {
            "op": "edit",
            "id": "login",
            "attr": "title",
            "patch": [{"op": "replace", "path": "", "value": {"en": "Hi"}}],
        }
    )
    assert tree(result)["root"]["attrs"]["title"] == {"en": "Hi"}


def test_retype_and_rename():
    result = run(
        {"op": "retype", "id": "login.submit", "kind": "ui:link"},
        {"op": "rename", "id": "login.submit", "to": "login.go"},
        {"op": "set", "id": "login.go", "attr": "x", "value": 1},
        {"op": "rename", "id": "login.form", "to": "login.form"},
    )
    doc = tree(result)
    assert find(doc, "login.submit") is None
    assert find(doc, "login.go")["kind"] == "ui:link"


def test_rename_of_a_parent_keeps_its_children_addressable():
    result = run(
        {"op": "rename", "id": "login.form", "to": "f"},
        {"op": "insert", "parent": "f", "node": {"id": "z", "kind": "x"}},
        {"op": "move", "id": "login.user", "parent": "login"},
        {"op": "remove", "id": "f"},
    )
    assert [c["id"] for c in tree(result)["root"]["children"]] == [
        "login.email",
        "login.submit",
        "login.user",
    ]


def test_rename_the_root():
    result = run(
        {"op": "rename", "id": "login", "to": "home"},
        {"op": "insert", "parent": "home", "node": {"id": "n", "kind": "x"}},
    )
    assert tree(result)["root"]["id"] == "home"


def test_meta_patches_meta_and_an_empty_meta_is_omitted():
    result = run({"op": "meta", "patch": [{"op": "add", "path": "/rev", "value": 2}]})
    assert tree(result)["meta"] == {"author": "design-team", "rev": 2}
    result = run({"op": "meta", "patch": [{"op": "remove", "path": "/author"}]})
    assert "meta" not in tree(result)


def test_meta_starts_from_an_empty_object_when_absent():
    doc = json.dumps({"nuif": 0, "root": {"id": "a", "kind": "x"}})
    result = run({"op": "meta", "patch": [{"op": "add", "path": "/k", "value": [1]}]}, doc=doc)
    assert tree(result)["meta"] == {"k": [1]}


def test_test_passes_with_kind_attribute_and_hash():
    node_hash = nuif_core.node_hash(TEXT, "login.email")
    result = run(
        {
            "op": "test",
            "id": "login.email",
            "kind": "input",
            "attr": "type",
            "value": "email",
            "hash": node_hash,
        },
        {"op": "test", "id": "login", "attr": "n", "value": 1.0},
    )
    assert not result.changed
    assert result.counts.operations == 2
    assert json.loads(result.inverse)["transactions"] == [{"ops": []}]


def test_operations_see_the_result_of_the_previous_one():
    result = run(
        {"op": "insert", "parent": "login", "node": {"id": "new", "kind": "x"}},
        {"op": "set", "id": "new", "attr": "a", "value": 1},
        {"op": "test", "id": "new", "attr": "a", "value": 1},
        {"op": "move", "id": "new", "parent": "login.form", "index": 0},
        {"op": "remove", "id": "new"},
    )
    assert find(tree(result), "new") is None


# ---------------------------------------------------------------------------------------------
# every NUIF_PATCH_* code, with its location


def test_patch_schema_top_level():
    for text, pointer in [
        ("[]", ""),
        ('{"nuif_patch": 0}', ""),
        ('{"transactions": []}', ""),
        ('{"nuif_patch": "0", "transactions": []}', "/nuif_patch"),
        ('{"nuif_patch": 0, "transactions": {}}', "/transactions"),
        ('{"nuif_patch": 0, "transactions": [], "extra": 1}', "/extra"),
        ('{"nuif_patch": 0, "transactions": [], "base": "abc"}', "/base"),
        ('{"nuif_patch": 0, "transactions": [1]}', "/transactions/0"),
        ('{"nuif_patch": 0, "transactions": [{}]}', "/transactions/0"),
        ('{"nuif_patch": 0, "transactions": [{"ops": {}}]}', "/transactions/0/ops"),
        ('{"nuif_patch": 0, "transactions": [{"ops": [], "x": 1}]}', "/transactions/0/x"),
        ('{"nuif_patch": 0, "transactions": [{"ops": [], "label": 5}]}', "/transactions/0/label"),
        (
            '{"nuif_patch": 0, "transactions": [{"ops": [], "label": "' + "x" * 257 + '"}]}',
            "/transactions/0/label",
        ),
    ]:
        with pytest.raises(NuifError) as info:
            apply_patch(TEXT, text)
        assert info.value.code == "NUIF_PATCH_SCHEMA", text
        assert info.value.pointer == pointer, text


def test_patch_version_other_than_0_is_nuif_version():
    with pytest.raises(NuifError) as info:
        apply_patch(TEXT, '{"nuif_patch": 1, "transactions": []}')
    assert (info.value.code, info.value.pointer) == ("NUIF_VERSION", "/nuif_patch")


@pytest.mark.parametrize(
    ("op", "pointer", "where"),
    [
        (5, "/transactions/0/ops/1", "transactions/0/ops/1: "),
        ({"id": "login"}, "/transactions/0/ops/1", "transactions/0/ops/1: "),
        ({"op": "explode", "id": "login"}, "/transactions/0/ops/1/op", "transactions/0/ops/1: "),
        ({"op": "remove"}, "/transactions/0/ops/1", "transactions/0/ops/1 (remove): "),
        (
            {"op": "remove", "id": "login.email", "index": 0},
            "/transactions/0/ops/1/index",
            "transactions/0/ops/1 (remove): ",
        ),
        ({"op": "remove", "id": 5}, "/transactions/0/ops/1/id", "transactions/0/ops/1 (remove): "),
        (
            {"op": "move", "id": "login.email", "parent": "login", "index": 1.5},
            "/transactions/0/ops/1/index",
            "transactions/0/ops/1 (move): ",
        ),
        (
            {"op": "move", "id": "login.email", "parent": "login", "index": True},
            "/transactions/0/ops/1/index",
            "transactions/0/ops/1 (move): ",
        ),
        ({"op": "test", "id": "login"}, "/transactions/0/ops/1", "transactions/0/ops/1 (test): "),
        (
            {"op": "test", "id": "login", "attr": "n"},
            "/transactions/0/ops/1",
            "transactions/0/ops/1 (test): ",
        ),
        (
            {"op": "edit", "id": "login", "attr": "n", "patch": {}},
            "/transactions/0/ops/1/patch",
            "transactions/0/ops/1 (edit): ",
        ),
        (
            {"op": "meta", "patch": [{"op": "add", "path": "/a"}]},
            "/transactions/0/ops/1/patch/0",
            "transactions/0/ops/1 (meta): ",
        ),
    ],
)
def test_patch_schema_operations(op, pointer, where):
    fails("NUIF_PATCH_SCHEMA", pointer, where, {"op": "test", "id": "login", "kind": "screen"}, op)


def test_shape_errors_are_reported_before_anything_runs():
    # op 0 would fail at run time (NOT_FOUND); op 1 is malformed: the shape error wins
    fails(
        "NUIF_PATCH_SCHEMA",
        "/transactions/0/ops/1",
        "transactions/0/ops/1 (set): ",
        {"op": "remove", "id": "nope"},
        {"op": "set", "id": "login"},
    )


def test_base_mismatch_is_checked_before_anything_else_runs():
    other = "sha256:" + "0" * 64
    with pytest.raises(NuifError) as info:
        # the operation is malformed too: the base is checked first
        apply_patch(TEXT, patch({"op": "set"}, base=other))
    assert info.value.code == "NUIF_PATCH_BASE_MISMATCH"
    assert info.value.pointer == "/base"
    assert BASE in info.value.message and other in info.value.message
    assert (
        apply_patch(TEXT, patch({"op": "test", "id": "login", "kind": "screen"}, base=BASE)).hash
        == BASE
    )


def test_not_found():
    fails(
        "NUIF_PATCH_NOT_FOUND",
        "/transactions/0/ops/0/id",
        "transactions/0/ops/0 (set): ",
        {"op": "set", "id": "nope", "attr": "a", "value": 1},
    )
    fails(
        "NUIF_PATCH_NOT_FOUND",
        "/transactions/0/ops/0/parent",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "nope", "node": {"id": "x", "kind": "x"}},
    )
    fails(
        "NUIF_PATCH_NOT_FOUND",
        "/transactions/0/ops/1/parent",
        "transactions/0/ops/1 (move): ",
        {"op": "test", "id": "login", "kind": "screen"},
        {"op": "move", "id": "login.email", "parent": "nope"},
    )
    for name, extra in [
        ("remove", {}),
        ("replace", {"node": {"id": "x", "kind": "x"}}),
        ("unset", {"attr": "a"}),
        ("edit", {"attr": "a", "patch": []}),
        ("retype", {"kind": "x"}),
        ("rename", {"to": "y"}),
        ("test", {"kind": "x"}),
    ]:
        fails(
            "NUIF_PATCH_NOT_FOUND",
            "/transactions/0/ops/0/id",
            f"transactions/0/ops/0 ({name}): ",
            {"op": name, "id": "nope", **extra},
        )


def test_not_found_after_an_earlier_operation_removed_the_node():
    p = {"nuif_patch": 0, "transactions": [
        {"ops": [{"op": "remove", "id": "login.form"}]},
        {"ops": [{"op": "retype", "id": "login.user", "kind": "x"}]},
    ]}  # fmt: skip
    with pytest.raises(NuifError) as info:
        apply_patch(TEXT, json.dumps(p))
    assert info.value.code == "NUIF_PATCH_NOT_FOUND"
    assert info.value.pointer == "/transactions/1/ops/0/id"
    assert info.value.message.startswith("transactions/1/ops/0 (retype): ")


def test_id_exists():
    fails(
        "NUIF_PATCH_ID_EXISTS",
        "/transactions/0/ops/0/node/children/0/id",
        "transactions/0/ops/0 (insert): ",
        {
            "op": "insert",
            "parent": "login",
            "node": {"id": "fresh", "kind": "x", "children": [{"id": "login.user", "kind": "x"}]},
        },
    )
    fails(
        "NUIF_PATCH_ID_EXISTS",
        "/transactions/0/ops/0/node/id",
        "transactions/0/ops/0 (replace): ",
        {"op": "replace", "id": "login.form", "node": {"id": "login.email", "kind": "x"}},
    )
    fails(
        "NUIF_PATCH_ID_EXISTS",
        "/transactions/0/ops/0/to",
        "transactions/0/ops/0 (rename): ",
        {"op": "rename", "id": "login.form", "to": "login.email"},
    )
    fails(
        "NUIF_PATCH_ID_EXISTS",
        "/transactions/0/ops/1/node/id",
        "transactions/0/ops/1 (insert): ",
        {"op": "insert", "parent": "login", "node": {"id": "n", "kind": "x"}},
        {"op": "insert", "parent": "login", "node": {"id": "n", "kind": "x"}},
    )


def test_duplicate_ids_inside_a_carried_node_break_the_document_rule():
    fails(
        "NUIF_DUPLICATE_ID",
        "/transactions/0/ops/0/node/children/0/id",
        "transactions/0/ops/0 (insert): ",
        {
            "op": "insert",
            "parent": "login",
            "node": {"id": "d", "kind": "x", "children": [{"id": "d", "kind": "x"}]},
        },
    )


def test_index():
    fails(
        "NUIF_PATCH_INDEX",
        "/transactions/0/ops/0/index",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "login", "index": 4, "node": {"id": "x", "kind": "x"}},
    )
    fails(
        "NUIF_PATCH_INDEX",
        "/transactions/0/ops/0/index",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "login", "index": -1, "node": {"id": "x", "kind": "x"}},
    )
    # three children; after detaching login.email two remain: 0..2 allowed, 3 is out of range
    fails(
        "NUIF_PATCH_INDEX",
        "/transactions/0/ops/0/index",
        "transactions/0/ops/0 (move): ",
        {"op": "move", "id": "login.email", "parent": "login", "index": 3},
    )
    assert run({"op": "insert", "parent": "login", "index": 3, "node": {"id": "x", "kind": "x"}})
    assert run({"op": "move", "id": "login.email", "parent": "login.user", "index": 0})


def test_root():
    fails(
        "NUIF_PATCH_ROOT",
        "/transactions/0/ops/0/id",
        "transactions/0/ops/0 (remove): ",
        {"op": "remove", "id": "login"},
    )
    fails(
        "NUIF_PATCH_ROOT",
        "/transactions/0/ops/0/id",
        "transactions/0/ops/0 (move): ",
        {"op": "move", "id": "login", "parent": "login.form"},
    )


def test_cycle():
    fails(
        "NUIF_PATCH_CYCLE",
        "/transactions/0/ops/0/parent",
        "transactions/0/ops/0 (move): ",
        {"op": "move", "id": "login.form", "parent": "login.form"},
    )
    fails(
        "NUIF_PATCH_CYCLE",
        "/transactions/0/ops/0/parent",
        "transactions/0/ops/0 (move): ",
        {"op": "move", "id": "login.form", "parent": "login.pass"},
    )


def test_attr_missing():
    fails(
        "NUIF_PATCH_ATTR_MISSING",
        "/transactions/0/ops/0/attr",
        "transactions/0/ops/0 (unset): ",
        {"op": "unset", "id": "login.email", "attr": "nope"},
    )
    fails(
        "NUIF_PATCH_ATTR_MISSING",
        "/transactions/0/ops/0/attr",
        "transactions/0/ops/0 (unset): ",
        {"op": "unset", "id": "login.user", "attr": "a"},
    )
    fails(
        "NUIF_PATCH_ATTR_MISSING",
        "/transactions/0/ops/0/attr",
        "transactions/0/ops/0 (edit): ",
        {"op": "edit", "id": "login.user", "attr": "a", "patch": []},
    )


def test_pointer():
    fails(
        "NUIF_PATCH_POINTER",
        "/transactions/0/ops/0/patch/0/path",
        "transactions/0/ops/0 (edit): ",
        {
            "op": "edit",
            "id": "login",
            "attr": "title",
            "patch": [{"op": "add", "path": "/x", "value": 1}],
        },
    )
    fails(
        "NUIF_PATCH_POINTER",
        "/transactions/0/ops/0/patch/1/path",
        "transactions/0/ops/0 (meta): ",
        {
            "op": "meta",
            "patch": [{"op": "add", "path": "/x", "value": 1}, {"op": "remove", "path": "/y"}],
        },
    )
    fails(
        "NUIF_PATCH_POINTER",
        "/transactions/0/ops/0/patch/0/path",
        "transactions/0/ops/0 (meta): ",
        {"op": "meta", "patch": [{"op": "add", "path": "x", "value": 1}]},
    )


def test_test_failed():
    fails(
        "NUIF_PATCH_TEST_FAILED",
        "/transactions/0/ops/0/kind",
        "transactions/0/ops/0 (test): ",
        {"op": "test", "id": "login", "kind": "page"},
    )
    fails(
        "NUIF_PATCH_TEST_FAILED",
        "/transactions/0/ops/0/value",
        "transactions/0/ops/0 (test): ",
        {"op": "test", "id": "login", "attr": "n", "value": True},
    )
    fails(
        "NUIF_PATCH_TEST_FAILED",
        "/transactions/0/ops/0/attr",
        "transactions/0/ops/0 (test): ",
        {"op": "test", "id": "login", "attr": "zzz", "value": None},
    )
    fails(
        "NUIF_PATCH_TEST_FAILED",
        "/transactions/0/ops/0/hash",
        "transactions/0/ops/0 (test): ",
        {"op": "test", "id": "login", "hash": BASE},
    )
    fails(
        "NUIF_PATCH_TEST_FAILED",
        "/transactions/0/ops/0/patch/0",
        "transactions/0/ops/0 (edit): ",
        {
            "op": "edit",
            "id": "login.submit",
            "attr": "primary",
            "patch": [{"op": "test", "path": "", "value": 1}],
        },
    )
    fails(
        "NUIF_PATCH_TEST_FAILED",
        "/transactions/0/ops/0/patch/0",
        "transactions/0/ops/0 (meta): ",
        {"op": "meta", "patch": [{"op": "test", "path": "/author", "value": "me"}]},
    )


def test_limit_transactions_is_checked_before_any_operation_is_read():
    limits = Limits(max_transactions=2)
    txs = [{"ops": [{"op": "remove", "id": "nope"}]}] + [{"ops": [{"op": "bad"}]}] * 2
    with pytest.raises(NuifError) as info:
        apply_patch(TEXT, json.dumps({"nuif_patch": 0, "transactions": txs}), limits=limits)
    assert (info.value.code, info.value.pointer) == ("NUIF_LIMIT_TRANSACTIONS", "/transactions")


def test_limit_operations_per_transaction():
    limits = Limits(max_operations_per_transaction=2)
    ops = [{"op": "bad"}] * 3
    with pytest.raises(NuifError) as info:
        apply_patch(TEXT, patch(*ops), limits=limits)
    assert (info.value.code, info.value.pointer) == ("NUIF_LIMIT_OPERATIONS", "/transactions/0/ops")
    assert info.value.message.startswith("transactions/0: ")


def test_limit_operations_per_patch():
    limits = Limits(max_operations=3)
    txs = [{"ops": [{"op": "remove", "id": "nope"}] * 2}] * 2
    with pytest.raises(NuifError) as info:
        apply_patch(TEXT, json.dumps({"nuif_patch": 0, "transactions": txs}), limits=limits)
    assert (info.value.code, info.value.pointer) == ("NUIF_LIMIT_OPERATIONS", "/transactions")


def test_default_limits_allow_1024_operations_per_transaction():
    ops = [{"op": "test", "id": "login", "kind": "screen"}] * 1024
    assert apply_patch(TEXT, patch(*ops)).counts.operations == 1024
    with pytest.raises(NuifError) as info:
        apply_patch(TEXT, patch(*ops, ops[0]))
    assert info.value.code == "NUIF_LIMIT_OPERATIONS"


def test_patch_text_size_limit():
    limits = Limits(max_patch_bytes=100)
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT, patch(*[{"op": "test", "id": "login", "kind": "screen"}] * 5), limits=limits
        )
    assert info.value.code == "NUIF_TOO_LARGE"
    assert "patch" in info.value.message


def test_patch_text_must_be_strict_json():
    for text, code in [
        ('{"nuif_patch": 0, "nuif_patch": 0, "transactions": []}', "NUIF_DUPLICATE_KEY"),
        ('{"nuif_patch": 0, "transactions": [],}', "NUIF_PARSE"),
        (
            '{"nuif_patch": 0, "transactions": [{"ops": [{"op": "set", "id": "login", "attr": "a", "value": 9007199254740993}]}]}',
            "NUIF_NUMBER",
        ),
    ]:
        with pytest.raises(NuifError) as info:
            apply_patch(TEXT, text)
        assert info.value.code == code


# ---------------------------------------------------------------------------------------------
# values and nodes carried in operations obey the document rules


def test_carried_values_obey_document_rules():
    fails(
        "NUIF_ATTR",
        "/transactions/0/ops/0/attr",
        "transactions/0/ops/0 (set): ",
        {"op": "set", "id": "login", "attr": "1bad", "value": 1},
    )
    fails(
        "NUIF_KIND",
        "/transactions/0/ops/0/kind",
        "transactions/0/ops/0 (retype): ",
        {"op": "retype", "id": "login", "kind": "Button"},
    )
    fails(
        "NUIF_ID",
        "/transactions/0/ops/0/to",
        "transactions/0/ops/0 (rename): ",
        {"op": "rename", "id": "login", "to": "-x"},
    )
    fails(
        "NUIF_ID",
        "/transactions/0/ops/0/node/id",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "login", "node": {"id": "a b", "kind": "x"}},
    )
    fails(
        "NUIF_KIND",
        "/transactions/0/ops/0/node/children/0/kind",
        "transactions/0/ops/0 (replace): ",
        {
            "op": "replace",
            "id": "login.form",
            "node": {"id": "f", "kind": "x", "children": [{"id": "g", "kind": "X"}]},
        },
    )
    fails(
        "NUIF_ATTR",
        "/transactions/0/ops/0/node/attrs/~1x",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "login", "node": {"id": "a", "kind": "x", "attrs": {"/x": 1}}},
    )
    fails(
        "NUIF_SCHEMA",
        "/transactions/0/ops/0/node/extra",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "login", "node": {"id": "a", "kind": "x", "extra": 1}},
    )
    fails(
        "NUIF_SCHEMA",
        "/transactions/0/ops/0/node",
        "transactions/0/ops/0 (insert): ",
        {"op": "insert", "parent": "login", "node": {"id": "a"}},
    )


def test_node_limit_applies_after_the_operation():
    limits = Limits(max_nodes=6)
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT,
            patch({"op": "insert", "parent": "login", "node": {"id": "a", "kind": "x"}}),
            limits=limits,
        )
    assert (info.value.code, info.value.pointer) == (
        "NUIF_LIMIT_NODES",
        "/transactions/0/ops/0/node",
    )
    ok = apply_patch(
        TEXT,
        patch(
            {"op": "remove", "id": "login.user"},
            {"op": "insert", "parent": "login", "node": {"id": "a", "kind": "x"}},
        ),
        limits=limits,
    )
    assert ok.changed


def test_depth_limit_applies_to_values_set_and_nodes_inserted():
    limits = Limits(max_depth=10)
    # login.user: tree depth 3, node object at JSON depth 6, its attrs at 7: values may nest 3
    ok = apply_patch(
        TEXT, patch({"op": "set", "id": "login.user", "attr": "a", "value": [[[1]]]}), limits=limits
    )
    assert ok.changed
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT,
            patch({"op": "set", "id": "login.user", "attr": "a", "value": [[[[1]]]]}),
            limits=limits,
        )
    assert (info.value.code, info.value.pointer) == ("NUIF_DEPTH", "/transactions/0/ops/0/value")
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT,
            patch(
                {
                    "op": "insert",
                    "parent": "login.user",
                    "node": {"id": "a", "kind": "x", "attrs": {"v": [[1]]}},
                }
            ),
            limits=limits,
        )
    assert (info.value.code, info.value.pointer) == ("NUIF_DEPTH", "/transactions/0/ops/0/node")
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT,
            patch(
                {"op": "move", "id": "login.email", "parent": "login.user"},
                {"op": "set", "id": "login.email", "attr": "v", "value": [[1]]},
            ),
            limits=limits,
        )
    assert (info.value.code, info.value.pointer) == ("NUIF_DEPTH", "/transactions/0/ops/1/value")
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT,
            patch(
                {"op": "set", "id": "login.email", "attr": "v", "value": [[1]]},
                {"op": "move", "id": "login.email", "parent": "login.user"},
            ),
            limits=limits,
        )
    assert (info.value.code, info.value.pointer) == ("NUIF_DEPTH", "/transactions/0/ops/1/parent")
    with pytest.raises(NuifError) as info:
        apply_patch(
            TEXT, patch({"op": "edit", "id": "login.user", "attr": "x", "patch": []}), limits=limits
        )
    assert info.value.code == "NUIF_PATCH_ATTR_MISSING"


# ---------------------------------------------------------------------------------------------
# Session


def test_session_applies_patches_one_after_another():
    s = Session(TEXT)
    assert s.base == s.hash == BASE
    assert len(s) == 6 and "login.user" in s and "nope" not in s
    r1 = s.apply(patch({"op": "set", "id": "login", "attr": "title", "value": "A"}, base=BASE))
    r2 = s.apply_transaction([{"op": "move", "id": "login.user", "parent": "login"}], label="flat")
    assert r2.base == r1.hash != BASE
    assert s.hash == r2.hash and s.canonical() == r2.canonical and s.text() == r2.text
    assert s.changed and s.base == BASE
    assert (s.parent("login.user"), s.index("login.user")) == ("login", 3)
    assert (s.parent("login"), s.index("login")) == (None, None)
    assert s.node("login.form") == {
        "id": "login.form",
        "kind": "group",
        "children": [{"id": "login.pass", "kind": "input", "attrs": {"type": "password"}}],
    }
    assert s.node_hash("login.pass") == nuif_core.node_hash(r2.canonical, "login.pass")
    with pytest.raises(NuifError) as info:
        s.node("nope")
    assert info.value.code == "NUIF_PATCH_NOT_FOUND"


def test_session_node_is_a_copy():
    s = Session(TEXT)
    s.node("login")["attrs"]["title"] = "changed"
    assert s.canonical() == CANONICAL


def test_session_rejects_a_stale_base():
    s = Session(TEXT)
    s.apply_transaction([{"op": "retype", "id": "login", "kind": "page"}])
    with pytest.raises(NuifError) as info:
        s.apply(patch({"op": "retype", "id": "login", "kind": "x"}, base=BASE))
    assert info.value.code == "NUIF_PATCH_BASE_MISMATCH"


def test_a_failing_patch_leaves_the_session_unchanged():
    s = Session(TEXT)
    s.apply_transaction([{"op": "set", "id": "login", "attr": "a", "value": 1}])
    before = s.canonical()
    bad = {"nuif_patch": 0, "transactions": [
        {"ops": [
            {"op": "insert", "parent": "login.form", "index": 0, "node": {"id": "n1", "kind": "x", "children": [{"id": "n2", "kind": "y"}]}},
            {"op": "remove", "id": "login.email"},
            {"op": "move", "id": "login.pass", "parent": "login.submit"},
            {"op": "replace", "id": "login.user", "node": {"id": "u", "kind": "x"}},
            {"op": "rename", "id": "login", "to": "root"},
            {"op": "set", "id": "root", "attr": "a", "value": 2},
            {"op": "unset", "id": "root", "attr": "title"},
            {"op": "edit", "id": "root", "attr": "n", "patch": [{"op": "replace", "path": "", "value": 9}]},
            {"op": "retype", "id": "n2", "kind": "z"},
            {"op": "meta", "patch": [{"op": "remove", "path": "/author"}]},
        ]},
        {"ops": [{"op": "remove", "id": "login.email"}]},  # already removed: fails
    ]}  # fmt: skip
    with pytest.raises(NuifError) as info:
        s.apply(bad)
    assert info.value.pointer == "/transactions/1/ops/0/id"
    assert s.canonical() == before
    assert s.hash == nuif_core.document_hash(before)
    # the index is intact: every id resolves to its place, removed and new ids are gone
    assert len(s) == 6 and "n1" not in s and "root" not in s and "u" not in s
    assert (s.parent("login.pass"), s.index("login.pass")) == ("login.form", 1)
    assert (s.parent("login.email"), s.index("login.email")) == ("login", 0)
    # and the same good operations now apply exactly as on a fresh session
    good = {"nuif_patch": 0, "transactions": bad["transactions"][:1]}
    fresh = Session(before)
    assert s.apply(good) == fresh.apply(good)


def test_apply_transaction_checks_python_values_strictly():
    s = Session(TEXT)
    with pytest.raises(NuifError) as info:
        s.apply_transaction([{"op": "set", "id": "login", "attr": "a", "value": float("nan")}])
    assert info.value.code == "NUIF_NUMBER"
    with pytest.raises(NuifError) as info:
        s.apply_transaction([{"op": "set", "id": "login", "attr": "a", "value": object()}])
    assert info.value.code == "NUIF_VALUE"
    with pytest.raises(NuifError) as info:
        s.apply_transaction([{"op": "set", "id": "login", "attr": "a", "value": "\ufdd0"}])
    assert info.value.code == "NUIF_UNICODE"
    assert s.canonical() == CANONICAL


def test_session_rejects_an_invalid_document():
    with pytest.raises(NuifError) as info:
        Session('{"nuif": 0, "root": {"id": "a"}}')
    assert info.value.code == "NUIF_SCHEMA"


def test_inputs_are_never_mutated():
    doc = bytearray(TEXT.encode())
    p = json.loads(
        patch(
            {
                "op": "insert",
                "parent": "login",
                "node": {"id": "x", "kind": "k", "attrs": {}, "children": []},
            },
            {
                "op": "edit",
                "id": "login",
                "attr": "title",
                "patch": [{"op": "add", "path": "", "value": {"a": []}}],
            },
            {
                "op": "edit",
                "id": "login",
                "attr": "title",
                "patch": [{"op": "add", "path": "/a/-", "value": 1}],
            },
        )
    )
    before = json.dumps(p)
    apply_patch(doc, p, inverse=True)
    assert bytes(doc) == TEXT.encode()
    assert json.dumps(p) == before
