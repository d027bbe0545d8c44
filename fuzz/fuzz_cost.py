"""Fuzz target 6: the cost of a patch is bounded by the size of what was handed in.

Input: ``document`` 0x1E ``patch`` (two texts), as for the patch target.  An input starting with
NUL is a recipe; its last byte picks one of (atheris reads numbers from the end):

* the patch target's generator (a generated document and a patch aimed at its ids);
* **JSON Patch blow-ups**: ``meta`` and ``edit`` operations whose RFC 6902 patches repeat a
  body of ``copy``/``move``/``add``/``remove``/``replace``/``test`` operations drawn from a few
  pointers (``/a`` into ``/a/-``, ``""`` into ``/c``, ``/b`` into ``/a/0``…) over a seed value
  (a long list, a long string, a wide object, a deep value), up to 2,048 of them spread over up
  to 64 operations;
* **a wide parent**: up to 2,048 children and up to 2,048 moves, removes, inserts, replaces,
  sets, renames and retypes on it, each aimed by an index pattern (front, back, middle, strided,
  counting up or down);
* **moves deeper**: a subtree of up to 2,048 nodes moved down a chain of up to 60 nodes and back,
  with hash tests of the subtree and moves into itself;
* **hash tests between edits**: node-hash tests of the root or of a subtree, each after an edit
  that changes nothing but drops the hash caches (or a real edit: the test then fails);
* **big values replaced many times**: attributes and ``meta`` holding up to 64 KB, set, unset,
  edited and replaced again and again, so that every operation destroys (measures, and puts in
  the inverse) the whole value;

each under the default limits, the MCP profile, or small ones: a document limit around the
document's size and a patch limit around the patch's (so ``NUIF_TOO_LARGE`` and the inverse's
fall-back to a diff are reached), sometimes also the patch target's tightened node and
operation limits.  Sizes are drawn evenly over their powers of two (mostly small and fast, now
and then large enough for a super-linear term to stand out); generated texts reach a few hundred
KB: a recipe is a program, not the text.

Properties of every input:

* only :class:`nuif_core.NuifError` with a known code escapes ``apply_patch(..., inverse=True)``
  and ``Session.apply(..., inverse=True)``, and the two agree (both succeed with the same bytes,
  or both refuse — except that a refusal for work, ``NUIF_LIMIT_WORK``, may come from one path
  and not the other: they meter different work);
* **the cost is bounded** (see below), for both calls;
* **the meter keeps its budget**: the budget of the patch's meter is
  ``_cost.budget_for(canonical document bytes, patch bytes)``; on success no meter passed its
  budget; no meter accepted a charge after it passed its budget (the charge that passes it
  raises); ``NUIF_LIMIT_WORK`` comes only from a meter that passed it;
* **a refusal leaves a Session unchanged**: its canonical text, its hash, its model (serialized
  afresh by the codec and by the session's per-node cache), its ids and parents, its running
  size.

The cost of a call is what it does in nuif_core, measured without a clock: **Python bytecodes
executed in nuif_core** (``sys.settrace`` opcode events, as in tests/core/test_patch_cost.py;
the fuzz build's coverage instrumentation adds bytecodes of its own, so the constants below were
measured under it, with CPython 3.11 and atheris 3.0.0) **plus the bytes of text through the
compiled codec** (what ``loads``, ``canonical_json``, ``node_spans``, ``hash_bytes``… read,
what ``dumps`` writes).  With ``n`` the input in bytes (document text + patch text), ``W`` the
units the engine's work meter charged (docs/patch.md, "Cost"; list shifts excluded: they are a
``memmove`` and cost neither bytecodes nor codec bytes) and ``L`` the tree levels of the nodes
the operations named (summed over every ``Session._find``; each operation walks the ancestors
of what it names — its depth, the cycle check of a move, the hash caches along the path —,
O(depth) by design), the property is

    opcodes + codec bytes  <=  PER_BYTE * n + PER_LEVEL * L + PER_UNIT * W + FIXED
                            =  103 * n + 280 * L + 24 * W + 6700

Each term is bounded by the input: ``L`` by 2 nodes per operation times 64 levels (the default
depth limit of 128 JSON levels), and ``W`` by the engine's budget, ``32 * (canonical document
bytes + patch bytes) + 32 MiB``, which this target checks too.  So the cost is linear in the
input.  The form above is much tighter than a plain ``A * n + B``: the meter's 32 MiB floor
lets a 1.3 KB patch do 32 MiB of metered work, and operations at the bottom of a 62-node chain
cost 5 times what shallow ones do per byte, so a plain bound loose enough for both would hide a
quadratic term at fuzz sizes; this one catches exactly the bug class of unbounded patch cost, work that
grows faster than the input *and is not metered*.

The constants were measured with ``python fuzz/fuzz_cost.py --calibrate`` over the seeds of the
patch and diff targets (each diff pair applied as the patch ``diff(a, b)``), the eight shapes of
tests/core/test_patch_cost.py at n = 512 and 2,048, its refusal cases (copy doubling in meta,
the copy/remove loop, root hash tests between edits), and — since none of those is deep —
moves, sets, and retypes with hash tests at the bottom of a 62-node chain: inputs of at most
128 bytes cost up to 1,662; inputs with little metered work (W <= n/8) and shallow (L <= n/4)
up to 25.7 per byte; inputs with more metered work 5.97 per unit beyond that; the deep ones
69.6 per level beyond both.  Each constant is about four times its observation.

When the bound is broken the finding shows every figure (input sizes, canonical size, opcodes,
codec bytes, metered work and shifts, budget, the recipe), so a report can be checked by
scaling the same input (n against 4n) before anything is called a bug.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import _common as c  # first: it instruments nuif_core for coverage as it imports it
import atheris
from _gen import DocGen, document_and_patch, pick, to_text
from _gen import limits as gen_limits
from _gen import value as gen_value
from run import INPUT_TIMEOUT

from nuif_core import Limits, Session, _codec, _cost, _session

nc = c.nuif_core

#: the bound (see the module docstring and docs/fuzzing.md): opcodes + codec bytes per input byte
PER_BYTE = 103
#: ... per tree level of a node an operation names
PER_LEVEL = 280
#: ... per unit of metered work
PER_UNIT = 24
#: ... and once per call
FIXED = 6700

if _codec.IMPLEMENTATION != "compiled":  # the twin's bytecodes would count as the engine's
    raise ImportError("fuzz_cost measures the compiled codec: build nuif-core with its extension")


# ---------------------------------------------------------------------------------------------
# measuring


class _TallyMeter(_cost.Meter):
    """The engine's meter, remembering each instance and its last charge."""

    __slots__ = ("last",)

    def __init__(self, budget: int) -> None:
        super().__init__(budget)
        self.last = 0
        _METERS.append(self)

    def charge(self, units: int) -> None:
        self.last = units
        _cost.Meter.charge(self, units)


_METERS: list[_TallyMeter] = []
_session.Meter = _TallyMeter  # type: ignore[misc]  # Session._run makes its meter through this name

#: tree levels of the nodes the operations named, summed (see _found)
_LEVELS = [0]
_engine_find = _session.Session._find


def _found(self: Session, op: Any, member: str = "id") -> dict[str, Any]:
    """``Session._find`` (every operation finds the nodes it names through it), adding the tree
    depth of the node found to ``_LEVELS``: each operation walks the ancestors of what it names
    (its depth, a cycle check, the hash caches along the path), O(depth) by design (docs/patch.md,
    "Cost").  The walk here runs in this file, so it is not counted as the engine's."""
    node = _engine_find(self, op, member)
    spans = getattr(self, "_spans", None)  # a _SpliceSession knows each node's depth
    if spans is not None:
        depth = spans[node["id"]][4]
    else:
        parents = self._parents
        depth = 1
        p = parents.get(node["id"])
        while p is not None:
            depth += 1
            p = parents.get(p["id"])
    _LEVELS[0] += depth
    return node


_session.Session._find = _found  # type: ignore[method-assign]


class Cost(NamedTuple):
    opcodes: int
    codec_bytes: int
    work: int  # metered units, list shifts excluded
    shifted: int  # metered units of list shifts
    levels: int  # tree levels of the nodes the operations named, summed
    meters: tuple[tuple[int, int, int], ...]  # (budget, used, last charge) of every meter


#: the codec's text arguments and results that count: dumps writes, everything else reads
_WRITES = {"dumps"}


def _counting(name: str, fn: Callable[..., Any], tally: list[int]) -> Callable[..., Any]:
    if name in _WRITES:

        def wrapper(*args: Any) -> Any:
            out = fn(*args)
            tally[0] += len(out)
            return out

    else:

        def wrapper(*args: Any) -> Any:
            data = args[0] if args else b""
            if isinstance(data, (bytes, bytearray, memoryview, str)):
                tally[0] += len(data)
            out = fn(*args)
            if type(out) is bytes:
                tally[0] += len(out)
            return out

    return wrapper


def measure(fn: Callable[[], Any]) -> tuple[tuple[Any, ...], Cost]:
    """``c.outcome(fn)`` and what it cost (see the module docstring)."""
    tally = [0]
    saved = {name: getattr(_codec, name) for name in c.CODEC_FUNCTIONS}
    opcodes = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal opcodes
        if event == "opcode":
            opcodes += 1
        return local

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if "nuif_core" not in frame.f_code.co_filename:
            return None
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    del _METERS[:]
    _LEVELS[0] = 0
    for name, fn_ in saved.items():
        setattr(_codec, name, _counting(name, fn_, tally))
    sys.settrace(trace)
    try:
        out = c.outcome(fn)
    finally:
        sys.settrace(None)
        for name, fn_ in saved.items():
            setattr(_codec, name, fn_)
    meters = tuple((m.budget, m.used, m.last) for m in _METERS)
    work = sum(m.used - m.shifted for m in _METERS)
    shifted = sum(m.shifted for m in _METERS)
    del _METERS[:]
    return out, Cost(opcodes, tally[0], work, shifted, _LEVELS[0], meters)


def allowed(n: int, cost: Cost) -> int:
    return PER_BYTE * n + PER_LEVEL * cost.levels + PER_UNIT * cost.work + FIXED


# ---------------------------------------------------------------------------------------------
# the properties


class Input(NamedTuple):
    doc: bytes
    patch: bytes
    limits: Limits | None
    recipe: str


def _figures(inp: Input, what: str, out: tuple[Any, ...], cost: Cost, canonical: int | None) -> str:
    n = len(inp.doc) + len(inp.patch)
    total = cost.opcodes + cost.codec_bytes
    return (
        f"{what} [{inp.recipe}]: document {len(inp.doc)} bytes (canonical {canonical}), patch "
        f"{len(inp.patch)} bytes, n = {n}; opcodes {cost.opcodes} + codec bytes "
        f"{cost.codec_bytes} = {total} ({total / max(n, 1):.1f} per input byte); levels "
        f"{cost.levels}; metered work {cost.work} (+ {cost.shifted} in list shifts); meters "
        f"(budget, used, last charge) {cost.meters}; bound {PER_BYTE}*n + {PER_LEVEL}*levels + "
        f"{PER_UNIT}*work + {FIXED} = {allowed(n, cost)}; "
        f"outcome {out[:2] if out[0] == 'error' else 'ok'}; limits {inp.limits}"
    )


#: the largest share of the bound and of cost per input byte seen so far (printed when they grow)
_HIGHEST = {"share of the bound": 0.0, "cost per input byte": 0.0}


def _note(inp: Input, what: str, out: tuple[Any, ...], cost: Cost, canonical: int | None) -> None:
    n = len(inp.doc) + len(inp.patch)
    total = cost.opcodes + cost.codec_bytes
    for name, x in (
        ("share of the bound", total / allowed(n, cost)),
        ("cost per input byte", total / max(n, 1)),
    ):
        if x > _HIGHEST[name] * 1.05:
            _HIGHEST[name] = x
            print(
                f"#cost highest {name}: {x:.3f} — " + _figures(inp, what, out, cost, canonical),
                file=sys.stderr,
                flush=True,
            )


def check_cost(
    inp: Input, what: str, out: tuple[Any, ...], cost: Cost, canonical: int | None, patch_bytes: int
) -> None:
    n = len(inp.doc) + len(inp.patch)
    if cost.opcodes + cost.codec_bytes > allowed(n, cost):
        c.fail("the cost passes its bound: " + _figures(inp, what, out, cost, canonical))
    _note(inp, what, out, cost, canonical)
    for k, (budget, used, last) in enumerate(cost.meters):
        if used - last > budget:
            c.fail(
                f"meter {k} accepted work past its budget: "
                + _figures(inp, what, out, cost, canonical)
            )
        if out[0] == "ok" and used > budget:
            c.fail(
                f"meter {k} passed its budget and the patch applied: "
                + _figures(inp, what, out, cost, canonical)
            )
    if (
        out[0] == "error"
        and out[1] == "NUIF_LIMIT_WORK"
        and not any(used > budget for budget, used, _ in cost.meters)
    ):
        c.fail(
            "NUIF_LIMIT_WORK while every meter was within its budget: "
            + _figures(inp, what, out, cost, canonical)
        )
    if cost.meters and canonical is not None:
        budget = _cost.budget_for(canonical, patch_bytes)
        if cost.meters[0][0] != budget:
            c.fail(
                f"the meter's budget is not budget_for({canonical}, {patch_bytes}) = {budget}: "
                + _figures(inp, what, out, cost, canonical)
            )


def _state(s: Session) -> tuple[Any, ...]:
    depth = s.limits.max_depth
    return (
        s.canonical(),
        s.hash,
        s._size,
        len(s.canonical()),
        _codec.dumps(s._doc, depth),
        s._serialize(),
        {nid: (p["id"] if p is not None else None) for nid, p in s._parents.items()},
        sorted(s._nodes),
    )


def check(inp: Input) -> None:
    doc, patch, lim = inp.doc, inp.patch, inp.limits
    canon = c.outcome(nc.canonicalize, doc, limits=lim)
    canonical = len(canon[1].canonical) if canon[0] == "ok" else None
    patch_bytes = len(patch)

    out, cost = measure(lambda: nc.apply_patch(doc, patch, inverse=True, limits=lim))
    check_cost(inp, "apply_patch", out, cost, canonical, patch_bytes)

    sess = c.outcome(Session, doc, limits=lim)
    if sess[0] == "error":
        if out[0] == "ok":
            c.fail("Session refuses a document apply_patch accepts", sess, doc)
        return
    s = sess[1]
    before = _state(s)
    s_out, s_cost = measure(lambda: s.apply(patch, inverse=True))
    check_cost(inp, "Session.apply", s_out, s_cost, canonical, patch_bytes)
    if s_out[0] == "error":
        after = _state(s)
        if after != before:
            names = (
                "canonical",
                "hash",
                "size",
                "len(canonical)",
                "model",
                "node cache",
                "parents",
                "ids",
            )
            diff = [name for name, x, y in zip(names, before, after, strict=True) if x != y]
            c.fail(
                f"a refused Session.apply ({s_out[1]}) left the session changed: {diff}", doc, patch
            )
    if (out[0] == "ok") != (s_out[0] == "ok"):
        codes = {o[1] for o in (out, s_out) if o[0] == "error"}
        if codes != {"NUIF_LIMIT_WORK"}:
            c.fail("apply_patch and Session.apply disagree", out[:3], s_out[:3], doc, patch)
    elif out[0] == "ok" and out[1].canonical != s.canonical():
        c.fail("apply_patch and Session.apply end on different documents", doc, patch)


# ---------------------------------------------------------------------------------------------
# recipes


def _text(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def _patch_text(ops: list[dict[str, Any]], per: int = 1024) -> bytes:
    txs = [{"ops": ops[i : i + per]} for i in range(0, len(ops), per)] or [{"ops": []}]
    return _text({"nuif_patch": 0, "transactions": txs[:128]})


def _limits(fdp: Any, doc: bytes, patch: bytes) -> Limits | None:
    """Default, MCP or small byte limits around the sizes of the texts (and sometimes the patch
    target's tightened node and operation limits on top)."""
    way = fdp.ConsumeIntInRange(0, 7)
    if way <= 3:
        return None
    if way == 4:
        return Limits.MCP
    top = Limits.DEFAULT
    doc_limit = min(
        top.max_document_bytes, max(64, int(len(doc) * fdp.ConsumeIntInRange(50, 400) / 100))
    )
    patch_limit = min(
        top.max_patch_bytes, max(64, int(len(patch) * fdp.ConsumeIntInRange(90, 300) / 100))
    )
    changes: dict[str, Any] = {"max_document_bytes": doc_limit, "max_patch_bytes": patch_limit}
    if way == 7:
        tight = gen_limits(fdp)
        if tight is not None:
            changes.update(
                max_depth=tight.max_depth, max_nodes=tight.max_nodes,
                max_transactions=tight.max_transactions,
                max_operations_per_transaction=tight.max_operations_per_transaction,
                max_operations=tight.max_operations,
            )  # fmt: skip
    return Limits(**changes)


def _size(fdp: Any, most: int) -> int:
    """A count up to ``most``, spread evenly over its powers of two: mostly small (fast), now and
    then large enough for a super-linear term to stand out."""
    hi = min(most, 1 << fdp.ConsumeIntInRange(0, most.bit_length()))
    return fdp.ConsumeIntInRange(max(1, hi // 2), max(1, hi))


def _seed(fdp: Any) -> Any:
    """A value for JSON Patches and attributes to work on."""
    way = fdp.ConsumeIntInRange(0, 6)
    size = _size(fdp, 4096)
    if way == 0:
        return [0]
    if way == 1:
        return list(range(size))
    if way == 2:
        return "x" * (4 * size)
    if way == 3:
        return {f"k{i}": i for i in range(size // 4)}
    if way == 4:
        return [{"v": [i, "s"]} for i in range(size // 8)]
    if way == 5:
        out: Any = 0
        for i in range(fdp.ConsumeIntInRange(1, 100)):
            out = [out] if i % 2 else {"d": out}
        return out
    return gen_value(fdp, 0, 4)


def _body_count(fdp: Any, body: int, most: int) -> int:
    return max(1, _size(fdp, most) // max(body, 1))


JP_POINTERS = ["", "/a", "/a/-", "/a/0", "/a/0/0", "/b", "/b/x", "/b/-", "/c", "/c/x", "/a/1"]
JP_NAMES = ["copy", "copy", "move", "move", "add", "remove", "replace", "test"]


def json_patch_recipe(fdp: Any) -> tuple[bytes, bytes]:
    seed = _seed(fdp)
    small = gen_value(fdp, 0, 2)
    body = []
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        name = pick(fdp, JP_NAMES)
        op: dict[str, Any] = {"op": name, "path": pick(fdp, JP_POINTERS)}
        if name in ("copy", "move"):
            op["from"] = pick(fdp, JP_POINTERS)
        elif name in ("add", "replace", "test"):
            op["value"] = (
                pick(fdp, [small, seed, {"a": seed}, [seed]]) if fdp.ConsumeBool() else small
            )
        body.append(op)
    repeat = _body_count(fdp, len(body), 2048)
    groups = _size(fdp, 64)
    per_group = max(1, repeat // groups)
    in_edit = fdp.ConsumeBool()
    doc: dict[str, Any] = {"nuif": 0, "root": {"id": "r", "kind": "k"}}
    if in_edit:
        doc["root"]["attrs"] = {"v": {"a": seed, "b": {}} if fdp.ConsumeBool() else seed}
    else:
        doc["meta"] = {"a": seed, "b": {}} if fdp.ConsumeBool() else {"a": seed}
    ops = []
    for _ in range(groups):
        jp = body * per_group
        if in_edit:
            ops.append({"op": "edit", "id": "r", "attr": "v", "patch": jp})
        else:
            ops.append({"op": "meta", "patch": jp})
    return _text(doc), _patch_text(ops)


def _index(fdp: Any, width: int) -> Callable[[int], int]:
    """An index pattern over ``width`` positions, as a function of the operation's number."""
    way = fdp.ConsumeIntInRange(0, 7)
    stride = fdp.ConsumeIntInRange(1, 997)
    w = max(width, 1)
    return [
        lambda j: 0,
        lambda j: w - 1,
        lambda j: w // 2,
        lambda j: j % w,
        lambda j: (w - 1 - j) % w,
        lambda j: (j * stride) % w,
        lambda j: (w - 1 - j * stride) % w,
        lambda j: (j * 7919 + stride) % w,
    ][way]


def _kids(fdp: Any, width: int, prefix: str = "n") -> list[dict[str, Any]]:
    attrs = fdp.ConsumeIntInRange(0, 2)
    deep = fdp.ConsumeIntInRange(0, 3) == 0
    kids = []
    for i in range(width):
        kid: dict[str, Any] = {"id": f"{prefix}{i}", "kind": "item"}
        if attrs:
            kid["attrs"] = {"t": f"x{i}"} if attrs == 1 else {"t": [i, {"u": "y" * (i % 17)}]}
        if deep:
            kid["children"] = [{"id": f"{prefix}{i}.c", "kind": "leaf"}]
        kids.append(kid)
    return kids


def wide_recipe(fdp: Any) -> tuple[bytes, bytes]:
    width = max(1, _size(fdp, 2048))
    doc = {"nuif": 0, "root": {"id": "root", "kind": "list", "children": _kids(fdp, width)}}
    text = _text(doc)
    body = []
    for _ in range(fdp.ConsumeIntInRange(1, 4)):
        body.append((fdp.ConsumeIntInRange(0, 8), _index(fdp, width), _index(fdp, width)))
    count = max(1, _size(fdp, 2048))
    root_hash = None
    ops: list[dict[str, Any]] = []
    for j in range(count):
        what, at, to = body[j % len(body)]
        nid = f"n{at(j)}"
        if what == 0:
            op: dict[str, Any] = {"op": "move", "id": nid, "parent": "root", "index": to(j)}
        elif what == 1:
            op = {"op": "remove", "id": nid}
        elif what == 2:
            op = {
                "op": "insert",
                "parent": "root",
                "index": to(j),
                "node": {"id": f"x{j}", "kind": "item"},
            }
        elif what == 3:
            op = {"op": "replace", "id": nid, "node": {"id": f"m{j}", "kind": "item"}}
        elif what == 4:
            op = {"op": "set", "id": nid, "attr": "t", "value": [j, {"x": j}]}
        elif what == 5:
            op = {"op": "rename", "id": nid, "to": f"r{j}"}
        elif what == 6:
            op = {"op": "retype", "id": nid, "kind": "other"}
        elif what == 7:
            op = {"op": "move", "id": nid, "parent": f"n{to(j)}"}
        else:
            if root_hash is None:
                root_hash = Session(text).node_hash("root")
            op = {"op": "test", "id": "root", "hash": root_hash}
        ops.append(op)
    return text, _patch_text(ops)


def deep_recipe(fdp: Any) -> tuple[bytes, bytes]:
    levels = fdp.ConsumeIntInRange(1, 60)
    size = max(1, _size(fdp, 2048))
    fan = max(1, _size(fdp, 64))
    groups = [
        {"id": f"g{i}", "kind": "group", "children": _kids(fdp, min(fan, size - i * fan), f"s{i}.")}
        for i in range(max(1, (size + fan - 1) // fan))
    ]
    big = {"id": "big", "kind": "group", "children": groups}
    chain: dict[str, Any] = {"id": f"c{levels}", "kind": "link"}
    for i in range(levels - 1, 0, -1):
        chain = {"id": f"c{i}", "kind": "link", "children": [chain]}
    doc = {"nuif": 0, "root": {"id": "root", "kind": "k", "children": [big, chain]}}
    text = _text(doc)
    target = _index(fdp, levels)
    big_hash = None
    ops: list[dict[str, Any]] = []
    for j in range(max(1, _size(fdp, 1024))):
        what = fdp.ConsumeIntInRange(0, 5) if j % 2 else 0
        if what <= 1:
            ops.append({"op": "move", "id": "big", "parent": f"c{1 + target(j)}"})
            ops.append({"op": "move", "id": "big", "parent": "root", "index": 0})
        elif what == 2:
            if big_hash is None:
                big_hash = Session(text).node_hash("big")
            ops.append({"op": "test", "id": "big", "hash": big_hash})
        elif what == 3:
            ops.append({"op": "move", "id": "c1", "parent": "big"})
            ops.append({"op": "move", "id": "c1", "parent": "root"})
        elif what == 4:
            ops.append({"op": "set", "id": f"c{1 + target(j)}", "attr": "t", "value": j})
        else:  # into its own subtree: refused, after whatever ran before it
            ops.append({"op": "move", "id": "big", "parent": "g0"})
    return text, _patch_text(ops)


def hash_recipe(fdp: Any) -> tuple[bytes, bytes]:
    if fdp.ConsumeBool():
        width = max(1, _size(fdp, 2048))
        doc = {"nuif": 0, "root": {"id": "root", "kind": "list", "children": _kids(fdp, width)}}
    else:
        width = 1
        doc = {
            "nuif": 0,
            "root": {
                "id": "root",
                "kind": "k",
                "children": [{"id": "n0", "kind": "item", "attrs": {"t": "x0", "v": _seed(fdp)}}],
            },
        }
    text = _text(doc)
    s = Session(text)
    target = pick(fdp, ["root", "n0", f"n{width - 1}"])
    h = s.node_hash(target) if target in s else "sha256:" + "0" * 64
    kind = "list" if target == "root" else "item"
    real = fdp.ConsumeIntInRange(0, 7) == 0
    at = _index(fdp, width)
    ops: list[dict[str, Any]] = []
    for j in range(max(1, _size(fdp, 1024))):
        nid = f"n{at(j)}"
        way = fdp.ConsumeIntInRange(0, 3)
        if way == 0:  # no change in bytes, but the caches along the path are dropped
            same = s._nodes[nid].get("attrs", {}).get("t", 0) if nid in s else 0
            ops.append({"op": "set", "id": nid, "attr": "t", "value": j if real else same})
        elif way == 1:
            ops.append({"op": "retype", "id": nid, "kind": "item"})
        elif way == 2:
            ops.append({"op": "test", "id": target, "kind": kind, "hash": h})
        ops.append({"op": "test", "id": target, "hash": h})
    return text, _patch_text(ops)


def big_value_recipe(fdp: Any) -> tuple[bytes, bytes]:
    size = max(1, _size(fdp, 65536))
    way = fdp.ConsumeIntInRange(0, 2)
    big: Any = (
        "x" * size
        if way == 0
        else list(range(size // 6))
        if way == 1
        else {f"k{i}": "v" for i in range(size // 9)}
    )
    doc = {
        "nuif": 0,
        "root": {"id": "r", "kind": "k", "attrs": {"v": big, "w": 0}},
        "meta": {"a": big},
    }
    text = _text(doc)
    carried = "y" * _size(fdp, 2048)
    body = []
    for _ in range(fdp.ConsumeIntInRange(1, 5)):
        way = fdp.ConsumeIntInRange(0, 7)
        body.append(
            [
                {"op": "set", "id": "r", "attr": "v", "value": 0},
                {"op": "set", "id": "r", "attr": "v", "value": carried},
                {"op": "unset", "id": "r", "attr": "v"},
                {
                    "op": "edit",
                    "id": "r",
                    "attr": "v",
                    "patch": [{"op": "replace", "path": "", "value": 1}],
                },
                {
                    "op": "edit",
                    "id": "r",
                    "attr": "w",
                    "patch": [{"op": "replace", "path": "", "value": carried}],
                },
                {"op": "meta", "patch": [{"op": "replace", "path": "/a", "value": 2}]},
                {
                    "op": "meta",
                    "patch": [
                        {"op": "copy", "from": "/a", "path": "/b"},
                        {"op": "remove", "path": "/a"},
                        {"op": "move", "from": "/b", "path": "/a"},
                    ],
                },
                {"op": "retype", "id": "r", "kind": "k2"},
            ][way]
        )
    ops = body * _body_count(fdp, len(body), 2048)
    return text, _patch_text(ops)


def general_recipe(fdp: Any) -> tuple[bytes, bytes, Limits | None]:
    """The patch target's generator (patch as text)."""
    lim, doc, p = document_and_patch(fdp)
    return doc, to_text(fdp, p), lim


RECIPES: dict[str, Callable[[Any], tuple[bytes, bytes]]] = {
    "json patch": json_patch_recipe,
    "wide parent": wide_recipe,
    "moves deeper": deep_recipe,
    "hash tests": hash_recipe,
    "big values": big_value_recipe,
}


def decode(data: bytes) -> Input:
    if data[:1] != b"\x00":
        doc, patch = c.split2(data)
        return Input(doc, patch, None, "text")
    fdp = atheris.FuzzedDataProvider(data[1:])
    way = fdp.ConsumeIntInRange(0, len(RECIPES))
    if way == len(RECIPES):
        doc, patch, lim = general_recipe(fdp)
        return Input(doc, patch, lim, "patch target")
    name = list(RECIPES)[way]
    doc, patch = RECIPES[name](fdp)
    return Input(doc, patch, _limits(fdp, doc, patch), name)


def TestOneInput(data: bytes) -> None:
    check(decode(data))


# ---------------------------------------------------------------------------------------------
# calibration (how PER_BYTE, PER_UNIT and FIXED were chosen)


def _calibration_inputs() -> list[tuple[str, Input]]:
    """The inputs the constants were measured on (see the module docstring)."""
    import importlib.util
    from pathlib import Path

    from _gen import mutate_document

    here = Path(__file__).resolve().parent
    out: list[tuple[str, Input]] = []
    for path in sorted((here / "corpus" / "patch").iterdir()):
        data = path.read_bytes()
        if data[:1] == b"\x00":
            doc, patch, lim = general_recipe(atheris.FuzzedDataProvider(data[1:]))
            out.append((f"patch/{path.name}", Input(doc, patch, lim, "patch seed")))
        else:
            doc, patch = c.split2(data)
            out.append((f"patch/{path.name}", Input(doc, patch, None, "patch seed")))
    for path in sorted((here / "corpus" / "diff").iterdir()):
        data = path.read_bytes()
        lim = None
        if data[:1] == b"\x00":
            fdp = atheris.FuzzedDataProvider(data[1:])
            lim = gen_limits(fdp)
            gen = DocGen(fdp, broken=fdp.ConsumeIntInRange(0, 31) == 0, max_nodes=16)
            a_value = gen.document()
            if (
                isinstance(a_value.get("root"), dict)
                and isinstance(a_value["root"].get("id"), str)
                and not gen.broken
            ):
                b_value = mutate_document(fdp, a_value)
            else:
                b_value = DocGen(fdp, broken=False).document()
            a, b = to_text(fdp, a_value), to_text(fdp, b_value)
        else:
            a, b = c.split2(data)
        d = c.outcome(nc.diff, a, b, limits=lim)
        if d[0] == "ok":
            out.append((f"diff/{path.name}", Input(a, d[1], lim, "diff seed")))
    spec = importlib.util.spec_from_file_location(
        "test_patch_cost", here.parent / "tests" / "core" / "test_patch_cost.py"
    )
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    for name, make in sorted(mod.SHAPES.items()):
        for n in (512, 2048):
            doc, patch = make(n)
            out.append(
                (f"shape {name} n={n}", Input(doc.encode(), patch.encode(), None, "test shape"))
            )
    meta_doubling = json.dumps(
        {"nuif_patch": 0, "transactions": [{"ops": [{"op": "meta", "patch": mod.DOUBLING}]}]}
    )
    for lim in (Limits.MCP, Limits(max_document_bytes=256 * 1024), None):
        out.append(
            (
                f"doubling in meta, {lim and lim.max_document_bytes}",
                Input(mod.SMALL.encode(), meta_doubling.encode(), lim, "test refusal"),
            )
        )
    big = json.dumps(
        {"nuif": 0, "root": {"id": "r", "kind": "k"}, "meta": {"a": list(range(20000))}}
    )
    loop = [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "remove", "path": "/b"}] * 20000
    out.append(
        (
            "copy/remove loop",
            Input(
                big.encode(),
                json.dumps(
                    {"nuif_patch": 0, "transactions": [{"ops": [{"op": "meta", "patch": loop}]}]}
                ).encode(),
                None,
                "test refusal",
            ),
        )
    )
    wide = mod.wide(20000)
    root_hash = Session(wide).node_hash("root")
    ops: list[dict[str, Any]] = []
    for _ in range(2048):
        ops.append({"op": "set", "id": "n0", "attr": "t", "value": "x0"})
        ops.append({"op": "test", "id": "root", "hash": root_hash})
    out.append(
        (
            "root hash tests between edits",
            Input(wide.encode(), mod.patch_of(ops).encode(), None, "test refusal"),
        )
    )
    # the corpora and the shapes hold no deep document: operations at the bottom of a chain of
    # 62 nodes (the deepest the default limits allow below a root), short ids
    names = [a + b for a in "abcdefgh" for b in "abcdefgh"]
    node: dict[str, Any] = {"id": names[61], "kind": "k", "attrs": {"t": 0}}
    for i in range(60, 0, -1):
        node = {"id": names[i], "kind": "k", "children": [node]}
    chain = _text(
        {"nuif": 0, "root": {"id": "r", "kind": "k", "children": [{"id": "x", "kind": "k"}, node]}}
    )
    bottom = names[61]
    moves = [{"op": "move", "id": "x", "parent": p} for _ in range(512) for p in (bottom, "r")]
    sets = [{"op": "set", "id": bottom, "attr": "t", "value": 0}] * 1024
    bottom_hash = Session(chain).node_hash(bottom)
    tests = [
        op
        for _ in range(512)
        for op in (
            {"op": "retype", "id": bottom, "kind": "k"},
            {"op": "test", "id": bottom, "hash": bottom_hash},
        )
    ]
    for name, ops in (("moves", moves), ("sets", sets), ("retypes and hash tests", tests)):
        out.append(
            (
                f"{name} at the bottom of a 62-node chain",
                Input(chain, _patch_text(ops), None, "deep"),
            )
        )
    out.append(("empty", Input(b"", b"", None, "tiny")))
    out.append(
        (
            "smallest",
            Input(
                b'{"nuif":0,"root":{"id":"r","kind":"k"}}',
                b'{"nuif_patch":0,"transactions":[]}',
                None,
                "tiny",
            ),
        )
    )
    return out


def calibrate() -> None:  # pragma: no cover - run by hand
    rows = []
    for name, inp in _calibration_inputs():
        canon = c.outcome(nc.canonicalize, inp.doc, limits=inp.limits)
        canonical = len(canon[1].canonical) if canon[0] == "ok" else 0
        s = c.outcome(Session, inp.doc, limits=inp.limits)
        calls = [
            (
                "apply_patch",
                partial(nc.apply_patch, inp.doc, inp.patch, inverse=True, limits=inp.limits),
            )
        ]
        if s[0] == "ok":
            calls.append(("Session.apply", partial(s[1].apply, inp.patch, inverse=True)))
        for what, fn in calls:
            out, cost = measure(fn)
            n = len(inp.doc) + len(inp.patch)
            rows.append((name, what, n, canonical, cost, out[1] if out[0] == "error" else "ok"))
    print(
        f"{'input':<52} {'call':<13} {'n':>8} {'canon':>8} {'opcodes':>9} {'codec':>9} "
        f"{'levels':>7} {'work':>9} {'shift':>7} {'T/n':>7} {'T/W':>7} outcome"
    )
    for name, what, n, canonical, cost, res in rows:
        t = cost.opcodes + cost.codec_bytes
        print(
            f"{name[:52]:<52} {what:<13} {n:>8} {canonical:>8} {cost.opcodes:>9} "
            f"{cost.codec_bytes:>9} {cost.levels:>7} {cost.work:>9} {cost.shifted:>7} "
            f"{t / max(n, 1):>7.1f} {t / max(cost.work, 1):>7.2f} {res}"
        )
    # the four constants, each observed and then taken about four times
    figures = [
        (n, cost.opcodes + cost.codec_bytes, cost, f"{name} ({what})")
        for name, what, n, _, cost, _ in rows
    ]
    fixed, fixed_at = max((t, at) for n, t, _, at in figures if n <= 128)
    per_byte, byte_at = max(
        (t / n, at) for n, t, k, at in figures if n > 128 and k.work <= n / 8 and k.levels <= n / 4
    )
    per_unit, unit_at = max(
        ((t - per_byte * n) / k.work, at)
        for n, t, k, at in figures
        if n > 128 and k.work > n / 8 and k.levels <= n / 4
    )
    per_level, level_at = max(
        ((t - per_byte * n - per_unit * k.work) / k.levels, at)
        for n, t, k, at in figures
        if n > 128 and k.levels > n / 4
    )
    print(f"\nfixed: {fixed_at}; per byte: {byte_at}; per unit: {unit_at}; per level: {level_at}")
    print(
        f"\nobserved: {fixed} once (inputs of at most 128 bytes); {per_byte:.1f} per input byte "
        f"(inputs with metered work <= n/8 and levels <= n/4); {per_unit:.2f} per metered unit "
        f"beyond that (inputs with more work, levels <= n/4); {per_level:.2f} per level beyond "
        f"both (inputs with more levels)"
    )
    print(
        f"bound in use: PER_BYTE = {PER_BYTE}, PER_LEVEL = {PER_LEVEL}, PER_UNIT = {PER_UNIT}, "
        f"FIXED = {FIXED} (x{PER_BYTE / per_byte:.1f}, x{PER_LEVEL / max(per_level, 1e-9):.1f}, "
        f"x{PER_UNIT / per_unit:.1f}, x{FIXED / fixed:.1f})"
    )
    worst = max(t / allowed(n, k) for n, t, k, _ in figures)
    print(f"largest share of the bound used by a calibration input: {worst:.2f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--calibrate"]:
        calibrate()
    else:
        # run.py's hang guard, also when run by hand; an input below it is not slow (tracing
        # every bytecode makes the largest generated inputs take seconds)
        for flag in ("-timeout", "-report_slow_units"):
            if not any(a.startswith(flag + "=") for a in sys.argv[1:]):
                sys.argv.append(f"{flag}={INPUT_TIMEOUT}")
        c.main(TestOneInput)
