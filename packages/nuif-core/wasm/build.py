"""Build nuif-core's C pipeline as a WebAssembly module: csrc/ on the plain C host, with the entry
points of wasm/nuif_wasm.c, for packages/nuif-web (docs/web.md, "The WebAssembly core").

    python packages/nuif-core/wasm/build.py [--out PATH] [--check]

The compiler is zig (the ``ziglang`` package, pinned in the workspace's dev group), targeting
wasm32-wasi with wasi-libc's allocator and SIMD128; nothing of WASI is imported (the build fails
if the module imports anything).  The build is reproducible: the same sources and zig give the
same bytes (no paths, dates or build ids are written into the module).  The default output is
packages/nuif-web/src/nuif_core.wasm (git-ignored, with its fingerprint beside it in
nuif_core.wasm.stamp, which ``ensure`` reads to skip a build that would change nothing).  ``--check`` prints the module's size, raw
and brotli-compressed when the ``brotli`` module is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

CORE = Path(__file__).resolve().parents[1]
CSRC = CORE / "csrc"
REPO = CORE.parents[1]
DEFAULT_OUT = REPO / "packages" / "nuif-web" / "src" / "nuif_core.wasm"

#: what the module is built from: a build is current when these are unchanged
SOURCES = (
    sorted(CSRC.glob("*.h"))
    + [CSRC / "nuif_sha256.c", CSRC / "nuif_float.cpp", CORE / "wasm" / "nuif_wasm.c"]
    + sorted((CSRC / "third_party").rglob("*.h"))
)

TARGET = ["-target", "wasm32-wasi", "-O3", "-msimd128", "-mbulk-memory", "-mnontrapping-fptoint"]
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", "-Wno-unused-function"]
# the link: a reactor (no main; wasi-libc's start-up runs in _initialize), symbols stripped
LINK = ["-mexec-model=reactor", "-s", "-Wl,--no-entry"]


def fingerprint() -> str:
    """SHA-256 over the sources' names and bytes and this script (what decides the module)."""
    h = hashlib.sha256()
    for path in [*SOURCES, Path(__file__)]:
        h.update(path.relative_to(CORE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _zig(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ziglang", *args], cwd=cwd, capture_output=True, text=True
    )
    if done.returncode != 0 or "warning" in done.stderr:
        raise SystemExit(f"zig {' '.join(args[:2])} failed:\n{done.stderr[-6000:]}")


def build(out: Path) -> Path:
    """Compile and link the module into ``out``; the path."""
    with tempfile.TemporaryDirectory(prefix="nuif-wasm-") as tmp:
        work = Path(tmp)
        # sources are named relative to the working directory so that no absolute path can
        # reach the module (it keeps no debug information anyway)
        inc = ["-I", str(CSRC)]
        _zig("cc", *TARGET, "-std=c11", *WARN, *inc, "-c", str(CORE / "wasm" / "nuif_wasm.c"),
             "-o", "main.o", cwd=work)  # fmt: skip
        _zig("cc", *TARGET, "-std=c11", *WARN, "-c", str(CSRC / "nuif_sha256.c"), "-o", "sha.o",
             cwd=work)  # fmt: skip
        _zig("c++", *TARGET, "-std=c++17", "-fno-exceptions", "-fno-rtti", *WARN,
             "-isystem", str(CSRC / "third_party"), "-c", str(CSRC / "nuif_float.cpp"),
             "-o", "float.o", cwd=work)  # fmt: skip
        _zig("c++", *TARGET, *LINK, "main.o", "sha.o", "float.o", "-o", "nuif.wasm", cwd=work)
        data = (work / "nuif.wasm").read_bytes()
    imports = _imports(data)
    if imports:
        raise SystemExit(f"the module imports {imports}; it must import nothing")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return out


def _imports(data: bytes) -> list[str]:
    """The ``module.name`` of every import of a WebAssembly binary (section 2)."""

    def uleb(i: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            b = data[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value, i

    def name(i: int) -> tuple[str, int]:
        n, i = uleb(i)
        return data[i : i + n].decode(), i + n

    assert data[:4] == b"\0asm", "not a WebAssembly module"
    i, found = 8, []
    while i < len(data):
        section, size_at = data[i], i + 1
        size, i = uleb(size_at)
        if section == 2:
            count, j = uleb(i)
            for _ in range(count):
                module, j = name(j)
                field, j = name(j)
                kind = data[j]
                j += 1
                found.append(f"{module}.{field}")
                if kind == 0:  # a function: its type index
                    _, j = uleb(j)
                elif kind == 1:  # a table: element type and limits
                    j += 1
                    flags, j = uleb(j)
                    _, j = uleb(j)
                    if flags & 1:
                        _, j = uleb(j)
                elif kind == 2:  # a memory: limits
                    flags, j = uleb(j)
                    _, j = uleb(j)
                    if flags & 1:
                        _, j = uleb(j)
                else:  # a global: value type and mutability
                    j += 2
        i += size
    return found


def stamp_of(out: Path) -> Path:
    """The file beside a built module that records the fingerprint it was built from."""
    return out.with_name(out.name + ".stamp")


def is_current(out: Path = DEFAULT_OUT) -> bool:
    """Whether the module at ``out`` was built from the sources as they are (its stamp)."""
    stamp = stamp_of(out)
    return out.is_file() and stamp.is_file() and stamp.read_text() == fingerprint()


def ensure(out: Path = DEFAULT_OUT) -> Path:
    """The module at ``out``, built first unless its stamp says the sources are unchanged."""
    if is_current(out):
        return out
    build(out)
    stamp_of(out).write_text(fingerprint())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the module goes")
    parser.add_argument("--check", action="store_true", help="print the module's sizes")
    args = parser.parse_args(argv)
    out = build(args.out)
    stamp_of(out).write_text(fingerprint())
    if args.check:
        data = out.read_bytes()
        line = f"{out}: {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}"
        try:
            import brotli  # type: ignore[import-not-found]

            line += f", {len(brotli.compress(data, quality=11)):,} bytes brotli"
        except ImportError:
            pass
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
