"""Where ``-o`` (and every other output option) writes: a regular file or a new name is replaced
atomically; anything else that exists — a character device, a FIFO, ``/dev/stdout`` — is written
into, never replaced; a directory or an unwritable name is a ``NUIF_IO`` error naming the path.

Every command that could block (a FIFO, a pipe) runs the installed script in a subprocess with a
timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

import nuif_core

from .conftest import PRETTY, script

#: what `canonicalize` writes: the canonical text and one line feed (NUIF-0 §2.4)
CANONICAL = nuif_core.canonicalize(PRETTY).canonical + b"\n"
PATCH = nuif_core.diff(PRETTY, PRETTY.replace(b"Sign in", b"Log in"))

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="os.mknod of a device needs root"
)
posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/stdout are POSIX")


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("capture_output", "stdout" not in kwargs)
    if "stdout" in kwargs:
        kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([*script(), *argv], timeout=60, check=False, **kwargs)


def _dev_null_copy(tmp_path: Path) -> Path:
    dev = tmp_path / "null"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    return dev


@needs_root
def test_output_to_a_character_device_writes_into_it_and_does_not_replace_it(
    nuif, tmp_path: Path
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    dev = _dev_null_copy(tmp_path)
    r = nuif("canonicalize", str(tmp_path / "a.json"), "-o", str(dev))
    assert r.code == 0, r.err
    assert stat.S_ISCHR(os.lstat(dev).st_mode)  # still the device, not a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "null"]


@posix_only
@pytest.mark.skipif(
    not os.path.exists("/dev/null") or (hasattr(os, "geteuid") and os.geteuid() == 0),
    reason="as root a regression would replace the system's /dev/null (the mknod test covers root)",
)
def test_output_to_dev_null_succeeds_for_a_normal_user(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    proc = _run(["canonicalize", str(tmp_path / "a.json"), "-o", "/dev/null"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"" and proc.stderr == b""


@posix_only
def test_output_to_dev_stdout_of_a_log_opened_for_appending_keeps_what_the_log_held(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    log = tmp_path / "log.txt"
    log.write_bytes(b"earlier lines\n")
    with open(log, "ab") as fh:  # the shell's `>> log.txt`
        proc = _run(["canonicalize", str(tmp_path / "a.json"), "-o", "/dev/stdout"], stdout=fh)
    assert proc.returncode == 0, proc.stderr
    assert log.read_bytes() == b"earlier lines\n" + CANONICAL


@posix_only
def test_output_to_dev_stdout_of_a_file_opened_for_writing_fills_that_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    out = tmp_path / "out.json"
    with open(out, "wb") as fh:  # the shell's `> out.json`
        proc = _run(["canonicalize", str(tmp_path / "a.json"), "-o", "/dev/stdout"], stdout=fh)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == CANONICAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "out.json"]


@posix_only
def test_output_to_dev_stdout_that_is_a_pipe_reaches_the_reader(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    proc = _run(["canonicalize", str(tmp_path / "a.json"), "-o", "/dev/stdout"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == CANONICAL


@posix_only
def test_output_to_a_fifo_writes_into_the_fifo_and_does_not_replace_it(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        proc = _run(["canonicalize", str(tmp_path / "a.json"), "-o", str(fifo)])
        assert proc.returncode == 0, proc.stderr
        # a regression replaces the FIFO by a file: cat never gets a writer and this times out
        got, _ = reader.communicate(timeout=30)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.communicate(timeout=10)
    assert got == CANONICAL
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@posix_only
@pytest.mark.parametrize(
    "command",
    [
        "canonicalize",
        "apply-patch",
        "apply-patch --inverse",
        "diff",
        "pack",
        "batch",
        "batch --summary",
    ],
)
def test_every_output_option_appends_to_dev_stdout_of_a_log_opened_for_appending(
    tmp_path: Path, command: str
) -> None:
    doc = tmp_path / "a.json"
    doc.write_bytes(PRETTY)
    (tmp_path / "p.json").write_bytes(PATCH)
    argv = {
        "canonicalize": ["canonicalize", str(doc), "-o", "/dev/stdout"],
        "apply-patch": ["apply-patch", str(doc), str(tmp_path / "p.json"), "-o", "/dev/stdout"],
        "apply-patch --inverse": [
            "apply-patch",
            str(doc),
            str(tmp_path / "p.json"),
            "-o",
            str(tmp_path / "new.json"),
            "--inverse",
            "/dev/stdout",
        ],
        "diff": ["diff", str(doc), str(doc), "-o", "/dev/stdout"],
        "pack": ["pack", str(doc), "-o", "/dev/stdout"],
        "batch": ["batch", "hash", str(doc), "--serial", "-o", "/dev/stdout"],
        "batch --summary": [
            "batch",
            "hash",
            str(doc),
            "--serial",
            "-o",
            str(tmp_path / "r.jsonl"),
            "--summary",
            "/dev/stdout",
        ],
    }[command]
    log = tmp_path / "log.txt"
    log.write_bytes(b"earlier lines\n")
    with open(log, "ab") as fh:
        proc = _run(argv, stdout=fh)
    assert proc.returncode == 0, proc.stderr
    data = log.read_bytes()
    assert data.startswith(b"earlier lines\n") and len(data) > len(b"earlier lines\n")
    if command == "batch":
        assert json.loads(data.splitlines()[1])["source"] == str(doc)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".nuif-tmp")]


def test_output_into_a_missing_directory_names_the_output_not_a_temporary_file(
    nuif, tmp_path: Path
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    target = tmp_path / "no" / "x.json"
    r = nuif("canonicalize", str(tmp_path / "a.json"), "-o", str(target))
    assert r.code == 2
    assert r.err == f"nuif: NUIF_IO: cannot write {target}: No such file or directory\n"


def test_output_to_a_directory_is_a_nuif_io_error_and_leaves_it_alone(nuif, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    out = tmp_path / "out"
    out.mkdir()
    r = nuif("canonicalize", str(tmp_path / "a.json"), "-o", str(out))
    assert r.code == 2
    assert r.err == f"nuif: NUIF_IO: cannot write {out}: Is a directory\n"
    assert out.is_dir() and list(out.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "out"]


def test_a_batch_report_into_a_directory_is_a_nuif_io_error_before_anything_runs(
    nuif, tmp_path: Path
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    r = nuif("batch", "validate", str(tmp_path / "a.json"), "--serial", "-o", str(tmp_path))
    assert r.code == 2 and r.out == b""
    assert r.err == f"nuif: NUIF_IO: cannot write the report {tmp_path}: Is a directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_output_through_a_symlink_to_a_regular_file_replaces_the_target_and_keeps_the_link(
    nuif, tmp_path: Path
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    (tmp_path / "target.json").write_bytes(b"old")
    os.chmod(tmp_path / "target.json", 0o640)
    (tmp_path / "link.json").symlink_to(tmp_path / "target.json")
    assert (
        nuif("canonicalize", str(tmp_path / "a.json"), "-o", str(tmp_path / "link.json")).code == 0
    )
    assert (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "target.json").read_bytes() == CANONICAL
    assert os.stat(tmp_path / "target.json").st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------------------------------
# long names: the temporary file beside the target never exceeds NAME_MAX


def _name_max(directory: Path) -> int:
    try:
        return min(os.pathconf(directory, "PC_NAME_MAX"), 255)
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no pathconf
        return 255


def _longest_names(directory: Path) -> list[str]:
    """Two valid names of exactly NAME_MAX bytes: ASCII, and two-byte UTF-8 characters (the
    temporary name must not cut a character in two)."""
    n = _name_max(directory)
    ascii_name = "x" * (n - 5) + ".json"
    wide = "é" * ((n - 5) // 2) + "y" * ((n - 5) % 2) + ".json"
    assert len(ascii_name.encode()) == len(wide.encode()) == n
    return [ascii_name, wide]


@pytest.mark.parametrize("which", [0, 1], ids=["ascii", "utf8"])
def test_in_place_and_output_onto_a_name_of_name_max_bytes_do_not_fail_with_file_name_too_long(
    nuif, tmp_path: Path, which: int
) -> None:
    name = _longest_names(tmp_path)[which]
    target = tmp_path / name
    target.write_bytes(PRETTY)
    r = nuif("canonicalize", "--in-place", str(target))
    assert r.code == 0, r.err
    assert target.read_bytes() == CANONICAL
    target.write_bytes(PRETTY)
    r = nuif("canonicalize", str(target), "-o", str(target))
    assert r.code == 0, r.err
    assert target.read_bytes() == CANONICAL
    target.write_bytes(PRETTY)
    r = nuif("json", "canonicalize", "-i", str(target))
    assert r.code == 0, r.err
    assert target.read_bytes() == nuif_core.canonical_json(PRETTY) + b"\n"
    target.write_bytes(PRETTY)
    r = nuif("batch", "canonicalize", "--serial", "-i", str(target), "-o", os.devnull)
    assert r.code == 0, r.err
    assert target.read_bytes() == CANONICAL
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file left


def test_every_output_option_writes_a_new_name_of_name_max_bytes(nuif, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    (tmp_path / "p.json").write_bytes(PATCH)
    out = tmp_path / "out"
    out.mkdir()
    n = _name_max(out)

    def name(tag: str) -> str:
        return str(out / (tag + "x" * (n - len(tag))))

    doc, patch = str(tmp_path / "a.json"), str(tmp_path / "p.json")
    runs = [
        ("canonicalize", doc, "-o", name("c")),
        ("apply-patch", doc, patch, "-o", name("n"), "--inverse", name("i")),
        ("diff", doc, doc, "-o", name("d")),
        ("pack", doc, "-o", name("k")),
        ("batch", "hash", doc, "--serial", "-o", name("r"), "--summary", name("s")),
    ]
    for argv in runs:
        r = nuif(*argv)
        assert r.code == 0, (argv, r.err)
    assert sorted(p.name[0] for p in out.iterdir()) == sorted("cnidkrs")
    assert all(len(os.fsencode(p.name)) == n for p in out.iterdir())


# ---------------------------------------------------------------------------------------------
# two outputs of one command that are one file


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink"])
def test_apply_patch_with_output_and_inverse_naming_the_same_file_is_a_usage_error(
    nuif, tmp_path: Path, spelling: str
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    (tmp_path / "p.json").write_bytes(PATCH)
    (tmp_path / "sub").mkdir()
    out = tmp_path / "X.json"
    other = {
        "same": out,
        "dotted": tmp_path / "sub" / ".." / "X.json",
        "symlink": tmp_path / "link.json",
    }[spelling]
    if spelling == "symlink":
        out.write_bytes(b"old")  # an existing target, named through a link
        other.symlink_to(out)
    r = nuif(
        "apply-patch",
        str(tmp_path / "a.json"),
        str(tmp_path / "p.json"),
        "-o",
        str(out),
        "--inverse",
        str(other),
    )
    assert (r.code, r.out) == (2, b"")
    assert f"-o {out} and --inverse {other} are the same file" in r.err
    assert not out.exists() or out.read_bytes() == b"old"  # nothing written


@posix_only
def test_apply_patch_with_an_inverse_onto_its_stdout_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    (tmp_path / "p.json").write_bytes(PATCH)
    base = ["apply-patch", str(tmp_path / "a.json"), str(tmp_path / "p.json")]
    proc = _run([*base, "--inverse", "/dev/stdout"])  # -o is stdout by default
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert b"-o - and --inverse /dev/stdout are the same file" in proc.stderr
    proc = _run([*base, "--json", "--inverse", "/dev/stdout"])
    assert (proc.returncode, proc.stdout) == (2, b"")
    out = tmp_path / "out.json"
    with open(out, "wb") as fh:  # `> out.json --inverse out.json`: stdout is that file
        proc = _run([*base, "--inverse", str(out)], stdout=fh)
    assert proc.returncode == 2 and b"are the same file" in proc.stderr
    assert out.read_bytes() == b""


def test_batch_report_and_summary_naming_the_same_file_is_a_usage_error(
    nuif, tmp_path: Path
) -> None:
    (tmp_path / "a.json").write_bytes(PRETTY)
    report = tmp_path / "r.json"
    for summary in (str(report), f"{tmp_path}/./r.json"):
        argv = ["batch", "hash", str(tmp_path / "a.json"), "--serial", "-o", str(report)]
        r = nuif(*argv, "--summary", summary)
        assert (r.code, r.out) == (2, b"")
        assert f"-o {report} and --summary {summary} are the same file" in r.err
        assert not report.exists()
