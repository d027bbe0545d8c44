"""``--catalog FILE`` on ``nuif validate``, ``nuif apply-patch`` and ``nuif batch validate``,
through the installed ``nuif`` script: the API's answers (tests/catalog_cross_surface.py), a
catalog that is not valid refused as FILE:LINE:COL (exit 2), and the catalog's bounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from catalog_cross_surface import DATA, patch_answer, patch_cases, validate_answer, validate_cases

import nuif_core
from nuif_core import Catalog, catalogs

BASIC = Path(nuif_core.__file__).parent / "catalogs" / "basic.json"
INVALID = sorted((DATA / "basic" / "invalid").glob("*.json"))
VALID = sorted((DATA / "basic" / "valid").glob("*.json"))


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_shipped_basic_catalog_file_is_the_basic_catalog() -> None:
    assert Catalog(BASIC.read_bytes()) == catalogs.basic()


def test_validate_json_gives_the_api_answers(nuif_script, tmp_path: Path) -> None:
    cases = validate_cases()
    for i, case in enumerate(cases):
        catalog = _write(tmp_path / f"c{i}.json", case.catalog)
        doc = _write(tmp_path / f"d{i}.json", case.document)
        run = nuif_script("validate", "--json", "--catalog", catalog, doc)
        if case.name.startswith("catalog/"):
            # a catalog that is not valid is an argument error: FILE:LINE:COL on stderr, exit 2
            (expected,) = validate_answer(case)
            assert run.code == 2 and run.out == b"", case.name
            where = f"{catalog}:{expected['line']}:{expected['column']}:"
            assert run.err.strip() == (
                f"nuif: {where} NUIF_CATALOG {expected['message']}"
                + (f" (at {expected['pointer'] or '/'})" if expected["pointer"] is not None else "")
            ), case.name
            continue
        report = json.loads(run.out)
        assert report["diagnostics"] == validate_answer(case), case.name
        assert run.code == (0 if report["valid"] else 1), case.name


def test_validate_lines_name_file_line_and_column(nuif_script) -> None:
    path = DATA / "basic" / "invalid" / "wrong-types.json"
    run = nuif_script("validate", "--catalog", str(BASIC), str(path), *map(str, VALID))
    assert run.code == 1
    expected = [
        f"{path}:{d['line']}:{d['column']}: {d['code']} {d['message']} (at {d['pointer']})"
        for d in json.loads((DATA / "expected.json").read_text("utf-8"))[
            "basic/invalid/wrong-types.json"
        ]
    ]
    assert run.text.splitlines() == expected
    assert "1 of 5 files are invalid" in run.err


def test_validate_with_several_workers_gives_the_same_lines(nuif_script) -> None:
    files = [str(p) for p in [*INVALID, *VALID]]
    one = nuif_script("validate", "--catalog", str(BASIC), *files)
    two = nuif_script("validate", "-j", "2", "--no-progress", "--catalog", str(BASIC), *files)
    assert one.code == two.code == 1
    assert one.out == two.out and one.out.count(b"NUIF_CATALOG_") >= 20


def test_the_catalog_may_come_on_stdin_but_only_once(nuif_script) -> None:
    path = str(DATA / "basic" / "invalid" / "list-of-text.json")
    run = nuif_script("validate", "--json", "--catalog", "-", path, stdin=BASIC.read_bytes())
    assert (
        run.code == 1 and json.loads(run.out)["diagnostics"][0]["code"] == "NUIF_CATALOG_CHILDREN"
    )
    run = nuif_script("validate", "--catalog", "-", "-", stdin=BASIC.read_bytes())
    assert run.code == 2 and "stdin ('-') can be read only once" in run.err
    # a catalog from stdin that is not valid is named as every stdin input is
    remote = b'{"nuif_catalog": 0, "kinds": {"b": {"attrs": {"$ref": "https://x.test/b.json"}}}}'
    run = nuif_script("validate", "--catalog", "-", path, stdin=remote)
    assert run.code == 2 and run.err.startswith("nuif: <stdin>:1:"), run.err
    assert "NUIF_CATALOG catalog: the reference" in run.err


def test_a_catalog_beyond_one_mebibyte_is_refused(nuif_script, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (Catalog.BOUNDS["max_catalog_bytes"] + 1))
    run = nuif_script("validate", "--catalog", str(big), str(VALID[0]))
    assert run.code == 2
    assert f"{big}: NUIF_CATALOG catalog: the catalog text" in run.err
    assert f"the limit is {Catalog.BOUNDS['max_catalog_bytes']} bytes" in run.err


def test_a_missing_catalog_file_is_a_usage_error(nuif_script, tmp_path: Path) -> None:
    run = nuif_script("validate", "--catalog", str(tmp_path / "none.json"), str(VALID[0]))
    assert run.code == 2 and "none.json" in run.err and "Traceback" not in run.err


def test_apply_patch_gives_the_api_answers(nuif_script, tmp_path: Path) -> None:
    outcomes = set()
    for i, case in enumerate(patch_cases()):
        catalog = _write(tmp_path / f"c{i}.json", case.catalog)
        doc = _write(tmp_path / f"d{i}.json", case.document)
        patch = _write(tmp_path / f"p{i}.json", case.patch)
        run = nuif_script("apply-patch", "--json", "--catalog", catalog, doc, patch)
        answer = patch_answer(case)
        if "ok" in answer:
            assert run.code == 0 and json.loads(run.out) == answer["ok"], case.name
            outcomes.add("ok")
        elif answer["error"]["code"] == "NUIF_CATALOG":
            assert run.code == 2 and "NUIF_CATALOG catalog:" in run.err, case.name
            outcomes.add("catalog")
        else:
            # named as the patch's, with no line and column: the pointer is into the patched
            # document, which is no file
            error = answer["error"]
            expected = f"{patch}: {error['code']} {error['message']} (at {error['pointer']})"
            assert run.code == 1 and run.err.strip() == expected, case.name
            assert run.out == b""
            outcomes.add(answer["error"]["code"])
    assert outcomes == {
        "ok",
        "catalog",
        "NUIF_CATALOG_KIND",
        "NUIF_CATALOG_ATTRS",
        "NUIF_CATALOG_CHILDREN",
    }


def test_apply_patch_writes_nothing_when_the_catalog_refuses(nuif_script, tmp_path: Path) -> None:
    case = next(c for c in patch_cases() if c.name == "kind")
    doc = _write(tmp_path / "d.json", case.document)
    patch = _write(tmp_path / "p.json", case.patch)
    out, inverse = tmp_path / "out.json", tmp_path / "inv.json"
    run = nuif_script(
        "apply-patch",
        "--catalog",
        str(BASIC),
        doc,
        patch,
        "-o",
        str(out),
        "--inverse",
        str(inverse),
    )
    assert run.code == 1 and "NUIF_CATALOG_KIND" in run.err
    assert not out.exists() and not inverse.exists()
    assert nuif_script("apply-patch", doc, patch, "-o", str(out)).code == 0  # no catalog: applied


@pytest.mark.parametrize("jsonl", [False, True], ids=["files", "jsonl"])
def test_batch_validate_reports_the_api_diagnostics(
    nuif_script, tmp_path: Path, jsonl: bool
) -> None:
    paths = [*VALID, *INVALID]
    if jsonl:
        lines = tmp_path / "docs.jsonl"
        lines.write_text(
            "".join(json.dumps(json.loads(p.read_text("utf-8"))) + "\n" for p in paths), "utf-8"
        )
        inputs = [str(lines)]
        texts = lines.read_text("utf-8").splitlines()
    else:
        inputs = [str(p) for p in paths]
        texts = [p.read_text("utf-8") for p in paths]
    report = tmp_path / "report.jsonl"
    run = nuif_script(
        "batch", "validate", "--serial", "--catalog", str(BASIC), "-o", str(report), *inputs
    )
    assert run.code == 1, run.err
    records = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert len(records) == len(paths)
    for record, text in zip(records, texts, strict=True):
        expected = nuif_core.validate(text, catalog=catalogs.basic())
        assert record["valid"] == expected.valid
        assert record["diagnostics"] == [d.to_dict() for d in expected.diagnostics]
        assert record["hash"] == expected.hash


def test_batch_catalog_is_for_validate_and_is_checked_first(nuif_script, tmp_path: Path) -> None:
    run = nuif_script("batch", "hash", "--serial", "--catalog", str(BASIC), str(VALID[0]))
    assert run.code == 2 and "--catalog belongs to 'nuif batch validate'" in run.err
    bad = DATA / "invalid-catalogs" / "remote-ref.json"
    report = tmp_path / "report.jsonl"
    run = nuif_script(
        "batch", "validate", "--serial", "--catalog", str(bad), "-o", str(report), str(VALID[0])
    )
    assert run.code == 2 and f"nuif: {bad}:6:17: NUIF_CATALOG" in run.err
    assert not report.exists()
