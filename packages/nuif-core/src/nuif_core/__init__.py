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

from typing import TYPE_CHECKING, Any

# The facade: every public name is owned by one private module below (docs/architecture.md, "The
# Python layers"); this module only gathers them.
from . import _codec
from ._apply import apply_patch
from ._diff import diff
from ._document import (
    canonical_json,
    canonicalize,
    document_hash,
    dumps,
    inspect,
    is_canonical,
    loads,
    node_hash,
    validate,
)
from ._errors import ERROR_CODES, NuifError
from ._limits import Limits
from ._locate import pointer_position
from ._results import (
    CanonicalResult,
    Diagnostic,
    Inspection,
    NodeRef,
    OutlineEntry,
    PatchCounts,
    PatchResult,
    ValidationReport,
)
from ._session import Session

if TYPE_CHECKING:  # imported on first use (``__getattr__`` below)
    from ._catalog import Catalog

__version__ = "0.1.0"

#: "compiled" when the Cython codec is loaded, "python" for the pure-Python twin
IMPLEMENTATION: str = _codec.IMPLEMENTATION

#: the compiled codec's optional routes, chosen when it loaded (doubles, SHA-256 block function,
#: byte scanners, UTF-8 check: e.g. ``("fast_float+dragonbox", "sha-ni", "sse2", "avx2")``);
#: ``()`` for the pure-Python twin.  For bug reports and benchmark records (docs/format.md).
ROUTES: tuple[str, ...] = _codec.routes()

__all__ = [
    "ERROR_CODES",
    "IMPLEMENTATION",
    "ROUTES",
    "CanonicalResult",
    "Catalog",
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
    "pointer_position",
    "validate",
]


def __getattr__(name: str) -> Any:
    # ``nuif_core.package``, ``nuif_core.catalogs`` and ``Catalog`` are imported on first use, so
    # zipfile and the JSON Schema compiler are not paid at start-up (a lazy import: laziness is
    # the point)
    if name in ("package", "catalogs"):
        import importlib

        return importlib.import_module("." + name, __name__)
    if name == "Catalog":
        from ._catalog import Catalog

        return Catalog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
