"""``nuif json canonicalize|hash|check`` and ``nuif batch --mode json``, through the script:
RFC 8785 of any strict I-JSON text, the same bytes as ``nuif_core.canonical_json``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import rfc8785

import nuif_core

#: a JSON text that is not a NUIF document (a package.json-like file)
GENERIC = (
    b'{\n  "name": "x",\n  "version": "1.0.0",\n  "n": [1.0, 1e2, -0, 0.1],\n  "\\u00e9": true\n}\n'
)
CANONICAL = nuif_core.canonical_json(GENERIC)
HASH = "sha256:" + hashlib.sha256(CANONICAL).hexdigest()


@pytest.fixture
def generic(tmp_path: Path) -> Path:
    path = tmp_path / "package.json"
    path.write_bytes(GENERIC)
    return path


def test_the_canonical_text_is_rfc8785(nuif_script, generic: Path) -> None:
    assert rfc8785.dumps(json.loads(GENERIC)) == CANONICAL  # the reference library agrees
    r = nuif_script("json", "canonicalize", str(generic))
    assert (r.code, r.out, r.err) == (0, CANONICAL + b"\n", "")
    r = nuif_script("json", "canonicalize", "--no-newline", "-", stdin=GENERIC)
    assert (r.code, r.out) == (0, CANONICAL)
    out = generic.parent / "out.json"
    assert nuif_script("json", "canonicalize", str(generic), "-o", str(out)).code == 0
    assert out.read_bytes() == CANONICAL + b"\n"


def test_nuif_commands_refuse_what_nuif_json_accepts(nuif_script, generic: Path) -> None:
    r = nuif_script("hash", str(generic))
    assert r.code == 1 and "NUIF_SCHEMA" in r.err
    r = nuif_script("json", "hash", str(generic), "-", stdin=b"[1,2]")
    digest = "sha256:" + hashlib.sha256(b"[1,2]").hexdigest()
    assert (r.code, r.text) == (0, f"{HASH}  {generic}\n{digest}  -\n")


def test_check_lists_the_files_that_are_not_canonical(nuif_script, tmp_path: Path) -> None:
    (tmp_path / "bare.json").write_bytes(CANONICAL)
    (tmp_path / "lf.json").write_bytes(CANONICAL + b"\n")
    (tmp_path / "pretty.json").write_bytes(GENERIC)
    names = [str(tmp_path / n) for n in ("bare.json", "lf.json", "pretty.json")]
    r = nuif_script("json", "check", *names)
    assert r.code == 1 and r.text == f"{names[2]}\n"
    assert "1 of 3 files are not canonical" in r.err
    r = nuif_script("json", "check", "-q", *names)
    assert (r.code, r.text, r.err) == (1, f"{names[2]}\n", "")  # the failure, no summary
    assert nuif_script("json", "check", *names[:2]).code == 0


def test_in_place_rewrites_with_one_line_feed(nuif_script, generic: Path) -> None:
    r = nuif_script("json", "canonicalize", "-i", str(generic))
    assert r.code == 0 and "1 file canonicalized, 0 already canonical" in r.err
    assert generic.read_bytes() == CANONICAL + b"\n"
    r = nuif_script("json", "canonicalize", "-i", "-q", str(generic))
    assert (r.code, r.err) == (0, "")


@pytest.mark.parametrize(
    ("text", "code", "where"),
    [
        (b'{"a": "\\ud800"}', "NUIF_UNICODE", "1:8"),  # a lone surrogate
        (b'["ok",\n "\\ufdd0"]', "NUIF_UNICODE", "2:3"),  # a noncharacter
        (b"[1,\n 9007199254740993]", "NUIF_NUMBER", "2:2"),  # an integer beyond 2^53
        (b'{"a": 1, "a": 2}', "NUIF_DUPLICATE_KEY", "1:10"),
        (b"\xef\xbb\xbf[]", "NUIF_PARSE", "1:1"),  # a byte-order mark
    ],
)
def test_what_lax_tools_accept_is_refused_with_its_place(
    nuif_script, tmp_path: Path, text: bytes, code: str, where: str
) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(text)
    for command in ("canonicalize", "hash", "check"):
        r = nuif_script("json", command, str(path))
        assert r.code == 1 and r.out == b""
        assert r.err.startswith(f"{path}:{where}: {code} "), r.err


def test_the_help_says_what_is_refused_and_why(nuif_script) -> None:
    r = nuif_script("json", "--help")
    assert r.code == 0
    text = " ".join(r.text.split())
    for phrase in (
        "lone surrogates",
        "noncharacters",
        "big integers",
        "silently changed",
        "I-JSON forbids them",
        "UTF-8 cannot hold them",
    ):
        assert phrase in text, phrase
    assert "lone surrogates" in " ".join(nuif_script("json", "hash", "--help").text.split())


def test_json_reports(nuif_script, generic: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(b'{"a": 1,}')
    names = [str(generic), str(tmp_path / "bad.json"), str(tmp_path / "none.json")]
    r = nuif_script("json", "hash", "--json", *names)
    assert r.code == 2
    good, bad, missing = (json.loads(line) for line in r.out.splitlines())
    assert good == {
        "file": names[0],
        "valid": True,
        "hash": HASH,
        "canonical": False,
        "error": None,
    }
    assert bad["valid"] is False and bad["error"]["code"] == "NUIF_PARSE"
    assert (bad["error"]["line"], bad["error"]["column"]) == (1, 9)
    assert missing["valid"] is None and missing["error"]["code"] == "NUIF_IO"
    r = nuif_script("json", "canonicalize", "--json", str(generic))
    assert r.code == 0 and json.loads(r.out)["text"] == CANONICAL.decode()


def test_usage_errors(nuif_script, generic: Path) -> None:
    r = nuif_script("json")
    assert r.code == 2 and r.err.startswith("usage: nuif json ")
    r = nuif_script("json", "canonicalize", str(generic), str(generic))
    assert r.code == 2 and "--in-place" in r.err
    r = nuif_script("json", "canonicalize", "-i", "-")
    assert r.code == 2


def test_batch_json_mode_and_its_summary_by_code(nuif_script, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.json").write_bytes(GENERIC)
    (docs / "b.json").write_bytes(b'{"x": "\\ud800"}')
    (docs / "c.json").write_bytes(b"[9007199254740993]")
    (docs / "d.json").write_bytes(b"[9007199254740995]")
    summary = tmp_path / "summary.json"
    r = nuif_script(
        "batch", "hash", "--serial", "--mode", "json", str(docs), "--summary", str(summary)
    )
    assert r.code == 1
    records = [json.loads(line) for line in r.out.splitlines()]
    assert [x["valid"] for x in records] == [True, False, False, False]
    assert records[0]["hash"] == HASH
    assert "(by first problem: NUIF_NUMBER 2, NUIF_UNICODE 1)" in r.err
    assert json.loads(summary.read_text())["codes"] == {"NUIF_NUMBER": 2, "NUIF_UNICODE": 1}
    # the same files as NUIF documents: every one invalid, counted by its first code
    r = nuif_script("batch", "hash", "--serial", str(docs), "--json", "-q")
    assert r.code == 1
    codes = json.loads(r.err)["codes"]
    assert codes == {"NUIF_NUMBER": 2, "NUIF_SCHEMA": 1, "NUIF_UNICODE": 1}
    r = nuif_script("batch", "hash", "--serial", str(docs), "-q")
    assert r.err == ""


def test_json_commands_call_a_text_past_the_limit_the_json_text(
    nuif_script, tmp_path: Path
) -> None:
    # `nuif json check` said "the document text" where `nuif json canonicalize` said "the JSON
    # text": nuif json is about any JSON, not NUIF documents
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:
        fh.truncate(nuif_core.Limits.DEFAULT.max_document_bytes + 1)  # sparse: refused unread
    size = path.stat().st_size
    want = f"NUIF_TOO_LARGE the JSON text {path} is {size} bytes"
    for argv in (
        ["check"],
        ["canonicalize"],
        ["hash"],
        ["canonicalize", "-i"],
        ["check", "--json"],
        ["canonicalize", "--json"],
        ["hash", "--json"],
    ):
        r = nuif_script("json", *argv, str(path))
        assert r.code == 1, (argv, r.err)
        said = r.text + r.err
        assert "document" not in said, (argv, said)
        if "--json" in argv:
            assert json.loads(r.out)["error"]["message"].startswith(want.split(" ", 1)[1])
        else:
            assert r.err.startswith(f"{path}: {want};"), (argv, r.err)
    r = nuif_script("json", "check", "-", stdin=b" " * (size + 1))
    assert r.code == 1 and "the JSON text on stdin is more than" in r.err
    assert "document" not in r.err


def test_batch_json_mode_calls_a_text_past_the_limit_the_json_text(
    nuif_script, tmp_path: Path
) -> None:
    limit = nuif_core.Limits.DEFAULT.max_document_bytes
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:
        fh.truncate(limit + 1)
    lines = tmp_path / "big.jsonl"
    text = b"[" + b"1," * (limit // 2) + b"1]"
    lines.write_bytes(text + b"\n")
    r = nuif_script("batch", "validate", "--mode", "json", "--serial", str(path), str(lines))
    assert r.code == 1, r.err
    messages = [json.loads(line)["diagnostics"][0]["message"] for line in r.out.splitlines()]
    assert messages[0].startswith(f"the JSON text {path} is {limit + 1} bytes")
    assert messages[1].startswith(f"the JSON text is {len(text)} bytes")
    # a NUIF document keeps its wording
    r = nuif_script("batch", "validate", "--serial", str(path))
    assert json.loads(r.out)["diagnostics"][0]["message"].startswith("the document text")
