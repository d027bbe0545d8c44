"""File input and output for the CLI: bounded reads, ``-`` for stdin/stdout, safe writes.

Outputs (:class:`Output`): a regular file, or a name that does not exist yet, is replaced
atomically (temporary file beside it, fsync, rename); anything else that exists is written into
and never replaced — one of this process's descriptors named as a path (``/dev/stdout``,
``/dev/fd/N``) is written through that descriptor, as a shell redirection would be, and a
character device, a FIFO or a socket is opened for writing without truncation; a directory is
refused.  Every failure is an :class:`OutputError` naming the path the user gave.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from typing import IO, Any

STDIO = "-"

_UMASK: int | None = None


class UsageError(Exception):
    """A command line that cannot be carried out as given (exit status 2)."""


class OutputError(OSError):
    """An output that cannot be written: ``nuif: NUIF_IO: cannot write PATH: reason`` (exit 2).

    ``filename`` is the path as the user gave it, never a temporary name.
    """

    def __init__(self, err: int | None, reason: str, path: str, what: str = "") -> None:
        super().__init__(err, reason, path)
        self.what = what

    def __str__(self) -> str:
        from ._diag import quoted

        what = f"{self.what} " if self.what else ""
        return f"cannot write {what}{quoted(self.filename)}: {self.strerror}"


class NotRegularFile(OSError):
    """A path that a reader of regular files only (``nuif batch``) refuses without opening it."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({file_kind(mode)})", path)


def file_kind(mode: int) -> str:
    """``a FIFO``, ``a socket``, ``a directory``… (the kind of file a mode says)."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISREG, "a regular file"),
    ):
        if test(mode):
            return name
    return "a special file"


def umask() -> int:
    """The process umask (read once; the CLI is single-threaded when it asks)."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def too_large(what: str, name: str, limit: int, size: int | None = None) -> Exception:
    from nuif_core import NuifError

    from ._diag import quoted

    has = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return NuifError.too_large(f"the {what} text {quoted(name)} is {has}", limit)


def read_input(name: str, limit: int, what: str = "document") -> bytes:
    """The bytes of file ``name`` (``-`` = stdin), refused past ``limit`` without reading it all.

    Any file that can be read is read, pipes and devices included (``nuif validate <(…)``); the
    size is taken from the file system for regular files only (a device reports 0).
    """
    if name == STDIO:
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise too_large(what, "on stdin", limit)
        return data
    with open(name, "rb") as fh:
        return _read_bounded(fh, name, limit, what)


def read_regular(name: str, limit: int, what: str = "document") -> bytes:
    """Like :func:`read_input` for a regular file only: anything else raises
    :class:`NotRegularFile` without being opened (``nuif batch``: a FIFO would block, a device
    never ends)."""
    with open_regular(name) as fh:
        return _read_bounded(fh, name, limit, what)


def open_regular(name: str) -> IO[bytes]:
    """``open(name, "rb")`` for a regular file; :class:`NotRegularFile` for anything else.

    The path is checked before it is opened, and the open itself never blocks (``O_NONBLOCK``,
    then checked again on the descriptor): a file replaced by a FIFO in between is refused too.
    """
    st = os.stat(name)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(name, st.st_mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(name, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(name, st.st_mode)
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_bounded(fh: IO[bytes], name: str, limit: int, what: str) -> bytes:
    try:
        st = os.fstat(fh.fileno())
    except OSError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise too_large(what, name, limit, st.st_size)
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise too_large(what, name, limit)
    return data


#: what ends a written canonical text unless --no-newline (NUIF-0 §2.4)
FINAL_NEWLINE = b"\n"


def is_canonical_file(data: bytes, canonical: bytes) -> bool:
    """Whether a file's bytes are canonical (NUIF-0 §2.4): the canonical text itself, or the
    canonical text followed by exactly one line feed."""
    n = len(canonical)
    if len(data) == n:
        return data == canonical
    return len(data) == n + 1 and data.endswith(FINAL_NEWLINE) and data.startswith(canonical)


def canonical_file(canonical: bytes, no_newline: bool = False) -> bytes:
    """The bytes written for a canonical text: the text and one line feed, or the bare text."""
    return canonical if no_newline else canonical + FINAL_NEWLINE


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
    """Write ``data`` to ``name`` (``-`` = stdout; otherwise :func:`write_file`)."""
    if name == STDIO:
        write_stdout(data, newline_on_tty=newline_on_tty)
    else:
        write_file(name, data)


def write_file(path: str, data: bytes, *, what: str = "") -> None:
    """Write ``data`` to the output ``path`` (:class:`Output`: a regular file is replaced
    atomically, a device, FIFO or ``/dev/stdout`` is written into)."""
    _write_whole(Output(path, what=what), data)


def atomic_write(path: str, data: bytes, *, keep_mode: bool = True) -> None:
    """Replace ``path`` by ``data`` so that a crash leaves either the old file or the new one.

    The bytes go to a temporary file in the same directory (same file system, so the rename is
    atomic), are flushed and fsync'ed, then ``os.replace`` puts them in place and the directory
    is synced.  On any failure the temporary file is removed and ``path`` is untouched.  A
    symbolic link is followed: its target is replaced and the link stays a link.  An existing
    file keeps its permission bits; a new one gets 0o666 minus the umask.  (For rewriting
    regular files in place; an output named by the user goes through :func:`write_file`.)
    """
    _write_whole(Output(path, keep_mode=keep_mode, replace=True), data)


def _write_whole(out: Output, data: bytes) -> None:
    """All of ``data`` to ``out``, committed; on any failure nothing is left behind."""
    try:
        out.write(data)
    except BaseException:
        out.abort()
        raise
    out.commit()


# ---------------------------------------------------------------------------------------------
# outputs

_FD_PATH = re.compile(r"/proc/(?P<pid>self|\d+)/fd/(?P<fd>\d+)|/dev/fd/(?P<devfd>\d+)")


def descriptor_path(path: str) -> int | None:
    """The descriptor number when ``path`` names one of this process's open descriptors:
    ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N`` (or a link to one)."""
    if os.name != "posix":
        return None
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own bound on symbolic links followed
        head, tail = os.path.split(current)
        head = os.path.realpath(head)  # /dev/fd -> /proc/self/fd -> /proc/PID/fd
        current = os.path.join(head, tail)
        m = _FD_PATH.fullmatch(current)
        if m:
            pid = m.group("pid")
            if pid is not None and pid != "self" and int(pid) != os.getpid():
                return None
            return int(m.group("fd") or m.group("devfd"))
        try:
            link = os.readlink(current)
        except OSError:  # not a link (or nothing there): a path like any other
            return None
        current = os.path.normpath(os.path.join(head, link))
    return None


def _output_key(name: str) -> tuple[Any, ...]:
    """What an output name writes to: an existing file (stdout for ``-``, the descriptor of
    ``/dev/stdout`` or ``/dev/fd/N``, whatever the path names after its links) by device and
    inode; a name that does not exist yet by its resolved path."""
    if name == STDIO:
        try:
            fd: int | None = sys.stdout.fileno()
        except (AttributeError, ValueError, OSError):  # a stdout with no descriptor (tests)
            return ("stdout",)
    else:
        fd = descriptor_path(name)
    try:
        st = os.fstat(fd) if fd is not None else os.stat(name)
    except (OSError, ValueError):
        if fd is not None:
            return ("descriptor", fd)
        return ("path", os.path.normcase(os.path.realpath(name)))
    return ("file", st.st_dev, st.st_ino)


def check_outputs(*outputs: tuple[str, str | None]) -> None:
    """Refuse (:class:`UsageError`) two output options that name one file: the second would
    replace the first, or be written into the same stream.  ``outputs`` are ``(option, name)``
    pairs; a name of None is an option not given.  Two spellings of one file are one file
    (``X`` and ``./d/../X``, a symbolic link and its target, ``-`` and ``/dev/stdout``, a hard
    link)."""
    seen: dict[tuple[Any, ...], tuple[str, str]] = {}
    for option, name in outputs:
        if name is None:
            continue
        key = _output_key(name)
        if key in seen:
            from ._diag import quoted

            first, first_name = seen[key]
            raise UsageError(
                f"{first} {quoted(first_name)} and {option} {quoted(name)} are the same file: "
                "give each output its own"
            )
        seen[key] = (option, name)


class Output:
    """A binary output for the path the user gave, made visible by :meth:`commit` or dropped by
    :meth:`abort`.

    * one of this process's descriptors named as a path (``/dev/stdout``, ``/dev/fd/N``): the
      bytes go through that descriptor (its offset and its append mode, like a shell redirection:
      ``-o /dev/stdout >> log`` appends);
    * an existing path that is neither a regular file nor a directory (a character device, a
      FIFO, a socket): opened for writing, without truncating, creating or replacing it (a FIFO
      waits for a reader, as ``echo > fifo`` does);
    * a directory: refused (``EISDIR``);
    * a regular file or a new name (a symbolic link is followed): a temporary file beside the
      target, flushed and fsync'ed, renamed over it by :meth:`commit`, the directory synced; the
      file keeps its permission bits (``keep_mode``) or gets 0o666 minus the umask.

    ``replace=True`` always takes the last route (``--in-place`` rewrites).  Every failure is an
    :class:`OutputError` naming ``path``; a reader that went away stays a ``BrokenPipeError``.
    """

    def __init__(
        self, path: str, *, keep_mode: bool = True, replace: bool = False, what: str = ""
    ) -> None:
        self.path = path
        self.what = what
        self.tmp: str | None = None
        self.target: str | None = None
        self.fh: Any = None
        self.guard(self._open, keep_mode, replace)

    def _error(self, exc: OSError) -> OutputError:
        return OutputError(exc.errno, exc.strerror or str(exc), self.path, self.what)

    def guard(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)``, an OSError raised as this output's :class:`OutputError` (except
        ``BrokenPipeError``: the reader went away, which the CLI ends quietly)."""
        try:
            return fn(*args)
        except (BrokenPipeError, OutputError):
            raise
        except OSError as exc:
            raise self._error(exc) from None

    def _open(self, keep_mode: bool, replace: bool) -> None:
        path = self.path
        if not replace:
            fd = descriptor_path(path)
            if fd is not None:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except (AttributeError, ValueError, OSError):
                        pass
                self.fh = os.fdopen(os.dup(fd), "wb")
                return
            try:
                st: os.stat_result | None = os.stat(path)
            except FileNotFoundError:
                st = None
            if st is not None and stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            if st is not None and not stat.S_ISREG(st.st_mode):
                flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
                self.fh = os.fdopen(os.open(path, flags), "wb")
                return
        import tempfile

        target = os.path.realpath(path)
        mode = None
        if keep_mode:
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                pass
        self.mode = 0o666 & ~umask() if mode is None else mode
        directory = os.path.dirname(target) or "."
        fd, self.tmp = tempfile.mkstemp(
            prefix="." + temporary_stem(os.path.basename(target), directory) + ".",
            suffix=TEMPORARY_SUFFIX,
            dir=directory,
        )
        self.target = target
        self.fh = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self.guard(self.fh.write, data)

    def commit(self) -> None:
        """Make the bytes visible: flush, and for a regular file fsync, rename, sync the directory.
        On a failure the temporary file is removed and the old file is intact."""
        try:
            self.guard(self._commit)
        except BaseException:
            self.abort()
            raise

    def _commit(self) -> None:
        fh = self.fh
        fh.flush()
        if self.tmp is None:
            fh.close()
            return
        os.fsync(fh.fileno())
        fh.close()
        assert self.target is not None  # a temporary file is made only beside a named target
        os.chmod(self.tmp, self.mode)
        os.replace(self.tmp, self.target)
        self.tmp = None
        fsync_dir(os.path.dirname(self.target) or ".")

    def abort(self) -> None:
        """Drop the output: the temporary file is removed (bytes already written into a device,
        a FIFO or a descriptor stay written)."""
        try:
            self.fh.close()
        except (OSError, ValueError):
            pass
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass
            self.tmp = None


#: the end of every temporary file name (``.NAME.XXXXXXXX.nuif-tmp``)
TEMPORARY_SUFFIX = ".nuif-tmp"
#: what a temporary name adds to the stem: the leading and middle dots, mkstemp's 8 random
#: characters, the suffix
_TEMPORARY_EXTRA = 2 + 8 + len(TEMPORARY_SUFFIX)
#: NAME_MAX where the file system does not say (Linux, macOS, the BSDs, Windows: 255)
_NAME_MAX = 255


def name_max(directory: str) -> int:
    """The longest file name ``directory`` takes, in bytes (``pathconf``; 255 when unknown)."""
    try:
        n = os.pathconf(directory, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return _NAME_MAX
    return n if isinstance(n, int) and n > 0 else _NAME_MAX


def temporary_stem(name: str, directory: str) -> str:
    """``name`` cut, at a character boundary, so that ``.STEM.XXXXXXXX.nuif-tmp`` fits in the
    directory's NAME_MAX: a temporary file beside a target of any valid name can be made (the
    whole name when it fits, which is every name up to NAME_MAX - 19 bytes)."""
    room = max(0, name_max(directory) - _TEMPORARY_EXTRA)
    if len(name) <= room // 4:  # fits whatever its characters (UTF-8: at most 4 bytes each)
        return name
    size = len(_fs_bytes(name))
    while size > room:  # drop whole characters (a cut one would not be UTF-8: macOS refuses it)
        size -= len(_fs_bytes(name[-1]))
        name = name[:-1]
    return name


def _fs_bytes(name: str) -> bytes:
    try:
        return os.fsencode(name)
    except UnicodeEncodeError:  # pragma: no cover - a name no file system gives
        return name.encode("utf-8", "surrogatepass")


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
