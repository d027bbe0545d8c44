"""The document operations (NUIF-0 §3): validate, canonicalize, inspect, hashes; and generic JSON.

This is not a public API (``nuif_core`` exports the operations).  Each operation asks the codec
selection (``_codec``) for the one-call fast path first (parse, §3 check, canonical text and
result in compiled code); when that returns None (a schema problem, or a document only Python
handles) the codec's ``schema_report`` says every problem (or none: then the Python path,
``loads`` + normalize, answers), with the same result or the same error either way.  Section numbers are those of NUIF-0 (docs/spec/nuif-0.1.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _codec
from ._errors import NuifError
from ._limits import Limits, resolve_limits
from ._messages import quote
from ._results import (
    CanonicalResult,
    Diagnostic,
    Inspection,
    NodeRef,
    OutlineEntry,
    ValidationReport,
)
from ._schema import Checker, iter_nodes, normalize, outline

__all__ = [
    "Text",
    "as_bytes",
    "canonical_bytes",
    "canonical_json",
    "canonicalize",
    "document_hash",
    "document_model",
    "dumps",
    "hash_bytes",
    "inspect",
    "is_canonical",
    "loads",
    "node_hash",
    "parse_canonical",
    "parse_document",
    "python_canonicalize",
    "python_validate",
    "validate",
]

#: what the operations accept as a document or JSON text
Text = str | bytes | bytearray | memoryview

if TYPE_CHECKING:  # the catalogs module is imported when a catalog is first used
    from collections.abc import Mapping
    from typing import TypeAlias

    from ._catalog import Catalog

    #: what ``catalog=`` accepts: a compiled catalog, or a catalog's text or mapping
    CatalogLike: TypeAlias = Catalog | Text | Mapping[str, Any]


def hash_bytes(canonical: bytes) -> str:
    """``"sha256:"`` + lowercase hex SHA-256 of ``canonical`` (NUIF-0 §3)."""
    return _codec.hash_bytes(canonical)


def as_bytes(text: Text, limit: int, what: str = "document") -> bytes:
    """The UTF-8 bytes of ``text``, refused with NUIF_TOO_LARGE above ``limit`` bytes."""
    if isinstance(text, str):
        if len(text) > limit:  # every character is at least one byte
            raise _too_large(what, None, limit)
        data = text.encode("utf-8", "surrogatepass")  # lone surrogates become NUIF_UTF8
    elif isinstance(text, bytes):
        data = text
    elif isinstance(text, (bytearray, memoryview)):
        data = bytes(text)
    else:
        raise TypeError(f"a NUIF {what} is str or bytes, not {type(text).__name__}")
    if len(data) > limit:
        raise _too_large(what, len(data), limit)
    return data


def _too_large(what: str, size: int | None, limit: int) -> NuifError:
    has = f"{size} bytes" if size is not None else "longer than that"
    return NuifError.too_large(f"the {what} text is {has}", limit)


# ---------------------------------------------------------------------------------------------
# the public operations


def diagnostics(checker: Checker, data: bytes | None) -> tuple[Diagnostic, ...]:
    """The checker's findings as diagnostics, located in ``data`` when the text is known."""
    return tuple(Diagnostic(*found) for found in checker.located(data))


def canonical_bytes(data: bytes, lim: Limits) -> tuple[bytes, dict[str, Any] | None]:
    """The canonical text of ``data``, and the normalized model when it was built on the way.

    The fast path (``_codec.canonical_document``: parse, §3 check and canonical text in one
    compiled pass over a token tape) answers for every valid document; it returns None at the
    first schema problem, and then the codec's ``schema_report`` gives it.
    Text errors raise from either with identical code, message, pointer, line and column.
    """
    canonical = _codec.canonical_document(data, lim.max_depth, lim.max_nodes)
    if canonical is not None:
        return canonical, None
    return _checked_canonical(data, lim)


def _checked_canonical(data: bytes, lim: Limits) -> tuple[bytes, dict[str, Any]]:
    """What follows the fast path's None: raises the first schema problem (the codec's
    ``schema_report``), or returns the canonical text and the normalized model (for a valid
    document only the Python path handles)."""
    found, _ = _codec.schema_report(data, lim.max_depth, lim.max_nodes, 1)
    if found:
        raise Diagnostic(*found[0]).error()
    doc = normalize(_codec.loads(data, lim.max_depth))
    return _codec.dumps(doc, lim.max_depth), doc


def parse_canonical(
    text: Text, limits: Limits | None = None
) -> tuple[bytes, bytes, dict[str, Any]]:
    """The input bytes, the canonical text and the validated, normalized document model.

    Raises the first problem.  The model is parsed back from the canonical text (members in
    canonical order), so it costs one compiled ``loads`` of compact text and no normalization.
    """
    lim = resolve_limits(limits)
    data = as_bytes(text, lim.max_document_bytes)
    canonical, doc = canonical_bytes(data, lim)
    return data, canonical, document_model(data, canonical, doc, lim)


def document_model(
    data: bytes, canonical: bytes, doc: dict[str, Any] | None, lim: Limits
) -> dict[str, Any]:
    """The model of a valid document, given what ``canonical_bytes`` returned for ``data``."""
    if doc is None:
        # every canonical text reads back (NUIF-0.1: an integer literal beyond 2^53 - 1 that is
        # the RFC 8785 text of a double, as 1e20 is written, is that double)
        doc = _codec.loads(canonical, lim.max_depth)
    return doc


def parse_document(text: Text, limits: Limits | None = None) -> tuple[bytes, dict[str, Any]]:
    """The input bytes and the validated, normalized document model; raises the first problem."""
    data, _, doc = parse_canonical(text, limits)
    return data, doc


_DEFAULT_BYTES = Limits.DEFAULT.max_document_bytes
_DEFAULT_DEPTH = Limits.DEFAULT.max_depth
_DEFAULT_NODES = Limits.DEFAULT.max_nodes


def _bytes_and_limits(text: Text, limits: Limits | None) -> tuple[bytes, Limits]:
    """``as_bytes`` and ``resolve_limits`` for the one-shot operations, bytes input inlined."""
    lim = Limits.DEFAULT if limits is None else resolve_limits(limits)
    if type(text) is bytes and len(text) <= lim.max_document_bytes:
        return text, lim
    return as_bytes(text, lim.max_document_bytes), lim


def _canonical(text: Text, limits: Limits | None) -> tuple[bytes, bytes]:
    data, lim = _bytes_and_limits(text, limits)
    return data, canonical_bytes(data, lim)[0]


def validate(
    text: Text,
    *,
    limits: Limits | None = None,
    max_diagnostics: int = 100,
    catalog: CatalogLike | None = None,
) -> ValidationReport:
    """Validate a NUIF document and report every problem found (at most ``max_diagnostics``).

    A text error (size, UTF-8, syntax, I-JSON) stops everything and is the only diagnostic;
    schema problems (§3) are all reported, in document order, each with code, message, JSON
    Pointer, line and column.  Never raises ``NuifError``; ``valid`` says the verdict and
    ``hash`` is the document hash when valid.

    ``catalog`` (a :class:`Catalog`, or a catalog's text or mapping) also checks each node
    against the catalog (NUIF-0 §9): its problems follow the document's, in document order.  A
    catalog that is not valid makes the report's only diagnostic ``NUIF_CATALOG``, located in
    the catalog.
    """
    if max_diagnostics < 1:
        raise ValueError("max_diagnostics must be at least 1")
    if catalog is not None:
        return _validate_with_catalog(text, limits, max_diagnostics, catalog)
    try:
        if limits is None and type(text) is bytes and len(text) <= _DEFAULT_BYTES:
            # as in canonicalize: nothing resolved before the compiled call
            report = _codec.valid_report(text, _DEFAULT_DEPTH, _DEFAULT_NODES, ValidationReport)
            data, lim = text, Limits.DEFAULT
        else:
            data, lim = _bytes_and_limits(text, limits)
            # the fast path: parse, §3 check, canonical text, hash and the report in one call
            report = _codec.valid_report(data, lim.max_depth, lim.max_nodes, ValidationReport)
    except NuifError as err:
        return _error_report(err)
    if report is not None:
        return report  # type: ignore[no-any-return]
    return _validate_checked(data, lim, max_diagnostics)


def _error_report(err: NuifError) -> ValidationReport:
    """``validate``'s report of a text error: not valid, that error its only diagnostic."""
    return ValidationReport(False, None, (Diagnostic.from_error(err),))


def _validate_checked(data: bytes, lim: Limits, max_diagnostics: int) -> ValidationReport:
    """``validate``'s Python path, once the fast path has answered None: every schema problem
    (up to ``max_diagnostics``), or the report of a document only Python handles."""
    try:
        found, truncated = _codec.schema_report(data, lim.max_depth, lim.max_nodes, max_diagnostics)
        if found:
            return ValidationReport(False, None, tuple(Diagnostic(*f) for f in found), truncated)
        canonical = _codec.dumps(normalize(_codec.loads(data, lim.max_depth)), lim.max_depth)
    except NuifError as err:
        return _error_report(err)
    return ValidationReport(True, _codec.hash_bytes(canonical))


def _validate_with_catalog(
    text: Text, limits: Limits | None, max_diagnostics: int, catalog: Any
) -> ValidationReport:
    """``validate`` with a catalog: the document's report, then the catalog's findings on the
    parsed document (NUIF-0 §9.5), located in the text like every diagnostic."""
    from ._catalog import as_catalog  # imported when a catalog is first used

    try:
        cat = as_catalog(catalog)
    except NuifError as err:
        return _error_report(err)
    # the front door when the compiled codec has one (its fast path), else the function above
    report = validate(text, limits=limits, max_diagnostics=max_diagnostics)
    if report.truncated or any(d.code in _FATAL for d in report.diagnostics):
        return report  # a text error, another version, too many nodes, or no room left
    data, lim = _bytes_and_limits(text, limits)
    value = _codec.loads(data, lim.max_depth)
    checker = Checker(lim.max_nodes, max_diagnostics)
    room = max_diagnostics - len(report.diagnostics)
    for finding in cat.findings(value):
        if len(checker.found) >= room:
            checker.truncated = True
            break
        checker.found.append(finding)
    if not checker.found and not checker.truncated:
        return report
    found = report.diagnostics + diagnostics(checker, data)
    return ValidationReport(False, None, found, checker.truncated)


#: diagnostics after which a document is not checked against a catalog (NUIF-0 §9.5)
_FATAL = frozenset(
    {
        "NUIF_UTF8",
        "NUIF_PARSE",
        "NUIF_UNICODE",
        "NUIF_DUPLICATE_KEY",
        "NUIF_NUMBER",
        "NUIF_DEPTH",
        "NUIF_TOO_LARGE",
        "NUIF_VERSION",
        "NUIF_LIMIT_NODES",
    }
)


def canonicalize(text: Text, *, limits: Limits | None = None) -> CanonicalResult:
    """The canonical text of a NUIF document (normalized RFC 8785), its hash, and ``changed``.

    Raises :class:`NuifError` with the first problem when the text is not a valid document.
    """
    if limits is None and type(text) is bytes and len(text) <= _DEFAULT_BYTES:
        # bytes under the default limits (the common call): nothing resolved before the call
        result = _codec.canonical_result(text, _DEFAULT_DEPTH, _DEFAULT_NODES, CanonicalResult)
        if result is not None:
            return result  # type: ignore[no-any-return]
        data, lim = text, Limits.DEFAULT
    else:
        data, lim = _bytes_and_limits(text, limits)
        # the fast path: parse, §3 check, canonical text, hash and the result in one compiled call
        result = _codec.canonical_result(data, lim.max_depth, lim.max_nodes, CanonicalResult)
        if result is not None:
            return result  # type: ignore[no-any-return]
    return _canonicalize_checked(data, lim)


def _canonicalize_checked(data: bytes, lim: Limits) -> CanonicalResult:
    """``canonicalize``'s Python path, once the fast path has answered None: raises the schema
    problem, or returns the result of a document only Python handles."""
    canonical = _checked_canonical(data, lim)[0]
    return CanonicalResult(canonical, _codec.hash_bytes(canonical), canonical != data)


def is_canonical(text: Text, *, limits: Limits | None = None) -> bool:
    """True when ``text`` is byte-identical to its canonical text (raises if it is invalid)."""
    data, canonical = _canonical(text, limits)
    return canonical == data


def document_hash(text: Text, *, limits: Limits | None = None) -> str:
    """The document hash: ``"sha256:"`` + hex SHA-256 of the canonical text."""
    return _codec.hash_bytes(_canonical(text, limits)[1])


def node_hash(text: Text, node_id: str, *, limits: Limits | None = None) -> str:
    """The hash of the canonical text of one normalized node (its whole subtree)."""
    lim = resolve_limits(limits)
    _, doc = parse_document(text, lim)
    for node, _ in iter_nodes(doc["root"]):
        if node["id"] == node_id:
            return hash_bytes(_codec.dumps(node, lim.max_depth))
    raise NuifError("NUIF_PATCH_NOT_FOUND", f"no node has the id {quote(node_id)}")


def inspect(
    text: Text, *, max_outline_nodes: int = 100, limits: Limits | None = None
) -> Inspection:
    """Summarize a valid document: hash, sizes, node count, depth, kinds, root and an outline.

    The outline lists the first ``max_outline_nodes`` nodes in document order (``truncated``
    says whether it stopped early).  Raises :class:`NuifError` when the text is not valid.
    """
    if isinstance(max_outline_nodes, bool) or not isinstance(max_outline_nodes, int):
        raise TypeError("max_outline_nodes must be an int")
    if max_outline_nodes < 0:
        raise ValueError("max_outline_nodes must not be negative")
    data, lim = _bytes_and_limits(text, limits)
    # the fast path: parse, §3 check, canonical text, hash and the summary of the node tree (read
    # off the checked token tape, no Python model) in one compiled call
    result = _codec.inspect_summary(
        data, lim.max_depth, lim.max_nodes, max_outline_nodes, Inspection, OutlineEntry, NodeRef
    )
    if result is None:  # a schema problem (raised here), or a document only Python handles
        canonical, doc = _checked_canonical(data, lim)
        result = _inspection(data, canonical, doc, max_outline_nodes)
    return result  # type: ignore[no-any-return]


def _inspection(
    data: bytes, canonical: bytes, doc: dict[str, Any], max_outline_nodes: int
) -> Inspection:
    """:func:`inspect`'s result from the validated, normalized model (the Python path)."""
    root = doc["root"]
    count, deepest, kinds, entries = outline(root, max_outline_nodes, OutlineEntry)
    return Inspection(
        hash=hash_bytes(canonical),
        is_canonical=canonical == data,
        input_bytes=len(data),
        canonical_bytes=len(canonical),
        node_count=count,
        max_depth=deepest,
        kinds=kinds,
        root=NodeRef(root["id"], root["kind"]),
        outline=entries,
        truncated=count > len(entries),
    )


# ---------------------------------------------------------------------------------------------
# generic JSON (any strict I-JSON text, not only NUIF documents)


def canonical_json(text: Text, *, limits: Limits | None = None) -> bytes:
    """RFC 8785 canonical bytes of *any* strict I-JSON text (not only NUIF documents).

    The size limit is ``limits.max_document_bytes`` and the depth limit ``limits.max_depth``.
    Raises :class:`NuifError` (NUIF_TOO_LARGE, NUIF_UTF8, NUIF_PARSE, NUIF_UNICODE,
    NUIF_DUPLICATE_KEY, NUIF_NUMBER, NUIF_DEPTH) with line and column.
    """
    lim = resolve_limits(limits)
    return _codec.canonical_json(as_bytes(text, lim.max_document_bytes, "JSON"), lim.max_depth)


def loads(text: Text, *, limits: Limits | None = None) -> Any:
    """Parse strict I-JSON text into Python values.

    Objects become ``dict`` (members in text order), arrays ``list``, integer literals ``int``
    (within ±(2^53 − 1)), other numbers ``float`` (``-0`` becomes ``0``).  An integer literal
    beyond that is accepted, as a ``float``, only when it is the RFC 8785 text of that double
    (``100000000000000000000``); any other is NUIF_NUMBER (``9007199254740993``).
    """
    lim = resolve_limits(limits)
    return _codec.loads(as_bytes(text, lim.max_document_bytes, "JSON"), lim.max_depth)


def dumps(value: Any, *, limits: Limits | None = None) -> bytes:
    """RFC 8785 canonical bytes of a Python value.

    Accepts ``dict`` (``str`` keys), ``list``/``tuple``, ``str``, ``int`` (within ±(2^53 − 1), or
    beyond when its digits are the RFC 8785 text of a double, as ``2**53``; other ints are
    NUIF_NUMBER), finite ``float``, ``bool`` and ``None``.  Anything else is NUIF_VALUE; strings
    with lone surrogates or noncharacters are NUIF_UNICODE; nesting beyond ``limits.max_depth``
    (or a cycle) is NUIF_DEPTH.
    """
    return _codec.dumps(value, resolve_limits(limits).max_depth)


# ---------------------------------------------------------------------------------------------
# the front doors (docs/format.md, after "canonicalize makes one call"): with the compiled codec,
# the exported canonicalize and validate are its own functions, which take the common call (bytes
# within the default limits) with no Python frame and hand every other call to the Python
# functions above, kept here under these names, and what follows a schema problem to the paths
# below (they look these names up when they need them)
python_canonicalize = canonicalize
python_validate = validate
canonicalize_checked = _canonicalize_checked
validate_checked = _validate_checked
error_report = _error_report
if _codec.doors is not None:
    canonicalize, validate = _codec.doors
