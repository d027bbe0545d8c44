"""Kind catalogs (NUIF-0 §9): the corpus, validate and apply_patch with a catalog, the Catalog
type, the basic catalog, and hostile catalogs (bounded, with a clear NUIF_CATALOG).

The corpus is tests/data/catalogs: documents valid and invalid against the basic catalog, invalid
catalogs, and ``expected.json`` with every diagnostic (code, message, pointer, line, column).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from nuif_core import Catalog, NuifError, catalogs
from nuif_core._catalog import BOUNDS

DATA = Path(__file__).resolve().parents[1] / "data" / "catalogs"
EXPECTED: dict[str, list[dict[str, Any]]] = json.loads((DATA / "expected.json").read_text("utf-8"))
VALID = sorted((DATA / "basic" / "valid").glob("*.json"))
INVALID = sorted((DATA / "basic" / "invalid").glob("*.json"))
BAD_CATALOGS = sorted((DATA / "invalid-catalogs").glob("*.json"))


def _catalog(kinds: dict[str, Any], **more: Any) -> str:
    return json.dumps({"nuif_catalog": 0, "kinds": kinds, **more})


def _doc(root: dict[str, Any]) -> str:
    return json.dumps({"nuif": 0, "root": root})


def _catalog_error(text: Any) -> NuifError:
    with pytest.raises(NuifError) as caught:
        Catalog(text)
    assert caught.value.code == "NUIF_CATALOG"
    assert caught.value.message.startswith("catalog: ")
    return caught.value


# --- the corpus ---------------------------------------------------------------------------------


def test_the_corpus_is_complete() -> None:
    assert len(VALID) >= 4 and len(INVALID) >= 10 and len(BAD_CATALOGS) >= 12
    names = {f"basic/invalid/{p.name}" for p in INVALID}
    names |= {f"invalid-catalogs/{p.name}" for p in BAD_CATALOGS}
    assert set(EXPECTED) == names
    codes = {d["code"] for found in EXPECTED.values() for d in found}
    assert {
        "NUIF_CATALOG",
        "NUIF_CATALOG_KIND",
        "NUIF_CATALOG_ATTRS",
        "NUIF_CATALOG_CHILDREN",
    } <= codes


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_a_valid_document_passes_the_basic_catalog_with_its_hash(path: Path) -> None:
    data = path.read_bytes()
    report = nuif_core.validate(data, catalog=catalogs.basic())
    assert report.valid and report.diagnostics == ()
    assert report.hash == nuif_core.validate(data).hash == nuif_core.document_hash(data)
    assert nuif_core.validate(data.decode("utf-8"), catalog=catalogs.basic()) == report


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_an_invalid_document_reports_every_catalog_problem(path: Path) -> None:
    report = nuif_core.validate(path.read_bytes(), catalog=catalogs.basic())
    assert not report.valid and report.hash is None and not report.truncated
    assert [d.to_dict() for d in report.diagnostics] == EXPECTED[f"basic/invalid/{path.name}"]
    # without the catalog, only the document's own problems remain
    plain = nuif_core.validate(path.read_bytes())
    assert all(not d.code.startswith("NUIF_CATALOG") for d in plain.diagnostics)
    assert report.diagnostics[: len(plain.diagnostics)] == plain.diagnostics


@pytest.mark.parametrize("path", BAD_CATALOGS, ids=lambda p: p.name)
def test_an_invalid_catalog_is_refused_where_it_is_wrong(path: Path) -> None:
    err = _catalog_error(path.read_bytes())
    assert [err.to_dict()] == EXPECTED[f"invalid-catalogs/{path.name}"]
    assert err.line is not None and err.column is not None
    # through validate: the report's only diagnostic, whatever the document
    report = nuif_core.validate(VALID[0].read_bytes(), catalog=path.read_text("utf-8"))
    assert not report.valid and [d.to_dict() for d in report.diagnostics] == [err.to_dict()]
    # through apply_patch: raised before the document is read (this one is not even JSON)
    with pytest.raises(NuifError) as caught:
        nuif_core.apply_patch(
            "{", '{"nuif_patch": 0, "transactions": []}', catalog=path.read_bytes()
        )
    assert caught.value.to_dict() == err.to_dict()


def test_document_problems_come_first_and_the_catalog_skips_unusable_nodes() -> None:
    found = EXPECTED["basic/invalid/document-and-catalog-problems.json"]
    assert [d["code"] for d in found] == [
        "NUIF_DUPLICATE_ID",
        "NUIF_KIND",
        "NUIF_CATALOG_KIND",
        "NUIF_CATALOG_CHILDREN",
    ]


def test_the_pure_twin_gives_the_same_reports() -> None:
    """The compiled wheel and the pure wheel run the same catalog code: same reports."""
    script = (
        "import json, sys, nuif_core\n"
        "from nuif_core import catalogs\n"
        "out = [nuif_core.validate(open(p, 'rb').read(), catalog=catalogs.basic()).to_dict()"
        " for p in sys.argv[1:]]\n"
        "print(json.dumps([nuif_core.IMPLEMENTATION, out]))\n"
    )
    paths = [str(p) for p in [*VALID, *INVALID]]
    env = {**os.environ, "NUIF_NO_EXTENSIONS": "1"}
    env.pop("NUIF_REQUIRE_EXTENSION", None)
    done = subprocess.run(
        [sys.executable, "-c", script, *paths],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    implementation, reports = json.loads(done.stdout)
    assert implementation == "python"
    here = [
        nuif_core.validate(Path(p).read_bytes(), catalog=catalogs.basic()).to_dict() for p in paths
    ]
    assert reports == here


# --- validate -----------------------------------------------------------------------------------


def test_max_diagnostics_counts_the_catalog_problems_too() -> None:
    data = (DATA / "basic" / "invalid" / "wrong-types.json").read_bytes()
    full = nuif_core.validate(data, catalog=catalogs.basic())
    assert len(full.diagnostics) == 4
    cut = nuif_core.validate(data, catalog=catalogs.basic(), max_diagnostics=2)
    assert cut.truncated and cut.diagnostics == full.diagnostics[:2]
    # a document whose own problems fill the list gets no catalog diagnostic, but says it is cut
    doc = _doc({"id": "r", "kind": "screen", "children": [{"id": "x", "kind": "X"}, {"id": "y"}]})
    own = nuif_core.validate(doc, max_diagnostics=2)
    assert len(own.diagnostics) == 2 and not own.truncated
    with_catalog = nuif_core.validate(doc, catalog=catalogs.basic(), max_diagnostics=2)
    assert with_catalog.diagnostics == own.diagnostics and with_catalog.truncated
    assert (
        nuif_core.validate(doc, catalog=catalogs.basic()).diagnostics[2].code
        == "NUIF_CATALOG_ATTRS"
    )


@pytest.mark.parametrize(
    "text",
    ["", "[1,", '{"nuif": 1, "root": {"id": "r", "kind": "zzz"}}', "\ufeff{}"],
    ids=["empty", "syntax", "version", "bom"],
)
def test_a_text_or_version_error_is_the_only_diagnostic_with_a_catalog(text: str) -> None:
    assert nuif_core.validate(text, catalog=catalogs.basic()) == nuif_core.validate(text)


def test_an_open_catalog_checks_only_the_kinds_it_lists() -> None:
    cat = Catalog(_catalog({"button": {"attrs": {"required": ["label"]}, "children": {"max": 0}}}))
    assert not cat.closed
    ok = _doc(
        {
            "id": "r",
            "kind": "anything",
            "children": [{"id": "b", "kind": "button", "attrs": {"label": "x"}}],
        }
    )
    assert nuif_core.validate(ok, catalog=cat).valid
    bad = _doc({"id": "r", "kind": "anything", "children": [{"id": "b", "kind": "button"}]})
    (found,) = nuif_core.validate(bad, catalog=cat).diagnostics
    assert (found.code, found.pointer) == ("NUIF_CATALOG_ATTRS", "/root/children/0")


def test_children_bounds_and_kinds() -> None:
    cat = Catalog(
        _catalog(
            {
                "pair": {"children": {"kinds": ["item"], "min": 2, "max": 2}},
                "item": {"children": {"max": 0}},
            },
            closed=True,
        )
    )
    item = {"kind": "item"}
    none = _doc({"id": "p", "kind": "pair"})
    (found,) = nuif_core.validate(none, catalog=cat).diagnostics
    assert (found.code, found.pointer, found.line) == ("NUIF_CATALOG_CHILDREN", "/root", 1)
    assert found.message == 'kind "pair" needs at least 2 children, found none'
    three = _doc(
        {"id": "p", "kind": "pair", "children": [{"id": f"i{i}", **item} for i in range(3)]}
    )
    (found,) = nuif_core.validate(three, catalog=cat).diagnostics
    assert (found.code, found.pointer) == ("NUIF_CATALOG_CHILDREN", "/root/children")
    assert found.message == 'kind "pair" allows at most 2 children, found 3'
    wrong = _doc(
        {"id": "p", "kind": "pair", "children": [{"id": "a", **item}, {"id": "b", "kind": "pair"}]}
    )
    codes = [(d.code, d.pointer) for d in nuif_core.validate(wrong, catalog=cat).diagnostics]
    assert codes == [
        ("NUIF_CATALOG_CHILDREN", "/root/children/1"),  # the inner pair has no children
        ("NUIF_CATALOG_CHILDREN", "/root/children/1/kind"),  # a pair is not an item
    ]


def test_attribute_names_holding_dots_and_brackets_are_pointed_at_exactly() -> None:
    cat = Catalog(
        _catalog(
            {
                "x": {
                    "attrs": {
                        "properties": {
                            "a.b": {"type": "object", "properties": {"c[0]": {"type": "string"}}},
                            "a": {"type": "object"},
                        }
                    }
                }
            }
        )
    )
    doc = _doc({"id": "r", "kind": "x", "attrs": {"a": {"b": 1}, "a.b": {"c[0]": 5}}})
    (found,) = nuif_core.validate(doc, catalog=cat).diagnostics
    assert found.pointer == "/root/attrs/a.b/c[0]"
    assert found.message.startswith('attribute "a.b" (kind "x"), at /c[0], must be a string')


def test_a_false_schema_and_pattern_properties() -> None:
    cat = Catalog(
        _catalog(
            {
                "x": {
                    "attrs": {
                        "patternProperties": {"^on:": {"type": "string"}},
                        "properties": {"gone": False},
                        "additionalProperties": False,
                    }
                }
            }
        )
    )
    doc = _doc(
        {"id": "r", "kind": "x", "attrs": {"on:click": "go", "on:key": 1, "gone": 0, "z": 1}}
    )
    found = [(d.pointer, d.message) for d in nuif_core.validate(doc, catalog=cat).diagnostics]
    assert found == [
        (
            "/root/attrs/on:key",
            'attribute "on:key" (kind "x") must be a string, found a number (schema rule "type")',
        ),
        (
            "/root/attrs/gone",
            'attribute "gone" (kind "x") is not allowed (its schema is false) (schema rule "false")',
        ),
        (
            "/root/attrs/z",
            'attribute "z" is not one that kind "x" has (schema rule "additionalProperties")',
        ),
    ]


# --- apply_patch --------------------------------------------------------------------------------


def _set(attr: str, value: Any, node: str = "home") -> str:
    return json.dumps(
        {
            "nuif_patch": 0,
            "transactions": [{"ops": [{"op": "set", "id": node, "attr": attr, "value": value}]}],
        }
    )


def test_apply_patch_with_a_catalog_applies_what_keeps_the_document_valid() -> None:
    doc = (DATA / "basic" / "valid" / "minimal.json").read_text("utf-8")
    result = nuif_core.apply_patch(doc, _set("title", "Start"), catalog=catalogs.basic())
    assert result == nuif_core.apply_patch(doc, _set("title", "Start"))
    assert nuif_core.validate(result.canonical, catalog=catalogs.basic()).valid


def test_apply_patch_refuses_a_result_that_breaks_the_catalog_atomically() -> None:
    doc = (DATA / "basic" / "valid" / "minimal.json").read_text("utf-8")
    patch = json.dumps(
        {
            "nuif_patch": 0,
            "transactions": [
                {"ops": [{"op": "set", "id": "home", "attr": "title", "value": "Fine"}]},
                {
                    "ops": [
                        {"op": "insert", "parent": "home", "node": {"id": "w", "kind": "widget"}}
                    ]
                },
            ],
        }
    )
    assert nuif_core.apply_patch(doc, patch).changed  # without the catalog it applies
    with pytest.raises(NuifError) as caught:
        nuif_core.apply_patch(doc, patch, catalog=catalogs.basic(), inverse=True)
    err = caught.value
    assert (err.code, err.pointer, err.line, err.column) == (
        "NUIF_CATALOG_KIND",
        "/root/children/0/kind",
        None,
        None,
    )
    assert err.message.startswith('the patched document: kind "widget" is not in the catalog')
    # nothing of it was applied: the input is what it was, and still valid
    assert nuif_core.validate(doc, catalog=catalogs.basic()).valid


def test_apply_patch_may_repair_a_document_the_catalog_refuses() -> None:
    doc = _doc({"id": "home", "kind": "screen"})
    assert not nuif_core.validate(doc, catalog=catalogs.basic()).valid
    result = nuif_core.apply_patch(doc, _set("title", "Now valid"), catalog=catalogs.basic())
    assert nuif_core.validate(result.canonical, catalog=catalogs.basic()).valid


# --- the Catalog type and the basic catalog -----------------------------------------------------


def test_a_catalog_has_a_canonical_text_and_a_hash() -> None:
    text = catalogs.basic_text()
    cat = Catalog(text)
    assert cat.canonical == nuif_core.canonical_json(text)
    assert cat.hash == "sha256:" + __import__("hashlib").sha256(cat.canonical).hexdigest()
    assert Catalog(json.loads(text)) == cat == Catalog(cat.canonical)
    assert Catalog(json.dumps(json.loads(text), indent=4)).hash == cat.hash
    assert cat.text == cat.canonical.decode("utf-8") and cat.closed
    assert cat.kinds[:3] == ("screen", "stack", "row") and len(cat.kinds) == 14
    assert catalogs.basic() is catalogs.basic() and catalogs.basic() == cat


def test_the_basic_catalog_covers_the_everyday_kinds() -> None:
    kinds = set(catalogs.basic().kinds)
    assert {
        "screen",
        "stack",
        "row",
        "text",
        "button",
        "input",
        "checkbox",
        "image",
        "list",
        "link",
    } <= kinds


@pytest.mark.parametrize("value", [42, None, ["x"]], ids=["int", "none", "list"])
def test_a_catalog_of_the_wrong_type_is_a_type_error(value: Any) -> None:
    with pytest.raises(TypeError, match="a NUIF catalog is str, bytes or a mapping"):
        Catalog(value)


def test_a_catalog_mapping_with_no_json_form_is_refused() -> None:
    err = _catalog_error({"nuif_catalog": 0, "kinds": {}, "x": {1, 2}})
    assert "no JSON representation" in err.message


# --- hostile catalogs (each answered at once, with a clear error; the timeout is a hang guard) ---


@pytest.mark.timeout(60)
def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    cat = Catalog(_catalog({"t": {"attrs": {"properties": {"s": {"pattern": "^(a+)+$"}}}}}))
    doc = _doc({"id": "r", "kind": "t", "attrs": {"s": "a" * 100_000 + "!"}})
    (found,) = nuif_core.validate(doc, catalog=cat).diagnostics
    assert (found.code, found.pointer) == ("NUIF_CATALOG_ATTRS", "/root/attrs/s")
    assert 'must match the pattern "^(a+)+$"' in found.message
    ok = _doc({"id": "r", "kind": "t", "attrs": {"s": "a" * 100_000}})
    assert nuif_core.validate(ok, catalog=cat).valid


@pytest.mark.timeout(60)
def test_a_pattern_whose_dfa_keeps_growing_stops_at_the_work_bound() -> None:
    """(a|b)*a(a|b){300}$ builds a new DFA state at nearly every character of a random a/b
    string, each charged the automaton states it visits; one validation may do WORK_BOUND units
    of work, and past it the validation stops with one NUIF_CATALOG_ATTRS at the attrs being
    checked (NUIF-0 §9.6)."""
    import random

    from nuif_core._catalog_eval import WORK_BOUND

    rng = random.Random(7)
    cat = Catalog(
        _catalog({"t": {"attrs": {"properties": {"s": {"pattern": "(a|b)*a(a|b){300}$"}}}}})
    )
    value = "".join(rng.choice("ab") for _ in range(40_000)) + "!"
    kids = [{"id": f"k{i}", "kind": "t", "attrs": {"s": value}} for i in range(3)]
    doc = _doc({"id": "r", "kind": "t", "children": kids})
    report = nuif_core.validate(doc, catalog=cat)
    (found,) = report.diagnostics  # one problem, and no more checking
    assert (found.code, found.pointer) == ("NUIF_CATALOG_ATTRS", "/root/children/0/attrs")
    assert found.message == (
        'checking the attributes of kind "t" needs more work than one validation allows '
        f"({WORK_BOUND:,} units, NUIF-0 §9.6), so the document is not accepted"
    )
    assert not report.valid
    # a short value of the same shape is decided, and the budget is per validation
    short = _doc({"id": "r", "kind": "t", "attrs": {"s": "a" + "b" * 300}})
    assert nuif_core.validate(short, catalog=cat).valid
    with pytest.raises(NuifError) as caught:
        nuif_core.apply_patch(
            short,
            {
                "nuif_patch": 0,
                "transactions": [{"ops": [{"op": "set", "id": "r", "attr": "s", "value": value}]}],
            },
            catalog=cat,
        )
    assert caught.value.code == "NUIF_CATALOG_ATTRS"
    assert "needs more work than one validation allows" in caught.value.message


@pytest.mark.timeout(60)
def test_a_class_of_many_ranges_is_searched_not_scanned() -> None:
    """A class of 10,000 scattered characters repeated 990 times: each step looks the character
    up by binary search, and the verdicts are those of Python's re on the same class."""
    import re

    chars = [chr(0x4E00 + 2 * i) for i in range(10_000)]  # every other CJK ideograph
    cls = "[" + "".join(chars) + "]"
    cat = Catalog(_catalog({"t": {"attrs": {"properties": {"s": {"pattern": f"^{cls}{{990}}$"}}}}}))
    for value in ("".join(chars[:990]), "".join(chars[:989]) + chr(0x4E01), "".join(chars[:300])):
        want = re.fullmatch(f"{cls}{{990}}", value) is not None
        doc = _doc({"id": "r", "kind": "t", "attrs": {"s": value}})
        assert nuif_core.validate(doc, catalog=cat).valid is want


@pytest.mark.timeout(60)
def test_a_ten_thousand_deep_ref_chain_is_refused() -> None:
    defs = {f"a{i}": {"$ref": f"#/$defs/a{i + 1}"} for i in range(10_000)}
    defs["a10000"] = {"type": "string"}
    err = _catalog_error(_catalog({"t": {"attrs": {"$ref": "#/$defs/a0"}}}, **{"$defs": defs}))
    assert f"more than {BOUNDS['max_schemas']} schemas" in err.message
    assert err.pointer == f"/$defs/a{BOUNDS['max_schemas']}" and err.line == 1


def test_a_ref_chain_longer_than_the_bound_is_refused() -> None:
    n = BOUNDS["max_ref_chain"] + 1
    defs = {f"a{i}": {"$ref": f"#/$defs/a{i + 1}"} for i in range(n)}
    defs[f"a{n}"] = {"type": "string"}
    err = _catalog_error(_catalog({"t": {"attrs": {"$ref": "#/$defs/a0"}}}, **{"$defs": defs}))
    assert f"longer than {BOUNDS['max_ref_chain']}" in err.message
    # a chain through exactly the bound's number of definitions, from a kind's attrs, is fine
    limit = BOUNDS["max_ref_chain"]
    at_bound = {f"a{i}": {"$ref": f"#/$defs/a{i + 1}"} for i in range(limit - 1)}
    at_bound[f"a{limit - 1}"] = {"type": "string"}
    cat = Catalog(_catalog({"t": {"attrs": {"$ref": "#/$defs/a0"}}}, **{"$defs": at_bound}))
    assert not nuif_core.validate(_doc({"id": "r", "kind": "t", "attrs": {}}), catalog=cat).valid
    # and a chain that descends into the value is not bounded by it
    defs = {f"a{i}": {"properties": {"x": {"$ref": f"#/$defs/a{i + 1}"}}} for i in range(n)}
    defs[f"a{n}"] = {"type": "string"}
    Catalog(_catalog({"t": {"attrs": {"$ref": "#/$defs/a0"}}}, **{"$defs": defs}))


def test_a_recursive_schema_that_descends_is_accepted_and_works() -> None:
    tree = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
        "required": ["kids"],
    }
    cat = Catalog(
        _catalog(
            {"t": {"attrs": {"properties": {"tree": {"$ref": "#/$defs/tree"}}}}},
            **{"$defs": {"tree": tree}},
        )
    )
    deep: dict[str, Any] = {"kids": []}
    for _ in range(40):
        deep = {"kids": [deep]}
    assert nuif_core.validate(
        _doc({"id": "r", "kind": "t", "attrs": {"tree": deep}}), catalog=cat
    ).valid
    broken = {"kids": [{"kids": [{}]}]}
    (found,) = nuif_core.validate(
        _doc({"id": "r", "kind": "t", "attrs": {"tree": broken}}), catalog=cat
    ).diagnostics
    assert found.pointer == "/root/attrs/tree/kids/0/kids/0"


@pytest.mark.timeout(60)
def test_a_one_mebibyte_enum_is_refused() -> None:
    values = [f"value-{i}" for i in range(100_000)]
    over = _catalog({"t": {"attrs": {"properties": {"s": {"enum": values}}}}})
    assert len(over) > BOUNDS["max_catalog_bytes"]
    err = _catalog_error(over)
    size = len(over.encode())
    assert err.message == (
        f"catalog: the catalog text is {size} bytes; the limit is {BOUNDS['max_catalog_bytes']} bytes"
    )
    assert err.pointer is None and _catalog_error(over.encode()).to_dict() == err.to_dict()
    under = _catalog({"t": {"attrs": {"properties": {"s": {"enum": values[:60_000]}}}}})
    assert len(under) < BOUNDS["max_catalog_bytes"]
    err = _catalog_error(under)
    assert f"more than {BOUNDS['max_literal_values']} JSON values" in err.message
    assert err.pointer == "/kinds/t/attrs/properties/s/enum"


def test_a_ref_cycle_that_never_descends_is_refused() -> None:
    defs = {
        "a": {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "null"}]},
        "b": {"if": {"$ref": "#/$defs/a"}},
    }
    err = _catalog_error(_catalog({"t": {"attrs": {"$ref": "#/$defs/a"}}}, **{"$defs": defs}))
    assert "a $ref cycle" in err.message and err.pointer == "/$defs/a"


def test_schemas_nested_too_deeply_are_refused() -> None:
    schema: Any = {"type": "string"}
    for _ in range(BOUNDS["max_schema_depth"]):
        schema = {"not": schema}
    err = _catalog_error(_catalog({"t": {"attrs": schema}}))
    assert f"deeper than {BOUNDS['max_schema_depth']} levels" in err.message
    Catalog(_catalog({"t": {"attrs": schema["not"]}}))  # one level less compiles


def test_a_code_point_escape_may_have_any_number_of_leading_zeros() -> None:
    """ECMA-262: \\u{0000000000041} is U+0041."""
    from nuif_core._catalog_eval import Meter
    from nuif_core._catalog_regex import compile_pattern

    assert Meter().search(compile_pattern("^\\u{0000000000041}$"), "A")
    assert not Meter().search(compile_pattern("^\\u{0000000000041}$"), "B")


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("(a){2000}", "a repetition count above"),
        ("[a-z]{0,900}", "more than 1000 automaton states"),
        ("(\\w)\\1", "back-references are not supported"),
        ("\\bword", "word-boundary assertions are not supported"),
        ("\\p{L}", "Unicode property escapes are not supported"),
        ("a{", "a lone '{'"),
        ("(?<1a>x)", "a malformed group name"),
        ("(?<a>x)(?<a>y)", "the group name 'a' is used twice"),
        ("(?i)a", "a group modifier such as (?i) is not supported"),
        ("(?<=a)b", "look-around assertions are not supported"),
    ],
)
def test_patterns_outside_the_subset_are_refused_at_their_place(pattern: str, why: str) -> None:
    err = _catalog_error(_catalog({"t": {"attrs": {"properties": {"s": {"pattern": pattern}}}}}))
    assert why in err.message and err.pointer == "/kinds/t/attrs/properties/s/pattern"


@pytest.mark.parametrize(
    "name",
    [
        "a'\"\n__import__('os')._exit(3)#",
        "{__class__}",
        "}\n raise SystemExit(3)\n#",
        "\\",
        '"""',
        "{0}",
        "x.y[0]",
    ],
)
def test_names_and_values_cannot_inject_code(name: str) -> None:
    """The schema compiler generates Python: every name and value from the catalog stays data
    (member names inside an attribute's value may be any string)."""
    inner = {
        "type": "object",
        "properties": {name: {"const": name, "$ref": "#/$defs/s"}},
        "required": [name],
        "patternProperties": {"^zz": {"enum": [name]}},
        "additionalProperties": False,
    }
    schema = {"properties": {"v": inner}}
    cat = Catalog(_catalog({"t": {"attrs": schema}}, **{"$defs": {"s": {"type": "string"}}}))
    good = _doc({"id": "r", "kind": "t", "attrs": {"v": {name: name}}})
    assert nuif_core.validate(good, catalog=cat).valid
    bad = _doc({"id": "r", "kind": "t", "attrs": {"v": {name: 1, "zzz": name + "!"}}})
    pointers = [d.pointer for d in nuif_core.validate(bad, catalog=cat).diagnostics]
    escaped = name.replace("~", "~0").replace("/", "~1")
    assert f"/root/attrs/v/{escaped}" in pointers and "/root/attrs/v/zzz" in pointers


def test_catalog_problems_follow_the_members_in_text_order() -> None:
    """A node's children written before its attrs: their problems come first (document order)."""
    text = (
        '{"nuif": 0, "root": {"id": "r", "kind": "screen",\n'
        ' "children": [{"id": "c", "kind": "widget"}],\n'
        ' "attrs": {"title": 5}}}'
    )
    found = [
        (d.code, d.pointer, d.line)
        for d in nuif_core.validate(text, catalog=catalogs.basic()).diagnostics
    ]
    assert found == [
        ("NUIF_CATALOG_KIND", "/root/children/0/kind", 2),
        ("NUIF_CATALOG_CHILDREN", "/root/children/0/kind", 2),
        ("NUIF_CATALOG_ATTRS", "/root/attrs/title", 3),
    ]


def test_catalogs_need_nothing_beyond_the_standard_library() -> None:
    """Catalogs are nuif-core's own code: checking a document against one imports no module
    from outside the standard library and nuif_core (so the compiled wheel, the pure wheel and
    Pyodide run the same code, with no extra to install)."""
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import nuif_core\n"
        "from nuif_core import catalogs\n"
        'doc = \'{"nuif": 0, "root": {"id": "r", "kind": "screen"}}\'\n'
        "assert not nuif_core.validate(doc, catalog=catalogs.basic()).valid\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "ours = {'nuif_core'} | {m for m in new if 'cython' in m}  # the codec's\n"
        "print(' '.join(sorted(new - set(sys.stdlib_module_names) - ours)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == []
