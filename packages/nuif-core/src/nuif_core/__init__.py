"""nuif_core — the canonical model of NUIF documents.

One byte sequence per meaning (RFC 8785 over the normalized document), one hash over it
(``sha256:…``), strict I-JSON validation, and semantic patches addressed by node id.  Every
surface (this API, the ``nuif`` CLI, the ``nuif-mcp`` server) returns what this package computes.

Quick tour::

    >>> import nuif_core
    >>> doc = '{"nuif": 0, "root": {"kind": "screen", "id": "home", "attrs": {}}}'
    >>> nuif_core.canonicalize(doc).text
    '{"nuif":0,"root":{"id":"home","kind":"screen"}}'
    >>> nuif_core.validate('{"nuif": 0, "root": {"id": "-x", "kind": "screen"}}').diagnostics[0].code
    'NUIF_ID'
    >>> nuif_core.canonical_json('{"b": 1.0, "a": "\\u00e9"}')
    b'{"a":"\\xc3\\xa9","b":1}'
"""

from __future__ import annotations

from typing import Any

from . import _codec
from ._document import (
    CanonicalResult,
    Diagnostic,
    Inspection,
    NodeRef,
    OutlineEntry,
    Text,
    ValidationReport,
    as_bytes,
    canonicalize,
    document_hash,
    inspect,
    is_canonical,
    node_hash,
    validate,
)
from ._diff import diff
from ._errors import ERROR_CODES, NuifError
from ._limits import Limits, resolve_limits as _limits
from ._patch import PatchCounts, PatchResult, Session, apply_patch

__version__ = "0.1.0"

#: "compiled" when the Cython codec is loaded, "python" for the pure-Python twin
IMPLEMENTATION: str = _codec.IMPLEMENTATION

__all__ = [
    "ERROR_CODES",
    "IMPLEMENTATION",
    "CanonicalResult",
    "Diagnostic",
    "Inspection",
    "Limits",
    "NodeRef",
    "NuifError",
    "OutlineEntry",
    "PatchCounts",
    "PatchResult",
    "Session",
    "ValidationReport",
    "__version__",
    "apply_patch",
    "canonical_json",
    "canonicalize",
    "diff",
    "document_hash",
    "dumps",
    "inspect",
    "is_canonical",
    "loads",
    "node_hash",
    "validate",
]


def __getattr__(name: str) -> Any:
    # ``nuif_core.package`` is imported on first use, so zipfile is not paid at start-up
    if name == "package":
        import importlib

        return importlib.import_module(".package", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def canonical_json(text: Text, *, limits: Limits | None = None) -> bytes:
    """RFC 8785 canonical bytes of *any* strict I-JSON text (not only NUIF documents).

    The size limit is ``limits.max_document_bytes`` and the depth limit ``limits.max_depth``.
    Raises :class:`NuifError` (NUIF_TOO_LARGE, NUIF_UTF8, NUIF_PARSE, NUIF_UNICODE,
    NUIF_DUPLICATE_KEY, NUIF_NUMBER, NUIF_DEPTH) with line and column.
    """
    lim = _limits(limits)
    return _codec.canonical_json(as_bytes(text, lim.max_document_bytes, "JSON"), lim.max_depth)


def loads(text: Text, *, limits: Limits | None = None) -> Any:
    """Parse strict I-JSON text into Python values.

    Objects become ``dict`` (members in text order), arrays ``list``, integer literals ``int``
    (within ±(2^53 − 1)), other numbers ``float`` (``-0`` becomes ``0``).  An integer literal
    beyond that is accepted, as a ``float``, only when it is the RFC 8785 text of that double
    (``100000000000000000000``); any other is NUIF_NUMBER (``9007199254740993``).
    """
    lim = _limits(limits)
    return _codec.loads(as_bytes(text, lim.max_document_bytes, "JSON"), lim.max_depth)


def dumps(value: Any, *, limits: Limits | None = None) -> bytes:
    """RFC 8785 canonical bytes of a Python value.

    Accepts ``dict`` (``str`` keys), ``list``/``tuple``, ``str``, ``int`` (within ±(2^53 − 1), or
    beyond when its digits are the RFC 8785 text of a double, as ``2**53``; other ints are
    NUIF_NUMBER), finite ``float``, ``bool`` and ``None``.  Anything else is NUIF_VALUE; strings
    with lone surrogates or noncharacters are NUIF_UNICODE; nesting beyond ``limits.max_depth``
    (or a cycle) is NUIF_DEPTH.
    """
    return _codec.dumps(value, _limits(limits).max_depth)
