"""Command line: ``nuif-mcp`` / ``python -m nuif_mcp``.

Order matters. Arguments are parsed first (``--help``/``--version`` print and exit without
serving). Then, before anything heavy is imported, the process's standard streams are claimed:
the JSON-RPC wire moves to private duplicates of fds 0 and 1, fd 1 is pointed at stderr and fd 0 at
the null device, and ``sys.stdout`` is ``sys.stderr``. From that moment a stray ``print`` or a build
message from an import lands on stderr, never in the protocol stream. Only then are the MCP SDK and
nuif-core imported and the server built, all at start-up: while serving, nothing is imported and
no file or socket is opened.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
import sys

from nuif_mcp import __version__

__all__ = ["entry", "main"]

_LEVELS = ("debug", "info", "warning", "error", "critical")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nuif-mcp",
        description="Stateless MCP stdio server (protocol 2026-07-28, profile nuif-mcp-tools-0): "
        "validate, inspect, canonicalize and apply-patch over NUIF documents passed inline. "
        "It reads JSON-RPC from stdin, writes it to stdout and logs to stderr; it opens no file "
        "and no socket.",
    )
    parser.add_argument(
        "--log-level",
        choices=_LEVELS,
        default="warning",
        help="stderr log threshold (default: warning); stdout only ever carries JSON-RPC",
    )
    parser.add_argument(
        "--allow-legacy-handshake",
        action="store_true",
        help="also serve clients that open with the 2025-11-25 initialize handshake "
        "(outside profile 0; off by default)",
    )
    parser.add_argument("--version", action="version", version=f"nuif-mcp {__version__}")
    return parser


def _claim_stdio() -> tuple[int, int]:
    """Move the wire to private descriptors; leave fd 0 on the null device and fd 1 on stderr."""
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    sys.stdout.flush()
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    sys.stdout = sys.stderr
    return wire_in, wire_out


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    wire_in, wire_out = _claim_stdio()
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        stream=sys.stderr,
        format="nuif-mcp %(levelname)s %(name)s: %(message)s",
    )
    logging.captureWarnings(True)

    import anyio

    from nuif_mcp._server import create_server, serve_stdio

    server = create_server()
    try:
        return anyio.run(
            lambda: serve_stdio(
                server,
                stdin_fd=wire_in,
                stdout_fd=wire_out,
                allow_legacy_handshake=args.allow_legacy_handshake,
            ),
            backend="asyncio",
        )
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
