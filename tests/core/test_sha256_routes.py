"""csrc/nuif_sha256.c, compiled on its own with tests/core/c/sha256_check.c, gives hashlib's
digest on each of its block functions, for every length up to 299 bytes and some beyond, fed in
pieces of every size: SHA-NI and portable C here (gcc and clang, warnings as errors), ARMv8 and
portable C for aarch64 (zig's clang and, where it is installed, Debian's gcc-aarch64-linux-gnu,
run under qemu-aarch64), and portable C for wasm32-wasi (run under wasmtime).

A toolchain or emulator that is not installed skips its case, unless ``NUIF_REQUIRE_AARCH64=1``
(.ci/run installs Debian's qemu-user and gcc-aarch64-linux-gnu and sets it)."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CSRC = REPO / "packages" / "nuif-core" / "csrc"
CHECK = Path(__file__).resolve().parent / "c" / "sha256_check.c"
WARN = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
X86 = platform.machine() in ("x86_64", "AMD64")


def expected() -> list[str]:
    """The lines the program prints after its route, computed here with hashlib."""
    buf = bytearray()
    x = 2463534242
    for _ in range(70000):  # the program's xorshift32
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        buf.append(x >> 24)
    lengths = [*range(300), 447, 448, 511, 512, 4096, 65535, 65536, 70000]
    lines = []
    for n in lengths:
        line = f"{hashlib.sha256(bytes(buf[:n])).hexdigest()} {n}"
        lines += [line, line]
    return lines


WANT = expected()


def build(cc: list[str], out: Path) -> None:
    result = subprocess.run(
        [*cc, *WARN, f"-I{CSRC}", str(CHECK), str(CSRC / "nuif_sha256.c"), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]


def check(run: Callable[[list[str]], str], routes: tuple[str, str]) -> None:
    """The program's default route is routes[0], forced portable it is routes[1], and every
    digest either way is hashlib's."""
    for args, route in (([], routes[0]), (["portable"], routes[1])):
        got = run(args).splitlines()
        assert got[0] == route
        assert got[1:] == WANT, route


def run_native(path: Path) -> Callable[[list[str]], str]:
    def run(args: list[str]) -> str:
        return subprocess.run(
            [str(path), *args], capture_output=True, text=True, check=True, timeout=120
        ).stdout

    return run


def need(tool: str | None, what: str) -> str:
    if tool is None:
        if os.environ.get("NUIF_REQUIRE_AARCH64") == "1":
            pytest.fail(f"{what} is not installed (NUIF_REQUIRE_AARCH64=1)")
        pytest.skip(f"{what} is not installed")
    return tool


def has_sha_ni() -> bool:
    cpuinfo = Path("/proc/cpuinfo")
    return cpuinfo.exists() and "sha_ni" in cpuinfo.read_text()


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_this_machines_routes(compiler: str, tmp_path: Path) -> None:
    cc = shutil.which(compiler)
    if cc is None:
        pytest.skip(f"{compiler} is not installed")
    build([cc], tmp_path / "check")
    best = "sha-ni" if X86 and has_sha_ni() else "armv8" if not X86 else "portable"
    check(run_native(tmp_path / "check"), (best, "portable"))


def zig() -> list[str]:
    pytest.importorskip("ziglang", reason="ziglang is in the dev group")
    return [sys.executable, "-m", "ziglang", "cc"]


def test_aarch64_with_zigs_clang(tmp_path: Path) -> None:
    qemu = need(shutil.which("qemu-aarch64"), "qemu-aarch64 (Debian's qemu-user)")
    build([*zig(), "-target", "aarch64-linux-musl"], tmp_path / "check")
    check(
        lambda args: run_native(Path(qemu))(["-cpu", "max", str(tmp_path / "check"), *args]),
        ("armv8", "portable"),
    )


def test_aarch64_with_gcc(tmp_path: Path) -> None:
    qemu = need(shutil.which("qemu-aarch64"), "qemu-aarch64 (Debian's qemu-user)")
    gcc = need(shutil.which("aarch64-linux-gnu-gcc"), "aarch64-linux-gnu-gcc")
    build([gcc, "-static"], tmp_path / "check")
    check(
        lambda args: run_native(Path(qemu))(["-cpu", "max", str(tmp_path / "check"), *args]),
        ("armv8", "portable"),
    )


def test_wasm32_wasi(tmp_path: Path) -> None:
    wasmtime = pytest.importorskip("wasmtime", reason="wasmtime is in the dev group")
    build([*zig(), "-target", "wasm32-wasi"], tmp_path / "check.wasm")
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, str(tmp_path / "check.wasm"))
    linker = wasmtime.Linker(engine)
    linker.define_wasi()

    def run(args: list[str]) -> str:
        config = wasmtime.WasiConfig()
        config.argv = ["check", *args]
        config.stdout_file = str(tmp_path / "out")
        store = wasmtime.Store(engine)
        store.set_wasi(config)
        status = 0
        try:
            linker.instantiate(store, module).exports(store)["_start"](store)
        except wasmtime.ExitTrap as exit:
            status = exit.code
        assert status == 0
        return (tmp_path / "out").read_text()

    check(run, ("portable", "portable"))
