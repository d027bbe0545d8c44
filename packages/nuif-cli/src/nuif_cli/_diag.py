"""Diagnostics that name their input: ``FILE:LINE:COL: NUIF_CODE message (at /pointer)``.

Every command reports a problem of an input in this one form (``FILE: NUIF_CODE message`` when
the problem has no position), whether the input is a document, a patch, the second document of
a diff, or a member of a package (``PKG(document.json):LINE:COL:``, as linkers name the members
of an archive).  The name is the path as the user gave it; ``-`` is shown as ``<stdin>``.

A failure located by a JSON Pointer only (a patch operation's) is given the line and column
where the pointed value starts in the input's text, or, when the pointer does not resolve there,
where its longest resolving prefix starts.
"""

from __future__ import annotations

from typing import Any

STDIO = "-"
STDIN_NAME = "<stdin>"


def shown(name: str) -> str:
    """The name of an input in a message: the path as given, ``<stdin>`` for ``-``."""
    return STDIN_NAME if name == STDIO else name


def pointer_position(data: bytes | None, pointer: str | None) -> tuple[int, int] | None:
    """(line, column) where the value at ``pointer`` (or its longest resolving prefix) starts in
    the JSON text ``data``; None when ``data`` is not JSON or nothing resolves."""
    if data is None or pointer is None or (pointer and not pointer.startswith("/")):
        return None
    from nuif_core._errors import line_column
    from nuif_core._locate import locate

    parts = pointer.split("/")
    candidates = ["/".join(parts[:k]) for k in range(len(parts), 0, -1)]
    try:
        values, _ = locate(data, candidates)
    except (AssertionError, ValueError, AttributeError, IndexError, TypeError):
        return None  # not JSON after all: no position rather than a wrong one
    for candidate in candidates:  # longest first
        if candidate in values:
            return line_column(data, values[candidate])
    return None


def line(
    name: str,
    code: str,
    message: str,
    pointer: str | None = None,
    line_no: int | None = None,
    column: int | None = None,
) -> str:
    """One diagnostic: ``NAME:LINE:COL: CODE message (at /pointer)``."""
    where = f"{shown(name)}:{line_no}:{column}:" if line_no is not None else f"{shown(name)}:"
    at = f" (at {pointer or '/'})" if pointer is not None else ""
    return f"{where} {code} {message}{at}"


def error_line(name: str, err: Any, data: bytes | None = None) -> str:
    """The line of a :class:`nuif_core.NuifError` raised for input ``name`` whose text is
    ``data`` (used to place an error that has a pointer but no line)."""
    line_no, column = err.line, err.column
    if line_no is None:
        found = pointer_position(data, err.pointer)
        if found is not None:
            line_no, column = found
    return line(name, err.code, err.message, err.pointer, line_no, column)


def package_error_line(name: str, err: Any) -> str:
    """A package's error: a problem inside ``document.json`` or ``manifest.json`` is placed in
    that member (``PKG(document.json):LINE:COL:``); any other names the package."""
    if err.line is not None:
        # the core places member errors this way: the document's under pointer /document (its
        # place in the manifest), the manifest's own text errors with no pointer
        member = "document.json" if err.pointer == "/document" else "manifest.json"
        return line(f"{shown(name)}({member})", err.code, err.message, None, err.line, err.column)
    return line(name, err.code, err.message, err.pointer)


class InputError(Exception):
    """A NUIF error that belongs to one input (exit status 1), printed as :func:`error_line`
    (or as ``text`` when given)."""

    def __init__(
        self, name: str, error: Any, data: bytes | None = None, *, text: str | None = None
    ) -> None:
        super().__init__(text if text is not None else error_line(name, error, data))
        self.name = name
        self.error = error


class named:
    """``with named(name, data):`` — a :class:`nuif_core.NuifError` raised inside becomes the
    :class:`InputError` of input ``name`` (whose text is ``data``)."""

    def __init__(self, name: str, data: bytes | None = None) -> None:
        self.name = name
        self.data = data

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        from nuif_core import NuifError

        if isinstance(exc, NuifError):
            raise InputError(self.name, exc, self.data) from None


def read_document(name: str, limit: int, what: str = "document") -> bytes:
    """The bytes of input ``name`` (``-`` = stdin; ``_io.read_input``); an input past ``limit``
    is the :class:`InputError` of that input."""
    from ._io import read_input

    with named(name):
        return read_input(name, limit, what)


def first_invalid(candidates: list[tuple[str, bytes]]) -> str | None:
    """The name of the first document of ``candidates`` that is not valid (None if all are).

    Run only after a call failed, to say which input is at fault: the core checks its inputs in
    order and stops at the first problem, so the first invalid one is the one it reported."""
    from nuif_core import validate

    for name, data in candidates:
        if not validate(data, max_diagnostics=1).valid:
            return name
    return None
