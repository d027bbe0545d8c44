"""Typed arguments and results of the four tools (MCP-PROFILE-0 §3, docs/spec/mcp-profile-0.md).

The argument models are strict (no coercion: ``"2"`` is not an integer, ``1`` is not a string)
and closed (``extra="forbid"``, so their schemas carry ``additionalProperties: false``). The result
models mirror the ``to_dict()`` shapes of nuif-core's result objects field for field: the
structured result of a tool is exactly what the direct API returns for the same input.
Only canonical text and small summaries cross the boundary; the NUIF model itself is never
mirrored into MCP types.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ApplyPatchArguments",
    "ApplyPatchResult",
    "CanonicalizeArguments",
    "CanonicalizeResult",
    "Diagnostic",
    "InspectArguments",
    "InspectResult",
    "NodeRef",
    "Outline",
    "OutlineEntry",
    "PatchCounts",
    "ValidateArguments",
    "ValidateResult",
]

#: Largest outline an ``inspect`` call may ask for.
MAX_OUTLINE_NODES = 10_000

_DOCUMENT = (
    "The NUIF document as JSON text (UTF-8, at most 1 MiB): an object "
    '{"nuif": 0, "root": {"id", "kind", "attrs"?, "children"?}, "meta"?}. '
    "Pass the text itself, not a file path or URL."
)
_HASH = (
    'Document hash: "sha256:" followed by 64 lowercase hex digits of the canonical text\'s SHA-256.'
)


_CATALOG = (
    "Optional: a NUIF kind catalog as JSON text (UTF-8, at most 1 MiB), "
    '{"nuif_catalog": 0, "closed"?: bool, "kinds": {KIND: {"attrs"?: JSON Schema, '
    '"children"?: {"kinds"?, "min"?, "max"?}}}, "$defs"?}, saying which kinds exist, the JSON '
    "Schema of each kind's attrs and which children each may have (NUIF-0 §9). The document is "
    "then also checked against it. Pass the text itself, not a file path or URL."
)


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- arguments ---------------------------------------------------------------------------------


class ValidateArguments(_Arguments):
    document: Annotated[str, Field(description=_DOCUMENT)]
    catalog: Annotated[str | None, Field(description=_CATALOG)] = None


class InspectArguments(_Arguments):
    document: Annotated[str, Field(description=_DOCUMENT)]
    max_outline_nodes: Annotated[
        int,
        Field(
            ge=0,
            le=MAX_OUTLINE_NODES,
            description="How many nodes the outline may list, in document order (default 100; "
            "0 lists none). The counts are always complete; only the outline is cut.",
        ),
    ] = 100


class CanonicalizeArguments(_Arguments):
    document: Annotated[str, Field(description=_DOCUMENT)]


class ApplyPatchArguments(_Arguments):
    document: Annotated[str, Field(description=_DOCUMENT)]
    patch: Annotated[
        str,
        Field(
            description="The NUIF semantic patch as JSON text (UTF-8, at most 1 MiB): "
            '{"nuif_patch": 0, "base"?: "sha256:...", "transactions": [{"label"?, "ops": [...]}]}. '
            "Operations address nodes by id: insert, remove, move, replace, set, unset, edit, "
            "retype, rename, meta, test.",
        ),
    ]
    include_inverse: Annotated[
        bool,
        Field(
            description="Also return the inverse patch, which turns the new document back into the input."
        ),
    ] = False
    catalog: Annotated[
        str | None,
        Field(
            description=_CATALOG.replace(
                "The document is then also checked against it.",
                "A patch whose result breaks the catalog is refused (nothing is applied).",
            )
        ),
    ] = None


# --- results -----------------------------------------------------------------------------------


class Diagnostic(_Result):
    code: Annotated[str, Field(description="Stable error code, e.g. NUIF_DUPLICATE_ID.")]
    message: Annotated[str, Field(description="What is wrong, written to be acted on.")]
    pointer: Annotated[
        str | None, Field(description="JSON Pointer (RFC 6901) into the document, if known.")
    ]
    line: Annotated[int | None, Field(description="1-based line in the document text, if known.")]
    column: Annotated[int | None, Field(description="1-based column (in characters), if known.")]


class ValidateResult(_Result):
    valid: Annotated[bool, Field(description="True when the document satisfies every NUIF-0 rule.")]
    hash: Annotated[str | None, Field(description=_HASH + " Null when the document is not valid.")]
    diagnostics: Annotated[
        list[Diagnostic], Field(description="Every problem found (empty when valid).")
    ]
    truncated: Annotated[bool, Field(description="True when more problems exist than are listed.")]


class NodeRef(_Result):
    id: str
    kind: str


class OutlineEntry(_Result):
    id: str
    kind: str
    depth: Annotated[int, Field(description="1 for the root.")]
    children: Annotated[int, Field(description="Number of direct children.")]


class Outline(_Result):
    nodes: Annotated[list[OutlineEntry], Field(description="Nodes in document (pre-)order.")]
    truncated: Annotated[
        bool, Field(description="True when the outline was cut at max_outline_nodes.")
    ]


class InspectResult(_Result):
    hash: Annotated[str, Field(description=_HASH)]
    is_canonical: Annotated[
        bool, Field(description="True when the input text is already its canonical text.")
    ]
    input_bytes: Annotated[int, Field(description="UTF-8 bytes of the input text.")]
    canonical_bytes: Annotated[int, Field(description="UTF-8 bytes of the canonical text.")]
    node_count: int
    max_depth: Annotated[int, Field(description="Depth of the deepest node; the root is 1.")]
    kinds: Annotated[dict[str, int], Field(description="Number of nodes of each kind.")]
    root: NodeRef
    outline: Outline


class CanonicalizeResult(_Result):
    canonical: Annotated[
        str, Field(description="The canonical text (RFC 8785 of the normalized document).")
    ]
    hash: Annotated[str, Field(description=_HASH)]
    changed: Annotated[
        bool, Field(description="True when the input text differed from the canonical text.")
    ]


class PatchCounts(_Result):
    transactions: int
    operations: int
    nodes_inserted: int
    nodes_removed: int
    nodes_moved: int
    attrs_set: int
    attrs_unset: int
    attrs_edited: int


class ApplyPatchResult(_Result):
    document: Annotated[str, Field(description="The new document, as canonical text.")]
    hash: Annotated[str, Field(description="Hash of the new document. " + _HASH)]
    base: Annotated[str, Field(description="Hash of the input document.")]
    changed: Annotated[
        bool, Field(description="True when the new document differs from the input.")
    ]
    counts: PatchCounts
    inverse: Annotated[
        str | None,
        Field(
            description="The inverse patch as canonical text (only when include_inverse was true)."
        ),
    ]
