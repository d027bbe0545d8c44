"""``nuif batch validate|canonicalize|hash INPUT…``: many documents on Dask (docs/scale.md).

Registered by ``_cli.build_parser``; imports nothing but the standard library until it runs (the
CLI's start-up cost), and Dask only when a run needs a cluster.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

#: the batch engine (Dask) failed: no scheduler, a version mismatch, tasks that kept failing
EXIT_CLUSTER = 3
CLUSTER_CODE = "NUIF_CLUSTER"
ENV_SCHEDULER = "NUIF_SCHEDULER"
DASK_MISSING = (
    "nuif batch runs on Dask, which is not installed here: pip install 'nuif-cli[dask]' "
    "(or add --serial to run in this process without Dask)"
)
PYARROW_MISSING = (
    "a Parquet report needs pyarrow, which is not installed here: pip install 'nuif-cli[parquet]' "
    "(or write JSON Lines: -o REPORT.jsonl)"
)
_UNITS = {
    "": 1,
    "b": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
}


#: ``--engine auto`` runs in this process below this many bytes of input (docs/cli.md, "Which
#: engine"): benchmarks/batch_engine.py measured a pool of 2 processes slower than one process
#: up to 4 MB of ~1 KiB files (1.07-1.36x its time) and faster from 8 MB on (0.8x, 0.69x at 16)
POOL_MIN_BYTES = 8 * 1024 * 1024
#: with a pool, tasks of at most total ÷ (workers × this) bytes, so that every worker has work
POOL_TASKS_PER_WORKER = 8
#: … and of at least this many bytes (a task's fixed cost stays small beside its work)
POOL_MIN_PARTITION = 256 * 1024
DEFAULT_PARTITION = "32MiB"


def choose_engine(
    engine: str, scheduler: str | None, total_bytes: int, jobs: int | None, cpus: int
) -> tuple[str, int]:
    """(engine, local worker processes) for a run: ``serial`` (this process), ``processes`` (a
    ``concurrent.futures`` pool of that many processes) or ``dask`` (0: a scheduler is named, or
    that many local Dask workers).

    ``auto``: Dask when a scheduler is named; else this process when one CPU is to be used
    (``-j 1``, or one CPU available) or the input is below :data:`POOL_MIN_BYTES`; else a pool
    of ``-j N`` (default: every CPU) processes.
    """
    if engine == "serial":
        return "serial", 0
    if engine == "dask" or (engine == "auto" and scheduler):
        return "dask", 0 if scheduler else (jobs or cpus)
    workers = jobs or cpus
    if engine == "processes":
        return ("processes", workers) if workers > 1 else ("serial", 0)
    if workers <= 1 or total_bytes < POOL_MIN_BYTES:
        return "serial", 0
    return "processes", workers


def pool_partition(total_bytes: int, workers: int, partition_bytes: int) -> int:
    """The partition size of a pool run: at most ``partition_bytes``, small enough that each of
    ``workers`` gets about :data:`POOL_TASKS_PER_WORKER` tasks, at least
    :data:`POOL_MIN_PARTITION`."""
    share = -(-total_bytes // (workers * POOL_TASKS_PER_WORKER))
    return max(1, min(partition_bytes, max(POOL_MIN_PARTITION, share)))


def _size(value: str) -> int:
    import re

    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", value)
    if not m or m.group(2).lower() not in _UNITS:
        raise argparse.ArgumentTypeError(f"expected a size such as 32MiB or 65536, got {value!r}")
    n = int(m.group(1)) * _UNITS[m.group(2).lower()]
    if n < 1:
        raise argparse.ArgumentTypeError("the partition size must be at least 1 byte")
    return n


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    from ._cli import _jobs, _positive, add_report_options

    text = "validate, canonicalize or hash many documents on Dask, with a JSON Lines/Parquet report"
    p = sub.add_parser("batch", help=text, description=text + " (docs/scale.md)", parents=[common])
    p.set_defaults(parser=p)  # a usage error shows this command's usage
    p.add_argument("operation", choices=["validate", "canonicalize", "hash"], help="what to run")
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="document files, directories, glob patterns, or JSON Lines files (*.jsonl, *.ndjson)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"a Dask scheduler (tcp://host:8786; default: ${ENV_SCHEDULER}, else a local cluster)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="local worker processes (0 or absent: every CPU; 1: this process only)",
    )
    p.add_argument(
        "--engine",
        choices=["auto", "serial", "processes", "dask"],
        default="auto",
        help="auto (default): Dask when a scheduler is named, else this process for small inputs "
        "and a process pool for large ones; serial; processes; dask (a local cluster unless "
        "--scheduler)",
    )
    p.add_argument(
        "--serial",
        action="store_true",
        help="run in this process (the reference report; same as --engine serial)",
    )
    p.add_argument("-o", "--output", default="-", metavar="REPORT", help="report ('-' = stdout)")
    p.add_argument(
        "--format",
        choices=["jsonl", "parquet"],
        help="report format (default: parquet for a REPORT ending in .parquet, else jsonl)",
    )
    p.add_argument("--summary", metavar="FILE", help="also write the summary as JSON to FILE")
    p.add_argument(
        "-i",
        "--in-place",
        action="store_true",
        help="canonicalize: rewrite each non-canonical document file atomically",
    )
    p.add_argument(
        "--no-newline",
        action="store_true",
        help="with --in-place: write the bare canonical text, without the final line feed",
    )
    p.add_argument(
        "--mode",
        choices=["nuif", "json"],
        default="nuif",
        help="nuif: NUIF documents (default); json: any strict I-JSON text, as 'nuif json'",
    )
    p.add_argument("--jsonl", action="store_true", help="read every file input as JSON Lines")
    p.add_argument(
        "--partition-size",
        type=_size,
        default=None,
        metavar="SIZE",
        help=f"bytes of input per task (default {DEFAULT_PARTITION}; a process pool takes "
        "smaller tasks unless this is given)",
    )
    p.add_argument(
        "--max-diagnostics",
        type=_positive,
        default=100,
        metavar="N",
        help="at most N diagnostics per document (default 100)",
    )
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="validate: also check every document against this kind catalog (NUIF-0 §9)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds to wait for the scheduler and its first worker (default 30)",
    )
    p.add_argument(
        "--no-progress", action="store_true", help="never draw the progress bar on stderr"
    )
    add_report_options(p, "print the summary on stderr as JSON instead of a line")
    p.set_defaults(run=cmd_batch)


class ClusterError(Exception):
    """The engine could not run the batch (reported as NUIF_CLUSTER, exit 3)."""


def cmd_batch(args: argparse.Namespace) -> int:
    from ._io import UsageError, check_outputs

    if "-" in args.inputs:
        raise UsageError("nuif batch reads files (workers open them), not stdin ('-')")
    check_outputs(("-o", args.output), ("--summary", args.summary))
    if args.in_place and args.operation != "canonicalize":
        raise UsageError("--in-place belongs to 'nuif batch canonicalize'")
    if args.no_newline and not args.in_place:
        raise UsageError("--no-newline says what --in-place writes; give it with --in-place")
    if args.catalog is not None and (args.operation != "validate" or args.mode == "json"):
        raise UsageError("--catalog belongs to 'nuif batch validate' of NUIF documents")
    from ._cli import read_catalog

    catalog = read_catalog(args.catalog) if args.catalog is not None else None
    if args.in_place and args.jsonl:
        raise UsageError("--in-place rewrites document files; JSON Lines files are never rewritten")
    fmt = args.format or ("parquet" if args.output.lower().endswith(".parquet") else "jsonl")
    if fmt == "parquet":
        if args.output == "-":
            raise UsageError("a Parquet report needs a file: -o REPORT.parquet")
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError(PYARROW_MISSING) from None
    from . import _batch_work as work
    from ._batch import cpu_count

    items = list(work.expand(args.inputs, jsonl=args.jsonl))
    if args.in_place:
        lines = [item.path for item in items if item.kind == "lines"]
        if lines:
            from ._diag import quoted

            raise UsageError(
                f"--in-place rewrites document files; {quoted(lines[0])} is JSON Lines, which is "
                "never rewritten (leave it out, or canonicalize it without --in-place)"
            )
    total_bytes = sum(item.size for item in items)
    scheduler = args.scheduler or os.environ.get(ENV_SCHEDULER) or None
    engine, args.local_workers = choose_engine(
        "serial" if args.serial else args.engine, scheduler, total_bytes, args.jobs, cpu_count()
    )
    args.engine = engine
    if engine == "dask":
        try:
            import dask  # noqa: F401
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError(DASK_MISSING) from None
    explicit = args.partition_size is not None
    args.partition_size = args.partition_size or _size(DEFAULT_PARTITION)
    if engine == "processes" and not explicit:
        args.partition_size = pool_partition(total_bytes, args.local_workers, args.partition_size)

    # the report file is opened first: an unwritable -o fails before any cluster starts
    writer = _writer(fmt, args.output)
    try:
        with _engine(args) as (client, workers):
            status = _run(args, writer, items, total_bytes, client, workers, catalog)
    except ClusterError as exc:
        writer.abort()
        _cluster_fail(args, exc)
        return EXIT_CLUSTER
    except BaseException:
        writer.abort()
        raise
    return status


def _cluster_fail(args: argparse.Namespace, exc: BaseException) -> None:
    if getattr(args, "verbose", 0):
        import traceback

        traceback.print_exception(exc.__cause__ or exc, file=sys.stderr)
    print(f"nuif: {CLUSTER_CODE}: {exc}", file=sys.stderr)


def _check_address(address: str) -> None:
    """Refuse a scheduler address Dask cannot parse before a Client is built (a Client that fails
    half-built prints tracebacks when it is collected)."""
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        backend = get_backend(scheme)
        if scheme != "inproc":
            backend.get_address_host_port(location)
    except (ValueError, TypeError, ImportError) as exc:
        raise ClusterError(
            f"the scheduler address {address!r} is not valid: {exc}; expected tcp://HOST:PORT "
            "or tls://HOST:PORT (docs/scale.md)"
        ) from exc


class _engine:
    """The client of the run: None in this process or with a process pool, else a Client on the
    scheduler or on a new local cluster of ``--jobs`` worker processes bound to 127.0.0.1 (closed
    at the end).  Yields (client, workers): the pool's processes, or the cluster's threads."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.client: Any = None
        self.cluster: Any = None

    def __enter__(self) -> tuple[Any, int]:
        args = self.args
        if args.engine != "dask":
            return None, args.local_workers
        import logging

        from distributed import Client, LocalCluster

        from . import dask as nuif_dask
        from ._batch import cpu_count
        from ._batch_work import VersionMismatch

        address = args.scheduler or os.environ.get(ENV_SCHEDULER) or None
        if address:
            _check_address(address)
        try:
            if address:
                self.client = Client(address, timeout=args.connect_timeout, set_as_default=False)
            else:
                n = args.local_workers or cpu_count()
                self.cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    # no dashboard; the scheduler's small HTTP server (health, metrics) on a free
                    # port of 127.0.0.1, not on 8787, which another cluster may hold
                    dashboard_address="127.0.0.1:0",
                    scheduler_kwargs={"dashboard": False},
                    silence_logs=logging.ERROR,
                )
                self.client = Client(self.cluster, set_as_default=False)
            self.client.wait_for_workers(1, timeout=args.connect_timeout)
            nuif_dask.check_worker_versions(self.client)
        except VersionMismatch as exc:
            self.__exit__(None, None, None)
            raise ClusterError(str(exc)) from exc
        except RuntimeError as exc:  # a local cluster whose workers failed to start
            self.__exit__(None, None, None)
            raise ClusterError(f"cannot start a local cluster: {exc}") from exc
        except (OSError, TimeoutError) as exc:
            self.__exit__(None, None, None)
            where = f"the scheduler at {address}" if address else "a local cluster"
            raise ClusterError(
                f"cannot reach {where} or it has no worker after {args.connect_timeout:g} s "
                f"({type(exc).__name__}: {exc}); check the address and that workers are running "
                "(docs/scale.md)"
            ) from exc
        return self.client, len(self.client.nthreads())

    def __exit__(self, *exc: Any) -> None:
        client, cluster = self.client, self.cluster
        self.client = self.cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def _run(
    args: argparse.Namespace,
    writer: Any,
    items: list[Any],
    total_bytes: int,
    client: Any,
    workers: int,
    catalog: bytes | None = None,
) -> int:
    from . import dask as nuif_dask

    stats = nuif_dask.BatchStats()
    summary = Summary(args.operation, args.in_place)
    progress = _progress(args, total_bytes)
    start = time.monotonic()
    records = nuif_dask.run_batch(
        [],  # items are given below, already expanded
        client=client,
        partition_bytes=args.partition_size,
        max_diagnostics=args.max_diagnostics,
        in_place=args.in_place,
        processes=args.local_workers if args.engine == "processes" else 0,
        no_newline=args.no_newline,
        json_text=args.mode == "json",
        stats=stats,
        on_task=(lambda task, result: progress.update(result.stats[0], summary.documents))
        if progress.enabled
        else None,
        items=items,
        catalog=catalog,
    )
    counted = _counted(records, summary)
    while True:
        try:
            record = next(counted, None)
        except BaseException as exc:
            progress.clear()
            if isinstance(exc, (KeyboardInterrupt, BrokenPipeError, SystemExit)):
                raise
            if client is None:
                from concurrent.futures.process import BrokenProcessPool

                if isinstance(exc, BrokenProcessPool):  # a pool worker died (killed, no memory)
                    raise ClusterError(
                        f"a worker process of the pool died ({exc}); the machine may be out of "
                        "memory: lower --partition-size or --jobs, or run with --engine serial"
                    ) from exc
                raise
            raise ClusterError(_task_failure(exc)) from exc
        if record is None:
            break
        try:
            writer.write(record)  # a report that cannot be written is not the cluster's fault
        except BaseException:
            progress.clear()
            raise
    progress.clear()
    writer.close()
    summary.finish(time.monotonic() - start, workers, stats, args.engine)
    if args.json:
        import json

        print(json.dumps(summary.to_dict(), ensure_ascii=False), file=sys.stderr)
    elif not args.quiet:
        print(summary.line(), file=sys.stderr)
    if args.summary:
        import json

        from ._io import write_file

        write_file(
            args.summary,
            (json.dumps(summary.to_dict(), ensure_ascii=False, indent=2) + "\n").encode(),
        )
    return summary.exit_status()


def _task_failure(exc: BaseException) -> str:
    from ._batch_work import VersionMismatch

    if isinstance(exc, VersionMismatch):
        return str(exc)
    name = type(exc).__name__
    if name == "KilledWorker":
        return (
            f"a task was running on a worker that died too many times ({exc}); the workers may be "
            "running out of memory: lower --partition-size or give the workers more memory "
            "(docs/scale.md)"
        )
    if isinstance(exc, ImportError):
        return (
            f"a worker cannot import nuif-cli ({exc}): install the same nuif-core and nuif-cli "
            "wheels on every worker (docs/scale.md)"
        )
    return f"a task failed: {name}: {exc}"


def _counted(records: Iterator[dict[str, Any]], summary: Summary) -> Iterator[dict[str, Any]]:
    for record in records:
        summary.add(record)
        yield record


# ---------------------------------------------------------------------------------------------
# the summary


class Summary:
    """Counts, duplicates by hash, and throughput of one run.

    Duplicates are found with one dictionary entry per distinct hash (the 32-byte digest and a
    count, about 120 bytes): the client's memory grows with the number of distinct valid
    documents, not with their size (docs/scale.md).
    """

    LARGEST = 10

    def __init__(self, operation: str, in_place: bool) -> None:
        self.operation = operation
        self.in_place = in_place
        self.documents = self.valid = self.invalid = self.unreadable = 0
        self.changed = self.rewrite_failed = 0
        self.bytes = 0
        self.counts: dict[bytes, int] = {}
        #: invalid and unreadable documents by the code of their first diagnostic
        self.codes: dict[str, int] = {}
        self.seconds = 0.0
        self.workers = 0
        self.engine = "serial"
        self.tasks = 0

    def add(self, record: dict[str, Any]) -> None:
        self.documents += 1
        self.bytes += record["bytes"] or 0
        if not record["valid"]:
            if record["valid"] is None:
                self.unreadable += 1
            else:
                self.invalid += 1
            code = record["diagnostics"][0]["code"] if record["diagnostics"] else "NUIF_IO"
            self.codes[code] = self.codes.get(code, 0) + 1
            return
        self.valid += 1
        if record["changed"]:
            self.changed += 1
            if record["diagnostics"]:  # the in-place rewrite failed (NUIF_IO)
                self.rewrite_failed += 1
        key = bytes.fromhex(record["hash"][7:])
        self.counts[key] = self.counts.get(key, 0) + 1

    def finish(self, seconds: float, workers: int, stats: Any, engine: str = "dask") -> None:
        self.seconds = seconds
        self.workers = workers
        self.engine = engine
        self.tasks = stats.tasks

    def duplicates(self) -> dict[str, Any]:
        import heapq

        groups = [(n, k) for k, n in self.counts.items() if n > 1]
        largest = heapq.nlargest(self.LARGEST, groups)
        return {
            "documents": self.valid - len(self.counts),
            "groups": len(groups),
            "largest": [{"hash": "sha256:" + k.hex(), "count": n} for n, k in largest],
        }

    def by_code(self) -> dict[str, int]:
        """{code: documents}, most frequent first (ties by code)."""
        return dict(sorted(self.codes.items(), key=lambda item: (-item[1], item[0])))

    def to_dict(self) -> dict[str, Any]:
        seconds = max(self.seconds, 1e-9)
        out = {
            "operation": self.operation,
            "documents": self.documents,
            "valid": self.valid,
            "invalid": self.invalid,
            "unreadable": self.unreadable,
            "changed": self.changed,
            "codes": self.by_code(),
            "distinct_hashes": len(self.counts),
            "duplicates": self.duplicates(),
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
            "documents_per_second": round(self.documents / seconds, 1),
            "bytes_per_second": round(self.bytes / seconds, 1),
            "engine": self.engine,
            "workers": self.workers,
            "tasks": self.tasks,
        }
        if self.in_place:
            out["rewritten"] = self.changed - self.rewrite_failed
            out["rewrite_failed"] = self.rewrite_failed
        return out

    def line(self) -> str:
        d = self.to_dict()
        dup = d["duplicates"]
        changed = (
            f"{d['rewritten']} rewritten"
            + (f", {self.rewrite_failed} not" if self.rewrite_failed else "")
            if self.in_place
            else f"{self.changed} not canonical"
        )
        plural = "s" if self.workers != 1 else ""
        engine = {
            "serial": "in this process",
            "processes": f"{self.workers} worker process{'es' if plural else ''}",
        }.get(self.engine, f"{self.workers} Dask worker{plural}")
        codes = ", ".join(f"{code} {n}" for code, n in self.by_code().items())
        return (
            f"nuif batch {self.operation}: {self.documents} documents: {self.valid} valid "
            f"({changed}), {self.invalid} invalid, {self.unreadable} unreadable"
            + (f" (by first problem: {codes})" if codes else "")
            + "; "
            f"{d['distinct_hashes']} distinct hashes, {dup['documents']} duplicates in "
            f"{dup['groups']} groups; {self.bytes / 1e6:.1f} MB in {self.seconds:.1f} s "
            f"({d['documents_per_second']:,.0f} documents/s, {self.bytes / 1e6 / max(self.seconds, 1e-9):.1f} MB/s), "
            f"{engine}, {self.tasks} tasks"
        )

    def exit_status(self) -> int:
        if self.unreadable or self.rewrite_failed:
            return 2
        if self.invalid:
            return 1
        if self.operation == "canonicalize" and not self.in_place and self.changed:
            return 1
        return 0


# ---------------------------------------------------------------------------------------------
# report writers: the whole report appears at once (temporary file + rename), or not at all


class _JsonLines:
    def __init__(self, path: str) -> None:
        self.out: Any = None
        if path == "-":
            sys.stdout.flush()
            self.fh: Any = sys.stdout.buffer
        else:
            self.out = _output(path)
            self.fh = self.out.fh

    def write(self, record: dict[str, Any]) -> None:
        import json

        line = json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"
        if self.out is None:
            self.fh.write(line)
        else:
            self.out.write(line)

    def close(self) -> None:
        if self.out is None:
            self.fh.flush()
            return
        self.out.commit()

    def abort(self) -> None:
        if self.out is None:
            try:
                self.fh.flush()
            except (OSError, ValueError):
                pass
            return
        self.out.abort()


#: rows per Parquet row group (the client holds at most this many records for the writer)
PARQUET_ROWS = 65_536


class _Parquet:
    def __init__(self, path: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        diag = pa.struct(
            [
                ("code", pa.string()),
                ("message", pa.string()),
                ("pointer", pa.string()),
                ("line", pa.int64()),
                ("column", pa.int64()),
            ]
        )
        self.schema = pa.schema(
            [
                ("source", pa.string()),
                ("source_hex", pa.string()),
                ("line", pa.int64()),
                ("bytes", pa.int64()),
                ("valid", pa.bool_()),
                ("hash", pa.string()),
                ("changed", pa.bool_()),
                ("diagnostics", pa.list_(diag)),
                ("truncated", pa.bool_()),
            ]
        )
        self.out = _output(path)
        try:
            self.writer = pq.ParquetWriter(self.out.fh, self.schema)
        except BaseException:
            self.out.abort()
            raise
        self.rows: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.rows.append(record)
        if len(self.rows) >= PARQUET_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            table = pa.Table.from_pylist(self.rows, schema=self.schema)
            self.out.guard(self.writer.write_table, table)
            self.rows = []

    def close(self) -> None:
        self._flush()
        self.out.guard(self.writer.close)
        self.out.commit()

    def abort(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass
        self.out.abort()


def _writer(fmt: str, path: str) -> Any:
    return _Parquet(path) if fmt == "parquet" else _JsonLines(path)


def _output(path: str) -> Any:
    """The report file (``_io.Output``): replaced whole at the end when it is a regular file or a
    new name, written into when it is a device, a FIFO or ``/dev/stdout``; a new report gets
    0o666 minus the umask."""
    from ._io import Output

    return Output(path, keep_mode=False, what="the report")


# ---------------------------------------------------------------------------------------------
# progress


def _progress(args: argparse.Namespace, total_bytes: int) -> Any:
    from ._batch import Progress

    class BytesProgress(Progress):
        """``batch validate [#####.....] 120/512 MB, 45,120 documents (3,400/s)``."""

        def update(self, nbytes: int, documents: int) -> None:
            self.done = min(self.total, self.done + nbytes)
            if not self.enabled:
                return
            now = time.monotonic()
            if now - self.start < self.delay or now - self.last < 0.1:
                return
            self.last = now
            width = 30
            filled = width * self.done // max(1, self.total)
            rate = documents / max(now - self.start, 1e-9)
            sys.stderr.write(
                f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                f"{self.done / 1e6:,.0f}/{self.total / 1e6:,.0f} MB, {documents:,} documents "
                f"({rate:,.0f}/s)\x1b[K"
            )
            sys.stderr.flush()
            self.shown = True

    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    return BytesProgress(
        max(total_bytes, 1),
        f"batch {args.operation}",
        enabled=tty and not (args.no_progress or args.quiet),
    )
