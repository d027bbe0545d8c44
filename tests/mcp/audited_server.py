"""Run ``nuif-mcp`` with a ``sys.addaudithook`` that reports, on stderr, what the process does
while serving: files opened, sockets, threads, subprocesses and imports.

Test helper, not a test: ``python audited_server.py [nuif-mcp args]``. The hook is installed before
start-up but stays quiet until the server asks its line reader for the first line (serving has
begun); from then on every audited event of interest becomes one ``AUDIT <event> <args>`` line on
fd 2. With ``NUIF_TEST_NOISE=1`` every tool call also tries to write to stdout (``print`` and a raw
``os.write(1, ...)``), to show that nothing but JSON-RPC can reach the protocol stream. With
``NUIF_TEST_FAULT=1`` the ``canonicalize`` tool raises an unexpected ``RuntimeError``.
"""

from __future__ import annotations

import os
import sys

import nuif_mcp._stdio as stdio

WATCHED = (
    "open",
    "socket.",
    "_thread.start_new_thread",
    "subprocess.",
    "os.posix_spawn",
    "os.exec",
    "os.fork",
    "os.system",
    "import",
)
serving = False

_first_line = stdio.BoundedLineReader.__anext__


async def _anext(self):  # type: ignore[no-untyped-def]
    global serving
    serving = True
    return await _first_line(self)


stdio.BoundedLineReader.__anext__ = _anext  # type: ignore[method-assign]


def hook(event: str, args: tuple) -> None:
    if serving and event.startswith(WATCHED):
        os.write(2, f"AUDIT {event} {args!r:.200}\n".encode())


sys.addaudithook(hook)

if os.environ.get("NUIF_TEST_NOISE") == "1":
    import nuif_mcp._tools as tools

    _call = tools.call_tool

    def noisy_call(name, arguments):  # type: ignore[no-untyped-def]
        print("noise from print")
        os.write(1, b"noise from fd 1\n")
        return _call(name, arguments)

    tools.call_tool = noisy_call
    import nuif_mcp._server as server

    server.call_tool = noisy_call

if os.environ.get("NUIF_TEST_FAULT") == "1":
    import nuif_mcp._tools as tools

    def broken(args):  # type: ignore[no-untyped-def]
        raise RuntimeError("secret internal detail")

    tools._BY_NAME["canonicalize"] = tools._BY_NAME["canonicalize"].__class__(
        **{
            **{
                f: getattr(tools._BY_NAME["canonicalize"], f)
                for f in ("name", "title", "description", "arguments", "result")
            },
            "run": broken,
        }
    )

# the server is imported and started only once the audit hook and the patches above are in place
from nuif_mcp.__main__ import entry  # noqa: E402

entry()
