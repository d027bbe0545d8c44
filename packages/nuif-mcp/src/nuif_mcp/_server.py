"""The MCP server: the SDK's low-level ``Server`` plus a 2026-07-28-only serving loop.

Composition (mcp 2.3.x), outermost first:

``line_transport(BoundedLineReader, PipeWriter)``
    the stdio transport (line -> the SDK's ``SessionMessage``, or a ``LineRefused`` saying what is
    wrong with the line): the SDK's ``stdio_server`` pumps, with NUIF's bounded, thread-free reader
    and NUIF's line rules (``_wire``) in place of the SDK's union parse, which dispatched a request
    with an invalid ``id`` as a notification and so never answered it;
``JSONRPCDispatcher(on_stream_exception=..., inline_methods=<every method>)``
    the SDK's JSON-RPC layer; refused lines reach our observer and are answered with their code
    (``-32700``/``-32600``), message and id (null unless a valid one was read); every request is
    handled inline, so exactly one request is in flight and the read loop does not take
    the next line before the current one is answered (bounded memory, and nothing is in flight
    when end of input arrives, so every request read is answered);
``on_request``
    refuses ``initialize`` (``-32022``) unless the legacy handshake is allowed, runs the SDK's
    inbound ladder ``classify_inbound_request`` (missing envelope ``-32602``, other version
    ``-32022``), then hands the request to ``modern_on_request`` (the SDK's per-request kernel:
    per-version method surface, so ``ping`` and ``logging/setLevel`` are ``-32601`` at 2026-07-28,
    result sieve, ``resultType``, cache hints, ``serverInfo`` stamp).

Both refusals of another protocol era (an ``initialize`` request, or a ``_meta`` envelope naming
another revision) are built by :func:`era_refusal`: one message naming what the client asked for,
what this server speaks and the ``--allow-legacy-handshake`` flag, and one stderr line naming the
client. A refused host often shows its user nothing but the server's stderr, so that line is the
trace a person can read.

With ``allow_legacy_handshake`` the loop also serves a connection that *opens* with
``initialize`` through the SDK's ``ServerRunner`` on a loop ``Connection``, the same pieces
``serve_dual_era_loop`` uses. A connection is fixed to one era by its first request that names one.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.runner import ServerRunner, aclose_shielded, modern_error_data, modern_on_request
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    CLIENT_INFO_META_KEY,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PROTOCOL_VERSION_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    ErrorData,
    JSONRPCError,
    UnsupportedProtocolVersionErrorData,
)
from pydantic import ValidationError

from nuif_mcp import __version__
from nuif_mcp._stdio import MAX_LINE_BYTES, BoundedLineReader, PipeWriter, line_transport
from nuif_mcp._tools import call_tool, tool_definitions, warm_up
from nuif_mcp._wire import LineRefused, describe

__all__ = [
    "INSTRUCTIONS",
    "LEGACY_FLAG",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "create_server",
    "era_refusal",
    "serve_stdio",
    "serve_streams",
]

logger = logging.getLogger("nuif_mcp")

PROTOCOL_VERSION = "2026-07-28"
SUPPORTED_VERSIONS: tuple[str, ...] = (PROTOCOL_VERSION,)
#: The command-line flag that also serves the 2025-11-25 ``initialize`` handshake.
LEGACY_FLAG = "--allow-legacy-handshake"

INSTRUCTIONS = (
    "These tools check and transform NUIF documents (JSON UI trees of typed nodes with stable ids) "
    "passed inline as text: validate lists every problem, inspect summarizes, canonicalize returns "
    "the canonical text and hash, apply-patch applies a semantic patch and returns the new document. "
    "They are pure: nothing is stored, read from files or fetched, so keep the returned canonical "
    "text and hash yourself and compare documents by hash. "
    "A result with isError true starts with a NUIF_* code that says what to fix in your input; "
    "validate reports an invalid document as a normal result (valid false, every diagnostic)."
)

#: The tool list never changes while the process lives: clients may keep it for a day.
TOOL_LIST_TTL_MS = 24 * 60 * 60 * 1000
_CACHE_HINT = CacheHint(ttl_ms=TOOL_LIST_TTL_MS, scope="public")


def create_server() -> Server[Any]:
    """Build the NUIF MCP server (the SDK's low-level ``Server``) with its four tools.

    Everything the server needs is built here, at start-up: tool definitions and schemas, and one
    warm-up run of each tool (see :func:`nuif_mcp._tools.warm_up`), so that serving imports nothing.
    """
    warm_up()
    tools = types.ListToolsResult(tools=tool_definitions())

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return tools

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        result = call_tool(params.name, params.arguments)
        if result is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Unknown tool: {params.name}",
                data={"tool": params.name},
            )
        return result

    server: Server[Any] = Server(
        "nuif-mcp",
        version=__version__,
        title="NUIF tools",
        description="Validate, inspect, canonicalize and patch NUIF documents passed inline (profile nuif-mcp-tools-0).",
        instructions=INSTRUCTIONS,
        cache_hints={"server/discover": _CACHE_HINT, "tools/list": _CACHE_HINT},
        on_list_tools=list_tools,
        on_call_tool=call,
    )

    async def discover(
        ctx: ServerRequestContext[Any], params: types.RequestParams
    ) -> types.DiscoverResult:
        # The default handler derives `tools: {listChanged: false}`; the profile advertises `{}`.
        return types.DiscoverResult(
            supported_versions=list(SUPPORTED_VERSIONS),
            capabilities=types.ServerCapabilities(tools=types.ToolsCapability()),
            instructions=INSTRUCTIONS,
        )

    server.add_request_handler("server/discover", types.RequestParams, discover)
    # No telemetry: drop the (no-op until configured) OpenTelemetry middleware from the chain.
    server.middleware = []
    return server


class _EveryMethod(frozenset[str]):
    """``inline_methods`` for the dispatcher: every request method is handled inline."""

    def __contains__(self, item: object) -> bool:
        return True


def _has_modern_envelope(params: Mapping[str, Any] | None) -> bool:
    meta = params.get("_meta") if params else None
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta


_PLAIN_TOKEN = re.compile(r"[0-9A-Za-z][0-9A-Za-z._+/-]{0,39}")


def _shown(value: Any) -> str:
    """A client-supplied value as message text: one line, short, quoted unless a plain token."""
    if isinstance(value, str) and _PLAIN_TOKEN.fullmatch(value):
        return value
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:37] + "...")
    return describe(value)


def _client_name(info: Any) -> str:
    """``client "codex-mcp-client" 0.169.0`` from a ``clientInfo`` object, or what is missing."""
    if not isinstance(info, Mapping) or "name" not in info:
        return "a client that sent no clientInfo"
    name = info["name"]
    text = "client " + (json.dumps(name[:60]) if isinstance(name, str) else describe(name))
    if "version" in info:
        version = info["version"]
        text += " " + (_shown(version) if isinstance(version, str) else describe(version))
    return text


def era_refusal(
    method: str,
    params: Mapping[str, Any] | None,
    *,
    legacy_allowed: bool,
    connection_era: str | None,
) -> MCPError:
    """The ``-32022`` answer to a request of another protocol era, logged on stderr.

    ``method`` is ``initialize`` (the 2025 handshake) or any method whose ``params._meta`` names
    a revision other than 2026-07-28. The message has one form for both: what the client asked
    for, what this server speaks, and what ``--allow-legacy-handshake`` does about it; ``data``
    is the SDK's ``{"supported": [...], "requested": ...}`` (``requested`` only when it is a
    string). The stderr line names the client from ``clientInfo`` (the handshake's member, or
    the envelope's ``io.modelcontextprotocol/clientInfo``) and repeats the message; it is a
    warning, except on a connection already served in 2026-07-28 (``connection_era ==
    "modern"``), where the client is not left without a connection and the line is info.
    """
    params = params or {}
    if method == "initialize":
        requested = params.get("protocolVersion")
        client_info = params.get("clientInfo")
        if requested is None:
            asked = "the initialize handshake with no protocolVersion"
        elif isinstance(requested, str):
            asked = f"MCP {_shown(requested)} with an initialize request"
        else:
            asked = f"the initialize handshake with protocolVersion {describe(requested)}"
    else:
        meta = params.get("_meta")
        meta = meta if isinstance(meta, Mapping) else {}
        requested = meta.get(PROTOCOL_VERSION_META_KEY)
        client_info = meta.get(CLIENT_INFO_META_KEY)
        asked = f"MCP {_shown(requested)} in the params._meta of a {_shown(method)} request"
    if connection_era == "modern":
        admit = (
            f"this connection already uses {PROTOCOL_VERSION}, so it goes on in {PROTOCOL_VERSION} "
            f"({LEGACY_FLAG} admits initialize only as the first request of a connection)"
        )
    elif not legacy_allowed:
        admit = (
            f"start the server with {LEGACY_FLAG} to also serve clients that open with initialize"
        )
    else:
        admit = f"{LEGACY_FLAG} is on: open the connection with initialize to use the handshake"
    message = (
        f"Unsupported protocol version: the client asked for {asked}; this server speaks MCP "
        f"{PROTOCOL_VERSION} only (a params._meta envelope on every request, no initialize); {admit}"
    )
    # A connection already served in 2026-07-28 is not a refused host: Claude Code 2.1.x, when its
    # server/discover probe is not answered at once, sends initialize on the same connection,
    # reads this -32022 and goes on in 2026-07-28. Logged at info: a working host's log stays quiet.
    level = logging.INFO if connection_era == "modern" else logging.WARNING
    logger.log(level, "refused %s: %s", _client_name(client_info), message)
    data: dict[str, Any] = {"supported": list(SUPPORTED_VERSIONS)}
    if isinstance(requested, str):
        data = UnsupportedProtocolVersionErrorData(
            supported=list(SUPPORTED_VERSIONS), requested=requested
        ).model_dump(mode="json")
    return MCPError(code=UNSUPPORTED_PROTOCOL_VERSION, message=message, data=data)


def _unreadable_line_error(exc: Exception) -> JSONRPCError:
    """The answer to a line the transport could not turn into a request or notification."""
    if isinstance(exc, LineRefused):
        error = ErrorData(code=exc.code, message=exc.message)
        return JSONRPCError(jsonrpc="2.0", id=exc.request_id, error=error)
    # Another transport's exception (serve_streams fed by the SDK's own streams): no detail.
    error = ErrorData(code=INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 message")
    return JSONRPCError(jsonrpc="2.0", id=None, error=error)


async def serve_streams(
    server: Server[Any],
    read_stream: Any,
    write_stream: Any,
    *,
    lifespan_state: Any = None,
    allow_legacy_handshake: bool = False,
) -> None:
    """Serve one connection over the SDK's ``SessionMessage`` stream pair until the read side ends."""

    async def answer_unreadable(exc: Exception) -> None:
        reply = _unreadable_line_error(exc)
        logger.info("answered a refused line with %d: %s", reply.error.code, reply.error.message)
        try:
            await write_stream.send(SessionMessage(reply))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            logger.debug("dropped the answer to an unreadable line: write stream closed")

    dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
        read_stream,
        write_stream,
        inline_methods=_EveryMethod(),
        on_stream_exception=answer_unreadable,
    )
    modern = modern_on_request(server, lifespan_state)
    legacy_connection: Connection | None = None
    legacy_runner: ServerRunner[Any] | None = None
    era: str | None = None  # "modern" or "legacy", fixed by the first request that names one

    async def on_request(
        dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        nonlocal era, legacy_connection, legacy_runner
        try:
            if era == "legacy":
                assert legacy_runner is not None
                if method != "initialize" and _has_modern_envelope(params):
                    raise MCPError(
                        code=INVALID_REQUEST,
                        message="this connection opened with the initialize handshake; "
                        "requests carrying the 2026-07-28 envelope are not accepted on it",
                    )
                return await legacy_runner.on_request(dctx, method, params)
            if method == "initialize":
                if not allow_legacy_handshake or era == "modern":
                    raise era_refusal(
                        method,
                        params,
                        legacy_allowed=allow_legacy_handshake,
                        connection_era=era,
                    )
                era = "legacy"
                legacy_connection = Connection.for_loop(dispatcher)
                legacy_runner = ServerRunner(server, legacy_connection, lifespan_state)
                return await legacy_runner.on_request(dctx, method, params)
            route = classify_inbound_request(
                {"method": method, "params": params}, supported_modern_versions=SUPPORTED_VERSIONS
            )
            if isinstance(route, InboundLadderRejection):
                if route.code == UNSUPPORTED_PROTOCOL_VERSION:
                    raise era_refusal(
                        method,
                        params,
                        legacy_allowed=allow_legacy_handshake,
                        connection_era=era,
                    )
                raise MCPError(code=route.code, message=route.message, data=route.data)
            era = "modern"
            return await modern(dctx, method, params)
        except (MCPError, ValidationError):
            raise  # the dispatcher maps these to their JSON-RPC error
        except Exception as exc:
            # Logged with its traceback on stderr; the client sees -32603 and nothing more.
            error = modern_error_data(exc)
            raise MCPError(code=error.code, message=error.message) from None

    async def on_notify(
        dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> None:
        if era == "legacy" and legacy_runner is not None:
            await legacy_runner.on_notify(dctx, method, params)
        else:
            logger.debug("ignored notification %s", method)

    try:
        await dispatcher.run(on_request, on_notify)
    finally:
        if legacy_connection is not None:
            await aclose_shielded(legacy_connection)


async def serve_stdio(
    server: Server[Any],
    *,
    stdin_fd: int,
    stdout_fd: int,
    allow_legacy_handshake: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> int:
    """Serve one client over the given pipe descriptors; the process exit status when it ends.

    0 after end of input (every request read has been answered); 1 when the connection was
    closed early: the client sent a line longer than ``max_line_bytes`` (answered ``-32600``, then
    nothing more is read), or stopped reading stdout (``EPIPE``), so that some answer could not be
    delivered.
    """
    reader = BoundedLineReader(stdin_fd, limit=max_line_bytes)
    writer = PipeWriter(stdout_fd, on_broken=reader.stop)
    async with (
        server.lifespan(server) as lifespan_state,
        line_transport(reader, writer) as (read_stream, write_stream),
    ):
        await serve_streams(
            server,
            read_stream,
            write_stream,
            lifespan_state=lifespan_state,
            allow_legacy_handshake=allow_legacy_handshake,
        )
    return 1 if reader.overflowed or writer.broken else 0
