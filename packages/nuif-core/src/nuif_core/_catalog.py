"""Kind catalogs (NUIF-0 §9, docs/spec/nuif-0.1-catalogs.md): what each kind of node may hold.

This is not a public API (``nuif_core`` exports :class:`Catalog`; ``validate`` and
``apply_patch`` take ``catalog=``).  A catalog is read by the rules of NUIF-0 §1, checked against
§9 here -- its members, its kinds, every JSON Schema in it (the keywords of §9.4 only, ``$ref``
only to ``#/$defs/NAME``, patterns in the linear-time subset of ``_catalog_regex``) and the bounds
of §9.6 -- and compiled once into immutable :class:`~nuif_core._catalog_eval.Schema` objects.
Checking a document walks its nodes in document order with one fresh
:class:`~nuif_core._catalog_eval.Meter` per validation, and reports ``NUIF_CATALOG_KIND``,
``NUIF_CATALOG_ATTRS`` and ``NUIF_CATALOG_CHILDREN`` findings in the shape of
``_schema.Checker``'s, which ``_document`` locates in the text like any diagnostic.

Everything here is pure Python on every route (the compiled codec is not involved), so the
compiled wheel, the pure wheel and Pyodide give the same answers.  A :class:`Catalog` is
immutable after it is read: threads may share one, and nothing a validation does changes what
the next one answers.
"""

from __future__ import annotations

import heapq
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from . import _codec
from ._catalog_eval import (
    PROBLEM_UNITS,
    WORK_BOUND,
    Failure,
    Meter,
    Schema,
    WorkExceeded,
    evaluate,
    exact,
)
from ._catalog_eval import key as _key
from ._catalog_regex import MAX_GROUP_DEPTH, MAX_STATES, Pattern, PatternError, compile_pattern
from ._errors import NuifError, escape_pointer, join_pointer, line_column
from ._limits import MiB
from ._locate import locate
from ._messages import quote
from ._rfc8785 import number_text, utf16_key
from ._schema import json_type, kind_problem

__all__ = [
    "BOUNDS",
    "Catalog",
    "as_catalog",
]

#: the bounds of a catalog (NUIF-0 §9.6): name → value
BOUNDS: dict[str, int] = {
    "max_catalog_bytes": 1 * MiB,
    "max_kinds": 1000,
    "max_schemas": 500,
    "max_literal_values": 2000,
    "max_ref_chain": 32,
    "max_schema_depth": 16,
    "max_pattern_states": MAX_STATES,
    "max_catalog_pattern_states": 20_000,
    "max_group_depth": MAX_GROUP_DEPTH,
    "max_evaluation_work": WORK_BOUND,
}
_CATALOG_DEPTH = 128  # max_depth of NUIF-0 §4.1 (the catalog is read like a document)

CATALOG_MEMBERS = ("nuif_catalog", "closed", "kinds", "$defs", "description")
KIND_MEMBERS = ("attrs", "children", "description")
CHILDREN_MEMBERS = ("kinds", "min", "max")
_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")
#: keywords that carry no assertion: checked for shape, left out of what is compiled
_ANNOTATIONS = {
    "title": "string",
    "description": "string",
    "$comment": "string",
    "format": "string",
    "deprecated": "boolean",
    "readOnly": "boolean",
    "writeOnly": "boolean",
    "default": "any",
    "examples": "array",
}
_COUNTS = (
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
)
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_ONE_SCHEMA = (
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
#: applicators that apply their schemas to the value itself (a $ref chain through them does not
#: descend into the value, so it must end: NUIF-0 §9.6)
_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
_ASSERTIONS = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "pattern",
        "uniqueItems",
        "required",
        "properties",
        "patternProperties",
        "$ref",
        *_COUNTS,
        *_NUMBERS,
        *_ONE_SCHEMA,
        *_SCHEMA_LISTS,
    }
)
_DEF_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_DEFS_PREFIX = "#/$defs/"


def _catalog_error(message: str, pointer: str | None = None) -> NuifError:
    return NuifError("NUIF_CATALOG", "catalog: " + message, pointer=pointer)


def _is_int(value: Any) -> bool:
    """A JSON integer: a number with no fraction (``2`` or ``2.0``), not a boolean."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count_values(value: Any) -> int:
    """JSON values in ``value``, itself included (bounded by the catalog's depth)."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        total += 1
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return total


def _show(value: Any, limit: int = 60, meter: Meter | None = None) -> str:
    """A JSON value as messages show it: its canonical text, cut to ``limit`` characters.

    Only the part shown is written (a long string is cut before it is escaped, an array's first
    items, an object's first members in canonical order), so showing a value costs about
    ``limit`` whatever its size -- but picking an object's first members looks at every name,
    and that is charged to ``meter``."""
    parts: list[str] = []
    room = [limit + 1]  # characters still wanted: one more than shown says it was cut

    def emit(text: str) -> None:
        parts.append(text)
        room[0] -= len(text)

    def walk(v: Any) -> None:
        if room[0] <= 0:
            return
        if isinstance(v, dict):
            wanted = room[0] // 5 + 1  # a member takes at least 5 characters ("":0,)
            if meter is not None:
                meter.charge(len(v))
            if len(v) > wanted:
                names = heapq.nsmallest(wanted, v, key=utf16_key)
            else:
                names = sorted(v, key=utf16_key)
            emit("{")
            for i, name in enumerate(names):
                if room[0] <= 0:
                    return
                emit(("," if i else "") + _scalar(name, room[0]) + ":")
                walk(v[name])
            emit("}")
        elif isinstance(v, list):
            emit("[")
            for i, item in enumerate(v[: room[0] // 2 + 1]):  # an item takes at least 2 (0,)
                if room[0] <= 0:
                    return
                if i:
                    emit(",")
                walk(item)
            emit("]")
        else:
            emit(_scalar(v, room[0]))

    walk(value)
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalar(value: Any, room: int) -> str:
    """The canonical text of a string, number, boolean or null (a string cut to what ``room``
    can show first: each character writes at least one)."""
    if isinstance(value, str) and len(value) > room + 1:
        value = value[: room + 1]
    return _codec.dumps(value, _CATALOG_DEPTH).decode("utf-8")


# ---------------------------------------------------------------------------------------------
# reading and checking a catalog


class _Reader:
    """Checks a parsed catalog against NUIF-0 §9 and builds what is compiled.

    Each problem raises ``NUIF_CATALOG`` at once (the first one is reported), with the pointer
    into the catalog; :class:`Catalog` adds the line and column.
    """

    def __init__(self, value: Any) -> None:
        self.value = value
        self.schemas = 0
        self.literals = 0
        self.pattern_states = 0  # automaton states of all the catalog's patterns
        self.def_names: dict[str, int] = {}  # catalog name → its index in the definitions

    # -- the catalog's members -------------------------------------------------------------------
    def read(
        self,
    ) -> tuple[bool, dict[str, dict[str, Any]], dict[str, Schema], tuple[Schema, ...]]:
        cat = self.value
        if not isinstance(cat, dict):
            raise _catalog_error(f"a catalog is a JSON object, found {json_type(cat)}", "")
        for key in cat:
            if key not in CATALOG_MEMBERS:
                raise _catalog_error(
                    f"unknown catalog member {quote(key)} (allowed: {', '.join(CATALOG_MEMBERS)})",
                    "/" + escape_pointer(key),
                )
        if "nuif_catalog" not in cat:
            raise _catalog_error('the catalog has no "nuif_catalog" member (it must be 0)', "")
        version = cat["nuif_catalog"]
        if not _is_number(version):
            raise _catalog_error(
                f'"nuif_catalog" must be the number 0, found {json_type(version)}',
                "/nuif_catalog",
            )
        if version != 0:
            raise _catalog_error(
                f"catalog version {number_text(version)} is not supported; this implementation "
                "reads version 0",
                "/nuif_catalog",
            )
        closed = cat.get("closed", False)
        if not isinstance(closed, bool):
            raise _catalog_error(
                f'"closed" must be a boolean, found {json_type(closed)}', "/closed"
            )
        if "description" in cat and not isinstance(cat["description"], str):
            raise _catalog_error(
                f'"description" must be a string, found {json_type(cat["description"])}',
                "/description",
            )
        if "kinds" not in cat:
            raise _catalog_error('the catalog has no "kinds" member (an object)', "")
        kinds = cat["kinds"]
        if not isinstance(kinds, dict):
            raise _catalog_error(f'"kinds" must be an object, found {json_type(kinds)}', "/kinds")
        if len(kinds) > BOUNDS["max_kinds"]:
            raise _catalog_error(
                f"the catalog lists {len(kinds)} kinds; the limit is {BOUNDS['max_kinds']}",
                "/kinds",
            )
        defs = cat.get("$defs", {})
        if not isinstance(defs, dict):
            raise _catalog_error(f'"$defs" must be an object, found {json_type(defs)}', "/$defs")
        for index, name in enumerate(defs):
            if not 1 <= len(name) <= 128 or not set(name) <= _DEF_NAME_CHARS:
                raise _catalog_error(
                    f"the definition name {quote(name)} must be 1 to 128 characters among "
                    "A-Z a-z 0-9 _ . -",
                    "/$defs/" + escape_pointer(name),
                )
            self.def_names[name] = index
        compiled_defs = tuple(
            self.schema(schema, "/$defs/" + escape_pointer(name), 1)
            for name, schema in defs.items()
        )
        specs: dict[str, dict[str, Any]] = {}
        compiled_kinds: dict[str, Schema] = {}
        for kind, spec in kinds.items():
            at = "/kinds/" + escape_pointer(kind)
            problem = kind_problem(kind)
            if problem is not None:
                raise _catalog_error(problem, at)
            specs[kind] = self.kind(spec, at, kind, compiled_kinds)
        self.check_chains(defs)
        return closed, specs, compiled_kinds, compiled_defs

    def kind(self, spec: Any, at: str, kind: str, compiled: dict[str, Schema]) -> dict[str, Any]:
        if not isinstance(spec, dict):
            raise _catalog_error(f"a kind is described by an object, found {json_type(spec)}", at)
        for key in spec:
            if key not in KIND_MEMBERS:
                raise _catalog_error(
                    f"unknown member {quote(key)} of a kind (allowed: {', '.join(KIND_MEMBERS)})",
                    at + "/" + escape_pointer(key),
                )
        if "description" in spec and not isinstance(spec["description"], str):
            raise _catalog_error(
                f'"description" must be a string, found {json_type(spec["description"])}',
                at + "/description",
            )
        out: dict[str, Any] = {"attrs": "attrs" in spec, "kinds": None, "min": 0, "max": None}
        if "attrs" in spec:
            compiled[kind] = self.schema(spec["attrs"], at + "/attrs", 1)
        if "children" in spec:
            out.update(self.children(spec["children"], at + "/children"))
        return out

    def children(self, spec: Any, at: str) -> dict[str, Any]:
        if not isinstance(spec, dict):
            raise _catalog_error(f'"children" must be an object, found {json_type(spec)}', at)
        out: dict[str, Any] = {}
        for key, value in spec.items():
            here = at + "/" + escape_pointer(key)
            if key == "kinds":
                if not isinstance(value, list):
                    raise _catalog_error(
                        f'"kinds" must be an array of kinds, found {json_type(value)}', here
                    )
                seen: set[str] = set()
                for i, item in enumerate(value):
                    if not isinstance(item, str):
                        raise _catalog_error(
                            f"a kind is a string, found {json_type(item)}", f"{here}/{i}"
                        )
                    problem = kind_problem(item)
                    if problem is not None:
                        raise _catalog_error(problem, f"{here}/{i}")
                    if item in seen:
                        raise _catalog_error(f"kind {quote(item)} is listed twice", f"{here}/{i}")
                    seen.add(item)
                out["kinds"] = tuple(value)
            elif key in ("min", "max"):
                if not _is_int(value) or value < 0:
                    raise _catalog_error(
                        f'"{key}" must be an integer of at least 0, found {_show(value)}', here
                    )
                out[key] = int(value)
            else:
                raise _catalog_error(
                    f'unknown member {quote(key)} of "children" '
                    f"(allowed: {', '.join(CHILDREN_MEMBERS)})",
                    here,
                )
        if out.get("max") is not None and out.get("min", 0) > out["max"]:
            raise _catalog_error(
                f'"min" ({out["min"]}) is greater than "max" ({out["max"]})', at + "/min"
            )
        return out

    # -- schemas -------------------------------------------------------------------------------
    def schema(self, schema: Any, at: str, depth: int) -> Schema:
        """Check one schema (NUIF-0 §9.4) and compile it."""
        if depth > BOUNDS["max_schema_depth"]:
            raise _catalog_error(
                f"schemas are nested deeper than {BOUNDS['max_schema_depth']} levels", at
            )
        self.schemas += 1
        if self.schemas > BOUNDS["max_schemas"]:
            raise _catalog_error(f"the catalog holds more than {BOUNDS['max_schemas']} schemas", at)
        if isinstance(schema, bool):
            return Schema(schema)
        if not isinstance(schema, dict):
            raise _catalog_error(
                f"a schema is an object or a boolean, found {json_type(schema)}", at
            )
        compiled: dict[str, Any] = {}
        for name, value in schema.items():
            here = at + "/" + escape_pointer(name)
            if name in _ANNOTATIONS:
                self.annotation(name, value, here)
            elif name in _ASSERTIONS:
                compiled[name] = self.keyword(name, value, here, depth)
            else:
                raise _catalog_error(_unsupported(name), here)
        # the keywords that read their siblings: additionalProperties (the members properties
        # and patternProperties do not cover), then and else (the verdict of if; without if
        # they, and if alone, assert nothing)
        if "additionalProperties" in compiled:
            compiled["additionalProperties"] = (
                frozenset(compiled.get("properties", ())),
                "patternProperties" in compiled,
                compiled["additionalProperties"],
            )
        condition = compiled.pop("if", None)
        for name in ("then", "else"):
            if name in compiled:
                if condition is None:
                    del compiled[name]
                else:
                    compiled[name] = (condition, compiled[name])
        return Schema(None, tuple(compiled.items()))

    def annotation(self, key: str, value: Any, at: str) -> None:
        wanted = _ANNOTATIONS[key]
        if wanted == "string" and not isinstance(value, str):
            raise _catalog_error(f'"{key}" must be a string, found {json_type(value)}', at)
        if wanted == "boolean" and not isinstance(value, bool):
            raise _catalog_error(f'"{key}" must be a boolean, found {json_type(value)}', at)
        if wanted == "array" and not isinstance(value, list):
            raise _catalog_error(f'"{key}" must be an array, found {json_type(value)}', at)

    def keyword(self, key: str, value: Any, at: str, depth: int) -> Any:
        if key == "type":
            names = value if isinstance(value, list) else [value]
            if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
                raise _catalog_error(
                    f'"type" must be one of {", ".join(_TYPES)} or an array of them, '
                    f"found {_show(value)}",
                    at,
                )
            if len(set(names)) != len(names):
                raise _catalog_error('the types of "type" must be unique', at)
            return frozenset(names), value
        if key in ("enum", "const"):
            if key == "enum" and not isinstance(value, list):
                raise _catalog_error(f'"enum" must be an array, found {json_type(value)}', at)
            self.literals += _count_values(value) - (key == "enum")
            if self.literals > BOUNDS["max_literal_values"]:
                raise _catalog_error(
                    f"the values of enum and const hold more than "
                    f"{BOUNDS['max_literal_values']} JSON values in all",
                    at,
                )
            values = value if key == "enum" else [value]
            shown = _show(value, 120 if key == "enum" else 60)  # once, as messages show it
            return frozenset(_key(v) for v in values), value, shown
        if key in _COUNTS:
            if not _is_int(value) or value < 0:
                raise _catalog_error(
                    f'"{key}" must be an integer of at least 0, found {_show(value)}', at
                )
            return int(value)
        if key in _NUMBERS or key == "multipleOf":
            if not _is_number(value) or (key == "multipleOf" and value <= 0):
                what = "a number greater than 0" if key == "multipleOf" else "a number"
                raise _catalog_error(f'"{key}" must be {what}, found {_show(value)}', at)
            return (exact(value), value) if key == "multipleOf" else value
        if key == "uniqueItems":
            if not isinstance(value, bool):
                raise _catalog_error(
                    f'"uniqueItems" must be a boolean, found {json_type(value)}', at
                )
            return value
        if key == "required":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _catalog_error('"required" must be an array of strings', at)
            if len(set(value)) != len(value):
                raise _catalog_error('the names of "required" must be unique', at)
            return tuple(value)
        if key == "pattern":
            if not isinstance(value, str):
                raise _catalog_error(f'"pattern" must be a string, found {json_type(value)}', at)
            return self.pattern(value, at), value
        if key in ("properties", "patternProperties"):
            if not isinstance(value, dict):
                raise _catalog_error(f'"{key}" must be an object, found {json_type(value)}', at)
            if key == "properties":
                return {
                    name: self.schema(sub, at + "/" + escape_pointer(name), depth + 1)
                    for name, sub in value.items()
                }
            return tuple(
                (
                    self.pattern(name, at + "/" + escape_pointer(name)),
                    self.schema(sub, at + "/" + escape_pointer(name), depth + 1),
                )
                for name, sub in value.items()
            )
        if key in _ONE_SCHEMA:
            if key == "items" and isinstance(value, list):
                raise _catalog_error(
                    'the array form of "items" is not supported (NUIF catalogs use JSON Schema '
                    "2020-12, where items is one schema)",
                    at,
                )
            return self.schema(value, at, depth + 1)
        if key in _SCHEMA_LISTS:
            if not isinstance(value, list) or not value:
                raise _catalog_error(
                    f'"{key}" must be a non-empty array of schemas, found {json_type(value)}', at
                )
            return tuple(self.schema(sub, f"{at}/{i}", depth + 1) for i, sub in enumerate(value))
        # "$ref"
        if not isinstance(value, str):
            raise _catalog_error(f'"$ref" must be a string, found {json_type(value)}', at)
        if not value.startswith("#"):
            raise _catalog_error(
                f"the reference {quote(value)} leaves the catalog: a $ref resolves only inside "
                "the catalog, as #/$defs/NAME (remote references are refused)",
                at,
            )
        name = value[len(_DEFS_PREFIX) :] if value.startswith(_DEFS_PREFIX) else None
        if name is None or name not in self.def_names:
            raise _catalog_error(
                f"the reference {quote(value)} does not name a definition of the catalog "
                '(a $ref is "#/$defs/NAME", NAME a member of "$defs")',
                at,
            )
        return self.def_names[name]

    def pattern(self, source: str, at: str) -> Pattern:
        try:
            compiled = compile_pattern(source)
        except PatternError as err:
            raise _catalog_error(
                f"the pattern {quote(source)} is not accepted: {err.message} "
                f"(at character {err.offset + 1})",
                at,
            ) from None
        self.pattern_states += compiled.size
        limit = BOUNDS["max_catalog_pattern_states"]
        if self.pattern_states > limit:
            raise _catalog_error(
                f"the catalog's patterns need more than {limit:,} automaton states in all", at
            )
        return compiled

    # -- $ref chains ---------------------------------------------------------------------------
    def check_chains(self, defs: dict[str, Any]) -> None:
        """Every chain of $ref that stays on the same value ends within ``max_ref_chain``
        definitions (a cycle never ends).  Found without recursion and cut at the bound, so a
        chain of any length is answered at once."""
        limit = BOUNDS["max_ref_chain"]
        edges = {name: sorted(_refs_in_place(schema)) for name, schema in defs.items()}
        height: dict[str, int] = {}  # definitions in the longest chain from each one
        for start in defs:
            if start in height:
                continue
            path = [start]
            pending = [iter(edges[start])]
            while path:
                target = next(pending[-1], None)
                if target is None:
                    node = path.pop()
                    pending.pop()
                    height[node] = 1 + max((height[t] for t in edges[node]), default=0)
                    if height[node] > limit:
                        self.chain_error(node, limit)
                    continue
                if target in height:
                    continue
                if target in path:
                    raise _catalog_error(
                        f"the definition {quote(target)} refers to itself through $ref without "
                        "descending into the value (a $ref cycle)",
                        "/$defs/" + escape_pointer(target),
                    )
                if len(path) >= limit:
                    self.chain_error(start, limit)
                path.append(target)
                pending.append(iter(edges[target]))
        # a kind's attrs is no definition: a chain it starts passes through the definitions
        # counted above, so the kinds need no check of their own

    def chain_error(self, name: str, limit: int) -> None:
        raise _catalog_error(
            f"a chain of $ref from the definition {quote(name)} is longer than {limit} "
            "without descending into the value",
            "/$defs/" + escape_pointer(name),
        )


def _refs_in_place(schema: Any) -> set[str]:
    """The definitions a (checked) schema refers to without descending into the value."""
    out: set[str] = set()
    stack = [schema]
    while stack:
        s = stack.pop()
        if not isinstance(s, dict):
            continue
        ref = s.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX):
            out.add(ref[len(_DEFS_PREFIX) :])
        for key in _IN_PLACE:
            sub = s.get(key)
            if isinstance(sub, list):
                stack.extend(sub)
            elif sub is not None:
                stack.append(sub)
    return out


def _unsupported(key: str) -> str:
    if key in ("$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$schema", "$vocabulary"):
        return (
            f"the keyword {quote(key)} is not supported in a catalog (the dialect is JSON Schema "
            "2020-12 and references resolve only to #/$defs/NAME)"
        )
    if key == "$defs":
        return 'definitions belong in the catalog\'s top-level "$defs"'
    return (
        f"the keyword {quote(key)} is not supported in a catalog (NUIF-0 §9.4 lists the keywords "
        "a catalog schema may use)"
    )


# ---------------------------------------------------------------------------------------------
# the catalog


class Catalog:
    """A checked, compiled NUIF catalog (NUIF-0 §9): what each kind of node may hold.

    ``Catalog(text)`` reads the catalog's text (``str``, ``bytes`` or an already-parsed mapping)
    and raises :class:`NuifError` with the code ``NUIF_CATALOG``, located in the catalog, when it
    is not a valid catalog.  ``canonical`` is its canonical text (RFC 8785), ``hash`` the
    ``sha256:`` hash of that text.  Pass it as ``catalog=`` to :func:`nuif_core.validate` and
    :func:`nuif_core.apply_patch`.
    """

    __slots__ = ("_attrs", "_defs", "_specs", "canonical", "closed", "hash")

    #: the fixed bounds of a catalog (NUIF-0 §9.6), by name
    BOUNDS: ClassVar[Mapping[str, int]] = MappingProxyType(BOUNDS)

    canonical: bytes
    hash: str
    closed: bool

    def __init__(self, text: str | bytes | bytearray | memoryview | Mapping[str, Any]) -> None:
        if isinstance(text, Mapping):
            try:
                data = _codec.dumps(text, _CATALOG_DEPTH)
            except NuifError as err:
                raise _catalog_error(err.message, err.pointer) from None
        elif isinstance(text, str):
            data = text.encode("utf-8", "surrogatepass")
        elif isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
        else:
            raise TypeError(f"a NUIF catalog is str, bytes or a mapping, not {type(text).__name__}")
        if len(data) > BOUNDS["max_catalog_bytes"]:
            raise _too_large(len(data))
        try:
            value = _codec.loads(data, _CATALOG_DEPTH)
        except NuifError as err:
            raise NuifError(
                "NUIF_CATALOG",
                f"catalog: the text is not strict JSON: {err.message} ({err.code})",
                pointer=err.pointer,
                line=err.line,
                column=err.column,
            ) from None
        reader = _Reader(value)
        try:
            closed, specs, attrs, defs = reader.read()
        except NuifError as err:
            raise _located(err, data) from None
        self.canonical = _codec.canonical_json(data, _CATALOG_DEPTH)
        self.hash = _codec.hash_bytes(self.canonical)
        self.closed = closed
        self._specs = specs
        self._attrs = attrs
        self._defs = defs

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds the catalog lists, in its order."""
        return tuple(self._specs)

    @property
    def text(self) -> str:
        """The canonical text as ``str``."""
        return self.canonical.decode("utf-8")

    def __repr__(self) -> str:
        return f"<nuif_core.Catalog {self.hash} kinds={len(self._specs)} closed={self.closed}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalog) and other.canonical == self.canonical

    def __hash__(self) -> int:
        return hash(self.canonical)

    # -- checking a document -------------------------------------------------------------------
    def findings(
        self, doc: Any, meter: Meter | None = None
    ) -> Iterator[tuple[str, str, str, bool]]:
        """Catalog problems of a parsed document, in document order, as ``(code, message,
        pointer, at_key)`` (a generator: the caller stops reading when it has enough).  Nodes a
        document problem made unusable are skipped: they have their diagnostic already.

        The work is charged to ``meter`` (a new one, bounded by ``max_evaluation_work``, when it
        is ``None``); past its bound one ``NUIF_CATALOG_ATTRS`` at the attributes being checked
        says so and the checking stops (NUIF-0 §9.6)."""
        if not (isinstance(doc, dict) and isinstance(doc.get("root"), dict)):
            return
        check = _Check(self, Meter() if meter is None else meter)
        try:
            yield from check.node(doc["root"], "/root", None, None)
        except WorkExceeded:
            yield (
                "NUIF_CATALOG_ATTRS",
                f"checking the attributes of kind {quote(check.kind)} needs more work than one "
                f"validation allows ({check.meter.bound:,} units, NUIF-0 §9.6), so the document "
                "is not accepted",
                check.at,
                False,
            )

    def work(self, doc: Any) -> int:
        """The units of work checking the parsed document ``doc`` is charged (NUIF-0 §9.6), or
        the bound plus one when it needs more than the bound allows."""
        meter = Meter()
        for _ in self.findings(doc, meter):
            pass
        return meter.used if meter.left >= 0 else meter.bound + 1


class _Check:
    """One validation of a document against a catalog: its meter, and where it is."""

    __slots__ = ("at", "catalog", "kind", "meter", "positions")

    def __init__(self, catalog: Catalog, meter: Meter) -> None:
        self.catalog = catalog
        self.meter = meter
        self.kind = ""  # the kind whose attributes are being checked, and where they are
        self.at = "/root"
        #: per object (by id, alive for the whole check): its member names → their positions
        self.positions: dict[int, dict[str, int]] = {}

    def node(
        self,
        node: dict[str, Any],
        pointer: str,
        parent_kind: str | None,
        parent_spec: dict[str, Any] | None,
    ) -> Iterator[tuple[str, str, str, bool]]:
        """One node's problems, then its children's, in the order of its members in the text
        (the nesting of nodes is bounded by ``max_depth``, so the recursion is too)."""
        self.meter.charge(1)
        catalog = self.catalog
        kind = node.get("kind")
        if not isinstance(kind, str) or kind_problem(kind) is not None:
            kind = None
        spec = catalog._specs.get(kind) if kind is not None else None
        # what is located at the node itself comes first (as missing members do, NUIF-0 §3.6)
        if spec is not None:
            if "attrs" not in node and spec["attrs"]:
                yield from self.attrs(kind, {}, pointer)  # type: ignore[arg-type]
            if "children" not in node and spec["min"] > 0:
                yield (
                    "NUIF_CATALOG_CHILDREN",
                    f"kind {quote(kind)} needs at least {_plural(spec['min'], 'child')}, "  # type: ignore[arg-type]
                    "found none",
                    pointer,
                    False,
                )
        for name, value in node.items():
            if name == "kind" and kind is not None:
                at = pointer + "/kind"
                if spec is None and catalog.closed:
                    yield (
                        "NUIF_CATALOG_KIND",
                        f"kind {quote(kind)} is not in the catalog, which is closed "
                        f"(its kinds: {_listing(catalog._specs)})",
                        at,
                        False,
                    )
                allowed = None if parent_spec is None else parent_spec["kinds"]
                if allowed is not None and kind not in allowed:
                    yield (
                        "NUIF_CATALOG_CHILDREN",
                        f"kind {quote(kind)} is not allowed as a child of kind "
                        f"{quote(parent_kind or '')} (allowed: {_listing(allowed)})",
                        at,
                        False,
                    )
            elif name == "attrs" and spec is not None and spec["attrs"] and isinstance(value, dict):
                yield from self.attrs(kind, value, pointer + "/attrs")  # type: ignore[arg-type]
            elif name == "children" and isinstance(value, list):
                at = pointer + "/children"
                if spec is not None:
                    count = len(value)
                    if count < spec["min"]:
                        yield (
                            "NUIF_CATALOG_CHILDREN",
                            f"kind {quote(kind)} needs at least "  # type: ignore[arg-type]
                            f"{_plural(spec['min'], 'child')}, found {count}",
                            at,
                            False,
                        )
                    elif spec["max"] is not None and count > spec["max"]:
                        allowed = (
                            "no children (it is a leaf)"
                            if spec["max"] == 0
                            else f"at most {_plural(spec['max'], 'child')}"
                        )
                        yield (
                            "NUIF_CATALOG_CHILDREN",
                            f"kind {quote(kind)} allows {allowed}, found {count}",  # type: ignore[arg-type]
                            at,
                            False,
                        )
                for i, child in enumerate(value):
                    if isinstance(child, dict):
                        yield from self.node(child, f"{at}/{i}", kind, spec)

    def attrs(
        self, kind: str, attrs: dict[str, Any], at: str
    ) -> Iterator[tuple[str, str, str, bool]]:
        """The problems of one node's attributes (``at``: the attrs, or the node itself when it
        has none), in document order; two at one pointer in the order the schema writes them."""
        schema = self.catalog._attrs.get(kind)
        if schema is None:
            return
        self.kind, self.at = kind, at
        failures = evaluate(schema, attrs, self.meter, self.catalog._defs)
        if not failures:
            return
        keyed = []
        for number, failure in enumerate(failures):
            self.meter.charge(PROBLEM_UNITS + len(failure[0]))
            keyed.append((self.order(attrs, failure[0]), number, failure))
        keyed.sort(key=lambda item: item[:2])  # one pointer keeps the keywords' order
        # a failure found twice (a definition applied twice to one value) is reported once;
        # messages are made only for what the caller reads
        seen: set[tuple[Any, ...]] = set()
        for _, _, failure in keyed:
            path, rule, definition, _, at_key = failure
            mark = (path, rule, definition if isinstance(definition, str) else id(definition))
            if mark not in seen:
                seen.add(mark)
                message = _explain(kind, failure, self.meter)
                yield ("NUIF_CATALOG_ATTRS", message, at + join_pointer(list(path)), at_key)

    def order(self, attrs: Any, path: tuple[str | int, ...]) -> tuple[int, ...]:
        """A sort key placing ``path`` in document order (members in the order of the text; a
        value before the members inside it, since a prefix sorts first)."""
        out = []
        value = attrs
        for token in path:
            if isinstance(value, dict):
                positions = self.positions.get(id(value))
                if positions is None:
                    self.meter.charge(len(value))
                    positions = self.positions[id(value)] = {n: i for i, n in enumerate(value)}
                out.append(positions.get(token, len(positions)))  # type: ignore[arg-type]
                value = value.get(token)
            elif isinstance(value, list) and isinstance(token, int):
                out.append(token)
                value = value[token] if token < len(value) else None
            else:
                break
        return tuple(out)


def _explain(kind: str, failure: Failure, meter: Meter) -> str:
    """The message of one failure: what fails, what is wrong and the schema rule."""
    path, rule, definition, value, _ = failure
    if rule == "required":
        name = quote(definition)
        if not path:
            text = f"attribute {name} (kind {quote(kind)}) is required and missing"
        else:
            text = f"{_subject(kind, path)} has no member {name}, which is required"
    elif rule == "additionalProperties":
        name = quote(definition)
        if len(path) == 1:
            text = f"attribute {name} is not one that kind {quote(kind)} has"
        else:
            text = f"{_subject(kind, path[:-1])} has the member {name}, which is not allowed"
    elif rule == "propertyNames":
        text = (
            f"{_subject(kind, path[:-1])} has the member name {quote(definition)}, which its "
            "propertyNames schema refuses"
        )
    else:
        text = f"{_subject(kind, path)} {_describe(rule, definition, value, meter)}"
    return f"{text} (schema rule {quote(rule)})"


def _too_large(size: int) -> NuifError:
    limit = BOUNDS["max_catalog_bytes"]
    return _catalog_error(f"the catalog text is {size} bytes; the limit is {limit} bytes")


def _located(err: NuifError, data: bytes) -> NuifError:
    """``err`` (a catalog problem with a pointer) with the line and column of that pointer."""
    if err.pointer is None:
        return err
    values, keys = locate(data, [err.pointer])
    offset = values.get(err.pointer, keys.get(err.pointer))
    if offset is None:
        return err
    line, column = line_column(data, offset)
    return NuifError(err.code, err.message, pointer=err.pointer, line=line, column=column)


def _listing(names: Any, shown: int = 12) -> str:
    names = list(names)
    text = ", ".join(names[:shown])
    return text + (f", … ({len(names)} in all)" if len(names) > shown else "")


def _subject(kind: str, path: tuple[str | int, ...]) -> str:
    """What a finding is about: ``attribute "label" (kind "button")``, deeper values with their
    pointer inside the attribute, the attributes object itself for an empty path."""
    if not path:
        return f"the attributes (kind {quote(kind)})"
    head = f"attribute {quote(str(path[0]))} (kind {quote(kind)})"
    return head if len(path) == 1 else f"{head}, at {join_pointer(list(path[1:]))},"


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {'children' if word == 'child' else word + 's'}"


_TYPE_WORDS = {
    "null": "null",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "string": "a string",
    "integer": "an integer",
}


def _describe(rule: str, definition: Any, value: Any, meter: Meter) -> str:
    """What is wrong, for one schema rule, in words that do not depend on the library."""
    if rule == "type":
        names = definition[1] if isinstance(definition[1], list) else [definition[1]]
        wanted = " or ".join(_TYPE_WORDS.get(n, str(n)) for n in names)
        return f"must be {wanted}, found {json_type(value)}"
    if rule == "enum":
        return f"must be one of {definition[2]}, found {_show(value, meter=meter)}"
    if rule == "const":
        return f"must be {definition[2]}, found {_show(value, meter=meter)}"
    if rule == "minLength":
        return f"must be at least {_plural(definition, 'character')} long"
    if rule == "maxLength":
        return f"must be at most {_plural(definition, 'character')} long"
    if rule == "pattern":
        return f"must match the pattern {quote(definition[1])}"
    if rule in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        relation = {
            "minimum": "at least",
            "exclusiveMinimum": "greater than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }[rule]
        return f"must be {relation} {_show(definition)}, found {_show(value)}"
    if rule == "multipleOf":
        return f"must be a multiple of {_show(definition[1])}, found {_show(value)}"
    if rule == "minItems":
        return f"must have at least {_plural(definition, 'item')}"
    if rule == "maxItems":
        return f"must have at most {_plural(definition, 'item')}"
    if rule == "uniqueItems":
        return "must not hold the same item twice"
    if rule == "contains":
        return "must hold an item that matches the contains schema"
    if rule == "minProperties":
        return f"must have at least {_plural(definition, 'member')}"
    if rule == "maxProperties":
        return f"must have at most {_plural(definition, 'member')}"
    if rule == "anyOf":
        return "matches none of the schemas of anyOf"
    if rule == "oneOf":
        return "must match exactly one of the schemas of oneOf"
    if rule == "not":
        return "must not match the schema of not"
    if rule in ("then", "else"):
        return f"does not match the schema of {rule} (if/then/else)"
    return "is not allowed (its schema is false)"  # rule "false"


class _Cache:
    """Catalogs read from their text, kept so that passing the same text on every call reads it
    once: at most :attr:`ENTRIES` catalogs whose texts hold at most :attr:`BYTES` bytes in all,
    the least recently used dropped first.  A compiled catalog is immutable and its size is
    bounded by NUIF-0 §9.6, so the cache is bounded in memory; and since what it holds is what
    a fresh read would build, it changes no answer.  One lock guards it (a catalog is read
    outside the lock: two threads may read the same text at once, and both get equal ones)."""

    ENTRIES = 16
    BYTES = 4 * MiB

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, Catalog] = OrderedDict()
        self._bytes = 0

    def get(self, data: bytes) -> Catalog:
        with self._lock:
            found = self._entries.get(data)
            if found is not None:
                self._entries.move_to_end(data)
                return found
        catalog = Catalog(data)  # raises for a catalog that is not valid: nothing is kept
        with self._lock:
            if data not in self._entries:
                self._entries[data] = catalog
                self._bytes += len(data)
                while len(self._entries) > self.ENTRIES or self._bytes > self.BYTES:
                    old, _ = self._entries.popitem(last=False)
                    self._bytes -= len(old)
        return catalog


_cache = _Cache()


def as_catalog(catalog: Any) -> Catalog:
    """``catalog`` as a :class:`Catalog`: itself, or read from its text or mapping (texts are
    cached, so passing the same text on every call reads it once)."""
    if isinstance(catalog, Catalog):
        return catalog
    if isinstance(catalog, str):
        data = catalog.encode("utf-8", "surrogatepass")
        if len(data) > BOUNDS["max_catalog_bytes"]:
            raise _too_large(len(data))  # (before the cache: a text this long is not kept)
        return _cache.get(data)
    if isinstance(catalog, (bytes, bytearray, memoryview)):
        data = bytes(catalog)
        if len(data) > BOUNDS["max_catalog_bytes"]:
            raise _too_large(len(data))
        return _cache.get(data)
    return Catalog(catalog)
