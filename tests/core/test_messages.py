"""Both codecs say exactly what the templates of ``nuif_core._messages`` say, error class by
error class.

The pure-Python twin builds its messages from the templates; the compiled codec keeps its own
copies of some of them (docs/architecture.md), so each template is triggered here through each
codec's entry points (``loads``, ``canonical_json``, ``dumps``) and the message compared with the
template filled in by hand.  A template no case covers fails the last test.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from nuif_core import NuifError
from nuif_core import _messages as m

# (template name, entry point, input, max_depth, code, the message expected)
TEXT_CASES: list[tuple[str, bytes, int, str, str]] = [
    ("UTF8", b'"\xff"', 128, "NUIF_UTF8", m.UTF8),
    ("BOM", b"\xef\xbb\xbf1", 128, "NUIF_PARSE", m.BOM),
    ("EXPECT_VALUE", b"[", 128, "NUIF_PARSE", m.EXPECT_VALUE + ", found end of text"),
    ("EXPECT_ARRAY_NEXT", b"[1 2]", 128, "NUIF_PARSE", m.EXPECT_ARRAY_NEXT + ", found '2'"),
    (
        "EXPECT_OBJECT_NEXT",
        b'{"a":1 "b"}',
        128,
        "NUIF_PARSE",
        m.EXPECT_OBJECT_NEXT + ", found '\"'",
    ),
    ("EXPECT_FIRST_KEY", b"{1}", 128, "NUIF_PARSE", m.EXPECT_FIRST_KEY + ", found '1'"),
    ("EXPECT_KEY", b'{"a":1,}', 128, "NUIF_PARSE", m.EXPECT_KEY + ", found '}'"),
    ("EXPECT_COLON", b'{"a" 1}', 128, "NUIF_PARSE", m.EXPECT_COLON + ", found '1'"),
    ("EXPECT_END", b"1 2", 128, "NUIF_PARSE", m.EXPECT_END + ", found '2'"),
    ("EXPECT_DIGIT", b"-x", 128, "NUIF_PARSE", m.EXPECT_DIGIT + ", found 'x'"),
    ("EXPECT_LITERAL", b"trux", 128, "NUIF_PARSE", m.EXPECT_LITERAL.format("true") + ", found 'x'"),
    ("EXPECT_STRING_END", b'"abc', 128, "NUIF_PARSE", m.EXPECT_STRING_END + ", found end of text"),
    ("EXPECT_ESCAPE", b'"\\x"', 128, "NUIF_PARSE", m.EXPECT_ESCAPE + ", found 'x'"),
    ("EXPECT_HEX", b'"\\u12g4"', 128, "NUIF_PARSE", m.EXPECT_HEX + ", found 'g'"),
    ("CONTROL_IN_STRING", b'"\x01"', 128, "NUIF_PARSE", m.CONTROL_IN_STRING.format(1)),
    ("SURROGATE_ESCAPE", b'"\\ud800"', 128, "NUIF_UNICODE", m.SURROGATE_ESCAPE.format(0xD800)),
    ("NONCHARACTER", b'["\\ufdd0"]', 128, "NUIF_UNICODE", m.NONCHARACTER.format(0xFDD0)),
    ("DUPLICATE_KEY", b'{"a":1,"a":2}', 128, "NUIF_DUPLICATE_KEY", m.DUPLICATE_KEY.format('"a"')),
    ("NUMBER_OVERFLOW", b"1e400", 128, "NUIF_NUMBER", m.NUMBER_OVERFLOW.format("1e400")),
    (
        "BIG_INTEGER",
        b"9007199254740993",
        128,
        "NUIF_NUMBER",
        m.BIG_INTEGER.format("9007199254740993", "9007199254740992"),
    ),
    (
        "BIG_INTEGER_OVERFLOW",
        b"1" + b"0" * 400,
        128,
        "NUIF_NUMBER",
        m.BIG_INTEGER_OVERFLOW.format("1" + "0" * 36 + "..."),
    ),
    ("DEPTH", b"[[1]]", 1, "NUIF_DEPTH", m.DEPTH.format(1)),
]

VALUE_CASES: list[tuple[str, Any, int, str, str]] = [
    ("LONE_SURROGATE", ["\ud800"], 128, "NUIF_UNICODE", m.LONE_SURROGATE.format(0xD800)),
    ("NONCHARACTER", ["\ufdd0"], 128, "NUIF_UNICODE", m.NONCHARACTER.format(0xFDD0)),
    ("NOT_A_NUMBER", [float("inf")], 128, "NUIF_NUMBER", m.NOT_A_NUMBER.format(float("inf"))),
    ("NO_JSON_VALUE", [{1, 2}], 128, "NUIF_VALUE", m.NO_JSON_VALUE.format("set")),
    ("KEY_NOT_STR", {1: 2}, 128, "NUIF_VALUE", m.KEY_NOT_STR.format("int")),
    ("DEPTH", [[1]], 1, "NUIF_DEPTH", m.DEPTH.format(1)),
    (
        "BIG_INTEGER",
        [2**53 + 1],
        128,
        "NUIF_NUMBER",
        m.BIG_INTEGER.format("9007199254740993", "9007199254740992"),
    ),
    (
        "BIG_INTEGER_OVERFLOW",
        [10**400],
        128,
        "NUIF_NUMBER",
        m.BIG_INTEGER_OVERFLOW.format("1" + "0" * 36 + "..."),
    ),
]


def _message(fn: Any, *args: Any) -> tuple[str, str]:
    with pytest.raises(NuifError) as info:
        fn(*args)
    return info.value.code, info.value.message


@pytest.mark.parametrize(
    ("name", "data", "depth", "code", "expected"), TEXT_CASES, ids=[c[0] for c in TEXT_CASES]
)
def test_text_errors_say_the_template(codec: ModuleType, name, data, depth, code, expected):
    assert _message(codec.loads, data, depth) == (code, expected)
    assert _message(codec.canonical_json, data, depth) == (code, expected)


@pytest.mark.parametrize(
    ("name", "value", "depth", "code", "expected"), VALUE_CASES, ids=[c[0] for c in VALUE_CASES]
)
def test_dumps_errors_say_the_template(codec: ModuleType, name, value, depth, code, expected):
    assert _message(codec.dumps, value, depth) == (code, expected)


#: (template, document, node limit, code, the message) of every schema problem (NUIF-0 §3)
_NODE = '{"nuif": 0, "root": %s}'
SCHEMA_CASES = [
    ("SCHEMA_DOC_TYPE", "[]", 10, "NUIF_SCHEMA", m.SCHEMA_DOC_TYPE.format("an array")),
    ("SCHEMA_NO_NUIF", '{"root": {"id": "a", "kind": "k"}}', 10, "NUIF_SCHEMA", m.SCHEMA_NO_NUIF),
    ("SCHEMA_NUIF_TYPE", '{"nuif": null}', 10, "NUIF_SCHEMA", m.SCHEMA_NUIF_TYPE.format("null")),
    ("SCHEMA_VERSION", '{"nuif": 1.50}', 10, "NUIF_VERSION", m.SCHEMA_VERSION.format("1.5")),
    ("SCHEMA_NO_ROOT", '{"nuif": 0}', 10, "NUIF_SCHEMA", m.SCHEMA_NO_ROOT),
    ("SCHEMA_META_TYPE", '{"meta": 1}', 10, "NUIF_SCHEMA", m.SCHEMA_META_TYPE.format("a number")),
    ("SCHEMA_DOC_MEMBER", '{"x": 1}', 10, "NUIF_SCHEMA", m.SCHEMA_DOC_MEMBER.format('"x"')),
    (
        "SCHEMA_LIMIT_NODES",
        _NODE % '{"id": "a"}',
        0,
        "NUIF_LIMIT_NODES",
        m.SCHEMA_LIMIT_NODES.format(0),
    ),
    ("SCHEMA_NODE_TYPE", _NODE % "true", 10, "NUIF_SCHEMA", m.SCHEMA_NODE_TYPE.format("a boolean")),
    ("SCHEMA_NO_ID", _NODE % "{}", 10, "NUIF_SCHEMA", m.SCHEMA_NO_ID),
    ("SCHEMA_NO_KIND", _NODE % '{"id": "a"}', 10, "NUIF_SCHEMA", m.SCHEMA_NO_KIND),
    (
        "SCHEMA_ID_TYPE",
        _NODE % '{"id": []}',
        10,
        "NUIF_SCHEMA",
        m.SCHEMA_ID_TYPE.format("an array"),
    ),
    (
        "SCHEMA_KIND_TYPE",
        _NODE % '{"kind": {}}',
        10,
        "NUIF_SCHEMA",
        m.SCHEMA_KIND_TYPE.format("an object"),
    ),
    ("SCHEMA_ID_LENGTH", _NODE % '{"id": ""}', 10, "NUIF_ID", m.SCHEMA_ID_LENGTH.format('""')),
    (
        "SCHEMA_ID_PATTERN",
        _NODE % '{"id": ".a"}',
        10,
        "NUIF_ID",
        m.SCHEMA_ID_PATTERN.format('".a"'),
    ),
    (
        "SCHEMA_DUPLICATE_ID",
        _NODE % '{"id": "a", "kind": "k", "children": [{"id": "a", "kind": "k"}]}',
        10,
        "NUIF_DUPLICATE_ID",
        m.SCHEMA_DUPLICATE_ID.format('"a"', "/root/id"),
    ),
    ("SCHEMA_KIND", _NODE % '{"kind": "K"}', 10, "NUIF_KIND", m.SCHEMA_KIND.format('"K"')),
    (
        "SCHEMA_ATTRS_TYPE",
        _NODE % '{"attrs": 1}',
        10,
        "NUIF_SCHEMA",
        m.SCHEMA_ATTRS_TYPE.format("a number"),
    ),
    ("SCHEMA_ATTR", _NODE % '{"attrs": {"1": 1}}', 10, "NUIF_ATTR", m.SCHEMA_ATTR.format('"1"')),
    (
        "SCHEMA_CHILDREN_TYPE",
        _NODE % '{"children": "x"}',
        10,
        "NUIF_SCHEMA",
        m.SCHEMA_CHILDREN_TYPE.format("a string"),
    ),
    (
        "SCHEMA_NODE_MEMBER",
        _NODE % '{"q": 1}',
        10,
        "NUIF_SCHEMA",
        m.SCHEMA_NODE_MEMBER.format('"q"'),
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "max_nodes", "code", "expected"),
    SCHEMA_CASES,
    ids=[c[0] for c in SCHEMA_CASES],
)
def test_schema_problems_say_the_template(codec: ModuleType, name, data, max_nodes, code, expected):
    found, _ = codec.schema_report(data.encode(), 128, max_nodes, 100)
    assert (code, expected) in [(f[0], f[1]) for f in found]


#: the name rules' patterns and lengths, which the templates above spell out
RULES = {"ID_PATTERN", "KIND_PATTERN", "ATTR_PATTERN", "ID_MAX", "KIND_MAX", "ATTR_MAX"}


def test_every_template_has_a_case():
    templates = {n for n in m.__all__ if n.isupper()} - RULES
    covered = (
        {c[0] for c in TEXT_CASES} | {c[0] for c in VALUE_CASES} | {c[0] for c in SCHEMA_CASES}
    )
    assert templates == covered, templates ^ covered


def test_the_helpers_fill_the_templates_as_the_codecs_need():
    assert m.quote("x" * 70) == '"' + "x" * 61 + '..."'
    assert m.short("9" * 41) == "9" * 37 + "..."
    assert (
        m.describe_found(b"\xc3\xa9", 0) == "U+00E9" and m.describe_found(b"", 0) == "end of text"
    )
    assert m.big_integer_problem("100000000000000000000", 1e20) is None  # its RFC 8785 text
    assert m.int_shown(1 << 5000) == "of 5001 bits"
