"""Find where JSON Pointers land in a (valid) JSON text, for diagnostics.

Validation works on parsed values; when it finds problems it asks this module for the line and
column of each reported pointer.  It scans the text once, descending only into values on the way
to a wanted pointer and skipping every other subtree by bracket matching, so the cost is one
pass over the bytes at regex speed and nothing is paid when a document is valid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from ._errors import escape_pointer, line_column

__all__ = ["locate", "pointer_position"]

_WS = re.compile(rb"[ \t\n\r]*")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_SKIP = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)
_SCALAR = re.compile(rb"[^ \t\n\r\[\]{},:]+")


class _Scan:
    def __init__(self, data: bytes, wanted: set[str]) -> None:
        self.data = data
        self.wanted = wanted
        self.prefixes: set[str] = set()
        for p in wanted:
            parts = p.split("/")
            for k in range(len(parts)):
                self.prefixes.add("/".join(parts[:k]))
        self.values: dict[str, int] = {}
        self.keys: dict[str, int] = {}

    def ws(self, i: int) -> int:
        return _WS.match(self.data, i).end()  # type: ignore[union-attr]

    def skip(self, i: int) -> int:
        """Offset just past the value starting at ``i``."""
        data = self.data
        c = data[i : i + 1]
        if c == b'"':
            return _STRING.match(data, i).end()  # type: ignore[union-attr]
        if c not in (b"[", b"{"):
            return _SCALAR.match(data, i).end()  # type: ignore[union-attr]
        depth = 0
        for m in _SKIP.finditer(data, i):
            t = m.group()
            if t in (b"[", b"{"):
                depth += 1
            elif t in (b"]", b"}"):
                depth -= 1
                if depth == 0:
                    return m.end()
        return len(data)

    def value(self, i: int, pointer: str) -> int:
        if pointer in self.wanted:
            self.values[pointer] = i
        if pointer not in self.prefixes:
            return self.skip(i)
        data = self.data
        c = data[i : i + 1]
        if c == b"{":
            i = self.ws(i + 1)
            if data[i : i + 1] == b"}":
                return i + 1
            while True:
                m = _STRING.match(data, i)
                assert m is not None
                key = json.loads(m.group())
                child = pointer + "/" + escape_pointer(key)
                if child in self.wanted:
                    self.keys[child] = i
                i = self.ws(m.end())
                i = self.ws(i + 1)  # ':'
                i = self.ws(self.value(i, child))
                if data[i : i + 1] == b",":
                    i = self.ws(i + 1)
                    continue
                return i + 1
        if c == b"[":
            i = self.ws(i + 1)
            if data[i : i + 1] == b"]":
                return i + 1
            index = 0
            while True:
                i = self.ws(self.value(i, f"{pointer}/{index}"))
                index += 1
                if data[i : i + 1] == b",":
                    i = self.ws(i + 1)
                    continue
                return i + 1
        return self.skip(i)


def locate(data: bytes, pointers: Iterable[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Byte offsets of the values and of the member names at ``pointers`` in valid JSON ``data``.

    Returns ``(value_offsets, key_offsets)``; a pointer that does not resolve is simply absent.
    """
    scan = _Scan(data, set(pointers))
    if scan.wanted:
        scan.value(scan.ws(0), "")
    return scan.values, scan.keys


def pointer_position(text: str | bytes, pointer: str) -> tuple[int, int] | None:
    """Where the value that the JSON Pointer ``pointer`` names starts in the JSON text ``text``.

    Returns its 1-based line and column (the column counting characters, as every diagnostic's
    does), or, when ``pointer`` does not resolve, those of the value its longest resolving prefix
    names (a diagnostic about a missing member points into its object); ``None`` when ``pointer``
    is not a JSON Pointer.  ``text`` is the JSON text the error was reported on: the scan reads
    only what lies on the way to the value, so a text that is not JSON gives ``None`` where the
    scan fails and may give a place before that.  This is how a surface places an error that
    carries a pointer but no line, such as a patch operation's (the CLI does)::

        >>> pointer_position('{"a": [1,\n  2]}', "/a/1")
        (2, 3)
        >>> pointer_position('{"a": 1}', "/b/c")
        (1, 1)
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if pointer and not pointer.startswith("/"):
        return None
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
