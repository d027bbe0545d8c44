"""NUIF-0 §3 over Python values: the document schema, the name rules, normalization, the outline.

This is not a public API.  It sits below the codecs: the pure-Python codec checks documents with
:class:`Checker` (the compiled codec checks and reports the same rules on its token tape,
csrc/nuif_check.h and csrc/nuif_report.h, with the messages of ``_messages`` and the name rules
here), the patch engine checks carried nodes
and names with it, and both Python ``inspect`` paths summarize the node tree with
:func:`outline`.  NUIF-0 §3 is in docs/spec/nuif-0.1.md.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ._errors import escape_pointer, line_column
from ._locate import locate
from ._messages import (
    ATTR_MAX,
    ATTR_PATTERN,
    ID_MAX,
    ID_PATTERN,
    KIND_MAX,
    KIND_PATTERN,
    SCHEMA_ATTR,
    SCHEMA_ATTRS_TYPE,
    SCHEMA_CHILDREN_TYPE,
    SCHEMA_DOC_MEMBER,
    SCHEMA_DOC_TYPE,
    SCHEMA_DUPLICATE_ID,
    SCHEMA_ID_LENGTH,
    SCHEMA_ID_PATTERN,
    SCHEMA_ID_TYPE,
    SCHEMA_KIND,
    SCHEMA_KIND_TYPE,
    SCHEMA_LIMIT_NODES,
    SCHEMA_META_TYPE,
    SCHEMA_NO_ID,
    SCHEMA_NO_KIND,
    SCHEMA_NO_NUIF,
    SCHEMA_NO_ROOT,
    SCHEMA_NODE_MEMBER,
    SCHEMA_NODE_TYPE,
    SCHEMA_NUIF_TYPE,
    SCHEMA_VERSION,
    quote,
)
from ._rfc8785 import number_text

__all__ = [
    "ATTR_MAX",
    "DOCUMENT_MEMBERS",
    "ID_MAX",
    "KIND_MAX",
    "NODE_MEMBERS",
    "Checker",
    "attr_problem",
    "id_problem",
    "iter_nodes",
    "json_type",
    "kind_problem",
    "normalize",
    "outline",
]

ID_RE = re.compile(ID_PATTERN, re.ASCII)
KIND_RE = re.compile(KIND_PATTERN, re.ASCII)
ATTR_RE = re.compile(ATTR_PATTERN, re.ASCII)

DOCUMENT_MEMBERS = frozenset({"nuif", "root", "meta"})
NODE_MEMBERS = frozenset({"id", "kind", "attrs", "children"})


class _Stop(Exception):
    """Raised inside the checker to stop at the diagnostics bound or a fatal finding."""


def json_type(value: Any) -> str:
    """A JSON value's type as messages name it, with its article ("a string", "null")."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a valid node id, or None."""
    if not 1 <= len(value) <= ID_MAX:
        return SCHEMA_ID_LENGTH.format(quote(value))
    if ID_RE.fullmatch(value) is None:
        return SCHEMA_ID_PATTERN.format(quote(value))
    return None


@functools.lru_cache(maxsize=4096)
def kind_problem(value: str) -> str | None:
    """Why ``value`` is not a valid node kind, or None."""
    if not 1 <= len(value) <= KIND_MAX or KIND_RE.fullmatch(value) is None:
        return SCHEMA_KIND.format(quote(value))
    return None


@functools.lru_cache(maxsize=4096)
def attr_problem(value: str) -> str | None:
    """Why ``value`` is not a valid attribute name, or None."""
    if not 1 <= len(value) <= ATTR_MAX or ATTR_RE.fullmatch(value) is None:
        return SCHEMA_ATTR.format(quote(value))
    return None


class Checker:
    """Collects schema diagnostics (NUIF-0 §3) over parsed values, in document order.

    Entries are ``(code, message, pointer, at_key)``; ``at_key`` locates the diagnostic at the
    member name rather than at the value.  ``ids`` maps every id seen to its pointer, so the
    same checker can validate nodes against ids already in a document (patch operations).
    """

    def __init__(self, max_nodes: int, max_diagnostics: int, ids: dict[str, str] | None = None):
        self.max_nodes = max_nodes
        self.max_diagnostics = max_diagnostics
        self.found: list[tuple[str, str, str, bool]] = []
        self.truncated = False
        self.ids: dict[str, str] = {} if ids is None else ids
        self.node_count = 0

    def add(self, code: str, message: str, pointer: str, at_key: bool = False) -> None:
        if len(self.found) >= self.max_diagnostics:
            self.truncated = True
            raise _Stop
        self.found.append((code, message, pointer, at_key))

    def document(self, doc: Any) -> None:
        try:
            self._document(doc)
        except _Stop:
            pass

    def node_tree(self, node: Any, pointer: str) -> None:
        try:
            self._node(node, pointer)
        except _Stop:
            pass

    def _document(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            self.add("NUIF_SCHEMA", SCHEMA_DOC_TYPE.format(json_type(doc)), "")
            return
        if "nuif" not in doc:
            self.add("NUIF_SCHEMA", SCHEMA_NO_NUIF, "")
        else:
            version = doc["nuif"]
            if isinstance(version, bool) or not isinstance(version, (int, float)):
                self.add("NUIF_SCHEMA", SCHEMA_NUIF_TYPE.format(json_type(version)), "/nuif")
            elif version != 0:
                self.add("NUIF_VERSION", SCHEMA_VERSION.format(number_text(version)), "/nuif")
                raise _Stop  # another version's schema is unknown: nothing more to say
        if "root" not in doc:
            self.add("NUIF_SCHEMA", SCHEMA_NO_ROOT, "")
        for key, value in doc.items():
            if key == "root":
                self._node(value, "/root")
            elif key == "meta":
                if not isinstance(value, dict):
                    self.add("NUIF_SCHEMA", SCHEMA_META_TYPE.format(json_type(value)), "/meta")
            elif key != "nuif":
                self.add(
                    "NUIF_SCHEMA",
                    SCHEMA_DOC_MEMBER.format(quote(key)),
                    "/" + escape_pointer(key),
                    True,
                )

    def _node(self, node: Any, pointer: str) -> None:
        self.node_count += 1
        if self.node_count > self.max_nodes:
            # fatal: stop here, but within the diagnostics bound like any other finding
            self.add("NUIF_LIMIT_NODES", SCHEMA_LIMIT_NODES.format(self.max_nodes), pointer)
            raise _Stop
        if not isinstance(node, dict):
            self.add("NUIF_SCHEMA", SCHEMA_NODE_TYPE.format(json_type(node)), pointer)
            return
        if "id" not in node:
            self.add("NUIF_SCHEMA", SCHEMA_NO_ID, pointer)
        if "kind" not in node:
            self.add("NUIF_SCHEMA", SCHEMA_NO_KIND, pointer)
        for key, value in node.items():
            if key == "id":
                at = pointer + "/id"
                if not self._string(key, value, at):
                    continue
                problem = id_problem(value)
                if problem is not None:
                    self.add("NUIF_ID", problem, at)
                elif value in self.ids:
                    self.add(
                        "NUIF_DUPLICATE_ID",
                        SCHEMA_DUPLICATE_ID.format(quote(value), self.ids[value]),
                        at,
                    )
                else:
                    self.ids[value] = at
            elif key == "kind":
                at = pointer + "/kind"
                if not self._string(key, value, at):
                    continue
                problem = kind_problem(value)
                if problem is not None:
                    self.add("NUIF_KIND", problem, at)
            elif key == "attrs":
                at = pointer + "/attrs"
                if not isinstance(value, dict):
                    self.add("NUIF_SCHEMA", SCHEMA_ATTRS_TYPE.format(json_type(value)), at)
                    continue
                for name in value:
                    problem = attr_problem(name)
                    if problem is not None:
                        self.add("NUIF_ATTR", problem, at + "/" + escape_pointer(name), True)
            elif key == "children":
                at = pointer + "/children"
                if not isinstance(value, list):
                    self.add("NUIF_SCHEMA", SCHEMA_CHILDREN_TYPE.format(json_type(value)), at)
                    continue
                for index, child in enumerate(value):
                    self._node(child, f"{at}/{index}")
            else:
                self.add(
                    "NUIF_SCHEMA",
                    SCHEMA_NODE_MEMBER.format(quote(key)),
                    pointer + "/" + escape_pointer(key),
                    True,
                )

    def _string(self, key: str, value: Any, at: str) -> bool:
        """Whether member ``key`` is a string (NUIF_SCHEMA at ``at`` when it is not)."""
        if isinstance(value, str):
            return True
        template = SCHEMA_ID_TYPE if key == "id" else SCHEMA_KIND_TYPE
        self.add("NUIF_SCHEMA", template.format(json_type(value)), at)
        return False

    def located(self, data: bytes | None) -> list[tuple[str, str, str, int | None, int | None]]:
        """The findings as ``(code, message, pointer, line, column)``, located in ``data`` when
        the text is known (``_document`` makes them :class:`Diagnostic` objects)."""
        if not self.found:
            return []
        lines: dict[tuple[str, bool], tuple[int, int]] = {}
        if data is not None:
            values, keys = locate(data, {p for _, _, p, _ in self.found})
            for offsets, at_key in ((values, False), (keys, True)):
                for p, off in offsets.items():
                    lines[(p, at_key)] = line_column(data, off)
        out = []
        for code, message, pointer, at_key in self.found:
            lc = lines.get((pointer, at_key)) or lines.get((pointer, not at_key))
            out.append((code, message, pointer, lc[0] if lc else None, lc[1] if lc else None))
        return out


def normalize(doc: dict[str, Any]) -> dict[str, Any]:
    """Drop empty ``attrs``, ``children`` and ``meta`` in place (NUIF-0 §3); returns ``doc``."""
    if "meta" in doc and not doc["meta"]:
        del doc["meta"]
    stack = [doc["root"]]
    while stack:
        node = stack.pop()
        if "attrs" in node and not node["attrs"]:
            del node["attrs"]
        children = node.get("children")
        if children is not None:
            if children:
                stack.extend(children)
            else:
                del node["children"]
    return doc


def iter_nodes(root: dict[str, Any]) -> Iterator[tuple[dict[str, Any], int]]:
    """Every node with its depth (root = 1), in document pre-order."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        children = node.get("children")
        if children:
            stack.extend((child, depth + 1) for child in reversed(children))


E = TypeVar("E")


def outline(
    root: dict[str, Any], max_outline: int, entry: Callable[[str, str, int, int], E]
) -> tuple[int, int, dict[str, int], tuple[E, ...]]:
    """The summary ``inspect`` reports of a valid, normalized node tree: ``(node_count, depth of
    the tree (root alone = 1), nodes per kind sorted by kind, outline)``, the outline being
    ``entry(id, kind, depth, number of children)`` for the first ``max_outline`` nodes in
    document pre-order.  (The compiled codec reads the same off its token tape.)"""
    kinds: dict[str, int] = {}
    entries: list[E] = []
    count = deepest = 0
    for node, depth in iter_nodes(root):
        count += 1
        if depth > deepest:
            deepest = depth
        kind = node["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
        if len(entries) < max_outline:
            entries.append(entry(node["id"], kind, depth, len(node.get("children", ()))))
    return count, deepest, dict(sorted(kinds.items())), tuple(entries)
