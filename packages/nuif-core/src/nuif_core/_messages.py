"""The message texts of the codecs: every template both codecs use, in one place.

This is not a public API.  The pure-Python codec (``_codec_py``) builds its messages from these
templates; the compiled codec (``_speedups``) must say exactly the same
(``tests/core/test_messages.py`` holds it to that, error class by error class).  A message says
what is wrong and what to do; where a value appears in it, it is spelled as RFC 8785 writes it.
"""

from __future__ import annotations

import math

from ._rfc8785 import dumps_str, format_number

__all__ = [
    "ATTR_MAX",
    "ATTR_PATTERN",
    "BIG_INTEGER",
    "BIG_INTEGER_OVERFLOW",
    "BOM",
    "CONTROL_IN_STRING",
    "DEPTH",
    "DUPLICATE_KEY",
    "EXPECT_ARRAY_NEXT",
    "EXPECT_COLON",
    "EXPECT_DIGIT",
    "EXPECT_END",
    "EXPECT_ESCAPE",
    "EXPECT_FIRST_KEY",
    "EXPECT_HEX",
    "EXPECT_KEY",
    "EXPECT_LITERAL",
    "EXPECT_OBJECT_NEXT",
    "EXPECT_STRING_END",
    "EXPECT_VALUE",
    "ID_MAX",
    "ID_PATTERN",
    "KEY_NOT_STR",
    "KIND_MAX",
    "KIND_PATTERN",
    "LONE_SURROGATE",
    "NONCHARACTER",
    "NOT_A_NUMBER",
    "NO_JSON_VALUE",
    "NUMBER_OVERFLOW",
    "SCHEMA_ATTR",
    "SCHEMA_ATTRS_TYPE",
    "SCHEMA_CHILDREN_TYPE",
    "SCHEMA_DOC_MEMBER",
    "SCHEMA_DOC_TYPE",
    "SCHEMA_DUPLICATE_ID",
    "SCHEMA_ID_LENGTH",
    "SCHEMA_ID_PATTERN",
    "SCHEMA_ID_TYPE",
    "SCHEMA_KIND",
    "SCHEMA_KIND_TYPE",
    "SCHEMA_LIMIT_NODES",
    "SCHEMA_META_TYPE",
    "SCHEMA_NODE_MEMBER",
    "SCHEMA_NODE_TYPE",
    "SCHEMA_NO_ID",
    "SCHEMA_NO_KIND",
    "SCHEMA_NO_NUIF",
    "SCHEMA_NO_ROOT",
    "SCHEMA_NUIF_TYPE",
    "SCHEMA_VERSION",
    "SURROGATE_ESCAPE",
    "UTF8",
    "big_int_problem",
    "big_integer_message",
    "big_integer_problem",
    "describe_found",
    "int_shown",
    "quote",
    "short",
]

# -- schema problems (NUIF-0 §3; _schema.Checker and csrc/nuif_report.h find them) ------------
# "{}" after "found" is a JSON type with its article (_schema.json_type); a name is quoted
# (quote).  The name rules (NUIF-0 §3.2), which _schema compiles and csrc/nuif_names.h checks:
ID_PATTERN = "[A-Za-z0-9_][A-Za-z0-9_.:-]*"
KIND_PATTERN = "[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*"
ATTR_PATTERN = "[A-Za-z_$@][A-Za-z0-9_$@.:-]*"
ID_MAX, KIND_MAX, ATTR_MAX = 128, 64, 128
SCHEMA_ID_LENGTH = f"id {{}} must be 1 to {ID_MAX} characters long"
SCHEMA_ID_PATTERN = (
    f"id {{}} must match ^{ID_PATTERN}$ (ASCII letters, digits, _ . : -; not starting with . : -)"
)
SCHEMA_KIND = (
    f"kind {{}} must be 1 to {KIND_MAX} characters matching ^{KIND_PATTERN}$"
    " (like button, ui:button, acme.cards/header)"
)
SCHEMA_ATTR = (
    f"attribute name {{}} must be 1 to {ATTR_MAX} characters matching ^{ATTR_PATTERN}$"
    " (like label, aria-label, on:click)"
)
SCHEMA_DOC_TYPE = "a NUIF document is a JSON object, found {}"
SCHEMA_NO_NUIF = 'the document has no "nuif" member (it must be 0)'
SCHEMA_NUIF_TYPE = '"nuif" must be the number 0, found {}'
SCHEMA_VERSION = "NUIF version {} is not supported; this implementation reads version 0"
SCHEMA_NO_ROOT = 'the document has no "root" member (a node)'
SCHEMA_META_TYPE = '"meta" must be an object, found {}'
SCHEMA_DOC_MEMBER = "unknown document member {} (allowed: nuif, root, meta)"
SCHEMA_LIMIT_NODES = "the document has more than {} nodes (the node limit)"
SCHEMA_NODE_TYPE = "a node is a JSON object, found {}"
SCHEMA_NO_ID = 'the node has no "id" member'
SCHEMA_NO_KIND = 'the node has no "kind" member'
SCHEMA_ID_TYPE = '"id" must be a string, found {}'
SCHEMA_KIND_TYPE = '"kind" must be a string, found {}'
SCHEMA_DUPLICATE_ID = "id {} is used twice (first at {})"
SCHEMA_ATTRS_TYPE = '"attrs" must be an object, found {}'
SCHEMA_CHILDREN_TYPE = '"children" must be an array, found {}'
SCHEMA_NODE_MEMBER = "unknown node member {} (allowed: id, kind, attrs, children)"

# -- text errors (NUIF_UTF8, NUIF_PARSE) --------------------------------------------------------
UTF8 = "the text is not valid UTF-8"
BOM = "a byte-order mark is not allowed"
#: expectation phrases: a syntax error reads "<expected>, found <describe_found(…)>"
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
EXPECT_ESCAPE = 'invalid escape: expected one of " \\ / b f n r t u'
EXPECT_HEX = "invalid \\u escape: expected a hex digit"
CONTROL_IN_STRING = "control character U+{:04X} must be escaped in a string"

# -- values (NUIF_UNICODE, NUIF_DUPLICATE_KEY, NUIF_NUMBER, NUIF_DEPTH, NUIF_VALUE) -------------
#: a ``\uXXXX`` escape of a lone surrogate in a text (the code point as four lowercase digits)
SURROGATE_ESCAPE = "escape \\u{:04x} is a lone surrogate (I-JSON forbids it)"
#: a lone surrogate in a Python str handed to ``dumps``
LONE_SURROGATE = "string holds the lone surrogate U+{:04X} (I-JSON forbids it)"
NONCHARACTER = "U+{:04X} is a Unicode noncharacter (I-JSON forbids it)"
#: the quoted member name (``quote``)
DUPLICATE_KEY = "member name {} appears twice in one object"
#: the number's literal (``short``)
NUMBER_OVERFLOW = "number {} overflows a double"
#: a float that is not finite (its ``repr``)
NOT_A_NUMBER = "{!r} is not a JSON number"
DEPTH = "arrays and objects are nested deeper than the limit of {}"
#: the type name of a Python value handed to ``dumps``
NO_JSON_VALUE = "a {} has no JSON representation"
KEY_NOT_STR = "object member names must be str, not {}"
#: an integer beyond ±(2^53 - 1) that is not the RFC 8785 text of a double: shown, nearest
BIG_INTEGER = (
    "integer {0} is beyond ±(2^53 - 1) and is not the RFC 8785 text of a double, so it "
    "would not read back as written (the nearest double is written {1}): "
    "write {1}, or a string to keep every digit"
)
#: an integer too large for any double: shown
BIG_INTEGER_OVERFLOW = "integer {} overflows a double: write it as a string"


def quote(s: str) -> str:
    """A short, JSON-quoted rendering of a name for messages (at most 64 characters shown)."""
    return dumps_str(s if len(s) <= 64 else s[:61] + "...")


def short(literal: str) -> str:
    """A number's literal as messages show it (at most 40 characters)."""
    return literal if len(literal) <= 40 else literal[:37] + "..."


def describe_found(data: bytes, offset: int) -> str:
    """How a parse error names what it found at ``offset``: a character, a code point or the end."""
    if offset >= len(data):
        return "end of text"
    b = data[offset]
    if b < 0x80:
        c = chr(b)
        if 0x20 <= b < 0x7F:
            return f"'{c}'"
        return f"U+{b:04X}"
    # a non-ASCII character (the text is valid UTF-8 when parsing runs)
    end = offset + 1
    while end < len(data) and end - offset < 4 and 0x80 <= data[end] < 0xC0:
        end += 1
    ch = data[offset:end].decode("utf-8", "replace")[:1]
    return f"U+{ord(ch):04X}"


def big_integer_message(shown: str, nearest: str | None) -> str:
    """The NUIF_NUMBER message for a refused integer: why, and what to write instead (the
    nearest double's RFC 8785 text, or a string)."""
    if nearest is None:
        return BIG_INTEGER_OVERFLOW.format(shown)
    return BIG_INTEGER.format(shown, nearest)


def big_integer_problem(literal: str, x: float) -> str | None:
    """Why the integer ``literal`` (beyond ±(2^53 - 1); ``x`` its correctly rounded double) is
    refused, or None when it is accepted: exactly when it is the RFC 8785 text of ``x``
    (NUIF-0 §1.5 as amended in NUIF-0.1, docs/spec/nuif-0.1.md), so that every canonical text
    reads back."""
    if math.isinf(x):
        return big_integer_message(short(literal), None)
    nearest = format_number(x)
    if nearest == literal:
        return None
    return big_integer_message(short(literal), nearest)


def int_shown(value: int) -> str:
    """An int as error messages show it (``str`` refuses ints of more than 4300 digits)."""
    if value.bit_length() > 4096:
        return f"of {value.bit_length()} bits"
    return short(str(int(value)))


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
