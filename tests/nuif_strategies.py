"""Hypothesis strategies for NUIF values and names, shared by the core property tests."""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["attr_names", "ids", "indented_texts", "kinds", "numbers", "text", "values"]

ids = st.from_regex(r"\A[A-Za-z0-9_][A-Za-z0-9_.:-]{0,12}\Z")
kinds = st.from_regex(r"\A[a-z][a-z0-9-]{0,6}(?:[.:/][a-z][a-z0-9-]{0,4}){0,2}\Z")
attr_names = st.from_regex(r"\A[A-Za-z_$@][A-Za-z0-9_$@.:-]{0,10}\Z")
text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufdd0\ufffe\uffff"),
    max_size=12,
).filter(lambda s: not any(0xFDD0 <= ord(c) <= 0xFDEF or (ord(c) & 0xFFFE) == 0xFFFE for c in s))
numbers = st.one_of(
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    # doubles RFC 8785 writes as integer literals beyond 2^53 - 1 (they read back: NUIF-0.1)
    st.sampled_from([1e20, 2.0**60, -(2.0**53), 3.333333333333333e20, 9.999999999999999e20]),
)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, text),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)),
    max_leaves=12,
)


def indented_texts() -> list[bytes]:
    """Pretty-printed texts whose newlines are indented by 0 to 40 spaces and then followed by a
    token, more whitespace of every kind, a byte that is not whitespace and that no rule accepts
    (a vertical tab, a form feed, a letter), or the end of the text: the compiled walk reads an
    indentation of up to 32 spaces in one step (``nuif_indent32``), within 33 bytes of the end
    too."""
    out = []
    for width in range(0, 41):
        for after in ("", "\t", "\r\n  ", "\n", " \n   ", "\x0b", "\x0c", "x"):
            ws = "\n" + " " * width + after
            for text in ("[" + ws + "1," + ws + '"a"' + ws + "]",
                         "{" + ws + '"k":' + ws + "[]," + ws + '"j": {}' + ws + "}",
                         "[1," + ws + "2]" + ws):
                out.append(text.encode())
    return out
