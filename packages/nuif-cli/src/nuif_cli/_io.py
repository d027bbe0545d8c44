"""File input and output for the CLI: bounded reads, ``-`` for stdin/stdout, atomic writes."""

from __future__ import annotations

import os
import stat
import sys
from typing import IO

STDIO = "-"

_UMASK: int | None = None


class UsageError(Exception):
    """A command line that cannot be carried out as given (exit status 2)."""


def umask() -> int:
    """The process umask (read once; the CLI is single-threaded when it asks)."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def too_large(what: str, name: str, limit: int, size: int | None = None) -> Exception:
    from nuif_core import NuifError

    has = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return NuifError.too_large(f"the {what} text {name} is {has}", limit)


def read_input(name: str, limit: int, what: str = "document") -> bytes:
    """The bytes of file ``name`` (``-`` = stdin), refused past ``limit`` without reading it all."""
    if name == STDIO:
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise too_large(what, "on stdin", limit)
        return data
    with open(name, "rb") as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
        except OSError:
            size = 0
        if size > limit:
            raise too_large(what, name, limit, size)
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise too_large(what, name, limit)
    return data


def write_stdout(data: bytes, *, newline_on_tty: bool = False) -> None:
    """Raw bytes to stdout (a newline is added only when a person reads a terminal)."""
    sys.stdout.flush()
    out = sys.stdout.buffer
    out.write(data)
    if newline_on_tty and _isatty(sys.stdout) and not data.endswith(b"\n"):
        out.write(b"\n")
    out.flush()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write_output(name: str, data: bytes, *, newline_on_tty: bool = False) -> None:
    """Write ``data`` to ``name`` (``-`` = stdout) atomically."""
    if name == STDIO:
        write_stdout(data, newline_on_tty=newline_on_tty)
    else:
        atomic_write(name, data)


def atomic_write(path: str, data: bytes, *, keep_mode: bool = True) -> None:
    """Replace ``path`` by ``data`` so that a crash leaves either the old file or the new one.

    The bytes go to a temporary file in the same directory (same file system, so the rename is
    atomic), are flushed and fsync'ed, then ``os.replace`` puts them in place and the directory
    is synced.  On any failure the temporary file is removed and ``path`` is untouched.  A
    symbolic link is followed: its target is replaced and the link stays a link.  An existing
    file keeps its permission bits; a new one gets 0o666 minus the umask.
    """
    import tempfile

    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) if keep_mode else None
    except FileNotFoundError:
        mode = None
    if mode is None:
        mode = 0o666 & ~umask()
    fd, tmp = tempfile.mkstemp(
        prefix="." + os.path.basename(target) + ".", suffix=".nuif-tmp", dir=directory
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(directory)


def fsync_dir(directory: str) -> None:
    """Make a rename durable (best effort: not every platform can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
