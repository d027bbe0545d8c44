"""Build and run the stage-1 harness of issue 21 (see docs/parser-design.md).

    python3 -m benchmarks.stage1.run                  # self-test, then the table (11 runs)
    python3 -m benchmarks.stage1.run --runs 21 --sizes 64KiB,1MiB
    python3 -m benchmarks.stage1.run --selftest-only
    python3 -m benchmarks.stage1.run --aarch64        # cross-build, self-test under qemu-aarch64
    python3 -m benchmarks.stage1.run --selftest-only --conformance   # + tests/data/JSONTestSuite

Compiles stage1.c + harness.c with the system C compiler at -O2 (plus sj.cpp when simdjson's
header and library are installed, e.g. Debian's libsimdjson-dev, and OpenSSL's libcrypto when
found), with packages/nuif-core/csrc on the include path for nuif_utf8.h.  Inputs are the
dashboards' own documents from benchmarks/corpus.py.  Nothing here is shipped or imported by
nuif-core.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CSRC = REPO / "packages" / "nuif-core" / "csrc"
SHAPES = ("ui", "strings", "numbers")
SIZES = ("64KiB", "1MiB", "16MiB")


def _links(cc: str, code: str, lib: str, workdir: Path, cplus: bool = False) -> bool:
    src = workdir / ("probe.cpp" if cplus else "probe.c")
    src.write_text(code)
    r = subprocess.run(
        [cc, str(src), "-o", str(workdir / "probe"), lib],
        capture_output=True,
        check=False,
    )
    return r.returncode == 0


def build(
    out: Path,
    cc: str = "gcc",
    cxx: str = "g++",
    simdjson: bool | None = None,
    openssl: bool | None = None,
    extra: tuple[str, ...] = (),
) -> tuple[Path, dict[str, bool]]:
    """Compile the harness into *out*; returns its path and which optional parts were built."""
    out.mkdir(parents=True, exist_ok=True)
    if openssl is None:
        openssl = _links(
            cc, "#include <openssl/evp.h>\nint main(void){return !EVP_sha256();}\n", "-lcrypto", out
        )
    if simdjson is None:
        simdjson = shutil.which(cxx) is not None and _links(
            cxx,
            "#include <simdjson.h>\nint main(){return simdjson::SIMDJSON_PADDING == 0;}\n",
            "-lsimdjson",
            out,
            cplus=True,
        )
    # nuif_utf8.h is the codec's header: its static helpers that stage 1 does not call are not
    # an error here (-Wno-unused-function); everything else warned about is.
    cflags = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function",
              f"-I{HERE}", f"-I{CSRC}", *extra]
    defs = (["-DHAVE_OPENSSL"] if openssl else []) + (["-DHAVE_SIMDJSON"] if simdjson else [])
    objs = []
    for name, more in (("stage1.c", []), ("harness.c", defs)):
        obj = out / (name + ".o")
        subprocess.run([cc, *cflags, *more, "-c", str(HERE / name), "-o", str(obj)], check=True)
        objs.append(str(obj))
    libs = ["-lcrypto"] if openssl else []
    linker = cc
    if simdjson:
        obj = out / "sj.o"
        subprocess.run(
            [cxx, "-O2", "-std=c++17", *extra, "-c", str(HERE / "sj.cpp"), "-o", str(obj)],
            check=True,
        )
        objs.append(str(obj))
        libs.append("-lsimdjson")
        linker = cxx
    exe = out / "harness"
    subprocess.run([linker, *extra, *objs, "-o", str(exe), *libs], check=True)
    return exe, {"simdjson": simdjson, "openssl": openssl}


def inputs(sizes: tuple[str, ...]) -> list[tuple[str, Path]]:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from benchmarks import corpus  # the dashboards' generator

    return [
        (f"{shape} {size}", corpus.load_path(shape, size)) for size in sizes for shape in SHAPES
    ]


def conformance() -> list[str]:
    """Every JSONTestSuite parsing case (valid or not) as an ``any:`` self-test argument."""
    suite = REPO / "tests" / "data" / "JSONTestSuite" / "test_parsing"
    return [f"any:{p}" for p in sorted(suite.glob("*.json"))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--selftest-only", action="store_true")
    ap.add_argument(
        "--aarch64",
        action="store_true",
        help="cross-compile with aarch64-linux-gnu-gcc, self-test under qemu-aarch64",
    )
    ap.add_argument(
        "--conformance",
        action="store_true",
        help="also self-test on every tests/data/JSONTestSuite case",
    )
    args = ap.parse_args(argv)
    sizes = tuple(s for s in args.sizes.split(",") if s)
    files = inputs(sizes)
    with tempfile.TemporaryDirectory(prefix="nuif-stage1-") as tmp:
        if args.aarch64:
            exe, _ = build(
                Path(tmp),
                cc="aarch64-linux-gnu-gcc",
                cxx="aarch64-linux-gnu-g++",
                simdjson=False,
                openssl=False,
                extra=("-static",),
            )
            run = ["qemu-aarch64", str(exe)]
        else:
            exe, parts = build(Path(tmp))
            print(f"# built with simdjson={parts['simdjson']} openssl={parts['openssl']}")
            run = [str(exe)]
        extra_cases = conformance() if args.conformance else []
        r = subprocess.run(
            [*run, "selftest", *[str(p) for _, p in files], *extra_cases], check=False
        )
        if r.returncode != 0:
            print(f"stage1 self-test failed (exit status {r.returncode})", file=sys.stderr)
            return 1
        if args.selftest_only:
            return 0
        r2 = subprocess.run(
            [*run, "bench", str(args.runs), *[f"{lab}={p}" for lab, p in files]],
            capture_output=True,
            text=True,
            check=True,
        )
    rows = [line.split("\t") for line in r2.stdout.splitlines() if not line.startswith("#")]
    notes = [line for line in r2.stdout.splitlines() if line.startswith("#")]
    print("\n".join(notes))
    print(f"\nGB/s of input, median of {args.runs} interleaved runs (min–max)\n")
    labels = list(dict.fromkeys(r[0] for r in rows))
    methods = list(dict.fromkeys(r[1] for r in rows))
    cell = {(r[0], r[1]): f"{float(r[2]):.2f} ({float(r[3]):.2f}–{float(r[4]):.2f})" for r in rows}
    print("| method | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for m in methods:
        print(f"| {m} | " + " | ".join(cell.get((lab, m), "–") for lab in labels) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
