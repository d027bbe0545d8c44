"""The one error type of NUIF and the stable code set.

This is not a public API (``nuif_core`` exports ``NuifError`` and ``ERROR_CODES``); it is the
lowest layer of the core and imports nothing from it.
``NuifError`` is defined once, here, in Python: the compiled codec and the pure-Python twin both
raise it, so ``except NuifError`` catches either.  The code set is part of the public contract
(NUIF-0 §6, docs/spec/nuif-0.1.md): adding a code is fine, renaming or removing one is a
breaking change, and ``tests/core/test_errors.py`` pins it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ERROR_CODES",
    "NuifError",
    "error_dict",
    "escape_pointer",
    "join_pointer",
    "line_column",
    "text_error",
]

#: Every stable error code, with the one-line meaning documented in docs/errors.md.
ERROR_CODES: dict[str, str] = {
    # §1 text and values
    "NUIF_UTF8": "the bytes are not valid UTF-8",
    "NUIF_PARSE": "the text is not JSON (syntax error, byte-order mark, empty text)",
    "NUIF_UNICODE": "a string holds a lone surrogate or a Unicode noncharacter",
    "NUIF_DUPLICATE_KEY": "an object has the same member name twice",
    "NUIF_NUMBER": "a number overflows, or a big integer is not the RFC 8785 text of a double",
    "NUIF_DEPTH": "arrays and objects are nested deeper than the depth limit",
    "NUIF_TOO_LARGE": "the text is longer than the size limit",
    "NUIF_VALUE": "a Python value has no JSON representation (dumps only)",
    # §3 documents
    "NUIF_SCHEMA": "a member is missing, unknown, or of the wrong type",
    "NUIF_VERSION": "the nuif version is not supported",
    "NUIF_ID": "a node id does not match the id rule",
    "NUIF_DUPLICATE_ID": "two nodes share an id",
    "NUIF_KIND": "a node kind does not match the kind rule",
    "NUIF_ATTR": "an attribute name does not match the attribute rule",
    "NUIF_LIMIT_NODES": "the document has more nodes than the node limit",
    # §4/§5 patches
    "NUIF_LIMIT_TRANSACTIONS": "the patch has more transactions than the limit",
    "NUIF_LIMIT_OPERATIONS": "a transaction, or the patch, has more operations than the limit",
    "NUIF_LIMIT_WORK": "a patch needs more work than the budget its input sizes allow",
    "NUIF_PATCH_SCHEMA": "the patch is not shaped as NUIF-0 §5 says",
    "NUIF_PATCH_BASE_MISMATCH": "the patch's base is not the hash of the document",
    "NUIF_PATCH_NOT_FOUND": "an operation names a node id that does not exist",
    "NUIF_PATCH_ID_EXISTS": "an operation would create an id that is already used",
    "NUIF_PATCH_INDEX": "a child index is out of range",
    "NUIF_PATCH_ROOT": "an operation would remove or move the root",
    "NUIF_PATCH_CYCLE": "a move would put a node inside its own subtree",
    "NUIF_PATCH_ATTR_MISSING": "an operation names an attribute the node does not have",
    "NUIF_PATCH_POINTER": "a JSON Pointer of an edit or meta operation does not resolve",
    "NUIF_PATCH_TEST_FAILED": "a test precondition does not hold",
    # §7 packages
    "NUIF_PACKAGE": "a package entry is unsafe, missing, or does not match the manifest",
    "NUIF_PACKAGE_LIMIT": "a package passes an entry-count or size limit",
    # §9 catalogs
    "NUIF_CATALOG": "the catalog is not a valid NUIF catalog",
    "NUIF_CATALOG_KIND": "a node's kind is not listed by a closed catalog",
    "NUIF_CATALOG_ATTRS": "a node's attributes fail its kind's schema in the catalog",
    "NUIF_CATALOG_CHILDREN": "a child's kind, or the number of children, is not what the catalog allows",
    # surfaces
    "NUIF_ARGUMENTS": "a tool or command was called with invalid arguments",
}


def escape_pointer(token: str) -> str:
    """Escape one reference token for a JSON Pointer (RFC 6901 §3)."""
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(parts: Any) -> str:
    """Build a JSON Pointer from an iterable of keys (str) and indexes (int)."""
    return "".join("/" + (escape_pointer(p) if isinstance(p, str) else str(p)) for p in parts)


class NuifError(ValueError):
    """A NUIF failure: a stable ``code``, a ``message`` to act on, and where it happened.

    ``pointer`` is a JSON Pointer (RFC 6901) into the input when the failure belongs to a value;
    ``line`` and ``column`` are 1-based (column counts Unicode characters) for failures located in
    a text.  Any of the three may be ``None``.  ``str(error)`` reads
    ``NUIF_DUPLICATE_ID: id "a" is used twice (at /root/children/1/id, line 1 column 52)``.
    """

    code: str
    message: str
    pointer: str | None
    line: int | None
    column: int | None

    def __init__(
        self,
        code: str,
        message: str,
        *,
        pointer: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        if code not in ERROR_CODES:
            raise AssertionError(f"unknown NUIF error code {code!r}")
        self.code = code
        self.message = message
        self.pointer = pointer
        self.line = line
        self.column = column
        super().__init__(self.__str__())

    def location(self) -> str:
        """The location suffix: ``at /p, line L column C`` (empty when nothing is known)."""
        parts = []
        if self.pointer is not None:
            parts.append(f"at {self.pointer or '/'}" if self.pointer else "at the top level")
        if self.line is not None:
            parts.append(f"line {self.line} column {self.column}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        return f"{self.code}: {self.message}" + (f" ({where})" if where else "")

    def __repr__(self) -> str:
        return (
            f"NuifError({self.code!r}, {self.message!r}, pointer={self.pointer!r}, "
            f"line={self.line!r}, column={self.column!r})"
        )

    def __reduce__(self) -> Any:
        return (_rebuild, (self.code, self.message, self.pointer, self.line, self.column))

    @classmethod
    def too_large(
        cls,
        found: str,
        limit: int,
        *,
        limit_name: str = "the limit",
        advice: str = "",
        pointer: str | None = None,
    ) -> NuifError:
        """NUIF_TOO_LARGE, in the one wording every surface uses: ``{found}; {limit_name} is
        {limit} bytes{advice}`` (``found``: what is too large and how large, as "the document
        text is 17 bytes"; ``advice``: what to do, from its own punctuation on)."""
        return cls(
            "NUIF_TOO_LARGE", f"{found}; {limit_name} is {limit} bytes{advice}", pointer=pointer
        )

    def to_dict(self) -> dict[str, Any]:
        """The error as a JSON-ready mapping (the shape every surface uses)."""
        return error_dict(self.code, self.message, self.pointer, self.line, self.column)


def error_dict(
    code: str, message: str, pointer: str | None, line: int | None, column: int | None
) -> dict[str, Any]:
    """An error or a diagnostic as a JSON-ready mapping (the shape every surface uses)."""
    return {"code": code, "message": message, "pointer": pointer, "line": line, "column": column}


def _rebuild(
    code: str, message: str, pointer: str | None, line: int | None, column: int | None
) -> NuifError:
    return NuifError(code, message, pointer=pointer, line=line, column=column)


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of byte ``offset`` in ``data``.

    Lines end at ``\\n``; the column counts Unicode characters from the start of the line (the
    bytes before ``offset`` are valid UTF-8 whenever this is called, malformed bytes count one each).
    """
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    return line, column


def text_error(
    code: str, message: str, data: bytes, offset: int, pointer: str | None = None
) -> NuifError:
    """Build an error located at byte ``offset`` of ``data`` (used by both codecs)."""
    line, column = line_column(data, offset)
    return NuifError(code, message, pointer=pointer, line=line, column=column)
