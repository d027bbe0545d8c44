"""The wire rules of profile nuif-mcp-tools-0, checked with raw JSON lines against the real process."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time

import pytest
from nuif_mcp_wire import (
    DOC,
    ENVELOPE,
    VERSION,
    call,
    error_code,
    exchange,
    line,
    request,
    server_command,
)

pytestmark = pytest.mark.timeout(120)

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
UNSUPPORTED_VERSION = -32022


def test_discover_advertises_only_tools_and_only_2026_07_28():
    ex = exchange([line(request(1, "server/discover"))])
    assert ex.returncode == 0
    result = ex.by_id()[1]["result"]
    assert result["supportedVersions"] == [VERSION]
    assert result["capabilities"] == {"tools": {}}
    assert result["resultType"] == "complete"
    info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert info["name"] == "nuif-mcp" and info["version"]


def test_discover_gives_instructions_of_two_or_three_sentences():
    result = exchange([line(request(1, "server/discover"))]).by_id()[1]["result"]
    sentences = [s for s in result["instructions"].split(". ") if s.strip()]
    assert 2 <= len(sentences) <= 4  # "2–3 sentences", allowing one "e.g."-style split
    assert "validate" in result["instructions"] and "apply-patch" in result["instructions"]


def test_discover_and_tools_list_carry_long_public_cache_hints():
    ex = exchange([line(request(1, "server/discover")), line(request(2, "tools/list"))])
    for rid in (1, 2):
        result = ex.by_id()[rid]["result"]
        assert result["cacheScope"] == "public"
        assert result["ttlMs"] >= 60 * 60 * 1000


def test_tools_list_has_four_tools_with_strict_2020_12_schemas_and_truthful_annotations():
    tools = exchange([line(request(1, "tools/list"))]).by_id()[1]["result"]["tools"]
    assert [t["name"] for t in tools] == ["validate", "inspect", "canonicalize", "apply-patch"]
    for tool in tools:
        assert tool["title"] and len(tool["description"]) > 200
        assert tool["annotations"] == {
            "title": tool["title"],
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
        for key in ("inputSchema", "outputSchema"):
            schema = tool[key]
            assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
            assert schema["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        assert "document" in tool["inputSchema"]["required"]


def test_input_and_output_schemas_are_valid_2020_12_schemas():
    jsonschema = pytest.importorskip("jsonschema")
    for tool in exchange([line(request(1, "tools/list"))]).by_id()[1]["result"]["tools"]:
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


def test_request_without_envelope_is_invalid_params():
    ex = exchange([line(request(1, "tools/list", envelope=False))])
    assert error_code(ex.by_id()[1]) == INVALID_PARAMS


@pytest.mark.parametrize(
    "meta",
    [
        {"io.modelcontextprotocol/protocolVersion": VERSION},
        {"io.modelcontextprotocol/clientCapabilities": {}},
        {"progressToken": 3},
    ],
    ids=["no-capabilities", "no-version", "unrelated-meta"],
)
def test_request_with_incomplete_envelope_is_invalid_params(meta):
    msg = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    assert error_code(exchange([line(msg)]).by_id()[1]) == INVALID_PARAMS


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2027-01-01", "x"])
def test_other_protocol_version_is_unsupported_with_supported_and_requested(version):
    msg = request(1, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": version}})
    err = exchange([line(msg)]).by_id()[1]["error"]
    assert err["code"] == UNSUPPORTED_VERSION
    assert err["data"] == {"supported": [VERSION], "requested": version}


def test_initialize_is_refused_naming_the_supported_versions():
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    err = exchange([line(init)]).by_id()[1]["error"]
    assert err["code"] == UNSUPPORTED_VERSION
    assert err["data"]["supported"] == [VERSION]
    assert err["data"]["requested"] == "2025-11-25"


@pytest.mark.parametrize(
    "method", ["ping", "logging/setLevel", "resources/list", "prompts/list", "nuif/whatever"]
)
def test_removed_unserved_and_unknown_methods_are_method_not_found(method):
    params = {"level": "debug"} if method == "logging/setLevel" else None
    assert error_code(exchange([line(request(1, method, params))]).by_id()[1]) == METHOD_NOT_FOUND


def test_unknown_tool_is_a_protocol_error():
    assert error_code(exchange([line(call(1, "nope", {}))]).by_id()[1]) == INVALID_PARAMS


def test_tools_call_without_a_name_is_invalid_params():
    assert (
        error_code(exchange([line(request(1, "tools/call", {"arguments": {}}))]).by_id()[1])
        == INVALID_PARAMS
    )


def test_broken_line_is_a_parse_error_with_null_id_and_the_next_request_is_served():
    ex = exchange(
        [
            b'{"jsonrpc": "2.0", "id": 1, "method": \n',
            line(call(2, "canonicalize", {"document": DOC})),
        ]
    )
    assert ex.returncode == 0
    assert ex.messages[0] == {"jsonrpc": "2.0", "id": None, "error": ex.messages[0]["error"]}
    assert error_code(ex.messages[0]) == PARSE_ERROR
    assert ex.by_id()[2]["result"]["isError"] is False


def test_invalid_utf8_line_is_a_parse_error():
    ex = exchange(
        [
            b'{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"\xff"}\n',
            line(request(2, "tools/list")),
        ]
    )
    assert error_code(ex.messages[0]) == PARSE_ERROR
    assert "result" in ex.by_id()[2]


@pytest.mark.parametrize(
    "raw",
    [
        b"[]",
        b"42",
        b'"x"',
        b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
        b'{"id":1,"method":"tools/list"}',
    ],
    ids=["batch", "number", "string", "wrong-version", "no-jsonrpc"],
)
def test_valid_json_that_is_not_json_rpc_is_invalid_request(raw):
    ex = exchange([raw + b"\n", line(request(2, "tools/list"))])
    assert error_code(ex.messages[0]) == INVALID_REQUEST
    assert "result" in ex.by_id()[2]


def test_invalid_request_names_its_id_when_it_has_one():
    ex = exchange([b'{"jsonrpc":"2.0","id":"abc","method":7}\n'])
    assert ex.messages[0]["id"] == "abc" and error_code(ex.messages[0]) == INVALID_REQUEST


def test_bad_requests_never_poison_the_connection():
    lines = [
        line(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25"},
            }
        ),
        line(request(2, "tools/list", envelope=False)),
        line(
            request(
                3,
                "tools/list",
                {"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}},
            )
        ),
        line(request(4, "ping")),
        b"{oops\n",
        line(call(5, "inspect", {"document": DOC, "max_outline_nodes": "2"})),
        line(call(6, "canonicalize", {"document": DOC})),
    ]
    ex = exchange(lines)
    by_id = ex.by_id()
    assert [error_code(by_id[i]) for i in (1, 2, 3, 4)] == [
        UNSUPPORTED_VERSION,
        INVALID_PARAMS,
        UNSUPPORTED_VERSION,
        METHOD_NOT_FOUND,
    ]
    assert by_id[5]["result"]["isError"] is True
    assert by_id[6]["result"]["isError"] is False
    assert len(ex.messages) == 7


def test_blank_lines_are_not_messages():
    ex = exchange([b"\n", b"  \r\n", line(request(1, "tools/list"))])
    assert len(ex.messages) == 1 and "result" in ex.messages[0]


def test_notifications_get_no_answer():
    note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
    ex = exchange(
        [
            line(note),
            line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            line(request(1, "tools/list")),
        ]
    )
    assert [m.get("id") for m in ex.messages] == [1]


def test_eof_right_after_a_request_still_answers_it_and_exits_zero():
    ex = exchange([line(call(1, "canonicalize", {"document": DOC}))])
    assert ex.returncode == 0
    assert ex.by_id()[1]["result"]["structuredContent"]["changed"] is True


def test_final_line_without_newline_is_answered_at_eof():
    ex = exchange([json.dumps(request(1, "tools/list")).encode()])
    assert "result" in ex.by_id()[1] and ex.returncode == 0


def test_empty_input_exits_zero_with_no_output():
    ex = exchange([])
    assert ex.returncode == 0 and ex.messages == []


@pytest.mark.slow
def test_500_requests_written_at_once_are_all_answered_with_their_ids():
    ids = [i if i % 2 else f"r-{i}" for i in range(500)]
    lines = []
    for i, rid in enumerate(ids):
        doc = json.dumps({"nuif": 0, "root": {"id": f"n{i}", "kind": "box"}})
        lines.append(line(call(rid, "canonicalize", {"document": doc})))
    ex = exchange(lines, timeout=120)
    assert ex.returncode == 0
    by_id = ex.by_id()
    assert sorted(map(str, by_id)) == sorted(map(str, ids)) and len(ex.messages) == 500
    for i, rid in enumerate(ids):
        assert (
            json.loads(by_id[rid]["result"]["structuredContent"]["canonical"])["root"]["id"]
            == f"n{i}"
        )


def test_stdout_carries_only_json_rpc_even_at_debug_log_level():
    ex = exchange(
        [
            line(request(1, "server/discover")),
            b"{bad\n",
            line(call(2, "validate", {"document": DOC})),
        ],
        "--log-level",
        "debug",
    )
    assert len(ex.messages) == 3  # parse_stdout already checked every byte
    assert "DEBUG" in ex.stderr


def test_envelope_client_info_is_optional():
    meta = {k: v for k, v in ENVELOPE.items() if not k.endswith("clientInfo")}
    msg = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    assert "result" in exchange([line(msg)]).by_id()[1]


# ---------------------------------------------------------------------------------------------
# no line is dropped silently (the rules in detail: test_wire.py, in process)

BAD_ID_LINES = [
    b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}',
]


def test_requests_with_an_invalid_id_are_answered_invalid_request_with_id_null():
    lines = []
    for i, bad in enumerate(BAD_ID_LINES):
        lines += [bad + b"\n", line(call(i, "canonicalize", {"document": DOC}))]
    ex = exchange(lines)
    assert ex.returncode == 0
    assert len(ex.messages) == 2 * len(BAD_ID_LINES)
    for i in range(len(BAD_ID_LINES)):
        refusal, good = ex.messages[2 * i], ex.messages[2 * i + 1]
        assert refusal["id"] is None and error_code(refusal) == INVALID_REQUEST
        assert (
            "the request id must be a string or an integer; found " in refusal["error"]["message"]
        )
        assert good["id"] == i and good["result"]["isError"] is False
    found = [m["error"]["message"].rsplit("found ", 1)[1] for m in ex.messages[::2]]
    assert found == [
        "null",
        "a number with a fraction or an exponent (1.5)",
        "a number with a fraction or an exponent (1.0)",
        "a boolean (true)",
        "an object",
        "an array",
    ]


def test_100k_nested_arrays_in_params_say_so_with_the_request_id():
    deep = b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"validate","arguments":{"document":'
    deep += b"[" * 100_000 + b"]" * 100_000 + b"}}}\n"
    ex = exchange([deep, line(call(2, "validate", {"document": DOC}))])
    assert ex.returncode == 0
    err = ex.by_id()["deep"]["error"]
    assert err["code"] == INVALID_REQUEST
    assert "nests arrays and objects more than 201 levels deep" in err["message"]
    assert "UTF-8" not in err["message"]
    assert ex.by_id()[2]["result"]["isError"] is False


def _read_line(proc: subprocess.Popen[bytes], deadline: float) -> bytes:
    """One stdout line, waiting at most until ``deadline`` (monotonic seconds)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    got = b""
    while not got.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no complete answer line in time (got {got[:200]!r})"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"stdout closed before a complete line (got {got[:200]!r})"
            got += chunk
    assert got.count(b"\n") == 1, "more than one answer arrived"
    return got


@pytest.mark.parametrize(
    ("bad", "code"),
    [
        (b'{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{}}', INVALID_REQUEST),
        (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', INVALID_REQUEST),
        (
            b'{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":'
            + b"[" * 1000
            + b"]" * 1000
            + b"}}",
            INVALID_REQUEST,
        ),
        (b"\xef\xbb\xbf{}", PARSE_ERROR),
        (b'{"a":"\xff"}', PARSE_ERROR),
        (b"[]", INVALID_REQUEST),
    ],
    ids=["bool-id", "null-id", "deep", "bom", "not-utf8", "batch"],
)
def test_a_bad_line_is_answered_at_once_and_the_next_call_on_the_open_stream_too(bad, code):
    """stdin stays open: each answer must arrive without end of input forcing it."""
    proc = subprocess.Popen(
        server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdin is not None
        deadline = time.monotonic() + 60
        proc.stdin.write(bad + b"\n")
        proc.stdin.flush()
        refusal = json.loads(_read_line(proc, deadline))
        assert error_code(refusal) == code
        assert refusal["id"] == (3 if b'"id":3' in bad else None)
        proc.stdin.write(line(call(7, "canonicalize", {"document": DOC})))
        proc.stdin.flush()
        good = json.loads(_read_line(proc, deadline))
        assert good["id"] == 7 and good["result"]["isError"] is False
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


# ---------------------------------------------------------------------------------------------
# every refusal of another protocol era explains itself, on the wire and on stderr

SPEAKS = "this server speaks MCP 2026-07-28 only (a params._meta envelope on every request, no initialize)"
FLAG_OFF = (
    "start the server with --allow-legacy-handshake to also serve clients that open with initialize"
)
FLAG_ON_FRESH = (
    "--allow-legacy-handshake is on: open the connection with initialize to use the handshake"
)
ON_MODERN = (
    "this connection already uses 2026-07-28, so it goes on in 2026-07-28 "
    "(--allow-legacy-handshake admits initialize only as the first request of a connection)"
)
CODEX = {"name": "codex-mcp-client", "version": "0.169.0"}


def _initialize(rid, **params):
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}


def _old_meta(rid, version, method="tools/list", client_info=None):
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    if client_info is not None:
        meta["io.modelcontextprotocol/clientInfo"] = client_info
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"_meta": meta}}


def _refusal_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if " refused " in ln]


def _assert_refused(ex, rid, message, client, requested, level="WARNING"):
    """The -32022 answer carries ``message``; stderr has exactly one line naming ``client``."""
    err = ex.by_id()[rid]["error"]
    assert err == {
        "code": UNSUPPORTED_VERSION,
        "message": message,
        "data": {"supported": [VERSION], **({"requested": requested} if requested else {})},
    }
    assert _refusal_lines(ex.stderr) == [f"nuif-mcp {level} nuif_mcp: refused {client}: {message}"]


def test_initialize_refusal_names_the_version_asked_the_version_served_and_the_flag():
    init = _initialize(1, protocolVersion="2025-06-18", capabilities={}, clientInfo=CODEX)
    ex = exchange([line(init), line(request(2, "tools/list"))])
    message = (
        "Unsupported protocol version: the client asked for MCP 2025-06-18 with an initialize "
        f"request; {SPEAKS}; {FLAG_OFF}"
    )
    _assert_refused(ex, 1, message, 'client "codex-mcp-client" 0.169.0', "2025-06-18")
    assert "result" in ex.by_id()[2]  # the refusal does not poison the connection


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2027-01-01", "x"])
def test_meta_of_another_revision_gets_the_same_explanation_naming_the_method(version):
    ex = exchange([line(_old_meta(1, version, client_info={"name": "agent", "version": "1.2"}))])
    message = (
        f"Unsupported protocol version: the client asked for MCP {version} in the params._meta "
        f"of a tools/list request; {SPEAKS}; {FLAG_OFF}"
    )
    _assert_refused(ex, 1, message, 'client "agent" 1.2', version)


def test_both_refusals_share_one_message_form():
    ex = exchange(
        [
            line(_initialize(1, protocolVersion="2025-11-25")),
            line(_old_meta(2, "2025-11-25")),
        ]
    )
    first, second = (ex.by_id()[i]["error"]["message"] for i in (1, 2))
    assert first.replace("with an initialize request", "X") == second.replace(
        "in the params._meta of a tools/list request", "X"
    )


def test_refusal_without_client_info_or_protocol_version_says_what_is_missing():
    ex = exchange([line(_initialize(1))])
    message = (
        "Unsupported protocol version: the client asked for the initialize handshake with no "
        f"protocolVersion; {SPEAKS}; {FLAG_OFF}"
    )
    _assert_refused(ex, 1, message, "a client that sent no clientInfo", None)


def test_refusal_of_a_non_string_protocol_version_describes_it():
    ex = exchange([line(_initialize(1, protocolVersion=20250618, clientInfo={"name": "n"}))])
    message = (
        "Unsupported protocol version: the client asked for the initialize handshake with "
        f"protocolVersion an integer; {SPEAKS}; {FLAG_OFF}"
    )
    _assert_refused(ex, 1, message, 'client "n"', None)


def test_meta_refusal_without_client_info_names_no_client():
    ex = exchange([line(_old_meta(1, "2025-11-25", method="tools/call"))])
    message = (
        "Unsupported protocol version: the client asked for MCP 2025-11-25 in the params._meta "
        f"of a tools/call request; {SPEAKS}; {FLAG_OFF}"
    )
    _assert_refused(ex, 1, message, "a client that sent no clientInfo", "2025-11-25")


def test_with_the_flag_an_old_meta_on_a_new_connection_is_told_to_open_with_initialize():
    ex = exchange([line(_old_meta(1, "2025-11-25", client_info=CODEX))], "--allow-legacy-handshake")
    message = (
        "Unsupported protocol version: the client asked for MCP 2025-11-25 in the params._meta "
        f"of a tools/list request; {SPEAKS}; {FLAG_ON_FRESH}"
    )
    _assert_refused(ex, 1, message, 'client "codex-mcp-client" 0.169.0', "2025-11-25")


@pytest.mark.parametrize("flag", [(), ("--allow-legacy-handshake",)], ids=["no-flag", "flag"])
@pytest.mark.parametrize("late", ["initialize", "meta"])
def test_an_old_request_on_a_modern_connection_says_the_connection_goes_on(late, flag):
    """Claude Code 2.1.x sends initialize after a slow server/discover probe, on one connection."""
    old = (
        _initialize(2, protocolVersion="2025-06-18", clientInfo=CODEX)
        if late == "initialize"
        else _old_meta(2, "2025-06-18", client_info=CODEX)
    )
    lines = [line(request(1, "server/discover")), line(old), line(request(3, "tools/list"))]
    asked = (
        "with an initialize request"
        if late == "initialize"
        else "in the params._meta of a tools/list request"
    )
    message = (
        f"Unsupported protocol version: the client asked for MCP 2025-06-18 {asked}; {SPEAKS}; "
        f"{ON_MODERN}"
    )
    ex = exchange(lines, *flag, "--log-level", "info")
    _assert_refused(ex, 2, message, 'client "codex-mcp-client" 0.169.0', "2025-06-18", "INFO")
    assert "result" in ex.by_id()[3]
    # at the default level a host that is being served leaves no warning in its log
    quiet = exchange(lines, *flag)
    assert quiet.by_id()[2]["error"]["message"] == message and quiet.stderr == ""


def test_the_refusal_log_is_one_short_line_whatever_the_client_sends():
    hostile = {"name": "evil\nnuif-mcp ERROR forged line\r" + "x" * 10_000, "version": "1\n2"}
    version = "2025-11-25\n" + "y" * 10_000
    ex = exchange([line(_initialize(1, protocolVersion=version, clientInfo=hostile))])
    [logged] = _refusal_lines(ex.stderr)
    assert len(ex.stderr.splitlines()) == 1
    assert len(logged) < 700 and "forged" in logged  # escaped inside the quoted name, not a line
    message = ex.by_id()[1]["error"]["message"]
    assert "\n" not in message and len(message) < 500
    shown = json.dumps(version[:37] + "...")  # 40 characters at most, quoted and escaped
    assert message.startswith(f"Unsupported protocol version: the client asked for MCP {shown} ")
    assert ex.by_id()[1]["error"]["data"]["requested"] == version  # the data keeps it whole


def test_every_refusal_logs_its_own_line():
    ex = exchange([line(_initialize(i, clientInfo={"name": f"c{i}"})) for i in range(3)])
    named = [ln.split(" refused ", 1)[1].split(": ", 1)[0] for ln in _refusal_lines(ex.stderr)]
    assert named == ['client "c0"', 'client "c1"', 'client "c2"']


def _with_id(literal: bytes, msg: dict[str, object]) -> bytes:
    """``msg`` as a line whose id is written ``literal`` (json.dumps cannot write ``-0``)."""
    return line({**msg, "id": "ID-HERE"}).replace(b'"ID-HERE"', literal)


def test_an_id_written_minus_zero_is_echoed_minus_zero_on_every_path():
    validate = call("x", "validate", {"document": DOC})
    deep = b'{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"validate","arguments":{"document":'
    deep += b"[" * 300 + b"]" * 300 + b"}}}\n"
    lines = [
        _with_id(b"-0", validate),  # a result
        _with_id(b"-0", call("x", "no-such-tool", {})),  # a protocol error from the SDK's dispatch
        _with_id(b"-0", {**validate, "jsonrpc": "1.0"}),  # refused by the line reader
        deep,  # refused at a parser limit, the id read from the prefix
        b'{"jsonrpc":"2.0","\\u0069d":-0,"method":"tools/list","params":{"_meta":'
        + json.dumps(ENVELOPE).encode()
        + b"}}\n",  # the key written with an escape is still the id
    ]
    ex = exchange(lines)
    assert ex.returncode == 0 and len(ex.raw) == len(lines)
    for raw in ex.raw:
        assert raw.startswith(b'{"jsonrpc":"2.0","id":-0,'), raw[:80]
    results = sorted(("result" in m, m.get("error", {}).get("code")) for m in ex.messages)
    assert results == sorted(
        [
            (True, None),
            (False, INVALID_PARAMS),
            (False, INVALID_REQUEST),
            (False, INVALID_REQUEST),
            (True, None),
        ]
    )


def test_only_the_last_top_level_id_decides_between_zero_and_minus_zero():
    tail = line(request("x", "tools/list"))
    body = tail[tail.index(b'"method"') :]
    cases = [
        (b'{"id":-0,"jsonrpc":"2.0","id":0,' + body, b"0"),
        (b'{"id":0,"jsonrpc":"2.0","id":-0,' + body, b"-0"),
        (b'{"id":0,"jsonrpc":"2.0","params2":{"id":-0},' + body, b"0"),  # not top level
        (b'{"id":0,"jsonrpc":"2.0","note":"\\"id\\":-0",' + body, b"0"),  # inside a string
        (_with_id(b"0", call("x", "validate", {"document": '{"a": -0}'})), b"0"),
    ]
    ex = exchange([case for case, _ in cases])
    assert ex.returncode == 0 and len(ex.raw) == len(cases)
    # the server may answer out of order; each answer's kind tells which case it is
    echoed = sorted(raw[len(b'{"jsonrpc":"2.0","id":') :].split(b",", 1)[0] for raw in ex.raw)
    assert echoed == sorted(expected for _, expected in cases)
    assert all("error" not in m for m in ex.messages)


def test_the_internal_minus_zero_id_cannot_be_sent_by_a_client():
    # the SDK carries a -0 id as a string holding a lone surrogate, which no line can spell
    ex = exchange([b'{"jsonrpc":"2.0","id":"\\udc80-0","method":"tools/list"}\n'])
    assert ex.messages[0]["id"] is None and error_code(ex.messages[0]) == PARSE_ERROR
