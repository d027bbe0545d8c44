"""Live-client driver: the OpenAI Agents SDK's ``MCPServerStdio``.

Usage: python py_openai_agents.py <calls.json> <cmd> [args...]. The SDK picks the protocol era
from the ``mcp`` it is installed with: with mcp 2.x it connects through ``mcp.Client`` in
``auto`` mode (``server/discover``), with mcp 1.x through the ``initialize`` handshake. Each call
goes through ``server.call_tool`` (the result as returned); the last one is repeated through
``MCPUtil.invoke_mcp_tool``, the path an agent run takes, and ``modelSees`` records the tool
output a model would be given.
"""

from __future__ import annotations

import asyncio
import json
import sys
from importlib.metadata import version

from _report import emit, load_calls, new_report, tool_entry
from agents import RunContextWrapper
from agents.mcp import MCPServerStdio, MCPUtil


def _field(obj: object, snake: str, camel: str) -> object:
    """A model field under its mcp 2.x (snake_case) or mcp 1.x (camelCase) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel, None)


def _plain(output: object) -> object:
    """The tool output as JSON: text, or the output items the SDK builds for the model."""
    if isinstance(output, list):
        return [_plain(item) for item in output]
    if hasattr(output, "model_dump"):
        return output.model_dump(mode="json")
    return output if isinstance(output, str | dict) else repr(output)


async def main(calls_path: str, command: list[str]) -> int:
    report = new_report("agents.mcp.MCPServerStdio", "openai-agents", "default")
    report["mcp"] = version("mcp")
    calls = load_calls(calls_path)
    server = MCPServerStdio(
        params={"command": command[0], "args": command[1:]},
        name="nuif",
        client_session_timeout_seconds=20,
        max_retry_attempts=0,
    )
    try:
        async with asyncio.timeout(60):
            async with server:
                session = server.session
                report["protocolVersion"] = getattr(session, "protocol_version", None)
                tools = await server.list_tools()
                report["tools"] = [
                    tool_entry(t.name, t.annotations, _field(t, "output_schema", "outputSchema"))
                    for t in tools
                ]
                for call in calls:
                    result = await server.call_tool(call["name"], call["arguments"])
                    report["calls"].append(
                        {
                            "name": call["name"],
                            "isError": bool(_field(result, "is_error", "isError")),
                            "structuredContent": _field(
                                result, "structured_content", "structuredContent"
                            ),
                            "text": result.content[0].text if result.content else None,
                        }
                    )
                tool = next(t for t in tools if t.name == calls[-1]["name"])
                output = await MCPUtil.invoke_mcp_tool(
                    server,
                    tool,
                    RunContextWrapper(context=None),
                    json.dumps(calls[-1]["arguments"]),
                )
                report["modelSees"] = _plain(output)
    except Exception as exc:
        emit(report, exc)
        return 1
    emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])))
