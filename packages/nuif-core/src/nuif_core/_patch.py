"""Semantic patches (NUIF-0 §5): parsing, the :class:`Session` working copy, inverse patches.

A patch is read in three stages, each complete before the next starts, so that nothing runs
on a patch that is malformed, too big, or meant for another document:

1. **text**: size limit (``max_patch_bytes``), strict I-JSON parse (depth limit);
2. **header**: the top-level shape, the cardinality limits (transactions, operations per
   transaction, operations per patch), then ``base`` against the document hash;
3. **operations**: the shape of every operation, and every value and node it carries checked
   against the document rules (§1, §3) — nodes are normalized here.

Then the operations run in order on a :class:`Session`.  A session keeps an id index
(id → node, id → parent node), so every operation costs O(depth) plus the size of what it
touches; finding a child's position in its parent is one C-speed scan of that parent's
``children`` list, done only by the operations that need a position (remove, move, replace).

Atomicity: a session records an undo log while a patch runs; any failure rolls the log back
(the working copy is exactly as before, object for object) and re-raises.  :func:`apply_patch`
works on a throw-away session built from the input text, so it needs no log.
"""

from __future__ import annotations

import re
from math import isqrt
from operator import itemgetter
from dataclasses import dataclass
from typing import Any, Iterable

from . import _codec
from ._document import (
    Checker,
    Text,
    as_bytes,
    attr_problem,
    hash_bytes,
    id_problem,
    _canonical_bytes,
    _json_type,
    _model,
    kind_problem,
    parse_canonical,
)
from ._cost import DUMPS_UNITS as _DUMPS_UNITS, Meter, OverBudget, budget_for
from ._errors import NuifError
from ._jsonpatch import (
    _MISSING,
    Env,
    compile_json_patch,
    copy_json,
    json_equal,
    run_tracked,
    value_depth,
    value_height,
)
from ._limits import Limits, resolve_limits as _limits

__all__ = ["PatchCounts", "PatchResult", "Session", "apply_patch", "read_patch"]

_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)
LABEL_MAX = 256
#: depth slack when serializing patches we build (an inverse wraps values in 5 more levels)
_WRAP_DEPTH = 16

#: op name → (required members, optional members), "op" excluded
OP_MEMBERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "insert": (("parent", "node"), ("index",)),
    "remove": (("id",), ()),
    "move": (("id", "parent"), ("index",)),
    "replace": (("id", "node"), ()),
    "set": (("id", "attr", "value"), ()),
    "unset": (("id", "attr"), ()),
    "edit": (("id", "attr", "patch"), ()),
    "retype": (("id", "kind"), ()),
    "rename": (("id", "to"), ()),
    "meta": (("patch",), ()),
    "test": (("id",), ("kind", "attr", "value", "hash")),
}


# ---------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True, slots=True)
class PatchCounts:
    """What a patch did.

    ``operations`` counts every operation run (``test`` included).  ``nodes_inserted`` and
    ``nodes_removed`` count every node of the subtrees that ``insert``/``replace`` added and
    ``remove``/``replace`` took away; ``nodes_moved`` counts ``move`` operations (a moved
    subtree counts once); ``attrs_set``/``attrs_unset``/``attrs_edited`` count ``set``,
    ``unset`` and ``edit`` operations.
    """

    transactions: int = 0
    operations: int = 0
    nodes_inserted: int = 0
    nodes_removed: int = 0
    nodes_moved: int = 0
    attrs_set: int = 0
    attrs_unset: int = 0
    attrs_edited: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "transactions": self.transactions,
            "operations": self.operations,
            "nodes_inserted": self.nodes_inserted,
            "nodes_removed": self.nodes_removed,
            "nodes_moved": self.nodes_moved,
            "attrs_set": self.attrs_set,
            "attrs_unset": self.attrs_unset,
            "attrs_edited": self.attrs_edited,
        }


@dataclass(frozen=True, slots=True)
class PatchResult:
    """The outcome of applying a patch.

    ``canonical``/``hash`` are the new document, ``base`` the hash of the document the patch was
    applied to, ``changed`` is ``hash != base``, ``inverse`` the canonical text of the inverse
    patch (``base`` = the new hash) when it was asked for, else ``None``.
    """

    canonical: bytes
    hash: str
    base: str
    changed: bool
    counts: PatchCounts
    inverse: bytes | None = None

    @property
    def text(self) -> str:
        """The new canonical document as ``str``."""
        return self.canonical.decode("utf-8")

    def to_dict(self) -> dict[str, Any]:
        return {
            "document": self.text,
            "hash": self.hash,
            "base": self.base,
            "changed": self.changed,
            "counts": self.counts.to_dict(),
            "inverse": None if self.inverse is None else self.inverse.decode("utf-8"),
        }


# ---------------------------------------------------------------------------------------------
# reading a patch


def _q(s: str) -> str:
    from ._codec_py import _quote

    return _quote(s if len(s) <= 200 else s[:200] + "…")


def _schema(message: str, pointer: str) -> NuifError:
    return NuifError("NUIF_PATCH_SCHEMA", message, pointer=pointer)


def _load_patch(patch: Any, limits: Limits) -> tuple[Any, int]:
    """Patch text (str/bytes) or an already-parsed mapping → fresh, strictly checked values.

    Patch text is read with the same ``_WRAP_DEPTH`` slack the engine writes patches with (diff,
    inverse): a patch carries values and nodes a few levels below where they land, so content
    at the document's depth limit needs a deeper patch.  Every carried value and node is still
    checked against ``max_depth`` where it lands, by the operation (NUIF_DEPTH).
    """
    depth = limits.max_depth + _WRAP_DEPTH
    if isinstance(patch, dict):
        # a Python value: prove it is strict I-JSON and take a private copy in one round trip
        data = _codec.dumps(patch, depth)
        if len(data) > limits.max_patch_bytes:
            raise NuifError(
                "NUIF_TOO_LARGE",
                f"the patch text is {len(data)} bytes; the limit is {limits.max_patch_bytes} bytes",
            )
        return _codec.loads(data, depth), len(data)
    data = as_bytes(patch, limits.max_patch_bytes, "patch")
    return _codec.loads(data, depth), len(data)


def _read_header(value: Any, limits: Limits) -> tuple[list[Any], str | None]:
    """Top-level shape and cardinality limits; returns ``(transactions, base)``."""
    if type(value) is not dict:
        raise _schema(f"a NUIF patch is a JSON object, found {_json_type(value)}", "")
    for key in value:
        if key not in ("nuif_patch", "base", "transactions"):
            raise _schema(
                f"unknown patch member {_q(key)} (allowed: nuif_patch, base, transactions)",
                "/" + key.replace("~", "~0").replace("/", "~1"),
            )
    if "nuif_patch" not in value:
        raise _schema('the patch has no "nuif_patch" member (it must be 0)', "")
    version = value["nuif_patch"]
    if type(version) not in (int, float):
        raise _schema(f'"nuif_patch" must be the number 0, found {_json_type(version)}', "/nuif_patch")
    if version != 0:
        raise NuifError(
            "NUIF_VERSION",
            f"NUIF patch version {_codec.dumps(version, 1).decode()} is not supported; "
            "this implementation reads version 0",
            pointer="/nuif_patch",
        )
    base = value.get("base")
    if "base" in value:
        if type(base) is not str or _HASH_RE.fullmatch(base) is None:
            raise _schema(
                '"base" must be a document hash: "sha256:" and 64 lowercase hex digits', "/base"
            )
    if "transactions" not in value:
        raise _schema('the patch has no "transactions" member (an array)', "")
    transactions = value["transactions"]
    if type(transactions) is not list:
        raise _schema(
            f'"transactions" must be an array, found {_json_type(transactions)}', "/transactions"
        )
    if len(transactions) > limits.max_transactions:
        raise NuifError(
            "NUIF_LIMIT_TRANSACTIONS",
            f"the patch has {len(transactions)} transactions; the limit is "
            f"{limits.max_transactions}",
            pointer="/transactions",
        )
    total = 0
    for i, tx in enumerate(transactions):
        at = f"/transactions/{i}"
        if type(tx) is not dict:
            raise _schema(f"transactions/{i}: a transaction is a JSON object, found {_json_type(tx)}", at)
        for key in tx:
            if key not in ("label", "ops"):
                raise _schema(
                    f"transactions/{i}: unknown transaction member {_q(key)} (allowed: label, ops)",
                    at + "/" + key.replace("~", "~0").replace("/", "~1"),
                )
        if "label" in tx:
            label = tx["label"]
            if type(label) is not str:
                raise _schema(
                    f'transactions/{i}: "label" must be a string, found {_json_type(label)}',
                    at + "/label",
                )
            if len(label) > LABEL_MAX:
                raise _schema(
                    f"transactions/{i}: the label has {len(label)} characters; at most "
                    f"{LABEL_MAX} are allowed",
                    at + "/label",
                )
        if "ops" not in tx:
            raise _schema(f'transactions/{i}: the transaction has no "ops" member (an array)', at)
        ops = tx["ops"]
        if type(ops) is not list:
            raise _schema(f'transactions/{i}: "ops" must be an array, found {_json_type(ops)}', at + "/ops")
        if len(ops) > limits.max_operations_per_transaction:
            raise NuifError(
                "NUIF_LIMIT_OPERATIONS",
                f"transactions/{i}: the transaction has {len(ops)} operations; the limit is "
                f"{limits.max_operations_per_transaction} per transaction",
                pointer=at + "/ops",
            )
        total += len(ops)
        if total > limits.max_operations:
            raise NuifError(
                "NUIF_LIMIT_OPERATIONS",
                f"the patch has more than {limits.max_operations} operations (the limit per "
                f"patch), counting up to transactions/{i}",
                pointer="/transactions",
            )
    return transactions, base


class _Op:
    """One checked operation, ready to run."""

    __slots__ = ("name", "loc", "where", "args", "ids", "size", "height", "compiled")

    def __init__(self, name: str, loc: str, where: str, args: dict[str, Any]) -> None:
        self.name = name
        self.loc = loc
        self.where = where
        self.args = args
        self.ids: list[tuple[str, str]] = []
        self.size = 0
        self.height = 0
        self.compiled: Any = None

    def error(self, code: str, message: str, member: str = "") -> NuifError:
        return NuifError(code, f"{self.where} ({self.name}): {message}", pointer=self.loc + member)


class _Transaction:
    __slots__ = ("label", "ops")

    def __init__(self, label: str | None, ops: list[_Op]) -> None:
        self.label = label
        self.ops = ops


def _subtree(node: dict[str, Any], rel: str, op: _Op) -> int:
    """Normalize a carried (already checked) node in place; collect ids; return its JSON height."""
    op.size += 1
    op.ids.append((node["id"], rel + "/id"))
    height = 1
    attrs = node.get("attrs")
    if attrs is not None:
        if attrs:
            deepest = 0
            for v in attrs.values():
                t = type(v)
                if t is dict or t is list:
                    d = value_depth(v)
                    if d > deepest:
                        deepest = d
            height = 2 + deepest
        else:
            del node["attrs"]
    children = node.get("children")
    if children is not None:
        if children:
            deepest = 0
            for k, child in enumerate(children):
                h = _subtree(child, f"{rel}/children/{k}", op)
                if h > deepest:
                    deepest = h
            if 2 + deepest > height:
                height = 2 + deepest
        else:
            del node["children"]
    return height


def _compile_op(raw: Any, i: int, j: int, limits: Limits) -> _Op:
    loc = f"/transactions/{i}/ops/{j}"
    where = f"transactions/{i}/ops/{j}"
    if type(raw) is not dict:
        raise _schema(f"{where}: an operation is a JSON object, found {_json_type(raw)}", loc)
    name = raw.get("op")
    if type(name) is not str or name not in OP_MEMBERS:
        if "op" not in raw:
            raise _schema(f'{where}: the operation has no "op" member', loc)
        shown = _q(name) if type(name) is str else _json_type(name)
        raise _schema(
            f"{where}: unknown op {shown} (insert, remove, move, replace, set, unset, edit, "
            "retype, rename, meta, test)",
            loc + "/op",
        )
    op = _Op(name, loc, where, raw)
    required, optional = OP_MEMBERS[name]
    for key in raw:
        if key != "op" and key not in required and key not in optional:
            allowed = ", ".join(("op",) + required + optional)
            raise op.error(
                "NUIF_PATCH_SCHEMA",
                f"unknown member {_q(key)} (allowed: {allowed})",
                "/" + key.replace("~", "~0").replace("/", "~1"),
            )
    for key in required:
        if key not in raw:
            raise op.error("NUIF_PATCH_SCHEMA", f'the operation has no "{key}" member')
    for key in ("id", "parent", "attr", "kind", "to", "hash"):
        if key in raw and type(raw[key]) is not str:
            raise op.error(
                "NUIF_PATCH_SCHEMA", f'"{key}" must be a string, found {_json_type(raw[key])}', "/" + key
            )
    if "index" in raw:
        index = raw["index"]
        if type(index) is float and index.is_integer():
            raw["index"] = index = int(index)
        if type(index) is not int:
            raise op.error(
                "NUIF_PATCH_SCHEMA", f'"index" must be an integer, found {_json_type(index)}', "/index"
            )
    if "node" in raw:
        checker = Checker(limits, 1)
        checker.node_tree(raw["node"], loc + "/node")
        if checker.found:
            code, message, pointer, _ = checker.found[0]
            raise NuifError(code, f"{where} ({name}): {message}", pointer=pointer)
        op.height = _subtree(raw["node"], "", op)
    if name == "set":
        problem = attr_problem(raw["attr"])
        if problem is not None:
            raise op.error("NUIF_ATTR", problem, "/attr")
    elif name == "retype":
        problem = kind_problem(raw["kind"])
        if problem is not None:
            raise op.error("NUIF_KIND", problem, "/kind")
    elif name == "rename":
        problem = id_problem(raw["to"])
        if problem is not None:
            raise op.error("NUIF_ID", problem, "/to")
    elif name == "test":
        if ("attr" in raw) != ("value" in raw):
            raise op.error("NUIF_PATCH_SCHEMA", 'a test names "attr" and "value" together')
        if "kind" not in raw and "attr" not in raw and "hash" not in raw:
            raise op.error(
                "NUIF_PATCH_SCHEMA", 'a test needs at least one of "kind", "attr" + "value", "hash"'
            )
    if "patch" in raw:
        try:
            op.compiled = compile_json_patch(raw["patch"])
        except NuifError as exc:
            raise op.error(exc.code, exc.message, "/patch" + (exc.pointer or "")) from None
    return op


def read_patch(
    patch: Any, limits: Limits | None = None, base: str | None = None
) -> list[_Transaction]:
    """Read and check a whole patch (text, size, shape, limits, ``base``) without running it.

    ``base``: the hash of the target document; a patch whose ``base`` differs is
    NUIF_PATCH_BASE_MISMATCH (checked right after the header, before any operation is read).
    """
    return _read_patch(patch, _limits(limits), base)[0]


def _read_patch(
    patch: Any, lim: Limits, base: str | None
) -> tuple[list[_Transaction], int]:
    """:func:`read_patch`, and the length of the patch text in bytes (for the work budget)."""
    value, nbytes = _load_patch(patch, lim)
    transactions, patch_base = _read_header(value, lim)
    if patch_base is not None and base is not None and patch_base != base:
        raise NuifError(
            "NUIF_PATCH_BASE_MISMATCH",
            f"the patch was made for the document {patch_base}, but this document is {base}",
            pointer="/base",
        )
    out = []
    for i, tx in enumerate(transactions):
        ops = [_compile_op(raw, i, j, lim) for j, raw in enumerate(tx["ops"])]
        out.append(_Transaction(tx.get("label"), ops))
    return out, nbytes


# ---------------------------------------------------------------------------------------------
# the working copy


class _Order:
    """Where each child of one ``children`` list is, without scanning the list per lookup.

    ``pos`` maps a child's id to its index when ``log`` had ``marks.get(id, 0)`` entries;
    ``log`` records every insert ``(i, 1)`` and removal ``(i, -1)`` since the map was built, so a
    position is the recorded index corrected by the changes after its mark, then checked by
    identity.  When the correction would replay more than ``limit`` changes the map is rebuilt
    (one C-speed pass over the list); a rebuild needs ``limit`` ≈ 2√width changes first, so each
    positional operation costs O(√width) amortized instead of O(width).
    """

    __slots__ = ("kids", "pos", "marks", "log", "limit")

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


class _Counts:
    __slots__ = (
        "operations", "nodes_inserted", "nodes_removed", "nodes_moved",
        "attrs_set", "attrs_unset", "attrs_edited",
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


class Session:
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

    __slots__ = (
        "_limits", "_doc", "_nodes", "_parents", "_canonical", "_hash", "_base", "_log",
        "_undoable", "_attrs_bytes", "_size", "_meta_size", "_meter", "_hashes", "_heights",
        "_orders", "_work", "_shifted",
    )  # fmt: skip

    def __init__(self, document: Text, *, limits: Limits | None = None) -> None:
        self._init(document, _limits(limits), True)

    @classmethod
    def _scratch(cls, document: Text, limits: Limits) -> Session:
        """A session that will be thrown away on failure (no undo log needed)."""
        self = cls.__new__(cls)
        self._init(document, limits, False)
        return self

    def _init(self, document: Text, limits: Limits, undoable: bool) -> None:
        _, canonical, doc = parse_canonical(document, limits)
        self._init_model(canonical, doc, limits, undoable)

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
        self._log: list[tuple[Any, ...]] | None = None
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
        """The hash of the document this session started from."""
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
        append(b'{"meta":' + dumps(meta, depth) + b',"nuif":0,"root":' if meta else b'{"nuif":0,"root":')
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
                head = b'{"attrs":' + dumps(attrs, depth) + b"," if attrs else b"{"
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
            raise NuifError("NUIF_PATCH_NOT_FOUND", f"no node has the id {_q(node_id)}")
        return node

    def node(self, node_id: str) -> dict[str, Any]:
        """A copy of the node ``node_id`` (its whole subtree, normalized); NUIF_PATCH_NOT_FOUND."""
        return copy_json(self._get(node_id))  # type: ignore[no-any-return]

    def parent(self, node_id: str) -> str | None:
        """The id of the parent of ``node_id`` (None for the root); NUIF_PATCH_NOT_FOUND."""
        self._get(node_id)
        p = self._parents[node_id]
        return None if p is None else p["id"]  # type: ignore[no-any-return]

    def index(self, node_id: str) -> int | None:
        """The position of ``node_id`` among its parent's children (None for the root)."""
        node = self._get(node_id)
        p = self._parents[node_id]
        return None if p is None else self._position(p["children"], node)

    def node_hash(self, node_id: str) -> str:
        """The node hash of ``node_id`` (NUIF-0 §3)."""
        return self._node_hash(self._get(node_id))

    # -- applying ------------------------------------------------------------------------------

    def apply(self, patch: Any, *, inverse: bool = False) -> PatchResult:
        """Apply a whole patch (text, or a parsed mapping) atomically; returns its result.

        The result's ``base`` is the hash before this call; when the patch has a ``base`` it
        must equal that hash (NUIF_PATCH_BASE_MISMATCH).
        """
        transactions, nbytes = _read_patch(patch, self._limits, self.hash)
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
        transactions, nbytes = _read_patch(
            {"nuif_patch": 0, "transactions": [tx]}, self._limits, None
        )
        return self._run(transactions, inverse, nbytes)

    def _run(
        self, transactions: list[_Transaction], want_inverse: bool, patch_bytes: int
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
                        raise op.error(
                            "NUIF_TOO_LARGE",
                            f"the document would be {self._size} bytes of canonical text; the "
                            f"limit is {limit} bytes",
                            _SIZE_MEMBER.get(op.name, ""),
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
                raise NuifError(
                    "NUIF_TOO_LARGE",
                    f"the patched document would be {len(canonical)} bytes of canonical text; "
                    f"the limit is {limit} bytes",
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
            lim.max_depth + _WRAP_DEPTH,
        )
        if len(text) <= lim.max_patch_bytes:
            return text
        from ._diff import diff

        try:
            return diff(after, before, limits=lim)
        except NuifError as exc:
            raise NuifError(
                "NUIF_TOO_LARGE",
                f"the inverse patch would be {len(text)} bytes (the limit is "
                f"{lim.max_patch_bytes}) and no shorter patch turns the result back "
                f"({exc.message}); apply it without an inverse, or in smaller patches",
            ) from None

    def _rollback(self, size0: int, meta_size0: int | None) -> None:
        log = self._log
        if log:
            for entry in reversed(log):
                kind = entry[0]
                if kind == 0:
                    _, container, key, old = entry
                    if old is _MISSING:
                        del container[key]
                    else:
                        container[key] = old
                elif kind == 1:
                    del entry[1][entry[2]]
                else:
                    entry[1].insert(entry[2], entry[3])
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
            log.append((0, container, key, container.get(key, _MISSING)))
        container[key] = value

    def _ddel(self, container: dict[str, Any], key: str) -> None:
        log = self._log
        if log is not None:
            log.append((0, container, key, container[key]))
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
            self._log.append((1, kids, index))
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
            self._log.append((2, kids, index, node))
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
            self._log.append((0, kids, index, old))
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
        order.pos = dict(zip(map(_get_id, kids), range(n)))
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
                log.append((0, nodes, nid, nodes.get(nid, _MISSING)))
                log.append((0, parents, nid, parents.get(nid, _MISSING)))
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
                log.append((0, nodes, nid, nodes[nid]))
                log.append((0, parents, nid, parents[nid]))
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
            self._charge(_DUMPS_UNITS * len(text))
            h = self._hashes[nid] = hash_bytes(text)
        return h

    def _measure(self, value: Any) -> int:
        """Canonical size of a value or subtree that leaves the document (charged)."""
        text = _codec.dumps(value, self._limits.max_depth)
        self._charge(_DUMPS_UNITS * len(text))
        return len(text)

    # -- checks --------------------------------------------------------------------------------

    def _find(self, op: _Op, member: str = "id") -> dict[str, Any]:
        node_id = op.args[member]
        node = self._nodes.get(node_id)
        if node is None:
            raise op.error("NUIF_PATCH_NOT_FOUND", f"no node has the id {_q(node_id)}", "/" + member)
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

    def _placed_value(self, op: _Op, node: dict[str, Any], value: Any, member: str) -> int:
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

    def _check_node_depth(self, op: _Op, tree_depth: int, height: int) -> None:
        total = 2 * tree_depth - 1 + height
        if total > self._limits.max_depth:
            raise op.error(
                "NUIF_DEPTH",
                f"the node would nest the document {total} levels deep; the limit is "
                f"{self._limits.max_depth}",
                "/node" if "node" in op.args else "/parent",
            )

    def _check_node_count(self, op: _Op, count: int) -> None:
        if count > self._limits.max_nodes:
            raise op.error(
                "NUIF_LIMIT_NODES",
                f"the document would have {count} nodes; the limit is {self._limits.max_nodes}",
                "/node",
            )

    def _check_new_ids(self, op: _Op, allowed: set[str] | None = None) -> None:
        nodes = self._nodes
        for nid, rel in op.ids:
            if nid in nodes and (allowed is None or nid not in allowed):
                raise op.error(
                    "NUIF_PATCH_ID_EXISTS",
                    f"id {_q(nid)} is already used in the document",
                    "/node" + rel,
                )

    def _index_arg(self, op: _Op, length: int) -> int:
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

    # -- operations ----------------------------------------------------------------------------
    # Each handler changes the working copy, keeps ``_size`` (the canonical size) exact, and
    # returns the operation that undoes it (or None).

    def _op_insert(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
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

    def _op_remove(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        parent = self._parents[node["id"]]
        if parent is None:
            raise op.error("NUIF_PATCH_ROOT", "the root cannot be removed (replace it instead)", "/id")
        kids = parent["children"]
        index = self._position(kids, node)
        self._size -= self._measure(node) + (1 if len(kids) > 1 else _CHILDREN_WRAP)
        self._touch(parent)
        self._child_pop(parent, index)
        counts.nodes_removed += self._unindex_subtree(node)
        return {"op": "insert", "parent": parent["id"], "index": index, "node": node}

    def _op_move(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
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
                    f"node {_q(node['id'])} cannot move into its own subtree "
                    f"(under {_q(new_parent['id'])})",
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
        self._dset(parents, node["id"], new_parent)  # type: ignore[arg-type]
        counts.nodes_moved += 1
        return {"op": "move", "id": node["id"], "parent": old_parent["id"], "index": old_index}

    def _op_replace(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
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

    def _op_set(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
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
        old = attrs.get(name, _MISSING)
        if old is _MISSING:
            self._size += 1 + len(name) + 3 + size  # ,"name":value (names are never escaped)
        else:
            self._size += size - self._measure(old)
        if self._log is not None:
            self._log.append((0, attrs, name, old))
        attrs[name] = value
        self._attrs_bytes.pop(node["id"], None)
        self._touch(node)
        counts.attrs_set += 1
        if old is _MISSING:
            return {"op": "unset", "id": node["id"], "attr": name}
        return {"op": "set", "id": node["id"], "attr": name, "value": old}

    def _attr(self, op: _Op, node: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        name = op.args["attr"]
        attrs = node.get("attrs")
        if not attrs or name not in attrs:
            raise op.error(
                "NUIF_PATCH_ATTR_MISSING",
                f"node {_q(node['id'])} has no attribute {_q(name)}",
                "/attr",
            )
        return attrs, attrs[name]

    def _op_unset(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
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

    def _json_patch(self, op: _Op, value: Any, env: Env) -> tuple[Any, int, Any]:
        try:
            return run_tracked(value, op.compiled, env)
        except NuifError as exc:
            raise op.error(exc.code, exc.message, "/patch" + (exc.pointer or "")) from None

    def _op_edit(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
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

    def _op_retype(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        old = node["kind"]
        self._size += len(op.args["kind"]) - len(old)  # kinds are never escaped
        self._dset(node, "kind", op.args["kind"])
        self._touch(node)
        return {"op": "retype", "id": node["id"], "kind": old}

    def _op_rename(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        node = self._find(op)
        old = node["id"]
        new = op.args["to"]
        if new != old:
            if new in self._nodes:
                raise op.error("NUIF_PATCH_ID_EXISTS", f"id {_q(new)} is already used", "/to")
            self._touch(node)
            parent = self._parents[old]
            self._attrs_bytes.pop(old, None)
            self._size += len(new) - len(old)  # ids are never escaped
            self._dset(node, "id", new)
            self._ddel(self._nodes, old)
            self._dset(self._nodes, new, node)
            self._ddel(self._parents, old)  # type: ignore[arg-type]
            self._dset(self._parents, new, parent)  # type: ignore[arg-type]
            if parent is not None:
                order = self._orders.get(id(parent["children"]))
                if order is not None and old in order.pos:
                    order.pos[new] = order.pos.pop(old)
                    mark = order.marks.pop(old, None)
                    if mark is not None:
                        order.marks[new] = mark
        return {"op": "rename", "id": new, "to": old}

    def _op_meta(self, op: _Op, counts: _Counts, inv: bool) -> dict[str, Any]:
        doc = self._doc
        lim = self._limits
        old = doc.get("meta", _MISSING)
        if self._meta_size is None:
            self._meta_size = 0 if old is _MISSING else self._measure(old)
        present = old is not _MISSING
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
        new, delta, undo = self._json_patch(op, {} if old is _MISSING else old, env)
        if type(new) is not dict:
            raise op.error(
                "NUIF_SCHEMA", f'"meta" must stay an object; the patch makes it {_json_type(new)}',
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

    def _op_test(self, op: _Op, counts: _Counts, inv: bool) -> None:
        node = self._find(op)
        args = op.args
        if "kind" in args and node["kind"] != args["kind"]:
            raise op.error(
                "NUIF_PATCH_TEST_FAILED",
                f"node {_q(node['id'])} has kind {_q(node['kind'])}, not {_q(args['kind'])}",
                "/kind",
            )
        if "attr" in args:
            attrs = node.get("attrs") or {}
            name = args["attr"]
            if name not in attrs:
                raise op.error(
                    "NUIF_PATCH_TEST_FAILED",
                    f"node {_q(node['id'])} has no attribute {_q(name)}",
                    "/attr",
                )
            if not json_equal(attrs[name], args["value"]):
                raise op.error(
                    "NUIF_PATCH_TEST_FAILED",
                    f"attribute {_q(name)} of node {_q(node['id'])} is not equal to the test value",
                    "/value",
                )
        if "hash" in args:
            actual = self._node_hash(node)
            if actual != args["hash"]:
                raise op.error(
                    "NUIF_PATCH_TEST_FAILED",
                    f"node {_q(node['id'])} has the hash {actual}, not {args['hash']}",
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


def apply_patch(
    document: Text, patch: Any, *, inverse: bool = False, limits: Limits | None = None
) -> PatchResult:
    """Apply a NUIF patch to a document; returns a :class:`PatchResult`.

    ``document`` and ``patch`` are NUIF text (``str`` or ``bytes``; ``patch`` may also be an
    already-parsed mapping).  Neither is mutated.  The patch is atomic: the first failing
    operation raises :class:`NuifError` whose pointer is into the patch
    (``/transactions/i/ops/j…``) and whose message starts ``transactions/i/ops/j (op):``.
    ``inverse=True`` also returns the inverse patch (canonical text, ``base`` = the new hash).
    """
    return _apply(document, patch, inverse, limits)[0]


def _apply(
    document: Text, patch: Any, inverse: bool, limits: Limits | None
) -> tuple[PatchResult, int]:
    """:func:`apply_patch`, and the metered work it did apart from list shifts (for tests and
    benchmarks; ``Session._shifted`` has the shifts)."""
    lim = _limits(limits)
    data = as_bytes(document, lim.max_document_bytes)
    canonical, doc = _canonical_bytes(data, lim)
    base = hash_bytes(canonical)
    transactions, nbytes = _read_patch(patch, lim, base)
    session: Session | None = None
    if doc is None and _spliceable(transactions):
        session = _SpliceSession._open(canonical, base, transactions, lim)
    if session is None:
        session = Session.__new__(Session)
        session._init_model(canonical, _model(data, canonical, doc, lim), lim, False)
    result = session._run(transactions, inverse, nbytes)
    return result, session._work - session._shifted


#: operations that touch only one node's ``attrs`` or ``kind`` (or ``meta``): a patch made of
#: these can run on a :class:`_SpliceSession`
_SPLICE_OPS = frozenset({"set", "unset", "edit", "retype", "test", "meta"})


def _spliceable(transactions: list[_Transaction]) -> bool:
    for tx in transactions:
        for op in tx.ops:
            if op.name not in _SPLICE_OPS or (op.name == "test" and "hash" in op.args):
                return False
    return True


class _SpliceSession(Session):
    """A scratch session for patches that only change node attributes and kinds (and ``meta``).

    It never builds the whole model.  ``_codec.node_spans`` locates every node in the base
    canonical text; only the nodes the patch names are parsed, as childless
    ``{"attrs", "id", "kind"}`` dicts, and the operation handlers of :class:`Session` run on
    them unchanged (``_depth`` reads the depth from the spans).  The result is the base text
    with the head (``{"attrs":…,``) and the kind of each of those nodes written again (and the
    ``{"meta":…,`` prefix when a ``meta`` operation ran): every other byte is copied.
    """

    __slots__ = ("_text0", "_spans", "_root_start", "_meta_loaded")

    @classmethod
    def _open(
        cls, canonical: bytes, base: str, transactions: list[_Transaction], limits: Limits
    ) -> _SpliceSession | None:
        """The session, or None when the text does not allow it (the caller takes the full
        path, which gives the same result or error)."""
        loads = _codec.loads
        depth = limits.max_depth
        nodes: dict[str, dict[str, Any]] = {}
        doc: dict[str, Any] = {}
        meta_loaded = False
        try:
            root_start, spans = _codec.node_spans(canonical)
            for tx in transactions:
                for op in tx.ops:
                    if op.name == "meta":
                        if not meta_loaded and root_start > 17:
                            doc["meta"] = loads(canonical[8 : root_start - 17], depth)
                        meta_loaded = True
                        continue
                    nid = op.args["id"]
                    if nid in nodes:
                        continue
                    span = spans.get(nid)
                    if span is None:
                        continue  # _find raises NUIF_PATCH_NOT_FOUND, as on the full model
                    start, head_end, kind_start, kind_end, _ = span
                    node: dict[str, Any] = {}
                    if head_end - start > 1:
                        node["attrs"] = loads(canonical[start + 9 : head_end - 1], depth)
                    node["id"] = nid
                    node["kind"] = canonical[kind_start + 1 : kind_end - 1].decode("ascii")
                    nodes[nid] = node
        except (NuifError, ValueError):
            # a text without the canonical layout node_spans expects: the full model answers
            return None
        self = cls.__new__(cls)
        self._limits = limits
        self._doc = doc
        self._nodes = nodes
        self._parents = {}
        self._init_state(canonical, base, False)
        self._text0 = canonical
        self._spans = spans
        self._root_start = root_start
        self._meta_loaded = meta_loaded
        return self

    def _depth(self, node: dict[str, Any]) -> int:
        return self._spans[node["id"]][4]

    def _serialize(self) -> bytes:
        dumps = _codec.dumps
        depth = self._limits.max_depth
        text = memoryview(self._text0)
        spans = self._spans
        out: list[Any] = []
        append = out.append
        pos = 0
        if self._meta_loaded:
            meta = self._doc.get("meta")
            append(b'{"meta":' + dumps(meta, depth) + b',"nuif":0,"root":' if meta else b'{"nuif":0,"root":')
            pos = self._root_start
        # a node's head and its kind are two separate edits: the node's children (which may be
        # edited too) lie between them
        edits: list[tuple[int, int, bytes]] = []
        for nid, node in self._nodes.items():
            start, head_end, kind_start, kind_end, _ = spans[nid]
            attrs = node.get("attrs")
            edits.append(
                (start, head_end, b'{"attrs":' + dumps(attrs, depth) + b"," if attrs else b"{")
            )
            edits.append((kind_start, kind_end, dumps(node["kind"], depth)))
        edits.sort()
        for start, end, new in edits:
            append(text[pos:start])
            append(new)
            pos = end
        append(text[pos:])
        return b"".join(out)
