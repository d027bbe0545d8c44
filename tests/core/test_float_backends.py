"""The compiled codec's two float back ends give identical results.

Doubles are converted by the vendored fast_float (parsing) and Dragonbox (shortest digits) when
the build has a C++17 compiler (csrc/nuif_float.h), else by CPython's dtoa
(``PyOS_string_to_double`` / ``PyOS_double_to_string``).  Both are correctly rounded; these tests
hold them to the same bytes, to Python's ``float()`` / ``repr()`` and to the RFC 8785 number
file.  ``.ci/run`` sets ``NUIF_REQUIRE_FLOAT_LIBS=1``, so there the fast back end must be the one
in use.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nuif_core import _codec
from nuif_core._errors import NuifError

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it
twin = _codec.twin()

MAX_DEPTH = 128
HAVE_FLOAT_LIBS = compiled.float_backend() == "fast_float+dragonbox"
needs_float_libs = pytest.mark.skipif(
    not HAVE_FLOAT_LIBS, reason="built without the float libraries"
)


@contextmanager
def dtoa() -> Iterator[None]:
    old = compiled._settings(float_libs=False)
    try:
        assert compiled.float_backend() == "dtoa"
        yield
    finally:
        compiled._settings(**old)


def both(fn, *args):  # type: ignore[no-untyped-def]
    """(fast result, dtoa result), each a value or ("error", code, message, pointer)."""

    def one():  # type: ignore[no-untyped-def]
        try:
            return fn(*args)
        except NuifError as exc:
            return ("error", exc.code, exc.message, exc.pointer)

    fast = one()
    with dtoa():
        slow = one()
    return fast, slow


def twin_outcome(text: bytes):  # type: ignore[no-untyped-def]
    try:
        return twin.canonical_json(text, MAX_DEPTH)
    except NuifError as exc:
        return ("error", exc.code, exc.message, exc.pointer)


def test_ci_build_uses_the_float_libraries() -> None:
    if os.environ.get("NUIF_REQUIRE_FLOAT_LIBS") != "1":
        pytest.skip("NUIF_REQUIRE_FLOAT_LIBS is not set (CI sets it)")
    assert compiled.float_backend() == "fast_float+dragonbox"


def test_switching_back_ends_is_reported_and_restored() -> None:
    before = compiled.float_backend()
    with dtoa():
        assert compiled.float_backend() == "dtoa"
    assert compiled.float_backend() == before


@needs_float_libs
def test_es6_number_file_through_both_back_ends(testdata: Path) -> None:
    lines = (testdata / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines()
    values = [
        struct.unpack(">d", bytes.fromhex(line.split(",")[0].rjust(16, "0")))[0] for line in lines
    ]
    expected = ",".join(line.split(",")[1] for line in lines)
    fast, slow = both(compiled.dumps, values, MAX_DEPTH)
    assert fast == slow == f"[{expected}]".encode()


# shortest digit strings with zeros where their low 8 digits start (the printer writes the low 8
# digits and the rest as two halves), of every length from 9 to 17 digits
SPLIT_DIGITS = [
    1.0000000000000002,
    1.00000001,
    10000000000000002.0,
    1.0000000100000002,
    100000000.5,
    1.000000001e-300,
    9.00000000000001e250,
    123456789.00000001,
    2.00000000000004e-5,
    4.000000000000001,
    1e8 + 1,
    1e16 + 2,
]


@needs_float_libs
def test_shortest_digits_with_zeros_where_their_halves_meet() -> None:
    values = SPLIT_DIGITS + [
        float(f"1{'0' * z}{d}e{e}")
        for z in range(16)
        for d in (1, 7)
        for e in (-200, 0, 9, 200)
        if z + 2 <= 17
    ]
    fast, slow = both(compiled.dumps, values, MAX_DEPTH)
    assert fast == slow
    assert fast == twin.dumps(values, MAX_DEPTH)
    for x in values:  # the text reads back as the same double
        assert float(compiled.dumps(x, MAX_DEPTH)) == x


@needs_float_libs
def test_every_digit_count_in_every_es_layout() -> None:
    """Shortest digits of every length from 1 to 17, each spelled in all four ES layouts
    (integer with trailing zeros, a point among the digits, 0.000ddd, and e-notation): the
    printer's in-place digits and the spelling's short copies (1 to 17 bytes) against dtoa and
    the pure-Python twin."""
    base = "12345678912345678"
    values = []
    for k in range(1, 18):
        digits = base[: k - 1] + "7"
        for n in (k, k + 2, 21, 1, k // 2, 0, -3, -5, 22, 25, -6, -9, 300, -300):
            values.append(float(f"0.{digits}e{n}"))
    fast, slow = both(compiled.dumps, values, MAX_DEPTH)
    assert fast == slow
    assert fast == twin.dumps(values, MAX_DEPTH)
    for x in values:
        assert float(compiled.dumps(x, MAX_DEPTH)) == x


def long_spellings(x: float, es: str) -> list[str]:
    """ES text ``es`` of ``x`` (16-17 shortest digits) and other spellings of x, or of numbers
    next to it: Python's repr, printf's, upper-case or unsigned or zero-padded exponents, a
    trailing zero, an 18th digit, the last digit moved, the positional form."""
    positional = format(Decimal(es), "f")
    out = [
        es,
        repr(x),
        f"{x:.17g}",
        f"{x:.16e}",
        f"{x:.18g}",
        es.replace("e", "E"),
        es.replace("e+", "e"),
        es.replace("e-", "e-0").replace("e+", "e+0"),
    ]
    if "." in positional:  # not an integer (too large for a literal)
        out.append(positional)
    mant, _, exp = es.partition("e")
    if "." in mant:
        out.append(mant + "0" + ("e" + exp if exp else ""))  # a trailing zero
        out.append(mant + "1" + ("e" + exp if exp else ""))  # an 18th digit
        last = int(mant[-1])
        out.append(mant[:-1] + str(last % 9 + 1) + ("e" + exp if exp else ""))  # another number
    return [s for s in dict.fromkeys(out) if s[-1] not in ".e+-"]


@needs_float_libs
def test_long_literals_that_are_their_es_text_are_kept_as_written() -> None:
    """A literal of 16-17 significant digits that is already its double's RFC 8785 text (its
    shortest digits, laid out as ECMAScript lays them out) is written as it is, and every other
    spelling as its double's text: the canonical text is the same as dtoa's and the twin's, in
    every ES layout: "ddd.ddd", "0.000ddd" (up to five zeros), and e-notation on both sides."""
    values = []
    for k in (16, 17):
        digits = "1234567891234567"[: k - 1] + "3"
        for n in (1, 3, 15, 16, 21, 22, 25, 0, -4, -5, -6, -7, -20, 300, -300, -307):
            values.append(float(f"0.{digits}e{n}"))
    values += [
        0.30000000000000004,
        -366.76810892562906,
        3.6677366528959417e27,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        -3.667793373769792e-07,
        5.0e-324 * 12345678901234567,
    ]
    kept = long_es = 0
    for x in values:
        es = compiled.dumps(x, MAX_DEPTH).decode()
        long_es += (
            not es.lstrip("-").isdigit()
            and len(es.lstrip("-").split("e")[0].replace(".", "").lstrip("0")) >= 16
        )
        for literal in long_spellings(x, es):
            text = f"[{literal}]".encode()
            fast, slow = both(compiled.canonical_json, text, MAX_DEPTH)
            assert fast == slow == twin_outcome(text), literal
            assert compiled.loads(text, MAX_DEPTH) == [float(literal)], literal
            digits = literal.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
            if len(digits) < 16 or digits.endswith("0") or literal.lstrip("-").isdigit():
                continue  # not a long decimal (short digits, integers: other paths)
            kept += literal == es
    assert kept == long_es >= len(values) - 6  # integers and subnormals are spelled otherwise


EDGE_LITERALS = [
    "0.1",
    "-0.0",
    "0e0",
    "1E3",
    "2.50",
    "1e-7",
    "1e21",
    "1e+21",
    "123456789012345678e-2",
    "9007199254740993.0",  # halfway between two doubles: rounds to even
    "2.2250738585072011e-308",
    "2.2250738585072014e-308",  # around the smallest normal
    "4.9406564584124654e-324",
    "5e-324",
    "2.4703282292062328e-324",  # rounds up to 5e-324
    "2.4703282292062327e-324",
    "1e-400",
    "-1e-400",  # underflow to zero
    "1.7976931348623157e308",
    "1.7976931348623158e308",  # rounds to the largest double
    "1.7976931348623159e308",
    "1e309",
    "-1e400",  # overflow: NUIF_NUMBER
    "0." + "0" * 400 + "1",
    "1" + "0" * 300 + ".5",
    "3." + "14159265358979323846" * 40,
    "7.2057594037927933e16",
    "8.98846567431158e307",
    "0.30000000000000004",
]


@needs_float_libs
@pytest.mark.parametrize("literal", EDGE_LITERALS)
def test_edge_literals_agree_with_dtoa_and_python(literal: str) -> None:
    text = f"[{literal}]".encode()
    fast, slow = both(compiled.canonical_json, text, MAX_DEPTH)
    assert fast == slow == twin_outcome(text)
    loaded_fast, loaded_slow = both(compiled.loads, text, MAX_DEPTH)
    assert loaded_fast == loaded_slow
    if isinstance(loaded_fast, list):
        assert loaded_fast[0] == float(literal)
    else:
        assert loaded_fast[1] == "NUIF_NUMBER"  # only overflow is refused


def bits_to_double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


finite_doubles = (
    st.integers(0, 2**64 - 1)
    .map(bits_to_double)
    .filter(lambda x: x == x and abs(x) != float("inf"))
)


@needs_float_libs
@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.one_of(finite_doubles, st.floats(allow_nan=False, allow_infinity=False)),
        min_size=1,
        max_size=50,
    )
)
def test_printing_any_double_agrees_with_dtoa_and_reparses(values: list[float]) -> None:
    fast, slow = both(compiled.dumps, values, MAX_DEPTH)
    assert fast == slow == twin.dumps(values, MAX_DEPTH)
    assert [float(v) for v in fast.decode()[1:-1].split(",")] == values


digits = st.text("0123456789", min_size=1, max_size=40)
literals = st.builds(
    lambda neg, i, f, e: (
        ("-" if neg else "") + i.lstrip("0").rjust(1, "0") + (f".{f}" if f else "") + e
    ),
    st.booleans(),
    digits,
    st.one_of(st.just(""), digits),
    st.one_of(st.just(""), st.integers(-340, 320).map(lambda n: f"e{n:+d}")),
)


@needs_float_libs
@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(literals, finite_doubles.map(repr)), min_size=1, max_size=30))
def test_parsing_any_literal_agrees_with_dtoa_and_python(items: list[str]) -> None:
    text = ("[" + ",".join(items) + "]").encode()
    fast, slow = both(compiled.canonical_json, text, MAX_DEPTH)
    assert fast == slow == twin_outcome(text)
