"""Documents per second of ``nuif`` batches: one process, ``--jobs 2``, and Dask (issue 20).

``uv run python -m benchmarks.scale`` (about 2 minutes; ``--docs``, ``--rounds``, ``--json``).

A script, not a pytest suite (it starts a cluster). Each configuration runs the installed
``nuif`` script in a fresh process on the same generated corpus — N document files of ~1 KiB
(a third of them not canonical, one in twenty invalid, one in five a duplicate) and the same N
documents as one JSON Lines file — and the figure is the median wall time of ``--rounds`` runs,
start-up included, as a user sees it (bytecode caching on and stdout buffered, whatever this
shell sets, as ``bench_cli.py`` does):

* ``hash -j 1`` / ``hash -j 2``: the existing one-machine batch (`sha256sum` lines);
* ``batch hash --serial``: the batch layer in one process (its report is the reference);
* ``batch hash --scheduler``: a 2-worker ``LocalCluster`` (processes, 127.0.0.1) that this
  script started beforehand, so its start-up is not counted (the usual case: a standing cluster);
* ``batch hash -j 2``: ``nuif batch`` starting its own 2-worker local cluster (start-up counted).

Every run's output is checked (the same hashes in every configuration; the Dask reports equal the
``--serial`` one byte for byte); a mismatch stops the script.

Per-document overhead of the engine: each batch configuration also runs on a single document,
which gives its fixed cost (process start, imports, connecting, the first task's round trip).
``per-document µs`` = (T(N) − T(1)) ÷ N of wall time; ``worker µs`` multiplies that by the worker
count (what the documents cost in worker time); the engine's overhead per document is the Dask
run's worker µs minus the serial run's µs (scheduling, serialization of results, the client
writing the report, on 2 cores that also run the client).  ``nuif process CPU µs`` is the CPU
time of the ``nuif`` process itself per document (user + system, from ``getrusage`` of the
children this script waited for; for ``hash -j 2`` and ``batch -j 2`` that includes the worker
processes the command started and reaped); on a standing cluster it is the client's share alone,
the figure that bounds how many documents a second one client can take from any number of
workers.  ``cluster CPU µs`` (standing cluster only) is the CPU time the scheduler and the
workers used, read from their own processes before and after the run; the engine's **CPU
overhead** per document = nuif process CPU + cluster CPU − the ``--serial`` run's CPU, which a
loaded machine does not inflate the way it inflates wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nuif_core

NUIF = str(Path(sys.executable).with_name("nuif"))
#: as bench_cli.py: bytecode caching on (as a pip-installed package has it), whatever the caller set
ENV = {
    k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")
}


def make_corpus(root: Path, n: int) -> tuple[Path, Path, Path]:
    """N files under root/docs (and the same N lines in root/docs.jsonl) + one file alone."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    lines = []
    for i in range(n):
        j = i - i % 5 if i % 5 == 4 else i  # every fifth a duplicate of the one before
        kids = ",".join(
            f'{{"id":"n{j}.{k}","kind":"text","attrs":{{"label":"item {k} of screen {j}","size":{k}}}}}'
            for k in range(8)
        )
        text = f'{{"nuif":0,"root":{{"id":"s{j}","kind":"screen","children":[{kids}]}}}}'
        if i % 20 == 7:
            data = text.replace('"kind":"text"', '"kind":"Text"', 1).encode()  # invalid
        elif i % 3 == 0:
            data = text.encode()  # member order as written: not canonical
        else:
            data = nuif_core.canonicalize(text).canonical
        (docs / f"{i // 1000:03}").mkdir(exist_ok=True)
        (docs / f"{i // 1000:03}" / f"doc{i:06}.json").write_bytes(data)
        lines.append(data)
    jsonl = root / "docs.jsonl"
    jsonl.write_bytes(b"\n".join(lines) + b"\n")
    one = root / "one.json"
    one.write_bytes(lines[1])
    return docs, jsonl, one


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def cluster_cpu(client: Any) -> float:
    """CPU seconds the scheduler and the workers have used so far (their own processes)."""
    workers = client.run(_own_cpu)
    return sum(workers.values()) + client.run_on_scheduler(_own_cpu)


def timed(argv: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds of the process (and of the children it waited for), stdout."""
    cpu = _cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, timeout=900, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return elapsed, _cpu() - cpu, proc.stdout


def files_of(docs: Path) -> list[str]:
    return sorted(str(p) for p in docs.rglob("*.json"))


def hashes_from_report(out: bytes) -> list[str | None]:
    return [json.loads(line)["hash"] for line in out.splitlines()]


def hashes_from_sha_lines(out: bytes, files: list[str]) -> list[str | None]:
    found = dict(reversed(line.split("  ", 1)) for line in out.decode().splitlines())
    return [found.get(f) for f in files]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=20_000, help="documents (default 20000)")
    ap.add_argument("--rounds", type=int, default=3, help="runs per configuration (median)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)

    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory(prefix="nuif-scale-") as tmp:
        root = Path(tmp)
        docs, jsonl, one = make_corpus(root, args.docs)
        files = files_of(docs)
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        print(
            f"corpus: {len(files)} files, {mb:.1f} MB; {jsonl.stat().st_size / 1e6:.1f} MB JSON Lines",
            file=sys.stderr,
        )
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                scheduler_kwargs={"dashboard": False},
                silence_logs=50,
            ) as cluster,
            Client(cluster, set_as_default=False) as client,
        ):
            client.wait_for_workers(2, timeout=120)
            address = cluster.scheduler_address
            batch = [NUIF, "batch", "hash", "--no-progress", "--partition-size", "1MiB"]
            configs: list[tuple[str, list[str], list[str], int]] = [
                ("nuif hash -j 1", [NUIF, "hash", "-j", "1", *files], [NUIF, "hash", str(one)], 1),
                ("nuif hash -j 2", [NUIF, "hash", "-j", "2", *files], [NUIF, "hash", str(one)], 2),
                (
                    "nuif batch --serial (files)",
                    [*batch, "--serial", str(docs)],
                    [*batch, "--serial", str(one)],
                    1,
                ),
                (
                    "nuif batch, Dask 2 workers (files)",
                    [*batch, "--scheduler", address, str(docs)],
                    [*batch, "--scheduler", address, str(one)],
                    2,
                ),
                (
                    "nuif batch --serial (JSON Lines)",
                    [*batch, "--serial", str(jsonl)],
                    [*batch, "--serial", str(one)],
                    1,
                ),
                (
                    "nuif batch, Dask 2 workers (JSON Lines)",
                    [*batch, "--scheduler", address, str(jsonl)],
                    [*batch, "--scheduler", address, str(one)],
                    2,
                ),
                (
                    "nuif batch -j 2 (own local cluster, files)",
                    [*batch, "--engine", "dask", "-j", "2", str(docs)],
                    [*batch, "--engine", "dask", "-j", "2", str(one)],
                    2,
                ),
            ]
            rows = []
            reference: list[str | None] | None = None
            reports: dict[str, bytes] = {}
            for name, full, single, workers in configs:
                times, fixed, cpus, fixed_cpus, ccpus, fixed_ccpus = [], [], [], [], [], []
                standing = "--scheduler" in full
                for _ in range(args.rounds):
                    before = cluster_cpu(client) if standing else 0.0
                    t, c, out = timed(full)
                    ccpus.append(cluster_cpu(client) - before if standing else 0.0)
                    times.append(t)
                    cpus.append(c)
                    before = cluster_cpu(client) if standing else 0.0
                    f, fc, _ = timed(single)
                    fixed_ccpus.append(cluster_cpu(client) - before if standing else 0.0)
                    fixed.append(f)
                    fixed_cpus.append(fc)
                if "batch" in name:
                    got = hashes_from_report(out)
                    kind = "jsonl" if "JSON Lines" in name else "files"
                    if kind in reports and "serial" not in name and reports[kind] != out:
                        raise SystemExit(f"{name}: the report differs from the --serial one")
                    reports.setdefault(kind, out)
                else:
                    got = hashes_from_sha_lines(out, files)
                if reference is None:
                    reference = got
                elif got != reference:
                    raise SystemExit(f"{name}: other hashes than the first configuration")
                t, f = statistics.median(times), statistics.median(fixed)
                per_doc = (t - f) / len(files)
                cpu_per_doc = (statistics.median(cpus) - statistics.median(fixed_cpus)) / len(files)
                cluster_per_doc = (statistics.median(ccpus) - statistics.median(fixed_ccpus)) / len(
                    files
                )
                rows.append(
                    {
                        "configuration": name,
                        "workers": workers,
                        "seconds": round(t, 3),
                        "documents_per_second": round(len(files) / t),
                        "fixed_seconds": round(f, 3),
                        "per_document_us": round(per_doc * 1e6, 1),
                        "worker_us_per_document": round(per_doc * workers * 1e6, 1),
                        "process_cpu_us_per_document": round(cpu_per_doc * 1e6, 1),
                        "cluster_cpu_us_per_document": round(cluster_per_doc * 1e6, 1)
                        if standing
                        else None,
                    }
                )
                print(f"  {name}: {t:.2f} s", file=sys.stderr)
    serial = {r["configuration"]: r for r in rows}
    for r in rows:
        if "Dask" in r["configuration"]:
            base = serial[
                "nuif batch --serial (JSON Lines)"
                if "JSON" in r["configuration"]
                else "nuif batch --serial (files)"
            ]
            r["engine_overhead_us_per_document"] = round(
                r["worker_us_per_document"] - base["per_document_us"], 1
            )
            if r["cluster_cpu_us_per_document"] is not None:
                r["engine_cpu_overhead_us_per_document"] = round(
                    r["process_cpu_us_per_document"]
                    + r["cluster_cpu_us_per_document"]
                    - base["process_cpu_us_per_document"],
                    1,
                )
    print(
        f"\n{len(files)} documents, {mb:.1f} MB, median of {args.rounds} runs, wall time with start-up\n"
    )
    print(
        "| configuration | workers | s | documents/s | fixed s (1 document) | µs per document "
        "| worker µs per document | engine overhead µs per document | nuif process CPU µs per document "
        "| cluster CPU µs per document | engine CPU overhead µs per document |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        overhead = r.get("engine_overhead_us_per_document")
        print(
            f"| {r['configuration']} | {r['workers']} | {r['seconds']:.2f} | {r['documents_per_second']:,} | "
            f"{r['fixed_seconds']:.2f} | {r['per_document_us']:.0f} | {r['worker_us_per_document']:.0f} | "
            f"{'—' if overhead is None else format(overhead, '.0f')} | "
            f"{r['process_cpu_us_per_document']:.0f} | "
            f"{'—' if r['cluster_cpu_us_per_document'] is None else format(r['cluster_cpu_us_per_document'], '.0f')} | "
            f"{'—' if 'engine_cpu_overhead_us_per_document' not in r else format(r['engine_cpu_overhead_us_per_document'], '.0f')} |"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"documents": len(files), "mb": mb, "rows": rows}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
