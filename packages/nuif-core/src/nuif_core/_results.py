"""The result types every operation returns: frozen, slotted, each with ``to_dict``.

This is not a public API (``nuif_core`` exports these classes).  The compiled codec builds
:class:`CanonicalResult`, :class:`ValidationReport` and :class:`Inspection` directly (the class
is passed to it), so their fields are in the order its entry points fill them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._errors import NuifError, error_dict

__all__ = [
    "CanonicalResult",
    "Diagnostic",
    "Inspection",
    "NodeRef",
    "OutlineEntry",
    "PatchCounts",
    "PatchResult",
    "ValidationReport",
]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a document: a stable code, a message, and where it is."""

    code: str
    message: str
    pointer: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return str(self.error())

    def error(self) -> NuifError:
        """This diagnostic as a raisable :class:`NuifError`."""
        return NuifError(
            self.code, self.message, pointer=self.pointer, line=self.line, column=self.column
        )

    def to_dict(self) -> dict[str, Any]:
        return error_dict(self.code, self.message, self.pointer, self.line, self.column)

    @classmethod
    def from_error(cls, err: NuifError) -> Diagnostic:
        return cls(err.code, err.message, err.pointer, err.line, err.column)


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The result of :func:`validate`: every diagnostic found (bounded), and the hash when valid."""

    valid: bool
    hash: str | None
    diagnostics: tuple[Diagnostic, ...] = ()
    #: True when more diagnostics existed than ``max_diagnostics`` allowed to report
    truncated: bool = False

    def __bool__(self) -> bool:
        return self.valid

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "hash": self.hash,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True)
class CanonicalResult:
    """The canonical text of a document, its hash, and whether the input differed from it."""

    canonical: bytes
    hash: str
    changed: bool

    @property
    def text(self) -> str:
        """The canonical text as ``str``."""
        return self.canonical.decode("utf-8")

    def to_dict(self) -> dict[str, Any]:
        return {"canonical": self.text, "hash": self.hash, "changed": self.changed}


@dataclass(frozen=True, slots=True)
class NodeRef:
    id: str
    kind: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One node of the outline: its id, kind, depth (root = 1) and number of children."""

    id: str
    kind: str
    depth: int
    children: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "depth": self.depth, "children": self.children}


@dataclass(frozen=True, slots=True)
class Inspection:
    """What :func:`inspect` reports about a valid document."""

    hash: str
    is_canonical: bool
    input_bytes: int
    canonical_bytes: int
    node_count: int
    #: depth of the node tree; the root alone is 1
    max_depth: int
    #: nodes per kind, sorted by kind
    kinds: dict[str, int]
    root: NodeRef
    #: the first nodes in document (pre-)order, at most ``max_outline_nodes``
    outline: tuple[OutlineEntry, ...]
    #: True when the outline stops before the last node
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "is_canonical": self.is_canonical,
            "input_bytes": self.input_bytes,
            "canonical_bytes": self.canonical_bytes,
            "node_count": self.node_count,
            "max_depth": self.max_depth,
            "kinds": dict(self.kinds),
            "root": self.root.to_dict(),
            "outline": {
                "nodes": [e.to_dict() for e in self.outline],
                "truncated": self.truncated,
            },
        }


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
