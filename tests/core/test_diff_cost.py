"""The cost of ``diff``: near-linear growth on the worst shapes, the budget checked
while the patch is built, and a correct patch for every shape.

Growth is measured without timers, on three deterministic counts: the diff's own work counter
(``_diff._diff`` returns it: nodes indexed, child slots scanned, subsequence steps, operations,
union-find steps), the Python lines executed anywhere during the call (``sys.settrace``: also
counts ``json_equal`` and ``value_depth`` in other modules), and the peak of traced memory.
Each shape runs at n and 4n; more than 6x is a failure (O(n log n) gives about 4.5x, a
quadratic step 16x).  Wall-clock figures are in docs/patch.md, not here.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from typing import Any

import pytest
from diff_shapes import SHAPES, attrs, reverse, sparse  # type: ignore[import-not-found]

import nuif_core
from nuif_core import Limits, _diff, apply_patch, diff
from nuif_core._document import hash_bytes, parse_canonical

GROWTH = 6.0


def _texts(pair: tuple[Any, Any]) -> tuple[str, str]:
    return json.dumps(pair[0]), json.dumps(pair[1])


def _work(a: str, b: str, limits: Limits | None = None) -> int:
    return _diff._diff(a, b, limits)[1]


def _lines(a: str, b: str, limits: Limits | None = None) -> int:
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        diff(a, b, limits=limits)
    finally:
        sys.settrace(previous)
    return count


def _peak(a: str, b: str, limits: Limits | None = None) -> int:
    tracing = tracemalloc.is_tracing()  # e.g. PYTHONTRACEMALLOC: measure within it, leave it on
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    try:
        diff(a, b, limits=limits)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()


def _ops(patch: bytes) -> list[dict[str, Any]]:
    return [op for tx in json.loads(patch)["transactions"] for op in tx["ops"]]


def _assert_applies(a: str, b: str, limits: Limits | None = None) -> bytes:
    patch = diff(a, b, limits=limits)
    assert apply_patch(a, patch, limits=limits).canonical == nuif_core.canonicalize(b).canonical
    return patch


# -- growth --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_work_counter_grows_near_linearly(name):
    n = 3000
    small = _work(*_texts(SHAPES[name](n)))
    large = _work(*_texts(SHAPES[name](4 * n)))
    assert small >= n if name != "meta_deep" else small >= 1
    assert large <= GROWTH * small, (name, small, large)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_python_lines_and_memory_grow_near_linearly(name):
    n = 1000
    a1, b1 = _texts(SHAPES[name](n))
    a4, b4 = _texts(SHAPES[name](4 * n))
    diff(a1, b1)  # warm: the first call's one-time costs would flatter the ratio
    lines = (_lines(a1, b1), _lines(a4, b4))
    assert lines[1] <= GROWTH * lines[0], (name, lines)
    peak = (_peak(a1, b1), _peak(a4, b4))
    assert peak[1] <= GROWTH * peak[0], (name, peak)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_minimal_patch_grows_near_linearly_too(name):
    # with a budget that never runs out, the whole minimal patch is built: its cost, not only
    # the cost of reaching the fallback, is near linear (the limits can only be tightened, so
    # the budget is lifted on the internal planner)
    def planned(n: int) -> int:
        a, b = _texts(SHAPES[name](n))
        lim = Limits()
        _, _, da = parse_canonical(a, lim)
        _, _, db = parse_canonical(b, lim)
        plan = _diff._Plan(10**9, 10**12, [0])
        plan.tree_ops(da["root"], db["root"])
        plan.fits(lim)
        return plan.work[0]

    small, large = planned(3000), planned(12000)
    assert large <= GROWTH * small, (name, small, large)


def test_moves_in_a_growing_child_list_cost_a_bounded_amount_each():
    # 800 moves into a list of 8,000 children, then into one of 32,000: the minimal patch both
    # times, and each move's index costs no scan of the list
    (a1, b1), (a4, b4) = _texts(sparse(8000, 800)), _texts(sparse(32000, 800))
    assert len(_ops(diff(a1, b1))) == len(_ops(diff(a4, b4))) == 800
    assert _work(a4, b4) <= GROWTH * _work(a1, b1)
    # and with the moves growing with the list (n / 10 of them)
    (a1, b1), (a4, b4) = _texts(sparse(8000, 800)), _texts(sparse(32000, 3200))
    assert len(_ops(diff(a4, b4))) == 3200
    assert _work(a4, b4) <= GROWTH * _work(a1, b1)
    (a1, b1), (a4, b4) = _texts(sparse(2000, 200)), _texts(sparse(8000, 800))
    assert _lines(a4, b4) <= GROWTH * _lines(a1, b1)


# -- the budget ----------------------------------------------------------------------------------


def _count_emits(monkeypatch: Any) -> list[int]:
    calls = [0]
    emit = _diff._Plan._emit

    def counting(self: Any, op: dict[str, Any], size: int) -> None:
        calls[0] += 1
        emit(self, op, size)

    monkeypatch.setattr(_diff._Plan, "_emit", counting)
    return calls


def test_the_operation_budget_stops_the_walk_at_the_first_operation_over_it(monkeypatch):
    calls = _count_emits(monkeypatch)
    a, b = _texts(reverse(20000))
    assert [op["op"] for op in _ops(_assert_applies(a, b))] == ["replace"]
    assert calls[0] == Limits.DEFAULT.max_operations + 1  # not 19,999
    calls[0] = 0
    assert [op["op"] for op in _ops(diff(a, b, limits=Limits(max_operations=10)))] == ["replace"]
    assert calls[0] == 11
    # per-transaction limits count the same way: 3 transactions of 4
    calls[0] = 0
    diff(a, b, limits=Limits(max_operations_per_transaction=4, max_transactions=3))
    assert calls[0] == 13


def test_the_operation_budget_leaves_room_for_the_meta_operation(monkeypatch):
    calls = _count_emits(monkeypatch)
    a, b = reverse(30)
    b["meta"] = {"changed": True}
    ta, tb = _texts((a, b))
    ops = _ops(_assert_applies(ta, tb, Limits(max_operations=30)))
    assert [op["op"] for op in ops] == ["move"] * 29 + ["meta"]
    calls[0] = 0
    ops = _ops(_assert_applies(ta, tb, Limits(max_operations=29)))
    assert [op["op"] for op in ops] == ["replace", "meta"]
    assert calls[0] == 29  # the 29th move leaves no room for meta: stop there


def test_the_patch_size_budget_stops_the_walk_early(monkeypatch):
    # 3,000 nodes whose 100-character attribute changes: the minimal patch (one set each) is
    # longer than the new root, so under a limit between the two the diff falls back, and it
    # stops once the operations so far are provably longer than the limit
    n = 3000
    a = {"nuif": 0, "root": {"id": "r", "kind": "k", "children": [
        {"id": f"c{i}", "kind": "k", "attrs": {"v": "x" * 100}} for i in range(n)]}}  # fmt: skip
    b = json.loads(json.dumps(a).replace("x" * 100, "y" * 100))
    ta, tb = _texts((a, b))
    minimal = diff(ta, tb)
    fallback = json.dumps(
        {"base": nuif_core.document_hash(ta), "nuif_patch": 0,
         "transactions": [{"ops": [{"id": "r", "node": b["root"], "op": "replace"}]}]},
        separators=(",", ":"), sort_keys=True,
    ).encode()  # fmt: skip
    assert len(fallback) < len(minimal)
    calls = _count_emits(monkeypatch)
    limit = len(fallback)
    assert diff(ta, tb, limits=Limits(max_patch_bytes=limit)) == fallback
    # ids, names and string values are ASCII here, so the floor of each set is its exact length:
    # the walk stops at the first operation that takes the floor past the limit
    floor, stop, ops = _diff._EMPTY_PATCH, 0, _ops(minimal)
    while floor <= limit:
        floor += len(nuif_core.canonical_json(json.dumps(ops[stop]))) + 1
        stop += 1
    assert calls[0] == stop < n


def test_the_size_floor_is_a_lower_bound_and_exact_without_values():
    def floor_and_text(a: str, b: str) -> tuple[int, bytes]:
        lim = Limits()
        _, canonical_a, da = parse_canonical(a, lim)
        _, _, db = parse_canonical(b, lim)
        plan = _diff._Plan(10**9, 10**12, [0])
        ops = plan.tree_ops(da["root"], db["root"]) + _diff._meta_ops(da, db, [0])
        return plan.floor, _diff._patch_text(hash_bytes(canonical_a), ops, 10**9, lim)

    for name in sorted(SHAPES):
        floor, text = floor_and_text(*_texts(SHAPES[name](300)))
        assert floor <= len(text), name
    # moves, removes, retypes and unsets carry no values: the floor is the text's length less
    # the one transaction's brackets (10 bytes) plus the comma counted for the last operation
    a, b = reverse(300)
    b["root"]["children"].pop()
    b["root"]["kind"] = "other"
    floor, text = floor_and_text(*_texts((a, b)))
    assert len(text) - floor == 9
    floor, text = floor_and_text(*_texts(attrs(300)))
    assert floor <= len(text) < 2 * floor


# -- correctness on every shape ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_shape_diffs_to_a_patch_that_gives_b(name):
    # small: the minimal patch; large: over the 4,096-operation budget for most shapes, so the
    # fallback; both apply to exactly b
    small = _ops(_assert_applies(*_texts(SHAPES[name](400))))
    assert small and small[0]["op"] != "replace"
    _assert_applies(*_texts(SHAPES[name](20000)))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_shape_diffs_back_and_under_tight_limits(name):
    a, b = _texts(SHAPES[name](600))
    _assert_applies(b, a)
    for limits in (Limits(max_operations=50), Limits(max_operations_per_transaction=7)):
        _assert_applies(a, b, limits)


def test_the_minimal_patch_of_a_reversal_has_exact_indexes():
    a, b = _texts(reverse(5))
    assert [(op["id"], op["index"]) for op in _ops(diff(a, b))] == [
        ("c4", 0),
        ("c3", 1),
        ("c2", 2),
        ("c1", 3),
    ]
