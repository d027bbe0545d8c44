"""The pure-Python twin of the compiled codec (``_speedups``).

It is the test oracle and the fallback (``NUIF_NO_EXTENSIONS=1``).  Both implementations follow
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

from ._errors import NuifError, describe_found, join_pointer, text_error

__all__ = [
    "canonical_document", "canonical_json", "canonical_result", "dumps", "format_number",
    "hash_bytes", "inspect_summary", "loads", "node_spans", "valid_report",
]

MAX_SAFE_INTEGER = 2**53 - 1

# Expectation phrases shared (by value) with the compiled codec: "<expected>, found <found>".
EXPECT_VALUE = "expected a JSON value"
EXPECT_ARRAY_NEXT = "expected ',' or ']' after an array element"
EXPECT_OBJECT_NEXT = "expected ',' or '}' after an object member"
EXPECT_FIRST_KEY = "expected a member name or '}'"
EXPECT_KEY = "expected a member name"
EXPECT_COLON = "expected ':' after a member name"
EXPECT_END = "expected the end of the text after the value"
EXPECT_DIGIT = "expected a digit"
EXPECT_LITERAL = "expected the literal '{}'"
EXPECT_STRING_END = "unterminated string: expected '\"'"
EXPECT_ESCAPE = "invalid escape: expected one of \" \\ / b f n r t u"
EXPECT_HEX = "invalid \\u escape: expected a hex digit"
CONTROL_IN_STRING = "control character U+{:04X} must be escaped in a string"

_WS = re.compile(r"[ \t\n\r]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')
_DIGITS = re.compile(r"[0-9]*")
_HEX = "0123456789abcdefABCDEF"
_NONCHAR = re.compile(
    "[\ufdd0-\ufdef\ufffe\uffff"
    + "".join(chr(p << 16 | 0xFFFE) + chr(p << 16 | 0xFFFF) for p in range(1, 17))
    + "]"
)
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _is_nonchar(cp: int) -> bool:
    return 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE


class _Parser:
    __slots__ = ("data", "text", "max_depth", "path", "_byte_offsets")

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
        return text_error("NUIF_PARSE", f"{expected}, found {describe_found(self.data, b)}", self.data, b)

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
            return self.string(i, False)
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
                f"arrays and objects are nested deeper than the limit of {self.max_depth}",
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
            key, i = self.string(i, True)
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
                            f"member name {_quote(key)} appears twice in one object",
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
                "NUIF_NUMBER", f"number {_short(literal)} overflows a double", start, self.pointer()
            )
        return (x if x != 0.0 else 0.0), i

    def string(self, i: int, is_key: bool) -> tuple[str, int]:
        text = self.text
        start = i
        i += 1
        j = _PLAIN.match(text, i).end()  # type: ignore[union-attr]
        if j < len(text) and text[j] == '"':
            s = text[i:j]
            m = _NONCHAR.search(s)
            if m is not None:
                raise self._nonchar(i + m.start(), ord(m.group()), start, is_key)
            return s, j + 1
        parts: list[str] = [text[i:j]]
        m = _NONCHAR.search(parts[0])
        if m is not None:
            raise self._nonchar(i + m.start(), ord(m.group()), start, is_key)
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
                        raise self._surrogate(esc_at, cp, start, is_key)
                    if 0xD800 <= cp <= 0xDBFF:
                        if i >= n:
                            raise self.syntax(EXPECT_STRING_END, i)
                        if text[i] != "\\":
                            raise self._surrogate(esc_at, cp, start, is_key)
                        if i + 1 >= n:
                            raise self.syntax(EXPECT_STRING_END, i + 1)
                        if text[i + 1] != "u":
                            raise self._surrogate(esc_at, cp, start, is_key)
                        low = self.hex4(i + 2)
                        if not 0xDC00 <= low <= 0xDFFF:
                            raise self._surrogate(esc_at, cp, start, is_key)
                        i += 6
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    if _is_nonchar(cp):
                        raise self._nonchar(esc_at, cp, start, is_key)
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
                    raise self._nonchar(i + m.start(), ord(m.group()), start, is_key)
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

    def _string_pointer(self, is_key: bool) -> str:
        # a bad member name cannot be named: point at the object that holds it
        return self.pointer()

    def _surrogate(self, at: int, cp: int, start: int, is_key: bool) -> NuifError:
        return self.fail(
            "NUIF_UNICODE",
            f"escape \\u{cp:04x} is a lone surrogate (I-JSON forbids it)",
            at,
            self._string_pointer(is_key),
        )

    def _nonchar(self, at: int, cp: int, start: int, is_key: bool) -> NuifError:
        return self.fail(
            "NUIF_UNICODE",
            f"U+{cp:04X} is a Unicode noncharacter (I-JSON forbids it)",
            at,
            self._string_pointer(is_key),
        )


def _quote(s: str) -> str:
    """A short, JSON-quoted rendering of a name for messages."""
    out = dumps_str(s if len(s) <= 64 else s[:61] + "...")
    return out


def _short(literal: str) -> str:
    return literal if len(literal) <= 40 else literal[:37] + "..."


def big_integer_problem(literal: str, x: float) -> str | None:
    """Why the integer ``literal`` (beyond ±(2^53 - 1); ``x`` its correctly rounded double) is
    refused, or None when it is accepted: exactly when it is the RFC 8785 text of ``x``
    (NUIF-0 §1 as amended in NUIF-0.1), so that every canonical text reads back."""
    if math.isinf(x):
        return big_integer_message(_short(literal), None)
    nearest = format_number(x)
    if nearest == literal:
        return None
    return big_integer_message(_short(literal), nearest)


def big_integer_message(shown: str, nearest: str | None) -> str:
    """The NUIF_NUMBER message for a refused integer (shared by value with the compiled codec):
    why, and what to write instead (the nearest double's RFC 8785 text, or a string)."""
    if nearest is None:
        return f"integer {shown} overflows a double: write it as a string"
    return (
        f"integer {shown} is beyond ±(2^53 - 1) and is not the RFC 8785 text of a double, so it "
        f"would not read back as written (the nearest double is written {nearest}): "
        f"write {nearest}, or a string to keep every digit"
    )


def int_shown(value: int) -> str:
    """An int as error messages show it (``str`` refuses ints of more than 4300 digits)."""
    if value.bit_length() > 4096:
        return f"of {value.bit_length()} bits"
    return _short(str(int(value)))


def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise text_error("NUIF_UTF8", "the text is not valid UTF-8", data, exc.start) from None
    if text.startswith("\ufeff"):
        raise text_error("NUIF_PARSE", "a byte-order mark is not allowed", data, 0)
    return text


def loads(data: bytes, max_depth: int) -> Any:
    """Parse strict I-JSON ``data`` into Python values (dict, list, str, int, float, bool, None).

    Integer literals become ``int``; every other number becomes ``float`` (``-0`` becomes ``0``).
    """
    return _Parser(data, _decode(data), max_depth).parse()


# ---------------------------------------------------------------------------------------------
# RFC 8785 writer

_STR_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_STR_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"})
_STR_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\"})
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps_str(s: str) -> str:
    """A JSON string literal as ECMAScript ``JSON.stringify`` writes it (no checks)."""
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    return '"' + s.translate(_STR_ESCAPES) + '"'


def format_number(x: float) -> str:
    """ECMAScript ``Number.prototype.toString`` of a finite double (RFC 8785 §3.2.2.3)."""
    if x == 0:
        return "0"
    r = repr(float(x))  # shortest round-trip digits (David Gay), correctly rounded
    sign = ""
    if r[0] == "-":
        sign, r = "-", r[1:]
    mantissa, _, exp_text = r.partition("e")
    exp = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = (int_part + frac_part).lstrip("0")
    digits = all_digits.rstrip("0")
    # value = int(digits) * 10 ** (exp - len(frac_part) + trailing zeros stripped)
    e10 = exp - len(frac_part) + (len(all_digits) - len(digits))
    k = len(digits)
    n = e10 + k
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        esign = "+" if e >= 0 else "-"
        head = digits[0] if k == 1 else digits[0] + "." + digits[1:]
        out = f"{head}e{esign}{abs(e)}"
    return sign + out


def big_int_problem(value: int) -> str | None:
    """``big_integer_problem`` for a Python int beyond ±(2^53 - 1) handed to ``dumps``."""
    try:
        x = float(value)
    except OverflowError:
        return big_integer_message(int_shown(value), None)
    nearest = format_number(x)
    if nearest == str(int(value)):
        return None
    return big_integer_message(int_shown(value), nearest)


def _utf16_key(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


def _check_str(s: str, path: list[str | int]) -> None:
    m = _SURROGATE.search(s)
    if m is not None:
        raise NuifError(
            "NUIF_UNICODE",
            f"string holds the lone surrogate U+{ord(m.group()):04X} (I-JSON forbids it)",
            pointer=join_pointer(path),
        )
    m = _NONCHAR.search(s)
    if m is not None:
        raise NuifError(
            "NUIF_UNICODE",
            f"U+{ord(m.group()):04X} is a Unicode noncharacter (I-JSON forbids it)",
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
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            # accepted exactly when its digits are the RFC 8785 text of a double, as in a text
            message = big_int_problem(value)
            if message is not None:
                raise NuifError("NUIF_NUMBER", message, pointer=join_pointer(path))
        out.append(str(int(value)))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise NuifError(
                "NUIF_NUMBER", f"{value!r} is not a JSON number", pointer=join_pointer(path)
            )
        out.append(format_number(value))
    elif isinstance(value, dict):
        if depth >= max_depth:
            raise _too_deep(path, max_depth)
        for key in value:
            if not isinstance(key, str):
                raise NuifError(
                    "NUIF_VALUE",
                    f"object member names must be str, not {type(key).__name__}",
                    pointer=join_pointer(path),
                )
        out.append("{")
        first = True
        for key in sorted(value, key=_utf16_key):
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
            f"a {type(value).__name__} has no JSON representation",
            pointer=join_pointer(path),
        )


def _too_deep(path: list[str | int], max_depth: int) -> NuifError:
    return NuifError(
        "NUIF_DEPTH",
        f"arrays and objects are nested deeper than the limit of {max_depth}",
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


class _NodeLimit:
    __slots__ = ("max_nodes",)

    def __init__(self, max_nodes: int) -> None:
        self.max_nodes = max_nodes


def canonical_document(data: bytes, max_depth: int, max_nodes: int) -> bytes | None:
    """The canonical text of a valid NUIF document, or None when it has a schema problem.

    The twin of the compiled fast path: text errors are raised as ``loads`` raises them; the
    schema is NUIF-0 §3 as ``_document.Checker`` checks it (at most ``max_nodes`` nodes); the
    result is the RFC 8785 text of the normalized document.
    """
    from ._document import Checker, normalize

    value = loads(data, max_depth)
    checker = Checker(_NodeLimit(max_nodes), 1)  # type: ignore[arg-type]
    checker.document(value)
    if checker.found:
        return None
    return dumps(normalize(value), max_depth)


def hash_bytes(canonical: bytes) -> str:
    """``"sha256:"`` + lowercase hex SHA-256 of ``canonical`` (NUIF-0 §3)."""
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


R = TypeVar("R")


def canonical_result(
    data: bytes, max_depth: int, max_nodes: int, make: Callable[[bytes, str, bool], R]
) -> R | None:
    """``make(canonical, hash, changed)`` for a valid NUIF document, or None when it has a
    schema problem (``canonical_document``, then ``hash_bytes``, then ``canonical != data``).

    ``make`` is ``_document.CanonicalResult``; the compiled twin fills its slots directly.
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

    ``make`` is ``_document.ValidationReport``; the compiled twin fills its slots directly.
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
    ``make``, ``entry`` and ``ref`` are ``_document.Inspection``, ``OutlineEntry`` and
    ``NodeRef``; the compiled twin reads all of it off its token tape, this one walks the
    normalized model.
    """
    from ._document import Checker, normalize

    value = loads(data, max_depth)
    checker = Checker(_NodeLimit(max_nodes), 1)  # type: ignore[arg-type]
    checker.document(value)
    if checker.found:
        return None
    doc = normalize(value)
    canonical = dumps(doc, max_depth)
    kinds: dict[str, int] = {}
    outline: list[Any] = []
    count = deepest = 0
    stack = [(doc["root"], 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        deepest = max(deepest, depth)
        kinds[node["kind"]] = kinds.get(node["kind"], 0) + 1
        children = node.get("children", ())
        if len(outline) < max_outline:
            outline.append(entry(node["id"], node["kind"], depth, len(children)))
        stack.extend((child, depth + 1) for child in reversed(children))
    root = doc["root"]
    return make(
        hash_bytes(canonical), canonical == data, len(data), len(canonical), count, deepest,
        dict(sorted(kinds.items())), ref(root["id"], root["kind"]), tuple(outline),
        count > len(outline),
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
