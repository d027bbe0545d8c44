"""The stage-1 harness of issue 21 (benchmarks/stage1/): it builds, its self-test passes on the
dashboards' inputs and on its tricky cases, and the self-test fails on a planted bug.

The harness is C: every test here skips, with the reason, when the C compiler is missing; the
NEON test also when Debian's aarch64 cross compiler or qemu-user is (a failure instead under
``NUIF_REQUIRE_AARCH64=1``).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks.stage1 import run as stage1

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc (C harness)")

SELFTEST = re.compile(r"selftest: (\d+) cases, (\d+) routes \(([^)]*)\), (\d+) mismatches")


@pytest.fixture(scope="module")
def files() -> list[str]:
    return [str(p) for _, p in stage1.inputs(("64KiB",))]


def _selftest(exe: list[str], files: list[str]) -> tuple[int, re.Match[str] | None, str]:
    r = subprocess.run(
        [*exe, "selftest", *files], capture_output=True, text=True, timeout=300, check=False
    )
    return r.returncode, SELFTEST.search(r.stdout), r.stderr


def test_every_route_gives_the_reference_index(tmp_path: Path, files: list[str]) -> None:
    exe, parts = stage1.build(tmp_path)
    rc, m, err = _selftest([str(exe)], [*files, *stage1.conformance()])
    assert m is not None, err
    assert rc == 0, err
    assert int(m.group(4)) == 0
    routes = m.group(3).split(", ")
    assert "portable" in routes
    if platform.machine() == "x86_64" and "avx2" in Path("/proc/cpuinfo").read_text():
        assert "avx2" in routes
    # exactly: the tricky cases (24 x 134 offsets + 2 x 199 lengths + 3), each corpus file and
    # its 3000 mutations, simdjson's index on each corpus file (when built), and every
    # JSONTestSuite case with its 20 mutations (none for an empty file)
    suite = stage1.conformance()
    assert len(suite) >= 300
    n_empty = sum(1 for s in suite if Path(s[4:]).stat().st_size == 0)
    expected = 24 * 134 + 2 * 199 + 3 + len(files) * 3001 + len(suite) * 21 - 20 * n_empty
    assert int(m.group(1)) == expected + (len(files) if parts["simdjson"] else 0)


def test_the_selftest_catches_a_wrong_verdict(tmp_path: Path, files: list[str]) -> None:
    # a valid corpus file with one byte made invalid UTF-8 must be refused, and the self-test
    # says so when it is passed as "must be accepted"
    broken = tmp_path / "broken.json"
    data = bytearray(Path(files[0]).read_bytes())
    data[100] = 0xFF
    broken.write_bytes(bytes(data))
    exe, _ = stage1.build(tmp_path / "b", simdjson=False)
    rc, m, err = _selftest([str(exe)], [str(broken)])
    assert rc == 1
    assert m is not None and int(m.group(4)) >= 1
    assert "reference says refuse, expected ok" in err
    rc, m, err = _selftest([str(exe)], [f"any:{broken}"])
    assert rc == 0, err


def test_the_selftest_catches_a_lost_escape_across_blocks(tmp_path: Path, files: list[str]) -> None:
    exe, _ = stage1.build(tmp_path, simdjson=False, extra=("-DNUIF_S1_FAULT_DROP_ESCAPE_CARRY",))
    rc, m, err = _selftest([str(exe)], files)
    assert rc == 1
    assert m is not None and int(m.group(4)) > 0
    assert "index differs" in err or "says" in err


def test_the_bench_reports_every_method_it_built(tmp_path: Path, files: list[str]) -> None:
    exe, parts = stage1.build(tmp_path)
    labelled = [f"in{i}={f}" for i, f in enumerate(files[:1])]
    r = subprocess.run(
        [str(exe), "bench", "1", *labelled], capture_output=True, text=True, timeout=300, check=True
    )
    rows = [line.split("\t") for line in r.stdout.splitlines() if not line.startswith("#")]
    methods = {row[1] for row in rows}
    assert {
        "own stage 1: scalar reference",
        "own stage 1: portable",
        "memchr (no match)",
    } <= methods
    assert ("simdjson stage 1" in methods) == parts["simdjson"]
    assert ("OpenSSL SHA-256 (EVP)" in methods) == parts["openssl"]
    assert all(float(row[2]) > 0 for row in rows)


def test_the_neon_route_under_qemu(tmp_path: Path, files: list[str]) -> None:
    if shutil.which("aarch64-linux-gnu-gcc") is None or shutil.which("qemu-aarch64") is None:
        # .ci/run installs both and sets NUIF_REQUIRE_AARCH64=1: there the test must run
        if os.environ.get("NUIF_REQUIRE_AARCH64") == "1":
            pytest.fail("NUIF_REQUIRE_AARCH64=1 but aarch64-linux-gnu-gcc or qemu-aarch64 is missing")
        pytest.skip("needs Debian's gcc-aarch64-linux-gnu and qemu-user")
    exe, _ = stage1.build(
        tmp_path, cc="aarch64-linux-gnu-gcc", simdjson=False, openssl=False, extra=("-static",)
    )
    rc, m, err = _selftest(["qemu-aarch64", str(exe)], [*files, *stage1.conformance()])
    assert m is not None, err
    assert rc == 0, err
    assert m.group(3) == "portable, neon"
