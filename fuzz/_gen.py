"""Structured inputs built from fuzz bytes (``atheris.FuzzedDataProvider``).

Raw-byte mutation rarely gets past the parser into the schema, patch and diff logic; these
generators turn the bytes into JSON values, NUIF documents (mostly valid, sometimes broken on
purpose), semantic patches aimed at the ids of a document, and edits of a document tree.
Every choice is drawn from the provider, so libFuzzer's mutations steer them.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import Any

import atheris

FDP = atheris.FuzzedDataProvider

GOOD_IDS = ["a", "b", "c", "x.1", "n:2", "_", "9", "a-b", "root"]
BAD_IDS = ["", "-x", ".x", "a b", "é", "a" * 129, "x/y"]
GOOD_KINDS = ["screen", "button", "ui:button", "acme.cards/header", "a-b", "x1"]
BAD_KINDS = ["", "Button", "1x", "a..b", "a/", "x" * 65, "é"]
GOOD_ATTRS = ["label", "aria-label", "on:click", "$x", "@y", "_", "type", "a.b"]
BAD_ATTRS = ["", "1bad", "a b", "-x", "é", "a" * 129]
STRINGS = [
    "",
    "a",
    "Sign in",
    "é",
    "\u2028",
    "\U0001f600",
    "\ue000",
    "\uffef",
    "\x00",
    "\x1f",
    "\x7f",
    '"',
    "\\",
    "/",
    "\ufeff",
    "\U0010fffd",
    "~0~1",
    "a/b",
]
#: only in values handed to dumps (never in text): refused with NUIF_UNICODE
BAD_STRINGS = ["\ud800", "\udc00", "\ufdd0", "\uffff", "\U0001fffe"]
NUMBERS: list[Any] = [
    0,
    1,
    -1,
    2**53 - 1,
    -(2**53 - 1),
    0.5,
    -0.0,
    1e21,
    1e-7,
    1e-6,
    999999999999999900000.0,
    3.333333333333333e20,
    2.0**53,
    5e-324,
    1.7976931348623157e308,
    123456789.125,
    1e300,
    0.1,
]


def pick(fdp: FDP, items: list[Any]) -> Any:
    return items[fdp.ConsumeIntInRange(0, len(items) - 1)]


def number(fdp: FDP) -> Any:
    way = fdp.ConsumeIntInRange(0, 5)
    if way == 0:
        return pick(fdp, NUMBERS)
    if way == 1:
        return fdp.ConsumeIntInRange(-1000, 1000)
    if way == 2:
        x = struct.unpack("<d", fdp.ConsumeBytes(8).ljust(8, b"\0"))[0]
        return 0.0 if x != x or x in (float("inf"), float("-inf")) else x
    if way == 3:  # an integral double, often in the [2^53, 1e21) band
        return float(fdp.ConsumeIntInRange(2**50, 10**21)) * pick(fdp, [1, -1])
    if way == 4:
        return fdp.ConsumeIntInRange(-(2**53 - 1), 2**53 - 1)
    # an int beyond 2^53 - 1 whose digits are the RFC 8785 text of a double (a literal NUIF-0.1
    # accepts: shortest digits padded with zeros), or now and then one off it (refused)
    x = float(fdp.ConsumeIntInRange(2**53, 10**21)) * pick(fdp, [1, -1])
    n = int(Decimal(repr(x)))
    return n + pick(fdp, [0, 0, 0, 1, -1, 10 ** fdp.ConsumeIntInRange(0, 6)])


def string(fdp: FDP) -> str:
    if fdp.ConsumeBool():
        return pick(fdp, STRINGS)
    return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))


def deep(fdp: FDP, levels: int, leaf: Any = 0) -> Any:
    """``levels`` nested arrays/objects around ``leaf`` (depth-limit edges: 128 by default)."""
    out = leaf
    for i in range(levels):
        out = [out] if (i + levels) % 3 else {"k": out}
    return out


def value(fdp: FDP, depth: int = 0, max_depth: int = 4) -> Any:
    """A JSON value (only text-representable content: no surrogates, no noncharacters).

    Now and then (at the top level) a value nested close to the default depth limit."""
    if depth == 0 and fdp.ConsumeIntInRange(0, 31) == 0:
        return deep(fdp, fdp.ConsumeIntInRange(100, 127))
    kind = fdp.ConsumeIntInRange(0, 7 if depth < max_depth else 4)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return number(fdp)
    if kind in (3, 4):
        s = string(fdp)
        return s if not any(_nonchar(c) for c in s) else "x"
    if kind == 5:
        return [value(fdp, depth + 1, max_depth) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    out = {}
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        out[pick(fdp, GOOD_ATTRS + STRINGS[:6])] = value(fdp, depth + 1, max_depth)
    return out


def _nonchar(c: str) -> bool:
    cp = ord(c)
    return 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE or 0xD800 <= cp <= 0xDFFF


def py_value(fdp: FDP, depth: int = 0) -> Any:
    """A Python value for ``dumps``: also tuples, big ints, nan/inf, bad strings, bad keys,
    unsupported types."""
    kind = fdp.ConsumeIntInRange(0, 11 if depth < 5 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return number(fdp)
    if kind == 3:
        # up to 2^71: beyond ±(2^53 - 1) NUIF_NUMBER unless the digits are a double's RFC 8785 text
        return fdp.ConsumeInt(9)
    if kind == 4:
        return pick(fdp, [float("nan"), float("inf"), -float("inf"), fdp.ConsumeFloat()])
    if kind == 5:
        return pick(fdp, STRINGS + BAD_STRINGS)
    if kind == 6:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 8))  # may hold surrogates
    if kind == 7:
        return [py_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    if kind == 8:
        return tuple(py_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3)))
    if kind == 9:
        out: dict[Any, Any] = {}
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            key = (
                pick(fdp, STRINGS + BAD_STRINGS)
                if fdp.ConsumeIntInRange(0, 9)
                else pick(fdp, [1, None, b"k", ("t",), True])
            )
            out[key] = py_value(fdp, depth + 1)
        return out
    if kind == 10:
        return pick(fdp, [b"bytes", {1, 2}, object(), 1j, bytearray(b"x")])
    s = fdp.ConsumeUnicodeNoSurrogates(4)
    return {s: py_value(fdp, depth + 1), s + "\U00010000": 1, s + "\ue000": 2}


# -- documents -----------------------------------------------------------------------------------


class DocGen:
    """Builds a document tree; ``broken`` lets it emit schema errors as well."""

    def __init__(self, fdp: FDP, broken: bool, max_nodes: int = 12) -> None:
        self.fdp = fdp
        self.broken = broken
        self.max_nodes = max_nodes
        self.count = 0
        self.ids: list[str] = []

    def _defect(self) -> bool:
        return self.broken and self.fdp.ConsumeIntInRange(0, 15) == 0

    def new_id(self) -> Any:
        if self._defect():
            return pick(self.fdp, BAD_IDS + GOOD_IDS + [3, None])
        n = f"n{self.count}" if self.fdp.ConsumeIntInRange(0, 3) else pick(self.fdp, GOOD_IDS)
        while n in self.ids:
            n += "x"
        return n

    def _fresh(self) -> str:
        self.count += 1
        nid = f"d{self.count}"
        self.ids.append(nid)
        return nid

    def node(self, depth: int = 1) -> Any:
        fdp = self.fdp
        self.count += 1
        if self._defect():
            return pick(fdp, [None, [], "node", {"id": "q"}])
        node: dict[str, Any] = {}
        nid = self.new_id()
        if isinstance(nid, str):
            self.ids.append(nid)
        node["id"] = nid
        node["kind"] = pick(fdp, BAD_KINDS + [1]) if self._defect() else pick(fdp, GOOD_KINDS)
        if fdp.ConsumeBool():
            attrs = {}
            for _ in range(fdp.ConsumeIntInRange(0, 3)):
                name = pick(fdp, BAD_ATTRS) if self._defect() else pick(fdp, GOOD_ATTRS)
                attrs[name] = value(fdp, 0, 3)
            node["attrs"] = attrs
        if depth == 1 and fdp.ConsumeIntInRange(0, 31) == 0:
            # a chain of nodes close to the depth limit (a node at tree depth k is 2k deep)
            chain: dict[str, Any] = {"id": self._fresh(), "kind": "leaf"}
            for _ in range(fdp.ConsumeIntInRange(40, 62)):
                chain = {"id": self._fresh(), "kind": "link", "children": [chain]}
            node["children"] = [chain]
        elif fdp.ConsumeIntInRange(0, 2) and depth < 6:
            children = []
            for _ in range(fdp.ConsumeIntInRange(0, 3)):
                if self.count >= self.max_nodes:
                    break
                children.append(self.node(depth + 1))
            node["children"] = children
        if self._defect():
            node[pick(fdp, ["extra", "attrs", "children"])] = pick(fdp, [1, "x", None, {}])
        order = list(node.items())
        if fdp.ConsumeBool():
            order.reverse()
        return dict(order)

    def document(self) -> Any:
        fdp = self.fdp
        doc: dict[str, Any] = {"nuif": 0}
        if self._defect():
            doc["nuif"] = pick(fdp, [1, 0.0, -0.0, "0", None, 1e21, True])
        doc["root"] = self.node()
        if fdp.ConsumeBool():
            doc["meta"] = value(fdp, 1, 3) if not self._defect() else pick(fdp, [1, [], None])
            if not isinstance(doc["meta"], dict) and not self.broken:
                doc["meta"] = {"m": doc["meta"]}
        if self._defect():
            del doc[pick(fdp, ["nuif", "root"])]
        if self._defect():
            doc["extra"] = 1
        if fdp.ConsumeBool():
            doc = dict(reversed(list(doc.items())))
        return doc


def to_text(fdp: FDP, value_: Any) -> bytes:
    """JSON text of ``value_`` in one of several non-canonical spellings."""
    way = fdp.ConsumeIntInRange(0, 3)
    if way == 0:
        text = json.dumps(value_, ensure_ascii=False, separators=(",", ":"))
    elif way == 1:
        text = json.dumps(value_, ensure_ascii=True, indent=1)
    elif way == 2:
        text = json.dumps(value_, ensure_ascii=False, sort_keys=True, indent="\t")
    else:
        text = " " + json.dumps(value_, ensure_ascii=False) + "\r\n"
    return text.encode("utf-8", "surrogatepass")


# -- patches -------------------------------------------------------------------------------------

OPS = [
    "insert",
    "remove",
    "move",
    "replace",
    "set",
    "unset",
    "edit",
    "retype",
    "rename",
    "meta",
    "test",
]
JP_OPS = ["add", "remove", "replace", "move", "copy", "test"]
POINTERS = [
    "",
    "/",
    "/a",
    "/0",
    "/-",
    "/a/b",
    "/0/0",
    "/~0",
    "/~1",
    "/~2",
    "a",
    "/label",
    "/m",
    "/01",
    "/1",
]


def _json_patch(fdp: FDP) -> list[Any]:
    out = []
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        op: dict[str, Any] = {"op": pick(fdp, JP_OPS), "path": pick(fdp, POINTERS)}
        if op["op"] in ("add", "replace", "test") or fdp.ConsumeIntInRange(0, 7) == 0:
            op["value"] = value(fdp, 0, 3)
        if op["op"] in ("move", "copy") or fdp.ConsumeIntInRange(0, 7) == 0:
            op["from"] = pick(fdp, POINTERS)
        if fdp.ConsumeIntInRange(0, 15) == 0:
            del op[pick(fdp, list(op))]
        out.append(op)
    return out


def patch(fdp: FDP, ids: list[str], attrs: list[str], base: str | None) -> dict[str, Any]:
    """A semantic patch mostly aimed at existing ids and attributes."""

    def an_id() -> Any:
        r = fdp.ConsumeIntInRange(0, 9)
        if ids and r < 8:
            return pick(fdp, ids)
        return pick(fdp, GOOD_IDS + BAD_IDS[:3] + [1])

    def an_attr() -> Any:
        if attrs and fdp.ConsumeBool():
            return pick(fdp, attrs)
        return pick(fdp, GOOD_ATTRS + BAD_ATTRS[:2])

    def a_node() -> Any:
        gen = DocGen(fdp, broken=fdp.ConsumeIntInRange(0, 7) == 0, max_nodes=4)
        gen.ids = list(ids) if fdp.ConsumeIntInRange(0, 3) == 0 else []
        gen.count = len(ids) + fdp.ConsumeIntInRange(0, 50)
        return gen.node()

    def an_index() -> Any:
        return pick(fdp, [0, 1, 2, -1, 5, 0.0, "0", None, 2**53 - 1]) if fdp.ConsumeBool() else 0

    hostile = fdp.ConsumeIntInRange(0, 3) == 0  # shape defects in one patch out of four
    transactions = []
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        ops = []
        for _ in range(fdp.ConsumeIntInRange(0, 4)):
            name = pick(fdp, OPS)
            op: dict[str, Any] = {"op": name}
            if name == "insert":
                op["parent"], op["node"] = an_id(), a_node()
                if fdp.ConsumeBool():
                    op["index"] = an_index()
            elif name in ("remove",):
                op["id"] = an_id()
            elif name == "move":
                op["id"], op["parent"] = an_id(), an_id()
                if fdp.ConsumeBool():
                    op["index"] = an_index()
            elif name == "replace":
                op["id"], op["node"] = an_id(), a_node()
            elif name == "set":
                op["id"], op["attr"], op["value"] = an_id(), an_attr(), value(fdp, 0, 3)
            elif name == "unset":
                op["id"], op["attr"] = an_id(), an_attr()
            elif name == "edit":
                op["id"], op["attr"], op["patch"] = an_id(), an_attr(), _json_patch(fdp)
            elif name == "retype":
                op["id"] = an_id()
                op["kind"] = pick(fdp, GOOD_KINDS + BAD_KINDS[:2])
            elif name == "rename":
                op["id"] = an_id()
                op["to"] = pick(fdp, [f"r{fdp.ConsumeIntInRange(0, 9)}"] + GOOD_IDS + BAD_IDS[:2])
            elif name == "meta":
                op["patch"] = _json_patch(fdp)
            else:
                op["id"] = an_id()
                what = fdp.ConsumeIntInRange(1, 7)
                if what & 1:
                    op["kind"] = pick(fdp, GOOD_KINDS)
                if what & 2:
                    op["attr"], op["value"] = an_attr(), value(fdp, 0, 2)
                if what & 4:
                    op["hash"] = "sha256:" + (fdp.ConsumeBytes(32).hex().ljust(64, "0"))
            if hostile and fdp.ConsumeIntInRange(0, 7) == 0:
                op[pick(fdp, ["extra", "op", "id", "index"])] = pick(fdp, [None, 1, "x", []])
            if hostile and fdp.ConsumeIntInRange(0, 7) == 0 and len(op) > 1:
                del op[pick(fdp, list(op))]
            ops.append(op)
        tx: dict[str, Any] = {"ops": ops}
        if fdp.ConsumeIntInRange(0, 3) == 0:
            tx["label"] = pick(
                fdp, ["l", "x" * 256, "undo", "é"] + (["x" * 257, 1] if hostile else [])
            )
        transactions.append(tx)
    out: dict[str, Any] = {"nuif_patch": 0, "transactions": transactions}
    way = fdp.ConsumeIntInRange(0, 7)
    if way < 4 and base is not None:
        out["base"] = base
    elif way == 4 and hostile:
        out["base"] = pick(fdp, ["sha256:" + "0" * 64, "sha256:x", 1])
    elif way == 5 and hostile:
        out["nuif_patch"] = pick(fdp, [1, "0", None, 0.0, -0.0])
    return out


def document_and_patch(fdp: FDP) -> tuple[Any, bytes, dict[str, Any]]:
    """The patch targets' recipe: limits (``limits``), a generated document's text, and a patch
    aimed at its ids and attributes whose ``base`` is right, wrong or absent."""
    import _common as c

    import nuif_core

    lim = limits(fdp)
    gen = DocGen(fdp, broken=fdp.ConsumeIntInRange(0, 15) == 0)
    doc_value = gen.document()
    doc = to_text(fdp, doc_value)
    ids, attrs = ids_and_attrs(doc_value)
    h = c.outcome(nuif_core.document_hash, doc, limits=lim)
    return lim, doc, patch(fdp, ids, attrs, h[1] if h[0] == "ok" else None)


def ids_and_attrs(doc: Any) -> tuple[list[str], list[str]]:
    ids: list[str] = []
    attrs: list[str] = []
    stack = [doc.get("root")] if isinstance(doc, dict) else []
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("id"), str):
            ids.append(node["id"])
        if isinstance(node.get("attrs"), dict):
            attrs.extend(node["attrs"])
        if isinstance(node.get("children"), list):
            stack.extend(node["children"])
    return ids, attrs


# -- tree edits (for diff) -----------------------------------------------------------------------


def mutate_document(fdp: FDP, doc: dict[str, Any]) -> dict[str, Any]:
    """A second document derived from ``doc`` (ids persist, so diff can use move/set/...)."""
    doc = json.loads(json.dumps(doc))
    nodes: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(doc["root"], None)]
    while stack:
        node, parent = stack.pop()
        nodes.append((node, parent))
        for child in node.get("children", []):
            stack.append((child, node))
    counter = 0
    for _ in range(fdp.ConsumeIntInRange(0, 6)):
        node, parent = pick(fdp, nodes)
        what = fdp.ConsumeIntInRange(0, 8)
        if what == 0:
            node.setdefault("attrs", {})[pick(fdp, GOOD_ATTRS)] = value(fdp, 0, 3)
        elif what == 1 and node.get("attrs"):
            del node["attrs"][pick(fdp, list(node["attrs"]))]
        elif what == 2:
            node["kind"] = pick(fdp, GOOD_KINDS)
        elif what == 3 and parent is not None:  # move under another node (not into itself)
            target, _ = pick(fdp, nodes)
            if _contains(node, target):
                continue
            parent["children"].remove(node)
            kids = target.setdefault("children", [])
            kids.insert(fdp.ConsumeIntInRange(0, len(kids)), node)
            nodes = [(n, target if n is node else p) for n, p in nodes]
        elif what == 4 and node.get("children"):
            kids = node["children"]
            i, j = fdp.ConsumeIntInRange(0, len(kids) - 1), fdp.ConsumeIntInRange(0, len(kids) - 1)
            kids[i], kids[j] = kids[j], kids[i]
        elif what == 5:
            counter += 1
            kids = node.setdefault("children", [])
            new = {"id": f"new{counter}", "kind": pick(fdp, GOOD_KINDS)}
            if fdp.ConsumeBool():
                new["attrs"] = {"label": value(fdp, 0, 2)}
            kids.insert(fdp.ConsumeIntInRange(0, len(kids)), new)
        elif what == 6 and parent is not None and node in parent.get("children", []):
            parent["children"].remove(node)
            gone = _all(node)
            nodes = [(n, p) for n, p in nodes if not any(n is g for g in gone)]
        elif what == 7:
            doc["meta"] = value(fdp, 1, 3) if fdp.ConsumeBool() else {}
            if not isinstance(doc["meta"], dict):
                doc["meta"] = {"v": doc["meta"]}
        elif what == 8 and fdp.ConsumeBool():
            node["id"] = node["id"] + "r"  # a renamed id (the old one disappears)
        elif what == 8:
            node.setdefault("attrs", {})["deep"] = deep(fdp, fdp.ConsumeIntInRange(100, 125))
        if (
            parent is not None
            and node in parent.get("children", [])
            and fdp.ConsumeIntInRange(0, 3) == 0
        ):
            at = parent["children"].index(node)
            if fdp.ConsumeBool():  # unwrap: the node dies, its children persist one level up
                parent["children"][at : at + 1] = node.get("children", [])
                nodes = [(n, parent if p is node else p) for n, p in nodes if n is not node]
            else:  # wrap: a new node between the parent and this one
                counter += 1
                wrapper = {"id": f"wrap{counter}", "kind": "group", "children": [node]}
                parent["children"][at] = wrapper
                nodes = [(n, wrapper if n is node else p) for n, p in nodes] + [(wrapper, parent)]
    return doc


def _contains(node: dict[str, Any], target: dict[str, Any]) -> bool:
    return any(n is target for n in _all(node))


def _all(node: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.get("children", []))
    return out


# -- limits --------------------------------------------------------------------------------------


def limits(fdp: FDP, package: bool = False) -> Any:
    """``None`` (the defaults) three times in four, else tightened limits, so that the limit
    paths (node count, depth, cardinality, package sizes) are reached by small inputs.  Byte
    limits of texts stay at their defaults: a result or a diff may be longer than its input."""
    from nuif_core import Limits

    if fdp.ConsumeIntInRange(0, 3):
        return None
    changes = {
        "max_depth": fdp.ConsumeIntInRange(6, 128),
        "max_nodes": fdp.ConsumeIntInRange(2, 64),
        "max_transactions": fdp.ConsumeIntInRange(1, 4),
        "max_operations_per_transaction": fdp.ConsumeIntInRange(1, 8),
        "max_operations": fdp.ConsumeIntInRange(1, 16),
    }
    if package:
        changes.update(
            max_package_entries=fdp.ConsumeIntInRange(1, 8),
            max_asset_bytes=fdp.ConsumeIntInRange(1, 4096),
            max_package_bytes=fdp.ConsumeIntInRange(1, 16384),
        )
    return Limits(**changes)
