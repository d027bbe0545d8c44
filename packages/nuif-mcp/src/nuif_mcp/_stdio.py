"""The byte layer of the stdio transport: a bounded line reader, a pipe writer, and the pumps.

The SDK's ``mcp.server.stdio.stdio_server`` is two pumps between the pipes and a pair of memory
streams; it parses each line with ``jsonrpc_message_adapter.validate_json``, which dispatches a
request with an invalid ``id`` as a notification (never answered) and reports every parser failure
the same way. :func:`line_transport` is the same two pumps with NUIF's line rules
(:mod:`nuif_mcp._wire`) in place of that call, feeding the SDK's ``JSONRPCDispatcher`` the SDK's
own message models, or a :class:`~nuif_mcp._wire.LineRefused` that the server answers.

* :class:`BoundedLineReader` reads the pipe *on demand* (nothing is read until the transport asks
  for the next line) and never holds more than ``limit`` bytes of one line (plus the newline). On
  the first byte past the limit it logs one line to stderr, yields a
  :class:`~nuif_mcp._wire.LineTooLong` (the limit and the line's first
  :data:`~nuif_mcp._wire.ID_SCAN_BYTES` bytes, from which the answer's id is read) and then
  reports end of input, which closes the connection (profile nuif-mcp-tools-0). Lines are handed
  over as ``bytes``: invalid UTF-8 is a parse error, never silently replaced.
* :class:`PipeWriter` writes whole messages to the private stdout descriptor. When the client
  stops reading (``EPIPE``: it closed its end of the pipe or died), no answer can ever be delivered
  again, so the writer logs one line and stops the reader: the request in hand (and at most the one
  line the transport has already taken) is finished without output, nothing more is read, and the
  process exits with status 1 instead of serving a client that is gone until it closes stdin.

Both are driven by the event loop's readiness callbacks (``add_reader``/``add_writer``): no worker
thread is ever started. Descriptors that cannot be polled (a regular file redirected onto stdin or
stdout) are read and written directly, which never blocks for long on a regular file.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR

from nuif_mcp._wire import ID_SCAN_BYTES, LineRefused, LineTooLong, dump_message, read_message

__all__ = ["MAX_LINE_BYTES", "BoundedLineReader", "PipeWriter", "line_transport"]

logger = logging.getLogger("nuif_mcp.stdio")

#: The largest JSON-RPC line the server accepts, newline excluded (profile nuif-mcp-tools-0,
#: MCP-PROFILE-0 §1.2 in docs/spec/mcp-profile-0.md).
MAX_LINE_BYTES = 4 * 1024 * 1024

_CHUNK = 256 * 1024


class _Poller:
    """Wait until a descriptor is ready, on the running asyncio loop, without threads."""

    __slots__ = ("_fd", "_pollable", "_waiting")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pollable = True
        self._waiting: asyncio.Future[None] | None = None

    def wake(self) -> None:
        """End a pending :meth:`wait` now (its caller re-checks why it was waiting)."""
        if self._waiting is not None and not self._waiting.done():
            self._waiting.set_result(None)

    async def wait(self, *, write: bool) -> None:
        if not self._pollable:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()

        def ready() -> None:
            if not fut.done():
                fut.set_result(None)

        add, remove = (
            (loop.add_writer, loop.remove_writer)
            if write
            else (loop.add_reader, loop.remove_reader)
        )
        try:
            add(self._fd, ready)
        except PermissionError:
            # epoll refuses regular files (and some character devices): they are always "ready".
            self._pollable = False
            return
        self._waiting = fut
        try:
            await fut
        finally:
            self._waiting = None
            remove(self._fd)


class BoundedLineReader:
    """Async iterator over the newline-terminated lines of ``fd`` (without the newline), each at
    most ``limit`` bytes.

    Blank lines (only JSON whitespace) are skipped: they carry no message. A final line without a
    newline before end of input is still delivered. When a line grows past ``limit`` bytes the
    reader logs one line, stops reading, yields a :class:`LineTooLong` holding the line's first
    bytes and drops the rest of its buffer; the iteration then ends and :attr:`overflowed` is true.
    """

    def __init__(self, fd: int, *, limit: int = MAX_LINE_BYTES) -> None:
        self._fd = fd
        self._limit = limit
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no newline
        self._eof = False
        self._poller = _Poller(fd)
        self.overflowed = False
        self.stopped = False
        if self._poller_usable():
            os.set_blocking(fd, False)

    def _poller_usable(self) -> bool:
        try:
            mode = os.fstat(self._fd).st_mode
        except OSError:
            return False
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)

    def stop(self) -> None:
        """Read nothing more: the iteration ends at the next line asked for (drops any buffer)."""
        self.stopped = True
        self._eof = True
        self._buf = bytearray()
        self._scanned = 0
        self._poller.wake()

    def __aiter__(self) -> BoundedLineReader:
        return self

    async def __anext__(self) -> bytes | LineTooLong:
        while True:
            line = await self._next_line()
            if line is None:
                raise StopAsyncIteration
            if isinstance(line, LineTooLong) or line.strip(b" \t\r\n"):
                return line

    async def _next_line(self) -> bytes | LineTooLong | None:
        if self.stopped:
            return None
        buf = self._buf
        while True:
            nl = buf.find(b"\n", self._scanned)
            if nl >= 0:
                line = bytes(buf[:nl])  # without its newline
                del buf[: nl + 1]
                self._scanned = 0
                return line
            self._scanned = len(buf)
            if len(buf) > self._limit:
                return self._overflow()
            if self._eof:
                if not buf:
                    return None
                line = bytes(buf)
                buf.clear()
                self._scanned = 0
                return line
            # Never read past the first byte beyond the limit: the buffer stays within it.
            want = min(_CHUNK, self._limit + 1 - len(buf))
            chunk = await self._read(want)
            # stop() may have run while the read waited; mypy keeps the narrowing from before
            # the await, so it takes this branch for dead code
            if self.stopped:
                return None  # type: ignore[unreachable]
            if not chunk:
                self._eof = True
            else:
                buf += chunk

    async def _read(self, n: int) -> bytes:
        while not self.stopped:
            try:
                return os.read(self._fd, n)
            except BlockingIOError:
                await self._poller.wait(write=False)
            except OSError as exc:
                logger.debug("stdin read failed (%s); treating as end of input", exc)
                return b""
        return b""

    def _overflow(self) -> LineTooLong:
        too_long = LineTooLong(self._limit, bytes(self._buf[:ID_SCAN_BYTES]))
        self.overflowed = True
        self._eof = True
        self._buf = bytearray()
        self._scanned = 0
        logger.error(
            "closing the connection: a JSON-RPC line is longer than %d bytes (the stdio line limit)",
            self._limit,
        )
        return too_long


class PipeWriter:
    """The writing end of :func:`line_transport`: writes UTF-8 text to ``fd`` in full.

    ``on_broken`` is called once when a write fails (``EPIPE``: the client stopped reading);
    :attr:`broken` is then true and every later write is dropped.
    """

    def __init__(self, fd: int, *, on_broken: Callable[[], None] | None = None) -> None:
        self._fd = fd
        self._poller = _Poller(fd)
        self._on_broken = on_broken
        self.broken = False
        try:
            os.set_blocking(fd, False)
        except OSError:  # pragma: no cover - not a descriptor we can tune; write blocking
            pass

    async def write(self, text: str) -> int:
        if self.broken:
            return 0
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                n = os.write(self._fd, data)
            except BlockingIOError:
                await self._poller.wait(write=True)
                continue
            except OSError as exc:  # BrokenPipeError: the client stopped reading
                self.broken = True
                logger.warning("stdout closed by the client (%s); closing the connection", exc)
                if self._on_broken is not None:
                    self._on_broken()
                return 0
            data = data[n:]
        return len(text)

    async def flush(self) -> None:
        return None


@asynccontextmanager
async def line_transport(
    reader: BoundedLineReader, writer: PipeWriter
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """The stream pair the SDK's ``JSONRPCDispatcher`` reads and writes, pumped over the pipes.

    Each line becomes the SDK's message or a :class:`LineRefused` (the dispatcher hands exceptions
    to its ``on_stream_exception`` observer). Both streams are unbuffered, as in the SDK's stdio
    transport: a line is parsed only when the dispatcher is ready for it, so the server holds the
    request in hand and at most one more parsed line. Answers are written one JSON text per line.
    """
    to_dispatcher, from_reader = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_writer, from_dispatcher = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_in() -> None:
        try:
            async with to_dispatcher:
                async for line in reader:
                    item: SessionMessage | Exception
                    try:
                        item = read_message(line)
                    except LineRefused as refused:
                        item = refused
                    except Exception:  # a fault here must cost one line, not the connection
                        logger.exception("internal error while reading a line")
                        item = LineRefused(INTERNAL_ERROR, "Internal error while reading the line")
                    await to_dispatcher.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("the dispatcher stopped reading; no more lines are read")

    async def pump_out() -> None:
        async with from_dispatcher:
            async for message in from_dispatcher:
                await writer.write(dump_message(message.message) + "\n")

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_in)
        tg.start_soon(pump_out)
        yield from_reader, to_writer
