"""The JSON-RPC line rules (``nuif_mcp._wire``), in process: every bad line gets the right code,
the id JSON-RPC 2.0 allows, and a message that says what is wrong; good lines become the SDK's
models. Then the same through ``serve_stdio`` on real pipes, in this process.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import mcp_types
import pytest
from nuif_mcp_wire import DOC, call, request

from nuif_mcp._server import create_server, serve_stdio
from nuif_mcp._wire import (
    ID_SCAN_BYTES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    LineRefused,
    LineTooLong,
    describe,
    read_message,
    refuse_long_line,
)

pytestmark = pytest.mark.timeout(120)

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def raw(msg: Any) -> bytes:
    return json.dumps(msg).encode()


def refused(line: bytes) -> LineRefused:
    with pytest.raises(LineRefused) as info:
        read_message(line)
    return info.value


# ---------------------------------------------------------------------------------------------
# the id


@pytest.mark.parametrize(
    ("rid_text", "found"),
    [
        (b"null", "found null"),
        (b"1.5", "found a number with a fraction or an exponent (1.5)"),
        (b"1.0", "found a number with a fraction or an exponent (1.0)"),
        (b"1e3", "found a number with a fraction or an exponent (1000.0)"),
        (b"-0.0", "found a number with a fraction or an exponent (-0.0)"),
        (b"1e400", "found a number with a fraction or an exponent (inf)"),
        (b"true", "found a boolean (true)"),
        (b"false", "found a boolean (false)"),
        (b"{}", "found an object"),
        (b'{"id":1}', "found an object"),
        (b"[]", "found an array"),
        (b"[1]", "found an array"),
    ],
)
@pytest.mark.parametrize("method", ["tools/list", "notifications/initialized"])
def test_an_invalid_id_is_invalid_request_with_id_null_saying_what_the_id_is(
    rid_text: bytes, found: str, method: str
):
    # A request with such an id used to pass as a notification (the id ignored): never answered.
    line = b'{"jsonrpc":"2.0","id":' + rid_text + b',"method":"' + method.encode() + b'"}'
    err = refused(line)
    assert err.code == INVALID_REQUEST and err.request_id is None
    assert err.message == (
        f"Invalid Request: the request id must be a string or an integer; {found}"
    )


def test_the_id_is_checked_before_the_rest_of_the_envelope():
    err = refused(b'{"id":true,"method":3}')
    assert err.request_id is None and "the request id must be" in err.message


def test_a_repeated_id_member_counts_as_its_last_value_as_in_the_sdk_parser():
    assert refused(b'{"jsonrpc":"2.0","id":1,"id":true,"method":"x"}').request_id is None
    assert read_message(b'{"jsonrpc":"2.0","id":true,"id":1,"method":"x"}').message.id == 1


@pytest.mark.parametrize(
    "rid",
    [
        0,
        -1,
        7,
        2**53 - 1,
        2**53 + 1,
        10**30,
        -(10**30),
        int("9" * MAX_INT_DIGITS),
        "",
        "x",
        "é" * 10,
    ],
    ids=lambda r: f"{type(r).__name__}-{len(str(r))}",
)
def test_string_and_integer_ids_of_any_size_are_requests_with_the_exact_id(rid: Any):
    msg = read_message(raw(request(rid, "tools/list"))).message
    assert isinstance(msg, mcp_types.JSONRPCRequest)
    assert msg.id == rid and type(msg.id) is type(rid)
    # and the answer echoes it byte for byte
    echoed = mcp_types.JSONRPCError(
        jsonrpc="2.0", id=msg.id, error=mcp_types.ErrorData(code=1, message="m")
    ).model_dump_json(by_alias=True, exclude_unset=True)
    assert json.loads(echoed)["id"] == rid


# ---------------------------------------------------------------------------------------------
# the rest of the envelope


@pytest.mark.parametrize(
    ("line", "message", "rid"),
    [
        (b"[]", "a JSON array (a JSON-RPC batch) is not accepted", None),
        (raw([request(1, "tools/list")]), "a JSON array (a JSON-RPC batch) is not accepted", None),
        (b"42", "a JSON-RPC message must be a JSON object; found an integer", None),
        (b'"x"', 'a JSON-RPC message must be a JSON object; found the string "x"', None),
        (b"null", "a JSON-RPC message must be a JSON object; found null", None),
        (b"true", "a JSON-RPC message must be a JSON object; found a boolean (true)", None),
        (b"{}", 'the "jsonrpc" member is missing; it must be "2.0"', None),
        (b'{"id":1,"method":"tools/list"}', 'the "jsonrpc" member is missing', 1),
        (
            b'{"jsonrpc":"1.0","id":"a","method":"x"}',
            '"jsonrpc" must be "2.0"; found the string "1.0"',
            "a",
        ),
        (b'{"jsonrpc":2.0,"id":1,"method":"x"}', '"jsonrpc" must be "2.0"; found a number', 1),
        (b'{"jsonrpc":"2.0","id":1}', 'the "method" member is missing', 1),
        (b'{"jsonrpc":"2.0"}', 'the "method" member is missing', None),
        (
            b'{"jsonrpc":"2.0","id":"abc","method":7}',
            '"method" must be a string; found an integer',
            "abc",
        ),
        (b'{"jsonrpc":"2.0","method":null}', '"method" must be a string; found null', None),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}', '"params" must be an object', 1),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}', "found the string", 1),
        # invalid, so not a notification: answered (the JSON-RPC 2.0 spec's own example)
        (b'{"jsonrpc":"2.0","method":"x","params":[1]}', '"params" must be an object', None),
        (b'{"jsonrpc":"2.0","method":1,"params":"bar"}', '"method" must be a string', None),
        # a response: this server sends no requests; id null, so the client cannot take it
        # for the answer to one of its own requests
        (b'{"jsonrpc":"2.0","id":5,"result":{}}', "a response (result or error, no method)", None),
        (b'{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}', "a response", None),
        (b'{"jsonrpc":"2.0","id":true,"result":{}}', "a response", None),
    ],
)
def test_valid_json_that_is_not_a_request_is_invalid_request(line: bytes, message: str, rid: Any):
    err = refused(line)
    assert err.code == INVALID_REQUEST
    assert err.message.startswith("Invalid Request: ") and message in err.message
    assert err.request_id == rid


def test_a_well_formed_notification_is_a_notification_whatever_its_method_or_params():
    for line in (
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","method":"nuif/unknown","params":{"x":[1,2]}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":true}}',
        b'{"jsonrpc":"2.0","method":"x","params":null}',
    ):
        assert isinstance(read_message(line).message, mcp_types.JSONRPCNotification)


def test_a_request_keeps_method_and_params_and_ignores_unknown_members():
    msg = read_message(
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"v"},"extra":1}\r'
    ).message
    assert isinstance(msg, mcp_types.JSONRPCRequest)
    assert (msg.id, msg.method, msg.params) == (3, "tools/call", {"name": "v"})


# ---------------------------------------------------------------------------------------------
# bytes that are not one JSON text: -32700, id null


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": ',
            "not valid JSON: EOF while parsing a value at column 38",
        ),
        (b'{"jsonrpc":"2.0","id":1', "not valid JSON: EOF while parsing an object at column 23"),
        (b"{oops", "not valid JSON: key must be a string at column 2"),
        (b"[1,]", "not valid JSON: trailing comma at column 4"),
        (b'{"id":01}', "not valid JSON: invalid number at column 8"),
        (b'{"a":1} {"b":2}', "not valid JSON: trailing characters at column 9"),
        (b'["\t"]', "control character (\\u0000-\\u001F) found while parsing a string at column 3"),
        (
            b'["\\ud800"]',
            "not valid JSON: a \\u escape is an unpaired UTF-16 surrogate before column 9",
        ),
        (b'["\\udc00"]', "a \\u escape is an unpaired UTF-16 surrogate before column 8"),
        (
            b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":NaN}}',
            "NaN and Infinity are not JSON at column 52",
        ),
        (b"[-Infinity]", "NaN and Infinity are not JSON at column 2"),
        (b"[Infinity]", "NaN and Infinity are not JSON at column 2"),
        (
            b'{"jsonrpc":"2.0","id":1,"method":"x","p":"\xff"}',
            "not valid UTF-8 at column 43 (byte 0xff: invalid start byte)",
        ),
        (b'{"a":"\xc3"}', "not valid UTF-8 at column 7 (byte 0xc3: invalid continuation byte)"),
        (b'{"a":"\xc3', "not valid UTF-8 at column 7 (byte 0xc3: unexpected end of data)"),
        (b'["\xed\xa0\x80"]', "not valid UTF-8 at column 3 (byte 0xed: invalid continuation byte)"),
        (
            b"\xef\xbb\xbf" + raw(request(1, "tools/list")),
            "starts with a byte-order mark (EF BB BF)",
        ),
        (b"\xef\xbb\xbf", "starts with a byte-order mark"),
        (b"\x00", "not valid JSON: expected value at column 1"),
    ],
)
def test_bytes_that_are_not_one_json_text_are_a_parse_error_with_id_null(line: bytes, message: str):
    err = refused(line)
    assert err.code == PARSE_ERROR and err.request_id is None
    assert err.message.startswith(("Parse error: the line ", "Parse error: NaN"))
    assert message in err.message


def test_a_parse_error_never_carries_the_id_even_when_it_was_readable():
    # JSON-RPC 2.0: "If there was an error in detecting the id ... (e.g. Parse error ...) it MUST
    # be Null"; a line cut short is not a request.
    err = refused(raw(call(9, "canonicalize", {"document": DOC}))[:60])
    assert err.code == PARSE_ERROR and err.request_id is None


# ---------------------------------------------------------------------------------------------
# limits of valid JSON: -32600, with the id when it comes before the limit


def nested(depth_of_params: int, rid: Any = 7) -> bytes:
    head = raw({"jsonrpc": "2.0", "id": rid, "method": "x"})[:-1] + b',"params":{"a":'
    return head + b"[" * depth_of_params + b"]" * depth_of_params + b"}}"


def test_the_nesting_limit_is_max_depth_levels_the_top_level_object_counting_as_one():
    # top-level object + params object + n arrays = n + 2 levels
    assert read_message(nested(MAX_DEPTH - 2)).message.id == 7
    err = refused(nested(MAX_DEPTH - 1))
    assert err.code == INVALID_REQUEST and err.request_id == 7
    assert MAX_DEPTH == 201


@pytest.mark.parametrize("depth", [MAX_DEPTH, 100_000])
def test_nesting_beyond_the_limit_says_so_names_the_limit_and_keeps_the_id(depth: int):
    line = nested(depth)
    err = refused(line)
    column = line.index(b"[") + MAX_DEPTH - 2 + 1  # level MAX_DEPTH + 1 is this bracket
    assert err.code == INVALID_REQUEST and err.request_id == 7
    assert err.message == (
        f"Invalid Request: the message nests arrays and objects more than {MAX_DEPTH} levels deep "
        f"(the limit of this server's JSON parser); level {MAX_DEPTH + 1} opens at column {column}"
    )
    assert "UTF-8" not in err.message


def test_nesting_before_the_id_gives_id_null():
    line = b'{"params":' + b"[" * 300 + b"]" * 300 + b',"jsonrpc":"2.0","id":1,"method":"x"}'
    err = refused(line)
    assert err.code == INVALID_REQUEST and err.request_id is None
    assert f"more than {MAX_DEPTH} levels" in err.message


def test_the_integer_length_limit_names_the_limit_and_the_column():
    ok = b'{"jsonrpc":"2.0","id":"n","method":"x","params":{"a":' + b"9" * MAX_INT_DIGITS + b"}}"
    assert read_message(ok).message.params == {"a": int("9" * MAX_INT_DIGITS)}
    long = ok.replace(b":9", b":99", 1)
    err = refused(long)
    assert err.code == INVALID_REQUEST and err.request_id == "n"
    assert err.message == (
        f"Invalid Request: the integer at column {long.index(b'99') + 1} has more than "
        f"{MAX_INT_DIGITS} digits (the limit of this server's JSON parser)"
    )


def test_an_integer_id_over_the_digit_limit_is_refused_with_id_null():
    err = refused(b'{"jsonrpc":"2.0","id":' + b"1" * (MAX_INT_DIGITS + 1) + b',"method":"x"}')
    assert err.code == INVALID_REQUEST and err.request_id is None
    assert f"more than {MAX_INT_DIGITS} digits" in err.message


# ---------------------------------------------------------------------------------------------
# a line over the stdio limit


@pytest.mark.parametrize(
    ("prefix", "rid"),
    [
        (raw(call("big", "validate", {"document": "x" * 100}))[:90], "big"),
        (raw(call(12, "validate", {"document": "x" * 100}))[:90], 12),
        # an integer that ends the prefix may be cut short: not trusted
        (b'{"jsonrpc":"2.0","id":12', None),
        # a string id cut short is dropped
        (b'{"jsonrpc":"2.0","id":"abc', None),
        (b'{"jsonrpc":"2.0","id":null,"method":"x","params":{"a":"', None),
        (b'{"jsonrpc":"2.0","method":"x","params":{"id":3,"a":"', None),
        (b"[" * 1000, None),
        (b"\xff" * 100, None),
        # the id is read from the first ID_SCAN_BYTES bytes only
        (b'{"pad":"' + b"x" * ID_SCAN_BYTES + b'","id":1,"method":"x"', None),
    ],
    ids=["str", "int", "cut-int", "cut-str", "null", "nested", "deep", "binary", "late"],
)
def test_a_line_over_the_limit_is_invalid_request_with_the_id_it_starts_with(
    prefix: bytes, rid: Any
):
    err = refuse_long_line(LineTooLong(4096, prefix))
    assert err.code == INVALID_REQUEST and err.request_id == rid
    assert err.message == (
        "Invalid Request: the line is longer than 4096 bytes, the stdio line limit; "
        "the server closes the connection"
    )
    with pytest.raises(LineRefused) as info:
        read_message(LineTooLong(4096, prefix))
    assert info.value.request_id == rid


def test_describe_names_every_json_kind():
    assert [describe(v) for v in (None, True, 0, 0.5, "s", [], {})] == [
        "null",
        "a boolean (true)",
        "an integer",
        "a number with a fraction or an exponent (0.5)",
        'the string "s"',
        "an array",
        "an object",
    ]
    assert describe("x" * 100) == 'the string "' + "x" * 37 + '..."'


# ---------------------------------------------------------------------------------------------
# the same through serve_stdio, in this process, on real pipes


def serve_in_process(
    data: bytes, *, max_line_bytes: int = 4 * 1024 * 1024
) -> tuple[list[Any], int]:
    """Write ``data`` and end of input into a pipe, serve it, return the answers and the status."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    assert len(data) < 60_000  # fits the pipe: written before serving starts
    os.write(in_w, data)
    os.close(in_w)
    server = create_server()
    try:
        status = anyio.run(
            lambda: serve_stdio(
                server, stdin_fd=in_r, stdout_fd=out_w, max_line_bytes=max_line_bytes
            ),
            backend="asyncio",
        )
    finally:
        os.close(in_r)
        os.close(out_w)
    out = b""
    while chunk := os.read(out_r, 65536):
        out += chunk
    os.close(out_r)
    return [json.loads(row) for row in out.splitlines()], status


BAD_LINES = [
    b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":{},"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":[],"method":"tools/list"}',
    b"[]",
    b"\xef\xbb\xbf{}",
    b'{"a":"\xff"}',
    nested(5000, rid="deep"),
    b'{"jsonrpc":"2.0","id":5,"result":{}}',
]


def test_every_bad_line_is_answered_in_order_and_the_next_request_is_served():
    lines = []
    for i, bad in enumerate(BAD_LINES):
        lines += [bad, raw(call(f"ok-{i}", "canonicalize", {"document": DOC}))]
    answers, status = serve_in_process(b"\n".join(lines) + b"\n")
    assert status == 0
    assert len(answers) == 2 * len(BAD_LINES)
    for i, bad in enumerate(BAD_LINES):
        refusal, good = answers[2 * i], answers[2 * i + 1]
        with pytest.raises(LineRefused) as info:
            read_message(bad)
        assert refusal == {
            "jsonrpc": "2.0",
            "id": info.value.request_id,
            "error": {"code": info.value.code, "message": info.value.message},
        }
        assert good["id"] == f"ok-{i}" and good["result"]["isError"] is False
    assert [a["id"] for a in answers[0:10:2]] == [None] * 5  # the bad ids
    assert answers[16]["id"] == "deep"


def test_notifications_are_the_only_lines_not_answered():
    lines = [
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","method":"nuif/unknown","params":{"a":1}}',
        b'{"jsonrpc":"2.0","method":"notifications/x","params":[1]}',  # not well-formed: answered
        b"   \t",  # a blank line carries no message
        raw(request(1, "tools/list")),
    ]
    answers, status = serve_in_process(b"\n".join(lines) + b"\n")
    assert status == 0
    assert [a["id"] for a in answers] == [None, 1]
    assert answers[0]["error"]["code"] == INVALID_REQUEST


def test_a_line_over_the_limit_is_answered_with_its_id_then_the_connection_closes():
    lines = [
        raw(request(1, "tools/list")),
        raw(call("long", "validate", {"document": "x" * 600})),
        raw(request(3, "tools/list")),
    ]
    answers, status = serve_in_process(b"\n".join(lines) + b"\n", max_line_bytes=512)
    assert status == 1
    assert [a["id"] for a in answers] == [1, "long"]
    assert answers[1]["error"] == {
        "code": INVALID_REQUEST,
        "message": "Invalid Request: the line is longer than 512 bytes, the stdio line limit; "
        "the server closes the connection",
    }


def test_a_fault_while_reading_a_line_is_an_internal_error_and_serving_goes_on(monkeypatch, caplog):
    import nuif_mcp._stdio as stdio

    def broken(line: bytes) -> Any:
        if b"boom" in line:
            raise RuntimeError("secret internal detail")
        return read_message(line)

    monkeypatch.setattr(stdio, "read_message", broken)
    answers, status = serve_in_process(b'"boom"\n' + raw(request(2, "tools/list")) + b"\n")
    assert status == 0
    assert answers[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32603, "message": "Internal error while reading the line"},
    }
    assert answers[1]["id"] == 2 and "result" in answers[1]
    assert "secret internal detail" in caplog.text
