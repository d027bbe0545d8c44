"""The working copy a session edits: the model, its indexes, its canonical text, logged changes.

This is not a public API.  :class:`WorkingCopy` is the state behind ``Session`` (``_session``,
which adds the operations): the normalized document model with an id index (id → node, id →
parent node), the canonical text assembled from cached per-node bytes, the running canonical
size, caches of node hashes, subtree heights and child positions, the primitive changes that
append to the undo log (``_undo``), and the checks the operations share.  Every method that
walks something the patch did not bring charges the work meter (``_cost``).
"""

from __future__ import annotations

from math import isqrt
from operator import itemgetter
from typing import Any

from . import _codec
from ._cost import DUMPS_UNITS, Meter
from ._document import hash_bytes
from ._errors import NuifError
from ._limits import Limits
from ._messages import quote
from ._patch_read import Op
from ._undo import MISSING, Entry, Inserted, Removed, SetItem, rollback
from ._values import copy_json, value_depth, value_height

__all__ = ["AFTER_META", "ATTRS_HEAD", "META_PREFIX", "ROOT_PREFIX", "WorkingCopy"]

# The canonical layout of a document (NUIF-0 §3 in docs/spec/nuif-0.1.md, RFC 8785 member
# order): ``{"meta":…,"nuif":0,"root":{…}}`` or ``{"nuif":0,"root":{…}}``, and a node
# ``{"attrs":{…},…`` or ``{…``.
#: what stands before the meta object
META_PREFIX = b'{"meta":'
#: what stands between the meta object and the root node
AFTER_META = b',"nuif":0,"root":'
#: what stands before the root node of a document without meta
ROOT_PREFIX = b'{"nuif":0,"root":'
#: what stands before a node's attributes object
ATTRS_HEAD = b'{"attrs":'


class _Order:
    """Where each child of one ``children`` list is, without scanning the list per lookup.

    ``pos`` maps a child's id to its index when ``log`` had ``marks.get(id, 0)`` entries;
    ``log`` records every insert ``(i, 1)`` and removal ``(i, -1)`` since the map was built, so a
    position is the recorded index corrected by the changes after its mark, then checked by
    identity.  When the correction would replay more than ``limit`` changes the map is rebuilt
    (one C-speed pass over the list); a rebuild needs ``limit`` ≈ 2√width changes first, so each
    positional operation costs O(√width) amortized instead of O(width).
    """

    __slots__ = ("kids", "limit", "log", "marks", "pos")

    def __init__(self, kids: list[Any]) -> None:
        self.kids = kids  # holds the list, so its id() is not reused while this entry lives
        self.pos: dict[str, int] = {}
        self.marks: dict[str, int] = {}
        self.log: list[tuple[int, int]] = []
        self.limit = 0

    def note(self, nid: str, index: int) -> None:
        self.pos[nid] = index
        self.marks[nid] = len(self.log)


_get_id = itemgetter("id")


class WorkingCopy:
    """The state of a session and the changes it is made of (see the module docstring)."""

    __slots__ = (
        "_attrs_bytes",
        "_base",
        "_canonical",
        "_doc",
        "_hash",
        "_hashes",
        "_heights",
        "_limits",
        "_log",
        "_meta_size",
        "_meter",
        "_nodes",
        "_orders",
        "_parents",
        "_shifted",
        "_size",
        "_undoable",
        "_work",
    )  # fmt: skip

    def _init_model(
        self, canonical: bytes, doc: dict[str, Any], limits: Limits, undoable: bool
    ) -> None:
        self._limits = limits
        self._doc: dict[str, Any] = doc
        nodes: dict[str, dict[str, Any]] = {}
        parents: dict[str, dict[str, Any] | None] = {}
        root = doc["root"]
        nodes[root["id"]] = root
        parents[root["id"]] = None
        stack = [root]
        pop = stack.pop
        push = stack.append
        while stack:
            node = pop()
            children = node.get("children")
            if children:
                for child in children:
                    cid = child["id"]
                    nodes[cid] = child
                    parents[cid] = node
                    if "children" in child:
                        push(child)
        self._nodes = nodes
        self._parents = parents
        self._init_state(canonical, hash_bytes(canonical), undoable)

    def _init_state(self, canonical: bytes, hash_: str, undoable: bool) -> None:
        self._canonical: bytes | None = canonical
        self._hash: str | None = hash_
        # id -> (attrs object, kind, head bytes, tail bytes): see _serialize
        self._attrs_bytes: dict[str, tuple[Any, str, bytes, bytes]] = {}
        self._base = hash_
        self._log: list[Entry] | None = None
        self._undoable = undoable
        #: canonical size of the current document, kept by every operation
        self._size = len(canonical)
        #: canonical size of the current meta object (None: not measured yet)
        self._meta_size: int | None = None
        self._meter: Meter | None = None
        #: node hashes of the current state (dropped along the path of every change)
        self._hashes: dict[str, str] = {}
        #: JSON heights of subtrees of the current state (dropped along the path of every change)
        self._heights: dict[str, int] = {}
        #: id(children list) -> _Order, built on the first positional lookup in that list
        self._orders: dict[int, _Order] = {}
        #: metered work of the last apply (for tests and benchmarks)
        self._work = 0
        self._shifted = 0

    # -- reading -------------------------------------------------------------------------------

    @property
    def limits(self) -> Limits:
        return self._limits

    @property
    def base(self) -> str:
        """The hash of the document this working copy started from."""
        return self._base

    @property
    def hash(self) -> str:
        """The hash of the current document."""
        if self._hash is None:
            self._hash = hash_bytes(self.canonical())
        return self._hash

    @property
    def changed(self) -> bool:
        """True when the current document differs from the one the session started from."""
        return self.hash != self._base

    def canonical(self) -> bytes:
        """The canonical text of the current document."""
        if self._canonical is None:
            self._canonical = self._serialize()
        return self._canonical

    def _serialize(self) -> bytes:
        """The canonical text, assembled in one walk from cached per-node bytes.

        Node members sort as ``attrs`` < ``children`` < ``id`` < ``kind``, and ids and kinds are
        ASCII that JCS never escapes, so only ``attrs`` (and ``meta``) need the codec.  Each node
        caches its head (``{"attrs":…,``) and tail (``"id":…,"kind":…}``) bytes, keyed by id and
        checked against the node's current ``attrs`` object and ``kind``; an operation that
        changes a node's attributes drops its entry.  After a patch only the touched nodes are
        serialized again.  Memory: about one copy of the document text.
        """
        dumps = _codec.dumps
        depth = self._limits.max_depth
        if not self._undoable:
            # a scratch session (apply_patch) serializes once: the codec writes the whole
            # document faster than the per-node walk fills its cache
            return dumps(self._doc, depth)
        cache = self._attrs_bytes
        doc = self._doc
        out: list[bytes] = []
        append = out.append
        meta = doc.get("meta")
        append(META_PREFIX + dumps(meta, depth) + AFTER_META if meta else ROOT_PREFIX)
        stack: list[Any] = [b"}", doc["root"]]
        pop = stack.pop
        push = stack.append
        while stack:
            node = pop()
            if type(node) is bytes:
                append(node)
                continue
            attrs = node.get("attrs")
            kind = node["kind"]
            hit = cache.get(node["id"])
            if hit is not None and hit[0] is attrs and hit[1] == kind:
                head = hit[2]
                tail = hit[3]
            else:
                nid = node["id"]
                head = ATTRS_HEAD + dumps(attrs, depth) + b"," if attrs else b"{"
                tail = f'"id":"{nid}","kind":"{kind}"}}'.encode()
                cache[nid] = (attrs, kind, head, tail)
            children = node.get("children")
            if children:
                append(head + b'"children":[')
                push(b"]," + tail)
                for k in range(len(children) - 1, 0, -1):
                    push(children[k])
                    push(b",")
                push(children[0])
            else:
                append(head + tail)
        return b"".join(out)

    def text(self) -> str:
        """The canonical text of the current document as ``str``."""
        return self.canonical().decode("utf-8")

    def __len__(self) -> int:
        """The number of nodes."""
        return len(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __repr__(self) -> str:
        return f"<nuif_core.Session {len(self._nodes)} nodes {self.hash}>"

    def _get(self, node_id: str) -> dict[str, Any]:
        node = self._nodes.get(node_id)
        if node is None:
            raise NuifError("NUIF_PATCH_NOT_FOUND", f"no node has the id {quote(node_id)}")
        return node

    def node(self, node_id: str) -> dict[str, Any]:
        """A copy of the node ``node_id`` (its whole subtree, normalized); NUIF_PATCH_NOT_FOUND."""
        return copy_json(self._get(node_id))  # type: ignore[no-any-return]

    def parent(self, node_id: str) -> str | None:
        """The id of the parent of ``node_id`` (None for the root); NUIF_PATCH_NOT_FOUND."""
        self._get(node_id)
        p = self._parents[node_id]
        return None if p is None else p["id"]

    def index(self, node_id: str) -> int | None:
        """The position of ``node_id`` among its parent's children (None for the root)."""
        node = self._get(node_id)
        p = self._parents[node_id]
        return None if p is None else self._position(p["children"], node)

    def node_hash(self, node_id: str) -> str:
        """The node hash of ``node_id`` (NUIF-0 §3)."""
        return self._node_hash(self._get(node_id))

    def _rollback(self, size0: int, meta_size0: int | None) -> None:
        log = self._log
        if log:
            rollback(log)
            self._canonical = self._hash = None
        self._log = None
        self._size = size0
        self._meta_size = meta_size0
        # caches may describe the rolled-back state: values were restored in place
        self._attrs_bytes.clear()
        self._hashes.clear()
        self._heights.clear()
        self._orders.clear()

    # -- logged primitive changes --------------------------------------------------------------

    def _dset(self, container: dict[str, Any], key: str, value: Any) -> None:
        log = self._log
        if log is not None:
            log.append(SetItem(container, key, container.get(key, MISSING)))
        container[key] = value

    def _ddel(self, container: dict[str, Any], key: str) -> None:
        log = self._log
        if log is not None:
            log.append(SetItem(container, key, container[key]))
        del container[key]

    def _child_insert(self, parent: dict[str, Any], index: int, node: dict[str, Any]) -> None:
        kids = parent.get("children")
        if kids is None:
            kids = []
            self._dset(parent, "children", kids)
        n = len(kids)
        if n - index > 64 and self._meter is not None:
            self._meter.charge_shift(n - index)  # the elements the insert moves
        kids.insert(index, node)
        if self._log is not None:
            self._log.append(Inserted(kids, index))
        order = self._orders.get(id(kids))
        if order is not None:
            order.log.append((index, 1))
            order.note(node["id"], index)

    def _child_pop(self, parent: dict[str, Any], index: int) -> None:
        kids = parent["children"]
        n = len(kids)
        if n - index > 64 and self._meter is not None:
            self._meter.charge_shift(n - index)
        node = kids.pop(index)
        if self._log is not None:
            self._log.append(Removed(kids, index, node))
        order = self._orders.get(id(kids))
        if order is not None:
            order.log.append((index, -1))
            order.pos.pop(node["id"], None)
            order.marks.pop(node["id"], None)
        if not kids:
            self._ddel(parent, "children")

    def _child_swap(self, kids: list[Any], index: int, new: dict[str, Any]) -> None:
        old = kids[index]
        if self._log is not None:
            self._log.append(SetItem(kids, index, old))
        kids[index] = new
        order = self._orders.get(id(kids))
        if order is not None:
            order.pos.pop(old["id"], None)
            order.marks.pop(old["id"], None)
            order.note(new["id"], index)

    def _position(self, kids: list[Any], node: dict[str, Any]) -> int:
        """Index of ``node`` in ``kids`` (see :class:`_Order`)."""
        n = len(kids)
        if n <= 16:
            for k in range(n):
                if kids[k] is node:
                    return k
        nid = node["id"]
        order = self._orders.get(id(kids))
        if order is not None and order.kids is kids:
            p = order.pos.get(nid)
            if p is not None:
                mark = order.marks.get(nid, 0)
                log = order.log
                if len(log) - mark <= order.limit:
                    for i, d in log[mark:]:
                        if d > 0:
                            if p >= i:
                                p += 1
                        elif p > i:
                            p -= 1
                    self._charge(8 * (len(log) - mark))
                    if 0 <= p < n and kids[p] is node:
                        order.note(nid, p)
                        return p
        else:
            order = _Order(kids)
            self._orders[id(kids)] = order
        # (re)build the map: one pass over the list
        self._charge(8 * n)
        order.pos = dict(zip(map(_get_id, kids), range(n), strict=True))
        order.marks = {}
        order.log = []
        order.limit = 16 + 2 * isqrt(n)
        return order.pos[nid]

    def _charge(self, units: int) -> None:
        meter = self._meter
        if meter is not None:
            meter.charge(units)

    def _index_subtree(self, node: dict[str, Any], parent: dict[str, Any] | None) -> None:
        nodes = self._nodes
        parents = self._parents
        log = self._log
        stack = [(node, parent)]
        while stack:
            n, p = stack.pop()
            nid = n["id"]
            if log is not None:
                log.append(SetItem(nodes, nid, nodes.get(nid, MISSING)))
                log.append(SetItem(parents, nid, parents.get(nid, MISSING)))
            nodes[nid] = n
            parents[nid] = p
            children = n.get("children")
            if children:
                stack.extend((c, n) for c in children)

    def _unindex_subtree(self, node: dict[str, Any]) -> int:
        nodes = self._nodes
        parents = self._parents
        cache = self._attrs_bytes
        hashes = self._hashes
        heights = self._heights
        log = self._log
        stack = [node]
        count = 0
        while stack:
            n = stack.pop()
            nid = n["id"]
            if log is not None:
                log.append(SetItem(nodes, nid, nodes[nid]))
                log.append(SetItem(parents, nid, parents[nid]))
            del nodes[nid]
            del parents[nid]
            cache.pop(nid, None)
            hashes.pop(nid, None)
            heights.pop(nid, None)
            count += 1
            children = n.get("children")
            if children:
                stack.extend(children)
        return count

    def _touch(self, node: dict[str, Any] | None) -> None:
        """Drop the cached hashes and heights of ``node`` and its ancestors (their text
        changed): O(tree depth), nothing when no cache is in use."""
        hashes = self._hashes
        heights = self._heights
        if not hashes and not heights:
            return
        parents = self._parents
        while node is not None:
            nid = node["id"]
            hashes.pop(nid, None)
            heights.pop(nid, None)
            node = parents.get(nid)

    def _height(self, node: dict[str, Any]) -> int:
        """JSON nesting of a subtree (the node object alone is 1), memoized per node for the
        current state: a subtree moved deeper again and again is measured once (charged)."""
        heights = self._heights
        h = heights.get(node["id"])
        if h is not None:
            return h
        stack: list[tuple[dict[str, Any], bool]] = [(node, False)]
        visited = 0
        while stack:
            n, ready = stack.pop()
            kids = n.get("children")
            if not ready:
                stack.append((n, True))
                for c in kids or ():
                    cid = c["id"]
                    if cid in heights:
                        continue
                    if "children" in c:
                        stack.append((c, False))
                    else:  # a leaf: its height is its own
                        attrs = c.get("attrs")
                        if attrs:
                            deepest, count = value_height(attrs)
                            heights[cid] = 1 + deepest
                            visited += count
                        else:
                            heights[cid] = 1
                        visited += 1
                continue
            h = 1
            attrs = n.get("attrs")
            if attrs:
                deepest, count = value_height(attrs)
                h = 1 + deepest
                visited += count
            if kids:
                deepest = max([heights[c["id"]] for c in kids])
                if 2 + deepest > h:
                    h = 2 + deepest
                visited += len(kids)
            heights[n["id"]] = h
            visited += 1
        self._charge(8 * visited)
        return heights[node["id"]]

    def _node_hash(self, node: dict[str, Any]) -> str:
        nid = node["id"]
        h = self._hashes.get(nid)
        if h is None:
            text = _codec.dumps(node, self._limits.max_depth)
            self._charge(DUMPS_UNITS * len(text))
            h = self._hashes[nid] = hash_bytes(text)
        return h

    def _measure(self, value: Any) -> int:
        """Canonical size of a value or subtree that leaves the document (charged)."""
        text = _codec.dumps(value, self._limits.max_depth)
        self._charge(DUMPS_UNITS * len(text))
        return len(text)

    # -- checks --------------------------------------------------------------------------------

    def _find(self, op: Op, member: str = "id") -> dict[str, Any]:
        node_id = op.args[member]
        node = self._nodes.get(node_id)
        if node is None:
            raise op.error(
                "NUIF_PATCH_NOT_FOUND", f"no node has the id {quote(node_id)}", "/" + member
            )
        return node

    def _depth(self, node: dict[str, Any]) -> int:
        """Tree depth of ``node`` (root = 1): O(depth) via the parent index."""
        parents = self._parents
        depth = 1
        p = parents[node["id"]]
        while p is not None:
            depth += 1
            p = parents[p["id"]]
        return depth

    def _placed_value(self, op: Op, node: dict[str, Any], value: Any, member: str) -> int:
        """Canonical size of an attribute value about to be set on ``node``; NUIF_DEPTH when it
        would nest the document deeper than the limit."""
        # document object 1, node at tree depth k is at JSON depth 2k, its attrs at 2k + 1
        base = 2 * self._depth(node) + 1
        try:
            return len(_codec.dumps(value, self._limits.max_depth - base))
        except NuifError as exc:
            if exc.code != "NUIF_DEPTH":
                raise
        total = base + value_depth(value)
        raise op.error(
            "NUIF_DEPTH",
            f"the attribute value would nest the document {total} levels deep; the limit is "
            f"{self._limits.max_depth}",
            member,
        )

    def _check_node_depth(self, op: Op, tree_depth: int, height: int) -> None:
        total = 2 * tree_depth - 1 + height
        if total > self._limits.max_depth:
            raise op.error(
                "NUIF_DEPTH",
                f"the node would nest the document {total} levels deep; the limit is "
                f"{self._limits.max_depth}",
                "/node" if "node" in op.args else "/parent",
            )

    def _check_node_count(self, op: Op, count: int) -> None:
        if count > self._limits.max_nodes:
            raise op.error(
                "NUIF_LIMIT_NODES",
                f"the document would have {count} nodes; the limit is {self._limits.max_nodes}",
                "/node",
            )

    def _check_new_ids(self, op: Op, allowed: set[str] | None = None) -> None:
        nodes = self._nodes
        for nid, rel in op.ids:
            if nid in nodes and (allowed is None or nid not in allowed):
                raise op.error(
                    "NUIF_PATCH_ID_EXISTS",
                    f"id {quote(nid)} is already used in the document",
                    "/node" + rel,
                )

    def _index_arg(self, op: Op, length: int) -> int:
        index = op.args.get("index")
        if index is None:
            return length
        if not 0 <= index <= length:
            raise op.error(
                "NUIF_PATCH_INDEX",
                f"index {index} is out of range: the parent has {length} children here "
                f"(0 to {length} allowed)",
                "/index",
            )
        return index  # type: ignore[no-any-return]
