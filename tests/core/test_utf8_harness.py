"""The C harness of the UTF-8 routes (tests/core/utf8_harness.c): every vector route of
``packages/nuif-core/csrc/nuif_utf8.h`` gives the scalar route's verdict, natively (SSSE3 and
AVX2 on x86-64), cross-compiled for arm64 under qemu (NEON), and for wasm32-wasi under wasmtime
(SIMD128).

The harness judges each input with an independent decoder, the header's locator, its scalar
check and every vector route; see its header comment for the inputs (every sequence class at
every offset of 1..200-byte inputs, every byte pair at the 16/32/64-byte boundaries, 531,441
4-byte strings over the boundary byte values, cut characters, random text, and each
JSONTestSuite file shifted and mutated).  Each input ends right before an unreadable page, so
a route that reads past its input crashes the harness.  Two planted bugs (``-D`` switches the
header has for this test) prove that it fails: ED A0..BF (a surrogate) let through by the
vector routes, and the NEON block forgetting the block before it.

The native tests skip without gcc.  The arm64 tests need Debian's ``gcc-aarch64-linux-gnu`` and
``qemu-user``: without them they skip, or fail under ``NUIF_REQUIRE_AARCH64=1`` (``.ci/run``
installs both and sets it).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CSRC = REPO / "packages" / "nuif-core" / "csrc"
HARNESS = Path(__file__).with_name("utf8_harness.c")
SUITE = sorted((REPO / "tests" / "data" / "JSONTestSuite" / "test_parsing").glob("*.json"))
CFLAGS = [
    "-O2",
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wshadow",
    "-Werror",
    # the header's static helpers that the harness does not call
    "-Wno-unused-function",
    f"-I{CSRC}",
]
SUMMARY = re.compile(
    r"^utf8 harness: (\d+) cases, routes \(([^)]*)\), best (\w+), (\d+) mismatches$", re.MULTILINE
)


def expected_cases(files: list[Path]) -> int:
    """How many checks the harness makes (it must not stop short): the route selection (6), 48
    spots x 2 fillers x the 20,100 (length, offset) pairs of 1..200, 65,536 pairs x 32 offsets,
    27**4 quads, the 9 cut characters, 20,000 random texts twice, and per file 16 shifts plus
    min(60, 2 MiB // size) mutations."""
    lengths = (2, 2, 3, 3, 3, 3, 4, 4, 4)
    cut = sum(2 * (201 - k) for length in lengths for k in range(1, length + 1))
    total = 6 + 48 * 2 * 20100 + 65536 * 32 + 27**4 + cut + 2 * 20000
    for f in files:
        size = f.stat().st_size
        total += 16 + (min(60, (2 << 20) // size) if size else 0)
    return total


def build(out: Path, cc: str, *extra: str) -> Path:
    faults = "".join(x.replace("-D", "_") for x in extra if x.startswith("-D"))
    exe = out / f"utf8_harness{faults}"
    subprocess.run([cc, *CFLAGS, *extra, str(HARNESS), "-o", str(exe)], check=True, timeout=300)
    return exe


def run(cmd: list[str], *args: str) -> tuple[int, re.Match[str], str]:
    r = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=590, check=False)
    m = SUMMARY.search(r.stdout)
    assert m is not None, f"no summary (exit {r.returncode}): {r.stdout[-500:]} {r.stderr[-2000:]}"
    return r.returncode, m, r.stderr


def native_cc() -> str:
    cc = shutil.which("gcc")
    if cc is None:
        pytest.skip("needs gcc (C harness)")
    return cc


def native_routes() -> list[str]:
    """The routes the harness must find on this machine (scalar first, the best last)."""
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return ["scalar", "neon", "neon-blocks"]
    if machine in ("x86_64", "amd64"):
        flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
        return ["scalar"] + [r for r in ("ssse3", "avx2") if re.search(rf"\b{r}\b", flags)]
    return ["scalar"]


def aarch64_tools() -> tuple[str, str]:
    cc, qemu = shutil.which("aarch64-linux-gnu-gcc"), shutil.which("qemu-aarch64")
    if not (cc and qemu):
        missing = " and ".join(
            t for t, p in (("aarch64-linux-gnu-gcc", cc), ("qemu-aarch64", qemu)) if p is None
        )
        if os.environ.get("NUIF_REQUIRE_AARCH64") == "1":
            pytest.fail(f"NUIF_REQUIRE_AARCH64=1 but {missing} not on PATH")
        pytest.skip(f"{missing} missing (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user)")
    return cc, qemu


# -- natively ----------------------------------------------------------------------------------


def test_every_native_route_gives_the_scalar_verdict(tmp_path: Path) -> None:
    exe = build(tmp_path, native_cc())
    rc, m, err = run([str(exe)], *map(str, SUITE))
    assert rc == 0, err
    assert int(m.group(4)) == 0
    routes = native_routes()
    assert m.group(2).split(", ") == routes
    best = {"neon-blocks": "neon"}.get(routes[-1], routes[-1])
    assert m.group(3) == best
    assert len(SUITE) >= 300
    assert int(m.group(1)) == expected_cases(SUITE)


def test_a_native_planted_surrogate_bug_fails(tmp_path: Path) -> None:
    if native_routes() == ["scalar"]:
        pytest.skip("no vector route on this machine to plant the bug in")
    exe = build(tmp_path, native_cc(), "-DNUIF_UTF8_FAULT_SURROGATE")
    rc, m, err = run([str(exe)], "--fail-fast")
    assert rc == 1
    assert int(m.group(4)) >= 1
    said = r"MISMATCH ED A[0-9A-F] [0-9A-F]{2}: \w+ says valid, the reference invalid"
    assert re.search(said, err), err


def test_the_harness_refuses_a_file_it_cannot_read(tmp_path: Path) -> None:
    exe = build(tmp_path, native_cc())
    r = subprocess.run(
        [str(exe), str(tmp_path / "absent.json")],
        capture_output=True,
        text=True,
        timeout=590,
        check=False,
    )
    assert r.returncode == 2
    assert "cannot read" in r.stderr


# -- arm64 under qemu ----------------------------------------------------------------------------


def test_the_neon_route_gives_the_scalar_verdict_under_qemu(tmp_path: Path) -> None:
    cc, qemu = aarch64_tools()
    exe = build(tmp_path, cc, "-static")
    rc, m, err = run([qemu, str(exe)], *map(str, SUITE))
    assert rc == 0, err
    assert int(m.group(4)) == 0
    # the whole-buffer route, and the block functions driven 64 bytes per step (as stage 1 will)
    assert m.group(2) == "scalar, neon, neon-blocks"
    assert m.group(3) == "neon"
    assert int(m.group(1)) == expected_cases(SUITE)


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("-DNUIF_UTF8_FAULT_SURROGATE", r"MISMATCH ED A0 80: neon says valid, the reference inv"),
        ("-DNUIF_UTF8_FAULT_NEON_CARRY", r"MISMATCH [^:]+: neon says (in)?valid, the reference"),
    ],
)
def test_a_planted_neon_bug_fails_under_qemu(tmp_path: Path, fault: str, says: str) -> None:
    cc, qemu = aarch64_tools()
    exe = build(tmp_path, cc, "-static", fault)
    rc, m, err = run([qemu, str(exe)], "--fail-fast")
    assert rc == 1
    assert int(m.group(4)) >= 1
    assert re.search(says, err), err


# -- WebAssembly under wasmtime ------------------------------------------------------------------


def wasm_build(out: Path, *extra: str) -> Path:
    """The harness for wasm32-wasi with SIMD128, as packages/nuif-core/wasm/build.py compiles
    the core (zig, ``ziglang`` of the dev group)."""
    pytest.importorskip("ziglang", reason="ziglang (dev group) compiles for WebAssembly")
    faults = "".join(x.replace("-D", "_") for x in extra if x.startswith("-D"))
    exe = out / f"utf8_harness{faults}.wasm"
    subprocess.run(
        [sys.executable, "-m", "ziglang", "cc", "-target", "wasm32-wasi", "-msimd128", *CFLAGS,
         *extra, str(HARNESS), "-o", str(exe)],
        check=True,
        timeout=300,
    )  # fmt: skip
    return exe


def wasm_run(exe: Path, out: Path, *args: str) -> tuple[int, re.Match[str], str]:
    """Run the harness under wasmtime (WASI: the suite's folder is /suite), as ``run`` does."""
    wasmtime = pytest.importorskip("wasmtime", reason="wasmtime (dev group) runs WebAssembly")
    engine = wasmtime.Engine()
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.argv = ["utf8_harness", *args]
    wasi.preopen_dir(str(SUITE[0].parent), "/suite")
    wasi.stdout_file = str(out / "stdout.txt")
    wasi.stderr_file = str(out / "stderr.txt")
    store.set_wasi(wasi)
    instance = linker.instantiate(store, wasmtime.Module.from_file(engine, str(exe)))
    try:
        instance.exports(store)["_start"](store)
        rc = 0
    except wasmtime.ExitTrap as exit_:
        rc = exit_.code
    stdout, stderr = ((out / f).read_text() for f in ("stdout.txt", "stderr.txt"))
    m = SUMMARY.search(stdout)
    assert m is not None, f"no summary (exit {rc}): {stdout[-500:]} {stderr[-2000:]}"
    return rc, m, stderr


def test_the_simd128_route_gives_the_scalar_verdict_under_wasmtime(tmp_path: Path) -> None:
    exe = wasm_build(tmp_path)
    rc, m, err = wasm_run(exe, tmp_path, *(f"/suite/{f.name}" for f in SUITE))
    assert rc == 0, err
    assert int(m.group(4)) == 0
    assert m.group(2) == "scalar, simd128"
    assert m.group(3) == "simd128"
    assert int(m.group(1)) == expected_cases(SUITE)


def test_a_planted_simd128_bug_fails_under_wasmtime(tmp_path: Path) -> None:
    exe = wasm_build(tmp_path, "-DNUIF_UTF8_FAULT_SURROGATE")
    rc, m, err = wasm_run(exe, tmp_path, "--fail-fast")
    assert rc == 1
    assert int(m.group(4)) >= 1
    assert re.search(r"MISMATCH ED A0 80: simd128 says valid, the reference inv", err), err
