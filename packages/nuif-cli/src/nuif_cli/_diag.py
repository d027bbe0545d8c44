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

import os
import re
from typing import Any

STDIO = "-"
STDIN_NAME = "<stdin>"

#: characters that cannot stand in a line as they are: C0 controls (the line feed and the
#: carriage return among them), DEL, C1 controls, the line and paragraph separators (which
#: ``str.splitlines`` and some editors take as line ends), and the lone surrogates that stand
#: for the bytes of a name that are not UTF-8 (``surrogateescape``)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: a backslash marks the escaped form, so a name holding one is escaped too (on Windows, where
#: it separates directories, only a name that starts with one)
_MARK = "\\"
_MARK_ANYWHERE = os.sep != _MARK and os.altsep != _MARK


def quoted(name: str) -> str:
    r"""A file name as one line of UTF-8 text: itself, or its escaped form.

    The escaped form (docs/cli.md, "file names in lines"), for a name holding a backslash, a
    control character, U+2028/U+2029 or bytes that are not UTF-8: a leading backslash, then the
    name's bytes (``os.fsencode``) with ``\\`` for a backslash, ``\n`` for a line feed, ``\r``
    for a carriage return and ``\xNN`` for each byte of any other such character and for each
    byte that is not UTF-8.  ``nuif hash`` writes names so (as GNU sha256sum does for ``\``,
    ``\n``, ``\r``) and ``hash --check`` reads them back (:func:`unquoted`).
    """
    if not _UNSAFE.search(name) and not (
        name.startswith(_MARK) or (_MARK_ANYWHERE and _MARK in name)
    ):
        return name
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:  # pragma: no cover - a name no file system gives
        raw = name.encode("utf-8", "surrogatepass")
    out = [_MARK]
    for char in raw.decode("utf-8", "surrogateescape"):
        if char == _MARK:
            out.append(_MARK * 2)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif _UNSAFE.match(char):
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8"))
        else:
            out.append(char)
    return "".join(out)


_ESCAPES = {ord("\\"): b"\\", ord("n"): b"\n", ord("r"): b"\r"}
_HEX = re.compile(rb"[0-9a-fA-F]{2}")


def unquoted(text: bytes, escaped: bool) -> str | None:
    """The file name that :func:`quoted` wrote as ``text`` (bytes of a line): with ``escaped``,
    ``text`` is the escaped form after its leading backslash, decoded to the name's exact bytes;
    without, the name's bytes as they are (so a list holding a name's raw bytes is read too).
    The bytes become a name as ``os.fsdecode`` gives it.  None when an escape is not one
    :func:`quoted` writes (or, on Windows, the bytes are no name)."""
    if escaped:
        raw = bytearray()
        i, n = 0, len(text)
        while i < n:
            byte = text[i]
            if byte != 0x5C:  # a backslash
                raw.append(byte)
                i += 1
            elif i + 1 < n and text[i + 1] in _ESCAPES:
                raw += _ESCAPES[text[i + 1]]
                i += 2
            elif text[i + 1 : i + 2] == b"x" and _HEX.fullmatch(text, i + 2, i + 4):
                raw.append(int(text[i + 2 : i + 4], 16))
                i += 4
            else:
                return None
        text = bytes(raw)
    try:
        return os.fsdecode(text)
    except UnicodeDecodeError:  # pragma: no cover - Windows: names are UTF-8 (or surrogates)
        return None


def shown(name: str) -> str:
    """The name of an input in a message: the path as given (:func:`quoted`: one line of UTF-8
    text whatever it holds), ``<stdin>`` for ``-``."""
    return STDIN_NAME if name == STDIO else quoted(name)


def pointer_position(data: bytes | None, pointer: str | None) -> tuple[int, int] | None:
    """(line, column) where the value at ``pointer`` (or its longest resolving prefix) starts in
    the JSON text ``data`` (``nuif_core.pointer_position``); None without a text or a pointer."""
    if data is None or pointer is None:
        return None
    from nuif_core import pointer_position as position

    return position(data, pointer)


def line(
    name: str,
    code: str,
    message: str,
    pointer: str | None = None,
    line_no: int | None = None,
    column: int | None = None,
    member: str | None = None,
) -> str:
    """One diagnostic: ``NAME:LINE:COL: CODE message (at /pointer)`` (``NAME(member):…`` for a
    member of a package)."""
    name = shown(name) + (f"({member})" if member is not None else "")
    where = f"{name}:{line_no}:{column}:" if line_no is not None else f"{name}:"
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
        return line(name, err.code, err.message, None, err.line, err.column, member)
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
