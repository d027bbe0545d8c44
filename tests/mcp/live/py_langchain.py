"""Live-client driver: langchain-mcp-adapters (``MultiServerMCPClient`` + ``load_mcp_tools``).

Usage: python py_langchain.py <calls.json> <cmd> [args...]. The adapters pin the Python SDK 1.x,
whose ``ClientSession`` opens with the ``initialize`` handshake. Tools are loaded as LangChain
tools and invoked as an agent invokes them (a ``tool_call``, answered by a ``ToolMessage``):
``isError`` is the message's ``status == "error"``, ``text`` what the model reads, and
``structuredContent`` the message's artifact.
"""

from __future__ import annotations

import asyncio
import sys

from _report import emit, load_calls, new_report, tool_entry
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools


def _text(content: object) -> object:
    if isinstance(content, list) and content and isinstance(content[0], dict):
        return content[0].get("text")
    return content


async def main(calls_path: str, command: list[str]) -> int:
    report = new_report("langchain_mcp_adapters", "langchain-mcp-adapters", "default")
    client = MultiServerMCPClient(
        {"nuif": {"transport": "stdio", "command": command[0], "args": command[1:]}}
    )
    try:
        async with asyncio.timeout(60), client.session("nuif") as session:
            listed = await session.list_tools()
            report["tools"] = [
                tool_entry(t.name, t.annotations, t.outputSchema) for t in listed.tools
            ]
            tools = {t.name: t for t in await load_mcp_tools(session, server_name="nuif")}
            report["metadata"] = {name: t.metadata for name, t in tools.items()}
            for i, call in enumerate(load_calls(calls_path)):
                message = await tools[call["name"]].ainvoke(
                    {
                        "type": "tool_call",
                        "name": call["name"],
                        "args": call["arguments"],
                        "id": f"c{i}",
                    }
                )
                artifact = message.artifact or {}
                report["calls"].append(
                    {
                        "name": call["name"],
                        "isError": message.status == "error",
                        "structuredContent": artifact.get("structured_content"),
                        "text": _text(message.content),
                    }
                )
    except Exception as exc:
        emit(report, exc)
        return 1
    emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])))
