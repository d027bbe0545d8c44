"""Every error names its input: ``FILE:LINE:COL: NUIF_CODE message``, through the ``nuif`` script.

Which input is at fault (the document or the patch, the first or the second document, a member
of a package), the line and column inside that input (inside the patch file for a patch
operation's error, which the core locates by pointer only), the user's path as given, and
``<stdin>`` for ``-``.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest

import nuif_core
from nuif_core import package

from .conftest import PRETTY

HASH = nuif_core.document_hash(PRETTY)
BROKEN_DOC = b'{"nuif": 0,\n  "root": {"id": "a", "kind": "screen"},}'
#: an operation on line 4 whose id names no node: the error is at line 4 column 28
MISSING_NODE_PATCH = (
    b'{\n  "nuif_patch": 0,\n  "transactions": [{"ops": [\n'
    b'    {"op": "remove", "id": "nope"}\n  ]}]\n}\n'
)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "doc.json").write_bytes(PRETTY)
    (tmp_path / "broken.json").write_bytes(BROKEN_DOC)
    (tmp_path / "missing-node.patch.json").write_bytes(MISSING_NODE_PATCH)
    (tmp_path / "broken.patch.json").write_bytes(b'{"nuif_patch": 0,\n "transactions": [}')
    return tmp_path


def one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err[:-1]


def test_a_patch_operation_error_is_placed_in_the_patch_file(nuif_script, files: Path) -> None:
    patch = files / "missing-node.patch.json"
    r = nuif_script("apply-patch", str(files / "doc.json"), str(patch))
    assert r.code == 1 and r.out == b""
    line = one_line(r.err)
    assert line.startswith(f"{patch}:4:28: NUIF_PATCH_NOT_FOUND ")
    assert line.endswith("(at /transactions/0/ops/0/id)")
    # line 4 column 28 is where the value "nope" starts in the patch text
    assert MISSING_NODE_PATCH.splitlines()[3][27:33] == b'"nope"'


def test_a_patch_syntax_error_names_the_patch_not_the_document(nuif_script, files: Path) -> None:
    patch = files / "broken.patch.json"
    r = nuif_script("apply-patch", str(files / "doc.json"), str(patch))
    assert r.code == 1
    assert re.fullmatch(rf"{re.escape(str(patch))}:2:19: NUIF_PARSE .+", one_line(r.err))


def test_a_broken_document_is_named_before_the_patch(nuif_script, files: Path) -> None:
    r = nuif_script("apply-patch", str(files / "broken.json"), str(files / "broken.patch.json"))
    assert r.code == 1
    assert re.fullmatch(
        rf"{re.escape(str(files / 'broken.json'))}:2:41: NUIF_PARSE .+", one_line(r.err)
    )


def test_a_patch_header_error_is_placed_at_its_member(nuif_script, files: Path) -> None:
    (files / "p.json").write_text('{"nuif_patch": 0,\n "base": "sha256:00",\n "transactions": []}')
    r = nuif_script("apply-patch", str(files / "doc.json"), str(files / "p.json"))
    assert r.code == 1
    assert one_line(r.err).startswith(f"{files / 'p.json'}:2:10: NUIF_PATCH_SCHEMA ")


def test_stdin_is_shown_as_stdin(nuif_script, files: Path) -> None:
    r = nuif_script("apply-patch", str(files / "doc.json"), "-", stdin=MISSING_NODE_PATCH)
    assert one_line(r.err).startswith("<stdin>:4:28: NUIF_PATCH_NOT_FOUND ")
    r = nuif_script("apply-patch", "-", str(files / "missing-node.patch.json"), stdin=BROKEN_DOC)
    assert one_line(r.err).startswith("<stdin>:2:41: NUIF_PARSE ")
    for argv in (["canonicalize", "-"], ["hash", "-"], ["inspect", "-"], ["validate", "-"]):
        r = nuif_script(*argv, stdin=BROKEN_DOC)
        assert r.code == 1
        assert (r.err or r.text).startswith("<stdin>:2:41: NUIF_PARSE "), argv


def test_diff_names_the_document_at_fault(nuif_script, files: Path) -> None:
    good, bad = str(files / "doc.json"), str(files / "broken.json")
    r = nuif_script("diff", good, bad)
    assert r.code == 1 and one_line(r.err).startswith(f"{bad}:2:41: NUIF_PARSE ")
    r = nuif_script("diff", bad, good)
    assert r.code == 1 and one_line(r.err).startswith(f"{bad}:2:41: NUIF_PARSE ")
    r = nuif_script("diff", good, "-", stdin=BROKEN_DOC)
    assert r.code == 1 and one_line(r.err).startswith("<stdin>:2:41: NUIF_PARSE ")


@pytest.mark.parametrize(
    "argv",
    [
        ["canonicalize", "{bad}"],
        ["canonicalize", "--check", "{bad}"],
        ["canonicalize", "--in-place", "{bad}"],
        ["hash", "{good}", "{bad}"],
        ["inspect", "{bad}"],
        ["pack", "{bad}", "-o", "{out}"],
    ],
)
def test_document_commands_put_file_line_col_first(nuif_script, files: Path, argv) -> None:
    names = {"good": files / "doc.json", "bad": files / "broken.json", "out": files / "x.nuif"}
    r = nuif_script(*(a.format(**names) for a in argv))
    assert r.code == 1
    rows = [row for row in r.err.splitlines() if not row.startswith("nuif: ")]  # batch summaries
    assert len(rows) == 1 and rows[0].startswith(f"{names['bad']}:2:41: NUIF_PARSE "), r.err
    assert not (files / "x.nuif").exists()


def test_hash_check_names_an_invalid_listed_file(nuif_script, files: Path) -> None:
    listing = f"{HASH}  {files / 'broken.json'}\n".encode()
    r = nuif_script("hash", "--check", "-", stdin=listing)
    assert r.code == 1
    assert r.text == f"{files / 'broken.json'}: FAILED NUIF_PARSE\n"
    assert f"{files / 'broken.json'}:2:41: NUIF_PARSE " in r.err


def _package_with(member: str, data: bytes) -> bytes:
    good = package.pack(PRETTY, {"assets/a.txt": b"x"})
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, data if info.filename == member else src.read(info))
    return out.getvalue()


def test_a_package_member_error_is_placed_in_the_member(nuif_script, tmp_path: Path) -> None:
    pkg = tmp_path / "bad.nuif"
    pkg.write_bytes(_package_with("document.json", BROKEN_DOC))
    for argv in (["verify", str(pkg)], ["unpack", str(pkg), "-o", str(tmp_path / "out")]):
        r = nuif_script(*argv)
        assert r.code == 1
        line = one_line(r.err)
        assert line.startswith(f"{pkg}(document.json):2:41: NUIF_PACKAGE "), line
        assert "NUIF_PARSE" in line  # the member's own error is kept in the message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.nuif"]
    r = nuif_script("verify", "-", stdin=_package_with("manifest.json", b'{"assets": {}\n,}'))
    assert r.code == 1
    assert one_line(r.err).startswith("<stdin>(manifest.json):2:2: NUIF_PACKAGE ")


def test_a_package_error_without_a_position_names_the_package(nuif_script, tmp_path) -> None:
    pkg = tmp_path / "bad.nuif"
    pkg.write_bytes(_package_with("assets/a.txt", b"y"))
    r = nuif_script("verify", str(pkg))
    assert r.code == 1
    assert one_line(r.err).startswith(f"{pkg}: NUIF_PACKAGE entry 'assets/a.txt' ")


@pytest.mark.parametrize(
    "argv",
    [
        ["canonicalize", "{doc}", "-o", "{out}"],
        ["apply-patch", "{doc}", "{patch}", "-o", "{out}"],
        ["apply-patch", "{doc}", "{patch}", "--inverse", "{out}"],
        ["diff", "{doc}", "{doc}", "-o", "{out}"],
        ["pack", "{doc}", "-o", "{out}"],
    ],
)
def test_an_unwritable_output_is_named_as_given(nuif_script, tmp_path: Path, argv) -> None:
    (tmp_path / "doc.json").write_bytes(PRETTY)
    empty = {"nuif_patch": 0, "transactions": []}
    (tmp_path / "p.json").write_text(json.dumps(empty))
    out = "no-such-dir/x.json"
    names = {"doc": "doc.json", "patch": "p.json", "out": out}
    r = nuif_script(*(a.format(**names) for a in argv), cwd=tmp_path)
    assert r.code == 2
    assert r.err == f"nuif: NUIF_IO: cannot write {out}: No such file or directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json", "p.json"]
