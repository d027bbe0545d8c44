"""The compiled codec reads every text with one parser, the walk, and reports its errors itself.

A text error from ``validate``, ``canonicalize``, ``canonical_json`` and ``loads`` is explained
from where the walk stopped (csrc/nuif_fault.h): no Python-level parser or locator runs. Here the
pure-Python codec's parser and the locator are replaced by functions that fail the test, and the
compiled answers must still equal the twin's, field for field.
"""

from __future__ import annotations

import pytest

import nuif_core
from nuif_core import _codec, _locate
from nuif_core._errors import NuifError

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it
twin = _codec.twin()

#: texts with an error of every kind the walk explains, at the top level and deep inside
BAD = [
    b"",
    b"   ",
    b"\xef\xbb\xbf{}",
    b'{"a": 1,}',
    b'{"a" 1}',
    b"{,}",
    b"[1 2]",
    b"[1,]",
    b"tru",
    b"nul",
    b'["\\x"]',
    b'["\\u12g4"]',
    b'{"k": ["\\ud800"]}',
    b'{"\\udc00": 1}',
    b'[["\\ufdd0"]]',
    '[0, "\ufffe"]'.encode(),
    b'["a\x01"]',
    b'["abc',
    b"[1.]",
    b"[-]",
    b"[1e+]",
    b'{"n": [1, 1e400]}',
    b"[12345678901234567890]",
    b'{"a": {"b": 1, "c": 2, "b": 3}}',
    b'{"x": [{"a": 1}, {"a": 1, "a": 1, "a": 2}]}',
    b"[" * 200 + b"]" * 200,
    b'{"a": 1} x',
    b'{"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"t": "v"}}}\n,',
    b"\xff",
]


DEPTH = nuif_core.Limits.DEFAULT.max_depth


def _outcome(call, *args):
    try:
        value = call(*args)
    except NuifError as e:
        return ("error", e.code, e.message, e.pointer, e.line, e.column)
    return ("ok", value)


#: the pure-Python codec's answers, made before any test replaces its parser
EXPECTED = {text: _outcome(twin.canonical_json, text, DEPTH) for text in BAD}


@pytest.fixture
def no_python_parser(monkeypatch: pytest.MonkeyPatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a Python-level parser or locator ran")

    for name in (
        "loads",
        "canonical_json",
        "canonical_document",
        "canonical_result",
        "valid_report",
        "_Parser",
    ):
        monkeypatch.setattr(twin, name, refuse)
    monkeypatch.setattr(_locate, "locate", refuse)


@pytest.mark.parametrize("text", BAD, ids=range(len(BAD)))
def test_text_errors_come_from_the_walk_alone(text: bytes, no_python_parser) -> None:
    expected = EXPECTED[text]
    assert expected[0] == "error"
    assert _outcome(compiled.canonical_json, text, DEPTH) == expected
    assert _outcome(compiled.loads, text, DEPTH) == expected
    assert _outcome(compiled.canonical_document, text, DEPTH, 1000) == expected
    assert _outcome(nuif_core.canonicalize, text) == expected
    report = nuif_core.validate(text)
    assert not report.valid
    assert [(d.code, d.message, d.pointer, d.line, d.column) for d in report.diagnostics] == [
        expected[1:]
    ]


def test_the_stand_ins_would_catch_a_python_parser(no_python_parser) -> None:
    # the test above can fail: with the stand-ins in place, the pure-Python path refuses to run
    with pytest.raises(AssertionError, match="Python-level parser"):
        twin.loads(b"[1]", DEPTH)
    with pytest.raises(AssertionError, match="Python-level parser"):
        _locate.locate(b"{}", ["/a"])


# -- schema problems: found, located and worded without the Python checker ----------------------

#: documents that between them hold every §3 problem the reporter words (csrc/nuif_report.h),
#: at the top, deep inside, after escapes, past multi-byte characters and on CRLF lines
SCHEMA_BAD = [
    b"[]",
    b"{}",
    b'{"nuif": true, "root": []}',
    b'{"nuif": 2, "root": {"id": "a", "kind": "k"}}',
    b'{"nuif": 0.5e1, "zz": 1}',
    b'{"root": {"id": "a", "kind": "k"}, "nuif": "0", "meta": [], "x~y/z": {}}',
    b'{"nuif": 0, "root": {"id": 1, "kind": null, "attrs": [], "children": {}}}',
    b'{"nuif": 0, "root": {"id": "", "kind": "", "attrs": {"": 1, "9": 2, "ok": 3}}}',
    '{"nuif": 0, "root": {"id": "\u00e9t\u00e9", "kind": "b\u00e9", "attrs": {"\u00e9": 1}}}'.encode(),
    b'{"nuif": 0, "root": {"id": "' + b"x" * 129 + b'", "kind": "' + b"k" * 65 + b'"}}',
    b'{"nuif": 0,\r\n "root": {"id": "a\\n\\u0001\\"", "kind": "k",\r\n  "children": [\r\n'
    b'  {"id": "b", "kind": "k"}, {"id": "b", "kind": "k", "q/~": 1}, 7, {"kind": "k"},'
    b' {"id": "c"}]}, "extra": 1}',
    b'{"nuif": 0, "root": {"id": "a", "kind": "k", "children": [{"id": "a", "kind": "k",'
    b' "children": [{"id": "a", "kind": "k"}]}]}}',
]

#: (max_nodes, max_diagnostics) the reports are made with: the defaults, the node limit reached,
#: one diagnostic (and the rest truncated)
SCHEMA_LIMITS = [(100_000, 100), (2, 100), (100_000, 1), (1, 1)]

SCHEMA_EXPECTED = {
    (text, limits): twin.schema_report(text, DEPTH, *limits)
    for text in SCHEMA_BAD
    for limits in SCHEMA_LIMITS
}


@pytest.fixture
def no_python_checker(monkeypatch: pytest.MonkeyPatch, no_python_parser):
    from nuif_core import _schema

    def refuse(*args, **kwargs):
        raise AssertionError("the Python checker ran")

    monkeypatch.setattr(_schema.Checker, "document", refuse)
    monkeypatch.setattr(_schema.Checker, "located", refuse)


@pytest.mark.parametrize("text", SCHEMA_BAD, ids=range(len(SCHEMA_BAD)))
def test_schema_problems_come_from_the_reporter_alone(text: bytes, no_python_checker) -> None:
    for limits in SCHEMA_LIMITS:
        expected = SCHEMA_EXPECTED[(text, limits)]
        assert expected[0], "every text here has a schema problem"
        assert compiled.schema_report(text, DEPTH, *limits) == expected
    found, truncated = SCHEMA_EXPECTED[(text, SCHEMA_LIMITS[0])]
    report = nuif_core.validate(text)
    assert not report.valid and report.truncated is truncated
    assert [(d.code, d.message, d.pointer, d.line, d.column) for d in report.diagnostics] == [
        tuple(f) for f in found
    ]
    with pytest.raises(NuifError) as raised:
        nuif_core.canonicalize(text)
    e = raised.value
    assert (e.code, e.message, e.pointer, e.line, e.column) == tuple(found[0])


def test_every_message_of_the_reporter_is_among_the_cases() -> None:
    """The list above words every message (so the test above covers each), from both codecs."""
    from nuif_core import _messages

    templates = {v for k, v in vars(_messages).items() if k.startswith("SCHEMA_")}
    said = [f[1] for found, _ in SCHEMA_EXPECTED.values() for f in found]
    for template in templates:
        head = template.split("{}")[0]
        assert any(message.startswith(head) for message in said), template
    for code in (
        "NUIF_ID",
        "NUIF_KIND",
        "NUIF_ATTR",
        "NUIF_DUPLICATE_ID",
        "NUIF_VERSION",
        "NUIF_LIMIT_NODES",
        "NUIF_SCHEMA",
    ):
        assert any(f[0] == code for found, _ in SCHEMA_EXPECTED.values() for f in found), code
    assert any(truncated for _, truncated in SCHEMA_EXPECTED.values())
