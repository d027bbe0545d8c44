"""The byte layer under the SDK's stdio transport: a bounded line reader and a pipe writer.

``mcp.server.stdio.stdio_server`` accepts explicit ``stdin``/``stdout`` objects (anything that can
be iterated with ``async for line in stdin`` and written with ``await stdout.write(text)``); when it
gets them it skips its own descriptor claim and its thread-backed ``anyio.wrap_file`` streams.
This module provides those two objects:

* :class:`BoundedLineReader` reads the pipe *on demand* (nothing is read until the transport asks
  for the next line), never holds more than ``limit`` bytes of one line (plus the newline), and on
  the first byte past the limit logs one line to stderr and reports end of input, which closes the
  connection. Lines are handed over as ``bytes``: the SDK's ``validate_json`` decodes them and
  rejects invalid UTF-8 as a parse error instead of silently replacing it.
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
from collections.abc import Callable

__all__ = ["MAX_LINE_BYTES", "BoundedLineReader", "PipeWriter"]

logger = logging.getLogger("nuif_mcp.stdio")

#: The largest JSON-RPC line the server accepts, newline excluded (profile nuif-mcp-tools-0).
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
    """Async iterator over the newline-terminated lines of ``fd``, each at most ``limit`` bytes.

    Blank lines (only JSON whitespace) are skipped: they carry no message. A final line without a
    newline before end of input is still delivered. When a line grows past ``limit`` bytes the
    reader logs one line, stops reading, drops what it buffered and ends the iteration;
    :attr:`overflowed` is then true.
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

    async def __anext__(self) -> bytes:
        while True:
            line = await self._next_line()
            if line is None:
                raise StopAsyncIteration
            if line.strip(b" \t\r\n"):
                return line

    async def _next_line(self) -> bytes | None:
        if self.stopped:
            return None
        buf = self._buf
        while True:
            nl = buf.find(b"\n", self._scanned)
            if nl >= 0:
                line = bytes(buf[: nl + 1])
                del buf[: nl + 1]
                self._scanned = 0
                return line
            self._scanned = len(buf)
            if len(buf) > self._limit:
                self._overflow()
                return None
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
            if self.stopped:
                return None
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

    def _overflow(self) -> None:
        self.overflowed = True
        self._eof = True
        self._buf = bytearray()
        self._scanned = 0
        logger.error(
            "closing the connection: a JSON-RPC line is longer than %d bytes (the stdio line limit)",
            self._limit,
        )


class PipeWriter:
    """The ``stdout`` object for ``stdio_server``: writes UTF-8 text to ``fd`` in full.

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
