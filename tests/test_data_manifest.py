"""tests/data is the conformance data byte for byte: every file's SHA-256 is in MANIFEST.sha256.

``python tests/test_data_manifest.py --write`` rewrites the manifest after a deliberate update.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
MANIFEST = DATA / "MANIFEST.sha256"
SUITES = [
    "JSON-Schema-Test-Suite",
    "JSONTestSuite",
    "jcs-cyberphone",
    "jcs-es6-numbers",
    "json-patch-tests",
    "rfc6901-examples",
    "rfc8785-examples",
]


def _files() -> list[str]:
    return sorted(
        p.relative_to(DATA).as_posix()
        for p in DATA.rglob("*")
        if p.is_file() and p != MANIFEST and "__pycache__" not in p.parts
    )


def _digest(name: str) -> str:
    return hashlib.sha256((DATA / name).read_bytes()).hexdigest()


def _read_manifest() -> dict[str, str]:
    entries: dict[str, str] = {}
    for number, line in enumerate(MANIFEST.read_bytes().decode("ascii").split("\n"), 1):
        if not line:
            continue
        digest, sep, name = line.partition("  ")
        assert sep and len(digest) == 64 and name, (
            f"MANIFEST.sha256 line {number} is malformed: {line!r}"
        )
        assert name not in entries, f"MANIFEST.sha256 lists {name} twice"
        entries[name] = digest
    return entries


def test_every_file_matches_the_manifest() -> None:
    manifest = _read_manifest()
    changed = [
        name
        for name, digest in manifest.items()
        if (DATA / name).is_file() and _digest(name) != digest
    ]
    missing = [name for name in manifest if not (DATA / name).is_file()]
    assert changed == [], f"changed since the manifest was written (line endings?): {changed}"
    assert missing == [], f"listed in MANIFEST.sha256 but missing: {missing}"


def test_no_file_is_missing_from_the_manifest() -> None:
    unlisted = sorted(set(_files()) - set(_read_manifest()))
    assert unlisted == [], f"files in tests/data not in MANIFEST.sha256: {unlisted}"


def test_each_suite_carries_its_licence_and_source() -> None:
    manifest = _read_manifest()
    for suite in SUITES:
        for name in ("LICENSE", "SOURCE.txt"):
            assert f"{suite}/{name}" in manifest, f"{suite} has no {name}"
        source = (DATA / suite / "SOURCE.txt").read_text(encoding="utf-8")
        assert "Licence:" in source and ("Commit:" in source or "Version:" in source), suite


def test_line_ending_conversion_is_off_for_the_data() -> None:
    rules = [
        line.split()
        for line in (DATA / ".gitattributes").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert ["*", "-text"] in rules
    # the data really hold bytes a conversion would change: CRLF, and files with no final newline
    assert b"\r\n" in (DATA / "jcs-cyberphone" / "LICENSE").read_bytes()
    assert (
        not (DATA / "jcs-cyberphone" / "testdata" / "output" / "values.json")
        .read_bytes()
        .endswith(b"\n")
    )


def _write() -> None:
    MANIFEST.write_bytes("".join(f"{_digest(n)}  {n}\n" for n in _files()).encode("ascii"))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_data_manifest.py --write")
    _write()
