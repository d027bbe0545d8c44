"""The spliced session: attribute, kind and meta patches applied to the canonical text in place.

This is not a public API.  ``apply_patch`` (``_apply``) opens a :class:`SpliceSession` when every
operation of a patch touches only one node's ``attrs`` or ``kind`` (or ``meta``): the patch then
runs without the whole model, and the result is the base text with the touched nodes' heads and
kinds written again.
"""

from __future__ import annotations

from typing import Any

from . import _codec
from ._errors import NuifError
from ._limits import Limits
from ._patch_read import Transaction
from ._session import Session
from ._workcopy import AFTER_META, ATTRS_HEAD, META_PREFIX, ROOT_PREFIX

__all__ = ["SpliceSession", "spliceable"]


#: operations that touch only one node's ``attrs`` or ``kind`` (or ``meta``): a patch made of
#: these can run on a :class:`SpliceSession`
SPLICE_OPS = frozenset({"set", "unset", "edit", "retype", "test", "meta"})


def spliceable(transactions: list[Transaction]) -> bool:
    """Whether every operation is one a :class:`SpliceSession` runs (``test`` without ``hash``:
    a node hash needs the node's whole subtree)."""
    for tx in transactions:
        for op in tx.ops:
            if op.name not in SPLICE_OPS or (op.name == "test" and "hash" in op.args):
                return False
    return True


class SpliceSession(Session):
    """A scratch session for patches that only change node attributes and kinds (and ``meta``).

    It never builds the whole model.  ``_codec.node_spans`` locates every node in the base
    canonical text; only the nodes the patch names are parsed, as childless
    ``{"attrs", "id", "kind"}`` dicts, and the operation handlers of :class:`Session` run on
    them unchanged (``_depth`` reads the depth from the spans).  The result is the base text
    with the head (``{"attrs":…,``) and the kind of each of those nodes written again (and the
    ``{"meta":…,`` prefix when a ``meta`` operation ran): every other byte is copied.
    """

    __slots__ = ("_meta_loaded", "_root_start", "_spans", "_text0")
    #: the canonical text the copy was made from, and its node spans (``_codec.node_spans``)
    _text0: bytes
    _spans: dict[str, tuple[int, int, int, int, int]]
    #: where the root node starts in ``_text0``, and whether ``meta`` has been read from it
    _root_start: int
    _meta_loaded: bool

    @classmethod
    def _open(
        cls, canonical: bytes, base: str, transactions: list[Transaction], limits: Limits
    ) -> SpliceSession | None:
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
                        if not meta_loaded and root_start > len(ROOT_PREFIX):
                            meta_end = root_start - len(AFTER_META)
                            doc["meta"] = loads(canonical[len(META_PREFIX) : meta_end], depth)
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
                    if head_end - start > 1:  # the head is ``{"attrs":{…},``, not just ``{``
                        attrs_start = start + len(ATTRS_HEAD)
                        attrs_end = head_end - 1  # before the comma
                        node["attrs"] = loads(canonical[attrs_start:attrs_end], depth)
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
            append(META_PREFIX + dumps(meta, depth) + AFTER_META if meta else ROOT_PREFIX)
            pos = self._root_start
        # a node's head and its kind are two separate edits: the node's children (which may be
        # edited too) lie between them
        edits: list[tuple[int, int, bytes]] = []
        for nid, node in self._nodes.items():
            start, head_end, kind_start, kind_end, _ = spans[nid]
            attrs = node.get("attrs")
            edits.append(
                (start, head_end, ATTRS_HEAD + dumps(attrs, depth) + b"," if attrs else b"{")
            )
            edits.append((kind_start, kind_end, dumps(node["kind"], depth)))
        edits.sort()
        for start, end, new in edits:
            append(text[pos:start])
            append(new)
            pos = end
        append(text[pos:])
        return b"".join(out)
