"""NUIF on Dask: validate, canonicalize and hash many documents on a cluster (docs/scale.md).

Needs the ``dask`` extra (``pip install 'nuif-cli[dask]'``) on the client and the same
``nuif-core`` and ``nuif-cli`` wheels on every worker.

For people who already hold texts in Dask
-----------------------------------------
* :func:`bag_records` — a ``dask.bag.Bag`` of texts (``str`` or ``bytes``) → a bag of record dicts,
  in the same order: ``{"bytes", "valid", "hash", "changed", "diagnostics", "truncated"}``.
* :func:`frame_records` — a ``dask.dataframe.Series`` of texts → a dataframe with those columns
  (``diagnostics`` as JSON text), on the series' index (needs pandas).
* :func:`text_records` — the same records for a plain iterable of texts, in this process.

Each maps one function over whole partitions (``map_partitions``): the function is sent once per
partition and the records of a partition travel back as one list, never one task or one pickle
per document.  A record is what ``nuif batch`` reports for a document: ``valid``; ``hash`` (the
document hash, when valid); ``changed`` (the text is not canonical; None when invalid);
``diagnostics`` (every problem, at most ``max_diagnostics``, each ``{"code", "message",
"pointer", "line", "column"}``); ``truncated``; ``bytes`` (UTF-8 size of the text).

For files
---------
* :func:`run_batch` — the engine of ``nuif batch``: expand inputs (files, directories, globs,
  JSON Lines), plan tasks by bytes, run them on a ``distributed.Client`` (or in this process with
  ``client=None``) and yield the report's records in input order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from . import _batch_work as work

__all__ = [
    "RECORD_FIELDS",
    "BatchStats",
    "bag_records",
    "check_worker_versions",
    "frame_records",
    "run_batch",
    "text_records",
]

#: the fields of a record of :func:`text_records` (the report adds ``source`` and ``line``)
RECORD_FIELDS = ("bytes", "valid", "hash", "changed", "diagnostics", "truncated")


# ---------------------------------------------------------------------------------------------
# texts already in Dask


def text_records(
    texts: Iterable[str | bytes], *, limits: Any = None, max_diagnostics: int = 100
) -> list[dict[str, Any]]:
    """The records of ``texts`` (one partition), in order; the core is imported once per call."""
    from nuif_core import Limits

    if max_diagnostics < 1:
        raise ValueError("max_diagnostics must be at least 1")
    lim = limits or Limits.DEFAULT
    out = []
    for i, text in enumerate(texts):
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
        if len(data) > lim.max_document_bytes:
            record = work.too_large_record(i, len(data), lim.max_document_bytes)
        else:
            record = work.document_record(i, data, lim, max_diagnostics)
        row = work.to_dict("", None, record)
        del row["source"], row["source_hex"], row["line"]
        out.append(row)
    return out


def bag_records(bag: Any, *, limits: Any = None, max_diagnostics: int = 100) -> Any:
    """A bag of texts → a bag of records, partition by partition (same partitions, same order)."""
    return bag.map_partitions(text_records, limits=limits, max_diagnostics=max_diagnostics)


def _frame_partition(series: Any, limits: Any, max_diagnostics: int) -> Any:
    import json

    import pandas as pd

    rows = text_records(series.tolist(), limits=limits, max_diagnostics=max_diagnostics)
    for row in rows:
        row["diagnostics"] = json.dumps(row["diagnostics"], ensure_ascii=False)
    frame = pd.DataFrame(rows, columns=list(RECORD_FIELDS), index=series.index)
    return frame.astype(_FRAME_DTYPES)


_FRAME_DTYPES = {
    "bytes": "Int64",
    "valid": "boolean",
    "hash": "string",
    "changed": "boolean",
    "diagnostics": "string",
    "truncated": "bool",
}


def frame_records(series: Any, *, limits: Any = None, max_diagnostics: int = 100) -> Any:
    """A Dask series of texts → a Dask dataframe of records on the same index (needs pandas).

    Columns: ``bytes`` (Int64), ``valid`` and ``changed`` (nullable boolean), ``hash`` (string,
    missing when invalid), ``diagnostics`` (a JSON array as text), ``truncated`` (bool).
    """
    import pandas as pd

    meta = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in _FRAME_DTYPES.items()})
    return series.map_partitions(
        _frame_partition, limits, max_diagnostics, meta=meta, align_dataframes=False
    )


# ---------------------------------------------------------------------------------------------
# files: the engine of ``nuif batch``


class BatchStats:
    """Counters kept while the records stream out (the summary's raw material)."""

    def __init__(self) -> None:
        self.tasks = 0
        self.input_bytes = 0
        self.max_task_bytes_read = 0
        self.max_task_held = 0
        self.max_task_result_bytes = 0

    def add(self, result: work.TaskResult) -> None:
        bytes_read, held, _records, result_bytes = result.stats
        self.tasks += 1
        self.input_bytes += bytes_read
        self.max_task_bytes_read = max(self.max_task_bytes_read, bytes_read)
        self.max_task_held = max(self.max_task_held, held)
        self.max_task_result_bytes = max(self.max_task_result_bytes, result_bytes)


def check_worker_versions(client: Any, timeout: float = 60) -> dict[str, tuple[str, str]]:
    """Ask every worker its nuif-core and nuif-cli versions; raise VersionMismatch unless all
    equal this process's.  Returns {worker address: (core, cli)}."""
    found = client.run(work.versions, wait=True, on_error="return")
    mine = work.versions()
    bad = []
    for address, value in sorted(found.items()):
        if isinstance(value, BaseException):
            bad.append(f"{address} cannot run nuif_cli ({type(value).__name__}: {value})")
        elif tuple(value) != mine:
            bad.append(f"{address} runs nuif-core {value[0]} and nuif-cli {value[1]}")
    if bad:
        raise work.VersionMismatch(
            f"the client runs nuif-core {mine[0]} and nuif-cli {mine[1]}, but "
            + "; ".join(bad)
            + ": install the same nuif-core and nuif-cli wheels on every worker (docs/scale.md)"
        )
    return {a: tuple(v) for a, v in found.items()}


def run_batch(
    inputs: Sequence[str] = (),
    *,
    items: Sequence[work.Input] | None = None,
    client: Any = None,
    partition_bytes: int = work.DEFAULT_PARTITION_BYTES,
    max_diagnostics: int = 100,
    limits: Any = None,
    in_place: bool = False,
    processes: int = 0,
    no_newline: bool = False,
    json_text: bool = False,
    jsonl: bool = False,
    max_result_bytes: int = work.DEFAULT_MAX_RESULT_BYTES,
    window: int | None = None,
    stats: BatchStats | None = None,
    on_task: Callable[[tuple[Any, ...], work.TaskResult], None] | None = None,
    key_prefix: str = "nuif-batch",
    catalog: bytes | None = None,
) -> Iterator[dict[str, Any]]:
    """The report's records for ``inputs``, in input order, one per document.

    With a ``distributed.Client``, tasks run on its cluster, at most ``window`` at a time
    (default: four per worker thread) so that the client holds a bounded number of results;
    with ``client=None`` they run one after another in this process (the ``--serial`` run, the
    reference the cluster's report must equal), or with ``processes`` > 1 on a
    ``concurrent.futures`` pool of that many processes, at most ``window`` (default four per
    process) at a time.  A worker that dies is replaced and its tasks are
    run again by Dask; each task's records are taken once, in order, so nothing is lost or
    repeated.  ``in_place`` rewrites non-canonical document files (JSON Lines are never
    rewritten: a JSON Lines input with ``in_place`` is a ``ValueError``, raised before anything
    runs); a rewrite writes the canonical text and one line feed, or the bare text with
    ``no_newline``, and a document file is canonical with or without one final line feed (NUIF-0
    §2.4).  ``json_text``: every input is any JSON text, not a NUIF document (``nuif json``'s
    reading and hash).  ``items`` replaces ``inputs`` with inputs already expanded (``_batch_work.expand``).
    ``catalog`` (a catalog's text, checked by the caller) also validates every document against
    that catalog (NUIF-0 §9): a document it refuses is invalid, with its catalog diagnostics.
    """
    if items is None:
        items = list(work.expand(inputs, jsonl=jsonl))
    if in_place:
        for item in items:
            if item.kind == "lines":
                raise ValueError(f"{item.path} is JSON Lines: in-place rewrites are for files")
    options = {
        "limits": limits,
        "max_diagnostics": max_diagnostics,
        "in_place": in_place,
        "no_newline": no_newline,
        "json_text": json_text,
        "max_result_bytes": max_result_bytes,
        "versions": work.versions() if client is not None else None,
        "catalog": catalog,
    }
    tasks = work.plan(items, partition_bytes)
    if client is None and processes > 1:
        results = _on_pool(processes, tasks, options, window)
    elif client is None:
        results = _serial(tasks, options)
    else:
        results = _on_cluster(client, tasks, options, window, key_prefix)
    bases: dict[str, int] = {}
    for task, result in results:
        if stats is not None:
            stats.add(result)
        if task[0] == "lines":
            path = task[1]
            base = 0 if task[4] and task[2] == 0 else bases.get(path, 0)
            bases[path] = base + result.line_starts
            yield from work.records_of(task, result, base)
        else:
            yield from work.records_of(task, result, 0)
        if on_task is not None:
            on_task(task, result)


def _continuation(task: tuple[Any, ...], result: work.TaskResult) -> tuple[Any, ...] | None:
    if result.resume is None:
        return None
    return ("lines", task[1], result.resume, task[3], False)


def _serial(
    tasks: Iterator[tuple[Any, ...]], options: dict[str, Any]
) -> Iterator[tuple[tuple[Any, ...], work.TaskResult]]:
    pending: deque[tuple[Any, ...]] = deque()
    while True:
        task = pending.popleft() if pending else next(tasks, None)
        if task is None:
            return
        result = work.run_task(task, options)
        follow = _continuation(task, result)
        if follow is not None:
            pending.appendleft(follow)
        yield task, result


def _on_pool(
    processes: int,
    tasks: Iterator[tuple[Any, ...]],
    options: dict[str, Any],
    window: int | None,
) -> Iterator[tuple[tuple[Any, ...], work.TaskResult]]:
    """Tasks on a local process pool, results in task order (as :func:`_on_cluster`)."""
    from concurrent.futures import ProcessPoolExecutor

    from ._batch import _worker_start

    with ProcessPoolExecutor(max_workers=processes, initializer=_worker_start) as pool:
        yield from _in_order(
            tasks,
            lambda task: pool.submit(work.run_task, task, options),
            window or 4 * processes,
            release=False,
        )


def _in_order(
    tasks: Iterator[tuple[Any, ...]],
    submit: Callable[[tuple[Any, ...]], Any],
    window: int,
    *,
    release: bool,
) -> Iterator[tuple[tuple[Any, ...], work.TaskResult]]:
    """At most ``window`` tasks submitted ahead, results taken in task order; a task's follow-up
    (:func:`_continuation`) goes first in line; what is still pending when the consumer stops is
    cancelled.  ``release``: release each future once read (Dask's)."""
    pending: deque[tuple[tuple[Any, ...], Any]] = deque()
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < window:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                else:
                    pending.append((task, submit(task)))
            if not pending:
                return
            task, future = pending.popleft()
            result = future.result()
            if release:
                future.release()
            follow = _continuation(task, result)
            if follow is not None:
                pending.appendleft((follow, submit(follow)))
            yield task, result
    finally:
        for _, future in pending:
            future.cancel()


def _on_cluster(
    client: Any,
    tasks: Iterator[tuple[Any, ...]],
    options: dict[str, Any],
    window: int | None,
    key_prefix: str,
) -> Iterator[tuple[tuple[Any, ...], work.TaskResult]]:
    import uuid

    run_id = uuid.uuid4().hex[:12]
    if window is None:
        threads = sum(client.nthreads().values()) or 1
        window = 4 * threads
    counter = 0

    def submit(task: tuple[Any, ...]) -> Any:
        # the options (a few hundred bytes) travel with each task: nothing the cluster could lose
        # with a worker and be unable to recompute
        nonlocal counter
        counter += 1
        return client.submit(
            work.run_task, task, options, key=f"{key_prefix}-{run_id}-{counter}", pure=False
        )

    yield from _in_order(tasks, submit, window, release=True)
