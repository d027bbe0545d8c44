"""One stdio line in, one JSON-RPC message for the SDK's dispatcher out, or the exact reason why not.

The SDK's stdio transport parses a line with ``jsonrpc_message_adapter.validate_json``, a union of
the four message models that ignores unknown members. A request whose ``id`` is null, a float, a
boolean, an object or an array fails ``JSONRPCRequest`` but still passes ``JSONRPCNotification``
(its ``id`` ignored as an unknown member), so that transport dispatches it as a notification and
never answers it: the client waits forever. And it reports every parser failure as "not valid
UTF-8 JSON", whether the line is cut short, has a BOM, or nests 100,000 arrays.

Here the line is parsed once with the same parser (pydantic-core's ``from_json``, NaN and Infinity
refused), the envelope is checked member by member in Python, and only a well-formed request or
notification is handed to the SDK's own ``JSONRPCRequest``/``JSONRPCNotification`` models. Every
other line raises :class:`LineRefused` with its JSON-RPC code, a message saying what is wrong, and
the request id when it can be read. The rules (docs/mcp.md, "The JSON-RPC line"):

* ``-32700`` (id null): the bytes are not one JSON text: invalid UTF-8, a byte-order mark, a
  syntax error, NaN/Infinity, text after the value. JSON-RPC 2.0 requires id null here.
* ``-32600``: valid JSON that is not an acceptable request: not an object, a batch (array), a bad
  ``id`` (id null), a missing or wrong ``"jsonrpc"``, a ``method`` that is not a string, ``params``
  that is not an object, a response (``result``/``error`` without ``method``: this server sends no
  requests, so there is nothing to match it to; id null, so that it cannot be mistaken for an
  answer to one of the client's own requests), and a line beyond a parser limit (nesting deeper
  than :data:`MAX_DEPTH`, an integer longer than :data:`MAX_INT_DIGITS` digits, a line longer than
  the stdio limit). Where the id is valid and can be read it is echoed, otherwise it is null.
* A well-formed notification (no ``id``) is never answered, whatever its method or params
  (JSON-RPC 2.0 §4.1).

Positions are 1-based byte columns of the line (the line is one line of text).

An id is echoed as it was written. The one integer the parser cannot keep is ``-0`` (it reads
``0``), so a request whose last top-level ``id`` is the literal ``-0`` carries
:data:`NEGATIVE_ZERO_ID` through the SDK instead: a string no client can send (it holds a lone
surrogate, which the parser refuses), which :func:`dump_message` writes back as ``-0``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    JSONRPCNotification,
    JSONRPCRequest,
    RequestId,
)
from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

__all__ = [
    "ID_SCAN_BYTES",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "NEGATIVE_ZERO_ID",
    "LineRefused",
    "LineTooLong",
    "describe",
    "dump_message",
    "read_message",
    "refuse_long_line",
]

#: Deepest nesting of arrays and objects in one line, the top-level object counting as 1. This is
#: the recursion limit of pydantic-core's JSON parser (the SDK's parser), not a NUIF choice; a test
#: pins it (tests/mcp/test_wire.py), so a change in pydantic-core cannot make this message lie.
MAX_DEPTH = 201
#: Most digits in one integer literal (pydantic-core's limit, the same as CPython's int parsing).
MAX_INT_DIGITS = 4300
#: How much of a refused line is read again to recover its id (the id comes first in practice).
ID_SCAN_BYTES = 64 * 1024

_BOM = b"\xef\xbb\xbf"
_POSITION = re.compile(r" at line \d+ column (\d+)$")
_NON_FINITE = re.compile(rb"-?(?:NaN|Infinity)")
_NUMBER_CHARS = frozenset(b"0123456789+-.eE")
_SURROGATE_REASONS = frozenset(
    {"unexpected end of hex escape", "lone leading surrogate in hex escape"}
)


#: The id the SDK carries for a request whose id is the integer literal ``-0``. It cannot collide
#: with a client's id: a lone surrogate cannot reach a string through the line parser.
NEGATIVE_ZERO_ID = "\udc80-0"
#: A token of a JSON text, after blanks: a string, a structural character, or a scalar literal.
_TOKEN = re.compile(rb'[ \t\r\n]*("(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^ \t\r\n{}\[\]:,"]+)')
#: An integer literal ``-0`` somewhere in a line: the cheap test before :func:`_id_literal`.
_NEGATIVE_ZERO = re.compile(rb"-0(?![0-9.eE])")
_ECHO_HEAD = '{"jsonrpc":"2.0","id":0'


class LineRefused(Exception):
    """A line that is not a request this server accepts: answered with ``code`` and ``message``."""

    def __init__(self, code: int, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


class LineTooLong:
    """What the line reader yields for a line longer than its limit: the limit and a prefix."""

    __slots__ = ("limit", "prefix")

    def __init__(self, limit: int, prefix: bytes) -> None:
        self.limit = limit
        self.prefix = prefix


def describe(value: Any) -> str:
    """A JSON value's kind for a message: ``a boolean (true)``, ``null``, ``an array`` ..."""
    if value is None:
        return "null"
    if value is True or value is False:
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return f"a number with a fraction or an exponent ({value!r})"
    if isinstance(value, str):
        return "the string " + json.dumps(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, list):
        return "an array"
    return "an object"


def _is_request_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _envelope_refusal(obj: Any) -> LineRefused | None:
    """The first thing wrong with a parsed line as a JSON-RPC 2.0 request or notification."""
    if isinstance(obj, list):
        return LineRefused(
            INVALID_REQUEST,
            "Invalid Request: a JSON array (a JSON-RPC batch) is not accepted; "
            "MCP sends one message per line",
        )
    if not isinstance(obj, dict):
        return LineRefused(
            INVALID_REQUEST,
            f"Invalid Request: a JSON-RPC message must be a JSON object; found {describe(obj)}",
        )
    if "method" not in obj and ("result" in obj or "error" in obj):
        return LineRefused(
            INVALID_REQUEST,
            "Invalid Request: a response (result or error, no method) was received, but this "
            "server sends no requests, so there is nothing to match it to",
        )
    request_id = None
    if "id" in obj:
        if not _is_request_id(obj["id"]):
            return LineRefused(
                INVALID_REQUEST,
                "Invalid Request: the request id must be a string or an integer; "
                f"found {describe(obj['id'])}",
            )
        request_id = obj["id"]
    if "jsonrpc" not in obj:
        return LineRefused(
            INVALID_REQUEST,
            'Invalid Request: the "jsonrpc" member is missing; it must be "2.0"',
            request_id,
        )
    if obj["jsonrpc"] != "2.0":
        return LineRefused(
            INVALID_REQUEST,
            f'Invalid Request: "jsonrpc" must be "2.0"; found {describe(obj["jsonrpc"])}',
            request_id,
        )
    if "method" not in obj:
        return LineRefused(
            INVALID_REQUEST, 'Invalid Request: the "method" member is missing', request_id
        )
    if not isinstance(obj["method"], str):
        return LineRefused(
            INVALID_REQUEST,
            f'Invalid Request: "method" must be a string; found {describe(obj["method"])}',
            request_id,
        )
    params = obj.get("params")
    if params is not None and not isinstance(params, dict):
        return LineRefused(
            INVALID_REQUEST,
            'Invalid Request: "params" must be an object (MCP passes parameters by name); '
            f"found {describe(params)}",
            request_id,
        )
    return None


def _id_literal(line: bytes, end: int) -> bytes | None:
    """The text of the last top-level ``id`` member completed before byte ``end``, if any.

    A member counts once the ``,`` or ``}`` after its value is read, so a literal cut by ``end``
    is not taken for a whole one. Keys are compared decoded (``"\\u0069d"`` is ``id``).
    """
    depth, key, literal, found, pos = 0, None, None, None, 0
    expect_key = False
    while pos < end:
        match = _TOKEN.match(line, pos, end)
        if match is None:
            break
        token, pos = match.group(1), match.end()
        if token in (b"{", b"["):
            depth += 1
            expect_key = depth == 1 and token == b"{"
        elif token in (b"}", b"]"):
            if depth == 1 and literal is not None:
                found = literal
            depth -= 1
            literal = None
        elif depth != 1:
            continue
        elif token == b",":
            if literal is not None:
                found = literal
            literal, expect_key = None, True
        elif token == b":":
            expect_key = False
        elif expect_key:
            try:
                key = json.loads(token)
            except ValueError:
                key = None
        elif key == "id":
            literal = token
    return found


def _negative_zero(value: Any, line: bytes, end: int) -> bool:
    """Whether an id read as the integer 0 was written ``-0``."""
    return (
        type(value) is int
        and value == 0
        and _NEGATIVE_ZERO.search(line, 0, end) is not None
        and _id_literal(line, end) == b"-0"
    )


def dump_message(message: BaseModel) -> str:
    """One SDK message as its JSON line, with a ``-0`` request id written back as ``-0``."""
    if getattr(message, "id", None) != NEGATIVE_ZERO_ID:
        return message.model_dump_json(by_alias=True, exclude_unset=True)
    text = message.model_copy(update={"id": 0}).model_dump_json(by_alias=True, exclude_unset=True)
    if not text.startswith(_ECHO_HEAD):  # pragma: no cover - the SDK's models lead with id
        return text
    return '{"jsonrpc":"2.0","id":-0' + text[len(_ECHO_HEAD) :]


def _id_before(line: bytes, end: int) -> RequestId | None:
    """The request id, if the line states a valid one completely before byte ``end``.

    Used when a limit stops the parser: the prefix is parsed in partial mode, which keeps the
    members completed so far and drops an unfinished string. A number that is the last thing in
    the prefix may be cut, so an integer id counts only when another member follows it.
    """
    try:
        head = from_json(line[: min(end, ID_SCAN_BYTES)], allow_inf_nan=False, allow_partial=True)
    except ValueError:
        return None
    if not isinstance(head, dict) or "id" not in head:
        return None
    value = head["id"]
    if isinstance(value, str):
        return value
    if _is_request_id(value) and list(head)[-1] != "id":
        negative_zero = _negative_zero(value, line, min(end, ID_SCAN_BYTES))
        return NEGATIVE_ZERO_ID if negative_zero else int(value)
    return None


def _parse_refusal(line: bytes, error: str) -> LineRefused:
    match = _POSITION.search(error)
    reason = error[: match.start()] if match else error
    offset = max(int(match.group(1)) - 1, 0) if match else len(line)
    where = f" at column {offset + 1}" if match else ""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return LineRefused(
            PARSE_ERROR,
            f"Parse error: the line is not valid UTF-8 at column {exc.start + 1} "
            f"(byte 0x{line[exc.start]:02x}: {exc.reason})",
        )
    if reason == "recursion limit exceeded":
        return LineRefused(
            INVALID_REQUEST,
            f"Invalid Request: the message nests arrays and objects more than {MAX_DEPTH} levels "
            f"deep (the limit of this server's JSON parser); level {MAX_DEPTH + 1} opens{where}",
            _id_before(line, offset),
        )
    if reason == "number out of range":
        start = offset
        while start > 0 and line[start - 1] in _NUMBER_CHARS:
            start -= 1
        return LineRefused(
            INVALID_REQUEST,
            f"Invalid Request: the integer at column {start + 1} has more than {MAX_INT_DIGITS} "
            "digits (the limit of this server's JSON parser)",
            _id_before(line, start),
        )
    for at in (max(offset - 1, 0), offset) if match else ():
        if _NON_FINITE.match(line, at):
            return LineRefused(
                PARSE_ERROR, f"Parse error: NaN and Infinity are not JSON at column {at + 1}"
            )
    if reason in _SURROGATE_REASONS:  # the parser's own words name the wrong surrogate
        reason, where = (
            "a \\u escape is an unpaired UTF-16 surrogate",
            where.replace(" at", " before"),
        )
    return LineRefused(PARSE_ERROR, f"Parse error: the line is not valid JSON: {reason}{where}")


def read_message(line: bytes | LineTooLong) -> SessionMessage:
    """The SDK message for one line, or :class:`LineRefused` saying why there is none."""
    if isinstance(line, LineTooLong):
        raise refuse_long_line(line)
    if line.startswith(_BOM):
        raise LineRefused(
            PARSE_ERROR,
            "Parse error: the line starts with a byte-order mark (EF BB BF); "
            "JSON-RPC lines are UTF-8 JSON without one",
        )
    try:
        obj = from_json(line, allow_inf_nan=False)
    except ValueError as exc:
        raise _parse_refusal(line, str(exc)) from None
    if isinstance(obj, dict) and _negative_zero(obj.get("id"), line, len(line)):
        obj["id"] = NEGATIVE_ZERO_ID
    refusal = _envelope_refusal(obj)
    if refusal is not None:
        raise refusal
    model = JSONRPCRequest if "id" in obj else JSONRPCNotification
    try:
        return SessionMessage(model.model_validate(obj))
    except ValidationError as exc:  # every member the models check was checked above
        first = exc.errors(include_url=False)[0]
        where = "/".join(str(part) for part in first["loc"])
        raise LineRefused(
            INVALID_REQUEST,
            f"Invalid Request: {where}: {first['msg']}",
            obj.get("id"),
        ) from None


def refuse_long_line(line: LineTooLong) -> LineRefused:
    """The answer to a line longer than the stdio limit (the connection is closed after it)."""
    return LineRefused(
        INVALID_REQUEST,
        f"Invalid Request: the line is longer than {line.limit} bytes, the stdio line limit; "
        "the server closes the connection",
        _id_before(line.prefix, len(line.prefix)),
    )
