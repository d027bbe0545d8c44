"""RFC 6902 / RFC 6901 conformance through the ``edit`` and ``meta`` operations.

The suite files are test fixtures, not NUIF input: they hold duplicate ``"op"`` members inside
disabled cases, so they are read with ``json.loads`` (lenient).  Every non-disabled case runs
through ``edit`` (the case document is an attribute value) and, when the case document is an
object, through ``meta`` (the case document is the ``meta`` object).
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from nuif_core import NuifError
from nuif_core._jsonpatch import apply_json_patch, parse_pointer, resolve_pointer
from nuif_core._values import json_equal

TESTDATA = Path(__file__).resolve().parents[1] / "data"
SUITE = TESTDATA / "json-patch-tests"
RFC6901 = TESTDATA / "rfc6901-examples" / "rfc6901-section5-6-examples.json"
PATCH_ERRORS = {"NUIF_PATCH_SCHEMA", "NUIF_PATCH_POINTER", "NUIF_PATCH_TEST_FAILED"}

#: cases whose input NUIF's strict I-JSON rules make illegal: (file, index) -> reason.
#: None today: no enabled case carries a big integer, a duplicate key or a noncharacter (the
#: duplicate "op" members sit in disabled cases); every case runs, which proves it.
EXCLUDED: dict[tuple[str, int], str] = {}


def _cases() -> list[Any]:
    out = []
    for name in ("tests.json", "spec_tests.json"):
        records = json.loads((SUITE / name).read_bytes())  # lenient on purpose, see module doc
        for k, case in enumerate(records):
            if case.get("disabled") or (name, k) in EXCLUDED:
                continue
            label = f"{name}:{k}:{case.get('comment', '')[:50]}"
            out.append(pytest.param(case, id=label))
    return out


CASES = _cases()


def _doc(attrs: dict[str, Any] | None = None, meta: Any = None) -> bytes:
    root: dict[str, Any] = {"id": "r", "kind": "box"}
    if attrs is not None:
        root["attrs"] = attrs
    doc: dict[str, Any] = {"nuif": 0, "root": root}
    if meta is not None:
        doc["meta"] = meta
    return json.dumps(doc).encode()


def _patch(op: dict[str, Any]) -> bytes:
    return json.dumps({"nuif_patch": 0, "transactions": [{"ops": [op]}]}).encode()


def test_the_suite_has_cases():
    assert len(CASES) > 100


@pytest.mark.parametrize("case", CASES)
def test_case_through_edit(case):
    # the case document is the value of attribute "v"; the case patch runs on it unchanged
    doc = _doc({"v": case["doc"]})
    patch = _patch({"op": "edit", "id": "r", "attr": "v", "patch": case["patch"]})
    if "expected" in case:
        result = nuif_core.apply_patch(doc, patch)
        value = json.loads(result.canonical)["root"]["attrs"]["v"]
        assert nuif_core.dumps(value) == nuif_core.dumps(case["expected"])
    else:
        with pytest.raises(NuifError) as info:
            nuif_core.apply_patch(doc, patch)
        assert info.value.code in PATCH_ERRORS
        assert info.value.pointer.startswith("/transactions/0/ops/0/patch")
        assert info.value.message.startswith("transactions/0/ops/0 (edit): ")


def test_edit_changes_only_the_named_attribute():
    doc = _doc({"v": ["foo", "sil"]})
    patch = _patch(
        {
            "op": "edit",
            "id": "r",
            "attr": "v",
            "patch": [{"op": "add", "path": "/1", "value": "bar"}],
        }
    )
    assert json.loads(nuif_core.apply_patch(doc, patch).canonical)["root"]["attrs"]["v"] == [
        "foo",
        "bar",
        "sil",
    ]


META_CASES = [
    p
    for p in CASES
    if isinstance(p.values[0]["doc"], dict)
    and ("error" in p.values[0] or isinstance(p.values[0]["expected"], dict))
]


@pytest.mark.parametrize("case", META_CASES)
def test_case_through_meta(case):
    # meta must stay an object (NUIF-0 §3): cases whose result is not an object are excluded
    # here and covered by test_meta_that_stops_being_an_object_is_a_schema_error
    doc = _doc(meta=case["doc"])
    patch = _patch({"op": "meta", "patch": case["patch"]})
    if "expected" in case:
        result = nuif_core.apply_patch(doc, patch)
        meta = json.loads(result.canonical).get("meta", {})
        assert nuif_core.dumps(meta) == nuif_core.dumps(case["expected"])
    else:
        with pytest.raises(NuifError) as info:
            nuif_core.apply_patch(doc, patch)
        assert info.value.code in PATCH_ERRORS
        assert info.value.pointer.startswith("/transactions/0/ops/0/patch")
        assert info.value.message.startswith("transactions/0/ops/0 (meta): ")


def test_meta_cases_are_a_large_share_of_the_suite():
    assert len(META_CASES) > 70


def test_meta_that_stops_being_an_object_is_a_schema_error():
    patch = _patch({"op": "meta", "patch": [{"op": "replace", "path": "", "value": []}]})
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(_doc(meta={"a": 1}), patch)
    assert info.value.code == "NUIF_SCHEMA"
    assert info.value.pointer == "/transactions/0/ops/0/patch"


# ---------------------------------------------------------------------------------------------
# specific error codes of the suite's error cases


@pytest.mark.parametrize(
    ("doc", "ops", "code", "pointer"),
    [
        (
            {"bar": [1, 2]},
            [{"op": "add", "path": "/bar/8", "value": 5}],
            "NUIF_PATCH_POINTER",
            "/0/path",
        ),
        (
            {"bar": [1, 2]},
            [{"op": "add", "path": "/bar/-1", "value": 5}],
            "NUIF_PATCH_POINTER",
            "/0/path",
        ),
        (["a"], [{"op": "test", "path": "/00", "value": "a"}], "NUIF_PATCH_POINTER", "/0/path"),
        (["a"], [{"op": "remove", "path": "/1e0"}], "NUIF_PATCH_POINTER", "/0/path"),
        ({}, [{"op": "add", "path": "foo", "value": 1}], "NUIF_PATCH_POINTER", "/0/path"),
        ({}, [{"op": "add", "path": "/a~2", "value": 1}], "NUIF_PATCH_POINTER", "/0/path"),
        ({"a": 1}, [{"op": "move", "from": "/b", "path": "/c"}], "NUIF_PATCH_POINTER", "/0/from"),
        (
            {"a": {}},
            [{"op": "move", "from": "/a", "path": "/a/b"}],
            "NUIF_PATCH_POINTER",
            "/0/path",
        ),
        ({"a": 1}, [{"op": "remove", "path": ""}], "NUIF_PATCH_POINTER", "/0/path"),
        ({"a": 1}, [{"op": "add", "path": "/a/b", "value": 1}], "NUIF_PATCH_POINTER", "/0/path"),
        ({}, [{"op": "add", "value": 1}], "NUIF_PATCH_SCHEMA", "/0"),
        ({}, [{"op": "add", "path": None, "value": 1}], "NUIF_PATCH_SCHEMA", "/0/path"),
        ({}, [{"op": "spam", "path": "/a"}], "NUIF_PATCH_SCHEMA", "/0/op"),
        ({}, [{"op": "copy", "path": "/a"}], "NUIF_PATCH_SCHEMA", "/0"),
        ({}, ["add"], "NUIF_PATCH_SCHEMA", "/0"),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": True}], "NUIF_PATCH_TEST_FAILED", "/0"),
        ({"a": "10"}, [{"op": "test", "path": "/a", "value": 10}], "NUIF_PATCH_TEST_FAILED", "/0"),
    ],
)
def test_json_patch_errors_have_nuif_codes_and_pointers(doc, ops, code, pointer):
    with pytest.raises(NuifError) as info:
        apply_json_patch(doc, ops)
    assert info.value.code == code
    assert info.value.pointer == pointer


def test_json_patch_error_inside_edit_points_into_the_nuif_patch():
    patch = _patch(
        {
            "op": "edit",
            "id": "r",
            "attr": "v",
            "patch": [
                {"op": "test", "path": "/a", "value": 1},
                {"op": "remove", "path": "/zzz"},
            ],
        }
    )
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(_doc({"v": {"a": 1}}), patch)
    assert info.value.code == "NUIF_PATCH_POINTER"
    assert info.value.pointer == "/transactions/0/ops/0/patch/1/path"
    assert info.value.message.startswith("transactions/0/ops/0 (edit): JSON Patch operation 1")


def test_json_patch_test_compares_canonical_forms():
    # true is not 1, 1 equals 1.0, member order does not matter
    assert apply_json_patch({"a": 1}, [{"op": "test", "path": "/a", "value": 1.0}]) == {"a": 1}
    assert apply_json_patch(
        {"a": {"x": [1, {"y": False}], "z": None}},
        [{"op": "test", "path": "/a", "value": {"z": None, "x": [1.0, {"y": False}]}}],
    )
    with pytest.raises(NuifError) as info:
        apply_json_patch({"a": 1}, [{"op": "test", "path": "/a", "value": True}])
    assert info.value.code == "NUIF_PATCH_TEST_FAILED"
    with pytest.raises(NuifError):
        apply_json_patch({"a": 0}, [{"op": "test", "path": "/a", "value": False}])
    with pytest.raises(NuifError):
        apply_json_patch({"a": None}, [{"op": "test", "path": "/a", "value": 0}])


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (True, 1, False),
        (False, 0, False),
        (1, 1.0, True),
        (0, -0.0, True),
        ([True], [1], False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ({"a": [1, 2]}, {"a": [2, 1]}, False),
        ("1", 1, False),
        (None, False, False),
        ({}, [], False),
    ],
)
def test_json_equal_is_canonical_equality(a, b, equal):
    assert json_equal(a, b) is equal
    assert json_equal(b, a) is equal
    assert (nuif_core.dumps(a) == nuif_core.dumps(b)) is equal


def test_apply_json_patch_never_mutates_its_inputs():
    doc = {"a": [1, 2], "b": {"c": 1}}
    ops = [
        {"op": "add", "path": "/a/-", "value": {"n": 1}},
        {"op": "remove", "path": "/b/c"},
        {"op": "add", "path": "/a/2/n", "value": 2},
    ]
    before_doc, before_ops = json.dumps(doc), json.dumps(ops)
    assert apply_json_patch(doc, ops) == {"a": [1, 2, {"n": 2}], "b": {}}
    assert json.dumps(doc) == before_doc
    assert json.dumps(ops) == before_ops


def test_copy_does_not_alias_its_source():
    out = apply_json_patch(
        {"a": {"x": 1}},
        [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "add", "path": "/b/x", "value": 2}],
    )
    assert out == {"a": {"x": 1}, "b": {"x": 2}}


# ---------------------------------------------------------------------------------------------
# RFC 6901


def _rfc6901() -> dict[str, Any]:
    return json.loads(RFC6901.read_bytes())  # type: ignore[no-any-return]


@pytest.mark.parametrize("example", _rfc6901()["section5_json_string"], ids=lambda e: e["pointer"])
def test_rfc6901_string_examples_resolve(example):
    data = _rfc6901()
    value = resolve_pointer(data["document"], example["pointer"])
    assert json_equal(value, example["expected"])


@pytest.mark.parametrize(
    "example", _rfc6901()["section6_uri_fragment"], ids=lambda e: e["fragment"]
)
def test_rfc6901_fragment_examples_resolve(example):
    data = _rfc6901()
    pointer = urllib.parse.unquote(example["fragment"][1:])
    assert json_equal(resolve_pointer(data["document"], pointer), example["expected"])


def test_rfc6901_examples_resolve_through_a_nuif_meta_test():
    # the same document as meta, every example as a JSON Patch test inside one meta operation
    data = _rfc6901()
    ops = [
        {"op": "test", "path": e["pointer"], "value": e["expected"]}
        for e in data["section5_json_string"]
    ]
    result = nuif_core.apply_patch(
        _doc(meta=data["document"]), _patch({"op": "meta", "patch": ops})
    )
    assert not result.changed


def test_pointer_unescapes_in_the_rfc_order():
    assert parse_pointer("/~01") == ["~1"]
    assert parse_pointer("/a~1b/~0") == ["a/b", "~"]
    assert parse_pointer("") == []
    assert parse_pointer("/") == [""]
    with pytest.raises(ValueError, match=r"""^JSON Pointer "a" must be empty or start with '/'$"""):
        parse_pointer("a")
    with pytest.raises(ValueError, match=r"""^JSON Pointer "/~" has '~' not followed by 0 or 1$"""):
        parse_pointer("/~")


def test_unresolvable_pointer_is_nuif_patch_pointer():
    with pytest.raises(NuifError) as info:
        resolve_pointer({"a": [1]}, "/a/1")
    assert info.value.code == "NUIF_PATCH_POINTER"
    with pytest.raises(NuifError) as info:
        resolve_pointer({"a": 1}, "/a/b")
    assert info.value.code == "NUIF_PATCH_POINTER"
