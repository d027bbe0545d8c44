"""The work of ``nuif batch``: inputs → tasks (planned by bytes) → records.

This module is what a Dask worker runs, and what ``--serial`` runs in one process: the same
functions, so the two reports are equal record for record.  It imports only the standard library
at the top and ``nuif_core``'s public API inside the functions (a worker needs ``nuif-core`` and
``nuif-cli``, never Dask, to run a task).

Vocabulary
----------
* An **input** is a file (one document), a JSON Lines file (one document per line), a directory
  (its ``*.json``, ``*.jsonl`` and ``*.ndjson`` files, recursively, sorted), or a glob pattern.
  Only regular files are read; anything else (a FIFO, a socket, a device) is reported without
  being opened (:func:`expand`).
* A **task** is what one worker call processes: either ``("files", paths)`` — consecutive
  document files whose sizes add up to at most the partition size (and at most ``MAX_FILES``
  files) — or ``("lines", path, start, end, first)`` — the lines of a JSON Lines file that *start*
  in the byte range ``[start, end)``.  Ranges are cut at fixed byte offsets by the client, which
  never reads the file; the worker moves ``start`` to the next line boundary and reads past
  ``end`` to finish the last line, so every line belongs to exactly one range.
* A **record** is the result for one document.  Workers return compact tuples; the client turns
  them into dicts (:func:`to_dict`) with the input's name and the line number.

Memory per task is bounded by bytes, never by a count of documents: a ``files`` task holds one
document at a time (each at most ``Limits.max_document_bytes``); a ``lines`` task streams its range
and holds one line at a time (a longer line is skipped in 1 MiB steps and reported as
``NUIF_TOO_LARGE``); and a task stops early, returning where to continue, once the records it has
built pass ``max_result_bytes`` — so tiny lines cannot make a result list that grows with the
partition size times a large factor.
"""

from __future__ import annotations

import fnmatch
import functools
import glob
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the code of a record whose input could not be read (or named nothing)
IO_CODE = "NUIF_IO"
#: the default partition size: bytes of input per task
DEFAULT_PARTITION_BYTES = 32 * 1024 * 1024
#: at most this many files per ``files`` task (their records must stay small)
MAX_FILES = 1000
#: the default bound on the records of one task (bytes, estimated); see :func:`run_task`
DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024
#: suffixes read as JSON Lines (and the ones picked from directories)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
DOCUMENT_SUFFIXES = (".json",)
#: when a line is longer than the document limit, the rest of it is skipped in steps this large
SKIP_STEP = 1024 * 1024

# A record, as a worker returns it (one tuple, pickled with its task's others in one list):
#   (index, nbytes, valid, hash, changed, diagnostics, truncated)
# index: position of the file in a ``files`` task, or of the line among the line starts of a
# ``lines`` task; nbytes: size of the document (None when unreadable); valid: None when the input
# could not be read; diagnostics: tuple of (code, message, pointer, line, column).
Record = tuple[int, "int | None", "bool | None", "str | None", "bool | None", tuple[Any, ...], bool]

FIELDS = (
    "source",
    "source_hex",
    "line",
    "bytes",
    "valid",
    "hash",
    "changed",
    "diagnostics",
    "truncated",
)


class VersionMismatch(RuntimeError):
    """A worker runs other versions of nuif-core or nuif-cli than the client."""


@functools.lru_cache(maxsize=1)
def versions() -> tuple[str, str]:
    """(nuif-core version, nuif-cli version) of this process."""
    from importlib import metadata

    import nuif_core

    try:
        cli = metadata.version("nuif-cli")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree on sys.path
        cli = "unknown"
    return nuif_core.__version__, cli


def check_versions(expected: tuple[str, str] | None) -> None:
    if expected is None:
        return
    mine = versions()
    if tuple(expected) != mine:
        import socket

        raise VersionMismatch(
            f"a worker on {socket.gethostname()} (pid {os.getpid()}) runs nuif-core {mine[0]} and "
            f"nuif-cli {mine[1]}, the client nuif-core {expected[0]} and nuif-cli {expected[1]}: "
            "install the same nuif-core and nuif-cli wheels on every worker (docs/scale.md)"
        )


# ---------------------------------------------------------------------------------------------
# one document


def document_record(
    index: int,
    data: bytes,
    limits: Any,
    max_diagnostics: int,
    in_place_path: str | None = None,
    *,
    as_file: bool = False,
    no_newline: bool = False,
    json_text: bool = False,
    catalog: bytes | None = None,
) -> Record:
    """The record of one document's bytes: one ``canonicalize`` call when it is valid (hash and
    ``changed``), and ``validate`` for every diagnostic only when it is not.

    ``as_file``: the bytes are a whole file, canonical also with one final line feed (NUIF-0
    §2.4); a line of JSON Lines or a text is canonical only as the bare text.  With
    ``in_place_path``, a valid document that is not canonical is rewritten there atomically
    (``nuif canonicalize --in-place``'s own write: the canonical text and one line feed, or the
    bare text with ``no_newline``).  A failed write is reported as ``NUIF_IO`` with ``changed``
    true: the document is valid and still not canonical.  ``json_text``: the bytes are any JSON
    text (``--mode json``), valid when they are strict I-JSON, hashed over their RFC 8785 text.
    With ``catalog`` (a catalog's text), a document is valid only when the catalog accepts it
    too: ``validate`` with the catalog runs first, and its diagnostics are the record's when it
    is not.
    """
    from nuif_core import NuifError, canonicalize, validate

    if catalog is not None:
        report = validate(data, limits=limits, max_diagnostics=max_diagnostics, catalog=catalog)
        if not report.valid:
            diags = tuple(
                (d.code, d.message, d.pointer, d.line, d.column) for d in report.diagnostics
            )
            return (index, len(data), False, None, None, diags, report.truncated)

    try:
        result = _json_result(data, limits) if json_text else canonicalize(data, limits=limits)
    except NuifError as err:
        if json_text:  # one error: JSON has no schema to report more against
            diag = (err.code, err.message, err.pointer, err.line, err.column)
            return (index, len(data), False, None, None, (diag,), False)
        report = validate(data, limits=limits, max_diagnostics=max_diagnostics)
        if report.valid:  # pragma: no cover - canonicalize and validate agree (core contract)
            raise
        diags = tuple((d.code, d.message, d.pointer, d.line, d.column) for d in report.diagnostics)
        return (index, len(data), False, None, None, diags, report.truncated)
    changed = result.changed
    if as_file and changed:
        from ._io import is_canonical_file

        changed = not is_canonical_file(data, result.canonical)
    if in_place_path is not None and changed:
        from ._io import atomic_write, canonical_file

        try:
            atomic_write(in_place_path, canonical_file(result.canonical, no_newline))
        except OSError as exc:
            diag = (IO_CODE, f"cannot rewrite the file: {exc.strerror or exc}", None, None, None)
            return (index, len(data), True, result.hash, True, (diag,), False)
    return (index, len(data), True, result.hash, changed, (), False)


@dataclass(frozen=True)
class _JsonResult:
    canonical: bytes
    hash: str
    changed: bool


def _json_result(data: bytes, limits: Any) -> _JsonResult:
    """``canonicalize``'s answer for any JSON text (``nuif_core.canonical_json``)."""
    import hashlib

    from nuif_core import canonical_json

    canonical = canonical_json(data, limits=limits)
    digest = "sha256:" + hashlib.sha256(canonical).hexdigest()
    return _JsonResult(canonical, digest, canonical != data)


def not_regular_message(exc: OSError) -> str:
    """The ``NUIF_IO`` message of an input that is not a regular file (it is never opened)."""
    return f"{exc.strerror}: nuif batch reads regular files only"


def io_record(index: int, exc: OSError | str) -> Record:
    message = exc if isinstance(exc, str) else f"cannot read: {exc.strerror or exc}"
    return (index, None, None, None, None, ((IO_CODE, message, None, None, None),), False)


def too_large_record(index: int, nbytes: int, limit: int, what: str = "document") -> Record:
    """A text past the limit (``what``: ``JSON`` in ``--mode json``, as ``nuif json`` says)."""
    message = f"the {what} text is {nbytes} bytes; the limit is {limit} bytes"
    return (
        index,
        nbytes,
        False,
        None,
        None,
        (("NUIF_TOO_LARGE", message, None, None, None),),
        False,
    )


def _record_bytes(record: Record) -> int:
    """An estimate of what a record costs to keep and to send (for ``max_result_bytes``)."""
    size = 160
    for diag in record[5]:
        size += 96 + len(diag[1]) + len(diag[2] or "")
    return size


# ---------------------------------------------------------------------------------------------
# tasks


@dataclass
class TaskStats:
    """What a task read and held, for the bounded-memory tests and the benchmark."""

    bytes_read: int = 0
    #: the largest piece of input held at once (a document, a line, or a skip step)
    max_held: int = 0
    records: int = 0
    result_bytes: int = 0

    def held(self, n: int) -> None:
        self.bytes_read += n
        if n > self.max_held:
            self.max_held = n

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.bytes_read, self.max_held, self.records, self.result_bytes)


@dataclass
class TaskResult:
    """A task's answer: its records, and for ``lines`` tasks how far it got.

    ``line_starts`` counts every line that starts in the processed part of the range (blank lines
    too: they have no record, but they have a number); ``resume`` is the offset where a follow-up
    task must continue (None when the range is done).
    """

    kind: str
    records: list[Record] = field(default_factory=list)
    line_starts: int = 0
    resume: int | None = None
    stats: tuple[int, int, int, int] = (0, 0, 0, 0)


def run_task(task: tuple[Any, ...], options: dict[str, Any]) -> TaskResult:
    """Run one task (on a worker, or in this process for ``--serial``).

    ``options``: ``limits`` (a ``nuif_core.Limits`` or None), ``max_diagnostics``, ``in_place``
    (rewrite non-canonical files; never JSON Lines), ``versions`` (the client's, checked first),
    ``max_result_bytes``, ``catalog`` (a catalog's text, or None).
    """
    check_versions(options.get("versions"))
    from nuif_core import Limits

    limits = options.get("limits") or Limits.DEFAULT
    max_diagnostics = options.get("max_diagnostics", 100)
    catalog = options.get("catalog")
    stats = TaskStats()
    if task[0] == "files":
        records = [
            _file_record(i, path, limits, max_diagnostics, options, stats)
            for i, path in enumerate(task[1])
        ]
        stats.records = len(records)
        return TaskResult("files", records, stats=stats.as_tuple())
    if task[0] == "missing":
        return TaskResult("files", [io_record(0, task[2])], stats=stats.as_tuple())
    if task[0] == "lines":
        _, path, start, end, first = task
        budget = options.get("max_result_bytes", DEFAULT_MAX_RESULT_BYTES)
        result = _run_lines(
            path,
            start,
            end,
            first,
            limits,
            max_diagnostics,
            budget,
            stats,
            bool(options.get("json_text")),
            catalog,
        )
        result.stats = stats.as_tuple()
        return result
    raise ValueError(f"unknown task kind {task[0]!r}")


def _file_record(
    index: int,
    path: str,
    limits: Any,
    max_diagnostics: int,
    options: dict[str, Any],
    stats: TaskStats,
) -> Record:
    from nuif_core import NuifError

    from ._io import NotRegularFile, read_regular

    try:
        what = "JSON" if options.get("json_text") else "document"
        data = read_regular(path, limits.max_document_bytes, what)
    except NotRegularFile as exc:  # swapped for a FIFO, a device… after planning: not opened
        return io_record(index, not_regular_message(exc))
    except OSError as exc:
        return io_record(index, exc)
    except NuifError as err:  # larger than the limit, refused before reading it whole
        size = _size(path)
        if size is not None and size <= limits.max_document_bytes:
            size = None  # it grew while being read: its size is not known
        return (index, size, False, None, None, ((err.code, err.message, None, None, None),), False)
    stats.held(len(data))
    return document_record(
        index,
        data,
        limits,
        max_diagnostics,
        path if options.get("in_place") else None,
        as_file=True,
        no_newline=bool(options.get("no_newline")),
        json_text=bool(options.get("json_text")),
        catalog=options.get("catalog"),
    )


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _run_lines(
    path: str,
    start: int,
    end: int,
    first: bool,
    limits: Any,
    max_diagnostics: int,
    budget: int,
    stats: TaskStats,
    json_text: bool = False,
    catalog: bytes | None = None,
) -> TaskResult:
    """The lines of ``path`` that start in ``[start, end)``, streamed one at a time."""
    from ._io import NotRegularFile, open_regular

    result = TaskResult("lines")
    limit = limits.max_document_bytes
    what = "JSON" if json_text else "document"
    try:
        fh = open_regular(path)
    except OSError as exc:
        # reported once, by the task of the file's first range
        if first:
            reason = not_regular_message(exc) if isinstance(exc, NotRegularFile) else exc
            result.records.append(io_record(0, reason))
        return result
    index = 0
    with fh:
        try:
            pos = _align(fh, start, stats)
            used = 0
            while pos < end:
                line = fh.readline(limit + 2)  # the text, a "\r\n" ending, and one byte more
                if not line:
                    break
                line_start = pos
                pos += len(line)
                stats.held(len(line))
                if not line.endswith(b"\n") and len(line) > limit:
                    # longer than any document may be: skip the rest without holding it
                    while not line.endswith(b"\n"):
                        line = fh.readline(SKIP_STEP)
                        if not line:
                            break
                        pos += len(line)
                        stats.held(len(line))
                    record = too_large_record(index, pos - line_start - _eol(line), limit, what)
                else:
                    text = line[: len(line) - _eol(line)]
                    if not text.strip(b" \t\r"):
                        index += 1  # a blank line: numbered, no record
                        continue
                    if len(text) > limit:
                        record = too_large_record(index, len(text), limit, what)
                    else:
                        record = document_record(
                            index,
                            text,
                            limits,
                            max_diagnostics,
                            json_text=json_text,
                            catalog=catalog,
                        )
                result.records.append(record)
                index += 1
                used += _record_bytes(record)
                if used >= budget and pos < end:
                    result.resume = pos
                    break
            result.line_starts = index
        except OSError as exc:
            # an I/O error in the middle of a file: reported once, as a record of the next line
            result.records.append(io_record(index, exc))
            result.line_starts = index + 1
            result.resume = None
    stats.records = len(result.records)
    stats.result_bytes = sum(_record_bytes(r) for r in result.records)
    return result


def _eol(line: bytes) -> int:
    if line.endswith(b"\r\n"):
        return 2
    return 1 if line.endswith(b"\n") else 0


def _align(fh: Any, start: int, stats: TaskStats) -> int:
    """Seek to the first line that starts at or after ``start``; return its offset."""
    if start == 0:
        return 0
    fh.seek(start - 1)
    previous = fh.read(1)
    stats.held(len(previous))
    if previous == b"\n" or not previous:
        return start
    pos = start
    while True:  # the rest of a line that began in the previous range
        chunk = fh.readline(SKIP_STEP)
        pos += len(chunk)
        stats.held(len(chunk))
        if not chunk or chunk.endswith(b"\n"):
            return pos


# ---------------------------------------------------------------------------------------------
# planning (on the client: names and sizes only, never the contents)


@dataclass(frozen=True)
class Input:
    """One thing to read: a document file, a JSON Lines file, or a name reported without being
    read (``"missing"``: it matched nothing, or is not a regular file; ``message`` says which)."""

    path: str
    kind: str  # "file", "lines" or "missing"
    size: int = 0
    message: str = ""


def expand(args: Sequence[str], *, jsonl: bool = False) -> Iterator[Input]:
    """The inputs named by the command line, in order (directories and globs sorted).

    Only regular files are read: a FIFO, a socket or a device, named or found, becomes a
    ``"missing"`` input (a ``NUIF_IO`` record) and is never opened.  Directory walks and the
    ``**`` of a glob do not follow symbolic links to directories, and within one argument (a
    directory or a pattern) a file reached through several names is reported once, under the
    first name in sorted order.
    """
    for arg in args:
        if os.path.isdir(arg):
            yield from _once(_walk(arg), jsonl)
        elif glob.has_magic(arg) and not os.path.lexists(arg):
            matches = glob_paths(arg)
            if not matches:
                yield Input(arg, "missing", message=f"no file matches the pattern {arg!r}")
            paths: list[str] = []
            for match in matches:
                if os.path.isdir(match):
                    paths.extend(_walk(match))
                else:
                    paths.append(match)
            yield from _once(paths, jsonl)
        else:
            yield _file(arg, jsonl)[0]


def _file(path: str, jsonl: bool) -> tuple[Input, tuple[int, int] | None]:
    """The input for ``path`` (stat only, never opened) and its identity (device, inode)."""
    kind = "lines" if jsonl or path.lower().endswith(JSONL_SUFFIXES) else "file"
    try:
        st = os.stat(path)
    except OSError:
        # the worker tries to read it and reports why it cannot
        return Input(path, "file", 0), None
    if not stat.S_ISREG(st.st_mode):
        from ._io import NotRegularFile

        message = not_regular_message(NotRegularFile(path, st.st_mode))
        return Input(path, "missing", message=message), None
    return Input(path, kind, st.st_size), (st.st_dev, st.st_ino)


def _once(paths: Iterable[str], jsonl: bool) -> Iterator[Input]:
    """The inputs of ``paths``, each real file once (the first of its names)."""
    seen: set[tuple[int, int]] = set()
    for path in paths:
        item, identity = _file(path, jsonl)
        if identity is not None:
            if identity in seen:
                continue
            seen.add(identity)
        yield item


def _walk(directory: str) -> list[str]:
    """Files ending in .json, .jsonl or .ndjson under ``directory``, sorted by path; names
    starting with a dot (hidden files, the ``.nuif-tmp`` files of a killed rewrite) are skipped,
    and symbolic links to directories are not followed."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue
            if name.lower().endswith(DOCUMENT_SUFFIXES + JSONL_SUFFIXES):
                found.append(os.path.join(root, name))
    return sorted(found)


def glob_paths(pattern: str) -> list[str]:
    """The names ``pattern`` matches, sorted: ``glob.glob(pattern, recursive=True)``, except that
    ``**`` never descends into a symbolic link to a directory (so a link loop such as
    ``ln -s . loop`` cannot make the expansion grow without end).

    As in :mod:`glob`: ``*``, ``?`` and ``[…]`` match within one name; ``**`` alone in a segment
    matches zero or more directories (and, last, every name below); names starting with a dot
    are matched only by a segment that starts with a dot.
    """
    drive, rest = os.path.splitdrive(pattern)
    seps = os.sep + (os.altsep or "")
    root = ""
    while rest[:1] and rest[0] in seps:
        root, rest = root + rest[0], rest[1:]
    segments = re.split("[" + re.escape(seps) + "]", rest) if rest else []
    found: set[str] = set()
    _match(drive + root, segments, found)
    return sorted(found)


def _join(base: str, name: str) -> str:
    return os.path.join(base, name) if base else name


def _names(base: str) -> list[tuple[str, bool]]:
    """(name, is a directory not through a link) of the entries of ``base``; [] if unreadable."""
    try:
        with os.scandir(base or os.curdir) as it:
            out = []
            for entry in it:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                out.append((entry.name, is_dir))
            return out
    except OSError:
        return []


def _below(base: str) -> Iterator[str]:
    """Every directory under ``base`` (not itself), not through symbolic links, no dot-names."""
    stack = [base]
    while stack:
        current = stack.pop()
        for name, is_dir in _names(current):
            if is_dir and not name.startswith("."):
                path = _join(current, name)
                yield path
                stack.append(path)


def _match(base: str, segments: list[str], found: set[str]) -> None:
    if not segments:
        found.add(base)
        return
    segment, rest = segments[0], segments[1:]
    if segment == "**":
        while rest[:1] == ["**"]:
            rest = rest[1:]
        if not rest:  # a final **: the directory itself and every name below it
            if base:
                found.add(_join(base, ""))
            for directory in [base, *_below(base)]:
                for name, _ in _names(directory):
                    if not name.startswith("."):
                        found.add(_join(directory, name))
            return
        for directory in [base, *_below(base)]:
            _match(directory, rest, found)
        return
    if not rest and segment == "":  # a pattern ending with a separator: directories only
        if os.path.isdir(base or os.curdir):
            found.add(_join(base, ""))
        return
    if not glob.has_magic(segment):
        path = _join(base, segment)
        if rest:
            if os.path.isdir(path):
                _match(path, rest, found)
        elif os.path.lexists(path):
            found.add(path)
        return
    hidden = segment.startswith(".")
    for name, _ in _names(base):
        if name.startswith(".") and not hidden:
            continue
        if not fnmatch.fnmatch(name, segment):
            continue
        path = _join(base, name)
        if rest:
            if os.path.isdir(path):  # one level through a link is bounded by the pattern
                _match(path, rest, found)
        else:
            found.add(path)


def plan(
    inputs: Iterator[Input] | Sequence[Input],
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    max_files: int = MAX_FILES,
) -> Iterator[tuple[Any, ...]]:
    """Tasks in report order: consecutive files grouped by size, JSON Lines cut into ranges.

    A ``files`` task holds files whose sizes add up to at most ``partition_bytes`` (a larger file
    has a task of its own); a JSON Lines file of N bytes becomes ceil(N / partition_bytes) ranges.
    """
    if partition_bytes < 1:
        raise ValueError("partition_bytes must be at least 1")
    group: list[str] = []
    group_bytes = 0
    for item in inputs:
        if item.kind == "file":
            if group and (group_bytes + item.size > partition_bytes or len(group) >= max_files):
                yield ("files", group)
                group, group_bytes = [], 0
            group.append(item.path)
            group_bytes += item.size
            continue
        if group:
            yield ("files", group)
            group, group_bytes = [], 0
        if item.kind == "missing":
            yield ("missing", item.path, item.message)
            continue
        # JSON Lines: fixed byte ranges (an empty file still gets one task, which finds no line)
        start = 0
        while True:
            end = min(item.size, start + partition_bytes)
            yield ("lines", item.path, start, end, start == 0)
            start = end
            if start >= item.size:
                break
    if group:
        yield ("files", group)


def task_bytes(task: tuple[Any, ...]) -> int:
    """The bytes of input a task was planned with (for the progress bar)."""
    if task[0] == "lines":
        return int(task[3] - task[2])
    return 0


# ---------------------------------------------------------------------------------------------
# records for the report


def source_fields(path: str) -> tuple[str, str | None]:
    """(``source``, ``source_hex``) of a path in the report, which is UTF-8 text.

    A name that is valid UTF-8 is itself, with ``source_hex`` None.  A name that is not (on
    POSIX, Python keeps its undecodable bytes as lone surrogates) is shown with each such byte as
    ``\\xNN``, and ``source_hex`` holds the name's exact bytes in hexadecimal.
    """
    try:
        path.encode("utf-8")
        return path, None
    except UnicodeEncodeError:
        pass
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # pragma: no cover - a name that is no file system's name
        raw = path.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace"), raw.hex()


def _text(message: str) -> str:
    """A message as UTF-8 text (it may quote a file name that is not)."""
    try:
        message.encode("utf-8")
        return message
    except UnicodeEncodeError:
        return source_fields(message)[0]


def to_dict(source: str, line: int | None, record: Record) -> dict[str, Any]:
    """A worker's tuple as the report's record (the JSON Lines object and the Parquet row)."""
    _, nbytes, valid, digest, changed, diags, truncated = record
    shown, raw = source_fields(source)
    return {
        "source": shown,
        "source_hex": raw,
        "line": line,
        "bytes": nbytes,
        "valid": valid,
        "hash": digest,
        "changed": changed,
        "diagnostics": [
            {"code": c, "message": _text(m), "pointer": p, "line": ln, "column": col}
            for c, m, p, ln, col in diags
        ],
        "truncated": truncated,
    }


def records_of(
    task: tuple[Any, ...], result: TaskResult, line_base: int
) -> Iterator[dict[str, Any]]:
    """The report records of one task's result; ``line_base`` = lines of the file before it."""
    if task[0] == "files":
        for record in result.records:
            yield to_dict(task[1][record[0]], None, record)
    elif task[0] == "missing":
        for record in result.records:
            yield to_dict(task[1], None, record)
    else:
        path = task[1]
        for record in result.records:
            is_file_error = record[2] is None and result.line_starts == 0
            yield to_dict(path, None if is_file_error else line_base + record[0] + 1, record)
