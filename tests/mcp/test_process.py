"""The process itself: no file, socket or thread while serving; stdout guarded; the line limit."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from nuif_mcp_wire import (
    DOC,
    DUPLICATE_ID_DOC,
    call,
    error_code,
    exchange,
    line,
    parse_stdout,
    request,
    server_command,
)

import nuif_core

pytestmark = pytest.mark.timeout(180)

AUDITED = [sys.executable, str(Path(__file__).with_name("audited_server.py"))]
MiB = 1024 * 1024


def _varied_session() -> list[bytes]:
    lines = [
        line(request(1, "server/discover")),
        line(request(2, "tools/list")),
        b"{broken\n",
        b"[]\n",
        # every refusal path of the line rules (nuif_mcp._wire) imports and opens nothing either
        b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}\n',
        b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}\n',
        b'{"jsonrpc":"2.0","id":"d","method":"x","params":{"a":'
        + b"[" * 300
        + b"]" * 300
        + b"}}\n",
        b'{"jsonrpc":"2.0","id":"n","method":"x","params":{"a":' + b"9" * 5000 + b"}}\n",
        b"\xef\xbb\xbf{}\n",
        b'{"a":"\xff"}\n',
        b'["\\ud800"]\n',
        b"[NaN]\n",
        b'{"jsonrpc":"2.0","id":5,"result":{}}\n',
        b'{"jsonrpc":"2.0","method":7}\n',
        line(request(3, "ping")),
        line(request(4, "tools/list", envelope=False)),
        line(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25"},
            }
        ),
        line(call(6, "validate", {"document": DOC})),
        line(call(7, "validate", {"document": DUPLICATE_ID_DOC})),
        line(call(8, "inspect", {"document": DOC, "max_outline_nodes": 1})),
        line(call(9, "inspect", {"document": "[1, 2"})),
        line(call(10, "canonicalize", {"document": '{"nuif":0,"root":{"id":"é","kind":"x"}}'})),
        line(call(11, "canonicalize", {"document": DOC, "bogus": 1})),
        line(call(12, "canonicalize", {"document": "x" * (MiB + 1)})),
        line(call(13, "nope", {})),
    ]
    if hasattr(nuif_core, "apply_patch"):
        base = nuif_core.canonicalize(DOC).hash
        patch = {
            "nuif_patch": 0,
            "base": base,
            "transactions": [{"ops": [{"op": "remove", "id": "login.submit"}]}],
        }
        lines += [
            line(
                call(
                    14,
                    "apply-patch",
                    {"document": DOC, "patch": json.dumps(patch), "include_inverse": True},
                )
            ),
            line(call(15, "apply-patch", {"document": DOC, "patch": "{}"})),
        ]
    return lines


def test_serving_opens_no_file_creates_no_socket_starts_no_thread_and_imports_nothing():
    lines = _varied_session()
    ex = exchange(lines, cmd=AUDITED)
    assert ex.returncode == 0
    assert len(ex.messages) == len(lines)
    audit = [ln for ln in ex.stderr.splitlines() if ln.startswith("AUDIT ")]
    assert audit == []


def test_stray_writes_to_stdout_never_reach_the_protocol_stream():
    ex = exchange(
        [line(call(1, "canonicalize", {"document": DOC})), line(request(2, "tools/list"))],
        cmd=AUDITED,
        env={"NUIF_TEST_NOISE": "1"},
    )
    assert len(ex.messages) == 2  # parse_stdout rejected anything that is not JSON-RPC
    assert "noise from print" in ex.stderr and "noise from fd 1" in ex.stderr


def test_unexpected_exception_is_internal_error_without_details_and_logged_on_stderr():
    ex = exchange(
        [
            line(call(1, "canonicalize", {"document": DOC})),
            line(call(2, "validate", {"document": DOC})),
        ],
        cmd=AUDITED,
        env={"NUIF_TEST_FAULT": "1"},
    )
    err = ex.by_id()[1]["error"]
    assert err["code"] == -32603
    assert "secret" not in json.dumps(err) and "Traceback" not in json.dumps(err)
    assert "Traceback" in ex.stderr and "secret internal detail" in ex.stderr
    assert ex.by_id()[2]["result"]["isError"] is False  # the connection survives


def _peak_rss(proc: psutil.Process) -> int:
    try:
        for row in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
            if row.startswith("VmHWM:"):
                return int(row.split()[1]) * 1024
        return proc.memory_info().rss
    except (OSError, psutil.Error):
        return 0


@pytest.mark.slow
def test_a_5_mib_line_closes_the_connection_and_memory_stays_bounded():
    proc = subprocess.Popen(
        server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    ps = psutil.Process(proc.pid)
    peak = 0
    try:
        assert proc.stdin is not None
        proc.stdin.write(line(call(1, "canonicalize", {"document": DOC})))
        proc.stdin.flush()
        chunk = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"validate","arguments":{"document":"'
        chunk += b"x" * (256 * 1024 - len(chunk))
        written = 0
        deadline = time.monotonic() + 60
        try:
            while written < 5 * MiB and time.monotonic() < deadline:
                proc.stdin.write(chunk if written == 0 else b"x" * len(chunk))
                proc.stdin.flush()
                written += len(chunk)
                peak = max(peak, _peak_rss(ps))
        except BrokenPipeError:
            pass  # the server closed the connection: exactly what is expected
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
        proc.stdin = None  # closed (maybe with a broken pipe): communicate must not flush it
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    messages = parse_stdout(out)
    # the request before the long line was answered; the long line too, with the id it starts with
    assert [m["id"] for m in messages] == [1, 2]
    assert "result" in messages[0]
    assert error_code(messages[1]) == -32600
    assert "longer than 4194304 bytes" in messages[1]["error"]["message"]
    assert proc.returncode == 1
    limit_lines = [ln for ln in err.decode().splitlines() if "longer than" in ln]
    assert len(limit_lines) == 1
    print(f"peak resident memory: {peak / 1e6:.1f} MB")
    assert 0 < peak < 200 * 1000 * 1000


def test_a_line_of_exactly_4_mib_is_read():
    msg = call(1, "validate", {"document": ""})
    raw = json.dumps(msg).encode()
    pad = 4 * MiB - len(raw)
    msg["params"]["arguments"]["document"] = " " * pad
    raw = json.dumps(msg).encode()
    assert len(raw) == 4 * MiB
    ex = exchange([raw + b"\n"])
    assert ex.returncode == 0 and ex.by_id()[1]["result"]["content"][0]["text"].startswith(
        "NUIF_TOO_LARGE"
    )


def test_one_byte_over_4_mib_is_answered_then_the_connection_is_closed():
    raw = json.dumps(call(1, "validate", {"document": ""})).encode()
    msg = call(1, "validate", {"document": " " * (4 * MiB + 1 - len(raw))})
    ex = exchange([json.dumps(msg).encode() + b"\n", line(request(2, "tools/list"))])
    assert ex.returncode == 1
    assert [m["id"] for m in ex.messages] == [1]  # request 2 is never read
    assert error_code(ex.messages[0]) == -32600
    assert ex.messages[0]["error"]["message"] == (
        "Invalid Request: the line is longer than 4194304 bytes, the stdio line limit; "
        "the server closes the connection"
    )
    assert "longer than 4194304 bytes" in ex.stderr


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_print_and_exit_zero(flag):
    done = subprocess.run(server_command(flag), check=False, capture_output=True, timeout=60)
    assert done.returncode == 0
    assert b"nuif-mcp" in done.stdout


def test_python_dash_m_runs_the_same_server():
    ex = exchange([line(request(1, "server/discover"))], cmd=[sys.executable, "-m", "nuif_mcp"])
    assert ex.by_id()[1]["result"]["capabilities"] == {"tools": {}}


def test_unknown_flag_is_a_usage_error_on_stderr():
    done = subprocess.run(server_command("--bogus"), check=False, capture_output=True, timeout=60)
    assert done.returncode == 2 and done.stdout == b"" and b"usage" in done.stderr


def test_legacy_handshake_is_served_only_with_the_flag():
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
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    legacy_call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "canonicalize", "arguments": {"document": DOC}},
    }
    off = exchange([line(init), line(initialized), line(legacy_call)])
    assert error_code(off.by_id()[1]) == -32022 and error_code(off.by_id()[2]) == -32602
    on = exchange(
        [line(init), line(initialized), line(legacy_call), line(request(3, "tools/list"))],
        "--allow-legacy-handshake",
    )
    assert on.by_id()[1]["result"]["protocolVersion"] == "2025-11-25"
    assert on.by_id()[1]["result"]["capabilities"]["tools"] is not None
    assert on.by_id()[2]["result"]["structuredContent"]["hash"] == nuif_core.canonicalize(DOC).hash
    assert error_code(on.by_id()[3]) == -32600  # an enveloped request on a handshake connection


def test_with_the_legacy_flag_a_modern_client_is_still_served():
    ex = exchange(
        [line(request(1, "server/discover")), line(call(2, "canonicalize", {"document": DOC}))],
        "--allow-legacy-handshake",
    )
    assert ex.by_id()[1]["result"]["supportedVersions"] == ["2026-07-28"]
    assert ex.by_id()[2]["result"]["isError"] is False
    init = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25"},
    }
    assert (
        error_code(
            exchange(
                [line(request(1, "tools/list")), line(init)], "--allow-legacy-handshake"
            ).by_id()[3]
        )
        == -32022
    )


def test_package_version_matches_the_distribution_and_pins_the_core_exactly():
    from importlib.metadata import requires, version

    import nuif_mcp

    assert nuif_mcp.__version__ == version("nuif-mcp")
    assert f"nuif-core=={version('nuif-core')}" in [
        r.replace(" ", "") for r in requires("nuif-mcp") or []
    ]
