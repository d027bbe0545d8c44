"""Live-client driver: the official Python SDK 2.x ``mcp.Client`` over stdio.

Usage: python py_mcp_client.py <mode> <calls.json> <cmd> [args...]; mode is ``auto`` (the
default, probes ``server/discover``), ``2026-07-28`` (pinned) or ``legacy`` (the handshake).
"""

from __future__ import annotations

import sys

import anyio
from _report import emit, load_calls, new_report, tool_entry
from mcp import Client, StdioServerParameters


async def main(mode: str, calls_path: str, command: list[str]) -> int:
    report = new_report("mcp.Client", "mcp", mode)
    params = StdioServerParameters(command=command[0], args=command[1:])
    try:
        with anyio.fail_after(60):
            async with Client(params, mode=mode, read_timeout_seconds=20) as client:
                report["protocolVersion"] = client.protocol_version
                listed = await client.list_tools()
                report["tools"] = [
                    tool_entry(t.name, t.annotations, t.output_schema) for t in listed.tools
                ]
                for call in load_calls(calls_path):
                    result = await client.call_tool(call["name"], call["arguments"])
                    report["calls"].append(
                        {
                            "name": call["name"],
                            "isError": bool(result.is_error),
                            "structuredContent": result.structured_content,
                            "text": result.content[0].text if result.content else None,
                        }
                    )
    except Exception as exc:
        emit(report, exc)
        return 1
    emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:]))
