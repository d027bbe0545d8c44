"""NUIF-0.1 numbers (NUIF-0 §1 as amended; docs/canonical-json.md, "Large integers").

An integer literal beyond ±(2^53 − 1) is accepted exactly when it is the RFC 8785 text of a
double: it reads as that double, and its canonical text is the literal itself.  Any other such
literal is NUIF_NUMBER, with a message naming the nearest double's RFC 8785 text.  So every
canonical text reads back.  Both codecs, the compiled document fast path and every layer above
follow the rule with identical codes, messages and locations.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import nuif_core
from nuif_core import NuifError, _codec, package

_codec_py = _codec.twin()
#: None in the pure-Python install: the twin alone (CI requires the extension)
_speedups = _codec.compiled()

CODECS = [m for m in (_speedups, _codec_py) if m is not None]
DEPTH = 128
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: integer literals beyond 2^53 - 1 that are the RFC 8785 text of a double
ACCEPTED = [
    "9007199254740992",  # 2^53
    "-9007199254740992",
    "18014398509481984",  # 2^54
    "100000000000000000000",  # 1e20
    "123456789012345680000",
    "1152921504606847000",  # 2^60 (its shortest digits, padded with zeros)
    "-1152921504606847000",
    "999999999999999900000",  # the largest double ECMAScript writes without an exponent
    "9007199254740994000",  # shortest digits 9007199254740994, then zeros
    "18446744073709552000",  # 2^64
]
#: (literal, the nearest double's RFC 8785 text): refused with NUIF_NUMBER
REFUSED = [
    ("9007199254740993", "9007199254740992"),  # not a double: rounds to 2^53
    ("-9007199254740993", "-9007199254740992"),
    ("123456789012345678901", "123456789012345680000"),
    ("1000000000000000000000", "1e+21"),  # exactly a double, but ES writes it 1e+21
    ("1152921504606846976", "1152921504606847000"),  # exactly 2^60, but not its shortest digits
    ("9999999999999999", "10000000000000000"),  # 16 digits: rounds up to 10^16
    ("18446744073709551616", "18446744073709552000"),  # 2^64 as Python's str() writes it
]


def _outcome(fn: Any, *args: Any) -> tuple[Any, ...]:
    try:
        result = fn(*args)
    except NuifError as err:
        return ("error", err.code, err.message, err.pointer, err.line, err.column)
    if isinstance(result, float):
        return ("ok", "float", result.hex())
    return ("ok", result)


def _es_text(x: float) -> str:
    """ECMAScript Number.prototype.toString, as the independent ``rfc8785`` package writes it."""
    return rfc8785.dumps(x).decode()


# -- the examples of NUIF 0.1's numbers, through both codecs -----------------------------------


@pytest.mark.parametrize("literal", ACCEPTED)
def test_an_integer_that_is_the_rfc8785_text_of_a_double_is_accepted_as_that_double(
    codec: Any, literal: str
) -> None:
    x = float(literal)
    assert _es_text(x) == literal  # the premise, from an independent writer
    data = f"[{literal}]".encode()
    assert codec.canonical_json(data, DEPTH) == data
    value = codec.loads(data, DEPTH)
    assert type(value[0]) is float and value[0] == x
    assert codec.dumps(value, DEPTH) == data
    spaced = f'{{"a": [ {literal} , 1]}}'.encode()
    assert codec.canonical_json(spaced, DEPTH) == f'{{"a":[{literal},1]}}'.encode()


@pytest.mark.parametrize(("literal", "nearest"), REFUSED)
def test_an_integer_that_is_not_the_rfc8785_text_of_a_double_is_refused(
    codec: Any, literal: str, nearest: str
) -> None:
    assert _es_text(float(literal)) == nearest  # the premise, from an independent writer
    text = f'{{"n":\n  [true, {literal}]}}'.encode()
    for fn in (codec.canonical_json, codec.loads):
        with pytest.raises(NuifError) as info:
            fn(text, DEPTH)
        err = info.value
        assert (err.code, err.pointer, err.line, err.column) == ("NUIF_NUMBER", "/n/1", 2, 10)
        # why, and what to write instead: the nearest double's RFC 8785 text, or a string
        assert f"integer {literal} " in err.message
        assert "not the RFC 8785 text of a double" in err.message
        assert f"the nearest double is written {nearest})" in err.message
        assert f"write {nearest}, or a string" in err.message


def test_the_limit_stays_inclusive_and_small_integers_stay_int(codec: Any) -> None:
    data = b"[9007199254740991,-9007199254740991,1000000000000000,-0,0]"
    assert codec.loads(data, DEPTH) == [2**53 - 1, -(2**53 - 1), 10**15, 0, 0]
    assert all(type(v) is int for v in codec.loads(data, DEPTH))
    assert (
        codec.canonical_json(data, DEPTH)
        == b"[9007199254740991,-9007199254740991,1000000000000000,0,0]"
    )


def test_an_integer_that_overflows_a_double_says_to_write_a_string(codec: Any) -> None:
    literal = "9" * 400
    with pytest.raises(NuifError) as info:
        codec.canonical_json(f"[{literal}]".encode(), DEPTH)
    err = info.value
    assert (err.code, err.pointer, err.line, err.column) == ("NUIF_NUMBER", "/0", 1, 2)
    assert err.message == f"integer {literal[:37]}... overflows a double: write it as a string"


def test_a_fraction_or_an_exponent_still_rounds_silently(codec: Any) -> None:
    # only integer literals carry the promise of exactness; 1e21 and 9007199254740993.0 round
    assert codec.canonical_json(b"[9007199254740993.0,1000000000000000000000.0,1.2e20]", DEPTH) == (
        b"[9007199254740992,1e+21,120000000000000000000]"
    )


@pytest.mark.parametrize("literal", ["9007199254740993", "1000000000000000000000", "9" * 400])
def test_refusals_are_identical_in_both_codecs_and_the_document_fast_path(literal: str) -> None:
    if _speedups is None:
        pytest.skip("the compiled codec is not built")
    doc = f'{{"nuif": 0, "root": {{"id": "r", "kind": "k",\n "attrs": {{"n": [{literal}]}}}}}}'
    data = doc.encode()
    for fn, args in (
        ("canonical_json", (DEPTH,)),
        ("loads", (DEPTH,)),
        ("canonical_document", (DEPTH, 1000)),
    ):
        compiled = _outcome(getattr(_speedups, fn), data, *args)
        assert compiled[:2] == ("error", "NUIF_NUMBER"), fn
        assert compiled == _outcome(getattr(_codec_py, fn), data, *args), fn
        assert compiled[3:] == ("/root/attrs/n/0", 2, 18), fn
    # and through the public API, under whichever codec is loaded
    with pytest.raises(NuifError) as info:
        nuif_core.canonicalize(data)
    assert (info.value.code, info.value.pointer, info.value.line, info.value.column) == (
        "NUIF_NUMBER",
        "/root/attrs/n/0",
        2,
        18,
    )
    report = nuif_core.validate(data)
    assert not report.valid and report.diagnostics[0].code == "NUIF_NUMBER"


def test_the_document_fast_path_writes_an_accepted_big_integer_as_written() -> None:
    if _speedups is None:
        pytest.skip("the compiled codec is not built")
    doc = b'{"root":{"kind":"k","id":"r","attrs":{"n":[9007199254740992,100000000000000000000]}},"nuif":0}'
    expected = b'{"nuif":0,"root":{"attrs":{"n":[9007199254740992,100000000000000000000]},"id":"r","kind":"k"}}'
    assert _speedups.canonical_document(doc, DEPTH, 10) == expected
    assert _codec_py.canonical_document(doc, DEPTH, 10) == expected


# -- Python ints handed to dumps follow the same rule --------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2**53, "9007199254740992"),
        (-(2**53), "-9007199254740992"),
        (10**20, "100000000000000000000"),
        (123456789012345680000, "123456789012345680000"),
        (2**60, None),  # 1152921504606846976: its double is written 1152921504606847000
        (2**53 + 1, None),
        (10**21, None),
    ],
)
def test_dumps_accepts_a_big_int_exactly_when_its_digits_would_be_read(
    codec: Any, value: int, expected: str | None
) -> None:
    if expected is not None:
        assert codec.dumps([value], DEPTH) == f"[{expected}]".encode()
        return
    with pytest.raises(NuifError) as info:
        codec.dumps({"a": [value]}, DEPTH)
    nearest = _es_text(float(value))
    assert (info.value.code, info.value.pointer) == ("NUIF_NUMBER", "/a/0")
    assert f"integer {value} " in info.value.message and f"write {nearest}," in info.value.message


@pytest.mark.parametrize(
    "value", [2**1024, -(2**1100), 10**5000, -(10**5000)], ids=lambda v: f"{v.bit_length()}-bits"
)
def test_dumps_of_an_int_that_overflows_a_double_is_refused_alike(value: int) -> None:
    outcomes = {_outcome(codec.dumps, [value], DEPTH) for codec in CODECS}
    assert len(outcomes) == 1
    (out,) = outcomes
    assert out[:2] == ("error", "NUIF_NUMBER") and out[3] == "/0"
    assert "overflows a double: write it as a string" in out[2]


# -- every canonical text reads back -------------------------------------------------------------

POWERS = [s * 2.0**e for e in range(53, 71) for s in (1, -1)]


@pytest.mark.parametrize("x", POWERS, ids=lambda x: f"{x:.0f}")
def test_every_power_of_two_from_2_pow_53_to_2_pow_70_reads_back(x: float) -> None:
    texts = {codec.dumps([x], DEPTH) for codec in CODECS}
    assert len(texts) == 1
    (text,) = texts
    assert text.decode() == f"[{_es_text(x)}]"
    for codec in CODECS:
        assert codec.canonical_json(text, DEPTH) == text
        assert codec.loads(text, DEPTH) == [x]


def _bits_to_double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


finite_doubles = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(0, 2**64 - 1).map(_bits_to_double).filter(math.isfinite),
    # the band where RFC 8785 writes integer literals beyond 2^53 - 1, densely
    st.integers(2**53, 10**21 - 1).map(float).map(lambda x: x if x < 1e21 else 2.0**69),
    st.sampled_from(POWERS),
    st.builds(lambda x: -x, st.integers(2**53, 10**21).map(float)),
)


@SETTINGS
@given(finite_doubles)
@example(1e20)
@example(2.0**60)
@example(-(2.0**53))
@example(9.999999999999999e20)
@example(5e-324)
@example(1.7976931348623157e308)
def test_the_canonical_text_of_any_finite_double_reads_back_to_the_same_bytes(x: float) -> None:
    text = CODECS[0].dumps([x], DEPTH)
    for codec in CODECS:
        assert codec.dumps([x], DEPTH) == text
        assert codec.canonical_json(text, DEPTH) == text
        back = codec.loads(text, DEPTH)
        assert back == [x] and codec.dumps(back, DEPTH) == text


big_integer_literals = st.builds(
    lambda sign, head, tail: sign + head + tail,
    st.sampled_from(["", "-"]),
    st.text("123456789", min_size=1, max_size=1),
    st.text("0123456789", min_size=15, max_size=24),
)


@SETTINGS
@given(
    st.one_of(
        big_integer_literals,
        # texts of doubles in the band (2^53 .. 10^21 - 1 rounds to 1e21, written with an exponent)
        st.integers(2**53, 10**21).map(lambda n: _es_text(float(n))).filter(lambda t: "e" not in t),
    )
)
def test_a_big_integer_literal_is_accepted_iff_an_independent_writer_prints_it(
    literal: str,
) -> None:
    data = f"[{literal}]".encode()
    expected_ok = abs(int(literal)) <= 2**53 - 1 or _es_text(float(literal)) == literal
    outcomes = [_outcome(codec.canonical_json, data, DEPTH) for codec in CODECS]
    assert all(o == outcomes[0] for o in outcomes), outcomes
    if expected_ok:
        assert outcomes[0] == ("ok", data)
    else:
        assert outcomes[0][1:2] == ("NUIF_NUMBER",)
        assert f"write {_es_text(float(literal))}, or a string" in outcomes[0][2]


# -- a document holding 1e20 and 2**60 through every layer ----------------------------------------

BIG_DOC = (
    '{"nuif": 0, "root": {"id": "r", "kind": "screen", "attrs": {"big": 1e20, '
    '"p60": 1152921504606846976.0, "neg": -9007199254740992}, '
    '"children": [{"id": "c", "kind": "text", "attrs": {"v": [2e20, 0.5]}}]}}'
)
BIG_CANONICAL = (
    b'{"nuif":0,"root":{"attrs":{"big":100000000000000000000,"neg":-9007199254740992,'
    b'"p60":1152921504606847000},"children":[{"attrs":{"v":[200000000000000000000,0.5]},'
    b'"id":"c","kind":"text"}],"id":"r","kind":"screen"}}'
)


def test_a_document_with_1e20_and_2_pow_60_canonicalizes_and_validates() -> None:
    result = nuif_core.canonicalize(BIG_DOC)
    assert result.canonical == BIG_CANONICAL and result.changed
    again = nuif_core.canonicalize(result.canonical)
    assert (again.canonical, again.hash, again.changed) == (BIG_CANONICAL, result.hash, False)
    assert nuif_core.is_canonical(BIG_CANONICAL)
    for text in (BIG_DOC, BIG_CANONICAL):
        report = nuif_core.validate(text)
        assert report.valid and report.hash == result.hash
        assert nuif_core.document_hash(text) == result.hash
        assert nuif_core.inspect(text).hash == result.hash
    assert json.loads(BIG_CANONICAL)["root"]["attrs"]["p60"] == 1152921504606847000
    assert nuif_core.loads(BIG_CANONICAL)["root"]["attrs"]["p60"] == 2.0**60


def test_a_document_with_1e20_and_2_pow_60_patches_with_an_inverse() -> None:
    base = nuif_core.canonicalize(BIG_DOC)
    patch = {
        "nuif_patch": 0,
        "base": base.hash,
        "transactions": [
            {
                "ops": [
                    {"op": "test", "id": "r", "attr": "big", "value": 100000000000000000000},
                    {"op": "set", "id": "c", "attr": "n", "value": 2.0**60},
                    {
                        "op": "edit",
                        "id": "c",
                        "attr": "v",
                        "patch": [
                            {"op": "add", "path": "/-", "value": 3e20},
                        ],
                    },
                    {"op": "unset", "id": "r", "attr": "neg"},
                ]
            },
        ],
    }
    result = nuif_core.apply_patch(BIG_DOC, patch, inverse=True)
    assert b'"n":1152921504606847000' in result.canonical
    assert b'"v":[200000000000000000000,0.5,300000000000000000000]' in result.canonical
    assert b'"neg"' not in result.canonical
    assert nuif_core.canonicalize(result.canonical).hash == result.hash
    back = nuif_core.apply_patch(result.canonical, result.inverse, inverse=True)
    assert back.canonical == BIG_CANONICAL and back.hash == base.hash
    redo = nuif_core.apply_patch(BIG_CANONICAL, back.inverse)
    assert redo.canonical == result.canonical
    # a Session holds the same document and applies the same patch
    session = nuif_core.Session(BIG_CANONICAL)
    session.apply(patch)
    assert session.canonical() == result.canonical


def test_a_document_with_1e20_and_2_pow_60_diffs_both_ways() -> None:
    a = nuif_core.canonicalize(BIG_DOC).canonical
    b = a.replace(b"100000000000000000000", b"123456789012345680000").replace(
        b'"id":"c"', b'"id":"c2"'
    )
    assert nuif_core.validate(b).valid
    for x, y in ((a, b), (b, a), (BIG_DOC.encode(), b)):
        d = nuif_core.diff(x, y)
        assert nuif_core.canonical_json(d) == d  # the diff itself reads back
        assert nuif_core.apply_patch(x, d).canonical == nuif_core.canonicalize(y).canonical
    assert json.loads(nuif_core.diff(BIG_DOC, a))["transactions"] == []


def test_a_document_with_1e20_and_2_pow_60_packs_and_reads_back() -> None:
    data = package.pack(BIG_DOC)
    pkg = package.read(data)
    assert pkg.document == BIG_CANONICAL
    assert pkg.hash == nuif_core.document_hash(BIG_DOC)


def test_both_float_back_ends_of_the_compiled_codec_judge_big_integers_alike() -> None:
    if _speedups is None:
        pytest.skip("the compiled codec is not built")
    literals = ACCEPTED + [lit for lit, _ in REFUSED] + ["9" * 400, "-" + "1" * 30]
    texts = [f"[{lit}]".encode() for lit in literals]
    values: list[Any] = [2**53, 2**60, 10**20, 10**21, -(2**1030)]
    fast = [_outcome(_speedups.canonical_json, t, DEPTH) for t in texts]
    fast += [_outcome(_speedups.dumps, [v], DEPTH) for v in values]
    old = _speedups._settings(float_libs=False)
    try:
        assert _speedups.float_backend() == "dtoa"
        slow = [_outcome(_speedups.canonical_json, t, DEPTH) for t in texts]
        slow += [_outcome(_speedups.dumps, [v], DEPTH) for v in values]
    finally:
        _speedups._settings(**old)
    assert fast == slow
    assert fast[: len(texts)] == [_outcome(_codec_py.canonical_json, t, DEPTH) for t in texts]
    assert sum(o[0] == "ok" for o in fast[: len(texts)]) == len(ACCEPTED)
