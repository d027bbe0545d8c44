"""Every ``nuif`` command in-process through ``main([...])``: success, failure, exit codes, stdio."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import nuif_core
from nuif_core import package

from .conftest import INVALID, PRETTY

HAS_PATCH = hasattr(nuif_core, "apply_patch") and hasattr(nuif_core, "diff")
needs_patch = pytest.mark.skipif(not HAS_PATCH, reason="nuif_core.apply_patch/diff not landed yet")

CANONICAL = nuif_core.canonicalize(PRETTY).canonical
HASH = nuif_core.canonicalize(PRETTY).hash


# ---------------------------------------------------------------------------------------------
# general


def test_version_names_both_distributions(nuif) -> None:
    r = nuif("--version")
    assert r.code == 0
    m = re.match(
        r"nuif \S+ \(nuif-core \S+, (compiled|python) codec(?: \[(.*)\])?, Python \S+\)", r.text
    )
    assert m, r.text
    assert nuif_core.__version__ in r.text
    if m.group(1) == "compiled":  # the compiled codec names its float, hash, scan and UTF-8 routes
        from nuif_core import _codec

        assert m.group(2) == ", ".join(_codec.routes())
        assert len(_codec.routes()) == 4


def test_no_command_is_a_usage_error(nuif) -> None:
    r = nuif()
    assert r.code == 2
    assert "a command is required" in r.err


def test_unknown_option_is_a_usage_error(nuif) -> None:
    assert nuif("hash", "--frobnicate", "x").code == 2


def test_help_exits_zero(nuif) -> None:
    r = nuif("--help")
    assert r.code == 0
    for command in (
        "validate",
        "inspect",
        "canonicalize",
        "hash",
        "apply-patch",
        "diff",
        "pack",
        "unpack",
        "verify",
        "demo",
    ):
        assert command in r.text


def test_errors_are_one_short_line_without_verbose(nuif, docs: Path) -> None:
    r = nuif("inspect", str(docs / "invalid.json"))
    assert r.code == 1
    assert r.err.startswith(f"{docs / 'invalid.json'}:1:28: NUIF_ID id ")
    assert r.err.count("\n") == 1
    assert "Traceback" not in r.err
    assert r.out == b""


def test_verbose_shows_the_traceback(nuif, docs: Path) -> None:
    r = nuif("inspect", "-v", str(docs / "invalid.json"))
    assert r.code == 1
    assert "Traceback" in r.err and f"{docs / 'invalid.json'}:1:28: NUIF_ID " in r.err
    assert nuif("-v", "inspect", str(docs / "invalid.json")).err.count("Traceback") == 1


def test_a_missing_file_is_exit_2_with_its_name(nuif, tmp_path: Path) -> None:
    r = nuif("inspect", str(tmp_path / "nope.json"))
    assert r.code == 2
    assert "nope.json" in r.err and "No such file" in r.err


# ---------------------------------------------------------------------------------------------
# validate


def test_validate_valid_files_prints_nothing_and_exits_0(nuif, docs: Path) -> None:
    r = nuif("validate", str(docs / "pretty.json"), str(docs / "canonical.json"))
    assert (r.code, r.out, r.err) == (0, b"", "")


def test_validate_reports_every_diagnostic_as_file_line_col_code(nuif, docs: Path) -> None:
    path = str(docs / "invalid.json")
    r = nuif("validate", path)
    assert r.code == 1
    lines = r.text.splitlines()
    assert [line.split(" ")[1] for line in lines] == ["NUIF_ID", "NUIF_KIND", "NUIF_ATTR"]
    for line, d in zip(lines, nuif_core.validate(INVALID).diagnostics, strict=True):
        assert line.startswith(f"{path}:{d.line}:{d.column}: {d.code} {d.message}")


def test_validate_reports_syntax_errors_with_line_and_column(nuif, docs: Path) -> None:
    r = nuif("validate", str(docs / "broken.json"))
    assert r.code == 1
    assert re.fullmatch(rf"{re.escape(str(docs / 'broken.json'))}:2:11: NUIF_PARSE .*\n", r.text)


def test_validate_reads_stdin(nuif) -> None:
    r = nuif("validate", "-", stdin=INVALID)
    assert r.code == 1 and r.text.startswith("<stdin>:1:")
    assert nuif("validate", "-", stdin=PRETTY).code == 0


def test_validate_mixed_batch_exits_with_the_worst_status(nuif, docs: Path) -> None:
    r = nuif(
        "validate",
        str(docs / "pretty.json"),
        str(docs / "invalid.json"),
        str(docs / "missing.json"),
    )
    assert r.code == 2
    assert "1 of 3" not in r.err and "2 of 3 files are invalid or unreadable" in r.err


def test_validate_json_prints_one_report_per_line(nuif, docs: Path) -> None:
    r = nuif("validate", "--json", str(docs / "pretty.json"), str(docs / "invalid.json"))
    assert r.code == 1
    first, second = (json.loads(line) for line in r.text.splitlines())
    assert first == {"file": str(docs / "pretty.json"), **nuif_core.validate(PRETTY).to_dict()}
    assert [d["code"] for d in second["diagnostics"]] == ["NUIF_ID", "NUIF_KIND", "NUIF_ATTR"]


def test_validate_max_diagnostics_truncates_and_says_so(nuif, docs: Path) -> None:
    r = nuif("validate", "--max-diagnostics", "1", str(docs / "invalid.json"))
    assert r.code == 1
    assert len(r.text.splitlines()) == 2 and "more diagnostics not shown" in r.text


# ---------------------------------------------------------------------------------------------
# inspect


def test_inspect_prints_a_readable_summary(nuif, docs: Path) -> None:
    r = nuif("inspect", str(docs / "pretty.json"))
    assert r.code == 0
    assert f"hash       {HASH}" in r.text
    assert "canonical  no" in r.text
    assert "root       login (screen)" in r.text
    assert "    login.email  input" in r.text


def test_inspect_json_equals_the_api(nuif, docs: Path) -> None:
    r = nuif("inspect", "--json", "-", stdin=PRETTY)
    assert r.code == 0
    assert json.loads(r.text) == {
        "file": "-",
        **nuif_core.inspect(PRETTY, max_outline_nodes=50).to_dict(),
    }


# ---------------------------------------------------------------------------------------------
# canonicalize


def test_canonicalize_writes_exact_canonical_bytes_to_stdout(nuif, docs: Path) -> None:
    r = nuif("canonicalize", str(docs / "pretty.json"))
    assert (r.code, r.out) == (0, CANONICAL + b"\n")


def test_canonicalize_stdin_to_a_file(nuif, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    r = nuif("canonicalize", "-", "-o", str(out), stdin=PRETTY)
    assert r.code == 0 and r.out == b""
    assert out.read_bytes() == CANONICAL + b"\n"


def test_canonicalize_invalid_document_exits_1(nuif, docs: Path) -> None:
    r = nuif("canonicalize", str(docs / "invalid.json"))
    assert (
        r.code == 1 and r.out == b"" and r.err.startswith(f"{docs / 'invalid.json'}:1:28: NUIF_ID")
    )


def test_canonicalize_check_lists_non_canonical_files_and_exits_1(nuif, docs: Path) -> None:
    r = nuif("canonicalize", "--check", str(docs / "canonical.json"), str(docs / "pretty.json"))
    assert r.code == 1
    assert r.text == f"{docs / 'pretty.json'}\n"
    assert "1 of 2 files are not canonical" in r.err


def test_canonicalize_check_passes_on_canonical_files(nuif, docs: Path) -> None:
    r = nuif("canonicalize", "--check", str(docs / "canonical.json"))
    assert (r.code, r.out, r.err) == (0, b"", "")


def test_canonicalize_check_reports_invalid_files_on_stderr(nuif, docs: Path) -> None:
    r = nuif("canonicalize", "--check", str(docs / "invalid.json"))
    assert r.code == 1 and r.out == b""
    assert f"{docs / 'invalid.json'}:1:28: NUIF_ID" in r.err


def test_canonicalize_in_place_rewrites_only_what_changes(nuif, docs: Path) -> None:
    canonical = docs / "canonical.json"
    os.utime(canonical, (1_000_000, 1_000_000))
    os.chmod(docs / "pretty.json", 0o640)
    r = nuif("canonicalize", "--in-place", str(docs / "pretty.json"), str(canonical))
    assert r.code == 0
    assert (docs / "pretty.json").read_bytes() == CANONICAL + b"\n"
    assert os.stat(docs / "pretty.json").st_mode & 0o777 == 0o640
    assert os.stat(canonical).st_mtime == 1_000_000  # untouched
    assert "1 file canonicalized, 1 already canonical" in r.err
    assert sorted(p.name for p in docs.iterdir()) == [
        "broken.json",
        "canonical.json",
        "invalid.json",
        "pretty.json",
    ]


def test_canonicalize_in_place_is_atomic_when_the_rename_fails(
    nuif, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    r = nuif("canonicalize", "--in-place", str(docs / "pretty.json"))
    assert r.code == 2
    assert "No space left on device" in r.err
    assert (docs / "pretty.json").read_bytes() == PRETTY
    assert sorted(p.name for p in docs.iterdir()) == [
        "broken.json",
        "canonical.json",
        "invalid.json",
        "pretty.json",
    ]


def test_canonicalize_in_place_follows_symlinks(nuif, docs: Path) -> None:
    link = docs / "link.json"
    link.symlink_to(docs / "pretty.json")
    assert nuif("canonicalize", "-i", str(link)).code == 0
    assert link.is_symlink()
    assert (docs / "pretty.json").read_bytes() == CANONICAL + b"\n"


def test_canonicalize_usage_errors(nuif, docs: Path) -> None:
    a, b = str(docs / "pretty.json"), str(docs / "canonical.json")
    assert nuif("canonicalize", a, b).code == 2  # several files, one output
    assert nuif("canonicalize", "--check", "--in-place", a).code == 2
    assert nuif("canonicalize", "--check", "-o", "x", a).code == 2
    assert nuif("canonicalize", "--in-place", "-").code == 2
    assert nuif("canonicalize", "--check", "-", "-").code == 2  # stdin can be read once


def test_canonicalize_stdin_to_stdout(nuif) -> None:
    r = nuif("canonicalize", "-", "-o", "-", stdin=PRETTY)
    assert (r.code, r.out) == (0, CANONICAL + b"\n")


# ---------------------------------------------------------------------------------------------
# hash


def test_hash_prints_sha256sum_style_lines(nuif, docs: Path) -> None:
    r = nuif("hash", str(docs / "pretty.json"), str(docs / "canonical.json"))
    assert r.code == 0
    assert r.text == f"{HASH}  {docs / 'pretty.json'}\n{HASH}  {docs / 'canonical.json'}\n"


def test_hash_of_stdin(nuif) -> None:
    r = nuif("hash", "-", stdin=PRETTY)
    assert r.text == f"{HASH}  -\n"


def test_hash_invalid_document_exits_1_and_hashes_the_rest(nuif, docs: Path) -> None:
    r = nuif("hash", str(docs / "invalid.json"), str(docs / "pretty.json"))
    assert r.code == 1
    assert r.text == f"{HASH}  {docs / 'pretty.json'}\n"
    assert "NUIF_ID" in r.err


def test_hash_check_accepts_its_own_output(nuif, docs: Path, tmp_path: Path) -> None:
    listing = tmp_path / "sums.txt"
    listing.write_bytes(nuif("hash", str(docs / "pretty.json"), str(docs / "canonical.json")).out)
    r = nuif("hash", "--check", str(listing))
    assert r.code == 0
    assert r.text == f"{docs / 'pretty.json'}: OK\n{docs / 'canonical.json'}: OK\n"


def test_hash_check_reports_mismatches_and_missing_files(nuif, docs: Path) -> None:
    other = "sha256:" + "0" * 64
    listing = f"{HASH}  {docs / 'pretty.json'}\n{other}  {docs / 'canonical.json'}\n{HASH}  {docs / 'gone.json'}\n"
    r = nuif("hash", "--check", "-", stdin=listing.encode())
    assert r.code == 1
    assert r.text.splitlines() == [
        f"{docs / 'pretty.json'}: OK",
        f"{docs / 'canonical.json'}: FAILED",
        f"{docs / 'gone.json'}: FAILED open or read",
    ]
    assert "2 of 3 computed hashes did NOT match" in r.err


def test_hash_check_rejects_malformed_lines(nuif, docs: Path) -> None:
    r = nuif(
        "hash",
        "--check",
        "-",
        stdin=f"md5 {docs / 'pretty.json'}\n{HASH}  {docs / 'pretty.json'}\n".encode(),
    )
    assert r.code == 1
    assert "<stdin>:1: not a 'sha256:<hex>  FILE' line" in r.err


def test_hash_usage_errors(nuif, docs: Path) -> None:
    assert nuif("hash").code == 2
    assert nuif("hash", str(docs / "pretty.json"), "--check", "x").code == 2
    assert nuif("hash", "-", "-").code == 2


# ---------------------------------------------------------------------------------------------
# apply-patch and diff


PATCH = json.dumps(
    {
        "nuif_patch": 0,
        "transactions": [
            {
                "ops": [
                    {"op": "set", "id": "login.submit", "attr": "primary", "value": False},
                    {
                        "op": "insert",
                        "parent": "login",
                        "index": 1,
                        "node": {"id": "login.password", "kind": "input"},
                    },
                ]
            }
        ],
    }
).encode()


@needs_patch
def test_apply_patch_writes_the_new_document_and_the_inverse(
    nuif, docs: Path, tmp_path: Path
) -> None:
    (tmp_path / "p.json").write_bytes(PATCH)
    out, inverse = tmp_path / "new.json", tmp_path / "undo.json"
    r = nuif(
        "apply-patch",
        str(docs / "pretty.json"),
        str(tmp_path / "p.json"),
        "-o",
        str(out),
        "--inverse",
        str(inverse),
    )
    assert r.code == 0
    expected = nuif_core.apply_patch(PRETTY, PATCH, inverse=True)
    assert out.read_bytes() == expected.canonical
    assert inverse.read_bytes() == expected.inverse
    back = nuif("apply-patch", str(out), str(inverse))
    assert back.out == CANONICAL


@needs_patch
def test_apply_patch_reads_the_patch_from_stdin_and_prints_json(nuif, docs: Path) -> None:
    r = nuif("apply-patch", str(docs / "pretty.json"), "-", "--json", stdin=PATCH)
    assert r.code == 0
    assert json.loads(r.text) == nuif_core.apply_patch(PRETTY, PATCH).to_dict()


@needs_patch
def test_apply_patch_failure_exits_1_with_the_code(nuif, docs: Path) -> None:
    bad = b'{"nuif_patch":0,"transactions":[{"ops":[{"op":"remove","id":"nope"}]}]}'
    r = nuif("apply-patch", str(docs / "pretty.json"), "-", stdin=bad)
    assert r.code == 1 and r.out == b""
    assert r.err.startswith("<stdin>:1:61: NUIF_PATCH_NOT_FOUND")


def test_apply_patch_usage_errors(nuif, docs: Path) -> None:
    assert nuif("apply-patch", "-", "-").code == 2
    assert nuif("apply-patch", str(docs / "pretty.json")).code == 2


@needs_patch
def test_diff_prints_a_patch_that_reproduces_b(nuif, docs: Path, tmp_path: Path) -> None:
    new = nuif_core.apply_patch(PRETTY, PATCH).canonical
    (tmp_path / "b.json").write_bytes(new)
    r = nuif("diff", str(docs / "pretty.json"), str(tmp_path / "b.json"))
    assert r.code == 0
    assert r.out == nuif_core.diff(PRETTY, new)
    assert nuif_core.apply_patch(PRETTY, r.out).canonical == new
    assert (
        nuif("diff", "--exit-code", str(docs / "pretty.json"), str(tmp_path / "b.json")).code == 1
    )
    assert nuif("diff", "--exit-code", str(docs / "pretty.json"), "-", stdin=CANONICAL).code == 0


@needs_patch
def test_diff_of_an_invalid_document_exits_1(nuif, docs: Path) -> None:
    r = nuif("diff", str(docs / "pretty.json"), str(docs / "invalid.json"))
    assert r.code == 1 and r.err.startswith(f"{docs / 'invalid.json'}:1:28: NUIF_ID")


# ---------------------------------------------------------------------------------------------
# packages


@pytest.fixture
def assets(tmp_path: Path) -> Path:
    root = tmp_path / "assets"
    (root / "img").mkdir(parents=True)
    (root / "img" / "logo.png").write_bytes(b"\x89PNG fake")
    (root / "notes.txt").write_bytes(b"hello")
    return root


def test_pack_verify_unpack_round_trip(nuif, docs: Path, assets: Path, tmp_path: Path) -> None:
    pkg = tmp_path / "screen.nuif"
    r = nuif("pack", str(docs / "pretty.json"), "--assets", str(assets), "-o", str(pkg))
    assert (r.code, r.out, r.err) == (0, b"", "")
    assert pkg.read_bytes() == package.pack_dir(PRETTY, assets)
    r = nuif("verify", str(pkg))
    assert r.code == 0
    assert r.text == f"{pkg}: OK {HASH} (2 assets, {package.verify(pkg).total_bytes} bytes)\n"
    r = nuif("unpack", str(pkg), "-o", str(tmp_path / "out"))
    assert r.code == 0 and r.text.startswith(HASH)
    assert (tmp_path / "out" / "document.json").read_bytes() == CANONICAL
    assert (tmp_path / "out" / "assets" / "img" / "logo.png").read_bytes() == b"\x89PNG fake"
    repacked = tmp_path / "again.nuif"
    assert (
        nuif(
            "pack",
            str(tmp_path / "out" / "document.json"),
            "--assets",
            str(tmp_path / "out" / "assets"),
            "-o",
            str(repacked),
        ).code
        == 0
    )
    assert repacked.read_bytes() == pkg.read_bytes()


def test_pack_to_stdout_and_unpack_from_stdin(nuif, docs: Path, tmp_path: Path) -> None:
    r = nuif("pack", "-", "-o", "-", stdin=PRETTY)
    assert r.code == 0 and r.out == package.pack(PRETTY)
    r2 = nuif("unpack", "-", "-o", str(tmp_path / "x"), stdin=r.out)
    assert r2.code == 0
    assert nuif("verify", "--json", "-", stdin=r.out).code == 0


def test_pack_refuses_an_invalid_document(nuif, docs: Path, tmp_path: Path) -> None:
    r = nuif("pack", str(docs / "invalid.json"), "-o", str(tmp_path / "x.nuif"))
    assert r.code == 1 and r.err.startswith(f"{docs / 'invalid.json'}:1:28: NUIF_ID")
    assert not (tmp_path / "x.nuif").exists()


def test_pack_requires_an_output(nuif, docs: Path) -> None:
    assert nuif("pack", str(docs / "pretty.json")).code == 2


def test_verify_refuses_a_tampered_package(nuif, tmp_path: Path) -> None:
    import zipfile

    good = package.pack(PRETTY, {"assets/a.txt": b"original"})
    tampered = tmp_path / "bad.nuif"
    with zipfile.ZipFile(tampered, "w") as zf:
        src = zipfile.ZipFile(__import__("io").BytesIO(good))
        for info in src.infolist():
            data = b"replaced" if info.filename == "assets/a.txt" else src.read(info)
            zf.writestr(info.filename, data)
    r = nuif("verify", str(tampered))
    assert r.code == 1
    assert r.err.startswith(f"{tampered}: NUIF_PACKAGE entry 'assets/a.txt' has sha256")
    out = tmp_path / "out"
    assert nuif("unpack", str(tampered), "-o", str(out)).code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.nuif"]


def test_unpack_into_a_non_empty_directory_is_exit_2(nuif, tmp_path: Path) -> None:
    (tmp_path / "pkg.nuif").write_bytes(package.pack(PRETTY))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine").write_text("keep")
    r = nuif("unpack", str(tmp_path / "pkg.nuif"), "-o", str(tmp_path / "out"))
    assert r.code == 2 and "not an empty directory" in r.err
    assert (tmp_path / "out" / "mine").read_text() == "keep"


def test_verify_not_a_package(nuif, docs: Path) -> None:
    r = nuif("verify", str(docs / "pretty.json"))
    assert r.code == 1 and "NUIF_PACKAGE" in r.err


# ---------------------------------------------------------------------------------------------
# demo


@needs_patch
def test_demo_runs_end_to_end_and_prints_the_hashes(nuif, tmp_path: Path) -> None:
    r = nuif("demo", "--dir", str(tmp_path / "demo"))
    assert r.code == 0, r.text
    assert "demo: every check passed" in r.text
    assert "FAIL" not in r.text
    assert re.search(r"sha256:[0-9a-f]{64}", r.text)
    for step in (
        "nuif validate",
        "nuif inspect",
        "nuif canonicalize",
        "nuif apply-patch",
        "nuif diff",
        "nuif pack",
    ):
        assert f"$ {step}" in r.text
    assert package.verify(tmp_path / "demo" / "screen.nuif")
