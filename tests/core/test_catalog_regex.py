"""The linear-time matcher of catalog patterns (NUIF-0 §9.4): ECMA-262 (``u`` flag) meanings,
agreement with Python's ``re`` where the two dialects agree, the refusals, and the DFA each
validation builds for itself (what it holds changes no answer and no charge)."""

from __future__ import annotations

import random
import re

import pytest

from nuif_core._catalog_eval import Meter
from nuif_core._catalog_regex import (
    MAX_GROUP_DEPTH,
    MAX_STATES,
    Pattern,
    PatternError,
    compile_pattern,
)


def _search(pattern: Pattern, text: str) -> bool:
    """One search in a validation of its own (a fresh meter, so a fresh DFA)."""
    return Meter().search(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        ("^\\d+$", "123", True),
        ("^\\d$", "\u0663", False),  # ECMA-262's \d is ASCII, Python's any Unicode digit
        ("^a$", "a\n", False),  # $ is the end of the string, not before a final newline
        ("^.$", "\n", False),
        ("^.$", "\u2028", False),
        ("^.$", "😀", True),  # one code point (u flag)
        ("\\s", "\u3000", True),
        ("\\s", "\ufeff", True),
        ("^\\w+$", "é", False),
        ("^[^a-c]$", "d", True),
        ("^[\\d\\-x]+$", "1-x", True),
        ("^\\u{1F600}$", "😀", True),
        ("^\\uD83D\\uDE00$", "😀", True),
        ("^\\x41\\u0042$", "AB", True),
        ("^(?<year>\\d{4})-(?:\\d{2})$", "2026-12", True),
        ("colou?r", "my color", True),
        ("^a{2,3}$", "aaaa", False),
        ("^a{2,}$", "aaaa", True),
        ("^(a|b)*c+?$", "ababcc", True),
        ("", "", True),
        ("^$", "", True),
        ("x", "", False),
        ("[\\b]", "\b", True),
        ("^\\/\\.\\*$", "/.*", True),
    ],
)
def test_ecma_262_meanings(pattern: str, text: str, found: bool) -> None:
    assert _search(compile_pattern(pattern), text) is found


@pytest.mark.parametrize(
    ("pattern", "why", "offset"),
    [
        ("(?=a)b", "look-around", 0),
        ("(?<!a)b", "look-around", 0),
        ("(a)\\1", "back-references", 3),
        ("\\bword", "word-boundary", 0),
        ("\\p{L}", "Unicode property escapes", 0),
        ("a{3,2}", "out of order", 1),
        ("[z-a]", "out of order", 2),
        ("a**", "a quantifier follows a quantifier", 2),
        ("*a", "nothing to repeat", 0),
        ("(a", "an unterminated group", 0),
        ("[a", "an unterminated character class", 0),
        ("a)", "unmatched ')'", 1),
        ("a{", "a lone '{'", 1),
        ("]", "a lone ']'", 0),
        ("\\q", "is not defined", 0),
        ("\\u{110000}", "beyond U+10FFFF", 0),
        ("\\", "cannot end with", 0),
        ("(a){1001}", "a repetition count above", 4),
    ],
)
def test_refusals_say_what_and_where(pattern: str, why: str, offset: int) -> None:
    with pytest.raises(PatternError) as caught:
        compile_pattern(pattern)
    assert why in caught.value.message and caught.value.offset == offset


def test_the_automaton_is_bounded() -> None:
    compile_pattern(f"a{{{MAX_STATES - 1}}}")
    with pytest.raises(PatternError, match="more than 1000 automaton states"):
        compile_pattern("(ab){600}")


def _patterns(r: random.Random, count: int) -> list[str]:
    """Patterns where ECMA-262 and Python's re agree (ASCII classes, no $ before a newline) and
    which re runs quickly: quantifiers on single atoms only, so re cannot backtrack much."""
    atoms = ["a", "b", ".", "[ab]", "[^a]", "\\d", "\\w", "x", "[a-c]", "(?:ab|c)", "(a|b)"]
    out = []
    for _ in range(count):
        parts = [
            r.choice(atoms) + r.choice(["", "", "*", "+", "?", "{2}", "{1,3}"])
            for _ in range(r.randrange(1, 5))
        ]
        pattern = "".join(parts)
        if r.random() < 0.3:
            pattern = "^" + pattern
        if r.random() < 0.3:
            pattern += "$"
        out.append(pattern)
    return out


def test_agrees_with_python_re_where_the_dialects_agree() -> None:
    r = random.Random(20261206)
    compared = 0
    for pattern in _patterns(r, 400):
        ours = compile_pattern(pattern)
        theirs = re.compile(pattern.replace("$", "\\Z"), re.ASCII)
        for _ in range(12):
            text = "".join(r.choice("abcx1_ ") for _ in range(r.randrange(0, 9)))
            assert _search(ours, text) is bool(theirs.search(text)), (pattern, text)
            compared += 1
    assert compared == 4800


def test_catastrophic_patterns_take_one_pass() -> None:
    for pattern in ("^(a+)+$", "^(a|a?)+$", "^(a*)*b$", "(x+x+)+y"):
        assert _search(compile_pattern(pattern), "a" * 50_000 + "!") is False


def test_a_dfa_shared_by_many_searches_changes_no_answer_and_no_charge() -> None:
    """One validation's DFA (one meter) serving many strings gives the answers of a fresh DFA
    per string; and a string's charge in a fresh validation is the same whatever was searched
    before in other validations (nothing is kept between them)."""
    pattern = compile_pattern("(a|b)*a(a|b){12}$")
    r = random.Random(7)
    texts = ["".join(r.choice("ab") for _ in range(r.randrange(10, 400))) for _ in range(60)]
    shared = Meter()
    together = [shared.search(pattern, t) for t in texts]
    alone = [_search(pattern, t) for t in texts]
    assert together == alone and True in alone and False in alone
    theirs = re.compile("(a|b)*a(a|b){12}\\Z")
    assert alone == [bool(theirs.search(t)) for t in texts]

    def charge(text: str) -> int:
        meter = Meter()
        meter.search(pattern, text)
        return meter.used

    first = [charge(t) for t in texts]
    assert [charge(t) for t in reversed(texts)] == first[::-1]


def test_every_step_is_charged() -> None:
    """A step along a transition already built costs one unit; a new DFA state the states it
    visits; the empty string one unit (it was free once, so millions of them cost nothing)."""
    pattern = compile_pattern("^[a-z]+$")
    meter = Meter()
    meter.search(pattern, "abc")
    first = meter.used
    meter.search(pattern, "abc")
    assert meter.used - first == 3 + 1  # three cached steps and the end-of-string check
    before = meter.used
    meter.search(pattern, "")
    assert meter.used == before + 1
    # distinct one-character strings, each a new transition from a start state of ~800
    # automaton states: each is charged the states its step visits (once charged ~2)
    wide = compile_pattern("(a?){400}b")
    assert wide.size > 800
    meter = Meter()
    for i in range(50):
        assert not meter.search(wide, chr(0x4E00 + i))
    assert meter.used >= 50 * 2 * 800


def test_groups_nest_at_most_the_bound() -> None:
    """Nested groups are parsed by recursion, so their depth is bounded (a pattern of 197
    nested groups once exhausted the Python stack instead of being refused)."""
    depth = MAX_GROUP_DEPTH
    assert _search(compile_pattern("(" * depth + "a" + ")" * depth), "a")
    for deeper in (depth + 1, 197, 5000):
        with pytest.raises(PatternError) as caught:
            compile_pattern("(" * deeper + "a" + ")" * deeper)
        assert caught.value.message == f"groups are nested more than {depth} deep"
        assert caught.value.offset == depth
