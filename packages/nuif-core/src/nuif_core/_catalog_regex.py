"""The ``pattern`` of catalog schemas: ECMA-262 regular expressions, matched in linear time.

This is not a public API.  JSON Schema patterns are ECMA-262 regular expressions (with the ``u``
flag); Python's ``re`` reads them differently (``\\d`` is any Unicode digit, ``$`` also matches
before a final newline) and backtracks, so a pattern such as ``^(a+)+$`` takes exponential time.
Catalogs come from agents and other untrusted hands, so a pattern is parsed here, by the rules of
NUIF-0 §9.4 (docs/spec/nuif-0.1-catalogs.md), into a Thompson automaton and run by simulating the
automaton over sets of states: time O(n·m) for a string of n characters and a pattern of m
states, whatever the pattern, with the sets met cached as the states of a lazily built DFA.

The subset: literal characters; ``.``; the escapes ``\\d \\D \\w \\W \\s \\S \\t \\n \\r \\f \\v
\\0 \\xHH \\uHHHH \\u{H…}`` and escaped syntax characters; classes ``[…]`` / ``[^…]`` with ranges
and class escapes; groups ``(…)``, ``(?:…)`` and ``(?<name>…)``; alternation; the quantifiers
``* + ? {n} {n,} {n,m}``, greedy or lazy (the same for whether a match exists); the assertions ``^``
and ``$``.  Back-references, look-around, ``\\b``/``\\B`` and ``\\p{…}`` are refused with a
:class:`PatternError` saying so.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "DFA",
    "MAX_GROUP_DEPTH",
    "MAX_STATES",
    "Pattern",
    "PatternError",
    "compile_pattern",
]

#: automaton states a pattern may compile to (counted repetition multiplies its operand)
MAX_STATES = 1000
#: groups nested in one another (the parser and the automaton builder recurse on them)
MAX_GROUP_DEPTH = 32
_MAX_CODE_POINT = 0x10FFFF

# ECMA-262 classes (the ``u`` flag, no ``i``)
_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
_LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_SYNTAX = "^$\\.*+?()[]{}|/"
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}


class Meter(Protocol):
    """What a search charges its work to (one validation's meter: ``_catalog_eval.Meter``)."""

    def charge(self, units: int) -> None: ...


class PatternError(ValueError):
    """A pattern outside the subset, or malformed: ``message`` and the character ``offset``."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def _normalize(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return tuple(out)


_DOT = _complement(_normalize(list(_LINE_TERMINATORS)))
_CLASS_ESCAPES = {
    "d": _DIGIT,
    "D": _complement(_DIGIT),
    "w": _WORD,
    "W": _complement(_WORD),
    "s": _normalize(list(_SPACE)),
    "S": _complement(_normalize(list(_SPACE))),
}


# --- the syntax tree ----------------------------------------------------------------------------
# ("set", ranges) | ("cat", [nodes]) | ("alt", [nodes]) | ("rep", node, min, max|None)
# | ("bol",) | ("eol",) | ("empty",)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.names: set[str] = set()
        self.depth = 0  # groups open around the current position

    def error(self, message: str, at: int | None = None) -> PatternError:
        return PatternError(message, self.i if at is None else at)

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def parse(self) -> tuple[Any, ...]:
        node = self.disjunction()
        if self.i < len(self.text):
            raise self.error(f"unmatched {self.text[self.i]!r}")
        return node

    def disjunction(self) -> tuple[Any, ...]:
        branches = [self.alternative()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.alternative())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def alternative(self) -> tuple[Any, ...]:
        terms = []
        while self.i < len(self.text) and self.peek() not in "|)":
            terms.append(self.term())
        if not terms:
            return ("empty",)
        return terms[0] if len(terms) == 1 else ("cat", terms)

    def term(self) -> tuple[Any, ...]:
        c = self.peek()
        if c == "^":
            self.i += 1
            return ("bol",)
        if c == "$":
            self.i += 1
            return ("eol",)
        start = self.i
        atom = self.atom()
        return self.quantified(atom, start)

    def quantified(self, atom: tuple[Any, ...], start: int) -> tuple[Any, ...]:
        c = self.peek()
        if c == "*":
            low, high = 0, None
            self.i += 1
        elif c == "+":
            low, high = 1, None
            self.i += 1
        elif c == "?":
            low, high = 0, 1
            self.i += 1
        elif c == "{":
            low, high = self.braces()
        else:
            return atom
        if self.peek() == "?":  # lazy: the same answer to "is there a match"
            self.i += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise self.error("nothing to repeat (a quantifier follows a quantifier)")
        return ("rep", atom, low, high)

    def braces(self) -> tuple[int, int | None]:
        at = self.i
        self.i += 1
        low = self.number()
        if low is None:
            raise self.error("a lone '{' (write \\{ for the character)", at)
        high: int | None = low
        if self.peek() == ",":
            self.i += 1
            high = self.number()
        if self.peek() != "}":
            raise self.error("an unterminated {n,m} quantifier", at)
        self.i += 1
        if high is not None and high < low:
            raise self.error(f"the quantifier {{{low},{high}}} is out of order", at)
        return low, high

    def number(self) -> int | None:
        start = self.i
        while self.peek().isdigit() and self.peek() in "0123456789":
            self.i += 1
        if self.i == start:
            return None
        value = int(self.text[start : self.i])
        if value > MAX_STATES:
            raise self.error(f"a repetition count above {MAX_STATES}", start)
        return value

    def atom(self) -> tuple[Any, ...]:
        c = self.peek()
        at = self.i
        if c == ".":
            self.i += 1
            return ("set", _DOT)
        if c == "(":
            return self.group()
        if c == "[":
            return ("set", self.char_class())
        if c == "\\":
            return self.escape(in_class=False)
        if c in ("*", "+", "?"):
            raise self.error("nothing to repeat")
        if c in ("{", "}", "]"):
            raise self.error(f"a lone {c!r} (write \\{c} for the character)")
        if c == ")":  # pragma: no cover - alternative() stops at ')'
            raise self.error("unmatched ')'", at)
        self.i += 1
        return ("set", ((ord(c), ord(c)),))

    def group(self) -> tuple[Any, ...]:
        at = self.i
        if self.depth >= MAX_GROUP_DEPTH:
            raise self.error(f"groups are nested more than {MAX_GROUP_DEPTH} deep", at)
        self.i += 1
        if self.text.startswith("?:", self.i):
            self.i += 2
        elif self.text.startswith("?<", self.i) and self.text[self.i + 2 : self.i + 3] not in (
            "=",
            "!",
        ):
            end = self.text.find(">", self.i)
            name = self.text[self.i + 2 : end] if end > 0 else ""
            # an identifier: a letter, "_" or "$", then letters, digits, "_" or "$"
            if (
                not name
                or not (name[0].isalpha() or name[0] in "_$")
                or not all(ch.isalnum() or ch in "_$" for ch in name)
            ):
                raise self.error("a malformed group name", at)
            if name in self.names:
                raise self.error(f"the group name {name!r} is used twice", at)
            self.names.add(name)
            self.i = end + 1
        elif self.text.startswith(("?=", "?!", "?<=", "?<!"), self.i):
            raise self.error("look-around assertions are not supported in catalog patterns", at)
        elif self.peek() == "?":
            raise self.error(
                "a group modifier such as (?i) is not supported in catalog patterns", at
            )
        self.depth += 1
        node = self.disjunction()
        self.depth -= 1
        if self.peek() != ")":
            raise self.error("an unterminated group", at)
        self.i += 1
        return node

    def escape(self, *, in_class: bool) -> tuple[Any, ...]:
        at = self.i
        self.i += 1
        c = self.peek()
        if not c:
            raise self.error("a pattern cannot end with '\\'", at)
        self.i += 1
        if c in _CLASS_ESCAPES:
            return ("set", _CLASS_ESCAPES[c])
        if c in _CONTROL_ESCAPES:
            return self.char(_CONTROL_ESCAPES[c])
        if c == "0" and not self.peek().isdigit():
            return self.char(0)
        if c.isdigit():
            raise self.error("back-references are not supported in catalog patterns", at)
        if c == "b" and in_class:
            return self.char(0x08)
        if c in ("b", "B"):
            raise self.error("word-boundary assertions are not supported in catalog patterns", at)
        if c in ("p", "P"):
            raise self.error("Unicode property escapes are not supported in catalog patterns", at)
        if c == "x":
            return self.char(self.hex_digits(2, at))
        if c == "u":
            return self.char(self.unicode_escape(at))
        if c in _SYNTAX or (in_class and c == "-"):
            return self.char(ord(c))
        raise self.error(f"the escape \\{c} is not defined (with the u flag)", at)

    def char(self, code: int) -> tuple[Any, ...]:
        return ("set", ((code, code),))

    def hex_digits(self, count: int, at: int) -> int:
        digits = self.text[self.i : self.i + count]
        if len(digits) != count or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise self.error("a malformed hexadecimal escape", at)
        self.i += count
        return int(digits, 16)

    def unicode_escape(self, at: int) -> int:
        if self.peek() == "{":
            end = self.text.find("}", self.i)
            digits = self.text[self.i + 1 : end] if end > 0 else ""
            if not digits or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise self.error("a malformed \\u{…} escape", at)
            self.i = end + 1
            significant = digits.lstrip("0") or "0"  # any number of leading zeros
            value = int(significant, 16) if len(significant) <= 8 else _MAX_CODE_POINT + 1
            if value > _MAX_CODE_POINT:
                raise self.error("a \\u{…} escape beyond U+10FFFF", at)
            return value
        value = self.hex_digits(4, at)
        if 0xD800 <= value <= 0xDBFF and self.text.startswith("\\u", self.i):
            save = self.i
            self.i += 2
            try:
                low = self.hex_digits(4, at)
            except PatternError:
                self.i = save
                return value
            if 0xDC00 <= low <= 0xDFFF:
                return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            self.i = save
        return value

    def char_class(self) -> tuple[tuple[int, int], ...]:
        at = self.i
        self.i += 1
        negate = self.peek() == "^"
        if negate:
            self.i += 1
        ranges: list[tuple[int, int]] = []
        while True:
            c = self.peek()
            if not c:
                raise self.error("an unterminated character class", at)
            if c == "]":
                self.i += 1
                break
            low = self.class_atom()
            if self.peek() == "-" and self.text[self.i + 1 : self.i + 2] not in ("]", ""):
                dash = self.i
                self.i += 1
                high = self.class_atom()
                if (
                    len(low) != 1
                    or len(high) != 1
                    or low[0][0] != low[0][1]
                    or high[0][0] != high[0][1]
                ):
                    raise self.error("a class escape cannot bound a range", dash)
                if high[0][0] < low[0][0]:
                    raise self.error("a character range out of order", dash)
                ranges.append((low[0][0], high[0][0]))
            else:
                ranges.extend(low)
        result = _normalize(ranges)
        return _complement(result) if negate else result

    def class_atom(self) -> tuple[tuple[int, int], ...]:
        c = self.peek()
        if c == "\\":
            return self.escape(in_class=True)[1]  # type: ignore[no-any-return]
        self.i += 1
        return ((ord(c), ord(c)),)


# --- the automaton ------------------------------------------------------------------------------
# states: ("set", (starts, ends), next) | ("split", a, b) | ("bol", next) | ("eol", next) | ("match",)


class _Builder:
    def __init__(self, pattern: str) -> None:
        self.states: list[list[Any]] = []
        self.pattern = pattern
        # each class as its ranges' starts and ends, for a binary search: one pair per class of
        # the pattern's tree, shared by the states a repetition copies (keyed by the tree's
        # tuple, which the entry keeps alive)
        self.lookups: dict[int, tuple[Any, tuple[tuple[int, ...], tuple[int, ...]]]] = {}

    def lookup(self, ranges: tuple[tuple[int, int], ...]) -> Any:
        found = self.lookups.get(id(ranges))
        if found is None:
            pair = (tuple(lo for lo, _ in ranges), tuple(hi for _, hi in ranges))
            found = self.lookups[id(ranges)] = (ranges, pair)
        return found[1]

    def new(self, *state: object) -> int:
        if len(self.states) >= MAX_STATES:
            raise PatternError(
                f"the pattern needs more than {MAX_STATES} automaton states "
                "(counted repetition multiplies what it repeats)",
                0,
            )
        self.states.append(list(state))
        return len(self.states) - 1

    def patch(self, outs: list[tuple[int, int]], target: int) -> None:
        for state, slot in outs:
            self.states[state][slot] = target

    def build(self, node: tuple[Any, ...]) -> tuple[int, list[tuple[int, int]]]:
        """The fragment of ``node``: its start state and the dangling exits to patch."""
        kind = node[0]
        if kind == "set":
            s = self.new("set", self.lookup(node[1]), None)
            return s, [(s, 2)]
        if kind in ("bol", "eol"):
            s = self.new(kind, None)
            return s, [(s, 1)]
        if kind == "empty":
            s = self.new("split", None, None)  # an epsilon: both exits to the same place
            return s, [(s, 1), (s, 2)]
        if kind == "cat":
            start, outs = self.build(node[1][0])
            for part in node[1][1:]:
                s, o = self.build(part)
                self.patch(outs, s)
                outs = o
            return start, outs
        if kind == "alt":
            starts, outs = [], []
            for branch in node[1]:
                s, o = self.build(branch)
                starts.append(s)
                outs += o
            start = starts[-1]
            for s in reversed(starts[:-1]):
                start = self.new("split", s, start)
            return start, outs
        # "rep"
        _, operand, low, high = node
        parts: list[tuple[int, list[tuple[int, int]]]] = [self.build(operand) for _ in range(low)]
        if high is None:
            s, o = self.build(operand)
            loop = self.new("split", s, None)
            self.patch(o, loop)
            parts.append((loop, [(loop, 2)]))
        else:
            for _ in range(high - low):
                s, o = self.build(operand)
                opt = self.new("split", s, None)
                parts.append((opt, [*o, (opt, 2)]))
        if not parts:
            s = self.new("split", None, None)
            return s, [(s, 1), (s, 2)]
        start, outs = parts[0]
        for s, o in parts[1:]:
            self.patch(outs, s)
            outs = o
        return start, outs


@dataclass(frozen=True, eq=False)
class Pattern:
    """A compiled catalog pattern: immutable, so one catalog serves any number of threads.

    :meth:`search` says whether it matches anywhere in a string.  It simulates the automaton
    over sets of its states; the sets met are numbered and the transitions between them kept in
    a :class:`DFA` that the caller owns -- one per validation, so nothing a search learns
    outlives the validation or is seen by another thread, and no answer or charge can depend on
    what was matched before.
    """

    source: str
    _states: tuple[tuple[Any, ...], ...]
    _start: int
    _match: int = field(init=False)
    #: the states active before the first character (``^`` passed)
    _begin: frozenset[int] = field(init=False)
    #: whether the empty string matches (``^`` and ``$`` both passed)
    matches_empty: bool = field(init=False)

    def __post_init__(self) -> None:
        match = len(self._states) - 1
        object.__setattr__(self, "_match", match)
        begin, _ = self._closure((self._start,), True, False)
        object.__setattr__(self, "_begin", begin)
        empty, _ = self._closure((self._start,), True, True)
        object.__setattr__(self, "matches_empty", match in empty)

    @property
    def size(self) -> int:
        """The automaton's states (at most :data:`MAX_STATES`)."""
        return len(self._states)

    def _closure(
        self, seeds: tuple[int, ...] | list[int], at_start: bool, at_end: bool
    ) -> tuple[frozenset[int], int]:
        """The states reached from ``seeds`` without reading a character, and how many state
        visits that took (what a new DFA state is charged)."""
        states = self._states
        seen: set[int] = set()
        stack = list(seeds)
        visits = 0
        while stack:
            s = stack.pop()
            visits += 1
            if s in seen:
                continue
            seen.add(s)
            state = states[s]
            kind = state[0]
            if kind == "split":
                stack.append(state[1])
                stack.append(state[2])
            elif (kind == "bol" and at_start) or (kind == "eol" and at_end):
                stack.append(state[1])
        return frozenset(seen), visits

    def search(self, text: str, dfa: DFA, meter: Meter) -> bool:
        """Whether the pattern matches somewhere in ``text`` (ECMA-262 ``RegExp.test``).

        ``dfa`` is this pattern's DFA for the current validation (:meth:`new_dfa`); ``meter``
        is charged every step: one unit per character along a transition already built, and the
        state visits of each new DFA state (or of the end-of-string check) when one is built.
        """
        if not text:
            meter.charge(1)
            return self.matches_empty
        if dfa.accepts[0]:
            meter.charge(1)
            return True
        current = 0
        steps = 0
        table = dfa.next
        accepts = dfa.accepts
        try:
            for char in text:
                steps += 1
                found = table.get((current, char))
                if found is None:
                    found = self._build(dfa, current, char, meter)
                current = found
                if accepts[current]:
                    return True
            return self._accepts_at_end(dfa, current, meter)
        finally:
            meter.charge(steps)

    def new_dfa(self, meter: Meter) -> DFA:
        """An empty DFA for one validation, holding the start state (charged its size)."""
        meter.charge(len(self._begin))
        dfa = DFA()
        dfa.intern(self._begin, self._match)
        return dfa

    def _build(self, dfa: DFA, current: int, char: str, meter: Meter) -> int:
        code = ord(char)
        states = self._states
        here = dfa.sets[current]
        moved = []
        for s in here:
            state = states[s]
            if state[0] == "set":
                los, his = state[1]
                i = bisect_right(los, code) - 1
                if i >= 0 and code <= his[i]:
                    moved.append(state[2])
        moved.append(self._start)  # a match may also start at the next position
        result, visits = self._closure(moved, False, False)
        meter.charge(len(here) + visits)
        found = dfa.intern(result, self._match)
        dfa.next[(current, char)] = found
        return found

    def _accepts_at_end(self, dfa: DFA, current: int, meter: Meter) -> bool:
        """Whether the states of ``current`` reach the match at the end of the string (through
        ``$``), computed once per DFA state (and charged one unit when it is looked up)."""
        found = dfa.at_end.get(current)
        if found is not None:
            meter.charge(1)
        else:
            reached, visits = self._closure(list(dfa.sets[current]), False, True)
            meter.charge(visits)
            found = dfa.at_end[current] = self._match in reached
        return found


class DFA:
    """The part of a pattern's DFA one validation has built: the sets of automaton states met
    (numbered in the order met), whether each holds the match, and the transitions found.  Its
    size is bounded by the work the validation was charged for it."""

    __slots__ = ("accepts", "at_end", "ids", "next", "sets")

    def __init__(self) -> None:
        self.ids: dict[frozenset[int], int] = {}
        self.sets: list[frozenset[int]] = []
        self.accepts: list[bool] = []
        self.next: dict[tuple[int, str], int] = {}
        self.at_end: dict[int, bool] = {}

    def intern(self, states: frozenset[int], match: int) -> int:
        found = self.ids.get(states)
        if found is None:
            found = len(self.sets)
            self.ids[states] = found
            self.sets.append(states)
            self.accepts.append(match in states)
        return found


def compile_pattern(source: str) -> Pattern:
    """Parse and compile ``source``; raises :class:`PatternError` outside the subset."""
    tree = _Parser(source).parse()
    builder = _Builder(source)
    start, outs = builder.build(tree)
    match = builder.new("match")
    builder.patch(outs, match)
    return Pattern(source, tuple(tuple(s) for s in builder.states), start)
