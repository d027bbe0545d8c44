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
