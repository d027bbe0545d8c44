"""Random catalog schemas and values, and an exact jsonschema oracle for them.

Used by tests/core/test_catalog_differential.py and scripts/catalog_differential.py.  The
schemas use exactly the keywords of NUIF-0 §9.4; the generator keeps to ground where Python's
``re`` (which jsonschema runs patterns with) and ECMA-262 read a pattern alike: ASCII strings
over a small alphabet without line terminators, patterns of literals, ``.``, classes, groups,
alternation, the quantifiers and ``^``/``$``.  The oracle is jsonschema's Draft 2020-12
validator with every number of the schema and of the value made exact (the decimal its shortest
text spells, NUIF-0 §9.4) and a type checker for those exact numbers, so its ``multipleOf`` and
comparisons are exact too.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.validators import extend

_ALPHABET = "abc1"
_NUMBERS: list[Any] = [
    0,
    1,
    -1,
    2,
    3,
    7,
    10,
    0.5,
    1.5,
    4.5,
    0.1,
    0.3,
    0.0075,
    0.0001,
    2.0,
    -2.5,
    1e20,
    3e20,
    1e308,
    -1e308,
    5e-324,
    9007199254740991,
    -9007199254740990,
    12391239123,
    1e-8,
]
_PATTERNS = [
    "^a",
    "a$",
    "^[ab]+$",
    "b.c",
    "^(a|b)*c$",
    "^a{2,3}$",
    "1",
    "^[^a]*$",
    "(ab)+",
    "^.?$",
    "^(?:a|bc)+1?$",
    "c{2}",
]
_NAMES = ["a", "b", "c", "ab", "a1", "b.c", "x"]


def exact(value: Any) -> Any:
    """``value`` with every number made exact: ints stay, floats become the decimal their repr
    spells (an int when it is integral)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        number = Fraction(repr(value))
        return number.numerator if number.denominator == 1 else number
    if isinstance(value, int):
        return value
    if isinstance(value, list):
        return [exact(v) for v in value]
    return {k: exact(v) for k, v in value.items()}


def _is_number(checker: Any, value: Any) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def _is_integer(checker: Any, value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1)


_TYPES = Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"number": _is_number, "integer": _is_integer}
)
ExactValidator = extend(Draft202012Validator, type_checker=_TYPES)


def oracle(schema: Any, defs: dict[str, Any], value: Any) -> bool:
    """jsonschema's verdict on ``value`` against ``schema`` (with ``defs`` as its ``$defs``)."""
    root: Any = {"allOf": [exact(schema)], "$defs": exact(defs)}
    return bool(ExactValidator(root, format_checker=None).is_valid(exact(value)))


class Generator:
    """Seeded schemas over the §9.4 keywords, and values to try against them."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.defs: dict[str, Any] = {}

    def catalog(self) -> tuple[Any, dict[str, Any]]:
        """(the schema of attribute ``v``, the catalog's $defs)."""
        r = self.r
        self.defs = {}
        names = [f"d{i}" for i in range(r.randrange(0, 3))]
        self._def_names = names
        for name in names:
            # a definition descends before it refers to a definition (no in-place cycle)
            self.defs[name] = self.schema(2, refs=False)
        if names and r.random() < 0.3:  # a recursive definition that descends into the value
            name = names[0]
            self.defs[name] = {
                "anyOf": [
                    {"type": ["string", "number", "null"]},
                    {"type": "array", "items": {"$ref": f"#/$defs/{name}"}},
                ]
            }
        return self.schema(3, refs=True), self.defs

    def schema(self, depth: int, refs: bool) -> Any:
        r = self.r
        if depth <= 0 or r.random() < 0.15:
            return r.choice([True, False, {"type": r.choice(["string", "number", "integer"])}])
        out: dict[str, Any] = {}
        for _ in range(r.randrange(1, 4)):
            keyword = r.choice(_KEYWORDS)
            if keyword == "$ref" and not (refs and self._def_names):
                continue
            out[keyword] = self.argument(keyword, depth - 1, refs)
        return out

    def argument(self, keyword: str, depth: int, refs: bool) -> Any:
        r = self.r
        if keyword == "type":
            kinds = ["null", "boolean", "object", "array", "number", "string", "integer"]
            if r.random() < 0.5:
                return r.choice(kinds)
            return r.sample(kinds, r.randrange(1, 4))
        if keyword in ("enum", "const"):
            values = [self.value(1) for _ in range(r.randrange(1, 4))]
            return values if keyword == "enum" else values[0]
        if keyword == "multipleOf":
            return r.choice([2, 3, 5, 0.5, 1.5, 0.1, 0.0001, 1e-8, 5e-324, 1e20])
        if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            return r.choice(_NUMBERS)
        if keyword in ("minLength", "maxLength", "minItems", "maxItems"):
            return r.randrange(0, 4)
        if keyword in ("minProperties", "maxProperties"):
            return r.randrange(0, 3)
        if keyword == "pattern":
            return r.choice(_PATTERNS)
        if keyword == "uniqueItems":
            return r.random() < 0.8
        if keyword == "required":
            return r.sample(_NAMES, r.randrange(0, 3))
        if keyword == "properties":
            return {n: self.schema(depth, refs) for n in r.sample(_NAMES, r.randrange(1, 3))}
        if keyword == "patternProperties":
            return {p: self.schema(depth, refs) for p in r.sample(["^a", "c$", "\\.", "^x"], 1)}
        if keyword in _ONE:
            return self.schema(depth, refs)
        if keyword in ("allOf", "anyOf", "oneOf"):
            return [self.schema(depth, refs) for _ in range(r.randrange(1, 4))]
        return f"#/$defs/{r.choice(self._def_names)}"  # $ref

    def value(self, depth: int = 3) -> Any:
        r = self.r
        roll = r.random()
        if depth <= 0 or roll < 0.45:
            pick = r.random()
            if pick < 0.35:
                return r.choice(_NUMBERS)
            if pick < 0.7:
                return "".join(r.choice(_ALPHABET) for _ in range(r.randrange(0, 5)))
            return r.choice([None, True, False])
        if roll < 0.7:
            return [self.value(depth - 1) for _ in range(r.randrange(0, 4))]
        return {n: self.value(depth - 1) for n in r.sample(_NAMES, r.randrange(0, 4))}


_ONE = ("items", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else")
_KEYWORDS = [
    "type",
    "type",
    "enum",
    "const",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "pattern",
    "uniqueItems",
    "required",
    "properties",
    "patternProperties",
    *_ONE,
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "$ref",
]


def catalog_text(schema: Any, defs: dict[str, Any]) -> str:
    out: dict[str, Any] = {
        "nuif_catalog": 0,
        "kinds": {"t": {"attrs": {"properties": {"v": schema}}}},
    }
    if defs:
        out["$defs"] = defs
    return json.dumps(out)


def document_text(value: Any) -> str:
    return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "t", "attrs": {"v": value}}})


__all__ = ["Generator", "catalog_text", "document_text", "exact", "jsonschema", "oracle"]
