"""What ``nuif batch`` reads: regular files only (a FIFO, a socket or a device is a ``NUIF_IO``
record and is never opened), globs that do not follow symbolic links to directories (one record
per real file), names that are not UTF-8 (reported losslessly, every other document still gets
its record), a malformed ``--scheduler``, and SIGTERM (the temporary report is removed).

What could hang (a FIFO, a symlink loop) runs the installed script in a subprocess with a
timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nuif_core
from nuif_cli import _batch_work as work

from .batch_corpus import document
from .conftest import PRETTY, script

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets and devices are POSIX")


def _batch(*argv: str, timeout: float = 60, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*script(), "batch", *argv],
        capture_output=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env={**os.environ, "NUIF_SCHEDULER": ""},
    )


def _report(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def _not_regular(record: dict, path: str) -> None:
    assert record["source"] == path
    assert (record["valid"], record["bytes"], record["hash"], record["changed"]) == (
        None,
        None,
        None,
        None,
    )
    [diag] = record["diagnostics"]
    assert diag["code"] == "NUIF_IO" and "not a regular file" in diag["message"]


# ---------------------------------------------------------------------------------------------
# regular files only


@posix_only
@pytest.mark.parametrize("how", ["walk", "named", "glob", "jsonl"])
def test_batch_reports_a_fifo_as_not_a_regular_file_without_opening_it(
    tmp_path: Path, how: str
) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.json").write_bytes(document(1))
    fifo = d / ("b.jsonl" if how == "jsonl" else "b.json")
    os.mkfifo(fifo)
    (d / "c.json").write_bytes(document(2))
    inputs = {
        "walk": [str(d)],
        "named": [str(d / "a.json"), str(fifo), str(d / "c.json")],
        "glob": [str(d / "*.json")],
        "jsonl": [str(d / "a.json"), str(fifo), str(d / "c.json")],
    }[how]
    proc = _batch("validate", *inputs, "--serial")  # a FIFO that is opened blocks: TimeoutExpired
    assert proc.returncode == 2, proc.stderr
    records = _report(proc.stdout)
    assert [r["source"] for r in records] == [str(d / "a.json"), str(fifo), str(d / "c.json")]
    assert records[0]["valid"] is records[2]["valid"] is True
    _not_regular(records[1], str(fifo))
    assert b"1 unreadable" in proc.stderr


@posix_only
def test_a_batch_task_never_blocks_on_a_fifo_that_replaced_a_planned_file(tmp_path: Path) -> None:
    """The worker side (a file swapped for a FIFO after planning): checked again, not opened."""
    fifo = tmp_path / "a.json"
    os.mkfifo(fifo)
    code = (
        "import sys; from nuif_cli import _batch_work as w\n"
        "r = w.run_task(('files', [sys.argv[1]]), {}).records[0]\n"
        "print(r[2], r[5][0][0], r[5][0][1])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(fifo)], capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().startswith("None NUIF_IO not a regular file")


@posix_only
def test_batch_reports_a_unix_socket_without_opening_it(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
    except OSError as exc:  # a path too long for sun_path
        server.close()
        pytest.skip(f"cannot bind a unix socket here: {exc}")
    try:
        proc = _batch("hash", str(tmp_path), "--serial")
    finally:
        server.close()
    assert proc.returncode == 2, proc.stderr
    [record] = _report(proc.stdout)
    _not_regular(record, str(path))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_batch_reports_a_link_to_dev_zero_as_not_a_regular_file_not_as_zero_bytes(
    tmp_path: Path,
) -> None:
    (tmp_path / "z.json").symlink_to("/dev/zero")
    proc = _batch("validate", str(tmp_path), "--serial")
    assert proc.returncode == 2, proc.stderr
    [record] = _report(proc.stdout)
    _not_regular(record, str(tmp_path / "z.json"))


@posix_only
def test_validate_still_reads_a_pipe_named_explicitly_like_process_substitution(
    tmp_path: Path,
) -> None:
    """`nuif validate <(cat a.json)` names /dev/fd/N, a pipe: single-file commands read it."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, PRETTY)
        os.close(write_end)
        write_end = -1
        proc = subprocess.run(
            [*script(), "validate", "--json", f"/dev/fd/{read_end}"],
            pass_fds=(read_end,),
            capture_output=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(read_end)
        if write_end != -1:
            os.close(write_end)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hash"] == nuif_core.canonicalize(PRETTY).hash


# ---------------------------------------------------------------------------------------------
# globs and symbolic links


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_glob_does_not_follow_symlink_loops_and_gives_one_record_per_file(tmp_path: Path) -> None:
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "a.json").write_bytes(document(1))
    (d / "sub" / "b.json").write_bytes(document(2))
    os.symlink(".", d / "loop1")
    os.symlink(".", d / "loop2")  # two loops: 2^depth paths through links
    os.symlink("..", d / "sub" / "up")
    proc = _batch(
        "validate", str(d / "**" / "*.json"), "--serial"
    )  # a regression explodes: timeout
    assert proc.returncode == 0, proc.stderr
    assert [r["source"] for r in _report(proc.stdout)] == [
        str(d / "a.json"),
        str(d / "sub" / "b.json"),
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_in_place_through_a_glob_with_a_symlink_loop_rewrites_each_file_once(
    tmp_path: Path,
) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.json").write_bytes(document(1, pretty=True))
    os.symlink(".", d / "loop")
    proc = _batch("canonicalize", "-i", str(d / "**" / "*.json"), "--serial")
    assert proc.returncode == 0, proc.stderr
    [record] = _report(proc.stdout)
    assert record["source"] == str(d / "a.json") and record["changed"] is True
    assert b"1 documents" in proc.stderr and b"(1 rewritten)" in proc.stderr


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_glob_matching_a_symlinked_directory_and_its_target_gives_each_file_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.json").write_bytes(document(1))
    os.symlink("real", tmp_path / "alias")
    got = list(work.expand([str(tmp_path / "*")]))
    assert [item.path for item in got] == [str(tmp_path / "alias" / "a.json")]


@pytest.mark.parametrize(
    "pattern",
    [
        "**/*.json",
        "*.json",
        "d/**/*.json",
        "d/*/*.json",
        "**",
        "d/**",
        "*/*",
        "d/[ab]*.json",
        "d/**/x/*.json",
        "**/.h*/*.json",
        ".*/*.json",
        "d/e/?.json",
    ],
)
def test_batch_globs_match_what_python_globs_match_without_symlinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    for name in (
        "a.json",
        "b.txt",
        ".hidden.json",
        "d/a.json",
        "d/b.json",
        "d/e/c.json",
        "d/e/x/y.json",
        "d/x/z.json",
        "d/.h/h.json",
        ".top/t.json",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"{}")
    monkeypatch.chdir(tmp_path)
    assert work.glob_paths(pattern) == sorted(glob.glob(pattern, recursive=True))
    absolute = str(tmp_path / pattern)
    assert work.glob_paths(absolute) == sorted(glob.glob(absolute, recursive=True))


# ---------------------------------------------------------------------------------------------
# names that are not UTF-8


def _undecodable(directory: Path) -> str:
    raw = os.fsencode(str(directory)) + b"/caf\xe9-\xff.json"
    try:
        fd = os.open(raw, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except (OSError, ValueError) as exc:  # a file system that insists on UTF-8 names
        pytest.skip(f"cannot create a file name that is not UTF-8 here: {exc}")
    os.write(fd, document(3, pretty=True))
    os.close(fd)
    return os.fsdecode(raw)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names are Unicode there")
@pytest.mark.parametrize("form", ["walk", "named", "glob"])
def test_an_undecodable_file_name_gets_its_record_and_every_other_document_its_own(
    tmp_path: Path, form: str
) -> None:
    (tmp_path / "a.json").write_bytes(document(1))
    bad = _undecodable(tmp_path)
    (tmp_path / "z.json").write_bytes(document(2))
    inputs = {
        "walk": [str(tmp_path)],
        "named": [str(tmp_path / "a.json"), bad, str(tmp_path / "z.json")],
        "glob": [str(tmp_path / "*.json")],
    }[form]
    proc = _batch("canonicalize", *inputs, "--serial", "-o", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 1, proc.stderr  # the pretty one is not canonical; nothing failed
    records = _report((tmp_path / "r.jsonl").read_bytes())  # valid UTF-8 JSON Lines
    assert [r["valid"] for r in records] == [True, True, True]
    assert [r["changed"] for r in records] == [False, True, False]
    shown = os.fsencode(bad).decode("utf-8", "backslashreplace")
    assert records[1]["source"] == shown and shown.endswith("/caf\\xe9-\\xff.json")
    assert bytes.fromhex(records[1]["source_hex"]) == os.fsencode(bad)  # lossless
    assert records[0]["source_hex"] is None and records[2]["source_hex"] is None
    assert records[0]["source"] == str(tmp_path / "a.json")


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names are Unicode there")
def test_an_undecodable_file_name_fits_a_parquet_report(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    bad = _undecodable(tmp_path)
    proc = _batch("hash", str(tmp_path), "--serial", "-o", str(tmp_path / "r.parquet"))
    assert proc.returncode == 0, proc.stderr
    [row] = pq.read_table(tmp_path / "r.parquet").to_pylist()
    assert bytes.fromhex(row["source_hex"]) == os.fsencode(bad)
    assert row["source"] == os.fsencode(bad).decode("utf-8", "backslashreplace")


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="file names are Unicode there")
def test_a_too_large_document_with_an_undecodable_name_keeps_the_report_utf8(
    tmp_path: Path,
) -> None:
    bad = _undecodable(tmp_path)
    with open(os.fsencode(bad), "r+b") as fh:
        fh.truncate(nuif_core.Limits.DEFAULT.max_document_bytes + 1)
    proc = _batch("validate", bad, "--serial")
    assert proc.returncode == 1, proc.stderr
    [record] = _report(proc.stdout)
    assert record["diagnostics"][0]["code"] == "NUIF_TOO_LARGE"
    assert record["bytes"] == nuif_core.Limits.DEFAULT.max_document_bytes + 1


# ---------------------------------------------------------------------------------------------
# the cluster: a malformed address, and SIGTERM while the report is being written


@pytest.mark.parametrize("address", ["foo://bar", "tcp://", "tcp://host:notaport", "::::"])
def test_a_malformed_scheduler_address_is_a_cluster_error_without_a_traceback(
    tmp_path: Path, address: str
) -> None:
    pytest.importorskip("distributed")
    (tmp_path / "a.json").write_bytes(document(1))
    proc = _batch(
        "hash",
        str(tmp_path / "a.json"),
        "--scheduler",
        address,
        "--connect-timeout",
        "5",
        "-o",
        str(tmp_path / "r.jsonl"),
    )
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert err.startswith(f"nuif: NUIF_CLUSTER: the scheduler address {address!r} is not valid")
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


@posix_only
def test_sigterm_during_a_batch_removes_the_temporary_report(tmp_path: Path) -> None:
    """The run waits on a scheduler that accepts connections and never answers (a listening
    socket nobody accepts on): the temporary report exists, the run cannot end by itself within
    the test's bounds, and SIGTERM is sent while it waits."""
    pytest.importorskip("distributed")
    (tmp_path / "a.json").write_bytes(document(1))
    out = tmp_path / "out"
    out.mkdir()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
    proc = subprocess.Popen(
        [
            *script(),
            "batch",
            "hash",
            str(tmp_path / "a.json"),
            "--scheduler",
            address,
            "--connect-timeout",
            "120",
            "-o",
            str(out / "r.jsonl"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not list(out.iterdir()):
            assert proc.poll() is None, proc.communicate(timeout=10)
            assert time.monotonic() < deadline, "the temporary report never appeared"
            time.sleep(0.02)
        [tmp] = list(out.iterdir())
        assert tmp.name.startswith(".r.jsonl.") and tmp.name.endswith(".nuif-tmp")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        silent.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert list(out.iterdir()) == []
    assert proc.returncode == 143, err
    assert err.decode().endswith("nuif: terminated\n") and b"Traceback" not in err
