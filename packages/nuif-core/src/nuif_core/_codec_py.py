"""The pure-Python twin of the compiled codec (``_speedups``).

This is not a public API: only the codec selection (``_codec``) imports it (tests reach it through
``_codec.twin()``).  It is the test oracle and the fallback (``NUIF_NO_EXTENSIONS=1``).  Both implementations follow
one procedure, documented in docs/canonical-json.md, so that they agree not only on bytes but on
every error: code, message, pointer, line and column.

Error procedure, in order:

1. The whole text must be UTF-8 (NUIF_UTF8 at the first byte of the first bad sequence).
2. A byte-order mark is NUIF_PARSE at 1:1.
3. One scan, left to right.  A syntax error is reported at the first byte where the text stops
   being a prefix of some JSON text.  NUIF_NUMBER is reported at the start of the number,
   NUIF_UNICODE at the backslash of the escape (or at the literal character), NUIF_DEPTH at the
   bracket that opens one level too many.  Duplicate member names are checked when the object
   closes (at its ``}``) and reported at the second occurrence that comes first in the text.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from typing import Any, TypeVar

from ._errors import NuifError, join_pointer, text_error
from ._messages import (  # the compiled codec reads these names off this module (``_tw()``)
    BOM,
    CONTROL_IN_STRING,
    DEPTH,
    DUPLICATE_KEY,
    EXPECT_ARRAY_NEXT,
    EXPECT_COLON,
    EXPECT_DIGIT,
    EXPECT_END,
    EXPECT_ESCAPE,
    EXPECT_FIRST_KEY,
    EXPECT_HEX,
    EXPECT_KEY,
    EXPECT_LITERAL,
    EXPECT_OBJECT_NEXT,
    EXPECT_STRING_END,
    EXPECT_VALUE,
    KEY_NOT_STR,
    LONE_SURROGATE,
    NO_JSON_VALUE,
    NONCHARACTER,
    NOT_A_NUMBER,
    NUMBER_OVERFLOW,
    SURROGATE_ESCAPE,
    UTF8,
    big_int_problem,
    big_integer_problem,
    describe_found,
    quote,
    short,
)
from ._rfc8785 import (
    MAX_SAFE_INTEGER,
    dumps_str,
    format_number,
    utf16_key,
)
from ._rfc8785 import (
    NONCHARACTER as _NONCHAR,
)
from ._schema import Checker, normalize, outline

__all__ = [
    "canonical_document",
    "canonical_json",
    "canonical_result",
    "dumps",
    "hash_bytes",
    "inspect_summary",
    "loads",
    "node_spans",
    "schema_report",
    "valid_report",
]

_WS = re.compile(r"[ \t\n\r]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')
_DIGITS = re.compile(r"[0-9]*")
_HEX = "0123456789abcdefABCDEF"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _is_nonchar(cp: int) -> bool:
    return 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE


class _Parser:
    __slots__ = ("data", "max_depth", "path", "text")

    def __init__(self, data: bytes, text: str, max_depth: int) -> None:
        self.data = data
        self.text = text
        self.max_depth = max_depth
        self.path: list[str | int] = []

    # -- errors -------------------------------------------------------------------------------
    def _boffset(self, i: int) -> int:
        return len(self.text[:i].encode("utf-8", "surrogatepass"))

    def fail(self, code: str, message: str, i: int, pointer: str | None = None) -> NuifError:
        return text_error(code, message, self.data, self._boffset(i), pointer)

    def syntax(self, expected: str, i: int) -> NuifError:
        b = self._boffset(i)
        return text_error(
            "NUIF_PARSE", f"{expected}, found {describe_found(self.data, b)}", self.data, b
        )

    def pointer(self) -> str:
        return join_pointer(self.path)

    # -- grammar ------------------------------------------------------------------------------
    def parse(self) -> Any:
        text = self.text
        i = _WS.match(text, 0).end()  # type: ignore[union-attr]
        value, i = self.value(i, 0)
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if i != len(text):
            raise self.syntax(EXPECT_END, i)
        return value

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        text = self.text
        if i >= len(text):
            raise self.syntax(EXPECT_VALUE, i)
        c = text[i]
        if c == '"':
            return self.string(i)
        if c == "{":
            return self.object(i, depth + 1)
        if c == "[":
            return self.array(i, depth + 1)
        if c == "-" or "0" <= c <= "9":
            return self.number(i)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if c == word[0]:
                for k in range(1, len(word)):
                    if i + k >= len(text) or text[i + k] != word[k]:
                        raise self.syntax(EXPECT_LITERAL.format(word), i + k)
                return val, i + len(word)
        raise self.syntax(EXPECT_VALUE, i)

    def enter(self, i: int, depth: int) -> None:
        if depth > self.max_depth:
            raise self.fail(
                "NUIF_DEPTH",
                DEPTH.format(self.max_depth),
                i,
                self.pointer(),
            )

    def array(self, i: int, depth: int) -> tuple[list[Any], int]:
        self.enter(i, depth)
        text, ws = self.text, _WS
        out: list[Any] = []
        i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
        if i < len(text) and text[i] == "]":
            return out, i + 1
        path = self.path
        while True:
            path.append(len(out))
            value, i = self.value(i, depth)
            path.pop()
            out.append(value)
            i = ws.match(text, i).end()  # type: ignore[union-attr]
            if i < len(text) and text[i] == ",":
                i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
                continue
            if i < len(text) and text[i] == "]":
                return out, i + 1
            raise self.syntax(EXPECT_ARRAY_NEXT, i)

    def object(self, i: int, depth: int) -> tuple[dict[str, Any], int]:
        self.enter(i, depth)
        text, ws = self.text, _WS
        members: list[tuple[str, int, Any]] = []
        i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
        if i < len(text) and text[i] == "}":
            return {}, i + 1
        expected = EXPECT_FIRST_KEY
        path = self.path
        while True:
            if i >= len(text) or text[i] != '"':
                raise self.syntax(expected, i)
            key_at = i
            key, i = self.string(i)
            i = ws.match(text, i).end()  # type: ignore[union-attr]
            if i >= len(text) or text[i] != ":":
                raise self.syntax(EXPECT_COLON, i)
            i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
            path.append(key)
            value, i = self.value(i, depth)
            path.pop()
            members.append((key, key_at, value))
            i = ws.match(text, i).end()  # type: ignore[union-attr]
            if i < len(text) and text[i] == ",":
                i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
                expected = EXPECT_KEY
                continue
            if i < len(text) and text[i] == "}":
                out: dict[str, Any] = {}
                for key, key_at, value in members:
                    if key in out:
                        path.append(key)
                        err = self.fail(
                            "NUIF_DUPLICATE_KEY",
                            DUPLICATE_KEY.format(quote(key)),
                            key_at,
                            self.pointer(),
                        )
                        path.pop()
                        raise err
                    out[key] = value
                return out, i + 1
            raise self.syntax(EXPECT_OBJECT_NEXT, i)

    def number(self, i: int) -> tuple[int | float, int]:
        text = self.text
        start = i
        if text[i] == "-":
            i += 1
        if i >= len(text) or not ("0" <= text[i] <= "9"):
            raise self.syntax(EXPECT_DIGIT, i)
        if text[i] == "0":
            i += 1
        else:
            i = _DIGITS.match(text, i).end()  # type: ignore[union-attr]
        integer = True
        if i < len(text) and text[i] == ".":
            integer = False
            i += 1
            if i >= len(text) or not ("0" <= text[i] <= "9"):
                raise self.syntax(EXPECT_DIGIT, i)
            i = _DIGITS.match(text, i).end()  # type: ignore[union-attr]
        if i < len(text) and text[i] in "eE":
            integer = False
            i += 1
            if i < len(text) and text[i] in "+-":
                i += 1
            if i >= len(text) or not ("0" <= text[i] <= "9"):
                raise self.syntax(EXPECT_DIGIT, i)
            i = _DIGITS.match(text, i).end()  # type: ignore[union-attr]
        literal = text[start:i]
        if integer:
            # up to 15 digits is always within ±(2^53 - 1); 16 digits may be; 17 or more never
            if i - start - (text[start] == "-") <= 16:
                n = int(literal)
                if -MAX_SAFE_INTEGER <= n <= MAX_SAFE_INTEGER:
                    return n, i
            x = float(literal)
            message = big_integer_problem(literal, x)
            if message is None:
                return x, i  # the RFC 8785 text of a double (NUIF-0.1): it reads as that double
            raise self.fail("NUIF_NUMBER", message, start, self.pointer())
        x = float(literal)
        if math.isinf(x):
            raise self.fail(
                "NUIF_NUMBER", NUMBER_OVERFLOW.format(short(literal)), start, self.pointer()
            )
        return (x if x != 0.0 else 0.0), i

    def string(self, i: int) -> tuple[str, int]:
        text = self.text
        i += 1
        j = _PLAIN.match(text, i).end()  # type: ignore[union-attr]
        if j < len(text) and text[j] == '"':
            s = text[i:j]
            m = _NONCHAR.search(s)
            if m is not None:
                raise self._nonchar(i + m.start(), ord(m.group()))
            return s, j + 1
        parts: list[str] = [text[i:j]]
        m = _NONCHAR.search(parts[0])
        if m is not None:
            raise self._nonchar(i + m.start(), ord(m.group()))
        i = j
        n = len(text)
        while True:
            if i >= n:
                raise self.syntax(EXPECT_STRING_END, i)
            c = text[i]
            if c == '"':
                return "".join(parts), i + 1
            if c == "\\":
                esc_at = i
                if i + 1 >= n:
                    raise self.syntax(EXPECT_STRING_END, i + 1)
                e = text[i + 1]
                if e in _ESCAPES:
                    parts.append(_ESCAPES[e])
                    i += 2
                elif e == "u":
                    cp = self.hex4(i + 2)
                    i += 6
                    if 0xDC00 <= cp <= 0xDFFF:
                        raise self._surrogate(esc_at, cp)
                    if 0xD800 <= cp <= 0xDBFF:
                        if i >= n:
                            raise self.syntax(EXPECT_STRING_END, i)
                        if text[i] != "\\":
                            raise self._surrogate(esc_at, cp)
                        if i + 1 >= n:
                            raise self.syntax(EXPECT_STRING_END, i + 1)
                        if text[i + 1] != "u":
                            raise self._surrogate(esc_at, cp)
                        low = self.hex4(i + 2)
                        if not 0xDC00 <= low <= 0xDFFF:
                            raise self._surrogate(esc_at, cp)
                        i += 6
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    if _is_nonchar(cp):
                        raise self._nonchar(esc_at, cp)
                    parts.append(chr(cp))
                else:
                    raise self.syntax(EXPECT_ESCAPE, i + 1)
            elif c < " ":
                raise self.fail("NUIF_PARSE", CONTROL_IN_STRING.format(ord(c)), i)
            else:
                j = _PLAIN.match(text, i).end()  # type: ignore[union-attr]
                chunk = text[i:j]
                m = _NONCHAR.search(chunk)
                if m is not None:
                    raise self._nonchar(i + m.start(), ord(m.group()))
                parts.append(chunk)
                i = j

    def hex4(self, i: int) -> int:
        text = self.text
        for k in range(i, i + 4):
            if k >= len(text):
                raise self.syntax(EXPECT_STRING_END, k)
            if text[k] not in _HEX:
                raise self.syntax(EXPECT_HEX, k)
        return int(text[i : i + 4], 16)

    # a string (a member name included: it cannot be named) is located at the value that holds it
    def _surrogate(self, at: int, cp: int) -> NuifError:
        return self.fail("NUIF_UNICODE", SURROGATE_ESCAPE.format(cp), at, self.pointer())

    def _nonchar(self, at: int, cp: int) -> NuifError:
        return self.fail("NUIF_UNICODE", NONCHARACTER.format(cp), at, self.pointer())


def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise text_error("NUIF_UTF8", UTF8, data, exc.start) from None
    if text.startswith("\ufeff"):
        raise text_error("NUIF_PARSE", BOM, data, 0)
    return text


def loads(data: bytes, max_depth: int) -> Any:
    """Parse strict I-JSON ``data`` into Python values (dict, list, str, int, float, bool, None).

    Integer literals become ``int``; every other number becomes ``float`` (``-0`` becomes ``0``).
    """
    return _Parser(data, _decode(data), max_depth).parse()


# ---------------------------------------------------------------------------------------------
# RFC 8785 writer

_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_str(s: str, path: list[str | int]) -> None:
    m = _SURROGATE.search(s)
    if m is not None:
        raise NuifError(
            "NUIF_UNICODE",
            LONE_SURROGATE.format(ord(m.group())),
            pointer=join_pointer(path),
        )
    m = _NONCHAR.search(s)
    if m is not None:
        raise NuifError(
            "NUIF_UNICODE",
            NONCHARACTER.format(ord(m.group())),
            pointer=join_pointer(path),
        )


def _write(value: Any, out: list[str], path: list[str | int], depth: int, max_depth: int) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        _check_str(value, path)
        out.append(dumps_str(value))
    elif isinstance(value, int):
        # the number the object holds: a subclass's own __int__, __index__ or __repr__ may say
        # another one (the compiled writer reads the digits too)
        value = int.__index__(value)
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            # accepted exactly when its digits are the RFC 8785 text of a double, as in a text
            message = big_int_problem(value)
            if message is not None:
                raise NuifError("NUIF_NUMBER", message, pointer=join_pointer(path))
        out.append(str(value))
    elif isinstance(value, float):
        value = float.__float__(value)
        if not math.isfinite(value):
            raise NuifError("NUIF_NUMBER", NOT_A_NUMBER.format(value), pointer=join_pointer(path))
        out.append(format_number(value))
    elif isinstance(value, dict):
        if depth >= max_depth:
            raise _too_deep(path, max_depth)
        for key in value:
            if not isinstance(key, str):
                raise NuifError(
                    "NUIF_VALUE",
                    KEY_NOT_STR.format(type(key).__name__),
                    pointer=join_pointer(path),
                )
        out.append("{")
        first = True
        for key in sorted(value, key=utf16_key):
            path.append(key)
            _check_str(key, path)
            if not first:
                out.append(",")
            first = False
            out.append(dumps_str(key))
            out.append(":")
            _write(value[key], out, path, depth + 1, max_depth)
            path.pop()
        out.append("}")
    elif isinstance(value, (list, tuple)):
        if depth >= max_depth:
            raise _too_deep(path, max_depth)
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            path.append(index)
            _write(item, out, path, depth + 1, max_depth)
            path.pop()
        out.append("]")
    else:
        raise NuifError(
            "NUIF_VALUE",
            NO_JSON_VALUE.format(type(value).__name__),
            pointer=join_pointer(path),
        )


def _too_deep(path: list[str | int], max_depth: int) -> NuifError:
    return NuifError(
        "NUIF_DEPTH",
        DEPTH.format(max_depth),
        pointer=join_pointer(path),
    )


def dumps(value: Any, max_depth: int) -> bytes:
    """RFC 8785 bytes of a Python value (dict with str keys, list/tuple, str, int, float, bool, None)."""
    out: list[str] = []
    _write(value, out, [], 0, max_depth)
    return "".join(out).encode("utf-8")


def canonical_json(data: bytes, max_depth: int) -> bytes:
    """RFC 8785 bytes of strict I-JSON text ``data``."""
    return dumps(loads(data, max_depth), max_depth)


def _valid_model(data: bytes, max_depth: int, max_nodes: int) -> dict[str, Any] | None:
    """The normalized model of a valid NUIF document, or None when it has a schema problem
    (text errors raise as ``loads`` raises them)."""
    value = loads(data, max_depth)
    checker = Checker(max_nodes, 1)
    checker.document(value)
    if checker.found:
        return None
    return normalize(value)


def canonical_document(data: bytes, max_depth: int, max_nodes: int) -> bytes | None:
    """The canonical text of a valid NUIF document, or None when it has a schema problem.

    The twin of the compiled fast path: text errors are raised as ``loads`` raises them; the
    schema is NUIF-0 §3 (docs/spec/nuif-0.1.md) as ``_schema.Checker`` checks it (at most
    ``max_nodes`` nodes); the result is the RFC 8785 text of the normalized document.
    """
    doc = _valid_model(data, max_depth, max_nodes)
    return None if doc is None else dumps(doc, max_depth)


def schema_report(
    data: bytes, max_depth: int, max_nodes: int, max_diagnostics: int
) -> tuple[tuple[tuple[str, str, str, int | None, int | None], ...], bool]:
    """Every NUIF-0 §3 problem of ``data`` (at most ``max_diagnostics``), in document order, as
    ``(code, message, pointer, line, column)``, and whether more were left out; ``((), False)``
    for a valid document.  Text errors raise as ``loads`` raises them."""
    checker = Checker(max_nodes, max_diagnostics)
    checker.document(loads(data, max_depth))
    return tuple(checker.located(data)), checker.truncated


def hash_bytes(canonical: bytes) -> str:
    """``"sha256:"`` + lowercase hex SHA-256 of ``canonical`` (NUIF-0 §3)."""
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


R = TypeVar("R")


def canonical_result(
    data: bytes, max_depth: int, max_nodes: int, make: Callable[[bytes, str, bool], R]
) -> R | None:
    """``make(canonical, hash, changed)`` for a valid NUIF document, or None when it has a
    schema problem (``canonical_document``, then ``hash_bytes``, then ``canonical != data``).

    ``make`` is ``_results.CanonicalResult``; the compiled twin fills its slots directly.
    """
    canonical = canonical_document(data, max_depth, max_nodes)
    if canonical is None:
        return None
    return make(canonical, hash_bytes(canonical), canonical != data)


def valid_report(
    data: bytes, max_depth: int, max_nodes: int, make: Callable[[bool, str, tuple[()], bool], R]
) -> R | None:
    """``make(True, hash, (), False)`` for a valid NUIF document, or None when it has a schema
    problem (``canonical_document``, then ``hash_bytes``).

    ``make`` is ``_results.ValidationReport``; the compiled twin fills its slots directly.
    """
    canonical = canonical_document(data, max_depth, max_nodes)
    if canonical is None:
        return None
    return make(True, hash_bytes(canonical), (), False)


def inspect_summary(
    data: bytes,
    max_depth: int,
    max_nodes: int,
    max_outline: int,
    make: Callable[..., R],
    entry: Callable[[str, str, int, int], Any],
    ref: Callable[[str, str], Any],
) -> R | None:
    """``make(hash, is_canonical, input_bytes, canonical_bytes, node_count, max_depth, kinds,
    ref(root_id, root_kind), outline, truncated)`` for a valid NUIF document, or None when it
    has a schema problem (exactly when ``canonical_document`` returns None; text errors raise as
    there).

    ``max_depth`` is the depth of the node tree (the root alone is 1); ``kinds`` maps every kind
    to its number of nodes, sorted by kind; ``outline`` is a tuple of ``entry(id, kind, depth,
    children)`` (depth: root = 1; children: the number of child nodes) for the first
    ``max_outline`` nodes in document pre-order; ``truncated`` says whether nodes were left out.
    ``make``, ``entry`` and ``ref`` are ``_results.Inspection``, ``OutlineEntry`` and
    ``NodeRef``; the compiled twin reads all of it off its token tape, this one walks the
    normalized model.
    """
    doc = _valid_model(data, max_depth, max_nodes)
    if doc is None:
        return None
    canonical = dumps(doc, max_depth)
    root = doc["root"]
    count, deepest, kinds, entries = outline(root, max_outline, entry)
    return make(
        hash_bytes(canonical),
        canonical == data,
        len(data),
        len(canonical),
        count,
        deepest,
        kinds,
        ref(root["id"], root["kind"]),
        entries,
        count > len(entries),
    )


# -- node spans of a canonical document ------------------------------------------------------

_STRUCT = re.compile(rb'["{}\[\]]')
_SCALAR_END = re.compile(rb"[,}\]]")


def _skip_string(c: bytes, pos: int) -> int:
    """``pos`` at an opening quote; returns the index just past the closing quote."""
    pos += 1
    while True:
        q = c.index(b'"', pos)
        k = q - 1
        while c[k] == 0x5C:  # count the backslashes before the quote
            k -= 1
        if (q - 1 - k) % 2 == 0:
            return q + 1
        pos = q + 1


def _skip_value(c: bytes, pos: int) -> int:
    """The index just past the (compact) JSON value that starts at ``pos``."""
    b = c[pos]
    if b == 0x22:
        return _skip_string(c, pos)
    if b == 0x7B or b == 0x5B:
        depth = 0
        search = _STRUCT.search
        while True:
            m = search(c, pos)
            if m is None:
                raise ValueError("unterminated container")
            p = m.start()
            ch = c[p]
            if ch == 0x22:
                pos = _skip_string(c, p)
                continue
            depth += 1 if ch == 0x7B or ch == 0x5B else -1
            pos = p + 1
            if depth == 0:
                return pos
    m = _SCALAR_END.search(c, pos)
    if m is None:
        raise ValueError("unterminated scalar")
    return m.start()


def _expect(c: bytes, pos: int, token: bytes) -> int:
    if not c.startswith(token, pos):
        raise ValueError(f"not a canonical NUIF document: expected {token!r} at {pos}")
    return pos + len(token)


def node_spans(c: bytes) -> tuple[int, dict[str, tuple[int, int, int, int, int]]]:
    """Where each node sits in the canonical text ``c`` of a valid NUIF document.

    Returns ``(root_start, spans)``: ``root_start`` is the offset of the root node's ``{`` (the
    bytes before it are ``{"meta":…,"nuif":0,"root":`` or ``{"nuif":0,"root":``), and ``spans``
    maps each node id to ``(start, head_end, kind_start, kind_end, depth)``: ``c[start:head_end]``
    is ``{"attrs":…,`` or just ``{``, ``c[kind_start:kind_end]`` is the quoted kind, ``depth`` the
    tree depth (root = 1).  Raises ``ValueError`` when ``c`` does not have the canonical layout.
    """
    if c.startswith(b'{"meta":'):
        pos = _expect(c, _skip_value(c, 8), b',"nuif":0,"root":')
    else:
        pos = _expect(c, 0, b'{"nuif":0,"root":')
    root_start = pos
    spans: dict[str, tuple[int, int, int, int, int]] = {}
    stack: list[tuple[int, int]] = []
    depth = 1
    while True:
        start = pos
        pos = _expect(c, pos, b"{")
        if c.startswith(b'"attrs":{', pos):
            pos = _expect(c, _skip_value(c, pos + 8), b",")
        head_end = pos
        if c.startswith(b'"children":[', pos):
            stack.append((start, head_end))
            pos += 12
            depth += 1
            continue
        while True:
            pos = _expect(c, pos, b'"id":"')
            q = c.index(b'"', pos)
            nid = c[pos:q].decode("ascii")
            pos = _expect(c, q + 1, b',"kind":')
            kind_start = pos
            if c[pos] != 0x22:
                raise ValueError("kind is not a string")
            pos = _expect(c, _skip_string(c, pos), b"}")
            spans[nid] = (start, head_end, kind_start, pos - 1, depth)
            if not stack:
                if pos != len(c) - 1 or c[pos] != 0x7D:
                    raise ValueError("trailing bytes after the root node")
                return root_start, spans
            if c[pos] == 0x2C:
                pos += 1
                break
            pos = _expect(c, pos, b"],")
            start, head_end = stack.pop()
            depth -= 1
