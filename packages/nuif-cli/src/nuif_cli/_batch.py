"""Batches of files: the per-file work, a process pool for ``--jobs``, and a progress bar.

The per-file functions run in worker processes, so they are top-level, import the core lazily,
and return plain tuples ``(status, stdout_lines, stderr_lines, changed)``: status 0 is ok, 1 is
an invalid document or a failed check, 2 is a file that could not be read or written.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ._diag import error_line, quoted, shown
from ._diag import line as diagnostic_line
from ._io import (
    STDIO,
    NotRegularFile,
    atomic_write,
    canonical_file,
    is_canonical_file,
    read_input,
    read_regular,
)

Result = tuple[int, list[str], list[str], bool]

#: batches at least this long use every CPU when --jobs is not given
AUTO_JOBS_THRESHOLD = 256
#: at most this many files per task sent to a worker
MAX_CHUNK = 512


def _io_error(name: str, exc: OSError) -> Result:
    reason = exc.strerror or str(exc)
    if isinstance(exc, NotRegularFile):
        reason += "; --in-place rewrites regular files only"
    return 2, [], [f"nuif: {shown(name)}: {reason}"], False


def _invalid(name: str, err: Any, data: bytes | None = None) -> Result:
    """An invalid input: its ``FILE:LINE:COL: CODE message`` line on stderr (status 1)."""
    return 1, [], [error_line(name, err, data)], False


def _limits(options: dict[str, Any]) -> Any:
    from nuif_core import Limits

    return options.get("limits") or Limits.DEFAULT


def do_validate(name: str, options: dict[str, Any]) -> Result:
    from nuif_core import NuifError, validate

    limits = _limits(options)
    try:
        data = read_input(name, limits.max_document_bytes)
    except OSError as exc:
        return _io_error(name, exc)
    except NuifError as err:
        return 1, [error_line(name, err)], [], False
    report = validate(
        data,
        limits=limits,
        max_diagnostics=options["max_diagnostics"],
        catalog=options.get("catalog"),
    )
    if report.valid:
        return (
            0,
            [f"{shown(name)}: ok {report.hash}"] if options.get("verbose_ok") else [],
            [],
            False,
        )
    lines = [
        diagnostic_line(name, d.code, d.message, d.pointer, d.line, d.column)
        for d in report.diagnostics
    ]
    if report.truncated:
        lines.append(f"{shown(name)}: more diagnostics not shown (--max-diagnostics)")
    return 1, lines, [], False


def _what(options: dict[str, Any]) -> str:
    """What an input is called in a message: ``the JSON text …`` for ``nuif json`` (any JSON,
    not a NUIF document), ``the document text …`` otherwise."""
    return "JSON" if options.get("json_text") else "document"


def _canonical_of(data: bytes, options: dict[str, Any]) -> bytes:
    """The canonical text of ``data``: of a NUIF document, or with ``options["json_text"]`` of
    any strict I-JSON text (``nuif json``)."""
    limits = _limits(options)
    if options.get("json_text"):
        from nuif_core import canonical_json

        return canonical_json(data, limits=limits)
    from nuif_core import canonicalize

    return canonicalize(data, limits=limits).canonical


def _hash_of(data: bytes, options: dict[str, Any]) -> str:
    """``sha256:`` + the SHA-256 of the canonical text (never of the file's bytes)."""
    if options.get("json_text"):
        import hashlib

        return "sha256:" + hashlib.sha256(_canonical_of(data, options)).hexdigest()
    from nuif_core import document_hash

    return document_hash(data, limits=_limits(options))


# ---------------------------------------------------------------------------------------------
# --json: one object per file, {"file", "valid", "hash", "canonical", "error", …}


def _record(name: str) -> dict[str, Any]:
    return {"file": name, "valid": None, "hash": None, "canonical": None, "error": None}


def _error_dict(err: Any, data: bytes | None) -> dict[str, Any]:
    """The error as JSON, placed by its pointer when it has no line (as :func:`error_line`)."""
    from ._diag import pointer_position

    out: dict[str, Any] = err.to_dict()
    if out["line"] is None:
        found = pointer_position(data, err.pointer)
        if found is not None:
            out["line"], out["column"] = found
    return out


def _cli_error(code: str, message: str) -> dict[str, Any]:
    """An error of the CLI's own (``NUIF_IO``: not nuif-core's) in the shape of every error."""
    return {"code": code, "message": message, "pointer": None, "line": None, "column": None}


def _io_dict(exc: OSError) -> dict[str, Any]:
    return _cli_error("NUIF_IO", f"cannot read: {exc.strerror or exc}")


def _json_line(record: dict[str, Any]) -> str:
    import json

    return json.dumps(record, ensure_ascii=False)


def _file_report(
    name: str, options: dict[str, Any], *, regular: bool = False
) -> tuple[int, dict[str, Any], bytes | None, bytes | None]:
    """Read and canonicalize one file for a --json report: (status, record, data, canonical)."""
    from nuif_core import NuifError

    record = _record(name)
    limits = _limits(options)
    try:
        read = read_regular if regular else read_input
        data = read(name, limits.max_document_bytes, _what(options))
    except OSError as exc:
        record["error"] = _io_dict(exc)
        return 2, record, None, None
    except NuifError as err:
        record["valid"], record["error"] = False, _error_dict(err, None)
        return 1, record, None, None
    try:
        canonical = _canonical_of(data, options)
    except NuifError as err:
        record["valid"], record["error"] = False, _error_dict(err, data)
        return 1, record, data, None
    import hashlib

    record["valid"] = True
    record["hash"] = "sha256:" + hashlib.sha256(canonical).hexdigest()
    record["canonical"] = is_canonical_file(data, canonical)
    return 0, record, data, canonical


# ---------------------------------------------------------------------------------------------
# the operations


def do_check(name: str, options: dict[str, Any]) -> Result:
    """canonicalize --check: list the file when it is not canonical (NUIF-0 §2.4: the canonical
    text, with or without one final line feed)."""
    from nuif_core import NuifError

    if options.get("report"):
        status, record, _, _ = _file_report(name, options)
        not_canonical = record["canonical"] is False
        return max(status, int(not_canonical)), [_json_line(record)], [], not_canonical
    limits = _limits(options)
    try:
        data = read_input(name, limits.max_document_bytes, _what(options))
        canonical = is_canonical_file(data, _canonical_of(data, options))
    except OSError as exc:
        return _io_error(name, exc)
    except NuifError as err:
        return _invalid(name, err)
    return (0, [], [], False) if canonical else (1, [quoted(name)], [], True)


def do_in_place(name: str, options: dict[str, Any]) -> Result:
    """canonicalize --in-place: replace the file atomically when it is not canonical, by the
    canonical text and one line feed (the bare text with ``no_newline``)."""
    from nuif_core import NuifError

    if options.get("report"):
        status, record, _, canonical = _file_report(name, options, regular=True)
        record["rewritten"] = False
        if canonical is not None and not record["canonical"]:
            try:
                atomic_write(name, canonical_file(canonical, bool(options.get("no_newline"))))
            except OSError as exc:
                reason = f"cannot rewrite the file: {exc.strerror or exc}"
                record["error"] = _cli_error("NUIF_IO", reason)
                return 2, [_json_line(record)], [], False
            record["rewritten"] = True
        return status, [_json_line(record)], [], record["rewritten"]
    limits = _limits(options)
    try:
        data = read_regular(name, limits.max_document_bytes, _what(options))
        canonical = _canonical_of(data, options)
        changed = not is_canonical_file(data, canonical)
        if changed:
            atomic_write(name, canonical_file(canonical, bool(options.get("no_newline"))))
    except OSError as exc:
        return _io_error(name, exc)
    except NuifError as err:
        return _invalid(name, err)
    return 0, [], [], changed


def do_canonical_text(name: str, options: dict[str, Any]) -> Result:
    """canonicalize --json (one file): the record with the canonical text as ``text``."""
    status, record, _, canonical = _file_report(name, options)
    record["text"] = None if canonical is None else canonical.decode("utf-8")
    return status, [_json_line(record)], [], False


def do_hash(name: str, options: dict[str, Any]) -> Result:
    from nuif_core import NuifError

    if options.get("report"):
        status, record, _, _ = _file_report(name, options)
        return status, [_json_line(record)], [], False
    limits = _limits(options)
    try:
        data = read_input(name, limits.max_document_bytes, _what(options))
        digest = _hash_of(data, options)
    except OSError as exc:
        return _io_error(name, exc)
    except NuifError as err:
        return _invalid(name, err)
    return 0, [hash_line(digest, name)], [], False


def hash_line(digest: str, name: str) -> str:
    """``sha256:<hex>  FILE``; a FILE that :func:`quoted` escapes makes the line start with the
    backslash instead (GNU sha256sum's form: ``\\sha256:<hex>  a\\nb.json``)."""
    shown_name = quoted(name)
    if shown_name != name:  # the escaped form: a backslash, then the escaped bytes
        return f"\\{digest}  {shown_name[1:]}"
    return f"{digest}  {name}"


def do_hash_check(item: tuple[str, str], options: dict[str, Any]) -> Result:
    """hash --check: one ``(expected, file)`` line of a list."""
    from nuif_core import NuifError

    expected, name = item
    if options.get("report"):
        _, record, _, _ = _file_report(name, options)
        record["expected"] = expected
        record["ok"] = record["hash"] == expected
        return (0 if record["ok"] else 1), [_json_line(record)], [], False
    limits = _limits(options)
    try:
        data = read_input(name, limits.max_document_bytes, _what(options))
        digest = _hash_of(data, options)
    except OSError as exc:
        return (
            1,
            [f"{quoted(name)}: FAILED open or read"],
            [f"nuif: {shown(name)}: {exc.strerror or exc}"],
            False,
        )
    except NuifError as err:
        return 1, [f"{quoted(name)}: FAILED {err.code}"], [error_line(name, err)], False
    if digest == expected:
        return 0, [] if options.get("quiet") else [f"{quoted(name)}: OK"], [], False
    return 1, [f"{quoted(name)}: FAILED"], [], False


OPERATIONS: dict[str, Callable[[Any, dict[str, Any]], Result]] = {
    "validate": do_validate,
    "check": do_check,
    "in-place": do_in_place,
    "hash": do_hash,
    "hash-check": do_hash_check,
    "canonical-text": do_canonical_text,
}


def run_chunk(op: str, options: dict[str, Any], items: Sequence[Any]) -> list[Result]:
    """Worker entry point: one task = one chunk of files (keeps pickling and IPC overhead low)."""
    fn = OPERATIONS[op]
    return [fn(item, options) for item in items]


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def effective_jobs(requested: int | None, n: int, items: Sequence[Any]) -> int:
    """``--jobs`` as given (0 = every CPU); when absent, every CPU for long batches only."""
    if any(item == STDIO or (isinstance(item, tuple) and item[1] == STDIO) for item in items):
        return 1  # stdin belongs to this process
    if requested is None:
        requested = 0 if n >= AUTO_JOBS_THRESHOLD else 1
    if requested == 0:
        requested = cpu_count()
    return max(1, min(requested, n))


def chunks(items: Sequence[Any], jobs: int) -> list[Sequence[Any]]:
    """Split the batch into ordered chunks: about 16 per worker, at most MAX_CHUNK files each."""
    if jobs <= 1:
        size = 64
    else:
        size = max(1, min(MAX_CHUNK, -(-len(items) // (jobs * 16))))
    return [items[i : i + size] for i in range(0, len(items), size)]


def run(
    op: str, items: Sequence[Any], options: dict[str, Any], jobs: int | None, progress: Progress
) -> Iterator[Result]:
    """Results in input order, computed in this process or by a pool of ``jobs`` workers."""
    n = effective_jobs(jobs, len(items), items)
    parts = chunks(items, n)
    if n == 1:
        for part in parts:
            results = run_chunk(op, options, part)
            yield from results
            progress.advance(len(part))
        return
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    with ProcessPoolExecutor(max_workers=n, initializer=_worker_start) as pool:
        for part, results in zip(
            parts, pool.map(partial(run_chunk, op, options), parts), strict=True
        ):
            yield from results
            progress.advance(len(part))


def _worker_start() -> None:
    """A forked worker does not inherit the command's SIGTERM handler (the parent cleans up)."""
    import signal

    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Progress:
    """A one-line progress bar on stderr, drawn only on a terminal and only for long batches.

    Nothing is drawn during the first ``delay`` seconds (so short runs never flash a bar), at
    most ten times a second, and the line is erased before any output line is written.
    """

    def __init__(self, total: int, label: str, *, enabled: bool, delay: float = 0.3) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.enabled = enabled and total > 1
        self.start = time.monotonic()
        self.delay = delay
        self.last = 0.0
        self.shown = False

    @classmethod
    def for_stderr(cls, total: int, label: str, disabled: bool) -> Progress:
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        return cls(total, label, enabled=tty and not disabled)

    def advance(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < 0.1 and self.done < self.total):
            return
        self.last = now
        width = 30
        filled = width * self.done // max(1, self.total)
        rate = self.done / max(now - self.start, 1e-9)
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
            f"{self.done}/{self.total} ({rate:,.0f}/s)\x1b[K"
        )
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False
