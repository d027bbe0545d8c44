"""Semantic diff (NUIF-0 §5.9, docs/spec/nuif-0.1-patches.md): the patch that turns ``a`` into
``b``.

This is not a public API (``nuif_core`` exports ``diff``).  It sits above ``apply_patch``
(``_apply``), which it runs to check a patch it made; the session's inverse patches fall back to
it, through :func:`~._session.install_diff_back` (called at the end of this module).

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

Every index is exact for the document as it is when the operation runs, without simulating
child lists (see ``_Plan._place``): a parent's children are placed in one pass over its current
and final child lists.  The result is deterministic: it depends only on the canonical forms of
``a`` and ``b``.

Cost (n = nodes + bytes of both documents): O(n log n) time, the log from the longest
increasing subsequences; O(n) memory.  The patch limits are a budget checked after every
emitted operation: once the minimal patch has more operations than the limits allow, or a
lower bound of its text length passes ``max_patch_bytes``, the walk stops and the diff falls
back to a ``replace`` of the root plus the ``meta`` operation.  Whether the minimal patch stays
within the node and depth limits at every step is computed, not tried (``_Plan.fits``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from itertools import filterfalse, repeat
from operator import itemgetter
from typing import Any, cast

from . import _codec, _session
from ._apply import apply_patch
from ._document import Text, hash_bytes, parse_canonical
from ._errors import NuifError, escape_pointer
from ._limits import Limits, resolve_limits
from ._patch_read import WRAP_DEPTH
from ._values import json_equal, value_depth

__all__ = ["diff"]

_ID = itemgetter("id")


class _TooMany(Exception):
    """The minimal patch does not fit the limits: use the fallback."""


def _size(template: dict[str, Any], slack: int = 0) -> int:
    return len(_codec.dumps(template, 4)) - slack


# Canonical lengths of each operation without its strings and values (ids, kinds and attribute
# names are ASCII that RFC 8785 never escapes, NUIF-0 §2): with them, a lower bound of the patch
# text's length is kept while operations are emitted.
_EMPTY_PATCH = _size({"base": "sha256:" + "0" * 64, "nuif_patch": 0, "transactions": []})
_MOVE = _size({"op": "move", "id": "", "parent": "", "index": 0}, 1)
_REMOVE = _size({"op": "remove", "id": ""})
_RETYPE = _size({"op": "retype", "id": "", "kind": ""})
_UNSET = _size({"op": "unset", "id": "", "attr": ""})
_SET = _size({"op": "set", "id": "", "attr": "", "value": 0}, 1)
_INSERT = _size({"op": "insert", "parent": "", "index": 0, "node": 0}, 2)
_NODE = _size({"id": "", "kind": ""})
_ATTRS = len(b',"attrs":{}')


def _value_floor(value: Any) -> int:
    """A lower bound of the canonical length of ``value`` (a string's UTF-8 is at least one byte
    per code point, plus its quotes)."""
    return len(value) + 2 if type(value) is str else 1


def diff(a: Text, b: Text, *, limits: Limits | None = None) -> bytes:
    """The canonical text of a patch that turns document ``a`` into document ``b``.

    ``base`` is the hash of ``a``; applying the patch to ``a`` yields exactly the canonical
    text of ``b``.  ``diff(a, a)`` (or any ``b`` with the same canonical text) has an empty
    ``transactions`` array.
    """
    return _diff(a, b, limits)[0]


def _diff(a: Text, b: Text, limits: Limits | None) -> tuple[bytes, int]:
    """``diff``, and the work it did: a count of the elementary steps of its own loops (nodes
    indexed, child slots scanned, subsequence steps, operations, union-find steps), which the
    tests compare across input sizes."""
    lim = resolve_limits(limits)
    _, canonical_a, da = parse_canonical(a, lim)
    _, canonical_b, db = parse_canonical(b, lim)
    base = hash_bytes(canonical_a)
    per_tx = lim.max_operations_per_transaction
    max_ops = min(lim.max_operations, per_tx * lim.max_transactions)
    work = [0]
    meta = _meta_ops(da, db, work)
    plan = _Plan(max_ops - len(meta), lim.max_patch_bytes, work)
    try:
        ops = plan.tree_ops(da["root"], db["root"])
        ops.extend(meta)
        if len(ops) > max_ops or not plan.fits(lim):  # (a new root is not emitted under budget)
            raise _TooMany
        text = _patch_text(base, ops, per_tx, lim)
        if len(text) > lim.max_patch_bytes:  # many small edits can outweigh the new root
            raise _TooMany
        if len(canonical_a) + len(canonical_b) > lim.max_document_bytes and not _applies(
            canonical_a, text, lim
        ):
            raise _TooMany
    except _TooMany:
        ops = [{"op": "replace", "id": da["root"]["id"], "node": db["root"]}]
        ops.extend(meta)
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
        raise NuifError.too_large(
            f"the patch that turns the first document into the second is {len(text)} bytes",
            lim.max_patch_bytes,
            limit_name="the patch limit",
            advice=", so apply_patch would refuse it: store or send the second document whole "
            "instead of a patch",
        )
    return text, work[0]


def _applies(canonical_a: bytes, text: bytes, lim: Limits) -> bool:
    """Whether the minimal patch applies within the engine's limits on the way (docs/patch.md,
    "Cost").  Its inserts run before its last removals, so an intermediate document can hold
    up to ``|a|`` + what is inserted: when the two texts together pass ``max_document_bytes``,
    the patch is applied once on a scratch session (its cost is bounded like any patch's) and a
    refusal (size, work, nodes, depth) makes the diff fall back to replacing the root."""
    try:
        apply_patch(canonical_a, text, limits=lim)
    except NuifError:
        return False
    return True


def _patch_text(base: str, ops: list[dict[str, Any]], per_tx: int, lim: Limits) -> bytes:
    transactions = [{"ops": ops[k : k + per_tx]} for k in range(0, len(ops), per_tx)]
    patch = {"nuif_patch": 0, "base": base, "transactions": transactions}
    return _codec.dumps(patch, lim.max_depth + WRAP_DEPTH)


# ---------------------------------------------------------------------------------------------
# meta


def _meta_ops(da: dict[str, Any], db: dict[str, Any], work: list[int]) -> list[dict[str, Any]]:
    ma = da.get("meta") or {}
    mb = db.get("meta") or {}
    out: list[dict[str, Any]] = []
    _json_diff(ma, mb, [], out, work)
    return [{"op": "meta", "patch": out}] if out else []


def _pointer(keys: list[str], key: str) -> str:
    return "".join("/" + escape_pointer(k) for k in keys) + "/" + escape_pointer(key)


def _json_diff(a: Any, b: Any, keys: list[str], out: list[dict[str, Any]], work: list[int]) -> None:
    """RFC 6902 operations turning ``a`` into ``b`` (objects recursively, other values whole).

    Linear: two objects are compared by recursing into them (never also as whole values, which
    would compare a value once per enclosing object), and any other pair of values with one
    ``json_equal``.  ``keys`` is the path so far, written out only for an emitted operation (the
    patch carries it anyway).  The recursion follows nested objects, so its depth is below the
    document depth limit.
    """
    work[0] += len(a) + len(b)
    for key in sorted(a):
        if key not in b:
            out.append({"op": "remove", "path": _pointer(keys, key)})
    for key in sorted(b):
        if key not in a:
            out.append({"op": "add", "path": _pointer(keys, key), "value": b[key]})
            continue
        x, y = a[key], b[key]
        if type(x) is dict and type(y) is dict:
            keys.append(key)
            _json_diff(x, y, keys, out, work)
            keys.pop()
        elif not json_equal(x, y):
            out.append({"op": "replace", "path": _pointer(keys, key), "value": y})


# ---------------------------------------------------------------------------------------------
# the tree


def _index(
    root: dict[str, Any],
) -> tuple[dict[str, dict[str, Any]], dict[str, str | None], list[str]]:
    """id → node, id → parent id, and the ids in pre-order (the per-child work is C-level)."""
    parent: dict[str, str | None] = {root["id"]: None}
    seq: list[dict[str, Any]] = []
    stack = [root]
    pop, push, visit, link = stack.pop, stack.extend, seq.append, parent.update
    while stack:
        node = pop()
        visit(node)
        children = node.get("children")
        if children:
            link(zip(map(_ID, children), repeat(node["id"]), strict=False))  # repeat() is endless
            push(reversed(children))
    order = list(map(_ID, seq))
    return dict(zip(order, seq, strict=True)), parent, order


def _holds(parent: dict[str, str | None], marked: Any, work: list[int]) -> set[str]:
    """Ids whose subtree (themselves included) holds an id in ``marked``: the marked ids and
    their ancestors, one tree level per round (C-level set operations; each id joins once, and
    there are fewer rounds than the depth limit allows tree levels)."""
    out = set(marked)
    steps = len(out)
    # the frontier holds None only until it is discarded, before each map
    up = cast("Callable[[str | None], str | None]", parent.__getitem__)
    frontier = set(map(up, out))
    while frontier:
        frontier.discard(None)
        frontier -= out
        out |= frontier
        steps += len(frontier)
        frontier = set(map(up, frontier))
    work[0] += steps
    return out


def _lis(values: list[int]) -> set[int]:
    """Indexes into ``values`` of one longest strictly increasing subsequence (deterministic):
    O(m log m) for m values (patience sorting)."""
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


class _Plan:
    """The minimal patch's tree operations, emitted under a budget, and what ``fits`` needs to
    decide whether every intermediate document stays within the node and depth limits."""

    def __init__(self, max_ops: int, max_bytes: int, work: list[int]) -> None:
        self.max_ops = max_ops
        self.max_bytes = max_bytes
        self.work = work
        self.out: list[dict[str, Any]] = []
        self.floor = _EMPTY_PATCH  # a lower bound of the patch text's length
        self.inserted = 0  # nodes inserted
        self.moves: list[tuple[str, int]] = []  # (id, tree depth it is moved to), in order
        self.early: list[str] = []  # dead subtrees removed first

    def _emit(self, op: dict[str, Any], size: int) -> None:
        out = self.out
        out.append(op)
        self.floor += size + 1  # the operation and its comma (or its transaction's brackets)
        if len(out) > self.max_ops or self.floor > self.max_bytes:
            raise _TooMany

    def tree_ops(self, ra: dict[str, Any], rb: dict[str, Any]) -> list[dict[str, Any]]:
        if ra["id"] != rb["id"]:
            self.out = [{"op": "replace", "id": ra["id"], "node": rb}]
            return self.out
        work = self.work
        a_nodes, a_parent, a_order = _index(ra)
        b_nodes, b_parent, b_order = _index(rb)
        work[0] += len(a_order) + len(b_order)
        alive = a_nodes.keys() & b_nodes.keys()
        self.a_nodes, self.a_parent, self.a_order = a_nodes, a_parent, a_order
        #: a-nodes no longer under their a-parent: the dead subtrees removed first, and the
        #: persisting nodes moved so far (each persisting node moves at most once)
        gone: set[str] = set()

        # dead subtrees: topmost nodes only in a (their parent persists)
        a_holds = _holds(a_parent, alive, work)
        late: list[str] = []
        dead = a_nodes.keys() - alive
        work[0] += len(a_order)
        for nid in filter(dead.__contains__, a_order):  # in pre-order
            if a_parent[nid] in alive:
                if nid in a_holds:
                    late.append(nid)  # remove after its persisting descendants moved out
                else:
                    gone.add(nid)
                    self.early.append(nid)
                    self._emit({"op": "remove", "id": nid}, _REMOVE + len(nid))

        b_holds = _holds(b_parent, alive, work)
        stack: list[tuple[str, int]] = [(rb["id"], 1)]
        while stack:
            pid, depth = stack.pop()
            nb = b_nodes[pid]
            if pid in alive:
                self._node_ops(a_nodes[pid], nb)
            children = nb.get("children")
            if not children:
                continue
            bkids = list(map(_ID, children))
            self._place(pid, depth + 1, bkids, alive, gone, a_nodes, b_nodes, b_holds)
            for c in reversed(bkids):
                if c in alive or c in b_holds:
                    stack.append((c, depth + 1))

        for nid in late:
            self._emit({"op": "remove", "id": nid}, _REMOVE + len(nid))
        return self.out

    def _place(
        self,
        pid: str,
        depth: int,
        bkids: list[str],
        alive: Any,
        gone: set[str],
        a_nodes: dict[str, dict[str, Any]],
        b_nodes: dict[str, dict[str, Any]],
        b_holds: set[str],
    ) -> None:
        """Emit the operations that give ``pid`` the children ``bkids`` (in that order).

        ``cur`` is ``pid``'s current child list: its a-children still under it (nothing else
        can be there yet, as children are only placed under a parent when the walk reaches it).
        The kept children (a longest increasing subsequence) do not move; every other child is
        placed right after the previous one, so when child *i* is placed, the children before
        it are: the *placed* ones that are not kept (all before it, in b's order), and the
        entries of ``cur`` up to the last kept child (the *anchor*), less those already moved
        away.  That count is its index, kept with one pass over ``cur`` (the anchor only moves
        forward) instead of simulating the list.
        """
        work = self.work
        if pid in alive:
            cur = list(filterfalse(gone.__contains__, map(_ID, a_nodes[pid].get("children", ()))))
            if cur == bkids:  # the same children in the same order: all kept
                work[0] += 2 * len(cur)
                return
        else:
            cur = []
        pos = dict(zip(cur, range(len(cur)), strict=True))
        # positions in cur of the children that stay under pid, in b's order
        staying = [k for k in map(pos.get, bkids) if k is not None]
        keep = {cur[staying[k]] for k in _lis(staying)}
        m = len(staying)
        work[0] += len(bkids) + 2 * len(cur) + m * m.bit_length()
        away = bytearray(len(cur))  # entries of cur after the anchor that were moved away
        anchor = -1  # position in cur of the last kept child so far
        away_before = 0  # entries of cur up to the anchor that were moved away
        placed = 0
        emit = self._emit
        for c in bkids:
            if c in keep:
                k = pos[c]
                away_before += away.count(1, anchor + 1, k)
                anchor = k
                continue
            persisting = c in alive
            if persisting:
                j = pos.get(c)
                if j is not None:  # it leaves its place in cur
                    if j < anchor:
                        away_before += 1
                    else:
                        away[j] = 1
                gone.add(c)
            at = placed + anchor + 1 - away_before
            placed += 1
            if persisting:
                self.moves.append((c, depth))
                emit(
                    {"op": "move", "id": c, "parent": pid, "index": at},
                    _MOVE + len(c) + len(pid) + len(str(at)),
                )
            else:
                node = b_nodes[c]
                if c in b_holds:  # a shell: its children are placed when the walk gets there
                    node = {k: v for k, v in node.items() if k != "children"}
                count, size = self._inserted(node)
                self.inserted += count
                emit(
                    {"op": "insert", "parent": pid, "index": at, "node": node},
                    _INSERT + len(pid) + len(str(at)) + size,
                )
        work[0] += len(cur)  # the anchor's scans of ``away``

    def _inserted(self, node: dict[str, Any]) -> tuple[int, int]:
        """Nodes in an inserted subtree, and a lower bound of its canonical length."""
        count = size = 0
        stack = [node]
        while stack:
            n = stack.pop()
            count += 1
            size += _NODE + len(n["id"]) + len(n["kind"])
            attrs = n.get("attrs")
            if attrs:
                size += _ATTRS
                for name, value in attrs.items():
                    size += len(name) + 3 + _value_floor(value)
            children = n.get("children")
            if children:
                stack.extend(children)
        self.work[0] += count
        return count, size

    def _node_ops(self, na: dict[str, Any], nb: dict[str, Any]) -> None:
        nid = nb["id"]
        if na["kind"] != nb["kind"]:
            kind = nb["kind"]
            self._emit({"op": "retype", "id": nid, "kind": kind}, _RETYPE + len(nid) + len(kind))
        aa = na.get("attrs") or {}
        ab = nb.get("attrs") or {}
        if aa is ab or (not aa and not ab):
            return
        names = sorted(aa.keys() | ab.keys())
        self.work[0] += len(names)
        for name in names:
            if name not in ab:
                self._emit({"op": "unset", "id": nid, "attr": name}, _UNSET + len(nid) + len(name))
            elif name not in aa or not json_equal(aa[name], ab[name]):
                value = ab[name]
                self._emit(
                    {"op": "set", "id": nid, "attr": name, "value": value},
                    _SET + len(nid) + len(name) + _value_floor(value),
                )

    # -- limits of the intermediate documents ------------------------------------------------

    def fits(self, lim: Limits) -> bool:
        """Whether the minimal patch applies within the node and depth limits.

        The document only equals ``b`` at the end: a dead subtree that holds persisting nodes is
        removed last, and a persisting node is moved into place with the ``a``-descendants it
        still carries.  Nodes: the most the document holds is ``|a|`` less the dead subtrees
        removed first plus every inserted node (all inserts run before the last removals).
        Depth: inserted nodes, ``set`` values and kinds land where they are in ``b``, at most
        as deep as ``b``; only a move can nest deeper (``_moves_fit``).  Both are exact, so the
        patch is never tried on a scratch document.
        """
        if self.inserted:
            count = len(self.a_order) + self.inserted
            if count > lim.max_nodes:
                count -= self._early_nodes()
                if count > lim.max_nodes:
                    return False
        return not self.moves or self._moves_stay_level() or self._moves_fit(lim.max_depth)

    def _moves_stay_level(self) -> bool:
        """Whether no node moves deeper than it is in a: then none nests the document deeper
        than a did, as what a node carries is at most its a-subtree (the common case: siblings
        reordered, nodes moved between parents of one level)."""
        a_parent = self.a_parent
        depth: dict[str | None, int] = {None: 0}

        def depth_of(nid: str) -> int:
            path = []
            while nid not in depth:
                path.append(nid)
                nid = a_parent[nid]  # type: ignore[assignment]
            d = depth[nid]
            for x in reversed(path):
                d += 1
                depth[x] = d
            return d

        level = all(to <= depth_of(c) for c, to in self.moves)
        self.work[0] += len(self.moves) + len(depth)
        return level

    def _early_nodes(self) -> int:
        count = 0
        stack = [self.a_nodes[nid] for nid in self.early]
        while stack:
            n = stack.pop()
            count += 1
            children = n.get("children")
            if children:
                stack.extend(children)
        self.work[0] += count
        return count

    def _moves_fit(self, max_depth: int) -> bool:
        """Whether every ``move`` keeps the document within ``max_depth``.

        A node moved to tree depth *T* nests the document 2*T* - 1 + its height (the engine's
        measure: a node alone is 1, attributes add 1 + their values' nesting, children 2 each
        level).  What it carries when it moves: its a-subtree, less the subtrees moved out of
        it before (nothing can have been moved into it yet).  Computed for all moves at once,
        backwards in time: a union-find over a whose components are the subtrees as they hang
        together at that moment, each with the deepest (2 * a-depth + own height) inside it.
        O(n log n) at most: path halving makes each find amortized O(log n).
        """
        work = self.work
        a_nodes, a_parent, a_order = self.a_nodes, self.a_parent, self.a_order
        moved = {c for c, _ in self.moves}
        dropped = set(self.early)  # removed before any move
        depth: dict[str, int] = {}
        best: dict[str, int] = {}  # nodes under a moved node (itself included): deepest inside
        link: dict[str, str] = {}
        steps = len(a_order)
        for nid in a_order:  # pre-order: parents first
            p = a_parent[nid]
            depth[nid] = 1 if p is None else depth[p] + 1
            if nid in dropped or p in dropped:
                dropped.add(nid)
            elif nid in moved or p in best:
                attrs = a_nodes[nid].get("attrs")
                height = 2 + max(value_depth(v) for v in attrs.values()) if attrs else 1
                steps += len(attrs) if attrs else 0
                best[nid] = 2 * depth[nid] + height
        for nid in reversed(a_order):  # children first: each joins its parent's component
            if nid in best and nid not in moved:
                p = a_parent[nid]  # also in best (a node under a moved node)
                if best[nid] > best[p]:  # type: ignore[index]
                    best[p] = best[nid]  # type: ignore[index]
                link[nid] = p  # type: ignore[assignment]
        for c, to in reversed(self.moves):
            # c's component is what it carries when it moves (the nodes moved out of it later
            # in time have joined it already)
            if 2 * to - 1 + best[c] - 2 * depth[c] > max_depth:
                work[0] += steps
                return False
            p = a_parent[c]
            if p in best:
                root = p
                while root in link:  # find, halving the path
                    up = link[root]
                    if up in link:
                        link[root] = link[up]
                    root = up
                    steps += 1
                if best[c] > best[root]:
                    best[root] = best[c]
                link[c] = root
        work[0] += steps
        return True


_session.install_diff_back(diff)
