"""NUIF documents (§3): validation with every diagnostic, normalization, hashes, inspection."""

from __future__ import annotations

import hashlib
import json

import pytest

import nuif_core
from nuif_core import Limits, NuifError

EXAMPLE = """{
  "nuif": 0,
  "root": {
    "id": "login",
    "kind": "screen",
    "attrs": {"title": "Sign in"},
    "children": [
      {"id": "login.email", "kind": "input", "attrs": {"type": "email", "label": "Email"}},
      {"id": "login.submit", "kind": "button", "attrs": {"label": "Sign in", "primary": true}}
    ]
  },
  "meta": {"author": "design-team"}
}"""

CANONICAL = (
    b'{"meta":{"author":"design-team"},"nuif":0,"root":{"attrs":{"title":"Sign in"},'
    b'"children":[{"attrs":{"label":"Email","type":"email"},"id":"login.email","kind":"input"},'
    b'{"attrs":{"label":"Sign in","primary":true},"id":"login.submit","kind":"button"}],'
    b'"id":"login","kind":"screen"}}'
)


def test_spec_example_canonicalizes_and_hashes() -> None:
    result = nuif_core.canonicalize(EXAMPLE)
    assert result.canonical == CANONICAL
    assert result.text == CANONICAL.decode()
    assert result.hash == "sha256:" + hashlib.sha256(CANONICAL).hexdigest()
    assert result.changed is True
    again = nuif_core.canonicalize(CANONICAL)
    assert (again.canonical, again.hash, again.changed) == (CANONICAL, result.hash, False)
    assert nuif_core.is_canonical(CANONICAL) and not nuif_core.is_canonical(EXAMPLE)
    assert nuif_core.document_hash(EXAMPLE) == result.hash
    assert result.to_dict() == {
        "canonical": CANONICAL.decode(),
        "hash": result.hash,
        "changed": True,
    }


def test_str_and_bytes_inputs_agree() -> None:
    assert nuif_core.canonicalize(EXAMPLE).hash == nuif_core.canonicalize(EXAMPLE.encode()).hash
    assert nuif_core.canonicalize(bytearray(EXAMPLE.encode())).hash == nuif_core.document_hash(
        EXAMPLE
    )


def test_normalization_drops_empty_attrs_children_and_meta_only() -> None:
    text = '{"nuif":0,"meta":{},"root":{"id":"r","kind":"k","attrs":{},"children":[{"id":"c","kind":"k","attrs":{"n":null,"e":"","o":{},"a":[]},"children":[]}]}}'
    assert nuif_core.canonicalize(text).canonical == (
        b'{"nuif":0,"root":{"children":[{"attrs":{"a":[],"e":"","n":null,"o":{}},"id":"c","kind":"k"}],"id":"r","kind":"k"}}'
    )


def test_normalization_keeps_strings_unnormalized() -> None:
    composed, decomposed = "\u00e9", "e\u0301"
    a = nuif_core.canonicalize(
        json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"t": composed}}})
    )
    b = nuif_core.canonicalize(
        json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"t": decomposed}}})
    )
    assert a.hash != b.hash


def test_number_one_and_one_point_zero_are_the_same_meaning() -> None:
    a = nuif_core.canonicalize('{"nuif":0,"root":{"id":"r","kind":"k","attrs":{"n":1}}}')
    b = nuif_core.canonicalize('{"nuif":0.0,"root":{"id":"r","kind":"k","attrs":{"n":1.0}}}')
    assert a.hash == b.hash


def test_valid_document_reports_hash_and_no_diagnostics() -> None:
    report = nuif_core.validate(EXAMPLE)
    assert report.valid and bool(report)
    assert report.hash == nuif_core.document_hash(EXAMPLE)
    assert report.diagnostics == () and report.truncated is False
    assert report.to_dict() == {
        "valid": True,
        "hash": report.hash,
        "diagnostics": [],
        "truncated": False,
    }


BROKEN = """{
  "nuif": 0,
  "extra": true,
  "root": {
    "id": "login",
    "kind": "Screen",
    "attrs": {"9lives": 1, "ok": 2},
    "children": [
      {"id": "login", "kind": "input"},
      {"kind": "button", "colour": "red"},
      {"id": "bad id", "kind": "x", "children": {}},
      "not a node"
    ]
  },
  "meta": []
}"""


def test_every_schema_diagnostic_is_reported_in_document_order_with_locations() -> None:
    report = nuif_core.validate(BROKEN)
    assert not report.valid and report.hash is None
    got = [(d.code, d.pointer, d.line, d.column) for d in report.diagnostics]
    assert got == [
        ("NUIF_SCHEMA", "/extra", 3, 3),
        ("NUIF_KIND", "/root/kind", 6, 13),
        ("NUIF_ATTR", "/root/attrs/9lives", 7, 15),
        ("NUIF_DUPLICATE_ID", "/root/children/0/id", 9, 14),
        ("NUIF_SCHEMA", "/root/children/1", 10, 7),
        ("NUIF_SCHEMA", "/root/children/1/colour", 10, 26),
        ("NUIF_ID", "/root/children/2/id", 11, 14),
        ("NUIF_SCHEMA", "/root/children/2/children", 11, 49),
        ("NUIF_SCHEMA", "/root/children/3", 12, 7),
        ("NUIF_SCHEMA", "/meta", 15, 11),
    ]
    dup = report.diagnostics[3]
    assert dup.message == 'id "login" is used twice (first at /root/id)'
    assert str(dup) == (
        'NUIF_DUPLICATE_ID: id "login" is used twice (first at /root/id) '
        "(at /root/children/0/id, line 9 column 14)"
    )
    assert 'no "id"' in report.diagnostics[4].message


def test_diagnostics_are_bounded() -> None:
    children = ",".join(f'{{"id":"c{i}","kind":"BAD"}}' for i in range(300))
    text = f'{{"nuif":0,"root":{{"id":"r","kind":"k","children":[{children}]}}}}'
    report = nuif_core.validate(text)
    assert len(report.diagnostics) == 100 and report.truncated
    assert {d.code for d in report.diagnostics} == {"NUIF_KIND"}
    small = nuif_core.validate(text, max_diagnostics=3)
    assert [d.pointer for d in small.diagnostics] == [f"/root/children/{i}/kind" for i in range(3)]
    with pytest.raises(ValueError, match=r"^max_diagnostics must be at least 1$"):
        nuif_core.validate(text, max_diagnostics=0)


def test_text_error_is_the_only_diagnostic() -> None:
    report = nuif_core.validate('{"nuif": 0, "root": {"id": "a", "kind": "k",}}')
    assert [(d.code, d.line, d.column) for d in report.diagnostics] == [("NUIF_PARSE", 1, 45)]


@pytest.mark.parametrize(
    ("text", "code", "pointer"),
    [
        ("[]", "NUIF_SCHEMA", ""),
        ('{"root":{"id":"a","kind":"k"}}', "NUIF_SCHEMA", ""),
        ('{"nuif":"0","root":{"id":"a","kind":"k"}}', "NUIF_SCHEMA", "/nuif"),
        ('{"nuif":1,"root":{"id":"a","kind":"k"}}', "NUIF_VERSION", "/nuif"),
        ('{"nuif":true,"root":{"id":"a","kind":"k"}}', "NUIF_SCHEMA", "/nuif"),
        ('{"nuif":0}', "NUIF_SCHEMA", ""),
        ('{"nuif":0,"root":[]}', "NUIF_SCHEMA", "/root"),
        ('{"nuif":0,"root":{"id":"a"}}', "NUIF_SCHEMA", "/root"),
        ('{"nuif":0,"root":{"id":7,"kind":"k"}}', "NUIF_SCHEMA", "/root/id"),
        ('{"nuif":0,"root":{"id":"a","kind":null}}', "NUIF_SCHEMA", "/root/kind"),
        ('{"nuif":0,"root":{"id":"a","kind":"k","attrs":[]}}', "NUIF_SCHEMA", "/root/attrs"),
        ('{"nuif":0,"root":{"id":"","kind":"k"}}', "NUIF_ID", "/root/id"),
        ('{"nuif":0,"root":{"id":"' + "a" * 129 + '","kind":"k"}}', "NUIF_ID", "/root/id"),
        ('{"nuif":0,"root":{"id":"é","kind":"k"}}', "NUIF_ID", "/root/id"),
        ('{"nuif":0,"root":{"id":".a","kind":"k"}}', "NUIF_ID", "/root/id"),
        ('{"nuif":0,"root":{"id":"a","kind":"ui:"}}', "NUIF_KIND", "/root/kind"),
        ('{"nuif":0,"root":{"id":"a","kind":"' + "k" * 65 + '"}}', "NUIF_KIND", "/root/kind"),
        (
            '{"nuif":0,"root":{"id":"a","kind":"k","attrs":{"a b":1}}}',
            "NUIF_ATTR",
            "/root/attrs/a b",
        ),
        ('{"nuif":0,"root":{"id":"a","kind":"k","attrs":{"":1}}}', "NUIF_ATTR", "/root/attrs/"),
        (
            '{"nuif":0,"root":{"id":"a","kind":"k","attrs":{"a/b":1}}}',
            "NUIF_ATTR",
            "/root/attrs/a~1b",
        ),
        (
            '{"nuif":0,"root":{"id":"a","kind":"k","children":[{"id":"a","kind":"k"}]}}',
            "NUIF_DUPLICATE_ID",
            "/root/children/0/id",
        ),
    ],
)
def test_each_schema_rule_has_its_code_and_pointer(text: str, code: str, pointer: str) -> None:
    report = nuif_core.validate(text)
    assert not report.valid
    first = report.diagnostics[0]
    assert (first.code, first.pointer) == (code, pointer)
    assert first.line == 1 and first.column is not None
    with pytest.raises(NuifError) as info:
        nuif_core.canonicalize(text)
    assert (info.value.code, info.value.pointer) == (code, pointer)


@pytest.mark.parametrize(
    "good",
    ["a", "A_9", "_x", "9", "login.submit", "a:b-c.d", "x" * 128],
)
def test_ids_that_match_the_rule_are_accepted(good: str) -> None:
    assert nuif_core.validate(json.dumps({"nuif": 0, "root": {"id": good, "kind": "k"}})).valid


@pytest.mark.parametrize("good", ["button", "ui:button", "acme.cards/header", "a-1", "k" * 64])
def test_kinds_that_match_the_rule_are_accepted(good: str) -> None:
    assert nuif_core.validate(json.dumps({"nuif": 0, "root": {"id": "a", "kind": good}})).valid


@pytest.mark.parametrize("good", ["label", "aria-label", "on:click", "$x", "@y", "_", "a.b"])
def test_attribute_names_that_match_the_rule_are_accepted(good: str) -> None:
    text = json.dumps({"nuif": 0, "root": {"id": "a", "kind": "k", "attrs": {good: None}}})
    assert nuif_core.validate(text).valid


def test_version_error_stops_validation() -> None:
    report = nuif_core.validate('{"nuif": 2, "root": 5, "x": 1}')
    assert [d.code for d in report.diagnostics] == ["NUIF_VERSION"]


def test_inspect_summarizes_the_document() -> None:
    info = nuif_core.inspect(EXAMPLE)
    assert info.hash == nuif_core.document_hash(EXAMPLE)
    assert (info.is_canonical, info.input_bytes, info.canonical_bytes) == (
        False,
        len(EXAMPLE.encode()),
        len(CANONICAL),
    )
    assert (info.node_count, info.max_depth) == (3, 2)
    assert info.kinds == {"button": 1, "input": 1, "screen": 1}
    assert (info.root.id, info.root.kind) == ("login", "screen")
    assert [(e.id, e.depth, e.children) for e in info.outline] == [
        ("login", 1, 2),
        ("login.email", 2, 0),
        ("login.submit", 2, 0),
    ]
    assert info.truncated is False
    d = info.to_dict()
    assert d["outline"]["nodes"][0] == {"id": "login", "kind": "screen", "depth": 1, "children": 2}
    assert d["root"] == {"id": "login", "kind": "screen"}
    json.dumps(d)  # JSON-ready


def test_inspect_outline_is_bounded() -> None:
    info = nuif_core.inspect(EXAMPLE, max_outline_nodes=1)
    assert [e.id for e in info.outline] == ["login"] and info.truncated
    assert nuif_core.inspect(EXAMPLE, max_outline_nodes=0).outline == ()
    with pytest.raises(ValueError, match=r"^max_outline_nodes must not be negative$"):
        nuif_core.inspect(EXAMPLE, max_outline_nodes=-1)


def test_inspect_refuses_an_invalid_document() -> None:
    with pytest.raises(NuifError) as info:
        nuif_core.inspect(BROKEN)
    assert info.value.code == "NUIF_SCHEMA" and info.value.pointer == "/extra"


def test_node_hash_covers_the_normalized_subtree() -> None:
    h = nuif_core.node_hash(EXAMPLE, "login.submit")
    node = b'{"attrs":{"label":"Sign in","primary":true},"id":"login.submit","kind":"button"}'
    assert h == "sha256:" + hashlib.sha256(node).hexdigest()
    assert nuif_core.node_hash(EXAMPLE, "login") != nuif_core.document_hash(EXAMPLE)
    with pytest.raises(NuifError) as info:
        nuif_core.node_hash(EXAMPLE, "nope")
    assert info.value.code == "NUIF_PATCH_NOT_FOUND"


def test_node_limit_counts_every_node() -> None:
    children = ",".join(f'{{"id":"c{i}","kind":"k"}}' for i in range(9))
    text = f'{{"nuif":0,"root":{{"id":"r","kind":"k","children":[{children}]}}}}'
    assert nuif_core.validate(text, limits=Limits(max_nodes=10)).valid
    report = nuif_core.validate(text, limits=Limits(max_nodes=9))
    assert [d.code for d in report.diagnostics] == ["NUIF_LIMIT_NODES"]
