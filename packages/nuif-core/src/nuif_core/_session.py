"""The :class:`Session`: a working copy of one document that semantic patches change atomically.

This is not a public API (``nuif_core`` exports ``Session``).  A session runs the transactions
``_patch_read`` read, one operation handler each (``_op_insert`` … ``_op_test``), on the state
of ``_workcopy``.  Atomicity: a session records an undo log (``_undo``) while a patch runs; any
failure rolls the log back (the working copy is exactly as before, object for object) and
re-raises.  ``apply_patch`` (``_apply``) works on a throw-away session built from the input
text, so it needs no log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import _codec
from ._cost import Meter, OverBudget, budget_for
from ._document import Text, parse_canonical
from ._errors import NuifError
from ._jsonpatch import Env, run_tracked
from ._limits import Limits, resolve_limits
from ._messages import quote
from ._patch_read import LABEL_MAX, WRAP_DEPTH, Op, Transaction, read_patch_sized
from ._results import PatchCounts, PatchResult
from ._schema import json_type
from ._undo import MISSING, SetItem
from ._values import json_equal
from ._workcopy import WorkingCopy

__all__ = ["Session", "install_diff_back"]

#: ``(after, before, limits=)`` → the patch text from the document ``after`` back to ``before``
#: (the diff), for an inverse longer than the patch limit.  The diff sits above this layer (it
#: applies the patches it makes, to check them), so ``_diff`` installs it here when it is imported.
_DIFF_BACK: list[Callable[..., bytes]] = []


def install_diff_back(diff: Callable[..., bytes]) -> None:
    """Install the diff the session falls back to for a too long inverse (``_diff`` calls this)."""
    _DIFF_BACK[:] = [diff]


class _Counts:
    """What the operations of one run did, counted as they run."""

    __slots__ = (
        "attrs_edited",
        "attrs_set",
        "attrs_unset",
        "nodes_inserted",
        "nodes_moved",
        "nodes_removed",
        "operations",
    )  # fmt: skip

    def __init__(self) -> None:
        self.operations = self.nodes_inserted = self.nodes_removed = self.nodes_moved = 0
        self.attrs_set = self.attrs_unset = self.attrs_edited = 0


#: canonical bytes a node gains or loses with its ``"children":[…],`` member (12 + 1 + 1)
_CHILDREN_WRAP = 14
#: canonical bytes of ``"attrs":{},`` around a node's attributes
_ATTRS_WRAP = 11
#: canonical bytes of ``"meta":`` and the comma after the value
_META_WRAP = 8


class Session(WorkingCopy):
    """A temporary, mutable working copy of one NUIF document.

    ``Session(document)`` parses and validates the document (``str`` or ``bytes``); then
    :meth:`apply` (a whole patch) and :meth:`apply_transaction` (a list of operations) change the
    working copy, each atomically: on any error the session is exactly as before and the
    :class:`NuifError` names the failing operation (``transactions/i/ops/j (op): …``).

    The session never hands out its internal objects: :meth:`node` returns a copy, and the
    document leaves the session only as canonical text (:meth:`canonical`, :meth:`text`).
    ``base`` is the hash of the document the session started from, ``hash`` the current one.

    Cost (docs/patch.md, "Cost"): building a session is linear in the document.  Each operation
    costs O(depth) plus the bytes it carries, plus *metered* work that depends on the document
    (a subtree it removes or hashes, a list it shifts, a subtree it moves deeper, a child
    position, O(√width) amortized); the metered work of one :meth:`apply` is bounded by a fixed
    multiple of the document and patch sizes (NUIF_LIMIT_WORK beyond it).  The document's
    canonical size is kept up to date by every operation, so no state of a patch, intermediate
    ones included, may pass ``max_document_bytes`` (NUIF_TOO_LARGE at the operation that
    would).  :meth:`canonical` and :attr:`hash` serialize the document (cached until the next
    change).
    """

    __slots__ = ()

    def __init__(self, document: Text, *, limits: Limits | None = None) -> None:
        self._init(document, resolve_limits(limits), True)

    @classmethod
    def _scratch(cls, document: Text, limits: Limits) -> Session:
        """A session that will be thrown away on failure (no undo log needed)."""
        self = cls.__new__(cls)
        self._init(document, limits, False)
        return self

    def _init(self, document: Text, limits: Limits, undoable: bool) -> None:
        _, canonical, doc = parse_canonical(document, limits)
        self._init_model(canonical, doc, limits, undoable)

    # -- applying ------------------------------------------------------------------------------

    def apply(self, patch: Any, *, inverse: bool = False) -> PatchResult:
        """Apply a whole patch (text, or a parsed mapping) atomically; returns its result.

        The result's ``base`` is the hash before this call; when the patch has a ``base`` it
        must equal that hash (NUIF_PATCH_BASE_MISMATCH).
        """
        transactions, nbytes = read_patch_sized(patch, self._limits, self.hash)
        return self._run(transactions, inverse, nbytes)

    def apply_transaction(
        self, ops: Iterable[dict[str, Any]], *, label: str | None = None, inverse: bool = False
    ) -> PatchResult:
        """Apply one transaction given as operation mappings (``{"op": "set", …}``) atomically.

        Errors name ``transactions/0/ops/j``.
        """
        tx: dict[str, Any] = {"ops": list(ops)}
        if label is not None:
            tx["label"] = label
        transactions, nbytes = read_patch_sized(
            {"nuif_patch": 0, "transactions": [tx]}, self._limits, None
        )
        return self._run(transactions, inverse, nbytes)

    def _run(
        self, transactions: list[Transaction], want_inverse: bool, patch_bytes: int
    ) -> PatchResult:
        base = self.hash
        before = self._canonical if want_inverse else None
        if want_inverse and before is None:
            before = self.canonical()
        size0 = self._size
        meta_size0 = self._meta_size
        limit = self._limits.max_document_bytes
        counts = _Counts()
        inverse_txs: list[dict[str, Any]] = []
        meter = self._meter = Meter(budget_for(size0, patch_bytes))
        self._log = [] if self._undoable else None
        handlers = _HANDLERS
        try:
            for tx in transactions:
                undo_ops = []
                for op in tx.ops:
                    try:
                        undo = handlers[op.name](self, op, counts, want_inverse)
                    except OverBudget as exc:
                        raise op.error("NUIF_LIMIT_WORK", meter.message(exc)) from None
                    if self._size > limit:
                        raise NuifError.too_large(
                            f"{op.where} ({op.name}): the document would be {self._size} bytes "
                            "of canonical text",
                            limit,
                            pointer=op.loc + _SIZE_MEMBER.get(op.name, ""),
                        )
                    if undo is not None:
                        undo_ops.append(undo)
                counts.operations += len(tx.ops)
                if want_inverse:
                    undo_ops.reverse()
                    itx: dict[str, Any] = {"ops": undo_ops}
                    if tx.label is not None:
                        itx["label"] = ("undo " + tx.label)[:LABEL_MAX]
                    inverse_txs.append(itx)
            if transactions:
                self._canonical = self._hash = None
            canonical = self.canonical()
            # the running size refused every operation that would pass the limit; what is left
            # is an input whose canonical text is already over it (numbers such as 1e20 grow)
            if len(canonical) > limit:
                raise NuifError.too_large(
                    f"the patched document would be {len(canonical)} bytes of canonical text",
                    limit,
                )
            new_hash = self.hash
            inverse_text = None
            if want_inverse:
                inverse_txs.reverse()
                inverse_text = self._inverse_text(inverse_txs, new_hash, before, canonical)
        except BaseException:
            self._rollback(size0, meta_size0)
            raise
        finally:
            self._log = None
            self._work = meter.used
            self._shifted = meter.shifted
            self._meter = None
        return PatchResult(
            canonical,
            new_hash,
            base,
            new_hash != base,
            PatchCounts(
                len(transactions),
                counts.operations,
                counts.nodes_inserted,
                counts.nodes_removed,
                counts.nodes_moved,
                counts.attrs_set,
                counts.attrs_unset,
                counts.attrs_edited,
            ),
            inverse_text,
        )

    def _inverse_text(
        self, inverse_txs: list[dict[str, Any]], new_hash: str, before: Any, after: bytes
    ) -> bytes:
        """The inverse patch; when the operation-by-operation inverse is longer than the patch
        limit (it carries every value the patch destroyed), the diff from the new document back
        to the old one, which is held to that limit (NUIF_TOO_LARGE when nothing fits)."""
        lim = self._limits
        text = _codec.dumps(
            {"nuif_patch": 0, "base": new_hash, "transactions": inverse_txs},
            lim.max_depth + WRAP_DEPTH,
        )
        if len(text) <= lim.max_patch_bytes:
            return text
        try:
            return _DIFF_BACK[0](after, before, limits=lim)
        except NuifError as exc:
            raise NuifError.too_large(
                f"the inverse patch would be {len(text)} bytes",
                lim.max_patch_bytes,
                advice=f", and no shorter patch turns the result back ({exc.message}): apply it "
                "without an inverse, or in smaller patches",
            ) from None

    # -- operations ----------------------------------------------------------------------------
    # Each handler changes the working copy, keeps ``_size`` (the canonical size) exact, and
    # returns the operation that undoes it (or None).

    def _op_insert(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        parent = self._find(op, "parent")
        self._check_new_ids(op)
        n = len(parent.get("children", ()))
        index = self._index_arg(op, n)
        self._check_node_depth(op, self._depth(parent) + 1, op.height)
        self._check_node_count(op, len(self._nodes) + op.size)
        node = op.args["node"]
        self._size += len(_codec.dumps(node, self._limits.max_depth)) + (1 if n else _CHILDREN_WRAP)
        self._child_insert(parent, index, node)
        self._index_subtree(node, parent)
        self._touch(parent)
        counts.nodes_inserted += op.size
        return {"op": "remove", "id": node["id"]}

    def _op_remove(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        parent = self._parents[node["id"]]
        if parent is None:
            raise op.error(
                "NUIF_PATCH_ROOT", "the root cannot be removed (replace it instead)", "/id"
            )
        kids = parent["children"]
        index = self._position(kids, node)
        self._size -= self._measure(node) + (1 if len(kids) > 1 else _CHILDREN_WRAP)
        self._touch(parent)
        self._child_pop(parent, index)
        counts.nodes_removed += self._unindex_subtree(node)
        return {"op": "insert", "parent": parent["id"], "index": index, "node": node}

    def _op_move(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        old_parent = self._parents[node["id"]]
        if old_parent is None:
            raise op.error("NUIF_PATCH_ROOT", "the root cannot be moved", "/id")
        new_parent = self._find(op, "parent")
        parents = self._parents
        p: dict[str, Any] | None = new_parent
        new_depth = 1
        while p is not None:
            if p is node:
                raise op.error(
                    "NUIF_PATCH_CYCLE",
                    f"node {quote(node['id'])} cannot move into its own subtree "
                    f"(under {quote(new_parent['id'])})",
                    "/parent",
                )
            new_depth += 1
            p = parents[p["id"]]
        old_kids = old_parent["children"]
        old_index = self._position(old_kids, node)
        length = len(new_parent.get("children", ())) - (1 if new_parent is old_parent else 0)
        index = self._index_arg(op, length)
        if new_depth > self._depth(node):
            self._check_node_depth(op, new_depth, self._height(node))
        self._touch(old_parent)
        self._touch(new_parent)
        self._size -= 1 if len(old_kids) > 1 else _CHILDREN_WRAP
        self._child_pop(old_parent, old_index)
        self._size += 1 if new_parent.get("children") else _CHILDREN_WRAP
        self._child_insert(new_parent, index, node)
        self._dset(parents, node["id"], new_parent)
        counts.nodes_moved += 1
        return {"op": "move", "id": node["id"], "parent": old_parent["id"], "index": old_index}

    def _op_replace(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        old = self._find(op)
        parent = self._parents[old["id"]]
        old_ids = set(_subtree_ids(old))
        self._charge(8 * len(old_ids))
        self._check_new_ids(op, old_ids)
        self._check_node_depth(op, self._depth(old), op.height)
        self._check_node_count(op, len(self._nodes) - len(old_ids) + op.size)
        new = op.args["node"]
        self._size += len(_codec.dumps(new, self._limits.max_depth)) - self._measure(old)
        self._touch(old)
        if parent is None:
            self._dset(self._doc, "root", new)
        else:
            kids = parent["children"]
            self._child_swap(kids, self._position(kids, old), new)
        counts.nodes_removed += self._unindex_subtree(old)
        self._index_subtree(new, parent)
        counts.nodes_inserted += op.size
        return {"op": "replace", "id": new["id"], "node": old}

    def _op_set(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        args = op.args
        name = args["attr"]
        value = args["value"]
        size = self._placed_value(op, node, value, "/value")
        attrs = node.get("attrs")
        if attrs is None:
            attrs = {}
            self._dset(node, "attrs", attrs)
            self._size += _ATTRS_WRAP - 1  # the member below counts its comma
        old = attrs.get(name, MISSING)
        if old is MISSING:
            self._size += 1 + len(name) + 3 + size  # ,"name":value (names are never escaped)
        else:
            self._size += size - self._measure(old)
        if self._log is not None:
            self._log.append(SetItem(attrs, name, old))
        attrs[name] = value
        self._attrs_bytes.pop(node["id"], None)
        self._touch(node)
        counts.attrs_set += 1
        if old is MISSING:
            return {"op": "unset", "id": node["id"], "attr": name}
        return {"op": "set", "id": node["id"], "attr": name, "value": old}

    def _attr(self, op: Op, node: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        name = op.args["attr"]
        attrs = node.get("attrs")
        if not attrs or name not in attrs:
            raise op.error(
                "NUIF_PATCH_ATTR_MISSING",
                f"node {quote(node['id'])} has no attribute {quote(name)}",
                "/attr",
            )
        return attrs, attrs[name]

    def _op_unset(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        attrs, old = self._attr(op, node)
        name = op.args["attr"]
        self._size -= 1 + len(name) + 3 + self._measure(old)
        self._ddel(attrs, name)
        self._attrs_bytes.pop(node["id"], None)
        if not attrs:
            self._ddel(node, "attrs")
            self._size -= _ATTRS_WRAP - 1
        self._touch(node)
        counts.attrs_unset += 1
        return {"op": "set", "id": node["id"], "attr": name, "value": old}

    def _json_patch(self, op: Op, value: Any, env: Env) -> tuple[Any, int, Any]:
        try:
            return run_tracked(value, op.compiled, env)
        except NuifError as exc:
            raise op.error(exc.code, exc.message, "/patch" + (exc.pointer or "")) from None

    def _op_edit(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        attrs, old = self._attr(op, node)
        name = op.args["attr"]
        lim = self._limits
        env = Env(
            log=self._log,
            meter=self._meter,
            base=2 * self._depth(node) + 1,
            max_depth=lim.max_depth,
            size=self._size,
            limit=lim.max_document_bytes,
            inverse=inv,
        )
        self._attrs_bytes.pop(node["id"], None)
        self._touch(node)
        new, delta, undo = self._json_patch(op, old, env)
        if new is not old:
            self._dset(attrs, name, new)
        self._size += delta
        counts.attrs_edited += 1
        return {"op": "edit", "id": node["id"], "attr": name, "patch": undo or []}

    def _op_retype(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        old = node["kind"]
        self._size += len(op.args["kind"]) - len(old)  # kinds are never escaped
        self._dset(node, "kind", op.args["kind"])
        self._touch(node)
        return {"op": "retype", "id": node["id"], "kind": old}

    def _op_rename(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        old = node["id"]
        new = op.args["to"]
        if new != old:
            if new in self._nodes:
                raise op.error("NUIF_PATCH_ID_EXISTS", f"id {quote(new)} is already used", "/to")
            self._touch(node)
            parent = self._parents[old]
            self._attrs_bytes.pop(old, None)
            self._size += len(new) - len(old)  # ids are never escaped
            self._dset(node, "id", new)
            self._ddel(self._nodes, old)
            self._dset(self._nodes, new, node)
            self._ddel(self._parents, old)
            self._dset(self._parents, new, parent)
            if parent is not None:
                order = self._orders.get(id(parent["children"]))
                if order is not None and old in order.pos:
                    order.pos[new] = order.pos.pop(old)
                    mark = order.marks.pop(old, None)
                    if mark is not None:
                        order.marks[new] = mark
        return {"op": "rename", "id": new, "to": old}

    def _op_meta(self, op: Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        doc = self._doc
        lim = self._limits
        old = doc.get("meta", MISSING)
        if self._meta_size is None:
            self._meta_size = 0 if old is MISSING else self._measure(old)
        present = old is not MISSING
        env = Env(
            log=self._log,
            meter=self._meter,
            base=1,
            max_depth=lim.max_depth,
            size=self._size,
            limit=lim.max_document_bytes,
            empty_extra=_META_WRAP + 2,
            inverse=inv,
        )
        new, delta, undo = self._json_patch(op, {} if old is MISSING else old, env)
        if type(new) is not dict:
            raise op.error(
                "NUIF_SCHEMA",
                f'"meta" must stay an object; the patch makes it {json_type(new)}',
                "/patch",
            )
        # the document holds "meta":…, only while the object is not empty (absent = {})
        old_size = self._meta_size if present else 2
        size = old_size + delta
        before = old_size + _META_WRAP if present else 0
        after = size + _META_WRAP if new else 0
        self._size += after - before
        if new:
            if new is not old:
                self._dset(doc, "meta", new)
        elif present:
            self._ddel(doc, "meta")
        self._meta_size = size if new else 0
        return {"op": "meta", "patch": undo or []}

    def _op_test(self, op: Op, counts: _Counts, inv: bool) -> None:
        node = self._find(op)
        args = op.args
        if "kind" in args and node["kind"] != args["kind"]:
            raise op.error(
                "NUIF_PATCH_TEST_FAILED",
                f"node {quote(node['id'])} has kind {quote(node['kind'])}, not {quote(args['kind'])}",
                "/kind",
            )
        if "attr" in args:
            attrs = node.get("attrs") or {}
            name = args["attr"]
            if name not in attrs:
                raise op.error(
                    "NUIF_PATCH_TEST_FAILED",
                    f"node {quote(node['id'])} has no attribute {quote(name)}",
                    "/attr",
                )
            if not json_equal(attrs[name], args["value"]):
                raise op.error(
                    "NUIF_PATCH_TEST_FAILED",
                    f"attribute {quote(name)} of node {quote(node['id'])} is not equal to the test value",
                    "/value",
                )
        if "hash" in args:
            actual = self._node_hash(node)
            if actual != args["hash"]:
                raise op.error(
                    "NUIF_PATCH_TEST_FAILED",
                    f"node {quote(node['id'])} has the hash {actual}, not {args['hash']}",
                    "/hash",
                )
        return None


_HANDLERS = {
    "insert": Session._op_insert,
    "remove": Session._op_remove,
    "move": Session._op_move,
    "replace": Session._op_replace,
    "set": Session._op_set,
    "unset": Session._op_unset,
    "edit": Session._op_edit,
    "retype": Session._op_retype,
    "rename": Session._op_rename,
    "meta": Session._op_meta,
    "test": Session._op_test,
}

#: where a NUIF_TOO_LARGE of each operation points (the member that carried the growth)
_SIZE_MEMBER = {
    "insert": "/node", "replace": "/node", "set": "/value", "edit": "/patch", "meta": "/patch",
    "rename": "/to", "retype": "/kind",
}  # fmt: skip


def _subtree_ids(node: dict[str, Any]) -> Iterable[str]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n["id"]
        children = n.get("children")
        if children:
            stack.extend(children)
