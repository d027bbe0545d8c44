"""Edge cases of the compiled codec: depth, garbage, conformance vectors, and regressions."""

from __future__ import annotations

import enum
import random
import struct
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from nuif_core import _codec
from nuif_core._errors import NuifError
from tests.nuif_strategies import indented_texts, reindented_texts

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it
twin = _codec.twin()

CODECS = [compiled, twin]
IDS = ["compiled", "python"]
REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "tests" / "data"


def error_of(fn: Any, *args: Any) -> tuple[Any, ...]:
    with pytest.raises(NuifError) as info:
        fn(*args)
    e = info.value
    return (e.code, e.message, e.pointer, e.line, e.column)


def same(data: bytes, max_depth: int = 128) -> tuple[Any, ...]:
    """Run both codecs; assert identical outcomes; return the outcome."""
    results = []
    for codec in CODECS:
        try:
            results.append(
                ("ok", codec.canonical_json(data, max_depth), repr(codec.loads(data, max_depth)))
            )
        except NuifError as e:
            results.append(("error", e.code, e.message, e.pointer, e.line, e.column))
    assert results[0] == results[1], data[:200]
    return results[0]


@pytest.mark.parametrize("codec", CODECS, ids=IDS)
def test_ten_megabytes_of_brackets_is_a_clean_depth_error(codec: Any) -> None:
    data = b"[" * (10 * 1024 * 1024)
    for fn in (codec.loads, codec.canonical_json):
        code, message, pointer, line, column = error_of(fn, data, 128)
        assert (code, pointer, line, column) == ("NUIF_DEPTH", "/0" * 128, 1, 129)
        assert message == "arrays and objects are nested deeper than the limit of 128"


def test_ten_megabytes_of_brackets_under_a_huge_limit_is_a_parse_error() -> None:
    data = b"[" * (10 * 1024 * 1024)
    code, message, *_ = error_of(compiled.canonical_json, data, 10**30)
    assert code == "NUIF_PARSE" and message == "expected a JSON value, found end of text"


@pytest.mark.parametrize("codec", CODECS, ids=IDS)
def test_nesting_exactly_at_the_limit_is_accepted(codec: Any) -> None:
    mixed = b'{"a":[' * 64 + b"1" + b"]}" * 64
    assert codec.canonical_json(mixed, 128) == mixed
    assert codec.canonical_json(b"[" * 128 + b"]" * 128, 128) == b"[" * 128 + b"]" * 128
    assert codec.dumps(codec.loads(mixed, 128), 128) == mixed
    assert error_of(codec.canonical_json, b"[" + mixed + b"]", 128)[0] == "NUIF_DEPTH"
    assert error_of(codec.dumps, [codec.loads(mixed, 128)], 128)[0] == "NUIF_DEPTH"


def test_newlines_and_indentations_of_every_width_match_the_twin() -> None:
    """The outcome and every error's line and column are the twin's, with the compiled walk's
    one-step indentation (SSE2, or 8 bytes at a time in the portable build)."""
    for data in indented_texts():
        same(data)


def test_indentations_the_walk_does_not_guess_match_the_twin() -> None:
    """Lines whose indentation is not the one the compiled walk guesses from the last line at
    the same depth (``nuif_walk_direct_next``): the same outcomes as the twin's."""
    for data in reindented_texts():
        same(data)


def test_each_call_lets_go_of_its_input_and_leaves_nothing_to_the_next() -> None:
    """The compiled codec keeps the pipeline's state between calls, with the buffers it grew
    (``_doc`` in ``_speedups_doc.pxi``): it must hold no reference to the input, and no call may
    see anything of the one before, whatever that one was (larger, deeper, refused, failed in the
    schema check, read by ``loads``, or inspected: ``inspect`` reads the tape past the text)."""
    import sys

    from benchmarks import corpus

    texts = [
        corpus.load("ui", "64KiB"),
        b'{"nuif":0,"root":{"id":"a","kind":"b","attrs":{"t":"\\u00e9\\n","n":[1e20,0.5,-0]}}}',
        b'{"nuif":0,"root":{"id":"a","kind":"b","children":[{"id":"a","kind":"c"}]}}',  # §3
        b'{"nuif":0,"root":{"id":"a","kind":"b"},"x":[1,2,}',  # a syntax error
        b"[" * 100 + b"]" * 100,
        b'{"b":1,"a":{"d":[true,false,null],"c":"\\ud83d\\ude00"}}',
        # 1e-400: a double the float library does not convert (CPython's dtoa does), beside
        # escapes
        b'{"nuif":0,"root":{"id":"a","kind":"b","attrs":{"z":1e-400,"t":"\\u00e9\\t\\""}}}',
        b'{"nuif":0,"root":{"id":"r","kind":"k","children":['
        + b",".join(b'{"id":"n%d","kind":"k"}' % i for i in range(300))
        + b"]}}",
        # nodes 40 deep: the writer's and the check's stacks outgrow their arrays (32 levels)
        b'{"nuif":0,"root":'
        + b"".join(b'{"id":"d%d","kind":"k","children":[' % i for i in range(40))
        + b'{"id":"leaf","kind":"k"}'
        + b"]}" * 40
        + b"}",
    ]

    def outcomes(data: bytes) -> list[Any]:
        out: list[Any] = []
        for call in (
            lambda: nuif_core.inspect(data),
            lambda: compiled.canonical_json(data, 128),
            lambda: compiled.canonical_document(data, 128, 250000),
            lambda: nuif_core.canonicalize(data),
            lambda: nuif_core.validate(data),
            lambda: compiled.loads(data, 128),
        ):
            try:
                out.append(call())
            except NuifError as e:
                out.append((e.code, e.pointer, e.line, e.column))
        return out

    first = [outcomes(data) for data in texts]
    for data, got in zip(texts, first, strict=True):  # the parser's part against the twin's
        same(data)
        try:
            expected: Any = twin.canonical_document(data, 128, 250000)
        except NuifError as e:
            expected = (e.code, e.pointer, e.line, e.column)
        assert got[2] == expected
    rng = random.Random(20261203)
    for _ in range(150):
        k = rng.randrange(len(texts))
        data = bytes(bytearray(texts[k]))  # an object no call has seen
        refs = sys.getrefcount(data)
        got = outcomes(data)
        refs_after = sys.getrefcount(data)
        assert got == first[k], k
        assert refs_after == refs, k


def test_seeded_random_garbage_never_crashes_and_matches_the_twin() -> None:
    rng = random.Random(8785)
    alphabet = b'{}[]":,\\/ \n\t-+.eE0123456789truefalsenul\x00\x1f\x7f\x80\xbf\xc2\xe2\xed\xef\xf0\xf4\xff'
    for _ in range(400):
        n = rng.randint(0, 64)
        if rng.random() < 0.5:
            data = bytes(rng.randrange(256) for _ in range(n))
        else:
            data = bytes(rng.choice(alphabet) for _ in range(n))
        same(data, rng.choice([128, 2, 0]))


def test_jsontestsuite_outcomes_match_the_twin() -> None:
    files = sorted((TESTDATA / "JSONTestSuite" / "test_parsing").glob("*.json"))
    assert len(files) == 318
    for f in files:
        same(f.read_bytes())


def test_cyberphone_vectors_are_reproduced_byte_for_byte() -> None:
    inputs = sorted((TESTDATA / "jcs-cyberphone" / "testdata" / "input").glob("*.json"))
    assert inputs
    for f in inputs:
        expected = (f.parent.parent / "output" / f.name).read_bytes()
        assert compiled.canonical_json(f.read_bytes(), 128) == expected, f.name


def test_es6_number_vectors_are_reproduced() -> None:
    lines = (TESTDATA / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines()
    assert len(lines) == 10000
    for line in lines:
        bits, expected = line.split(",")
        x = struct.unpack(">d", bytes.fromhex(bits.rjust(16, "0")))[0]
        assert compiled.dumps(x, 128) == expected.encode(), line
        assert compiled.canonical_json(repr(x).encode(), 128) == expected.encode(), line


# -- regressions and boundaries found while building the codec --------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # U+10FFF (F0 90 BF BF) ends in BF BF but is NOT a noncharacter: the 2nd byte matters
        ("\U00010fff", None),
        ("\U0001fffe", "NUIF_UNICODE"),
        ("\U0010ffff", "NUIF_UNICODE"),
        ("\U0004ffff", "NUIF_UNICODE"),
        ("\ufdcf\ufdf0\ufffd", None),
        ("\ufdd0", "NUIF_UNICODE"),
        ("\ufdef", "NUIF_UNICODE"),
        ("\uffff", "NUIF_UNICODE"),
    ],
)
def test_noncharacters_are_found_raw_and_escaped(text: str, code: str | None) -> None:
    raw = ('"' + "abcdefghij" * 2 + text + '"').encode()  # past the 8-byte fast scan
    escaped = (
        '"'
        + "".join(
            f"\\u{u:04x}"
            for u in struct.unpack(
                ">" + "H" * (len(text.encode("utf-16-be")) // 2), text.encode("utf-16-be")
            )
        )
        + '"'
    ).encode()
    for data in (raw, escaped, b'{"' + raw[1:-1] + b'":1}'):
        result = same(data)
        assert result[0] == ("ok" if code is None else "error")
        if code:
            assert result[1] == code


NONCHARACTERS = [chr(c) for c in range(0xFDD0, 0xFDF0)] + [
    chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF)
]
# characters whose UTF-8 shares the patterns the string scanner looks for (EF B7, BF BE/BF, a
# last byte of BE/BF after xF BF): the scanner stops at some, the exact check lets them pass
NEAR_MISSES = [
    "\ufdcf",
    "\ufdf0",
    "\ufffd",
    "\uffbf",
    "\u0fff",
    "\u7fff",
    "\U00010fff",
    "\U0001fffd",
    "\U0010fffd",
    "\U000effbf",
    "\uff71",
    "\U0001f642",
    "\u00bf",
]


def test_every_noncharacter_at_every_offset_of_a_scan_block() -> None:
    """The string scanner (csrc/nuif_scan.h) skips bytes >= 0xEF unless they may start a
    noncharacter, reading up to 3 bytes ahead of a 16-byte block: every noncharacter (66 code
    points) and every near miss, at offsets across two blocks and at the end of the text, in
    values and in member names, alone and among other multibyte text; both codecs agree."""
    assert len(NONCHARACTERS) == 66
    for i, ch in enumerate(NONCHARACTERS + NEAR_MISSES):
        for pad in range(0, 40, 1 if i % 7 == 0 else 5):
            body = "a" * pad + ch + "\uff71" * (i % 3)
            for data in (f'["{body}"]', f'{{"{body}":0}}', f'["{"é" * pad}{ch}"]'):
                result = same(data.encode())
                assert (result[0] == "error") == (ch in NONCHARACTERS), data


@pytest.mark.parametrize(
    "data",
    [
        b'"\xd0\xa1\xd1\x8a\xd0\xb5\xd1\x88\xc1\xbf\xd0\xb5"',  # overlong C1 inside 2-byte runs
        b'"\xd0\xa1\xd1\x8a\xd0\xb5\xd1\x88\xd0\xb5\xd1\x88\xd0\xb5\xd1\x88\xd0"',  # truncated at the end
        b'"\xd0\xa1\xd1\x8a\xd0\xb5\xd1\x88\xd0\x41\xd1\x88"',  # lead byte, then ASCII
        b'"\xed\xa0\x80"',  # an encoded surrogate
        b'"\xf4\x90\x80\x80"',  # above U+10FFFF
        b'"\xe0\x9f\xbf"',  # overlong 3-byte
        b'"\xf0\x8f\xbf\xbf"',  # overlong 4-byte
        b"[1,2] \xff",  # bad UTF-8 after a syntax error would be: UTF-8 is reported first
        b"[1,,\xff]",
    ],
)
def test_invalid_utf8_is_reported_at_the_lead_byte_like_python(data: bytes) -> None:
    result = same(data)
    assert result[0] == "error" and result[1] == "NUIF_UTF8"
    with pytest.raises(UnicodeDecodeError) as info:
        data.decode("utf-8")
    prefix = data[: info.value.start].decode("utf-8")
    assert result[4:] == (prefix.count("\n") + 1, len(prefix.rsplit("\n", 1)[-1]) + 1)


@pytest.mark.parametrize(
    "data",
    [
        b'"ab\x00',  # a NUL as the last byte is a control character, not the end
        b'"ab',
        b'"ab\\',
        b'"ab\\u12',
        b'"\\ud800',
        b'"\\ud800\\',
        b'"\\ud800\\u',
        b'"\\ud800\\u00',
        b'"\\ud800\\n"',
        b'"\\ud800\\u0041"',
        b'"\\udc00"',
        b'"\\u00zz"',
        b'"\\x"',
        b"-",
        b"01",
        b"1.",
        b"1e",
        b"1e+",
        b"tru",
        b"nul",
        b"",
        b" \n ",
        b"\xef\xbb\xbf1",
        b'{"a":1,"a":2,"b":{"c":1,"c":2}}',  # the inner object closes first
        b'{"a":1,"\\u0061":2}',
        b'{"b":[{"x":1e400}]}',
        b"[9007199254740993]",
        b"[1000000000000000000000]",
        b'{"\\ud83d\\ude00":{"k":"\\uffff"}}',
        b'{"a/b~c":[0,{"d":"\\ud800"}]}',
    ],
)
def test_error_corner_cases_match_the_twin(data: bytes) -> None:
    assert same(data)[0] == "error"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"-0", b"0"),
        (b"-0.0", b"0"),
        (b"0e-5", b"0"),
        (b"1e-400", b"0"),
        (b"1.0", b"1"),
        (b"100e-2", b"1"),
        (b"1e21", b"1e+21"),
        (b"1.5e300", b"1.5e+300"),
        (b"123456789012345678901.0", b"123456789012345680000"),
        (b"0.0000001", b"1e-7"),
        (b"0.000001", b"0.000001"),
        (b"9007199254740991", b"9007199254740991"),
        (b"-9007199254740991", b"-9007199254740991"),
        (b"9007199254740992", b"9007199254740992"),
        (b"-100000000000000000000", b"-100000000000000000000"),
        (b"1e20", b"100000000000000000000"),
        (b"2.2250738585072011e-308", b"2.225073858507201e-308"),
        (b'"\\u001F\\u007f\\/\\u0022\\u005c"', b'"\\u001f\x7f/\\"\\\\"'),
        (b'"\\u2028\\u2029"', '"\u2028\u2029"'.encode()),
        (b'{"\\ue000":1,"\\ud83d\\ude00":2,"a":3}', '{"a":3,"\U0001f600":2,"\ue000":1}'.encode()),
        (b'{"b":1,"a\\"":2,"a":3}', b'{"a":3,"a\\"":2,"b":1}'),
        # arrays whose first element is a number written as it is: the writer's loop over them
        # (csrc/nuif_write.h) stops at the first other element and the writer goes on as usual
        (b"[]", b"[]"),
        (b"[7]", b"[7]"),
        (b"[1,2,3]", b"[1,2,3]"),
        (b"[ 1.5 ,\n -2 ,\t3.25 ]", b"[1.5,-2,3.25]"),
        (b"[-0,1]", b"[0,1]"),  # "-0" is no literal to copy: the run never starts
        (b"[1,-0,2]", b"[1,0,2]"),  # ... and stops there
        (b"[1,1e2,2.50,3,0.1]", b"[1,100,2.5,3,0.1]"),  # spelled otherwise than ES: stops
        (b'[1,"a",2,[3,4],{"b":5},6,null,true]', b'[1,"a",2,[3,4],{"b":5},6,null,true]'),
        (b"[[1,2],[3],[],[[4]]]", b"[[1,2],[3],[],[[4]]]"),
        (b'{"b":[2,1],"a":[0.5]}', b'{"a":[0.5],"b":[2,1]}'),
        (
            b"[9007199254740992,-100000000000000000000,5e-324,1.7976931348623157e+308]",
            b"[9007199254740992,-100000000000000000000,5e-324,1.7976931348623157e+308]",
        ),
        (
            b"[0.30000000000000004,366.76810892562906,3.667793373769792e-7]",
            b"[0.30000000000000004,366.76810892562906,3.667793373769792e-7]",
        ),
    ],
)
def test_canonical_bytes_of_tricky_values(data: bytes, expected: bytes) -> None:
    for codec in CODECS:
        assert codec.canonical_json(data, 128) == expected


def test_random_arrays_of_numbers_match_the_twin() -> None:
    rng = random.Random(20261203)
    spellings = [
        lambda: str(rng.randint(-(10**6), 10**6)),
        lambda: repr(rng.uniform(-1e3, 1e3)),
        lambda: f"{rng.uniform(-1e3, 1e3):.2f}",  # trailing zeros now and then: not literal
        lambda: f"{rng.randint(1, 9)}e{rng.randint(-30, 30)}",
        lambda: repr(rng.random() * 10 ** rng.randint(-320, 300)),
        lambda: "-0",
        lambda: rng.choice(['"s"', "null", "[1,2]", "{}", "true", "[]"]),
    ]
    weights = [8, 8, 3, 2, 4, 1, 2]
    for _ in range(400):
        items = [rng.choices(spellings, weights)[0]() for _ in range(rng.randint(0, 40))]
        data = ("[" + ",".join(items) + "]").encode()
        same(data)
        same(b'{"x":' + data + b',"a":[' + data + b"]}")


def test_a_run_of_numbers_that_meets_the_end_of_the_buffer_goes_on_the_usual_way() -> None:
    """Numbers written longer than their literal (1e20 is 21 digits) fill the writer's buffer
    past the input's size, so a long array of literal numbers after them finds no room for all
    of them: the run stops where the buffer ends, and the writer grows it and goes on."""
    long = b",".join(b"1e20" for _ in range(2000))
    lits = b",".join(str(i * 37 % 100003).encode() for i in range(50000))
    data = b'{"a":[' + long + b'],"b":[' + lits + b"]}"
    want = twin.canonical_json(data, 128)
    assert compiled.canonical_json(data, 128) == want
    assert want.endswith(b"," + str(49999 * 37 % 100003).encode() + b"]}")
    assert len(want) > len(data) - len(lits) + 2000 * 17


def _growing_value(rng: random.Random, depth: int) -> bytes:
    """A random value whose canonical text is often longer than its input (1e20: 4 bytes in, 21
    out), with names and strings that need escapes and doubles that need printing."""
    r = rng.random()
    if depth > 4 or r < 0.45:
        if rng.random() < 0.4:
            return rng.choice([b"1e20", b"-1e21", b"9E20"])
        return rng.choice(
            [
                b"12",
                b"-0",
                b"1.50",
                b"0.30000000000000004",
                b"1E2",
                b"5e-7",
                b'"a\\u0001b"',
                b'"plain"',
                b"true",
                b"null",
                b"false",
                repr(rng.random() * 10 ** rng.randint(-30, 30)).encode(),
            ]
        )
    if r < 0.7:
        items = [_growing_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]
        return b"[" + b",".join(items) + b"]"
    names = rng.sample(
        [b'"k"', b'"\\u0001n"', b'"zz"', b'"a"', b'"\\""', b'"a longer name"'], rng.randint(0, 5)
    )
    return b"{" + b",".join(n + b":" + _growing_value(rng, depth + 1) for n in names) + b"}"


def same_fresh(data: bytes, keep: int) -> tuple[Any, ...]:
    """``same``, the compiled writer starting from a fresh buffer of the input's size + 64 bytes
    (the scratch kept from earlier calls dropped): a bytes object grown in place when ``keep`` is
    0, else a scratch buffer grown by realloc."""
    compiled._settings(scratch_keep=keep)
    return same(data)


KEEPS = pytest.mark.parametrize("keep", [0, 1 << 20], ids=["bytes", "scratch"])


@KEEPS
@pytest.mark.parametrize("float_libs", [True, False], ids=["float-libs", "python-floats"])
def test_the_writer_goes_on_wherever_its_buffer_runs_out(float_libs: bool, keep: int) -> None:
    """The writer's buffer starts 64 bytes larger than the input; a text that grows past it runs
    out of room at any kind of step (a value, a member's name after a comma, an element's comma,
    a closing bracket, a run of literal numbers) and the writer, given more room, goes on from
    where it stopped.  With the float libraries off, every double it cannot print itself is
    handed back to Python and the writer goes on after it."""
    rng = random.Random(2026120301)
    old = compiled._settings(float_libs=float_libs)
    old_keep = compiled._settings(scratch_keep=keep)
    grown = 0
    try:
        for _ in range(700):
            data = _growing_value(rng, 0)
            outcome = same_fresh(data, keep)
            grown += outcome[0] == "ok" and len(outcome[1]) > len(data) + 64
    finally:
        compiled._settings(**old)
        compiled._settings(**old_keep)
    assert grown > 100  # the buffer did run out, many times


@KEEPS
def test_the_writer_goes_on_when_its_buffer_ends_right_before_a_bracket_or_comma(keep: int) -> None:
    """`null` needs 4 bytes of room, every other step more: texts that grow past the buffer, with
    a run of 1..4-byte steps after them (`null`s, commas, brackets closing 30 deep), end it right
    before a one-byte step for some count of spaces in the input (each makes the buffer a byte
    larger and the text no longer), and the writer goes on from there."""
    old_keep = compiled._settings(scratch_keep=keep)
    try:
        for k in range(1, 9):  # each 1e20 writes 17 bytes more than it reads
            for m in range(90):
                pad = b" " * m
                for tail in (
                    b"[" * 30 + b"null" + b"]" * 30,
                    b'{"n":' * 12 + b"null" + b"}" * 12,
                    b"[" + b",".join([b"null"] * 20) + b"]",
                ):
                    same_fresh(b"[" + b"1e20," * k + pad + tail + b"]", keep)
    finally:
        compiled._settings(**old_keep)


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


def test_dumps_handles_subclasses_tuples_and_self_references_like_the_twin() -> None:
    loop: list[Any] = []
    loop.append(loop)
    for value in (
        {"n": Color.RED, Name("k"): Name("v"), "t": (1, 2.5, None)},
        loop,
        {"\ud800": 1, "a": 2},
        {"b": 1, "\ud800": [1e400]},
        {"a": float("nan")},
        {"a": {1: 2}},
        {"a": 2**53},
        {"a": [2**60, -(2**53) - 1, 10**21, 2**1030, 10**5000]},
        {"\ue000": 1, "\U0001f600": 2},
        [b"x"],
        "\ud800x\uffff",
        "x\uffff\ud800",
    ):
        outcomes = []
        for codec in CODECS:
            try:
                outcomes.append(("ok", codec.dumps(value, 128)))
            except NuifError as e:
                outcomes.append((e.code, e.message, e.pointer))
        assert outcomes[0] == outcomes[1], value


def test_non_bytes_input_and_odd_limits_fall_back_to_the_twins_behaviour() -> None:
    assert compiled.loads(bytearray(b"[1]"), 128) == [1]
    assert compiled.canonical_json(b"[[1]]", 10**40) == b"[[1]]"
    assert error_of(compiled.canonical_json, b"[]", -5) == error_of(twin.canonical_json, b"[]", -5)
    assert error_of(compiled.dumps, [], -5) == error_of(twin.dumps, [], -5)


def test_many_members_are_sorted_and_duplicates_found_at_the_earliest_second_occurrence() -> None:
    rng = random.Random(7)
    keys = [f"k{rng.randrange(10**6)}\ue000" if i % 3 else f"\U0001f600{i}" for i in range(300)]
    body = ",".join(f'"{k}":{i}' for i, k in enumerate(keys))
    same(("{" + body + "}").encode())
    dup = ",".join(f'"{k}":{i}' for i, k in enumerate(keys + [keys[150], keys[20]]))
    result = same(("{" + dup + "}").encode())
    assert result[1] == "NUIF_DUPLICATE_KEY"
