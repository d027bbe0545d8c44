"""Semantic diff (NUIF-0 §5): the patch that turns document ``a`` into document ``b``.

Ids are identity.  A node whose id is in both documents *persists* (its changes become
``retype``/``set``/``unset`` and, if it changed place, ``move``); a node only in ``a`` is
removed, a node only in ``b`` is inserted.  A node whose id changed is a different node, so
``rename`` is never emitted.  A root whose id changed is a different document: one ``replace``
of the root.  The algorithm (docs/patch.md has the long form):

1. index both trees; mark the persisting ids;
2. remove every dead subtree (a topmost node only in ``a``) that holds no persisting node;
3. walk ``b`` in pre-order; for each persisting or newly inserted parent, emit the node's own
   changes, then place its children: the persisting children that already sit under it and
   keep their relative order (a longest increasing subsequence of their positions) stay; every
   other child is moved (persisting) or inserted (new: the whole subtree at once when it holds
   no persisting node, else a childless shell whose children are placed when the walk gets
   there) right after the previous child;
4. remove the remaining dead subtrees (their persisting descendants have been moved out);
5. ``meta``: an RFC 6902 diff of the two ``meta`` objects (recursive into objects, whole values
   otherwise).

Positions are tracked on a light simulation (lists of ids), so every index is exact for the
document as it is when the operation runs.  The result is deterministic: it depends only on the
canonical forms of ``a`` and ``b``.  When the minimal patch does not fit the patch limits
(operations per transaction are split into transactions; too many operations or transactions
in all), the diff falls back to a ``replace`` of the root plus the ``meta`` operation.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from . import _codec
from ._document import Text, hash_bytes, parse_canonical
from ._errors import NuifError, escape_pointer
from ._jsonpatch import json_equal, value_depth
from ._limits import Limits
from ._patch import _WRAP_DEPTH, Session, _limits

__all__ = ["diff"]


class _TooMany(Exception):
    pass


def diff(a: Text, b: Text, *, limits: Limits | None = None) -> bytes:
    """The canonical text of a patch that turns document ``a`` into document ``b``.

    ``base`` is the hash of ``a``; applying the patch to ``a`` yields exactly the canonical
    text of ``b``.  ``diff(a, a)`` (or any ``b`` with the same canonical text) has an empty
    ``transactions`` array.
    """
    lim = _limits(limits)
    _, canonical_a, da = parse_canonical(a, lim)
    _, _, db = parse_canonical(b, lim)
    base = hash_bytes(canonical_a)
    per_tx = lim.max_operations_per_transaction
    max_ops = min(lim.max_operations, per_tx * lim.max_transactions)
    text = None
    try:
        ops = _tree_ops(da["root"], db["root"], max_ops)
        ops.extend(_meta_ops(da, db))
        if len(ops) > max_ops or not _fits(a, da, db, ops, per_tx, lim):
            raise _TooMany
        text = _patch_text(base, ops, per_tx, lim)
        if len(text) > lim.max_patch_bytes:  # many small edits can outweigh the new root
            raise _TooMany
    except _TooMany:
        ops = [{"op": "replace", "id": da["root"]["id"], "node": db["root"]}]
        ops.extend(_meta_ops(da, db))
        if len(ops) > max_ops:  # the root and meta both change, and one operation is allowed
            raise NuifError(
                "NUIF_LIMIT_OPERATIONS",
                f"no patch within the limits turns the first document into the second: even "
                f"replacing the root and patching meta takes {len(ops)} operations; the limits "
                f"allow {max_ops}",
            ) from None
        text = _patch_text(base, ops, per_tx, lim)
    if len(text) > lim.max_patch_bytes:
        # apply_patch would refuse it (NUIF-0 §4): say so here rather than hand out a patch
        # that cannot be applied
        raise NuifError(
            "NUIF_TOO_LARGE",
            f"the patch that turns the first document into the second is {len(text)} bytes; "
            f"the patch limit is {lim.max_patch_bytes} bytes, so apply_patch would refuse it: "
            f"store or send the second document whole instead of a patch",
        )
    return text


def _patch_text(base: str, ops: list[dict[str, Any]], per_tx: int, lim: Limits) -> bytes:
    transactions = [{"ops": ops[k : k + per_tx]} for k in range(0, len(ops), per_tx)]
    patch = {"nuif_patch": 0, "base": base, "transactions": transactions}
    return _codec.dumps(patch, lim.max_depth + _WRAP_DEPTH)


def _fits(
    a: Text, da: dict[str, Any], db: dict[str, Any], ops: list[dict[str, Any]], per_tx: int,
    lim: Limits,
) -> bool:
    """Whether the minimal patch applies within the node and depth limits.

    The document only equals ``b`` at the end: a dead subtree that holds persisting nodes is
    removed last, and a persisting node is moved into place with the ``a``-descendants it still
    carries.  In between, the document can have up to ``|a|`` + the inserted nodes, and nest up
    to the depth of ``b`` plus the height of ``a``.  When those bounds fit (nearly always), so
    does every intermediate state; otherwise the patch is tried on a scratch session.
    """
    inserted = sum(_count(op["node"]) for op in ops if op["op"] == "insert")
    if _count(da["root"]) + inserted <= lim.max_nodes and (
        value_depth(da) + value_depth(db) <= lim.max_depth
    ):
        return True
    transactions = [{"ops": ops[k : k + per_tx]} for k in range(0, len(ops), per_tx)]
    try:
        Session._scratch(a, lim).apply({"nuif_patch": 0, "transactions": transactions})
    except NuifError as err:
        # any other refusal is not about the limits (e.g. a number the reader refuses, see
        # docs/canonical-json.md): keep the minimal patch, as without this check
        return err.code not in ("NUIF_LIMIT_NODES", "NUIF_DEPTH")
    return True


def _count(node: dict[str, Any]) -> int:
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(n.get("children", ()))
    return count


def _meta_ops(da: dict[str, Any], db: dict[str, Any]) -> list[dict[str, Any]]:
    ma = da.get("meta") or {}
    mb = db.get("meta") or {}
    out: list[dict[str, Any]] = []
    _json_diff(ma, mb, "", out)
    return [{"op": "meta", "patch": out}] if out else []


def _json_diff(a: Any, b: Any, path: str, out: list[dict[str, Any]]) -> None:
    """RFC 6902 operations turning ``a`` into ``b`` (objects recursively, other values whole)."""
    if type(a) is dict and type(b) is dict:
        for key in sorted(a):
            if key not in b:
                out.append({"op": "remove", "path": path + "/" + escape_pointer(key)})
        for key in sorted(b):
            p = path + "/" + escape_pointer(key)
            if key not in a:
                out.append({"op": "add", "path": p, "value": b[key]})
            elif not json_equal(a[key], b[key]):
                _json_diff(a[key], b[key], p, out)
    elif not json_equal(a, b):
        out.append({"op": "replace", "path": path, "value": b})


def _index(root: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, str | None], list[str]]:
    """id → node, id → parent id, and the ids in pre-order."""
    nodes: dict[str, dict[str, Any]] = {}
    parent: dict[str, str | None] = {}
    order: list[str] = []
    stack: list[tuple[dict[str, Any], str | None]] = [(root, None)]
    while stack:
        node, pid = stack.pop()
        nid = node["id"]
        nodes[nid] = node
        parent[nid] = pid
        order.append(nid)
        children = node.get("children")
        if children:
            stack.extend((c, nid) for c in reversed(children))
    return nodes, parent, order


def _holds(order: list[str], parent: dict[str, str | None], marked: Any) -> set[str]:
    """Ids whose subtree (themselves included) holds an id in ``marked``."""
    out: set[str] = set()
    for nid in reversed(order):  # children before parents
        if nid in marked or nid in out:
            out.add(nid)
            p = parent[nid]
            while p is not None and p not in out:
                out.add(p)
                p = parent[p]
    return out


def _lis(values: list[int]) -> set[int]:
    """Indexes into ``values`` of one longest strictly increasing subsequence (deterministic)."""
    tails: list[int] = []  # values
    tail_at: list[int] = []  # indexes of those values
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


def _node_ops(na: dict[str, Any], nb: dict[str, Any], out: list[dict[str, Any]]) -> None:
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


def _tree_ops(ra: dict[str, Any], rb: dict[str, Any], max_ops: int) -> list[dict[str, Any]]:
    if ra["id"] != rb["id"]:
        return [{"op": "replace", "id": ra["id"], "node": rb}]
    a_nodes, a_parent, a_order = _index(ra)
    b_nodes, b_parent, b_order = _index(rb)
    alive = a_nodes.keys() & b_nodes.keys()
    out: list[dict[str, Any]] = []

    # the simulation: current children (ids) of each parent, current parent of each id
    kids: dict[str, list[str]] = {
        nid: [c["id"] for c in n["children"]] for nid, n in a_nodes.items() if "children" in n
    }
    where: dict[str, str | None] = dict(a_parent)

    # dead subtrees: topmost nodes only in a (their parent persists)
    a_holds = _holds(a_order, a_parent, alive)
    late: list[str] = []
    for nid in a_order:
        if nid not in alive and a_parent[nid] in alive:
            if nid in a_holds:
                late.append(nid)  # remove after its persisting descendants moved out
            else:
                kids[a_parent[nid]].remove(nid)  # type: ignore[index]
                out.append({"op": "remove", "id": nid})

    b_holds = _holds(b_order, b_parent, alive)
    stack = [rb["id"]]
    while stack:
        if len(out) > max_ops:
            raise _TooMany
        pid = stack.pop()
        nb = b_nodes[pid]
        if pid in alive:
            _node_ops(a_nodes[pid], nb, out)
        bkids = [c["id"] for c in nb.get("children", ())]
        if not bkids:
            continue
        cur = kids.setdefault(pid, [])
        positions = {c: k for k, c in enumerate(cur)}
        staying = [c for c in bkids if c in positions]
        keep = {staying[k] for k in _lis([positions[c] for c in staying])}
        prev: str | None = None
        prev_at: int | None = -1  # index of prev in cur, None when unknown
        for c in bkids:
            if c in keep:
                prev, prev_at = c, None
                continue
            if c in alive:
                old = kids[where[c]]  # type: ignore[index]
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
