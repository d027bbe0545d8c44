"""Hostile ``.nuif`` packages, mutated, through ``nuif verify`` and ``nuif unpack``.

Seeds: two valid packages (with and without assets, one with a non-ASCII name) and every hostile
archive of ``tests/core/test_package.py`` (traversal, absolute and drive-letter names, symbolic
link, duplicates, case clash, Windows device names and trailing-dot twins, flags set in a local
header only, directory entry, size and hash lies, missing or extra entries, non-canonical or
invalid members, declared-size bombs, not a ZIP). 300 seeded mutations of them
(bit flips, byte overwrites, truncation, deleted and repeated slices, splices of two archives, and
ZIP header fields — sizes, offsets, counts, name lengths, flags, methods, attributes — set to
extreme values) go through ``main([...])`` in this process, by path and, for some, on stdin.

For every input:

* the exit status is 0, 1 or 2; status 1 comes with ``PKG: NUIF_PACKAGE …`` or
  ``NUIF_PACKAGE_LIMIT`` lines naming the package on stderr, status 2 with a one-line
  ``nuif: ...`` message (never ``internal error``), and never a traceback;
* ``verify`` and ``unpack`` agree: both accept or both refuse, and an accepted package unpacks to
  the hash ``verify`` printed;
* nothing is written outside the target directory: the whole test directory, listed before and
  after, differs at most by the target directory, which exists only when unpack succeeded, and
  then holds only regular files and directories.
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import shutil
import struct
from pathlib import Path
from types import ModuleType

import pytest

from nuif_core import package

from .conftest import PRETTY

pytestmark = pytest.mark.timeout(300)

#: seeded and bounded; a longer local run: NUIF_PACKAGE_FUZZ_SEED=1 NUIF_PACKAGE_FUZZ_COUNT=5000
SEED = int(os.environ.get("NUIF_PACKAGE_FUZZ_SEED", "7"))
MUTATIONS = int(os.environ.get("NUIF_PACKAGE_FUZZ_COUNT", "300"))
CORE_PACKAGE_TESTS = Path(__file__).resolve().parent.parent / "core" / "test_package.py"


def _core_package_tests() -> ModuleType:
    """The hostile archives of the core package tests (reused, not copied)."""
    spec = importlib.util.spec_from_file_location("_nuif_core_package_tests", CORE_PACKAGE_TESTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seeds() -> list[bytes]:
    core = _core_package_tests()
    valid = [
        package.pack(PRETTY, {"assets/img/logo.png": b"\x89PNG fake" * 50, "assets/é.txt": b"hi"}),
        package.pack(PRETTY),
        core.build_package(core.GOOD_ASSETS),
    ]
    hostile = [data for data, _code in core.HOSTILE.values()]
    return valid + hostile


_INTERESTING = (0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE)
_SIGNATURES = (b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07")


def _field(rng: random.Random, data: bytearray) -> None:
    """Overwrite a 2- or 4-byte field of a ZIP header with an extreme or random value."""
    spots = [m.start() for sig in _SIGNATURES for m in re.finditer(re.escape(sig), bytes(data))]
    if not spots:
        return _overwrite(rng, data)
    base = rng.choice(spots)
    offset = base + rng.randrange(4, 46)
    width = rng.choice((2, 4))
    if offset + width > len(data):
        return None
    value = rng.choice(_INTERESTING + (rng.getrandbits(32), len(data), len(data) - base))
    struct.pack_into(
        "<I" if width == 4 else "<H", data, offset, value & (0xFFFFFFFF if width == 4 else 0xFFFF)
    )
    return None


def _flip(rng: random.Random, data: bytearray) -> None:
    if data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)


def _overwrite(rng: random.Random, data: bytearray) -> None:
    if data:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)


def _truncate(rng: random.Random, data: bytearray) -> None:
    del data[rng.randrange(len(data) + 1) :]


def _delete(rng: random.Random, data: bytearray) -> None:
    if data:
        start = rng.randrange(len(data))
        del data[start : start + rng.randint(1, 64)]


def _repeat(rng: random.Random, data: bytearray) -> None:
    if data:
        start = rng.randrange(len(data))
        chunk = data[start : start + rng.randint(1, 256)]
        at = rng.randrange(len(data) + 1)
        data[at:at] = chunk * rng.randint(1, 4)


MUTATORS = (_field, _field, _field, _flip, _overwrite, _truncate, _delete, _repeat)


def mutate(rng: random.Random, pool: list[bytes]) -> bytes:
    data = bytearray(rng.choice(pool))
    if rng.random() < 0.1:  # splice: the head of one archive, the tail of another
        other = rng.choice(pool)
        data = data[: rng.randrange(len(data) + 1)] + other[rng.randrange(len(other) + 1) :]
    for _ in range(rng.randint(1, 3)):
        rng.choice(MUTATORS)(rng, data)
    return bytes(data)


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def check_stderr(code: int, err: str, what: str) -> None:
    assert "Traceback" not in err, f"{what}: {err}"
    assert "internal error" not in err, f"{what}: {err}"
    assert code in (0, 1, 2), f"{what}: exit {code}: {err}"
    if code == 0:
        assert err == "", f"{what}: {err}"
        return
    rows = err.splitlines()
    assert rows, f"{what}: {err}"
    if code == 1:  # PKG: CODE message, or PKG(member):LINE:COL: CODE message
        pattern = r".+?(\([a-z]+\.json\):\d+:\d+)?: NUIF_PACKAGE(_LIMIT)? .+"
        assert all(re.fullmatch(pattern, row) for row in rows), f"{what}: {err}"
    else:
        assert all(row.startswith("nuif: ") for row in rows), f"{what}: {err}"


def test_mutated_hostile_packages_are_refused_cleanly_and_write_nothing_outside(
    nuif, tmp_path: Path
) -> None:
    pool = seeds()
    rng = random.Random(SEED)
    work = tmp_path / "work"
    work.mkdir()
    pkg = work / "pkg.nuif"
    out = work / "out"
    tally = {"accepted": 0, "NUIF_PACKAGE": 0, "NUIF_PACKAGE_LIMIT": 0, "exit 2": 0}
    usage: list[str] = []
    for i in range(MUTATIONS):
        data = mutate(rng, pool) if i >= len(pool) else pool[i]  # the seeds themselves first
        pkg.write_bytes(data)
        before = listing(tmp_path)
        via_stdin = i % 5 == 0
        what = f"input {i} ({len(data)} bytes{', stdin' if via_stdin else ''})"

        src = "-" if via_stdin else str(pkg)
        v = nuif("verify", src, stdin=data if via_stdin else b"")
        check_stderr(v.code, v.err, f"{what}: verify")
        u = nuif("unpack", src, "-o", str(out), stdin=data if via_stdin else b"")
        check_stderr(u.code, u.err, f"{what}: unpack")

        assert (v.code == 0) == (u.code == 0), (
            f"{what}: verify {v.code} {v.err!r}, unpack {u.code} {u.err!r}"
        )
        after = listing(tmp_path)
        inside = [p for p in after if p == "work/out" or p.startswith("work/out/")]
        assert sorted(set(after) - set(inside)) == before, f"{what}: {after} vs {before}"
        if u.code == 0:
            printed = v.text.split(" OK ")[1].split()[0]
            assert u.text.startswith(printed + "  ")
            assert (out / "document.json").is_file() and (out / "manifest.json").is_file()
            for p in out.rglob("*"):
                assert not p.is_symlink() and (p.is_file() or p.is_dir()), f"{what}: {p}"
                assert out in p.resolve().parents
            shutil.rmtree(out)
            tally["accepted"] += 1
        else:
            assert not out.exists(), f"{what}: unpack failed but left {out}"
            if v.code == 2:
                tally["exit 2"] += 1
                usage.append(f"{what}: {v.err.strip()} / {u.err.strip()}")
            else:
                tally[
                    "NUIF_PACKAGE_LIMIT" if "NUIF_PACKAGE_LIMIT" in v.err else "NUIF_PACKAGE"
                ] += 1
    print(f"\n{MUTATIONS} inputs ({len(pool)} seeds, seed {SEED}): {tally}", *usage, sep="\n")
    assert tally["accepted"] >= 3  # the valid seeds at least


# ---------------------------------------------------------------------------------------------
# What this fuzzer found in the package reader (nuif_core.package, outside this test's remit):
# each is pinned by a small reproducer, expected to fail until the reader is fixed (strict: when
# it is fixed, these XPASS and fail the run, and the marks must go).


def _with_empty_entry_name() -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("document.json", b"{}")
        info = zipfile.ZipInfo("x")
        info.filename = info.orig_filename = ""
        zf.writestr(info, b"hello")
    return buf.getvalue()


def _with_central_directory_offset_too_large() -> bytes:
    """The end record claims the central directory starts 100,000 bytes later than it does:
    ``zipfile`` then computes negative local-header offsets."""
    data = bytearray(package.pack(PRETTY, {"assets/a.txt": b"hello"}))
    end = data.rfind(b"PK\x05\x06")
    offset = struct.unpack_from("<I", data, end + 16)[0]
    struct.pack_into("<I", data, end + 16, offset + 100_000)
    return bytes(data)


def test_an_entry_with_an_empty_name_is_nuif_package(nuif, tmp_path: Path) -> None:
    pkg = tmp_path / "pkg.nuif"
    pkg.write_bytes(_with_empty_entry_name())
    r = nuif("verify", str(pkg))
    assert r.code == 1 and ": NUIF_PACKAGE " in r.err, r.err


def test_a_negative_header_offset_is_nuif_package_from_a_path_too(nuif, tmp_path: Path) -> None:
    data = _with_central_directory_offset_too_large()
    assert nuif("verify", "-", stdin=data).code == 1
    pkg = tmp_path / "pkg.nuif"
    pkg.write_bytes(data)
    for argv in (["verify", str(pkg)], ["unpack", str(pkg), "-o", str(tmp_path / "out")]):
        r = nuif(*argv)
        assert r.code == 1 and ": NUIF_PACKAGE " in r.err, r.err
    assert listing(tmp_path) == ["pkg.nuif"]
