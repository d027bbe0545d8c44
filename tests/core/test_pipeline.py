"""The compiled codec's one pipeline (csrc/nuif_doc.h): its kept state, and what it does with
inputs that stress that state.

Every canonical_json, canonical_document, canonical_result, valid_report and inspect_summary call
runs the same steps on one state kept between calls; these tests hold that keeping it changes no
answer: after inputs of other sizes, depths and outcomes, with the kept id set's generation
wrapping, and with a call made while an inspect summary is still reading the kept tape.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

import nuif_core
from benchmarks import corpus
from nuif_core import NuifError, _codec
from nuif_core._results import Inspection, NodeRef

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it
twin = _codec.twin()
LIMITS = nuif_core.Limits.DEFAULT


def _doc(children: int, attrs: dict[str, Any] | None = None) -> bytes:
    kids = [{"id": f"n{i}", "kind": "k", "attrs": attrs or {"t": i}} for i in range(children)]
    return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}).encode()


def _answers(data: bytes) -> tuple[Any, ...]:
    """Everything the pipeline answers about ``data``, through every entry point."""
    out: list[Any] = []
    for call in (
        lambda: compiled.canonical_json(data, LIMITS.max_depth),
        lambda: compiled.canonical_document(data, LIMITS.max_depth, LIMITS.max_nodes),
        lambda: nuif_core.canonicalize(data),
        lambda: nuif_core.validate(data),
        lambda: nuif_core.inspect(data),
    ):
        try:
            out.append(call())
        except NuifError as err:
            out.append((err.code, err.message, err.pointer, err.line, err.column))
    return tuple(out)


def test_answers_do_not_depend_on_the_calls_before() -> None:
    texts = [
        _doc(3),
        corpus.load("ui", "1MiB"),
        _doc(3),
        b"[1, 2",
        _doc(3),
        corpus.load("strings", "64KiB"),
        b'{"nuif": 0, "root": {"id": "-x", "kind": "k"}}',
        _doc(3),
        b"[" * 300 + b"]" * 300,
        _doc(3),
        corpus.load("numbers", "1KiB"),
        _doc(3),
    ]
    first = {t: _answers(t) for t in texts}
    compiled._doc_reset()
    for t in reversed(texts):
        assert _answers(t) == first[t], t[:60]
    assert first[_doc(3)][2].hash == "sha256:" + hashlib.sha256(first[_doc(3)][0]).hexdigest()


def test_values_nested_far_deeper_than_any_kept_stack() -> None:
    for depth in (1, 31, 32, 33, 200, 2000):
        value = "[\n " * depth + '{"b": 1, "a": [2]}' + "]" * depth
        doc = (
            '{"nuif": 0, "root": {"id": "a", "kind": "k"}, "meta": {"m": ' + value + "}}"
        ).encode()
        want = (
            '{"meta":{"m":'
            + "[" * depth
            + '{"a":[2],"b":1}'
            + "]" * depth
            + '},"nuif":0,"root":{"id":"a","kind":"k"}}'
        ).encode()
        assert compiled.canonical_json(doc, depth + 5) == want
        assert compiled.canonical_document(doc, depth + 5, 10) == want
        with pytest.raises(NuifError) as err:
            compiled.canonical_json(doc, depth + 3)
        assert err.value.code == "NUIF_DEPTH"


def test_the_id_set_finds_duplicates_when_its_generation_wraps() -> None:
    unique = _doc(40)
    duplicate = unique.replace(b'"n7"', b'"n3"')
    old = compiled._settings(id_generation=0xFFFF - 2)
    try:
        for _ in range(6):  # across the wrap, where the kept table is zeroed
            assert nuif_core.validate(unique).valid
            report = nuif_core.validate(duplicate)
            assert [d.code for d in report.diagnostics] == ["NUIF_DUPLICATE_ID"]
    finally:
        compiled._settings(**old)


def test_a_call_made_while_an_inspect_summary_reads_the_kept_tape_gets_its_own_state() -> None:
    """The outline's entries are made by calling ``entry``: here a function that canonicalizes
    other documents meanwhile, as a finalizer run by an allocation could.  Neither call sees the
    other's tape."""
    data = _doc(30)
    others = [_doc(200, {"x": "y" * 50}), corpus.load("ui", "64KiB")]
    want_others = [compiled.canonical_json(o, 128) for o in others]
    seen: list[bytes] = []

    def entry(node_id: str, kind: str, depth: int, children: int) -> tuple[Any, ...]:
        other = others[len(seen) % 2]
        seen.append(nuif_core.canonicalize(other).canonical)
        return (node_id, kind, depth, children)

    got = compiled.inspect_summary(data, 128, 1000, 100, Inspection, entry, NodeRef)
    assert [e[0] for e in got.outline] == ["r"] + [f"n{i}" for i in range(30)]
    assert got.node_count == 31 and got.kinds == {"k": 31}
    assert seen == [want_others[k % 2] for k in range(31)]
    assert got.hash == nuif_core.canonicalize(data).hash


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"scratch_keep": 0},
        {"sha256_route": "portable"},
    ],
    ids=["scratch", "own-bytes", "portable-sha256"],
)
@pytest.mark.parametrize("size", ["1KiB", "64KiB", "1MiB"])
def test_validate_hashes_the_text_it_does_not_keep(settings: dict[str, Any], size: str) -> None:
    """validate asks the pipeline for the digest alone (the text is not copied out of the
    writer's scratch once it is hashed); its hash is the canonical text's SHA-256 whether the
    text stayed in the scratch or was written into its own bytes object, on either SHA-256
    route, and the writer made it."""
    data = corpus.load("ui", size)
    canonical = compiled.canonical_json(data, LIMITS.max_depth)
    want = "sha256:" + hashlib.sha256(canonical).hexdigest()
    old = compiled._settings(**settings)
    try:
        before = compiled._counters()["hashed_while_writing"]
        report = nuif_core.validate(data)
        hashed = compiled._counters()["hashed_while_writing"] - before
    finally:
        compiled._settings(**old)
    assert (report.valid, report.hash, report.diagnostics) == (True, want, ())
    assert hashed == 1
