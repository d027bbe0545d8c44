"""Hypothesis strategies for NUIF values and names, shared by the core property tests."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from hypothesis import strategies as st

__all__ = [
    "attr_names",
    "damaged_corpus_texts",
    "ids",
    "indented_texts",
    "kinds",
    "numbers",
    "reindented_texts",
    "text",
    "values",
]

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
    for width in range(41):
        for after in ("", "\t", "\r\n  ", "\n", " \n   ", "\x0b", "\x0c", "x"):
            ws = "\n" + " " * width + after
            for text in (
                "[" + ws + "1," + ws + '"a"' + ws + "]",
                "{" + ws + '"k":' + ws + "[]," + ws + '"j": {}' + ws + "}",
                "[1," + ws + "2]" + ws,
            ):
                out.append(text.encode())
    return out


def reindented_texts() -> list[bytes]:
    """Texts whose lines change their indentation where a reader would not expect it: the
    compiled walk guesses a line's indentation from the last line it read at the same depth
    (``nuif_walk_direct_next``) and must count it wherever the guess is wrong.  Each text is a
    seeded random tree of arrays and objects (the same every run), one value or member a line,
    indented mostly by depth; some lines are one space off, some at a random width (0 to 40),
    some have a tab, a carriage return or more whitespace behind the spaces; some trees nest up
    to 70 deep (past the 64 depths whose guesses the walk keeps); the last lines of each text
    are within 33 bytes of its end."""
    rng = random.Random(20261203)
    return [_reindented_text(rng, chain=case % 8 == 0) for case in range(160)]


def _reindented_text(rng: random.Random, chain: bool) -> bytes:
    """One text of :func:`reindented_texts`, drawn from ``rng``: a random tree, or with ``chain``
    an array chain deeper than the guesses go, and back out."""
    step = rng.choice((0, 1, 2, 4, 8))
    wobble = rng.choice((0.0, 0.05, 0.3, 1.0))
    lines: list[str] = []

    def line(depth: int, token: str) -> None:
        width = depth * step
        r = rng.random()
        if r < wobble / 3:
            width = rng.randint(0, 40)
        elif r < wobble * 2 / 3:
            width = max(0, width + rng.choice((-1, 1)))
        elif r < wobble:
            token = rng.choice(("\t", "\r", " ", "  \n   ")) + token
        lines.append(" " * width + token)

    budget = [rng.randint(3, 60)]  # values yet to write

    def value(depth: int, name: str) -> None:
        kind = rng.random()
        budget[0] -= 1
        if depth >= 70 or budget[0] <= 0 or kind < 0.3:
            line(depth, name + rng.choice(('"x"', "1", "true", "[]", "{}", '"\\u00e9"')))
            return
        is_obj = kind < 0.65
        line(depth, name + ("{" if is_obj else "["))
        count = rng.randint(1, 4)
        for k in range(count):
            value(depth + 1, f'"k{k}": ' if is_obj else "")
            if k < count - 1:
                lines[-1] += ","
        line(depth, "}" if is_obj else "]")

    if chain:
        deep = rng.randint(64, 70)
        for d in range(deep):
            line(d, "[")
        line(deep, "0")
        for d in reversed(range(deep)):
            line(d, "]")
    else:
        value(0, "")
    return "\n".join(lines).encode()


def damaged_corpus_texts(
    seed: int,
    per_document: int,
    inserts: Sequence[bytes] = (b'"x":1,', b"\xc3", b"1e999", b'"\\ud800"', b","),
) -> Iterator[bytes]:
    """The benchmark corpus's documents of the three shapes at 1 and 4 KiB, each followed by
    ``per_document`` copies damaged at a seeded random place: a byte replaced, a few deleted,
    one of ``inserts`` inserted, or kinds misspelled (a schema problem)."""
    from benchmarks import corpus

    rng = random.Random(seed)
    for shape in corpus.SHAPES:
        for size in (1024, 4096):
            data = corpus.load(shape, size)
            yield data
            for _ in range(per_document):
                b = bytearray(data)
                at = rng.randrange(len(b))
                what = rng.randrange(4)
                if what == 0:
                    b[at] = rng.choice(b'{}[]",:0a\\\x00\xff -')
                elif what == 1:
                    del b[at : at + rng.randint(1, 8)]
                elif what == 2:
                    b[at:at] = rng.choice(list(inserts))
                else:
                    b = bytearray(data.replace(b'"kind": "', b'"kind": "A', rng.randint(1, 3)))
                yield bytes(b)
