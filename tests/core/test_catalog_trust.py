"""Catalog verdicts are a pure function of (document, catalog, limits), in bounded work.

Each test is named after a way a catalog answer once broke: a verdict that raced under threads
or changed after earlier validations, an inexact ``multipleOf``, a diagnostic at a value that
does not fail, a crash on an accepted catalog, a cost exponential or quadratic in the input,
work the meter did not count, diagnostics in the wrong order.  Costs are measured with the
validation's own meter (``Catalog.work``: n against 4n, or against the bound), never a clock.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any

import pytest

import nuif_core
from nuif_core import Catalog, _codec
from nuif_core._catalog import BOUNDS
from nuif_core._catalog_eval import PROBLEM_UNITS, WORK_BOUND


def _catalog(attrs: Any, defs: dict[str, Any] | None = None) -> str:
    out: dict[str, Any] = {"nuif_catalog": 0, "kinds": {"t": {"attrs": attrs}}}
    if defs is not None:
        out["$defs"] = defs
    return json.dumps(out)


def _doc(attrs: Any, children: list[Any] | None = None) -> str:
    root: dict[str, Any] = {"id": "r", "kind": "t", "attrs": attrs}
    if children is not None:
        root["children"] = children
    return json.dumps({"nuif": 0, "root": root})


def _work(catalog: str | Catalog, doc: str) -> int:
    cat = catalog if isinstance(catalog, Catalog) else Catalog(catalog)
    return cat.work(_codec.loads(doc.encode(), 128))


def _exceeded(report: nuif_core.ValidationReport) -> bool:
    return any(
        "needs more work than one validation allows" in d.message for d in report.diagnostics
    )


# --- silent wrong answers ----------------------------------------------------------------------

#: a pattern whose DFA grows with every new string: the kind of state a shared cache once held
_GROWING = "(a|b)*a(a|b){9}$"


def _pattern_documents(count: int, seed: int) -> list[str]:
    import random

    r = random.Random(seed)
    docs = []
    for i in range(count):
        values = []
        for _ in range(8):
            chars = [r.choice("ab") for _ in range(r.randrange(12, 40))]
            chars[-10] = "a"  # matches: an "a" ten characters from the end
            values.append("".join(chars))
        if i % 3 == 0:
            values.append("c")  # matches nowhere: the document is refused
        docs.append(_doc({f"s{j}": v for j, v in enumerate(values)}))
    return docs


def test_verdicts_do_not_race_under_threads() -> None:
    """8 threads validating against one catalog given as text (cached, so shared) give the
    single-thread reports; once 4 threads gave 7-19 wrong verdicts per run."""
    text = _catalog({"additionalProperties": {"pattern": _GROWING}})
    docs = _pattern_documents(24, 51)
    expected = [nuif_core.validate(d, catalog=text).to_dict() for d in docs]
    assert any(not e["valid"] for e in expected) and any(e["valid"] for e in expected)
    barrier = threading.Barrier(8)
    wrong: list[Any] = []

    def work(offset: int) -> None:
        barrier.wait(timeout=60)
        for round_ in range(3):
            for i in range(len(docs)):
                j = (i + offset + round_) % len(docs)
                got = nuif_core.validate(docs[j], catalog=text).to_dict()
                if got != expected[j]:
                    wrong.append((j, got))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert wrong == []


def test_a_verdict_does_not_depend_on_what_was_validated_before() -> None:
    """A document just past the work bound is refused fresh and after other documents built
    the same pattern states; once a warm cache made its steps free and it was accepted."""
    import random

    r = random.Random(2)
    text = _catalog({"additionalProperties": {"pattern": "(a|b)*a(a|b){300}$"}})
    values = ["".join(r.choice("ab") for _ in range(400)) for _ in range(200)]
    # as many values as fit under the bound, plus a few more: refused for its work alone
    heavy = _doc({f"s{i}": v for i, v in enumerate(values)})
    assert _work(text, heavy) == WORK_BOUND + 1
    fresh = nuif_core.validate(heavy, catalog=text)
    assert _exceeded(fresh)
    for i in range(0, 200, 20):  # the same strings, in smaller documents, first
        nuif_core.validate(
            _doc({f"s{j}": v for j, v in enumerate(values[i : i + 20])}), catalog=text
        )
    assert nuif_core.validate(heavy, catalog=text) == fresh
    # and in a fresh process
    script = (
        "import sys, json, nuif_core\n"
        "print(json.dumps(nuif_core.validate(sys.stdin.read(), catalog=sys.argv[1]).to_dict()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, text],
        input=heavy,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert json.loads(done.stdout) == fresh.to_dict()


@pytest.mark.parametrize(
    ("number", "multiple", "valid"),
    [
        ("100000000000000000000", 3, False),  # 10^20 = 3 · 33…3 + 1 (float division said yes)
        ("1e308", 3, False),
        ("1e308", 5, True),  # 10^308 as written, not the binary value of the double
        ("3e20", 3, True),
        ("0.0075", 0.0001, True),
        ("0.00751", 0.0001, False),
        ("4.5", 1.5, True),
        ("0.3", 0.1, True),
        ("12391239123", 1e-8, True),
        ("5e-324", 5e-324, True),
        ("1e-323", 5e-324, True),
        ("7", 2, False),
        ("-9007199254740991", 3, False),
        ("-9007199254740990", 3, True),
    ],
)
def test_multiple_of_is_exact(number: str, multiple: float, valid: bool) -> None:
    cat = Catalog(_catalog({"properties": {"v": {"multipleOf": multiple}}}))
    text = '{"nuif": 0, "root": {"id": "r", "kind": "t", "attrs": {"v": ' + number + "}}}"
    report = nuif_core.validate(text, catalog=cat)
    assert report.valid is valid, report.diagnostics
    if not valid:
        (found,) = report.diagnostics
        assert found.pointer == "/root/attrs/v" and 'schema rule "multipleOf"' in found.message


def test_a_member_named_with_a_dot_is_not_taken_for_a_path() -> None:
    """``{"a": {"b": 1}, "a.b": 1}`` where only ``a.b`` fails: the diagnostic is at ``…/a.b``
    (once it was placed at ``…/a/b``, a value that does not fail)."""
    inner = {
        "properties": {
            "a": {"properties": {"b": {"type": "integer"}}},
            "a.b": {"type": "string"},
            "x[0]": {"type": "string"},
            "x": {"items": {"type": "integer"}},
        }
    }
    cat = Catalog(_catalog({"properties": {"v": inner, "a.b": {"type": "string"}}}))
    doc = _doc({"a.b": 1, "v": {"a": {"b": 1}, "a.b": 1, "x": [2], "x[0]": 2}})
    found = [(d.pointer, d.message) for d in nuif_core.validate(doc, catalog=cat).diagnostics]
    assert found == [
        (
            "/root/attrs/a.b",
            'attribute "a.b" (kind "t") must be a string, found a number (schema rule "type")',
        ),
        (
            "/root/attrs/v/a.b",
            'attribute "v" (kind "t"), at /a.b, must be a string, found a number '
            '(schema rule "type")',
        ),
        (
            "/root/attrs/v/x[0]",
            'attribute "v" (kind "t"), at /x[0], must be a string, found a number '
            '(schema rule "type")',
        ),
    ]


# --- crashes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("chain", [1, 7, BOUNDS["max_ref_chain"] - 1])
def test_an_accepted_ref_chain_ending_in_recursive_items_answers_deep_arrays(chain: int) -> None:
    """A chain of in-place ``$ref`` within the bound, ending in ``items`` that refers back:
    arrays as deep as a document may nest (once a RecursionError at depth ~40, or 124 for a
    chain of 7: the CLI said "internal error", MCP -32603)."""
    defs: dict[str, Any] = {f"c{i}": {"$ref": f"#/$defs/c{i + 1}"} for i in range(chain - 1)}
    defs[f"c{chain - 1}"] = {"type": "array", "items": {"$ref": "#/$defs/c0"}}
    cat = Catalog(_catalog({"properties": {"v": {"$ref": "#/$defs/c0"}}}, defs))
    depth = 128 - 4  # the document, root, attrs and v take four levels of max_depth
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    assert nuif_core.validate(_doc({"v": value}), catalog=cat).valid
    broken: Any = [5]
    for _ in range(depth - 2):
        broken = [broken]
    (found,) = nuif_core.validate(_doc({"v": broken}), catalog=cat).diagnostics
    assert found.pointer == "/root/attrs/v" + "/0" * (depth - 1)
    assert 'must be an array, found a number (schema rule "type")' in found.message


def test_a_pattern_of_many_nested_groups_is_a_catalog_error() -> None:
    for depth in (33, 197, 10_000):
        pattern = "(" * depth + "a" + ")" * depth
        with pytest.raises(nuif_core.NuifError) as caught:
            Catalog(_catalog({"properties": {"v": {"pattern": pattern}}}))
        err = caught.value
        assert err.code == "NUIF_CATALOG" and err.pointer == "/kinds/t/attrs/properties/v/pattern"
        assert "groups are nested more than 32 deep (at character 33)" in err.message


# --- unbounded cost ----------------------------------------------------------------------------


@pytest.mark.parametrize("combinator", ["allOf", "anyOf", "oneOf"])
def test_a_ref_dag_that_fans_out_stops_at_the_work_bound(combinator: str) -> None:
    """``d_i = {combinator: [{$ref: d_i+1}, {$ref: d_i+1}]}``, 26 levels: a 2 KB catalog that
    is accepted, whose evaluation doubles at each level (2^26 schemas: 11 s with allOf, more
    than 300 s with oneOf).  The meter stops it at the bound, with one diagnostic."""
    n = 26
    defs: dict[str, Any] = {
        f"d{i}": {combinator: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(n)
    }
    defs[f"d{n}"] = {"type": "string"}
    text = _catalog({"properties": {"v": {"$ref": "#/$defs/d0"}}}, defs)
    assert len(text) < 2500
    doc = _doc({"v": 5})
    report = nuif_core.validate(doc, catalog=text)
    (found,) = report.diagnostics
    assert found.code == "NUIF_CATALOG_ATTRS" and found.pointer == "/root/attrs"
    assert _exceeded(report)
    # the same shape, 8 levels deep, is answered in full (2^8 applications, well within the bound)
    small = {f"d{i}": defs[f"d{i}"] for i in range(8)}
    small["d8"] = {"type": "string"}
    text = _catalog({"properties": {"v": {"$ref": "#/$defs/d0"}}}, small)
    report = nuif_core.validate(doc, catalog=text)
    assert not report.valid and not _exceeded(report)


def _fanning(levels: int) -> str:
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "string"}
    return _catalog({"properties": {"v": {"$ref": "#/$defs/d0"}}}, defs)


def test_problems_passed_up_a_fanning_graph_are_charged() -> None:
    """With a failing leaf, each of the 2^n problems is copied up through all n levels and then
    placed and sorted for the report: n * 2^n copies and 2^n reports, which a meter that charged
    only the schemas applied left out (18 levels took 5 s under the fuzzer, within the bound).
    Both are charged now, so the failing graph costs more than the passing one by at least that."""
    levels = 12
    failing = _work(_fanning(levels), _doc({"v": 5}))
    passing = _work(_fanning(levels), _doc({"v": "s"}))
    problems = 2**levels
    assert failing - passing >= levels * problems + PROBLEM_UNITS * problems
    # and so the failing graph meets the bound at fewer levels than the passing one
    assert _exceeded(nuif_core.validate(_doc({"v": 5}), catalog=_fanning(19)))
    assert not _exceeded(nuif_core.validate(_doc({"v": "s"}), catalog=_fanning(19)))


def test_additional_properties_over_many_failing_members_costs_linear_work() -> None:
    """Each failing member once rescanned every member name (20,000 members: 30 s)."""
    text = _catalog({"additionalProperties": {"type": "string"}})

    def doc(n: int) -> str:
        return _doc({f"a{i}": i for i in range(n)})

    small, large = _work(text, doc(2_000)), _work(text, doc(8_000))
    assert 3.9 < large / small < 4.1
    report = nuif_core.validate(doc(20_000), catalog=text, max_diagnostics=100_000)
    assert len(report.diagnostics) == 20_000
    assert [d.pointer for d in report.diagnostics[:2]] == ["/root/attrs/a0", "/root/attrs/a1"]


def test_empty_strings_are_charged() -> None:
    """Matching an empty string once cost nothing against the bound (a 1 MiB MCP request of
    empty strings: 43.6 s of CPU).  Each is a unit now, so the bound holds."""
    text = _catalog({"additionalProperties": {"pattern": "^(a|b)*a(a|b){30}$"}})

    def doc(n: int) -> str:
        return _doc({f"k{i}": "" for i in range(n)})

    small, large = _work(text, doc(1_000)), _work(text, doc(4_000))
    assert 3.9 < large / small < 4.1 and small > 1_000


def test_distinct_short_strings_are_charged_the_states_they_visit() -> None:
    """Distinct one-character strings against a pattern whose start reaches ~800 automaton
    states: each is charged the states its step visits (they were charged ~2 while ~980 states
    were visited, so a 757 KB document took 14 s and the bound never stopped it)."""
    text = _catalog({"additionalProperties": {"pattern": "(a?){400}b"}})
    doc = _doc({f"k{i}": chr(0x4E00 + i) for i in range(100)})
    assert _work(text, doc) > 100 * 1600
    many = _doc({f"k{i}": chr(0x4E00 + i) for i in range(20_000)})
    assert _exceeded(nuif_core.validate(many, catalog=text))


def test_the_bound_holds_at_n_and_n_plus_one() -> None:
    """A document whose check costs exactly the bound is answered; one unit more is refused
    for its work (the bound is a count of units, so this is exact).  Each member costs
    thousands of units here (a definition that applies another one twice, ten levels deep)."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(10)
    }
    defs["d10"] = {"type": "string"}
    cat = Catalog(_catalog({"additionalProperties": {"$ref": "#/$defs/d0"}}, defs))
    base = _work(cat, _doc({}))
    per = _work(cat, _doc({"a0": "x"})) - base
    assert per > 2**10
    n = (WORK_BOUND - base) // per
    at = _doc({f"a{i}": "x" for i in range(n)})
    used = _work(cat, at)
    assert used == base + n * per and used <= WORK_BOUND < used + per
    assert nuif_core.validate(at, catalog=cat).valid
    over = _doc({f"a{i}": "x" for i in range(n + 1)})
    assert _work(cat, over) == WORK_BOUND + 1
    assert _exceeded(nuif_core.validate(over, catalog=cat))


# --- order ---------------------------------------------------------------------------------------


def test_problems_at_one_pointer_keep_the_schema_keyword_order() -> None:
    """``{"pattern", "maxLength"}`` reports the pattern first (NUIF-0 §9.5); the validator's
    own order once put maxLength first."""
    for schema, rules in [
        ({"pattern": "^a", "maxLength": 1}, ["pattern", "maxLength"]),
        ({"maxLength": 1, "pattern": "^a"}, ["maxLength", "pattern"]),
        (
            {"maxLength": 1, "$ref": "#/$defs/p", "minLength": 5},
            ["maxLength", "pattern", "minLength"],
        ),
    ]:
        cat = Catalog(_catalog({"properties": {"v": schema}}, {"p": {"pattern": "^a"}}))
        found = nuif_core.validate(_doc({"v": "bb"}), catalog=cat).diagnostics
        assert [d.message.rsplit('"', 2)[1] for d in found] == rules
        assert {d.pointer for d in found} == {"/root/attrs/v"}


def test_a_large_failing_value_is_shown_short_and_its_showing_is_charged() -> None:
    """A message shows at most 60 characters of the value, and writes no more than that of it;
    picking an object's first members in canonical order reads every name, which is charged
    (400 failing consts on an object of 100,000 members would read 40,000,000 names)."""
    big = "x" * 1_000_000
    text = _catalog({"properties": {"v": {"enum": ["a", "b"]}}})
    (found,) = nuif_core.validate(_doc({"v": big}), catalog=text).diagnostics
    assert found.message.endswith('found "' + "x" * 56 + '... (schema rule "enum")')
    members = {f"m{i:06d}": i for i in range(100_000)}
    (found,) = nuif_core.validate(_doc({"v": members}), catalog=text).diagnostics
    assert (
        'found {"m000000":0,"m000001":1,"m000002":2,"m000003":3,"m000004... (schema rule'
        in found.message
    )
    many = _catalog({"properties": {"v": {"allOf": [{"const": i} for i in range(400)]}}})
    report = nuif_core.validate(_doc({"v": members}), catalog=many)
    assert _exceeded(report)
    assert _work(many, _doc({"v": members})) == WORK_BOUND + 1
