"""The walk takes every valid text and refuses every invalid one, and the answers do not change.

The compiled codec reads every text with one C walk (``csrc/nuif_walk.h``); a text it refuses
is explained from where it stopped (``csrc/nuif_fault.h``).  So, on every input here, the
compiled ``canonical_json`` must answer what the pure-Python twin answers: the same canonical
bytes, or the same error (code, message, pointer, line, column).  A valid text the walk refused
would be reported as a SystemError: these tests would show it.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import corpus
from nuif_core import _codec
from nuif_core._errors import NuifError
from tests.nuif_strategies import indented_texts, reindented_texts, values

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

DATA = Path(__file__).resolve().parent.parent / "data"


twin = _codec.twin()


def outcome(codec: object, data: bytes, depth: int = 128) -> tuple:
    """What a codec answers: the canonical bytes, or every field of the error."""
    try:
        return ("ok", codec.canonical_json(data, depth))  # type: ignore[attr-defined]
    except NuifError as e:
        return ("error", e.code, str(e), e.pointer, e.line, e.column)


def check(data: bytes, depth: int = 128) -> bytes | None:
    """The compiled answer on ``data`` is the twin's; returns the canonical bytes (None: an
    error)."""
    got = outcome(compiled, data, depth)
    assert got == outcome(twin, data, depth), data[:80]
    return got[1] if got[0] == "ok" else None


# -- valid documents: the same text ----------------------------------------------------------------


@cache
def corpus_docs() -> list[bytes]:
    docs = [
        corpus.load(shape, size)
        for shape in ("ui", "strings", "numbers")
        for size in ("1KiB", "64KiB")
    ]
    # compact text too: no whitespace between the structural characters
    docs += [
        json.dumps(json.loads(d), ensure_ascii=False, separators=(",", ":")).encode()
        for d in docs[:3]
    ]
    return docs


def test_corpus_documents_get_the_same_text() -> None:
    for doc in corpus_docs():
        assert check(doc) is not None


def test_every_conformance_case_agrees() -> None:
    """JSONTestSuite (y_, n_, i_), the RFC 8785 and cyberphone examples: the same result or
    error."""
    files = sorted((DATA / "JSONTestSuite" / "test_parsing").iterdir())
    files += sorted((DATA / "rfc8785-examples").glob("*.json"))
    files += sorted((DATA / "jcs-cyberphone" / "testdata" / "input").glob("*.json"))
    assert len(files) > 300
    accepted = 0
    for f in files:
        accepted += check(f.read_bytes()) is not None
    assert accepted > 75  # the y_ and accepted i_ cases


def test_integers_beyond_2_53_that_are_their_doubles_text() -> None:
    """NUIF-0.1 accepts an integer literal beyond 2^53 - 1 exactly when it is its double's RFC
    8785 text, and refuses the others."""
    accepted = [
        "9007199254740992",
        "-9007199254740992",
        "18014398509481984",
        "100000000000000000000",
        "-295147905179352830000",
    ]
    refused = ["9007199254740993", "123456789012345678901234567890", "100000000000000000001"]
    for lit in accepted:
        for text in (f"[{lit}]", f'{{"a": {lit}, "b": [1, {lit}]}}'):
            assert check(text.encode()) is not None, text
    for lit in refused:
        assert check(f"[{lit}]".encode()) is None, lit


def test_ten_thousand_es6_numbers() -> None:
    """Every number of the ES6 test file (doubles of every magnitude), in one array."""
    lines = (DATA / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines()
    texts = [line.split(",")[1] for line in lines if line]
    literals = [t for t in texts if not re.fullmatch(r"-?\d{16,}", t)]
    assert len(literals) > 9000
    check(("[" + ",".join(literals) + "]").encode())
    check(("[" + ",\n ".join(literals) + "]").encode())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=values, pretty=st.booleans())
def test_generated_values(value: object, pretty: bool) -> None:
    text = json.dumps(value, ensure_ascii=pretty, indent=1 if pretty else None)
    check(text.encode())


# -- strings ---------------------------------------------------------------------------------------


STRING_BODIES = [
    "plain ascii",
    'tab\\there \\\\ \\" quote \\/ slash',
    "\\u00e9\\u4e16\\u754c \\ud83d\\ude00 \\u001f \\u0022 \\u005c",
    "é世界🙂 mixed \\n with escapes",
    "\u0fff\uffbf\ufdcf\ufdf0\U0001fffd",  # near-misses of noncharacters: all valid
    "\\\\\\\\\\\\\\\\",  # a run of eight backslashes (four escaped ones)
    # escapes in a row and one right before the closing quote (the walk then skips its scan)
    "\\ud835\\udc00\\ud835\\udc01\\n\\t\\u0041\\/x\\u00e9",
    r"\u0000\u001f\"\\\b\f\r",
]


def test_strings_at_every_offset() -> None:
    for body in STRING_BODIES:
        for pad in range(40, 140):
            for key in (False, True):
                text = ('{"' + body + '":1}') if key else ('["' + body + '"]')
                data = (" " * pad + text).encode()
                assert check(data) is not None, data


def _escape_spellings() -> list[str]:
    """Every two-character escape and every \\u escape of an ASCII character, in lowercase and
    uppercase hex, plus a few beyond ASCII."""
    out = ["\\" + e for e in '"\\/bfnrt']
    for cp in list(range(0x80)) + [0xE9, 0x2028, 0xFEFF]:
        out += sorted({f"\\u{cp:04x}", f"\\u{cp:04X}"})
    return out


def _canonical_spelling(esc: str) -> bool:
    """Whether RFC 8785 writes the character ``esc`` escapes exactly as ``esc``."""
    return json.dumps(json.loads(f'"{esc}"'), ensure_ascii=False) == f'"{esc}"'


def test_escapes_of_every_spelling_in_values_and_names() -> None:
    """Every two-character escape and every \\u escape of an ASCII character (and a few beyond),
    before and after other text and escapes, in a value and in a member name."""
    for esc in _escape_spellings():
        for before in ("", "a", "\\n", "ab\\tc"):
            for after in ("", "z", "\\\\", "\\u0001y", "\\u00e9"):
                body = before + esc + after
                assert check(f'["{body}",{{"{body}":0}}]'.encode()) is not None, body


@pytest.mark.parametrize("float_libs", [True, False], ids=["libraries", "dtoa"])
def test_numbers_the_libraries_do_not_convert_are_converted_by_dtoa(float_libs: bool) -> None:
    """Exponents beyond the vendored libraries' range, and every number when they are off (a
    build without C++17): the walk converts them with CPython's dtoa, writes them with its repr
    digits, and answers as the twin does."""
    old = compiled._settings(float_libs=float_libs)
    try:
        for text in (
            b"[1e-400, -1e-400, 1e400, 0.5e-320, 2.5e-308, 1.7976931348623159e308]",
            b"[1.5, 0.1, 123456789012345678, 1e21, 3.14159e-7, -0.0, 5e-324]",
            b'{"a": [100000000000000000000, 9007199254740993]}',
            b"[" + b",".join(b"%d.%de%d" % (k, k * 7, k - 50) for k in range(100)) + b"]",
        ):
            check(text)
    finally:
        compiled._settings(**old)


def test_newlines_and_indentations_of_every_width() -> None:
    """Pretty-printed text: the walk reads a newline's indentation of up to 32 spaces in one step
    and goes on from there with the general whitespace scan."""
    for data in indented_texts():
        check(data)


def test_indentations_the_walk_does_not_guess() -> None:
    """The walk takes a line's indentation to be the last one it read at that depth, and counts
    it where that guess is wrong: lines one space off, at random widths, with other whitespace
    behind, deeper than the 64 depths it keeps guesses for."""
    for data in reindented_texts():
        check(data)


def test_long_strings() -> None:
    long_plain = "x" * 40_000
    long_esc = "abc\\n\\u00e9" * 5000
    doc = f'{{"a":"{long_plain}","b":["{long_esc}",1.5,"{long_plain}é"],"c":{{}}}}'.encode()
    assert check(doc) is not None


# -- errors -------------------------------------------------------------------------------------------


BAD = [
    b"",
    b" ",
    b"\xef\xbb\xbf{}",
    b"[1 2]",
    b"[1,]",
    b'{"a" 1}',
    b'{"a":1,}',
    b'{"a":1 "b":2}',
    b"[tru]",
    b"[truex]",
    b'[true"x"]',
    b"[1.]",
    b"[.5]",
    b"[01]",
    b"[-]",
    b"[1e]",
    b"[1e+]",
    b"[1.5.3]",
    b"[1x]",
    b"[nul]",
    b"[falsey]",
    b"{}}",
    b"[]]",
    b"[[]",
    b"{",
    b'{"a"',
    b'{"a":',
    b'["a\\x"]',
    b'["\\u12"]',
    b'["\\uZZZZ"]',
    b'["\\ud800"]',
    b'["\\udc00"]',
    b'["\\ud800\\u0041"]',
    b'["\\ufdd0"]',
    b'["\\uffff"]',
    b'["\\ud83f\\udfff"]',
    '["\ufdd0"]'.encode(),
    '["\uffff"]'.encode(),
    '["x\U0010ffff"]'.encode(),
    '{"\ufffe":1}'.encode(),
    b'["a\x01b"]',
    b'["a\nb"]',
    b'"unterminated',
    b'{"a":1,"a":2}',
    b'{"b":{"a":[],"a":{}}}',
    b"[1e400]",
    b"[-1e400]",
    b"[123456789012345678]",
    b"[\x00]",
    b"[1]\x00",
    b"{} x",
    b"1 2",
    b"[1]\xff",
    b'["\xc3"]',
    b'["\\',
    b'["\\u',
    b"[9007199254740993]",
    # the input or the string ending, or a bad byte coming, right after an escape
    b'["\\n',
    b'["\\u0041',
    b'["\\ud835\\udc00',
    b'{"\\n',
    b'["\\n\\x"]',
    b'["\\n\x01"]',
    b'["\\n\x01\\"]',
    b'["\\u0041\\ud800"]',
    b'["\\t\\ufffe"]',
    b'["\\n\\',
    # duplicates among 3, 8 and 9 members (the small objects' sort finds them itself, the larger
    # ones' after the merge sort), apart and side by side in the input
    b'{"a":1,"b":2,"a":3}',
    b'{"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"b":8}',
    b'{"i":1,"h":2,"g":3,"f":4,"e":5,"d":6,"c":7,"b":8,"a":9,"e":0}',
    b'{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"h":9}',
]


def test_invalid_inputs_raise_what_the_twin_raises() -> None:
    for data in BAD:
        for pad in (0, 61, 62, 63):
            check(b" " * pad + data)


def test_depth_limit() -> None:
    for depth in range(8):
        for limit in (-1, 0, 1, 3, 5, 128):
            check(b"[" * depth + b"1" + b"]" * depth, limit)
            check(b'{"a":' * depth + b"1" + b"}" * depth, limit)


@settings(max_examples=300, deadline=None)
@given(cut=st.integers(0, 2000), byte=st.integers(0, 255))
def test_mutated_documents(cut: int, byte: int) -> None:
    doc = corpus_docs()[1]  # strings, 1 KiB
    at = cut % len(doc)
    check(doc[:at] + bytes([byte]) + doc[at + 1 :])
    check(doc[:at])
