"""Kind catalogs (NUIF-0 §9, docs/spec/nuif-0.1-catalogs.md): what each kind of node may hold.

This is not a public API (``nuif_core`` exports :class:`Catalog`; ``validate`` and
``apply_patch`` take ``catalog=``).  A catalog is read by the rules of NUIF-0 §1, checked against
§9 here -- its members, its kinds, every JSON Schema in it (the keywords of §9.4 only, ``$ref``
only to ``#/$defs/NAME``, patterns in the linear-time subset of ``_catalog_regex``) and the bounds
of §9.6 -- and then compiled once: every ``attrs`` schema becomes a function of one
``fastjsonschema`` module.  Checking a document walks its nodes in document order and reports
``NUIF_CATALOG_KIND``, ``NUIF_CATALOG_ATTRS`` and ``NUIF_CATALOG_CHILDREN`` findings in the
shape of ``_schema.Checker``'s, which ``_document`` locates in the text like any diagnostic.

Everything here is pure Python on every route (the compiled codec is not involved), so the
compiled wheel, the pure wheel and Pyodide give the same answers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

try:
    import fastjsonschema
    from fastjsonschema.draft07 import CodeGeneratorDraft07
    from fastjsonschema.ref_resolver import RefResolver
except ImportError as exc:  # the catalogs extra is not installed
    raise ModuleNotFoundError(
        "kind catalogs need fastjsonschema: install nuif-core[catalogs] "
        "(pip install 'nuif-core[catalogs]')",
        name="fastjsonschema",
    ) from exc

from . import _codec
from ._catalog_regex import (
    MATCH_WORK,
    MAX_STATES,
    Pattern,
    PatternError,
    PatternWorkExceeded,
    compile_pattern,
    work_budget,
)
from ._errors import NuifError, escape_pointer, join_pointer, line_column
from ._limits import MiB
from ._locate import locate
from ._messages import quote
from ._rfc8785 import number_text
from ._schema import json_type, kind_problem

__all__ = [
    "BOUNDS",
    "Catalog",
    "as_catalog",
]

#: the bounds of a catalog (NUIF-0 §9.6): name → (value, what it bounds)
#: (each compiled schema costs about 0.2 ms to compile and each enum or const value some 40 µs,
#: so a catalog at every bound is read in well under a second)
BOUNDS: dict[str, int] = {
    "max_catalog_bytes": 1 * MiB,
    "max_kinds": 1000,
    "max_schemas": 500,
    "max_literal_values": 2000,
    "max_ref_chain": 32,
    "max_schema_depth": 16,
    "max_pattern_states": MAX_STATES,
    "max_pattern_work": MATCH_WORK,
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
#: marks a compiled enum with the keyword the catalog wrote ("enum" or "const"); the compiler
#: ignores members it does not know
_MARK = "$nuif"


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


def _holds_ref(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("$ref"), str):
                return True
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def _show(value: Any, limit: int = 60) -> str:
    """A JSON value as messages show it: its canonical text, cut to ``limit`` characters."""
    text = _codec.dumps(value, _CATALOG_DEPTH).decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        self.patterns: dict[str, Pattern] = {}  # placeholder → compiled pattern
        self.sources: dict[str, str] = {}  # placeholder → the pattern as written
        self.def_names: dict[str, str] = {}  # catalog name → compiled name
        self.subschemas: dict[str, Any] = {}  # compiled name → every schema inside another
        #: per schema object (by id): the $defs it reaches in place (for the chain check)
        self.refs_in_place: dict[str, set[str]] = {}

    # -- the catalog's members -------------------------------------------------------------------
    def read(self) -> tuple[bool, dict[str, dict[str, Any]], dict[str, Any], dict[str, Any]]:
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
            self.def_names[name] = f"d{index}"
        compiled_defs = {
            self.def_names[name]: self.schema(schema, "/$defs/" + escape_pointer(name), 1)
            for name, schema in defs.items()
        }
        specs: dict[str, dict[str, Any]] = {}
        compiled_kinds: dict[str, Any] = {}
        for kind, spec in kinds.items():
            at = "/kinds/" + escape_pointer(kind)
            problem = kind_problem(kind)
            if problem is not None:
                raise _catalog_error(problem, at)
            specs[kind] = self.kind(spec, at, kind, compiled_kinds)
        self.check_chains(defs)
        return closed, specs, compiled_kinds, compiled_defs

    def kind(self, spec: Any, at: str, kind: str, compiled: dict[str, Any]) -> dict[str, Any]:
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
    def schema(self, schema: Any, at: str, depth: int) -> Any:
        """Check one schema (NUIF-0 §9.4) and return what is compiled for it."""
        if depth > BOUNDS["max_schema_depth"]:
            raise _catalog_error(
                f"schemas are nested deeper than {BOUNDS['max_schema_depth']} levels", at
            )
        self.schemas += 1
        if self.schemas > BOUNDS["max_schemas"]:
            raise _catalog_error(f"the catalog holds more than {BOUNDS['max_schemas']} schemas", at)
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, dict):
            raise _catalog_error(
                f"a schema is an object or a boolean, found {json_type(schema)}", at
            )
        out: dict[str, Any] = {}
        for key, value in schema.items():
            here = at + "/" + escape_pointer(key)
            if key in _ANNOTATIONS:
                self.annotation(key, value, here)
            elif key in _ASSERTIONS:
                out[key] = self.keyword(key, value, here, depth)
            else:
                raise _catalog_error(_unsupported(key), here)
        # what is compiled: enum and const each in a definition of their own (their values are
        # data, kept out of every other error site's copy of the schema, and lists are never
        # read as schemas), $ref beside its siblings (2020-12 applies both) as allOf
        parts: list[Any] = []
        for key in ("const", "enum"):
            if key in out:
                values = [out.pop(key)] if key == "const" else out.pop(key)
                parts.append(self.define({"enum": values, _MARK: key}))
        if "$ref" in out:
            parts.append({"$ref": out.pop("$ref")})
        if out or not parts:
            parts.append(out)
        return parts[0] if len(parts) == 1 else {"allOf": parts}

    def define(self, compiled: Any) -> Any:
        """``compiled`` as a definition of its own, referred to by ``$ref``: each schema is one
        function of the generated module, so no function nests deeply and each error site
        carries only its own schema.  Booleans stay where they are."""
        if isinstance(compiled, bool) or set(compiled) == {"$ref"}:
            return compiled
        name = f"s{len(self.subschemas)}"
        self.subschemas[name] = compiled
        return {"$ref": _DEFS_PREFIX + name}

    def sub(self, schema: Any, at: str, depth: int) -> Any:
        """A schema inside another one: checked, then made a definition of its own."""
        return self.define(self.schema(schema, at, depth))

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
            return value
        if key in ("enum", "const"):
            if key == "enum" and not isinstance(value, list):
                raise _catalog_error(f'"enum" must be an array, found {json_type(value)}', at)
            if _holds_ref(value):
                raise _catalog_error(
                    f'a value of "{key}" may not hold an object with a "$ref" member that is a '
                    "string (the schema compiler would read it as a reference)",
                    at,
                )
            self.literals += _count_values(value) - (key == "enum")
            if self.literals > BOUNDS["max_literal_values"]:
                raise _catalog_error(
                    f"the values of enum and const hold more than "
                    f"{BOUNDS['max_literal_values']} JSON values in all",
                    at,
                )
            return value
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
            return value
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
            return value
        if key == "pattern":
            if not isinstance(value, str):
                raise _catalog_error(f'"pattern" must be a string, found {json_type(value)}', at)
            return self.pattern(value, at)
        if key in ("properties", "patternProperties"):
            if not isinstance(value, dict):
                raise _catalog_error(f'"{key}" must be an object, found {json_type(value)}', at)
            out = {}
            for name, sub in value.items():
                here = at + "/" + escape_pointer(name)
                compiled_name = self.pattern(name, here) if key == "patternProperties" else name
                out[compiled_name] = self.sub(sub, here, depth + 1)
            return out
        if key in _ONE_SCHEMA:
            if key == "items" and isinstance(value, list):
                raise _catalog_error(
                    'the array form of "items" is not supported (NUIF catalogs use JSON Schema '
                    "2020-12, where items is one schema)",
                    at,
                )
            return self.sub(value, at, depth + 1)
        if key in _SCHEMA_LISTS:
            if not isinstance(value, list) or not value:
                raise _catalog_error(
                    f'"{key}" must be a non-empty array of schemas, found {json_type(value)}', at
                )
            return [self.sub(sub, f"{at}/{i}", depth + 1) for i, sub in enumerate(value)]
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
        return _DEFS_PREFIX + self.def_names[name]

    def pattern(self, source: str, at: str) -> str:
        try:
            compiled = compile_pattern(source)
        except PatternError as err:
            raise _catalog_error(
                f"the pattern {quote(source)} is not accepted: {err.message} "
                f"(at character {err.offset + 1})",
                at,
            ) from None
        placeholder = f"nuifpattern{len(self.patterns)}"
        self.patterns[placeholder] = compiled
        self.sources[placeholder] = source
        return placeholder

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


class _RefusingHandlers(Mapping[str, Any]):
    """URI handlers for fastjsonschema that refuse every remote reference (none can reach the
    compiler after the checks above; this keeps it so)."""

    def __getitem__(self, scheme: str) -> Any:
        def refuse(uri: str) -> Any:
            raise _catalog_error(f"the remote reference {quote(uri)} is refused")

        return refuse

    def __contains__(self, scheme: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _compile(
    kinds: dict[str, Any], defs: dict[str, Any], patterns: dict[str, Pattern]
) -> dict[str, Any]:
    """One fastjsonschema module for the whole catalog: kind → its attrs function."""
    if not kinds:
        return {}
    names = {kind: f"k{i}" for i, kind in enumerate(kinds)}
    root = {
        "$defs": {**defs, **{names[k]: schema for k, schema in kinds.items()}},
        "anyOf": [{"$ref": _DEFS_PREFIX + names[k]} for k in kinds],
    }
    resolver = RefResolver.from_schema(root, handlers=_RefusingHandlers(), store={})
    generator = CodeGeneratorDraft07(
        root, resolver=resolver, formats={}, use_default=False, use_formats=False, fast_fail=False
    )
    try:
        code = generator.func_code
        namespace = generator.global_state
    except fastjsonschema.JsonSchemaDefinitionException as err:  # pragma: no cover - checked above
        raise _catalog_error(f"a schema cannot be compiled: {err}", "") from None
    regexes = namespace["REGEX_PATTERNS"]
    for placeholder in list(regexes):
        regexes[placeholder] = patterns[placeholder]  # the linear-time matcher, not re
    try:
        exec(code, namespace)  # the module fastjsonschema generated for the checked catalog
    except (SyntaxError, RecursionError, MemoryError):  # pragma: no cover - the bounds prevent it
        raise _catalog_error("the catalog's schemas are too deeply nested to compile", "") from None
    out = {}
    for kind, name in names.items():
        with resolver.in_scope(_DEFS_PREFIX + name):
            out[kind] = namespace[resolver.get_scope_name()]
    return out


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

    __slots__ = ("_attrs", "_patterns", "_sources", "_specs", "canonical", "closed", "hash")

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
            closed, specs, kinds, defs = reader.read()
            attrs = _compile(kinds, {**defs, **reader.subschemas}, reader.patterns)
        except NuifError as err:
            raise _located(err, data) from None
        self.canonical = _codec.canonical_json(data, _CATALOG_DEPTH)
        self.hash = _codec.hash_bytes(self.canonical)
        self.closed = closed
        self._specs = specs
        self._attrs = attrs
        self._patterns = reader.patterns
        self._sources = reader.sources

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
    def findings(self, doc: Any) -> Iterator[tuple[str, str, str, bool]]:
        """Catalog problems of a parsed document, in document order, as ``(code, message,
        pointer, at_key)`` (a generator: the caller stops reading when it has enough).  Nodes a
        document problem made unusable are skipped: they have their diagnostic already."""
        if isinstance(doc, dict) and isinstance(doc.get("root"), dict):
            with work_budget():
                try:
                    yield from self._node(doc["root"], "/root", None, None)
                except PatternWorkExceeded as stop:
                    # the patterns' shared work bound (NUIF-0 §9.6): one problem, and no more
                    # checking; the document is not accepted
                    if stop.finding is not None:
                        yield stop.finding

    def _node(
        self,
        node: dict[str, Any],
        pointer: str,
        parent_kind: str | None,
        parent_spec: dict[str, Any] | None,
    ) -> Iterator[tuple[str, str, str, bool]]:
        """One node's problems, then its children's, in the order of its members in the text
        (the nesting of nodes is bounded by ``max_depth``, so the recursion is too)."""
        kind = node.get("kind")
        if not isinstance(kind, str) or kind_problem(kind) is not None:
            kind = None
        spec = self._specs.get(kind) if kind is not None else None
        # what is located at the node itself comes first (as missing members do, NUIF-0 §3.6)
        if spec is not None:
            if "attrs" not in node and spec["attrs"]:
                yield from self._attrs_findings(kind, {}, pointer)  # type: ignore[arg-type]
            if "children" not in node and spec["min"] > 0:
                yield (
                    "NUIF_CATALOG_CHILDREN",
                    f"kind {quote(kind)} needs at least {_plural(spec['min'], 'child')}, "  # type: ignore[arg-type]
                    "found none",
                    pointer,
                    False,
                )
        for key, value in node.items():
            if key == "kind" and kind is not None:
                at = pointer + "/kind"
                if spec is None and self.closed:
                    yield (
                        "NUIF_CATALOG_KIND",
                        f"kind {quote(kind)} is not in the catalog, which is closed "
                        f"(its kinds: {_listing(self._specs)})",
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
            elif key == "attrs" and spec is not None and spec["attrs"] and isinstance(value, dict):
                yield from self._attrs_findings(kind, value, pointer + "/attrs")  # type: ignore[arg-type]
            elif key == "children" and isinstance(value, list):
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
                        yield from self._node(child, f"{at}/{i}", kind, spec)

    def _attrs_findings(
        self, kind: str, attrs: dict[str, Any], at: str
    ) -> Iterator[tuple[str, str, str, bool]]:
        check = self._attrs.get(kind)
        if check is None:
            return
        try:
            check(attrs)
            return
        except PatternWorkExceeded as stop:
            stop.finding = (
                "NUIF_CATALOG_ATTRS",
                f"the attributes of kind {quote(kind)} need more pattern matching than one "
                f"validation allows ({MATCH_WORK:,} automaton steps, NUIF-0 §9.6), so the "
                'document is not accepted (schema rule "pattern")',
                at,
                False,
            )
            raise
        except fastjsonschema.JsonSchemaValuesException as many:
            errors = list(many.errors)
        except fastjsonschema.JsonSchemaValueException as one:
            errors = [one]
        found: list[tuple[tuple[int, ...], tuple[str, str, str, bool]]] = []
        for error in errors:
            for path, message, at_key in self._explain(kind, error, attrs):
                pointer = at + join_pointer(path)  # ``at``: the node itself when it has no attrs
                entry = (
                    "NUIF_CATALOG_ATTRS",
                    message,
                    pointer,
                    at_key,
                )
                found.append((_order(attrs, path), entry))
        found.sort(key=lambda item: item[0])
        seen: set[tuple[str, str, str, bool]] = set()
        for _, entry in found:
            if entry not in seen:
                seen.add(entry)
                yield entry

    def _explain(
        self, kind: str, error: fastjsonschema.JsonSchemaValueException, attrs: dict[str, Any]
    ) -> list[tuple[list[str | int], str, bool]]:
        """(path inside attrs, the message, whether it is about a member name) for one error."""
        path = _resolve(error.name or "data", attrs, error.value)
        rule = error.rule or ""
        subject = _subject(kind, path)
        definition = error.rule_definition
        value = error.value
        schema = error.definition if isinstance(error.definition, dict) else {}
        if rule == "enum" and schema.get(_MARK) == "const":
            rule, definition = "const", definition[0]
        return [
            (where, f"{message} (schema rule {quote(rule or 'false')})", at_key)
            for where, message, at_key in self._explain_rule(
                kind, rule, definition, value, schema, path, subject
            )
        ]

    def _explain_rule(
        self,
        kind: str,
        rule: str,
        definition: Any,
        value: Any,
        schema: dict[str, Any],
        path: list[str | int],
        subject: str,
    ) -> list[tuple[list[str | int], str, bool]]:
        if rule == "required" and isinstance(value, dict):
            missing = [name for name in definition if name not in value]
            if not path:
                return [
                    (
                        path,
                        f"attribute {quote(name)} (kind {quote(kind)}) is required and missing",
                        False,
                    )
                    for name in missing
                ]
            return [
                (path, f"{subject} has no member {quote(name)}, which is required", False)
                for name in missing
            ]
        if rule == "additionalProperties" and isinstance(value, dict):
            known = schema.get("properties", {})
            regexes = [self._patterns[p] for p in schema.get("patternProperties", {})]
            extra = [
                name
                for name in value
                if name not in known and not any(r.search(name) for r in regexes)
            ]
            if not path:
                return [
                    (
                        [name],
                        f"attribute {quote(name)} is not one that kind {quote(kind)} has",
                        True,
                    )
                    for name in extra
                ]
            return [
                (
                    [*path, name],
                    f"{subject} has the member {quote(name)}, which is not allowed",
                    True,
                )
                for name in extra
            ]
        return [(path, f"{subject} {_describe(rule, definition, value, self._sources)}", False)]


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


def _subject(kind: str, path: list[str | int]) -> str:
    """What a finding is about: ``attribute "label" (kind "button")``, deeper values with their
    pointer inside the attribute, the attributes object itself for an empty path."""
    if not path:
        return f"the attributes (kind {quote(kind)})"
    head = f"attribute {quote(str(path[0]))} (kind {quote(kind)})"
    return head if len(path) == 1 else f"{head}, at {join_pointer(path[1:])},"


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {'children' if word == 'child' else word + 's'}"


def _order(attrs: Any, path: list[str | int]) -> tuple[int, ...]:
    """A sort key placing ``path`` in document order (member order of the text)."""
    key = []
    value = attrs
    for token in path:
        if isinstance(value, dict):
            names = list(value)
            key.append(names.index(token) if token in value else len(names))
            value = value.get(token)
        elif isinstance(value, list) and isinstance(token, int):
            key.append(token)
            value = value[token] if token < len(value) else None
        else:
            break
    # a finding about a value sorts before those of the members inside it (a prefix sorts first)
    return tuple(key)


def _resolve(name: str, attrs: Any, target: Any) -> list[str | int]:
    """The path (keys and indexes) of the value fastjsonschema calls ``name`` (``data.a[2].b``),
    read against the value itself, since a member name may hold ``.`` or ``[``.  The first
    reading that lands on ``target`` wins; the search is bounded, and a name it cannot read
    resolves to the attributes object."""
    budget = [2000]

    def walk(rest: str, value: Any, path: list[str | int]) -> list[str | int] | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if not rest:
            return path if value is target or value == target else None
        if rest[0] == "[" and isinstance(value, list):
            end = rest.find("]")
            digits = rest[1:end]
            if end > 1 and digits.isdigit() and int(digits) < len(value):
                found = walk(rest[end + 1 :], value[int(digits)], [*path, int(digits)])
                if found is not None:
                    return found
        if rest[0] == "." and isinstance(value, dict):
            for key in value:
                if rest.startswith(key, 1):
                    found = walk(rest[1 + len(key) :], value[key], [*path, key])
                    if found is not None:
                        return found
        return None

    rest = name[4:] if name.startswith("data") else name
    return walk(rest, attrs, []) or []


_TYPE_WORDS = {
    "null": "null",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "string": "a string",
    "integer": "an integer",
}


def _describe(rule: str, definition: Any, value: Any, sources: dict[str, str]) -> str:
    """What is wrong, for one schema rule, in words that do not depend on the library."""
    if rule == "type":
        names = definition if isinstance(definition, list) else [definition]
        wanted = " or ".join(_TYPE_WORDS.get(n, str(n)) for n in names)
        return f"must be {wanted}, found {json_type(value)}"
    if rule == "enum":
        return f"must be one of {_show(definition, 120)}, found {_show(value)}"
    if rule == "const":
        return f"must be {_show(definition)}, found {_show(value)}"
    if rule == "minLength":
        return f"must be at least {_plural(definition, 'character')} long"
    if rule == "maxLength":
        return f"must be at most {_plural(definition, 'character')} long"
    if rule == "pattern":
        return f"must match the pattern {quote(sources.get(definition, str(definition)))}"
    if rule in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        relation = {
            "minimum": "at least",
            "exclusiveMinimum": "greater than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }[rule]
        return f"must be {relation} {_show(definition)}, found {_show(value)}"
    if rule == "multipleOf":
        return f"must be a multiple of {_show(definition)}, found {_show(value)}"
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
    if rule == "propertyNames":
        return "has a member name that its propertyNames schema refuses"
    if rule == "anyOf":
        return "matches none of the schemas of anyOf"
    if rule == "oneOf":
        return "must match exactly one of the schemas of oneOf"
    if rule == "not":
        return "must not match the schema of not"
    if rule in ("then", "else", "if"):
        return f"does not match the schema of {rule} (if/then/else)"
    if rule == "items":
        return "has an item that its items schema refuses"
    if rule == "additionalProperties":
        return "has a member that no schema admits"
    if not rule:
        return "is not allowed (its schema is false)"
    return "does not match its schema"


@functools.lru_cache(maxsize=16)
def _cached(data: bytes) -> Catalog:
    return Catalog(data)


def as_catalog(catalog: Any) -> Catalog:
    """``catalog`` as a :class:`Catalog`: itself, or read from its text or mapping (texts are
    cached, so passing the same text on every call compiles it once)."""
    if isinstance(catalog, Catalog):
        return catalog
    if isinstance(catalog, str):
        data = catalog.encode("utf-8", "surrogatepass")
        if len(data) > BOUNDS["max_catalog_bytes"]:
            raise _too_large(len(data))  # (before the cache: a text this long is not kept)
        return _cached(data)
    if isinstance(catalog, (bytes, bytearray, memoryview)):
        data = bytes(catalog)
        if len(data) > BOUNDS["max_catalog_bytes"]:
            raise _too_large(len(data))
        return _cached(data)
    return Catalog(catalog)
