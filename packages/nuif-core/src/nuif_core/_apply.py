"""``apply_patch``: one patch on one document text, on a throw-away session.

This is not a public API (``nuif_core`` exports ``apply_patch``).  The document is checked and
made canonical (``_document``), the patch read against its hash (``_patch_read``), and the patch
runs on a :class:`SpliceSession` when it only touches attributes, kinds and meta (``_splice``),
else on a scratch :class:`Session` (``_session``) that keeps no undo log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _codec
from ._document import Text, as_bytes, canonical_bytes, document_model, hash_bytes
from ._errors import NuifError
from ._limits import Limits, resolve_limits
from ._patch_read import read_patch_sized
from ._results import PatchResult
from ._session import Session
from ._splice import SpliceSession, spliceable

if TYPE_CHECKING:
    from ._document import CatalogLike

__all__ = ["apply_measured", "apply_patch"]


def apply_patch(
    document: Text,
    patch: Any,
    *,
    inverse: bool = False,
    limits: Limits | None = None,
    catalog: CatalogLike | None = None,
) -> PatchResult:
    """Apply a NUIF patch to a document; returns a :class:`PatchResult`.

    ``document`` and ``patch`` are NUIF text (``str`` or ``bytes``; ``patch`` may also be an
    already-parsed mapping).  Neither is mutated.  The patch is atomic: the first failing
    operation raises :class:`NuifError` whose pointer is into the patch
    (``/transactions/i/ops/j…``) and whose message starts ``transactions/i/ops/j (op):``.
    ``inverse=True`` also returns the inverse patch (canonical text, ``base`` = the new hash).

    ``catalog`` (a :class:`Catalog`, or a catalog's text or mapping) refuses a patch whose
    result breaks the catalog (NUIF-0 §9.5): nothing is applied, and the error is the first
    catalog problem of the patched document, its pointer into that document and its message
    starting ``the patched document:``.  A catalog that is not valid fails with
    ``NUIF_CATALOG`` before the document is read.
    """
    if catalog is None:
        return apply_measured(document, patch, inverse, limits)[0]
    from ._catalog import as_catalog  # imported when a catalog is first used

    cat = as_catalog(catalog)
    result = apply_measured(document, patch, inverse, limits)[0]
    lim = resolve_limits(limits)
    for code, message, pointer, _ in cat.findings(_codec.loads(result.canonical, lim.max_depth)):
        raise NuifError(code, "the patched document: " + message, pointer=pointer)
    return result


def apply_measured(
    document: Text, patch: Any, inverse: bool, limits: Limits | None
) -> tuple[PatchResult, int]:
    """:func:`apply_patch`, and the metered work it did apart from list shifts (for tests and
    benchmarks; ``Session._shifted`` has the shifts)."""
    lim = resolve_limits(limits)
    data = as_bytes(document, lim.max_document_bytes)
    canonical, doc = canonical_bytes(data, lim)
    base = hash_bytes(canonical)
    transactions, nbytes = read_patch_sized(patch, lim, base)
    session: Session | None = None
    if doc is None and spliceable(transactions):
        session = SpliceSession._open(canonical, base, transactions, lim)
    if session is None:
        session = Session.__new__(Session)
        session._init_model(canonical, document_model(data, canonical, doc, lim), lim, False)
    result = session._run(transactions, inverse, nbytes)
    return result, session._work - session._shifted
