"""nuif-mcp benchmarks (``uv run pytest benchmarks/bench_mcp.py --benchmark-only``).

* start-up: process start to the first ``server/discover`` answer, ``nuif-mcp`` against a bare SDK
  server (``MCPServer`` with one echo tool, ``run("stdio")``), each started the same way;
* ``tools/call canonicalize`` round trip over stdio on a running server, for 1 KiB and 1 MiB
  documents (the seeded ``ui`` corpus), against the direct ``nuif_core.canonicalize`` call and,
  for 1 KiB, against the bare server's ``echo`` round trip.

The peer of each pair runs first; ours then records ``latency_ratio_vs_<peer>`` (our median / the peer's: below 1 is faster; the dashboard's ``ratio_to`` is the inverse)
in ``extra_info``. Issue 4's targets: start-up within 1.1x of the bare server, the 1 KiB round
trip within 1.3x of the bare echo round trip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from benchmarks import corpus
from benchmarks.harness import run

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
NUIF_MCP = [str(Path(sys.executable).with_name("nuif-mcp"))]
BARE_SERVER = [
    sys.executable,
    "-c",
    (
        "from mcp.server.mcpserver import MCPServer\n"
        "app = MCPServer('bare-echo')\n"
        "@app.tool()\n"
        "def echo(text: str) -> str:\n"
        "    return text\n"
        "app.run('stdio')\n"
    ),
]
SERVERS = {"bare-sdk-echo": BARE_SERVER, "nuif-mcp": NUIF_MCP}

_medians: dict[str, float] = {}


def _line(rid: int, method: str, params: dict[str, Any]) -> bytes:
    return (
        json.dumps(
            {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": ENVELOPE}}
        )
        + "\n"
    ).encode()


DISCOVER = _line(1, "server/discover", {})


class Stdio:
    """A running server on pipes; ``ask`` writes one line and reads one answer line."""

    def __init__(self, cmd: list[str]) -> None:
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.ask(DISCOVER)

    def ask(self, data: bytes) -> bytes:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError("the server closed its stdout")
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


def start_and_discover(cmd: list[str]) -> None:
    """Start ``cmd``, send ``server/discover``, wait for the answer; then let it exit."""
    Stdio(cmd).close()


def _record(benchmark: Any, key: str, peer: str | None) -> None:
    if benchmark.disabled or benchmark.stats is None:  # --benchmark-disable: ran once, no timing
        return
    median = benchmark.stats.stats.median
    _medians[key] = median
    benchmark.extra_info["median_s"] = median
    if peer is not None and peer in _medians:
        benchmark.extra_info[f"latency_ratio_vs_{peer.replace(' ', '_')}"] = median / _medians[peer]


@pytest.mark.parametrize("impl", list(SERVERS))
def test_startup_to_first_discover_answer(benchmark: Any, impl: str) -> None:
    run(
        benchmark,
        start_and_discover,
        SERVERS[impl],
        op="mcp-startup",
        shape="process",
        size="discover",
        impl=impl,
        role="ours" if impl == "nuif-mcp" else "peer",
        input_bytes=len(DISCOVER),
        rounds=(7, 1),
    )
    _record(benchmark, f"startup {impl}", None if impl != "nuif-mcp" else "startup bare-sdk-echo")


@pytest.fixture(scope="module")
def nuif_server() -> Iterator[Stdio]:
    server = Stdio(NUIF_MCP)
    yield server
    server.close()


@pytest.fixture(scope="module")
def bare_server() -> Iterator[Stdio]:
    server = Stdio(BARE_SERVER)
    yield server
    server.close()


def test_bare_sdk_echo_round_trip_1KiB(benchmark: Any, bare_server: Stdio) -> None:
    text = corpus.load("ui", "1KiB").decode()
    request = _line(2, "tools/call", {"name": "echo", "arguments": {"text": text}})
    assert b'"isError":false' in bare_server.ask(request)
    run(
        benchmark,
        bare_server.ask,
        request,
        op="mcp-roundtrip",
        shape="ui",
        size="1KiB",
        impl="bare-sdk-echo",
        role="peer",
        input_bytes=len(text),
    )
    _record(benchmark, "roundtrip 1KiB bare-sdk-echo", None)


@pytest.mark.parametrize("size", ["1KiB", "1MiB"])
def test_direct_api_canonicalize(benchmark: Any, size: str) -> None:
    data = corpus.load("ui", size).decode()
    run(
        benchmark,
        nuif_core.canonicalize,
        data,
        op="mcp-roundtrip",
        shape="ui",
        size=size,
        impl="nuif_core.canonicalize",
        role="peer",
        input_bytes=len(data.encode()),
    )
    _record(benchmark, f"roundtrip {size} direct", None)


@pytest.mark.parametrize("size", ["1KiB", "1MiB"])
def test_nuif_mcp_canonicalize_round_trip(benchmark: Any, nuif_server: Stdio, size: str) -> None:
    data = corpus.load("ui", size).decode()
    request = _line(3, "tools/call", {"name": "canonicalize", "arguments": {"document": data}})
    answer = nuif_server.ask(request)
    assert (
        json.loads(answer)["result"]["structuredContent"]["hash"]
        == nuif_core.canonicalize(data).hash
    )
    run(
        benchmark,
        nuif_server.ask,
        request,
        op="mcp-roundtrip",
        shape="ui",
        size=size,
        impl="nuif-mcp",
        role="ours",
        input_bytes=len(data.encode()),
    )
    _record(benchmark, f"roundtrip {size} nuif-mcp", f"roundtrip {size} direct")
    if size == "1KiB" and "roundtrip 1KiB bare-sdk-echo" in _medians:
        benchmark.extra_info["latency_ratio_vs_bare_sdk_echo"] = (
            _medians[f"roundtrip {size} nuif-mcp"] / _medians["roundtrip 1KiB bare-sdk-echo"]
        )
