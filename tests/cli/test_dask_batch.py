"""``nuif batch`` on a Dask LocalCluster: 2 worker processes bound to 127.0.0.1.

One cluster serves the module. The report of a few thousand generated documents (valid,
invalid, not canonical, duplicates, unreadable, JSON Lines with bad lines) must equal the
one-process report (``--serial``) and the independent oracle record for record; a worker killed
in the middle of a run (a worker plugin that SIGKILLs its own process once, keyed by a marker
file) must not change a single record; workers with another nuif-core are refused. Every wait
is bounded (pytest-timeout, and timeouts on the cluster calls).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")

import cloudpickle
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

from .batch_corpus import make_jsonl, make_tree, oracle_file, oracle_jsonl
from .conftest import script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

# the plugin below travels to the workers by value (they cannot import this test module)
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def cluster():
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            scheduler_kwargs={"dashboard": False},
            silence_logs=50,  # the killed worker's noise stays out of the test output
        ) as cl,
        Client(cl, set_as_default=False, timeout=60) as client,
    ):
        client.wait_for_workers(2, timeout=60)
        yield cl, client


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory):
    """2,500 document files in a tree, a 1,500-line JSON Lines file, and two missing names."""
    root = tmp_path_factory.mktemp("corpus")
    files = make_tree(root / "tree", 2500)
    lines = root / "lines.jsonl"
    bad = make_jsonl(lines, 1500)
    inputs = [str(root / "tree"), str(lines), str(root / "missing.json"), str(root / "nope-*.json")]
    return root, inputs, files, str(lines), bad


def _report(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _batch(nuif, address: str, *argv: str):
    return nuif("batch", *argv, "--scheduler", address, "--connect-timeout", "60", "--no-progress")


def test_cluster_report_equals_the_one_process_report_record_for_record(
    nuif, cluster, corpus
) -> None:
    cl, _ = cluster
    root, inputs, files, lines, _ = corpus
    # a small partition size: ~100 tasks, the JSON Lines file cut into many ranges
    on_cluster = _batch(
        nuif,
        cl.scheduler_address,
        "validate",
        *inputs,
        "--partition-size",
        "16KiB",
        "--summary",
        str(root / "summary.json"),
    )
    serial = nuif("batch", "validate", *inputs, "--serial")
    assert on_cluster.code == serial.code == 2  # unreadable inputs are reported, not fatal
    assert on_cluster.out == serial.out
    records = _report(on_cluster.text)
    expected = [oracle_file(p) for p in files] + oracle_jsonl(lines)
    assert records[: len(expected)] == expected
    assert [r["source"] for r in records[len(expected) :]] == inputs[2:]
    assert all(r["diagnostics"][0]["code"] == "NUIF_IO" for r in records[len(expected) :])
    # every kind of input is there
    kinds = {(r["valid"], r["changed"]) for r in records}
    assert kinds == {(True, False), (True, True), (False, None), (None, None)}
    summary = json.loads((root / "summary.json").read_text())
    assert summary["documents"] == len(records) and summary["workers"] == 2
    assert summary["tasks"] > 50
    assert summary["duplicates"]["documents"] > 100


def test_the_one_process_cli_agrees_on_every_file(nuif, corpus) -> None:
    """`nuif validate --json` (one process, one file at a time) gives the same verdicts."""
    _, _, files, _, _ = corpus
    readable = [p for p in files if os.path.exists(p)][:400]
    one = nuif("validate", "--json", *readable)
    batch = nuif("batch", "validate", *readable, "--serial")
    assert [{k: v for k, v in r.items() if k != "file"} for r in _report(one.text)] == [
        {k: r[k] for k in ("valid", "hash", "diagnostics", "truncated")}
        for r in _report(batch.text)
    ]


def test_a_bad_jsonl_line_is_reported_by_its_line_on_the_cluster(nuif, cluster, corpus) -> None:
    cl, _ = cluster
    _, _, _, lines, bad = corpus
    r = _batch(nuif, cl.scheduler_address, "hash", lines, "--partition-size", "4KiB")
    assert r.code == 1
    invalid = [
        (x["line"], x["diagnostics"][0]["code"]) for x in _report(r.text) if x["valid"] is False
    ]
    assert invalid == [(n, "NUIF_PARSE") for n in bad] and len(bad) >= 10


class KillOnce(WorkerPlugin):
    """SIGKILL the worker's own process when it starts its ``after``-th nuif task, once per
    cluster: the first worker to create the marker file dies; the rest only count."""

    name = "nuif-kill-once"

    def __init__(self, marker: str, after: int) -> None:
        self.marker = marker
        self.after = after
        self.started = 0

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish != "executing" or not str(key).startswith("nuif-batch"):
            return
        self.started += 1
        if self.started < self.after:
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_killed_mid_run_changes_no_record(nuif, cluster, corpus, tmp_path: Path) -> None:
    cl, client = cluster
    _, inputs, _, _, _ = corpus
    before = set(client.run(os.getpid, wait=True).values())
    marker = tmp_path / "killed"
    client.register_plugin(KillOnce(str(marker), after=8))
    try:
        r = _batch(nuif, cl.scheduler_address, "validate", *inputs, "--partition-size", "16KiB")
    finally:
        client.unregister_worker_plugin(KillOnce.name)
    assert marker.exists(), "no worker was killed"
    killed = int(marker.read_text())
    assert killed in before
    serial = nuif("batch", "validate", *inputs, "--serial")
    assert r.code == serial.code == 2
    assert r.out == serial.out  # nothing lost, nothing twice, same order
    client.wait_for_workers(2, timeout=60)  # the nanny brought a new process up
    after = set(client.run(os.getpid, wait=True).values())
    assert killed not in after and len(after) == 2


def test_in_place_on_the_cluster_rewrites_each_non_canonical_file(
    nuif, cluster, tmp_path: Path
) -> None:
    cl, _ = cluster
    paths = make_tree(tmp_path / "t", 200, seed=7)
    expected = [oracle_file(p) for p in paths]
    r = _batch(
        nuif,
        cl.scheduler_address,
        "canonicalize",
        "-i",
        str(tmp_path / "t"),
        "--partition-size",
        "2KiB",
    )
    assert r.code == 2  # the dangling links
    assert _report(r.text) == expected
    rewritten = sum(1 for x in expected if x["changed"])
    assert rewritten > 20 and f"({rewritten} rewritten)" in r.err
    again = _report(nuif("batch", "canonicalize", str(tmp_path / "t"), "--serial").text)
    assert [x["changed"] for x in again] == [False if x["valid"] else None for x in expected]
    assert [x["hash"] for x in again] == [x["hash"] for x in expected]
    leftovers = list((tmp_path / "t").rglob(".*"))
    assert leftovers == []


def test_workers_with_another_nuif_core_are_refused(nuif, cluster, tmp_path: Path) -> None:
    cl, client = cluster
    (tmp_path / "a.json").write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"screen"}}')

    def set_version(value: str) -> None:
        import nuif_core
        from nuif_cli import _batch_work

        nuif_core.__version__ = value
        _batch_work.versions.cache_clear()

    import nuif_core

    client.run(set_version, "0.0.0-other", wait=True)
    try:
        r = _batch(nuif, cl.scheduler_address, "validate", str(tmp_path / "a.json"))
    finally:
        client.run(set_version, nuif_core.__version__, wait=True)
    assert r.code == 3 and r.out == b""
    assert "NUIF_CLUSTER" in r.err and "nuif-core 0.0.0-other" in r.err
    assert "install the same nuif-core and nuif-cli wheels on every worker" in r.err
    assert _batch(nuif, cl.scheduler_address, "validate", str(tmp_path / "a.json")).code == 0


def test_the_scheduler_comes_from_nuif_scheduler(
    nuif, cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cl, _ = cluster
    (tmp_path / "a.json").write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"screen"}}')
    monkeypatch.setenv("NUIF_SCHEDULER", cl.scheduler_address)
    r = nuif("batch", "hash", str(tmp_path / "a.json"), "--no-progress")
    assert r.code == 0 and "2 Dask workers" in r.err


def test_an_unreachable_scheduler_is_a_clear_error(nuif, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"screen"}}')
    r = nuif(
        "batch",
        "hash",
        str(tmp_path / "a.json"),
        "--scheduler",
        "tcp://127.0.0.1:9",
        "--connect-timeout",
        "2",
    )
    assert r.code == 3 and r.out == b""
    assert "NUIF_CLUSTER: cannot reach the scheduler at tcp://127.0.0.1:9" in r.err


def test_the_script_starts_its_own_local_cluster_and_keeps_the_bar_off_pipes(
    tmp_path: Path,
) -> None:
    paths = make_tree(tmp_path / "t", 40, seed=3)
    proc = subprocess.run(
        [
            *script(),
            "batch",
            "hash",
            str(tmp_path / "t"),
            "--engine",
            "dask",
            "-j",
            "2",
            "-o",
            str(tmp_path / "r.jsonl"),
        ],
        capture_output=True,
        timeout=150,
        env={**os.environ, "NUIF_SCHEDULER": ""},
    )
    assert proc.returncode == 2, proc.stderr  # dangling links
    assert _report((tmp_path / "r.jsonl").read_text()) == [oracle_file(p) for p in paths]
    assert b"2 Dask workers" in proc.stderr
    assert b"\r" not in proc.stderr and b"\x1b" not in proc.stderr


def _script_batch(address: str, *argv: str) -> subprocess.CompletedProcess:
    # a subprocess with a timeout: a worker that blocks on an input fails the test, not the suite
    return subprocess.run(
        [
            *script(),
            "batch",
            *argv,
            "--scheduler",
            address,
            "--connect-timeout",
            "60",
            "--no-progress",
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_tree_is_reported_on_the_cluster_without_being_opened(
    cluster, tmp_path: Path
) -> None:
    cl, _ = cluster
    paths = make_tree(tmp_path / "t", 30, seed=11)
    fifo = tmp_path / "t" / "d0" / "e0" / "fifo.json"
    os.mkfifo(fifo)
    r = _script_batch(cl.scheduler_address, "validate", str(tmp_path / "t"))
    assert r.returncode == 2, r.stderr
    records = _report(r.stdout.decode())
    expected = sorted([*paths, str(fifo)])
    assert [x["source"] for x in records] == expected
    [refused] = [x for x in records if x["source"] == str(fifo)]
    assert refused["valid"] is None and refused["diagnostics"][0]["code"] == "NUIF_IO"
    assert "not a regular file (a FIFO)" in refused["diagnostics"][0]["message"]
    assert [x for x in records if x["source"] != str(fifo)] == [oracle_file(p) for p in paths]


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names are Unicode there")
def test_an_undecodable_file_name_on_the_cluster_is_reported_and_not_blamed_on_the_cluster(
    cluster, tmp_path: Path
) -> None:
    cl, _ = cluster
    (tmp_path / "a.json").write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"screen"}}')
    raw = os.fsencode(str(tmp_path)) + b"/\xff.json"
    try:
        with open(raw, "wb") as fh:
            fh.write(b'{"nuif":0,"root":{"id":"b","kind":"screen"}}')
    except OSError as exc:
        pytest.skip(f"cannot create a file name that is not UTF-8 here: {exc}")
    r = _script_batch(cl.scheduler_address, "hash", str(tmp_path))
    assert r.returncode == 0, r.stderr
    records = _report(r.stdout.decode("utf-8"))
    assert [x["valid"] for x in records] == [True, True]
    assert records[1]["source"] == str(tmp_path) + "/\\xff.json"
    assert bytes.fromhex(records[1]["source_hex"]) == raw
