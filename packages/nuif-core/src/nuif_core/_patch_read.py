"""Reading a semantic patch (NUIF-0 §5): text, header, operations, all checked before anything runs.

This is not a public API.  A patch is read in three stages, each complete before the next
starts, so that nothing runs on a patch that is malformed, too big, or meant for another
document (the order of NUIF-0 §5.2, docs/spec/nuif-0.1-patches.md):

1. **text**: size limit (``max_patch_bytes``), strict I-JSON parse (depth limit);
2. **header**: the top-level shape, the cardinality limits (transactions, operations per
   transaction, operations per patch), then ``base`` against the document hash;
3. **operations**: the shape of every operation, and every value and node it carries checked
   against the document rules (§1, §3) — nodes are normalized here.

The result is a list of :class:`Transaction` of :class:`Op`, which the session (``_session``)
runs.
"""

from __future__ import annotations

import re
from typing import Any

from . import _codec
from ._document import as_bytes
from ._errors import NuifError
from ._jsonpatch import compile_json_patch
from ._limits import Limits, resolve_limits
from ._messages import quote
from ._rfc8785 import number_text
from ._schema import Checker, attr_problem, id_problem, json_type, kind_problem
from ._values import value_depth

__all__ = [
    "LABEL_MAX",
    "OP_MEMBERS",
    "WRAP_DEPTH",
    "Op",
    "Transaction",
    "load_patch",
    "read_patch",
    "read_patch_sized",
]

_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)
#: the longest transaction label, in characters
LABEL_MAX = 256
#: depth slack of patch text: the patches the engine writes (diff, inverse) wrap values in up to
#: 5 more levels than where they land, and patch text is read with the same slack
WRAP_DEPTH = 16

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


def _shape_error(message: str, pointer: str) -> NuifError:
    return NuifError("NUIF_PATCH_SCHEMA", message, pointer=pointer)


def load_patch(patch: Any, limits: Limits) -> tuple[Any, int]:
    """Patch text (str/bytes) or an already-parsed mapping → fresh, strictly checked values.

    Patch text is read with the same ``WRAP_DEPTH`` slack the engine writes patches with (diff,
    inverse): a patch carries values and nodes a few levels below where they land, so content
    at the document's depth limit needs a deeper patch.  Every carried value and node is still
    checked against ``max_depth`` where it lands, by the operation (NUIF_DEPTH).
    """
    depth = limits.max_depth + WRAP_DEPTH
    if isinstance(patch, dict):
        # a Python value: prove it is strict I-JSON and take a private copy in one round trip
        data = _codec.dumps(patch, depth)
        if len(data) > limits.max_patch_bytes:
            raise NuifError.too_large(
                f"the patch text is {len(data)} bytes", limits.max_patch_bytes
            )
        return _codec.loads(data, depth), len(data)
    data = as_bytes(patch, limits.max_patch_bytes, "patch")
    return _codec.loads(data, depth), len(data)


def _read_header(value: Any, limits: Limits) -> tuple[list[Any], str | None]:
    """Top-level shape and cardinality limits; returns ``(transactions, base)``."""
    if type(value) is not dict:
        raise _shape_error(f"a NUIF patch is a JSON object, found {json_type(value)}", "")
    for key in value:
        if key not in ("nuif_patch", "base", "transactions"):
            raise _shape_error(
                f"unknown patch member {quote(key)} (allowed: nuif_patch, base, transactions)",
                "/" + key.replace("~", "~0").replace("/", "~1"),
            )
    if "nuif_patch" not in value:
        raise _shape_error('the patch has no "nuif_patch" member (it must be 0)', "")
    version = value["nuif_patch"]
    if type(version) not in (int, float):
        raise _shape_error(
            f'"nuif_patch" must be the number 0, found {json_type(version)}', "/nuif_patch"
        )
    if version != 0:
        raise NuifError(
            "NUIF_VERSION",
            f"NUIF patch version {number_text(version)} is not supported; "
            "this implementation reads version 0",
            pointer="/nuif_patch",
        )
    base = value.get("base")
    if "base" in value and (type(base) is not str or _HASH_RE.fullmatch(base) is None):
        raise _shape_error(
            '"base" must be a document hash: "sha256:" and 64 lowercase hex digits', "/base"
        )
    if "transactions" not in value:
        raise _shape_error('the patch has no "transactions" member (an array)', "")
    transactions = value["transactions"]
    if type(transactions) is not list:
        raise _shape_error(
            f'"transactions" must be an array, found {json_type(transactions)}', "/transactions"
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
            raise _shape_error(
                f"transactions/{i}: a transaction is a JSON object, found {json_type(tx)}", at
            )
        for key in tx:
            if key not in ("label", "ops"):
                raise _shape_error(
                    f"transactions/{i}: unknown transaction member {quote(key)} (allowed: label, ops)",
                    at + "/" + key.replace("~", "~0").replace("/", "~1"),
                )
        if "label" in tx:
            label = tx["label"]
            if type(label) is not str:
                raise _shape_error(
                    f'transactions/{i}: "label" must be a string, found {json_type(label)}',
                    at + "/label",
                )
            if len(label) > LABEL_MAX:
                raise _shape_error(
                    f"transactions/{i}: the label has {len(label)} characters; at most "
                    f"{LABEL_MAX} are allowed",
                    at + "/label",
                )
        if "ops" not in tx:
            raise _shape_error(
                f'transactions/{i}: the transaction has no "ops" member (an array)', at
            )
        ops = tx["ops"]
        if type(ops) is not list:
            raise _shape_error(
                f'transactions/{i}: "ops" must be an array, found {json_type(ops)}', at + "/ops"
            )
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


class Op:
    """One checked operation, ready to run: its name, where it is in the patch (``loc``, a
    pointer; ``where``, for messages), its members, the ids and size of the node it carries,
    that node's JSON height and its compiled JSON Patch (``edit``, ``meta``)."""

    __slots__ = ("args", "compiled", "height", "ids", "loc", "name", "size", "where")

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


class Transaction:
    """One transaction: its label and its operations."""

    __slots__ = ("label", "ops")

    def __init__(self, label: str | None, ops: list[Op]) -> None:
        self.label = label
        self.ops = ops


def _subtree(node: dict[str, Any], rel: str, op: Op) -> int:
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


def _compile_op(raw: Any, i: int, j: int, limits: Limits) -> Op:
    loc = f"/transactions/{i}/ops/{j}"
    where = f"transactions/{i}/ops/{j}"
    if type(raw) is not dict:
        raise _shape_error(f"{where}: an operation is a JSON object, found {json_type(raw)}", loc)
    name = raw.get("op")
    if type(name) is not str or name not in OP_MEMBERS:
        if "op" not in raw:
            raise _shape_error(f'{where}: the operation has no "op" member', loc)
        shown = quote(name) if type(name) is str else json_type(name)
        raise _shape_error(
            f"{where}: unknown op {shown} (insert, remove, move, replace, set, unset, edit, "
            "retype, rename, meta, test)",
            loc + "/op",
        )
    op = Op(name, loc, where, raw)
    required, optional = OP_MEMBERS[name]
    for key in raw:
        if key != "op" and key not in required and key not in optional:
            allowed = ", ".join(("op",) + required + optional)
            raise op.error(
                "NUIF_PATCH_SCHEMA",
                f"unknown member {quote(key)} (allowed: {allowed})",
                "/" + key.replace("~", "~0").replace("/", "~1"),
            )
    for key in required:
        if key not in raw:
            raise op.error("NUIF_PATCH_SCHEMA", f'the operation has no "{key}" member')
    for key in ("id", "parent", "attr", "kind", "to", "hash"):
        if key in raw and type(raw[key]) is not str:
            raise op.error(
                "NUIF_PATCH_SCHEMA",
                f'"{key}" must be a string, found {json_type(raw[key])}',
                "/" + key,
            )
    if "index" in raw:
        index = raw["index"]
        if type(index) is float and index.is_integer():
            raw["index"] = index = int(index)
        if type(index) is not int:
            raise op.error(
                "NUIF_PATCH_SCHEMA",
                f'"index" must be an integer, found {json_type(index)}',
                "/index",
            )
    if "node" in raw:
        checker = Checker(limits.max_nodes, 1)
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
) -> list[Transaction]:
    """Read and check a whole patch (text, size, shape, limits, ``base``) without running it.

    ``base``: the hash of the target document; a patch whose ``base`` differs is
    NUIF_PATCH_BASE_MISMATCH (checked right after the header, before any operation is read).
    """
    return read_patch_sized(patch, resolve_limits(limits), base)[0]


def read_patch_sized(patch: Any, lim: Limits, base: str | None) -> tuple[list[Transaction], int]:
    """:func:`read_patch`, and the length of the patch text in bytes (for the work budget)."""
    value, nbytes = load_patch(patch, lim)
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
        out.append(Transaction(tx.get("label"), ops))
    return out, nbytes
