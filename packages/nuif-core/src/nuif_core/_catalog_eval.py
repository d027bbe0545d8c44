"""Catalog schemas, compiled and applied (NUIF-0 §9.4, §9.5): the JSON Schema subset of catalogs.

This is not a public API.  ``_catalog`` checks a catalog's schemas and builds a :class:`Schema`
for each; :func:`evaluate` applies one to a value and returns what fails, as :data:`Failure`
records that ``_catalog`` turns into diagnostics.  Written here rather than taken from a JSON
Schema library because an answer must be a pure function of (document, catalog, limits) and
cost a bounded amount of work on every route (the compiled wheel, the pure wheel, Pyodide):

* **Nothing is shared but immutable data.**  A :class:`Schema` never changes after it is
  built; what one validation learns (the patterns' DFA states) lives in its :class:`Meter`, made
  for that validation and dropped with it.  So threads may share a catalog, and no answer or
  charge depends on what was validated before.
* **Every unit of work is charged** to the validation's :class:`Meter` -- each schema applied to
  a value, each keyword, each member or item a keyword visits, each JSON value compared by
  ``enum``, ``const`` or ``uniqueItems``, each failure recorded, and every pattern step
  (``_catalog_regex``) -- and past the bound of NUIF-0 §9.6 the meter raises
  :class:`WorkExceeded`.  A graph of ``$ref`` that fans out (``allOf`` of the same definition
  twice, at each of 30 levels) therefore stops at the bound instead of taking 2^30 steps.
* **No recursion on the Python stack.**  A schema that applies another one (``properties``,
  ``allOf``, ``$ref``, …) is a generator that yields the request; :func:`evaluate` runs them on an
  explicit stack, so neither a long ``$ref`` chain nor a deeply nested value can exhaust it.
  (``_key`` recurses over a value's nesting, which ``max_depth`` bounds.)
* **Numbers are compared exactly**: a number is the decimal value its shortest round-trip text
  spells (``0.1`` is 1/10, ``1e308`` is 10^308), so ``multipleOf`` is exact rational arithmetic
  and ``minimum`` and its kin compare the doubles themselves, whose order is that of those values.
"""

from __future__ import annotations

from collections.abc import Generator
from fractions import Fraction
from typing import Any

from ._catalog_regex import DFA, Pattern

__all__ = [
    "PROBLEM_UNITS",
    "WORK_BOUND",
    "Failure",
    "Meter",
    "Schema",
    "WorkExceeded",
    "evaluate",
    "exact",
    "key",
]

#: the evaluation work one validation may do (NUIF-0 §9.6), in the units this module charges
WORK_BOUND = 10_000_000
#: what one problem found costs to report (placed in document order, sorted, told apart from the
#: same problem found twice: about as much time as eight units of evaluation; NUIF-0 §9.6)
PROBLEM_UNITS = 8

#: one failing value: (path inside the value evaluated, rule, the rule's value, the failing
#: value, whether it is about a member's name).  ``rule`` is the keyword, or ``"false"`` for a
#: false schema; for ``required`` and ``additionalProperties`` the rule's value is the member
#: name at fault.
Failure = tuple[tuple[str | int, ...], str, Any, Any, bool]


class WorkExceeded(Exception):
    """One validation needed more than :data:`WORK_BOUND` units of work."""


class Meter:
    """One validation's budget, and the DFA each pattern built in it (nothing else is kept)."""

    __slots__ = ("_dfas", "bound", "left")

    def __init__(self, bound: int = WORK_BOUND) -> None:
        self.bound = bound
        self.left = bound
        self._dfas: dict[Pattern, DFA] = {}

    @property
    def used(self) -> int:
        """The units charged so far."""
        return self.bound - self.left

    def charge(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise WorkExceeded()

    def search(self, pattern: Pattern, text: str) -> bool:
        dfa = self._dfas.get(pattern)
        if dfa is None:
            dfa = self._dfas[pattern] = pattern.new_dfa(self)
        return pattern.search(text, dfa, self)


class Schema:
    """A compiled schema: ``constant`` for ``true`` and ``false``, else its ``checks`` -- the
    keywords that assert something, in the order the catalog writes them, each with its
    compiled value (see :class:`_Reader` in ``_catalog``).  ``leaf`` is true when no keyword
    applies another schema, and ``ref`` the definition a schema that is only a ``$ref`` stands
    for (it is applied in its place).  Immutable once the catalog is read."""

    __slots__ = ("checks", "constant", "leaf", "ref")

    def __init__(self, constant: bool | None, checks: tuple[tuple[str, Any], ...] = ()) -> None:
        self.constant = constant
        self.checks = checks
        self.leaf = not any(k in _APPLICATORS for k, _ in checks)
        self.ref: int | None = checks[0][1] if len(checks) == 1 and checks[0][0] == "$ref" else None


#: the keywords whose value holds schemas
_APPLICATORS = frozenset(
    {
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "items",
        "contains",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "then",
        "else",
        "$ref",
    }
)

_BOOL = object()
_OBJECT = object()
_ARRAY = object()


def key(value: Any, meter: Meter | None = None) -> Any:
    """A hashable form of a JSON value under JSON Schema's equality: numbers by value (``1``
    equals ``1.0``), ``true`` apart from ``1``, objects whatever their member order.  Each value
    visited is charged one unit."""
    if meter is not None:
        meter.charge(1)
    kind = type(value)
    if kind is bool:
        return (_BOOL, value)
    if kind is dict:
        return (_OBJECT, frozenset((name, key(v, meter)) for name, v in value.items()))
    if kind is list:
        return (_ARRAY, tuple(key(v, meter) for v in value))
    return value


def exact(number: int | float) -> int | Fraction:
    """The exact value of a JSON number: the decimal its shortest round-trip text spells."""
    if type(number) is int:
        return number
    value = Fraction(repr(number))
    return value.numerator if value.denominator == 1 else value


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


def _type_matches(names: frozenset[str], value: Any) -> bool:
    kind = type(value)
    if kind is str:
        return "string" in names
    if kind is bool:
        return "boolean" in names
    if kind is int:
        return "integer" in names or "number" in names
    if kind is float:
        return "number" in names or ("integer" in names and value.is_integer())
    if kind is dict:
        return "object" in names
    if kind is list:
        return "array" in names
    return "null" in names  # None


_NONE: list[Failure] = []  # (never appended to: callers copy before extending)

#: what :func:`_apply` yields: (schema, value, path, decide) -- a schema to apply and how
_Request = tuple[Schema, Any, tuple[str | int, ...], bool]
_Applying = Generator[_Request, list[Failure], list[Failure]]


def evaluate(schema: Schema, value: Any, meter: Meter, defs: tuple[Schema, ...]) -> list[Failure]:
    """Every failure of ``value`` against ``schema`` (empty: it is valid), paths relative to
    ``value``, in the order the keywords are written.  Raises :class:`WorkExceeded` past the
    meter's bound."""
    while schema.ref is not None:
        meter.charge(2)
        schema = defs[schema.ref]
    if schema.constant is not None or schema.leaf:
        return _assert(schema, value, (), False, meter)
    stack: list[_Applying] = [_apply(schema, value, (), False, meter, defs)]
    result: Any = None
    while True:
        if result:  # the problems a schema passes up to the one that applied it (it copies them)
            meter.charge(len(result))
        try:
            request = stack[-1].send(result)
        except StopIteration as done:
            stack.pop()
            result = done.value
            if not stack:
                return result  # type: ignore[no-any-return]
            continue
        sub, sub_value, path, decide = request
        while sub.ref is not None:  # a schema that is only a $ref: its definition, at once
            meter.charge(2)  # (what applying it would charge: the schema and its keyword)
            sub = defs[sub.ref]
        if sub.constant is not None or sub.leaf:
            result = _assert(sub, sub_value, path, decide, meter)
        else:
            meter.charge(1)
            stack.append(_apply(sub, sub_value, path, decide, meter, defs))
            result = None


def _assert(
    schema: Schema, value: Any, path: tuple[str | int, ...], decide: bool, meter: Meter
) -> list[Failure]:
    """A schema without applicators (or a boolean one) against ``value``."""
    constant = schema.constant
    if constant is not None:
        meter.charge(1)
        if constant:
            return _NONE
        return [(path, "false", None, value, False)]
    checks = schema.checks
    meter.charge(1 + len(checks))
    failures: list[Failure] = []
    for keyword, arg in checks:
        _check(keyword, arg, value, path, meter, failures)
        if failures and decide:
            break
    return failures


def _check(
    keyword: str,
    arg: Any,
    value: Any,
    path: tuple[str | int, ...],
    meter: Meter,
    failures: list[Failure],
) -> None:
    """One assertion keyword (no schema in its value) against ``value``; a failure is appended
    to ``failures`` (several for ``required``)."""
    kind = type(value)
    failed = False
    if keyword == "type":
        failed = not _type_matches(arg[0], value)
    elif keyword == "enum" or keyword == "const":
        keys = arg[0]
        failed = key(value, meter) not in keys
    elif kind is str:
        if keyword == "pattern":
            failed = not meter.search(arg[0], value)
        elif keyword == "minLength":
            failed = len(value) < arg
        elif keyword == "maxLength":
            failed = len(value) > arg
    elif kind is int or kind is float:
        if keyword == "multipleOf":
            failed = exact(value) % arg[0] != 0
        elif keyword == "minimum":
            failed = value < arg
        elif keyword == "maximum":
            failed = value > arg
        elif keyword == "exclusiveMinimum":
            failed = value <= arg
        elif keyword == "exclusiveMaximum":
            failed = value >= arg
    elif kind is list:
        if keyword == "minItems":
            failed = len(value) < arg
        elif keyword == "maxItems":
            failed = len(value) > arg
        elif keyword == "uniqueItems" and arg:
            seen = set()
            for item in value:
                item_key = key(item, meter)
                if item_key in seen:
                    failed = True
                    break
                seen.add(item_key)
    elif kind is dict:
        if keyword == "required":
            meter.charge(len(arg))
            for name in arg:
                if name not in value:
                    meter.charge(1)
                    failures.append((path, "required", name, value, False))
            return
        if keyword == "minProperties":
            failed = len(value) < arg
        elif keyword == "maxProperties":
            failed = len(value) > arg
    if failed:
        meter.charge(1)
        failures.append((path, keyword, arg, value, False))


def _members(value: dict[str, Any], properties: dict[str, Schema]) -> list[tuple[str, Schema]]:
    """The members of ``value`` that ``properties`` names, each with its schema (walking the
    smaller of the two)."""
    if len(properties) < len(value):
        return [(name, s) for name, s in properties.items() if name in value]
    return [(name, properties[name]) for name in value if name in properties]


def _apply(
    schema: Schema,
    value: Any,
    path: tuple[str | int, ...],
    decide: bool,
    meter: Meter,
    defs: tuple[Schema, ...],
) -> _Applying:
    """A schema with applicators against ``value``: a generator that yields each schema to apply
    (to the value itself or to a member or item) and is sent back its failures.  In ``decide``
    mode it stops at the first failure (only the verdict is wanted)."""
    checks = schema.checks
    meter.charge(1 + len(checks))
    failures: list[Failure] = []
    kind = type(value)
    matched: dict[str, list[Schema]] | None = None  # patternProperties' matches, once computed
    condition: bool | None = None  # the verdict of "if", once computed
    for keyword, arg in checks:
        if keyword not in _APPLICATORS:
            _check(keyword, arg, value, path, meter, failures)
        elif keyword == "$ref" or keyword == "allOf":
            for sub in (defs[arg],) if keyword == "$ref" else arg:
                found = yield (sub, value, path, decide)
                if found:
                    failures.extend(found)
                    if decide:
                        break
        elif keyword == "anyOf":
            for sub in arg:
                if not (yield (sub, value, path, True)):
                    break
            else:
                meter.charge(1)
                failures.append((path, keyword, None, value, False))
        elif keyword == "oneOf":
            passed = 0
            for sub in arg:
                if not (yield (sub, value, path, True)):
                    passed += 1
                    if passed > 1:
                        break
            if passed != 1:
                meter.charge(1)
                failures.append((path, keyword, None, value, False))
        elif keyword == "not":
            if not (yield (arg, value, path, True)):
                meter.charge(1)
                failures.append((path, keyword, None, value, False))
        elif keyword == "then" or keyword == "else":
            condition_schema, sub = arg
            if condition is None:
                condition = not (yield (condition_schema, value, path, True))
            if condition is (keyword == "then") and (yield (sub, value, path, True)):
                meter.charge(1)
                failures.append((path, keyword, None, value, False))
        elif kind is dict:
            if keyword == "properties":
                members = _members(value, arg)
                meter.charge(len(members))
                for name, sub in members:
                    found = yield (sub, value[name], (*path, name), decide)
                    if found:
                        failures.extend(found)
                        if decide:
                            break
            elif keyword == "patternProperties":
                if matched is None:
                    matched = _pattern_matches(schema, value, meter)
                for name, subs in matched.items():
                    for sub in subs:
                        found = yield (sub, value[name], (*path, name), decide)
                        if found:
                            failures.extend(found)
                            if decide:
                                break
                    if failures and decide:
                        break
            elif keyword == "additionalProperties":
                known, patterns, sub = arg
                if patterns and matched is None:
                    matched = _pattern_matches(schema, value, meter)
                meter.charge(len(value))
                for name, member in value.items():
                    if name in known or (matched is not None and name in matched):
                        continue
                    if sub.constant is False:
                        meter.charge(1)
                        failures.append(((*path, name), keyword, name, value, True))
                    else:
                        found = yield (sub, member, (*path, name), decide)
                        if found:
                            failures.extend(found)
                    if failures and decide:
                        break
            elif keyword == "propertyNames":
                meter.charge(len(value))
                for name in value:
                    if (yield (arg, name, (*path, name), True)):
                        meter.charge(1)
                        failures.append(((*path, name), keyword, name, value, True))
                        if decide:
                            break
        elif kind is list:
            if keyword == "items":
                meter.charge(len(value))
                for i, item in enumerate(value):
                    found = yield (arg, item, (*path, i), decide)
                    if found:
                        failures.extend(found)
                        if decide:
                            break
            elif keyword == "contains":
                meter.charge(len(value))
                for item in value:
                    if not (yield (arg, item, path, True)):
                        break
                else:
                    meter.charge(1)
                    failures.append((path, keyword, None, value, False))
        if failures and decide:
            break
    return failures


def _pattern_matches(
    schema: Schema, value: dict[str, Any], meter: Meter
) -> dict[str, list[Schema]]:
    """For each member name of ``value`` that a ``patternProperties`` pattern of ``schema``
    matches, the schemas of the patterns that match it (in the catalog's order)."""
    patterns: tuple[tuple[Pattern, Schema], ...] = ()
    for keyword, arg in schema.checks:
        if keyword == "patternProperties":
            patterns = arg
    out: dict[str, list[Schema]] = {}
    for name in value:
        subs = [sub for pattern, sub in patterns if meter.search(pattern, name)]
        if subs:
            out[name] = subs
    return out
