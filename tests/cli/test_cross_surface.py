"""Cross-surface: the ``nuif`` command gives the same canonical text, hashes and error codes as the
direct API on the shared corpus (tests/cross_surface.py), which the MCP tools also run."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cross_surface import DOC, documents, patches

import nuif_core
from nuif_core import NuifError

#: the first NUIF code on a CLI error line: "FILE:LINE:COL: NUIF_CODE message ..."
CODE = re.compile(r"\b(NUIF_[A-Z0-9_]+)\b")


def _api(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """What the direct API gives: its result, or the NuifError it raises."""
    try:
        return fn(*args, **kwargs)
    except NuifError as err:
        return err


def _names_its_input(err: NuifError, name: str, line: str) -> bool:
    """The CLI's line for ``err`` of input ``name``: the name, the line and column when the error
    has them, then the code, the message and the pointer of the API's error."""
    where = f"{name}:{err.line}:{err.column}:" if err.line is not None else f"{name}:"
    return line.startswith(where) and line.endswith(f" {err.code} {err.message}{_at(err)}\n")


def _write(path: Path, text: str) -> str:
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return str(path)


def _at(err: NuifError) -> str:
    return f" (at {err.pointer or '/'})" if err.pointer is not None else ""


def test_canonicalize_and_hash_agree_with_the_api(nuif, tmp_path: Path) -> None:
    checked = 0
    for i, doc in enumerate(documents()):
        file = _write(tmp_path / f"d{i}.json", doc)
        expected = _api(nuif_core.canonicalize, doc)
        if isinstance(expected, NuifError):
            err = expected
            for argv in (("canonicalize", file), ("hash", file)):
                run = nuif(*argv)
                assert run.code == 1, (argv, doc[:60])
                assert CODE.search(run.err).group(1) == err.code, (argv, doc[:60], run.err)
                assert _names_its_input(err, file, run.err), (argv, run.err)
            continue
        run = nuif("canonicalize", file)
        assert (run.code, run.out) == (0, expected.canonical + b"\n"), doc[:60]
        run = nuif("hash", file)
        assert (run.code, run.text) == (0, f"{expected.hash}  {file}\n"), doc[:60]
        checked += 1
    assert checked >= 3


def test_validate_reports_the_api_diagnostics(nuif, tmp_path: Path) -> None:
    for i, doc in enumerate(documents()):
        file = _write(tmp_path / f"d{i}.json", doc)
        report = nuif_core.validate(doc).to_dict()
        run = nuif("validate", "--json", file)
        assert run.code == (0 if report["valid"] else 1), doc[:60]
        got = json.loads(run.out)
        got = got[0] if isinstance(got, list) else got
        assert {k: got[k] for k in report} == report, doc[:60]


def test_apply_patch_agrees_with_the_api(nuif, tmp_path: Path) -> None:
    doc_file = _write(tmp_path / "doc.json", DOC)
    outcomes = set()
    for i, patch in enumerate(patches()):
        patch_file = _write(tmp_path / f"p{i}.json", patch)
        expected = _api(nuif_core.apply_patch, DOC, patch, inverse=True)
        if isinstance(expected, NuifError):
            err = expected
            run = nuif("apply-patch", doc_file, patch_file)
            # the patch's: the line and column where its pointer lands in the patch file
            where = re.escape(patch_file) + (r":\d+:\d+:" if err.pointer is not None else ":")
            assert run.code == 1 and re.match(where, run.err), (patch, run.err)
            assert run.err.endswith(f" {err.code} {err.message}{_at(err)}\n"), (patch, run.err)
            outcomes.add("error")
            continue
        inverse = tmp_path / f"inv{i}.json"
        run = nuif("apply-patch", doc_file, patch_file, "--inverse", str(inverse))
        assert (run.code, run.out) == (0, expected.canonical), patch
        assert inverse.read_bytes() == expected.inverse
        outcomes.add("ok")
    assert outcomes == {"ok", "error"}
