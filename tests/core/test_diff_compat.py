"""The O(n log n) diff gives byte for byte the patch of the diff it replaced.

The replaced algorithm is kept here, and only here, as the oracle (``_oracle_diff``): it
simulated child lists with ``list.index``/``insert`` (quadratic in reordered children), checked
its operation budget once per parent, and tried its patch on a scratch document when cheap
bounds did not rule out passing the node or depth limits.  Its one change: that try goes through
the public ``apply_patch`` instead of a private session constructor, which refuses the same way.
Inputs stay small (the oracle is quadratic); the shapes of test_diff_cost.py run here at sizes
the oracle finishes quickly, with the default and with tightened limits.
"""

from __future__ import annotations

import json
import random
from bisect import bisect_left
from typing import Any

import pytest
from diff_shapes import SHAPES  # type: ignore[import-not-found]
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nuif_core
from benchmarks import corpus
from nuif_core import Limits, NuifError, _codec, apply_patch, diff
from nuif_core._document import hash_bytes, parse_canonical
from nuif_core._errors import escape_pointer
from nuif_core._limits import resolve_limits
from nuif_core._values import json_equal, value_depth

_WRAP_DEPTH = 16  # the slack patch text is written with (nuif_core._patch)


# -- the oracle: the quadratic diff --------------------------------------------------------------


class _TooMany(Exception):
    pass


def _oracle_diff(a: str, b: str, limits: Limits | None = None) -> bytes:
    lim = resolve_limits(limits)
    _, canonical_a, da = parse_canonical(a, lim)
    _, _, db = parse_canonical(b, lim)
    base = hash_bytes(canonical_a)
    per_tx = lim.max_operations_per_transaction
    max_ops = min(lim.max_operations, per_tx * lim.max_transactions)
    try:
        ops = _o_tree_ops(da["root"], db["root"], max_ops)
        ops.extend(_o_meta_ops(da, db))
        if len(ops) > max_ops or not _o_fits(a, da, db, ops, per_tx, lim):
            raise _TooMany
        text = _o_patch_text(base, ops, per_tx, lim)
        if len(text) > lim.max_patch_bytes:
            raise _TooMany
    except _TooMany:
        ops = [{"op": "replace", "id": da["root"]["id"], "node": db["root"]}]
        ops.extend(_o_meta_ops(da, db))
        if len(ops) > max_ops:
            raise NuifError(
                "NUIF_LIMIT_OPERATIONS",
                f"no patch within the limits turns the first document into the second: even "
                f"replacing the root and patching meta takes {len(ops)} operations; the limits "
                f"allow {max_ops}",
            ) from None
        text = _o_patch_text(base, ops, per_tx, lim)
    if len(text) > lim.max_patch_bytes:
        raise NuifError(
            "NUIF_TOO_LARGE",
            f"the patch that turns the first document into the second is {len(text)} bytes; "
            f"the patch limit is {lim.max_patch_bytes} bytes, so apply_patch would refuse it: "
            f"store or send the second document whole instead of a patch",
        )
    return text


def _o_patch_text(base: str, ops: list[dict[str, Any]], per_tx: int, lim: Limits) -> bytes:
    transactions = [{"ops": ops[k : k + per_tx]} for k in range(0, len(ops), per_tx)]
    patch = {"nuif_patch": 0, "base": base, "transactions": transactions}
    return _codec.dumps(patch, lim.max_depth + _WRAP_DEPTH)


def _o_fits(a: str, da: Any, db: Any, ops: list[dict[str, Any]], per_tx: int, lim: Limits) -> bool:
    inserted = sum(_o_count(op["node"]) for op in ops if op["op"] == "insert")
    if _o_count(da["root"]) + inserted <= lim.max_nodes and (
        value_depth(da) + value_depth(db) <= lim.max_depth
    ):
        return True
    transactions = [{"ops": ops[k : k + per_tx]} for k in range(0, len(ops), per_tx)]
    try:
        apply_patch(a, {"nuif_patch": 0, "transactions": transactions}, limits=lim)
    except NuifError as err:
        return err.code not in ("NUIF_LIMIT_NODES", "NUIF_DEPTH")
    return True


def _o_count(node: dict[str, Any]) -> int:
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(n.get("children", ()))
    return count


def _o_meta_ops(da: Any, db: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    _o_json_diff(da.get("meta") or {}, db.get("meta") or {}, "", out)
    return [{"op": "meta", "patch": out}] if out else []


def _o_json_diff(a: Any, b: Any, path: str, out: list[dict[str, Any]]) -> None:
    if type(a) is dict and type(b) is dict:
        for key in sorted(a):
            if key not in b:
                out.append({"op": "remove", "path": path + "/" + escape_pointer(key)})
        for key in sorted(b):
            p = path + "/" + escape_pointer(key)
            if key not in a:
                out.append({"op": "add", "path": p, "value": b[key]})
            elif not json_equal(a[key], b[key]):
                _o_json_diff(a[key], b[key], p, out)
    elif not json_equal(a, b):
        out.append({"op": "replace", "path": path, "value": b})


def _o_index(root: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    nodes: dict[str, Any] = {}
    parent: dict[str, Any] = {}
    order: list[str] = []
    stack: list[tuple[dict[str, Any], str | None]] = [(root, None)]
    while stack:
        node, pid = stack.pop()
        nid = node["id"]
        nodes[nid], parent[nid] = node, pid
        order.append(nid)
        if node.get("children"):
            stack.extend((c, nid) for c in reversed(node["children"]))
    return nodes, parent, order


def _o_holds(order: list[str], parent: dict[str, Any], marked: Any) -> set[str]:
    out: set[str] = set()
    for nid in reversed(order):
        if nid in marked or nid in out:
            out.add(nid)
            p = parent[nid]
            while p is not None and p not in out:
                out.add(p)
                p = parent[p]
    return out


def _o_lis(values: list[int]) -> set[int]:
    tails: list[int] = []
    tail_at: list[int] = []
    back: list[int] = [-1] * len(values)
    for k, v in enumerate(values):
        i = bisect_left(tails, v)
        if i == len(tails):
            tails.append(v)
            tail_at.append(k)
        else:
            tails[i] = v
            tail_at[i] = k
        back[k] = tail_at[i - 1] if i else -1
    out: set[int] = set()
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        out.add(k)
        k = back[k]
    return out


def _o_node_ops(na: Any, nb: Any, out: list[dict[str, Any]]) -> None:
    nid = nb["id"]
    if na["kind"] != nb["kind"]:
        out.append({"op": "retype", "id": nid, "kind": nb["kind"]})
    aa = na.get("attrs") or {}
    ab = nb.get("attrs") or {}
    if aa is ab or (not aa and not ab):
        return
    for name in sorted(aa.keys() | ab.keys()):
        if name not in ab:
            out.append({"op": "unset", "id": nid, "attr": name})
        elif name not in aa or not json_equal(aa[name], ab[name]):
            out.append({"op": "set", "id": nid, "attr": name, "value": ab[name]})


def _o_tree_ops(ra: Any, rb: Any, max_ops: int) -> list[dict[str, Any]]:
    if ra["id"] != rb["id"]:
        return [{"op": "replace", "id": ra["id"], "node": rb}]
    a_nodes, a_parent, a_order = _o_index(ra)
    b_nodes, b_parent, b_order = _o_index(rb)
    alive = a_nodes.keys() & b_nodes.keys()
    out: list[dict[str, Any]] = []
    kids = {nid: [c["id"] for c in n["children"]] for nid, n in a_nodes.items() if "children" in n}
    where = dict(a_parent)
    a_holds = _o_holds(a_order, a_parent, alive)
    late: list[str] = []
    for nid in a_order:
        if nid not in alive and a_parent[nid] in alive:
            if nid in a_holds:
                late.append(nid)
            else:
                kids[a_parent[nid]].remove(nid)
                out.append({"op": "remove", "id": nid})
    b_holds = _o_holds(b_order, b_parent, alive)
    stack = [rb["id"]]
    while stack:
        if len(out) > max_ops:
            raise _TooMany
        pid = stack.pop()
        nb = b_nodes[pid]
        if pid in alive:
            _o_node_ops(a_nodes[pid], nb, out)
        bkids = [c["id"] for c in nb.get("children", ())]
        if not bkids:
            continue
        cur = kids.setdefault(pid, [])
        positions = {c: k for k, c in enumerate(cur)}
        staying = [c for c in bkids if c in positions]
        keep = {staying[k] for k in _o_lis([positions[c] for c in staying])}
        prev: str | None = None
        prev_at: int | None = -1
        for c in bkids:
            if c in keep:
                prev, prev_at = c, None
                continue
            if c in alive:
                old = kids[where[c]]
                j = old.index(c)
                del old[j]
                if old is cur and prev_at is not None and j < prev_at:
                    prev_at -= 1
            if prev is None:
                at = 0
            elif prev_at is None:
                at = cur.index(prev) + 1
            else:
                at = prev_at + 1
            cur.insert(at, c)
            where[c] = pid
            if c in alive:
                out.append({"op": "move", "id": c, "parent": pid, "index": at})
            else:
                node = b_nodes[c]
                if c in b_holds:
                    node = {k: v for k, v in node.items() if k != "children"}
                out.append({"op": "insert", "parent": pid, "index": at, "node": node})
            prev, prev_at = c, at
        for c in reversed(bkids):
            if c in alive or c in b_holds:
                stack.append(c)
    for nid in late:
        out.append({"op": "remove", "id": nid})
    return out


# -- comparing -----------------------------------------------------------------------------------


def _outcome(fn: Any, a: str, b: str, limits: Limits | None) -> tuple[str, Any]:
    try:
        return ("patch", fn(a, b, limits=limits))
    except NuifError as err:
        return ("error", (err.code, err.message, err.pointer))


def assert_same_as_oracle(a: str, b: str, limits: Limits | None = None) -> bytes | None:
    """Both diffs give the same bytes (or the same error); a patch applies to exactly b."""
    new = _outcome(diff, a, b, limits)
    assert new == _outcome(_oracle_diff, a, b, limits)
    if new[0] == "patch":
        expected = nuif_core.canonicalize(b, limits=limits).canonical
        assert apply_patch(a, new[1], limits=limits).canonical == expected
        return new[1]  # type: ignore[no-any-return]
    return None


# -- generated pairs -----------------------------------------------------------------------------

POOL = [f"n{i}" for i in range(24)]
FRESH = [f"x{i}" for i in range(10)]
KINDS = ["box", "text", "row"]
ATTR_NAMES = ["a", "b", "c"]
attr_values = st.one_of(
    st.integers(0, 3), st.booleans(), st.none(), st.text("xyé", max_size=3),
    st.lists(st.integers(0, 2), max_size=2), st.dictionaries(st.sampled_from("pq"), st.integers(0, 2), max_size=2),
)  # fmt: skip


def _node(draw: Any, nid: str) -> dict[str, Any]:
    node: dict[str, Any] = {"id": nid, "kind": draw(st.sampled_from(KINDS))}
    attrs = draw(st.dictionaries(st.sampled_from(ATTR_NAMES), attr_values, max_size=2))
    if attrs:
        node["attrs"] = attrs
    return node


def _tree(draw: Any, ids: list[str], chainy: bool) -> dict[str, Any]:
    """A tree over ``ids`` (the first is the root); ``chainy`` favours deep chains."""
    nodes = [_node(draw, nid) for nid in ids]
    for k in range(1, len(nodes)):
        lo = k - 1 if chainy and draw(st.booleans()) else 0
        parent = nodes[draw(st.integers(lo, k - 1))]
        kids = parent.setdefault("children", [])
        kids.insert(draw(st.integers(0, len(kids))), nodes[k])
    return nodes[0]


@st.composite
def pairs(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two documents with many shared ids, in new places and orders (and sometimes a new root)."""
    chainy = draw(st.booleans())
    ids_a = ["r"] + draw(st.permutations(POOL))[: draw(st.integers(0, len(POOL)))]
    a = {"nuif": 0, "root": _tree(draw, ids_a, chainy)}
    kept = [nid for nid in ids_a[1:] if draw(st.integers(0, 4))]  # most ids persist
    fresh = draw(st.lists(st.sampled_from(FRESH), unique=True, max_size=5))
    ids_b = [draw(st.sampled_from(["r", "r", "r", "r2"]))] + draw(st.permutations(kept + fresh))
    b = {"nuif": 0, "root": _tree(draw, ids_b, chainy)}
    if draw(st.booleans()):
        a["meta"] = draw(st.dictionaries(st.sampled_from("kl"), attr_values, max_size=2))
    if draw(st.booleans()):
        b["meta"] = draw(st.dictionaries(st.sampled_from("kl"), attr_values, max_size=2))
    return a, b


@st.composite
def edits(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A document and an edited copy: long kept runs, a few moves, wraps, inserts, removals."""
    ids = ["r"] + draw(st.permutations(POOL))[: draw(st.integers(1, len(POOL)))]
    a = {"nuif": 0, "root": _tree(draw, ids, draw(st.booleans()))}
    b = json.loads(json.dumps(a))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    fresh = iter(FRESH)
    for _ in range(draw(st.integers(1, 6))):
        nodes = _all_nodes(b["root"])
        parents = [n for n in nodes if n.get("children")]
        if not parents:
            break
        p = rnd.choice(parents)
        kids = p["children"]
        step = rnd.randrange(5)
        if step == 0:  # move one child elsewhere in the list
            kids.insert(rnd.randrange(len(kids)), kids.pop(rnd.randrange(len(kids))))
        elif step == 1:  # move a subtree under another node outside it
            c = kids.pop(rnd.randrange(len(kids)))
            inside = {id(n) for n in _all_nodes(c)}
            target = rnd.choice([n for n in nodes if id(n) not in inside])
            under = target.setdefault("children", [])
            under.insert(rnd.randrange(len(under) + 1), c)
        elif step == 2:  # wrap a run of children in a new node
            i = rnd.randrange(len(kids))
            j = rnd.randrange(i, len(kids)) + 1
            nid = next(fresh, None)
            if nid:
                kids[i:j] = [{"id": nid, "kind": "box", "children": kids[i:j]}]
        elif step == 3:  # remove a child, keeping or dropping its children
            c = kids.pop(rnd.randrange(len(kids)))
            if rnd.random() < 0.5:
                kids.extend(c.get("children", []))
        else:
            kids.reverse()
        if not kids:
            p.pop("children")
    return a, b


def _all_nodes(root: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.get("children", ()))
    return out


def _depth(doc: dict[str, Any]) -> int:
    return value_depth(doc)


@st.composite
def limits_for(draw: Any, a: dict[str, Any], b: dict[str, Any]) -> Limits | None:
    """The default limits, or limits tightened just around what the two documents need."""
    which = draw(st.sampled_from(["default", "ops", "nodes", "depth", "bytes", "transactions"]))
    if which == "default":
        return None
    if which == "ops":
        return Limits(max_operations=draw(st.integers(1, 12)))
    if which == "transactions":
        per_tx, txs = draw(st.integers(1, 3)), draw(st.integers(1, 4))
        return Limits(max_operations_per_transaction=per_tx, max_transactions=txs)
    if which == "nodes":
        na, nb = len(_all_nodes(a["root"])), len(_all_nodes(b["root"]))
        return Limits(max_nodes=max(na, nb) + draw(st.sampled_from([0, 1, 2, 3, na])))
    if which == "depth":
        d = max(_depth(a), _depth(b))
        return Limits(max_depth=min(128, d + draw(st.sampled_from([0, 1, 2, 4, 8, d]))))
    return Limits(max_patch_bytes=draw(st.integers(150, 3000)))


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data())
def test_unrelated_pairs_give_the_oracles_patch(data):
    a, b = data.draw(pairs())
    limits = data.draw(limits_for(a, b))
    assert_same_as_oracle(json.dumps(a), json.dumps(b), limits)


@SETTINGS
@given(st.data())
def test_edited_copies_give_the_oracles_patch(data):
    a, b = data.draw(edits())
    limits = data.draw(limits_for(a, b))
    assert_same_as_oracle(json.dumps(a), json.dumps(b), limits)
    assert_same_as_oracle(json.dumps(b), json.dumps(a), limits)


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize(
    "limits",
    [None, Limits(max_operations=40), Limits(max_patch_bytes=4000)],
    ids=["default", "ops", "bytes"],
)
def test_the_worst_shapes_give_the_oracles_patch(name, limits):
    for n in (60, 400):
        a, b = SHAPES[name](n)
        assert_same_as_oracle(json.dumps(a), json.dumps(b), limits)


def test_the_deep_shapes_under_tight_limits_give_the_oracles_patch():
    # depth and node limits just above what each document needs: the minimal patch passes
    # through deeper or larger intermediate documents, and the exact check must agree with
    # the oracle's trial application
    for name in ("deep_chains", "wide_deep", "dead_holding", "shells", "deep_carry"):
        a, b = SHAPES[name](300)
        d = max(_depth(a), _depth(b))
        na, nb = len(_all_nodes(a["root"])), len(_all_nodes(b["root"]))
        for limits in (
            Limits(max_depth=d),
            Limits(max_depth=min(128, d + 6)),
            Limits(max_nodes=max(na, nb)),
            Limits(max_nodes=max(na, nb) + 3),
        ):
            assert_same_as_oracle(json.dumps(a), json.dumps(b), limits)


@pytest.mark.parametrize("seed", range(4))
def test_the_benchmark_corpus_gives_the_oracles_patch(seed):
    a = corpus.ui_nodes(1500, seed)
    b = corpus.variant(a, seed)
    assert assert_same_as_oracle(a, b) is not None
    assert_same_as_oracle(b, a)
    # a heavier edit: every other top-level subtree moved to the end, in reverse
    doc = json.loads(b)
    kids = doc["root"]["children"]
    doc["root"]["children"] = kids[::2] + kids[1::2][::-1]
    assert_same_as_oracle(a, json.dumps(doc))
    assert_same_as_oracle(a, json.dumps(doc), Limits(max_operations=30))


def _edge_case(rnd: random.Random) -> tuple[dict[str, Any], dict[str, Any], Limits]:
    """A document, an edit of it that lifts children out of removed parents, wraps and moves
    subtrees deeper, and a node or depth limit just above what the two documents need: the
    minimal patch often passes through a larger or deeper document than either."""
    ids = ["r"] + [f"n{i}" for i in range(rnd.randrange(4, 30))]
    nodes = [{"id": nid, "kind": "k"} for nid in ids]
    for k in range(1, len(nodes)):
        p = nodes[k - 1] if rnd.random() < 0.6 else nodes[rnd.randrange(k)]
        p.setdefault("children", []).append(nodes[k])
    a = {"nuif": 0, "root": nodes[0]}
    b = json.loads(json.dumps(a))
    fresh = (f"x{i}" for i in range(100))
    for _ in range(rnd.randrange(1, 9)):
        all_nodes = _all_nodes(b["root"])
        parents = [(p, c) for p in all_nodes for c in p.get("children", ())]
        if not parents:
            break
        p, c = rnd.choice(parents)
        step = rnd.choice((0, 1, 2, 2, 3, 3))
        up = _ancestors(b["root"], p)
        if step == 3 and up:  # move c up, under an ancestor of its parent
            p["children"].remove(c)
            t = rnd.choice(up)
            t["children"].insert(rnd.randrange(len(t["children"]) + 1), c)
        elif step == 0:  # remove c, its children take its place
            i = p["children"].index(c)
            p["children"][i : i + 1] = c.get("children", [])
        elif step == 1:  # wrap c in a chain of new nodes
            i = p["children"].index(c)
            for _ in range(rnd.randrange(1, 4)):
                c = {"id": next(fresh), "kind": "k", "children": [c]}
            p["children"][i] = c
        elif step == 2:  # move c under the deepest of a few nodes outside it
            inside = {id(n) for n in _all_nodes(c)}
            deep = _depths(b["root"])
            targets = [n for n in all_nodes if id(n) not in inside]
            p["children"].remove(c)
            t = max(rnd.sample(targets, min(3, len(targets))), key=lambda n: deep[id(n)])
            t.setdefault("children", []).insert(0, c)
        if not p.get("children"):
            p.pop("children", None)
    if rnd.random() < 0.5:
        na, nb = len(_all_nodes(a["root"])), len(_all_nodes(b["root"]))
        return a, b, Limits(max_nodes=max(na, nb) + rnd.randrange(2))
    return a, b, Limits(max_depth=min(128, max(_depth(a), _depth(b)) + rnd.randrange(2)))


def _ancestors(root: dict[str, Any], target: dict[str, Any]) -> list[dict[str, Any]]:
    """The proper ancestors of ``target`` (a node of the tree at ``root``)."""
    stack: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [(root, [])]
    while stack:
        n, path = stack.pop()
        if n is target:
            return path
        stack.extend((c, path + [n]) for c in n.get("children", ()))
    return []


def _depths(root: dict[str, Any]) -> dict[int, int]:
    out, stack = {}, [(root, 1)]
    while stack:
        n, d = stack.pop()
        out[id(n)] = d
        stack.extend((c, d + 1) for c in n.get("children", ()))
    return out


def test_limit_edges_give_the_oracles_patch(monkeypatch):
    from nuif_core import _diff

    decided: list[tuple[str, bool]] = []
    fits = _diff._Plan.fits

    def recording(self: Any, lim: Limits) -> bool:
        answer = fits(self, lim)
        decided.append(("nodes" if lim.max_nodes < Limits.DEFAULT.max_nodes else "depth", answer))
        return answer

    monkeypatch.setattr(_diff._Plan, "fits", recording)
    rnd = random.Random(14)
    for _ in range(400):
        a, b, limits = _edge_case(rnd)
        assert_same_as_oracle(json.dumps(a), json.dumps(b), limits)
    # the generator reaches both answers of the exact node check and of the exact depth check
    for kind in ("nodes", "depth"):
        assert decided.count((kind, False)) >= 10 and decided.count((kind, True)) >= 100
