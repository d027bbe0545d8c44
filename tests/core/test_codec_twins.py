"""The compiled codec (``_speedups``) and its pure-Python twin (``_codec_py``) agree.

On every generated text: identical canonical bytes and loaded values, or an identical error
(code, message, pointer, line, column).  Valid texts also agree with the ``rfc8785`` package.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nuif_core import _codec
from nuif_core._errors import NuifError

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it
twin = _codec.twin()

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def outcome(fn: Any, *args: Any) -> tuple[Any, ...]:
    try:
        result = fn(*args)
    except NuifError as exc:
        return ("error", exc.code, exc.message, exc.pointer, exc.line, exc.column)
    return ("ok", shape(result))


def shape(value: Any) -> Any:
    """A comparable rendering that keeps types (True vs 1, 1 vs 1.0) and dict order."""
    if isinstance(value, dict):
        return ("dict", [(k, shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [shape(v) for v in value])
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def assert_twins(data: bytes, max_depth: int = 128) -> tuple[Any, ...]:
    expected = outcome(twin.canonical_json, data, max_depth)
    assert outcome(compiled.canonical_json, data, max_depth) == expected, data
    assert outcome(compiled.loads, data, max_depth) == outcome(twin.loads, data, max_depth), data
    return expected


# -- generated JSON texts -------------------------------------------------------------------------

# characters that matter: ASCII, escapes, 2/3/4-byte UTF-8, U+E000..U+FFFF (sorts after
# supplementary characters in UTF-16), noncharacters, and code points beside them
SPECIAL_CHARS = [
    "a",
    "b",
    "z",
    "A",
    " ",
    "~",
    "\x7f",
    '"',
    "\\",
    "/",
    "\b",
    "\f",
    "\n",
    "\r",
    "\t",
    "\x00",
    "\x1f",
    "é",
    "ß",
    "\u07ff",
    "\u0800",
    "\u2028",
    "\u2029",
    "中",
    "\ud7ff",
    "\ue000",
    "\uf8ff",
    "\ufb01",
    "\ufdcf",
    "\ufdd0",
    "\ufdef",
    "\ufdf0",
    "\ufeff",
    "\ufffd",
    "\ufffe",
    "\uffff",
    "\U00010000",
    "\U0001f600",
    "\U0001fffe",
    "\U0001ffff",
    "\U00010fff",
    "\U0010fffd",
    "\U0010ffff",
]
chars = st.one_of(st.sampled_from(SPECIAL_CHARS), st.characters(codec="utf-8"))
# lone surrogates only reach a text as escapes
escape_only = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"])


@st.composite
def json_string(draw: st.DrawFn) -> str:
    """A JSON string literal whose characters are written raw or escaped in every way."""
    out = ['"']
    for ch in draw(st.lists(st.one_of(chars, escape_only), max_size=12)):
        cp = ord(ch)
        how = draw(st.integers(0, 3))
        if 0xD800 <= cp <= 0xDFFF:
            how = 3
        if ch in '"\\' or cp < 0x20:
            how = max(how, 1)
        if how == 0:
            out.append(ch)
        elif how == 1 and ch in '"\\/\b\f\n\r\t':
            out.append(json.dumps(ch)[1:-1] if ch != "/" else "\\/")
        elif cp >= 0x10000:
            hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
            fmt = draw(st.sampled_from(["\\u{:04x}", "\\u{:04X}"]))
            out.append(fmt.format(hi) + fmt.format(lo))
        elif how == 2:
            out.append(f"\\u{cp:04X}")
        else:
            out.append(f"\\u{cp:04x}")
    out.append('"')
    return "".join(out)


digits = st.text("0123456789", min_size=1, max_size=25)
number_literal = st.one_of(
    st.sampled_from(
        [
            "0",
            "-0",
            "-0.0",
            "0e0",
            "1",
            "-1",
            "1e21",
            "1e-7",
            "1E+2",
            "0.000001",
            "123456789012345",
            "9007199254740991",
            "-9007199254740991",
            "9007199254740992",
            "-9007199254740992",
            "1e400",
            "-1e400",
            "1e-400",
            "4.9e-324",
            "2.2250738585072014e-308",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "0.1",
            "100",
            "1.0",
            "5e-324",
            "123e-20",
            "1e999999999999999999",
        ]
    ),
    st.builds(lambda s, d: s + d.lstrip("0") or "0", st.sampled_from(["", "-"]), digits),
    st.builds(
        lambda s, i, f, e: f"{s}{i.lstrip('0') or '0'}{'.' + f if f else ''}{e}",
        st.sampled_from(["", "-"]),
        digits,
        st.one_of(st.just(""), digits),
        st.one_of(
            st.just(""),
            st.builds(
                lambda c, sg, d: c + sg + d,
                st.sampled_from("eE"),
                st.sampled_from(["", "+", "-"]),
                st.text("0123456789", min_size=1, max_size=4),
            ),
        ),
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)

ws = st.sampled_from(["", "", "", " ", "\n", "\t", "\r\n", "  \n    "])


def json_text(max_leaves: int = 30) -> st.SearchStrategy[str]:
    scalar = st.one_of(json_string(), number_literal, st.sampled_from(["true", "false", "null"]))

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        arrays = st.builds(
            lambda items, w1, w2: "[" + w1 + ("," + w2).join(items) + w2 + "]",
            st.lists(children, max_size=5),
            ws,
            ws,
        )
        keys = st.one_of(
            json_string(), st.sampled_from(['"a"', '"b"', '"\\u0061"', '"\ue000"', '"\U0001f600"'])
        )
        members = st.lists(st.tuples(keys, ws, children), max_size=5)
        objects = st.builds(
            lambda ms, w: "{" + w + ",".join(k + w + ":" + v for k, w2, v in ms) + w + "}",
            members,
            ws,
        )
        return st.one_of(arrays, objects)

    return st.builds(
        lambda a, v, b: a + v + b, ws, st.recursive(scalar, extend, max_leaves=max_leaves), ws
    )


@SETTINGS
@given(json_text())
def test_generated_texts_give_identical_results(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    result = assert_twins(data)
    if result[0] == "ok":
        assert compiled.dumps(compiled.loads(data, 128), 128) == compiled.canonical_json(data, 128)


@SETTINGS
@given(json_text(), st.data())
def test_mutated_texts_give_identical_results(text: str, data: st.DataObject) -> None:
    raw = bytearray(text.encode("utf-8", "surrogatepass"))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.integers(0, 3))
        pos = data.draw(st.integers(0, len(raw)))
        if op == 0 and raw:
            raw[min(pos, len(raw) - 1)] = data.draw(st.integers(0, 255))
        elif op == 1:
            raw[pos:pos] = data.draw(
                st.sampled_from(
                    [
                        b"\xc0",
                        b"\x80",
                        b"\xed\xa0\x80",
                        b"\xf4\x90\x80\x80",
                        b"\xef\xbb\xbf",
                        b"\xe2\x82",
                        b'"',
                        b"\\",
                        b"{",
                        b"]",
                        b",",
                        b"\x00",
                    ]
                )
            )
        elif op == 2:
            del raw[pos : pos + data.draw(st.integers(1, 3))]
        else:
            del raw[pos:]
    assert_twins(bytes(raw), data.draw(st.sampled_from([128, 128, 4, 1, 0])))


@SETTINGS
@given(
    st.integers(0, 12),
    st.integers(0, 12),
    st.sampled_from(["[", '{"k":']),
    st.sampled_from(["]", "}"]),
)
def test_nesting_near_the_limit_gives_identical_results(
    depth: int, limit: int, opener: str, closer: str
) -> None:
    text = opener * depth + "0" + closer * depth
    assert_twins(text.encode(), limit)
    assert_twins(("[" * depth + "]" * depth).encode(), limit)


# the scanners work in 8-, 16- and 64-byte blocks: runs of every length around those, with the
# run's end (a special byte, invalid UTF-8, or the end of the text) at every offset in a block
RUN_ENDS = [
    b"",
    b"0]",
    b'"',
    b"\\n",
    b"\x01",
    b"\x7f",
    b"\xc3\xa9",
    b"\xe4\xb8\xad",
    b"\xef\xbf\xbf",
    b"\xf0\x9f\x98\x80",
    b"\xcd",
    b"\x80",
    b"\xed\xa0\x80",
    b"\t",
    b"\n",
    b"x",
]


def test_runs_longer_than_a_scan_block_give_identical_results() -> None:
    for opener in (b"[", b'{"k":', b'["', b'{"', b""):
        for unit in (b" ", b"\n", b"a", b"\xc3\xa9", b"\xe4\xb8\xad"):
            for length in range(72):
                body = (unit * length)[:length] if len(unit) == 1 else unit * (length // len(unit))
                for end in RUN_ENDS:
                    assert_twins(opener + body + end)
                    assert_twins(opener + body + end + b'"]}')


@SETTINGS
@given(json_text())
def test_valid_texts_match_the_rfc8785_package(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    try:
        ours = compiled.canonical_json(data, 128)
    except NuifError:
        return
    try:
        theirs = rfc8785.dumps(json.loads(data))
    except (rfc8785.CanonicalizationError, ValueError):
        return  # e.g. integers the package refuses; NUIF's own rule is tested elsewhere
    assert ours == theirs


# -- dumps on generated Python values -----------------------------------------------------------

py_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.sampled_from([2**53 - 1, -(2**53 - 1), 2**53, -(2**53), 10**30]),
    st.floats(),
    st.sampled_from([0.0, -0.0, 1e21, 1e-7, 5e-324, math.inf, -math.inf, math.nan]),
    st.text(st.one_of(st.sampled_from(SPECIAL_CHARS), escape_only, st.characters()), max_size=8),
)
bad_values = st.sampled_from([b"bytes", {1, 2}, object(), 1j])
py_keys = st.one_of(
    st.text(st.one_of(st.sampled_from(SPECIAL_CHARS), escape_only), max_size=4),
    st.sampled_from([1, None, 2.5]),
)


def py_values() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.one_of(py_scalars, bad_values),
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(py_keys, children, max_size=5),
        ),
        max_leaves=25,
    )


def dumps_outcome(fn: Any, value: Any, max_depth: int) -> tuple[Any, ...]:
    try:
        return ("ok", fn(value, max_depth))
    except NuifError as exc:
        return ("error", exc.code, exc.message, exc.pointer, exc.line, exc.column)


@SETTINGS
@given(py_values(), st.sampled_from([128, 128, 3, 1, 0]))
def test_dumps_gives_identical_results(value: Any, max_depth: int) -> None:
    assert dumps_outcome(compiled.dumps, value, max_depth) == dumps_outcome(
        twin.dumps, value, max_depth
    )


@SETTINGS
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_dumps_of_any_double_matches_the_twin_and_rfc8785(x: float) -> None:
    ours = compiled.dumps(x, 128)
    assert ours == twin.dumps(x, 128) == rfc8785.dumps(x)
    assert compiled.canonical_json(repr(x).encode(), 128) == ours


class _LyingInt(int):
    """An int whose conversions and text say another number than the one it holds."""

    def __int__(self) -> int:
        return 99

    def __index__(self) -> int:
        return 98

    def __repr__(self) -> str:
        return "97"

    __str__ = __repr__


class _LyingFloat(float):
    def __float__(self) -> float:
        return 99.0

    def __repr__(self) -> str:
        return "97.5"

    __str__ = __repr__


@pytest.mark.parametrize("dumps", [compiled.dumps, twin.dumps], ids=["compiled", "twin"])
def test_dumps_of_a_number_subclass_writes_the_number_it_holds_not_what_it_says(dumps: Any) -> None:
    big = 10**20  # beyond 2^53: written because its digits are a double's text
    assert dumps([_LyingInt(5), _LyingInt(-7), _LyingFloat(5.5)], 128) == b"[5,-7,5.5]"
    assert dumps(_LyingInt(big), 128) == str(big).encode()
    with pytest.raises(NuifError) as err:
        dumps(_LyingInt(big + 1), 128)  # not a double's text, whatever __int__ says
    assert err.value.code == "NUIF_NUMBER"
