"""Helpers for driving the real ``nuif-mcp`` process over stdio.

Every wait is bounded: ``communicate`` and ``wait`` get timeouts, the SDK client gets
``read_timeout_seconds``, and tests carry ``pytest.mark.timeout`` marks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types

HERE = Path(__file__).resolve().parent
VERSION = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "nuif-tests", "version": "0"},
}

#: A small valid document, not canonical (member order), and its canonical form.
DOC = '{"root": {"kind": "screen", "id": "login", "children": [{"id": "login.submit", "kind": "button", "attrs": {"label": "Sign in"}}]}, "nuif": 0}'
DUPLICATE_ID_DOC = '{"nuif":0,"root":{"id":"a","kind":"screen","children":[{"id":"a","kind":"x"}]}}'


def server_command(*args: str) -> list[str]:
    """The installed console script, next to the interpreter running the tests."""
    script = Path(sys.executable).with_name("nuif-mcp")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-m", "nuif_mcp", *args]


def request(
    rid: Any, method: str, params: dict[str, Any] | None = None, *, envelope: bool = True
) -> dict[str, Any]:
    p = dict(params or {})
    if envelope:
        p["_meta"] = {**ENVELOPE, **p.get("_meta", {})}
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if p:
        msg["params"] = p
    return msg


def call(rid: Any, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return request(rid, "tools/call", params)


def line(msg: Any) -> bytes:
    return (json.dumps(msg) + "\n").encode()


@dataclass
class Exchange:
    """What came back from one server process: parsed stdout lines, stderr text, exit status."""

    messages: list[dict[str, Any]]
    stderr: str
    returncode: int
    #: stdout's lines as written (``json.loads`` reads ``-0`` as ``0``)
    raw: list[bytes]

    def by_id(self) -> dict[Any, dict[str, Any]]:
        return {m["id"]: m for m in self.messages if "id" in m}


def parse_stdout(out: bytes) -> list[dict[str, Any]]:
    """Every stdout line must be one JSON-RPC message; nothing else may appear."""
    messages = []
    assert out == b"" or out.endswith(b"\n"), "stdout does not end with a newline"
    for raw in out.splitlines():
        mcp_types.jsonrpc_message_adapter.validate_json(raw)  # raises on anything else
        messages.append(json.loads(raw))
    return messages


def exchange(
    lines: Iterable[bytes],
    *args: str,
    timeout: float = 60,
    env: dict[str, str] | None = None,
    cmd: list[str] | None = None,
) -> Exchange:
    """Start a server, write ``lines``, close stdin, collect everything until it exits."""
    proc = subprocess.Popen(
        cmd or server_command(*args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    try:
        out, err = proc.communicate(b"".join(lines), timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    return Exchange(
        parse_stdout(out), err.decode("utf-8", "replace"), proc.returncode, out.splitlines()
    )


def error_code(msg: dict[str, Any]) -> int:
    assert "error" in msg, msg
    return msg["error"]["code"]
