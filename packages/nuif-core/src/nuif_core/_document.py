"""NUIF documents (NUIF-0 §3): validation, normalization, canonical text, hashes, inspection."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Iterator, Union

from . import _codec
from ._errors import NuifError, escape_pointer, line_column
from ._limits import Limits, resolve_limits as _limits
from ._locate import locate

__all__ = [
    "CanonicalResult",
    "Diagnostic",
    "Inspection",
    "NodeRef",
    "OutlineEntry",
    "ValidationReport",
    "as_bytes",
    "canonicalize",
    "document_hash",
    "hash_bytes",
    "inspect",
    "is_canonical",
    "node_hash",
    "parse_canonical",
    "parse_document",
    "validate",
]

Text = Union[str, bytes, bytearray, memoryview]

ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]*", re.ASCII)
KIND_RE = re.compile(r"[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*", re.ASCII)
ATTR_RE = re.compile(r"[A-Za-z_$@][A-Za-z0-9_$@.:-]*", re.ASCII)
ID_MAX, KIND_MAX, ATTR_MAX = 128, 64, 128

DOCUMENT_MEMBERS = frozenset({"nuif", "root", "meta"})
NODE_MEMBERS = frozenset({"id", "kind", "attrs", "children"})


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
    return NuifError(
        "NUIF_TOO_LARGE", f"the {what} text is {has}; the limit is {limit} bytes"
    )


# ---------------------------------------------------------------------------------------------
# results


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
        return {
            "code": self.code,
            "message": self.message,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
        }

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


# ---------------------------------------------------------------------------------------------
# schema checks over parsed values


class _Stop(Exception):
    """Raised inside the checker to stop at the diagnostics bound or a fatal finding."""


def _json_type(value: Any) -> str:
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


def _q(s: str) -> str:
    from ._codec_py import _quote

    return _quote(s)


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a valid node id, or None."""
    if not 1 <= len(value) <= ID_MAX:
        return f"id {_q(value)} must be 1 to {ID_MAX} characters long"
    if ID_RE.fullmatch(value) is None:
        return (
            f"id {_q(value)} must match ^[A-Za-z0-9_][A-Za-z0-9_.:-]*$ "
            "(ASCII letters, digits, _ . : -; not starting with . : -)"
        )
    return None


@functools.lru_cache(maxsize=4096)
def kind_problem(value: str) -> str | None:
    """Why ``value`` is not a valid node kind, or None."""
    if not 1 <= len(value) <= KIND_MAX or KIND_RE.fullmatch(value) is None:
        return (
            f"kind {_q(value)} must be 1 to {KIND_MAX} characters matching "
            "^[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*$ (like button, ui:button, acme.cards/header)"
        )
    return None


@functools.lru_cache(maxsize=4096)
def attr_problem(value: str) -> str | None:
    """Why ``value`` is not a valid attribute name, or None."""
    if not 1 <= len(value) <= ATTR_MAX or ATTR_RE.fullmatch(value) is None:
        return (
            f"attribute name {_q(value)} must be 1 to {ATTR_MAX} characters matching "
            "^[A-Za-z_$@][A-Za-z0-9_$@.:-]*$ (like label, aria-label, on:click)"
        )
    return None


class Checker:
    """Collects schema diagnostics (NUIF-0 §3) over parsed values, in document order.

    Entries are ``(code, message, pointer, at_key)``; ``at_key`` locates the diagnostic at the
    member name rather than at the value.  ``ids`` maps every id seen to its pointer, so the
    same checker can validate nodes against ids already in a document (patch operations).
    """

    def __init__(self, limits: Limits, max_diagnostics: int, ids: dict[str, str] | None = None):
        self.limits = limits
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
            self._node(node, pointer, 1)
        except _Stop:
            pass

    def _document(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            self.add("NUIF_SCHEMA", f"a NUIF document is a JSON object, found {_json_type(doc)}", "")
            return
        if "nuif" not in doc:
            self.add("NUIF_SCHEMA", 'the document has no "nuif" member (it must be 0)', "")
        else:
            version = doc["nuif"]
            if isinstance(version, bool) or not isinstance(version, (int, float)):
                self.add(
                    "NUIF_SCHEMA", f'"nuif" must be the number 0, found {_json_type(version)}', "/nuif"
                )
            elif version != 0:
                self.add(
                    "NUIF_VERSION",
                    f"NUIF version {_codec.dumps(version, 1).decode()} is not supported; "
                    "this implementation reads version 0",
                    "/nuif",
                )
                raise _Stop  # another version's schema is unknown: nothing more to say
        if "root" not in doc:
            self.add("NUIF_SCHEMA", 'the document has no "root" member (a node)', "")
        for key, value in doc.items():
            if key == "root":
                self._node(value, "/root", 1)
            elif key == "meta":
                if not isinstance(value, dict):
                    self.add(
                        "NUIF_SCHEMA", f'"meta" must be an object, found {_json_type(value)}', "/meta"
                    )
            elif key != "nuif":
                self.add(
                    "NUIF_SCHEMA",
                    f"unknown document member {_q(key)} (allowed: nuif, root, meta)",
                    "/" + escape_pointer(key),
                    True,
                )

    def _node(self, node: Any, pointer: str, depth: int) -> None:
        self.node_count += 1
        if self.node_count > self.limits.max_nodes:
            # fatal: stop here, but within the diagnostics bound like any other finding
            self.add(
                "NUIF_LIMIT_NODES",
                f"the document has more than {self.limits.max_nodes} nodes (the node limit)",
                pointer,
            )
            raise _Stop
        if not isinstance(node, dict):
            self.add("NUIF_SCHEMA", f"a node is a JSON object, found {_json_type(node)}", pointer)
            return
        if "id" not in node:
            self.add("NUIF_SCHEMA", 'the node has no "id" member', pointer)
        if "kind" not in node:
            self.add("NUIF_SCHEMA", 'the node has no "kind" member', pointer)
        for key, value in node.items():
            if key == "id":
                at = pointer + "/id"
                if not isinstance(value, str):
                    self.add("NUIF_SCHEMA", f'"id" must be a string, found {_json_type(value)}', at)
                    continue
                problem = id_problem(value)
                if problem is not None:
                    self.add("NUIF_ID", problem, at)
                elif value in self.ids:
                    self.add(
                        "NUIF_DUPLICATE_ID",
                        f"id {_q(value)} is used twice (first at {self.ids[value]})",
                        at,
                    )
                else:
                    self.ids[value] = at
            elif key == "kind":
                at = pointer + "/kind"
                if not isinstance(value, str):
                    self.add("NUIF_SCHEMA", f'"kind" must be a string, found {_json_type(value)}', at)
                    continue
                problem = kind_problem(value)
                if problem is not None:
                    self.add("NUIF_KIND", problem, at)
            elif key == "attrs":
                at = pointer + "/attrs"
                if not isinstance(value, dict):
                    self.add("NUIF_SCHEMA", f'"attrs" must be an object, found {_json_type(value)}', at)
                    continue
                for name in value:
                    problem = attr_problem(name)
                    if problem is not None:
                        self.add("NUIF_ATTR", problem, at + "/" + escape_pointer(name), True)
            elif key == "children":
                at = pointer + "/children"
                if not isinstance(value, list):
                    self.add(
                        "NUIF_SCHEMA", f'"children" must be an array, found {_json_type(value)}', at
                    )
                    continue
                for index, child in enumerate(value):
                    self._node(child, f"{at}/{index}", depth + 1)
            else:
                self.add(
                    "NUIF_SCHEMA",
                    f"unknown node member {_q(key)} (allowed: id, kind, attrs, children)",
                    pointer + "/" + escape_pointer(key),
                    True,
                )

    def diagnostics(self, data: bytes | None) -> tuple[Diagnostic, ...]:
        """The findings as diagnostics, located in ``data`` when the text is known."""
        if not self.found:
            return ()
        lines: dict[tuple[str, bool], tuple[int, int]] = {}
        if data is not None:
            values, keys = locate(data, {p for _, _, p, _ in self.found})
            for (offsets, at_key) in ((values, False), (keys, True)):
                for p, off in offsets.items():
                    lines[(p, at_key)] = line_column(data, off)
        out = []
        for code, message, pointer, at_key in self.found:
            lc = lines.get((pointer, at_key)) or lines.get((pointer, not at_key))
            out.append(
                Diagnostic(code, message, pointer, lc[0] if lc else None, lc[1] if lc else None)
            )
        return tuple(out)


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


# ---------------------------------------------------------------------------------------------
# the public operations


def _parse_checked(data: bytes, limits: Limits, max_diagnostics: int) -> tuple[Any, Checker]:
    value = _codec.loads(data, limits.max_depth)
    checker = Checker(limits, max_diagnostics)
    checker.document(value)
    return value, checker


def _canonical_bytes(data: bytes, lim: Limits) -> tuple[bytes, dict[str, Any] | None]:
    """The canonical text of ``data``, and the normalized model when it was built on the way.

    The fast path (``_codec.canonical_document``: parse, §3 check and canonical text in one
    compiled pass over a token tape) answers for every valid document; it returns None at the
    first schema problem, and then the Python path (``loads`` + :class:`Checker`) reports it.
    Text errors raise from either with identical code, message, pointer, line and column.
    """
    canonical = _codec.canonical_document(data, lim.max_depth, lim.max_nodes)
    if canonical is not None:
        return canonical, None
    return _checked_canonical(data, lim)


def _checked_canonical(data: bytes, lim: Limits) -> tuple[bytes, dict[str, Any]]:
    """The Python path of ``_canonical_bytes``: raises the first problem, or returns the
    canonical text and the normalized model (for the rare valid document the fast path left)."""
    value, checker = _parse_checked(data, lim, 1)
    if checker.found:
        raise checker.diagnostics(data)[0].error()
    doc = normalize(value)
    return _codec.dumps(doc, lim.max_depth), doc


def parse_canonical(
    text: Text, limits: Limits | None = None
) -> tuple[bytes, bytes, dict[str, Any]]:
    """The input bytes, the canonical text and the validated, normalized document model.

    Raises the first problem.  The model is parsed back from the canonical text (members in
    canonical order), so it costs one compiled ``loads`` of compact text and no normalization.
    """
    lim = _limits(limits)
    data = as_bytes(text, lim.max_document_bytes)
    canonical, doc = _canonical_bytes(data, lim)
    return data, canonical, _model(data, canonical, doc, lim)


def _model(
    data: bytes, canonical: bytes, doc: dict[str, Any] | None, lim: Limits
) -> dict[str, Any]:
    """The model of a valid document, given what ``_canonical_bytes`` returned for ``data``."""
    if doc is None:
        # every canonical text reads back (NUIF-0.1: an integer literal beyond 2^53 - 1 that is
        # the RFC 8785 text of a double, as 1e20 is written, is that double)
        doc = _codec.loads(canonical, lim.max_depth)
    return doc  # type: ignore[no-any-return]


def parse_document(text: Text, limits: Limits | None = None) -> tuple[bytes, dict[str, Any]]:
    """The input bytes and the validated, normalized document model; raises the first problem."""
    data, _, doc = parse_canonical(text, limits)
    return data, doc


_DEFAULT_BYTES = Limits.DEFAULT.max_document_bytes
_DEFAULT_DEPTH = Limits.DEFAULT.max_depth
_DEFAULT_NODES = Limits.DEFAULT.max_nodes


def _bytes_and_limits(text: Text, limits: Limits | None) -> tuple[bytes, Limits]:
    """``as_bytes`` and ``resolve_limits`` for the one-shot operations, bytes input inlined."""
    lim = Limits.DEFAULT if limits is None else _limits(limits)
    if type(text) is bytes and len(text) <= lim.max_document_bytes:
        return text, lim
    return as_bytes(text, lim.max_document_bytes), lim


def _canonical(text: Text, limits: Limits | None) -> tuple[bytes, bytes]:
    data, lim = _bytes_and_limits(text, limits)
    return data, _canonical_bytes(data, lim)[0]


def validate(
    text: Text, *, limits: Limits | None = None, max_diagnostics: int = 100
) -> ValidationReport:
    """Validate a NUIF document and report every problem found (at most ``max_diagnostics``).

    A text error (size, UTF-8, syntax, I-JSON) stops everything and is the only diagnostic;
    schema problems (§3) are all reported, in document order, each with code, message, JSON
    Pointer, line and column.  Never raises ``NuifError``; ``valid`` says the verdict and
    ``hash`` is the document hash when valid.
    """
    if max_diagnostics < 1:
        raise ValueError("max_diagnostics must be at least 1")
    try:
        if limits is None and type(text) is bytes and len(text) <= _DEFAULT_BYTES:
            # as in canonicalize: nothing resolved before the compiled call
            report = _codec.valid_report(text, _DEFAULT_DEPTH, _DEFAULT_NODES, ValidationReport)
            if report is not None:
                return report  # type: ignore[no-any-return]
            data, lim = text, Limits.DEFAULT
        else:
            data, lim = _bytes_and_limits(text, limits)
            # the fast path: parse, §3 check, canonical text, hash and the report in one call
            report = _codec.valid_report(data, lim.max_depth, lim.max_nodes, ValidationReport)
            if report is not None:
                return report  # type: ignore[no-any-return]
        value, checker = _parse_checked(data, lim, max_diagnostics)
    except NuifError as err:
        return ValidationReport(False, None, (Diagnostic.from_error(err),))
    if checker.found:
        return ValidationReport(False, None, checker.diagnostics(data), checker.truncated)
    canonical = _codec.dumps(normalize(value), lim.max_depth)
    return ValidationReport(True, _codec.hash_bytes(canonical))


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
    # a schema problem (raised here), or a document only Python handles
    canonical = _checked_canonical(data, lim)[0]
    return CanonicalResult(canonical, _codec.hash_bytes(canonical), canonical != data)


def is_canonical(text: Text, *, limits: Limits | None = None) -> bool:
    """True when ``text`` is byte-identical to its canonical text (raises if it is invalid)."""
    data, canonical = _canonical(text, limits)
    return canonical == data


def document_hash(text: Text, *, limits: Limits | None = None) -> str:
    """The document hash: ``"sha256:"`` + hex SHA-256 of the canonical text."""
    return _codec.hash_bytes(_canonical(text, limits)[1])


def iter_nodes(root: dict[str, Any]) -> Iterator[tuple[dict[str, Any], int]]:
    """Every node with its depth (root = 1), in document pre-order."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        children = node.get("children")
        if children:
            stack.extend((child, depth + 1) for child in reversed(children))


def node_hash(text: Text, node_id: str, *, limits: Limits | None = None) -> str:
    """The hash of the canonical text of one normalized node (its whole subtree)."""
    lim = _limits(limits)
    _, doc = parse_document(text, lim)
    for node, _ in iter_nodes(doc["root"]):
        if node["id"] == node_id:
            return hash_bytes(_codec.dumps(node, lim.max_depth))
    raise NuifError("NUIF_PATCH_NOT_FOUND", f"no node has the id {_q(node_id)}")


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
    kinds: dict[str, int] = {}
    outline: list[OutlineEntry] = []
    count = deepest = 0
    for node, depth in iter_nodes(doc["root"]):
        count += 1
        deepest = max(deepest, depth)
        kind = node["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
        if len(outline) < max_outline_nodes:
            outline.append(OutlineEntry(node["id"], kind, depth, len(node.get("children", ()))))
    root = doc["root"]
    return Inspection(
        hash=hash_bytes(canonical),
        is_canonical=canonical == data,
        input_bytes=len(data),
        canonical_bytes=len(canonical),
        node_count=count,
        max_depth=deepest,
        kinds=dict(sorted(kinds.items())),
        root=NodeRef(root["id"], root["kind"]),
        outline=tuple(outline),
        truncated=count > len(outline),
    )
