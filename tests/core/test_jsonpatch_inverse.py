"""Inverse patches of RFC 6902 sequences inside ``edit`` and ``meta``, against a naive reference.

``tests/jsonpatch_model.py`` holds the reference (a deep copy per operation, RFC 6902 word for
word) and the generator of random sequences; the ``inverse`` fuzz target runs the same property
for as long as it is given (docs/fuzzing.md).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import nuif_core

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import jsonpatch_model as model

SUITE = Path(__file__).resolve().parents[1] / "data" / "json-patch-tests"


def _undo_round_trip(where: str, value: Any, ops: list[dict[str, Any]]) -> tuple[str, str]:
    """The document holding ``value`` (as ``meta``, or an attribute under ``edit``) after the
    patch running ``ops`` there and then its inverse, and the document as it was."""
    doc, patch = model.wrap(where, value, ops)
    applied = nuif_core.apply_patch(doc, patch, inverse=True)
    assert applied.inverse is not None
    back = nuif_core.apply_patch(applied.text, applied.inverse)
    return back.text, nuif_core.canonicalize(doc).text


def test_undo_of_a_move_overwriting_a_member_behind_the_emptied_array_slot_restores_it():
    # the value moved out of /a/0 shifts the array down, so /a/1/k is the original /a/2/k; the
    # overwritten "old" must go back there, not into the object now at /a/1 once /a/0 is back
    back, original = _undo_round_trip(
        "meta", {"a": [1, {}, {"k": "old"}]}, [{"op": "move", "from": "/a/0", "path": "/a/1/k"}]
    )
    assert back == original
    assert '"a":[1,{},{"k":"old"}]' in back


def test_undo_of_such_a_move_inside_edit_restores_the_attribute():
    back, original = _undo_round_trip(
        "edit", [[], [2.5], {"a": 2.5}], [{"op": "move", "from": "/0", "path": "/1/a"}]
    )
    assert back == original


def test_undo_of_a_move_before_the_target_in_a_deeper_array_is_unshifted():
    # the source's array is the target's grandparent's: only that index shifts (/a/1 is the
    # original /a/2 once /a/0 has left), the inner array's /1 stays
    back, original = _undo_round_trip(
        "meta",
        {"a": ["x", [{"k": 0}], [{"k": 1}, {"k": 2}]]},
        [{"op": "move", "from": "/a/0", "path": "/a/1/1/k"}],
    )
    assert back == original


def test_undo_of_a_move_from_an_object_onto_a_member_of_an_array_element_is_exact():
    back, original = _undo_round_trip(
        "meta",
        {"s": "moved", "a": [{"k": "old"}, {"k": "other"}]},
        [{"op": "move", "from": "/s", "path": "/a/1/k"}],
    )
    assert back == original


def _suite_cases() -> list[dict[str, Any]]:
    out = []
    for name in ("tests.json", "spec_tests.json"):
        for case in json.loads((SUITE / name).read_bytes()):
            if not case.get("disabled"):
                out.append(case)
    return out


def test_the_reference_agrees_with_the_json_patch_test_suite():
    cases = _suite_cases()
    assert len(cases) > 100
    for case in cases:
        try:
            got: Any = model.reference_apply(case["doc"], case["patch"])
        except model.ReferenceError_:
            got = model.REFUSED
        if "error" in case:
            assert got is model.REFUSED, case
        elif "expected" in case:
            assert got is not model.REFUSED, case
            assert model.canonical(got) == model.canonical(case["expected"]), case


@pytest.mark.parametrize("seed", range(4))
def test_random_sequences_match_the_reference_and_their_inverses_restore_the_hash(seed):
    pick = model.random_pick(random.Random(seed))
    applied = 0
    for _ in range(1500):
        where, value, ops, done, problem = model.trial(pick)
        assert problem is None, json.dumps({"where": where, "value": value, "ops": ops})
        applied += done
    assert applied > 1200  # most sequences are valid: the inverse is what is tested


def test_the_generator_reaches_moves_onto_members_behind_a_shifted_array():
    # the shape that broke: a move out of an array onto an existing member of a later element
    pick = model.random_pick(random.Random(7))
    hits = 0
    for _ in range(3000):
        value = model.random_value(pick, container=True)
        for op in model.random_sequence(pick, value, 3, True):
            before, value = value, model.reference_apply(value, [op])
            if op["op"] != "move":
                continue
            source, target = model.tokens_of(op["from"]), model.tokens_of(op["path"])
            parent = source[:-1]
            if (
                len(target) > len(parent) + 1
                and target[: len(parent)] == parent
                and target[len(parent)].isdigit()
                and source[-1].isdigit()
                and int(target[len(parent)]) >= int(source[-1])
                and type(model.get(before, parent)) is list
            ):
                hits += 1
    assert hits >= 20
