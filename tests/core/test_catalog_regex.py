"""The linear-time matcher of catalog patterns (NUIF-0 §9.4): ECMA-262 (``u`` flag) meanings,
agreement with Python's ``re`` where the two dialects agree, the refusals, and the bounded DFA
cache (forgetting it changes no answer)."""

from __future__ import annotations

import random
import re

import pytest

from nuif_core import _catalog_regex
from nuif_core._catalog_regex import MAX_STATES, PatternError, compile_pattern


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
    assert compile_pattern(pattern).search(text) is found


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
            assert ours.search(text) is bool(theirs.search(text)), (pattern, text)
            compared += 1
    assert compared == 4800


def test_catastrophic_patterns_take_one_pass() -> None:
    for pattern in ("^(a+)+$", "^(a|a?)+$", "^(a*)*b$", "(x+x+)+y"):
        assert compile_pattern(pattern).search("a" * 50_000 + "!") is False


def test_forgetting_the_cache_changes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A DFA too large to keep (its cache dropped again and again) gives the same answers."""
    pattern = "(a|b)*a(a|b){12}$"
    r = random.Random(7)
    texts = ["".join(r.choice("ab") for _ in range(r.randrange(10, 400))) for _ in range(60)]
    kept = [compile_pattern(pattern).search(t) for t in texts]
    monkeypatch.setattr(_catalog_regex, "_HELD_MAX", 40)
    monkeypatch.setattr(_catalog_regex, "_CACHE_MAX", 8)
    small = compile_pattern(pattern)
    assert [small.search(t) for t in texts] == kept
    assert small._held <= 40 + len(small._states)  # what it holds stays within the bound
    theirs = re.compile(pattern.replace("$", "\\Z"))
    assert kept == [bool(theirs.search(t)) for t in texts] and True in kept and False in kept
