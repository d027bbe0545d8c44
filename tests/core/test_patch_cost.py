"""Bounded cost for bounded input: the worst shapes we know for each operation of the patch engine.

Two kinds of test:

* **refusals** — an input whose cost would not be bounded by its size is refused at the step that
  would pass a limit, with the stable code and the location of that step, and nothing is applied;
* **growth** — each shape runs at two sizes, ``n`` and ``4n`` (document *and* patch scaled
  together), and three machine-independent measures of its cost must grow by at most
  ``GROWTH`` (≈ 6×): a linear cost grows 4×, a quadratic one 16×, whatever the machine's load.
  The measures: Python bytecodes executed in ``nuif_core`` (``sys.settrace`` opcode events),
  bytes through the compiled codec (every ``dumps``/``loads``), and the engine's own work meter
  (docs/patch.md, "Cost"; it also charges position look-ups and list walks that are C loops the
  bytecode count cannot see).  One term is measured apart: a child inserted or removed at index
  ``i`` of a list of ``w`` shifts ``w - i`` pointers (one ``memmove``, ~0.1 ms at the node
  limit), so K positional operations on one wide parent cost K·w *at memory speed*; the meter
  charges it and the budget bounds it, and ``test_a_list_shift_is_the_only_width_linear_term``
  pins it to exactly that.

Wall-clock figures belong to the benchmarks (benchmarks/adversarial.py), never to these tests.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

import nuif_core
from nuif_core import Limits, NuifError, Session, _apply, _codec
from nuif_core._cost import budget_for

GROWTH = 6.0


# ---------------------------------------------------------------------------------------------
# measuring


class Cost(NamedTuple):
    opcodes: int
    codec_bytes: int
    work: int


def measure(fn: Callable[[], int], monkeypatch: pytest.MonkeyPatch) -> Cost:
    """Run ``fn`` (which returns the engine's metered work) and count what it cost."""
    codec_bytes = 0
    dumps, loads = _codec.dumps, _codec.loads

    def counting_dumps(value: Any, depth: int) -> bytes:
        nonlocal codec_bytes
        out = dumps(value, depth)
        codec_bytes += len(out)
        return out

    def counting_loads(data: bytes, depth: int) -> Any:
        nonlocal codec_bytes
        codec_bytes += len(data)
        return loads(data, depth)

    opcodes = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal opcodes
        if event == "call":
            if "nuif_core" not in frame.f_code.co_filename:
                return None
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            return trace
        if event == "opcode":
            opcodes += 1
        return trace

    with monkeypatch.context() as m:
        m.setattr(_codec, "dumps", counting_dumps)
        m.setattr(_codec, "loads", counting_loads)
        sys.settrace(trace)
        try:
            work = fn()
        finally:
            sys.settrace(None)
    return Cost(opcodes, codec_bytes, work)


def assert_near_linear(small: Cost, large: Cost, growth: float = GROWTH) -> None:
    for name in Cost._fields:
        a, b = getattr(small, name), getattr(large, name)
        if b > 1000:  # below that, fixed costs dominate and ratios mean nothing
            assert b <= growth * max(a, 1), f"{name} grew {b / max(a, 1):.1f}x: {small} -> {large}"


def apply_counted(doc: str, patch: Any, inverse: bool = True, limits: Limits | None = None) -> int:
    result, work = _apply.apply_measured(doc, patch, inverse, limits)
    if inverse:  # every result here must be a document whose inverse applies
        assert result.inverse is not None
        back = nuif_core.apply_patch(result.canonical, result.inverse, limits=limits)
        assert back.hash == result.base
    return work


def patch_of(ops: list[dict[str, Any]]) -> str:
    per = 1024
    txs = [{"ops": ops[i : i + per]} for i in range(0, len(ops), per)] or [{"ops": []}]
    return json.dumps({"nuif_patch": 0, "transactions": txs})


def wide(n: int, extra: str = "") -> str:
    kids = [{"id": f"n{i}", "kind": "item", "attrs": {"t": f"x{i}"}} for i in range(n)]
    root: dict[str, Any] = {"id": "root", "kind": "list", "children": kids}
    return json.dumps({"nuif": 0, "root": root})


def nested(n: int) -> dict[str, Any]:
    """A subtree of ``n`` nodes, a few levels deep."""
    kids = [{"id": f"s{i}", "kind": "leaf", "attrs": {"v": [i, {"k": i}]}} for i in range(n)]
    return {"id": "big", "kind": "group", "children": kids}


# ---------------------------------------------------------------------------------------------
# RFC 6902 copy doubles a value per operation: held to the size limit at the step


DOUBLING = [{"op": "add", "path": "/a", "value": [0]}] + [
    {"op": "copy", "from": "/a", "path": "/a/-"}
] * 26
SMALL = '{"nuif":0,"root":{"id":"r","kind":"k","attrs":{"x":[0]}}}'


def first_step_past(limit: int, base_size: int, start: list[Any], extra: int) -> int:
    """The index of the first copy (1-based in DOUBLING) at which the document passes ``limit``
    (computed with plain json on the same growth)."""
    value = start
    for k in range(1, 27):
        value = value + [json.loads(json.dumps(value))]
        size = base_size + extra + len(json.dumps(value, separators=(",", ":")))
        if size > limit:
            return k
    raise AssertionError("never passes")


@pytest.mark.parametrize("limits", [Limits.MCP, Limits(max_document_bytes=256 * 1024)])
def test_copy_doubling_in_meta_stops_at_the_copy_that_passes_the_size_limit(limits):
    patch = json.dumps(
        {"nuif_patch": 0, "transactions": [{"ops": [{"op": "meta", "patch": DOUBLING}]}]}
    )
    assert len(patch) < 1400  # the 1.3 KB patch of the report
    with pytest.raises(NuifError) as info:
        apply_counted(SMALL, patch, limits=limits)
    err = info.value
    base = len(nuif_core.canonicalize(SMALL).canonical)
    # meta appears as "meta":{"a":…}, : 8 + len('{"a":}') bytes around the array
    k = first_step_past(limits.max_document_bytes, base, [0], 8 + 6)
    assert err.code == "NUIF_TOO_LARGE"
    assert err.pointer == f"/transactions/0/ops/0/patch/{k}"
    assert f"JSON Patch operation {k} (copy)" in err.message
    assert f"the limit is {limits.max_document_bytes} bytes" in err.message


def test_copy_doubling_in_edit_stops_at_the_copy_that_passes_the_size_limit():
    ops = [{"op": "copy", "from": "", "path": "/-"}] * 26
    patch = json.dumps(
        {
            "nuif_patch": 0,
            "transactions": [{"ops": [{"op": "edit", "id": "r", "attr": "x", "patch": ops}]}],
        }
    )
    lim = Limits.MCP
    with pytest.raises(NuifError) as info:
        apply_counted(SMALL, patch, limits=lim)
    base = len(nuif_core.canonicalize(SMALL).canonical)
    k = first_step_past(lim.max_document_bytes, base - len("[0]"), [0], 0) - 1
    assert info.value.code == "NUIF_TOO_LARGE"
    assert info.value.pointer == f"/transactions/0/ops/0/patch/{k}"


def test_copy_doubling_through_a_session_leaves_it_unchanged():
    s = Session(SMALL, limits=Limits.MCP)
    before = s.canonical()
    patch = {"nuif_patch": 0, "transactions": [{"ops": [{"op": "meta", "patch": DOUBLING}]}]}
    with pytest.raises(NuifError, match="NUIF_TOO_LARGE"):
        s.apply(patch)
    assert s.canonical() == before
    assert s._size == len(before)
    assert s.apply_transaction([{"op": "set", "id": "r", "attr": "y", "value": 1}]).changed


def test_copy_and_remove_loop_is_bounded_by_the_work_budget():
    # each copy of a big value is charged; copy + remove keeps the size flat, so only the meter
    # can stop it: NUIF_LIMIT_WORK, long before the patch would have done its work
    value = list(range(20000))
    doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k"}, "meta": {"a": value}})
    ops = [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "remove", "path": "/b"}] * 20000
    patch = json.dumps({"nuif_patch": 0, "transactions": [{"ops": [{"op": "meta", "patch": ops}]}]})
    with pytest.raises(NuifError) as info:
        apply_counted(doc, patch)
    err = info.value
    assert err.code == "NUIF_LIMIT_WORK"
    # at the RFC 6902 operation that would pass the budget, long before the 40,000th
    k = int(err.pointer.rsplit("/", 1)[1])
    assert err.pointer == f"/transactions/0/ops/0/patch/{k}" and 0 < k < 4000
    assert err.message.startswith(f"transactions/0/ops/0 (meta): JSON Patch operation {k} (")
    assert "split it into smaller patches" in err.message


# ---------------------------------------------------------------------------------------------
# growth: n vs 4n, document and patch scaled together


def meta_ops(n: int) -> tuple[str, str]:
    # a big meta, and n/4 meta operations that each add and remove one key
    doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k"}, "meta": {"big": list(range(n))}})
    ops = [
        {
            "op": "meta",
            "patch": [
                {"op": "add", "path": f"/k{i}", "value": i},
                {"op": "remove", "path": f"/k{i}"},
            ],
        }
        for i in range(n // 4)
    ]
    return doc, patch_of(ops)


def edit_ops(n: int) -> tuple[str, str]:
    doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"v": list(range(n))}}})
    ops = [
        {
            "op": "edit",
            "id": "r",
            "attr": "v",
            "patch": [{"op": "replace", "path": "/0", "value": i}],
        }
        for i in range(n // 4)
    ]
    return doc, patch_of(ops)


def hash_tests(n: int) -> tuple[str, str]:
    doc = wide(n)
    h = nuif_core.canonicalize(doc)
    root_hash = Session(doc).node_hash("root")
    assert h.hash  # the document hash and the root's node hash are different texts
    ops = [{"op": "test", "id": "root", "hash": root_hash}] * (n // 4)
    return doc, patch_of(ops)


def moves_to_front(n: int) -> tuple[str, str]:
    # the last child moved to the front, again and again: every position look-up is stale
    ops = [
        {"op": "move", "id": f"n{n - 1 - i}", "parent": "root", "index": 0} for i in range(n // 4)
    ]
    return wide(n), patch_of(ops)


def removes_spread(n: int) -> tuple[str, str]:
    ops = [{"op": "remove", "id": f"n{i}"} for i in range(0, n, 4)]
    return wide(n), patch_of(ops)


def replaces_spread(n: int) -> tuple[str, str]:
    ops = [
        {"op": "replace", "id": f"n{i}", "node": {"id": f"m{i}", "kind": "item"}}
        for i in range(0, n, 4)
    ]
    return wide(n), patch_of(ops)


def subtree_down_and_back(n: int) -> tuple[str, str]:
    # a big subtree moved one level deeper and back, n/16 times
    doc = {
        "nuif": 0,
        "root": {"id": "root", "kind": "k", "children": [nested(n), {"id": "box", "kind": "k"}]},
    }
    ops: list[dict[str, Any]] = []
    for _ in range(max(1, n // 32)):
        ops.append({"op": "move", "id": "big", "parent": "box"})
        ops.append({"op": "move", "id": "big", "parent": "root", "index": 0})
    return json.dumps(doc), patch_of(ops)


def sets_on_many_nodes(n: int) -> tuple[str, str]:
    ops = [
        {"op": "set", "id": f"n{i}", "attr": "t", "value": [i, {"x": i}]} for i in range(0, n, 2)
    ]
    return wide(n), patch_of(ops)


#: shapes whose cost is O(n^1.5) by design: K look-ups of positions that K earlier moves made
#: stale each replay up to ~2√width recorded changes (or rebuild the map, O(width), once per
#: ~2√width changes): 4n costs 8x, a quadratic cost (16x) still fails
SQRT_SHAPES = {"moves to the front of a wide parent": 9.0, "removes across a wide parent": 9.0}

SHAPES = {
    "meta ops on a big meta": meta_ops,
    "edit ops on a big attribute": edit_ops,
    "node hash tests of the root": hash_tests,
    "moves to the front of a wide parent": moves_to_front,
    "removes across a wide parent": removes_spread,
    "replaces across a wide parent": replaces_spread,
    "a big subtree moved down and back": subtree_down_and_back,
    "sets on many nodes": sets_on_many_nodes,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_patch_cost_grows_near_linearly(shape, monkeypatch):
    make = SHAPES[shape]
    costs = []
    for n in (512, 2048):
        doc, patch = make(n)
        costs.append(measure(lambda doc=doc, patch=patch: apply_counted(doc, patch), monkeypatch))
    assert_near_linear(*costs, growth=SQRT_SHAPES.get(shape, GROWTH))


def test_a_list_shift_is_the_only_width_linear_term():
    # the same 64 moves to the front of a parent 4x wider: the shifts grow 4x (one memmove per
    # insert, proportional to the width), everything else does not grow with the width
    shifted, rest = [], []
    for n in (2048, 8192):
        ops = [
            {"op": "move", "id": f"n{n - 1 - i}", "parent": "root", "index": 0} for i in range(64)
        ]
        s = Session(wide(n))
        s.apply(patch_of(ops))
        shifted.append(s._shifted)
        rest.append(s._work - s._shifted)
    assert shifted[0] == 64 * ((2048 - 1) >> 5)  # an insert at 0 moves every other child
    assert shifted[1] == 64 * ((8192 - 1) >> 5)  # 4x the width, 4x the shift
    assert rest[1] <= 2.5 * rest[0] + 8192  # the O(width) map is built once per parent


def test_the_work_never_passes_the_budget_and_a_normal_patch_is_far_below_it():
    doc, patch = sets_on_many_nodes(2000)
    work = apply_counted(doc, patch)
    budget = budget_for(len(nuif_core.canonicalize(doc).canonical), len(patch))
    assert 0 < work < budget // 20


# ---------------------------------------------------------------------------------------------
# node hash tests between edits: each one serializes the root again, so the meter stops them


def test_root_hash_tests_between_edits_are_stopped_by_the_work_budget():
    doc = wide(20000)
    root_hash = Session(doc).node_hash("root")
    ops: list[dict[str, Any]] = []
    for _ in range(2048):
        ops.append({"op": "set", "id": "n0", "attr": "t", "value": "x0"})  # no change in bytes
        ops.append({"op": "test", "id": "root", "hash": root_hash})
    with pytest.raises(NuifError) as info:
        apply_counted(doc, patch_of(ops))
    err = info.value
    assert err.code == "NUIF_LIMIT_WORK"
    assert err.message.startswith("transactions/")
    assert "(test)" in err.message
    # the same tests without the edits in between are answered from the cache
    cached = [{"op": "test", "id": "root", "hash": root_hash}] * 4096
    assert apply_counted(doc, patch_of(cached)) < len(doc) * 2


# ---------------------------------------------------------------------------------------------
# results above the limits are refused; every result's inverse applies


def test_a_set_that_would_pass_the_document_limit_is_refused_at_that_operation():
    lim = Limits(max_document_bytes=64 * 1024, max_patch_bytes=64 * 1024)
    doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"a": "x" * 36000}}})
    patch = json.dumps(
        {
            "nuif_patch": 0,
            "transactions": [
                {"ops": [{"op": "set", "id": "r", "attr": "b", "value": "y" * 36000}]}
            ],
        }
    )
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(doc, patch, limits=lim)
    assert info.value.code == "NUIF_TOO_LARGE"
    assert info.value.pointer == "/transactions/0/ops/0/value"
    assert f"the limit is {lim.max_document_bytes} bytes" in info.value.message


def test_growth_inside_one_transaction_is_refused_even_when_a_later_op_would_shrink_it():
    lim = Limits(max_document_bytes=64 * 1024, max_patch_bytes=128 * 1024)
    doc = '{"nuif":0,"root":{"id":"r","kind":"k"}}'
    ops = [
        {"op": "set", "id": "r", "attr": "a", "value": "x" * 40000},
        {"op": "set", "id": "r", "attr": "b", "value": "y" * 40000},
        {"op": "unset", "id": "r", "attr": "a"},
    ]
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(doc, patch_of(ops), limits=lim)
    assert info.value.code == "NUIF_TOO_LARGE"
    assert info.value.pointer == "/transactions/0/ops/1/value"


@pytest.mark.parametrize(
    "op",
    [
        {
            "op": "insert",
            "parent": "r",
            "node": {"id": "n", "kind": "k", "attrs": {"a": "x" * 40000}},
        },
        {"op": "replace", "id": "c", "node": {"id": "c", "kind": "k", "attrs": {"a": "x" * 40000}}},
        {
            "op": "edit",
            "id": "c",
            "attr": "v",
            "patch": [{"op": "add", "path": "/-", "value": "x" * 40000}],
        },
        {"op": "meta", "patch": [{"op": "add", "path": "/m", "value": "x" * 40000}]},
    ],
    ids=lambda op: op["op"],
)
def test_every_growing_operation_is_held_to_the_document_limit(op):
    lim = Limits(max_document_bytes=64 * 1024, max_patch_bytes=64 * 1024)
    doc = json.dumps(
        {
            "nuif": 0,
            "root": {
                "id": "r",
                "kind": "k",
                "attrs": {"pad": "p" * 30000},
                "children": [{"id": "c", "kind": "k", "attrs": {"v": []}}],
            },
        }
    )
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(doc, patch_of([op]), limits=lim)
    assert info.value.code == "NUIF_TOO_LARGE"
    assert info.value.pointer.startswith("/transactions/0/ops/0")


def test_an_inverse_longer_than_the_patch_limit_falls_back_to_the_diff():
    # removing a big subtree with a tiny patch: the operation's inverse carries the subtree; the
    # diff back carries it too, so the shorter of the two is used, and both are held to the limit
    lim = Limits(max_patch_bytes=4096)
    kids = [{"id": f"k{i}", "kind": "k", "attrs": {"t": "x" * 50}} for i in range(60)]
    doc = json.dumps(
        {
            "nuif": 0,
            "root": {
                "id": "r",
                "kind": "k",
                "children": [{"id": "g", "kind": "k", "children": kids}],
            },
        }
    )
    p = patch_of([{"op": "remove", "id": "g"}])
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(doc, p, inverse=True, limits=lim)
    assert info.value.code == "NUIF_TOO_LARGE"
    assert "inverse patch" in info.value.message
    # without an inverse the same patch applies
    assert nuif_core.apply_patch(doc, p, limits=lim).changed
    # and a session is left as it was
    s = Session(doc, limits=lim)
    before = s.canonical()
    with pytest.raises(NuifError, match="inverse patch"):
        s.apply(p, inverse=True)
    assert s.canonical() == before


def test_an_inverse_that_fits_only_as_a_diff_is_the_diff():
    lim = Limits(max_patch_bytes=2048)
    doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"a": "x" * 1500}}})
    # 20 sets of the same attribute: each undo op carries the 1500-byte old value
    ops = [{"op": "set", "id": "r", "attr": "a", "value": i} for i in range(20)]
    result = nuif_core.apply_patch(doc, patch_of(ops), inverse=True, limits=lim)
    assert len(result.inverse) <= lim.max_patch_bytes
    back = nuif_core.apply_patch(result.canonical, result.inverse, limits=lim)
    assert back.canonical == nuif_core.canonicalize(doc).canonical


def test_a_canonical_text_longer_than_its_input_is_held_to_the_limit_after_a_patch():
    # 1e20 is 4 bytes of input and 21 bytes of canonical text
    lim = Limits(max_document_bytes=4096, max_patch_bytes=4096)
    doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"a": [1.5e-7] * 300}}})
    assert len(doc) <= 4096
    canonical = nuif_core.canonicalize(doc, limits=lim).canonical
    # a no-op patch on it returns the canonical text, whatever its length; a growing one is
    # refused as soon as the canonical text passes the limit
    ops = [{"op": "set", "id": "r", "attr": "b", "value": "x" * (4096 - len(canonical) + 1)}]
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(
            doc, patch_of(ops), limits=Limits(max_document_bytes=4096, max_patch_bytes=8192)
        )
    assert info.value.code == "NUIF_TOO_LARGE"


def test_a_diff_whose_intermediate_document_would_pass_the_limit_falls_back_to_the_root():
    # a dead wrapper that holds a persisting node is removed last, after the new subtrees are
    # inserted, so halfway the document holds old and new: with the two texts together over the
    # limit, diff must hand out a patch that applies (the root replaced), not the minimal one the
    # engine would refuse at the insert that passes the limit
    lim = Limits(max_document_bytes=64 * 1024)
    wrappers = [
        {
            "id": f"w{i}",
            "kind": "k",
            "attrs": {"t": "x" * 250},
            "children": [{"id": f"p{i}", "kind": "k"}],
        }
        for i in range(120)
    ]
    fresh = [{"id": f"n{i}", "kind": "k", "attrs": {"t": "y" * 250}} for i in range(120)]
    kept = [{"id": f"p{i}", "kind": "k"} for i in range(120)]
    a = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": wrappers}})
    b = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": fresh + kept}})
    assert len(a) < lim.max_document_bytes < len(a) + len(b)
    minimal = nuif_core.diff(a, b)  # default limits: room for both
    with pytest.raises(NuifError) as info:
        nuif_core.apply_patch(a, minimal, limits=lim)
    assert info.value.code == "NUIF_TOO_LARGE"
    p = nuif_core.diff(a, b, limits=lim)
    ops = [op for tx in json.loads(p)["transactions"] for op in tx["ops"]]
    assert [op["op"] for op in ops] == ["replace"]
    assert nuif_core.apply_patch(a, p, limits=lim).canonical == nuif_core.canonicalize(b).canonical
