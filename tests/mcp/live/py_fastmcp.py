"""Live-client driver: fastmcp's ``Client`` over its stdio transport.

Usage: python py_fastmcp.py <mode> <calls.json> <cmd> [args...]; mode is ``auto`` (fastmcp's
default: probes ``server/discover``), ``2026-07-28`` or ``legacy``. Each call is made with
``raise_on_error=False`` (the result as returned); the last call is repeated with fastmcp's
default ``raise_on_error=True``, which raises ``ToolError`` with the error text (``raised``).
"""

from __future__ import annotations

import sys

import anyio
from _report import emit, load_calls, new_report, tool_entry
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError


async def main(mode: str, calls_path: str, command: list[str]) -> int:
    report = new_report("fastmcp.Client", "fastmcp", mode)
    transport = StdioTransport(command=command[0], args=command[1:], keep_alive=False)
    calls = load_calls(calls_path)
    try:
        with anyio.fail_after(60):
            async with Client(transport, mode=mode, timeout=20) as client:
                report["protocolVersion"] = getattr(client, "protocol_version", None)
                tools = await client.list_tools()
                report["tools"] = [
                    tool_entry(t.name, t.annotations, t.output_schema) for t in tools
                ]
                for call in calls:
                    result = await client.call_tool(
                        call["name"], call["arguments"], raise_on_error=False
                    )
                    report["calls"].append(
                        {
                            "name": call["name"],
                            "isError": bool(result.is_error),
                            "structuredContent": result.structured_content,
                            "text": result.content[0].text if result.content else None,
                        }
                    )
                try:
                    await client.call_tool(calls[-1]["name"], calls[-1]["arguments"])
                except ToolError as exc:
                    report["raised"] = str(exc)
    except Exception as exc:
        emit(report, exc)
        return 1
    emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:]))
