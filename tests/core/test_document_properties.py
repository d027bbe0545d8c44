"""Properties of canonicalization over generated documents (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nuif_strategies import attr_names, ids, kinds, text, values

import nuif_core
from nuif_core import ERROR_CODES

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def documents(draw) -> dict:
    used: set[str] = set()

    def node(depth: int) -> dict:
        node_id = draw(ids.filter(lambda i: i not in used))
        used.add(node_id)
        out: dict = {"id": node_id, "kind": draw(kinds)}
        if draw(st.booleans()):
            out["attrs"] = draw(st.dictionaries(attr_names, values, max_size=4))
        if depth < 4 and draw(st.booleans()):
            out["children"] = [node(depth + 1) for _ in range(draw(st.integers(0, 3)))]
        return out

    doc: dict = {"nuif": 0, "root": node(0)}
    if draw(st.booleans()):
        doc["meta"] = draw(st.dictionaries(text, values, max_size=3))
    return doc


def _reformat(doc: dict, seed: int) -> str:
    """The same document written differently: shuffled members, random indentation, escapes."""
    rng = random.Random(seed)

    def shuffle(v):
        if isinstance(v, dict):
            items = list(v.items())
            rng.shuffle(items)
            return {k: shuffle(x) for k, x in items}
        if isinstance(v, list):
            return [shuffle(x) for x in v]
        return v

    return json.dumps(
        shuffle(doc), indent=rng.choice([None, 1, 4]), ensure_ascii=rng.random() < 0.5
    )


@SETTINGS
@given(documents(), st.integers(0, 2**32))
def test_reformatting_never_changes_the_canonical_text(doc: dict, seed: int) -> None:
    a = nuif_core.canonicalize(json.dumps(doc, ensure_ascii=False))
    b = nuif_core.canonicalize(_reformat(doc, seed))
    assert a.canonical == b.canonical and a.hash == b.hash


@SETTINGS
@given(documents())
def test_canonical_text_is_a_fixed_point_and_validates(doc: dict) -> None:
    first = nuif_core.canonicalize(json.dumps(doc))
    # no exception: integral doubles in [2^53, 1e21) are written as integer literals that read
    # back since NUIF-0.1 (docs/canonical-json.md)
    again = nuif_core.canonicalize(first.canonical)
    assert again.canonical == first.canonical and again.changed is False
    report = nuif_core.validate(first.canonical)
    assert report.valid and report.hash == first.hash
    assert nuif_core.is_canonical(first.canonical)


@SETTINGS
@given(documents())
def test_canonical_text_equals_rfc8785_of_the_normalized_value(doc: dict) -> None:
    import rfc8785

    def normalize(node: dict) -> dict:
        out = {k: v for k, v in node.items() if k not in ("attrs", "children")}
        if node.get("attrs"):
            out["attrs"] = node["attrs"]
        if node.get("children"):
            out["children"] = [normalize(c) for c in node["children"]]
        return out

    expected = {"nuif": 0, "root": normalize(doc["root"])}
    if doc.get("meta"):
        expected["meta"] = doc["meta"]
    assert nuif_core.canonicalize(json.dumps(doc)).canonical == rfc8785.dumps(expected)


@SETTINGS
@given(documents(), st.integers(0, 2**32))
def test_damaged_documents_get_located_diagnostics_never_crashes(doc: dict, seed: int) -> None:
    rng = random.Random(seed)
    data = bytearray(json.dumps(doc, indent=1).encode())
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(data))
        data[pos] = rng.choice(b'{}[]",:0aZ-\\ \n\x00\xff')
    report = nuif_core.validate(bytes(data))
    if report.valid:
        assert report.hash == nuif_core.document_hash(bytes(data))
        return
    assert report.diagnostics
    for d in report.diagnostics:
        assert d.code in ERROR_CODES
        if d.code in ("NUIF_UTF8", "NUIF_PARSE"):
            assert d.line is not None and d.column is not None
        elif d.pointer is not None and d.code != "NUIF_LIMIT_NODES":
            assert d.line is not None, d
