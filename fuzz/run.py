"""Run the NUIF fuzz targets for a given time and report executions and findings.

    uv run python fuzz/run.py --target all --seconds 600            # every target, 10 min each
    uv run python fuzz/run.py --target codec --seconds 60 --asan    # against the ASan build
    uv run python fuzz/run.py --target all --seconds 1800 --jobs 2  # two targets at a time

Each target runs under libFuzzer (atheris) with the committed seeds ``fuzz/corpus/<target>``
(read-only) and a growing working corpus ``fuzz/out/corpus/<target>``.  Everything written goes
under ``fuzz/out/`` (git-ignored): logs, crash/timeout/oom artifacts in
``fuzz/out/findings/<target>/``, and one JSON line per run in ``fuzz/out/runs.jsonl``.  When a
target stops on a finding, the finding is recorded and the target is restarted until its time is
used up.  At the end a table prints, per target: seconds, executions, executions/s, findings.
The exit status is 1 when anything was found.

``--asan`` runs the targets against nuif-core built with ``-DNUIF_ASAN=ON`` (AddressSanitizer,
gcc) in a separate virtual environment, ``fuzz/out/asan/venv`` (built on first use with uv); the
Python modules come from this checkout through an overlay directory, so only the extension
differs.  The interpreter runs with ``LD_PRELOAD=libasan.so``, ``ASAN_OPTIONS=detect_leaks=0``
and ``PYTHONMALLOC=malloc`` (so ``PyMem_Malloc`` buffers of the extension are checked too).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
TARGETS = {
    # name: max input length
    "codec": 4096,
    "document": 8192,
    "patch": 8192,
    "diff": 8192,
    "package": 16384,
    "cost": 8192,
    "inverse": 1024,
    "catalog": 8192,
}
#: per-input time limit (a hang is a finding) and memory limit
INPUT_TIMEOUT = 30
#: targets whose inputs may take longer by design, with the time one may take: a catalog input
#: is checked four times (three validations and ``Catalog.work``), each up to the NUIF-0 §9.6
#: work bound (~1.7 s of CPU uninstrumented, ~7 s for the four under atheris' instrumentation),
#: and the hostile recipes sit at that bound; under ``nice`` on a busy machine that crossed 30 s
#: of wall time with no fault of the code (the cost itself is checked in units, not seconds)
INPUT_TIMEOUTS = {"catalog": 120}
RSS_LIMIT_MB = 3072
ASAN_CONSTRAINTS = """scikit-build-core==1.1.2
cython==3.3.1
cython-cmake==0.3.0
ninja==1.13.2
cmake==4.4.4
"""


def _print_file(cc: str, name: str) -> str | None:
    try:
        out = subprocess.run(
            [cc, f"-print-file-name={name}"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return out if os.path.isabs(out) and os.path.exists(out) else None


def _clang() -> str | None:
    for cc in ("clang-14", "clang"):
        if shutil.which(cc) and _print_file(cc, "libclang_rt.fuzzer_no_main-x86_64.a"):
            return cc
    return None


def _clang_runtime(cc: str, root: Path) -> Path:
    """ASan runtime + libFuzzer in one preloadable library (what atheris calls
    ``asan_with_fuzzer.so``): libFuzzer's coverage callbacks then win over the sanitizer's
    defaults, so atheris keeps its Python coverage feedback under ASan."""
    so = root / "asan_with_fuzzer.so"
    if so.exists():
        return so
    asan = Path(_print_file(cc, "libclang_rt.asan-x86_64.a") or "")
    cxx = Path(_print_file(cc, "libclang_rt.asan_cxx-x86_64.a") or "")
    fuzzer = Path(_print_file(cc, "libclang_rt.fuzzer_no_main-x86_64.a") or "")
    local = root / "asan-no-preinit.a"
    shutil.copy2(asan, local)
    subprocess.run(
        ["ar", "d", str(local), "asan_preinit.cpp.o"], check=True
    )  # not allowed in a DSO
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-o",
            str(so),
            "-Wl,--whole-archive",
            str(local),
            str(cxx),
            str(fuzzer),
            "-Wl,--no-whole-archive",
            "-lstdc++",
            "-lpthread",
            "-ldl",
            "-lrt",
            "-lm",
        ],
        check=True,
    )
    return so


def _uv() -> str:
    """uv: $UV, the one on PATH, or the README's ``.uv/bin/uv`` of this checkout."""
    found = os.environ.get("UV") or shutil.which("uv")
    local = REPO / ".uv" / "bin" / "uv"
    if found is None and local.exists():
        found = str(local)
    if found is None:
        sys.exit("uv not found: set UV, or install it as the README says (.uv/bin/uv)")
    return found


def asan_env(rebuild: bool, toolchain: str) -> tuple[str, dict[str, str], str]:
    """The ASan interpreter, its environment and a label; builds ``fuzz/out/asan-<tc>``.

    clang (preferred when installed): the extension is built with ``-fsanitize=address`` (the
    NUIF_ASAN CMake option) plus ``-fsanitize=fuzzer-no-link`` (native coverage feedback), and
    the interpreter preloads ASan+libFuzzer as one library.  gcc: the extension is built with
    NUIF_ASAN only and gcc's libasan is preloaded; libasan then provides the coverage callbacks
    atheris needs, so libFuzzer gets *no* coverage feedback (it still mutates the seeds and
    catches memory errors, but blindly).
    """
    if toolchain == "auto":
        toolchain = "clang" if _clang() else "gcc"
    cc = _clang() if toolchain == "clang" else "gcc"
    if cc is None:
        sys.exit(
            "--asan-toolchain clang: clang with compiler-rt not found (apt-get install clang-14)"
        )
    root = OUT / f"asan-{toolchain}"
    venv = root / "venv"
    py = venv / "bin" / "python"

    def site_dir() -> Path | None:
        found = sorted(venv.glob("lib/python3*/site-packages")) if venv.exists() else []
        return found[0] if found else None

    site = site_dir()
    # rebuild when the extension's sources changed since the last ASan build
    core = REPO / "packages" / "nuif-core"
    stamp = hashlib.sha256()
    for f in sorted(
        [
            core / "CMakeLists.txt",
            core / "pyproject.toml",
            *(core / "src" / "nuif_core").glob("*.pyx"),
            *(core / "src" / "nuif_core").glob("*.pxi"),
            *(core / "csrc").glob("*.*"),
            *(core / "glue").glob("*.*"),
        ]
    ):
        stamp.update(f.name.encode() + b"\0" + f.read_bytes())
    stamp_file = root / "sources.sha256"
    stale = not stamp_file.exists() or stamp_file.read_text() != stamp.hexdigest()
    if rebuild or stale or site is None or not list((site / "nuif_core").glob("_speedups*.so")):
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        (root / "build-constraints.txt").write_text(ASAN_CONSTRAINTS)
        subprocess.run([_uv(), "venv", "-q", str(venv), "--python", sys.executable], check=True)
        # the C++ file (csrc/nuif_float.cpp) must come from the same toolchain: a g++-linked
        # extension pulls in gcc's ASan runtime, which clang's refuses to share the process with
        cxx = cc.replace("clang", "clang++") if toolchain == "clang" else "g++"
        build_env = {**os.environ, "CC": cc, "CXX": cxx}
        if toolchain == "clang":
            build_env["CFLAGS"] = build_env["CXXFLAGS"] = "-fsanitize=fuzzer-no-link"
        subprocess.run(
            [
                _uv(),
                "pip",
                "install",
                "--python",
                str(py),
                "--no-cache",
                "--build-constraint",
                str(root / "build-constraints.txt"),
                "-C",
                "cmake.define.NUIF_ASAN=ON",
                "-C",
                f"build-dir={root / 'build'}",
                str(REPO / "packages" / "nuif-core"),
                "atheris==3.0.0",
                "rfc8785==0.1.4",
            ],
            check=True,
            env=build_env,
        )
        site = site_dir()
        stamp_file.write_text(stamp.hexdigest())
    assert site is not None
    # overlay: this checkout's Python modules + the ASan extension
    overlay = root / "overlay" / "nuif_core"
    shutil.rmtree(overlay.parent, ignore_errors=True)
    overlay.mkdir(parents=True)
    src = REPO / "packages" / "nuif-core" / "src" / "nuif_core"
    for f in src.iterdir():
        if f.suffix in (".py", ".typed"):
            (overlay / f.name).symlink_to(f)
    for so in (site / "nuif_core").glob("_speedups*.so"):
        shutil.copy2(so, overlay / so.name)
    preload = (
        str(_clang_runtime(cc, root)) if toolchain == "clang" else _print_file("gcc", "libasan.so")
    )
    if not preload:
        sys.exit("gcc does not know libasan.so: install gcc's AddressSanitizer runtime")
    env = {
        "LD_PRELOAD": preload,
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:symbolize=1",
        "PYTHONMALLOC": "malloc",
        "PYTHONPATH": str(overlay.parent),
        "NUIF_REQUIRE_EXTENSION": "1",
    }
    return str(py), env, f"asan-{toolchain}"


def parse_log(text: str) -> tuple[int, list[str]]:
    """Executions (last libFuzzer status line) and findings (error banners) of one run."""
    execs = 0
    for m in re.finditer(r"^#(\d+)\s", text, re.M):
        execs = int(m.group(1))
    m = re.search(r"^Done (\d+) runs in", text, re.M)
    if m:
        execs = int(m.group(1))
    findings = []
    for m in re.finditer(r"^==\d+== ?ERROR: (libFuzzer: .*|AddressSanitizer: .*)$", text, re.M):
        findings.append(m.group(1).strip())
    for m in re.finditer(r"^(?:Finding|[A-Za-z_.]*(?:Error|Exception)): .*$", text, re.M):
        findings.append(m.group(0)[:300])
    return execs, findings


def run_target(
    name: str,
    seconds: float,
    py: str,
    env: dict[str, str],
    label: str,
    extra: list[str],
    results: dict[str, dict],
) -> None:
    work = OUT / "corpus" / name
    found_dir = OUT / "findings" / name
    logs = OUT / "logs"
    for d in (work, found_dir, logs):
        d.mkdir(parents=True, exist_ok=True)
    total_execs, total_time, findings, artifacts, runs = 0, 0.0, [], [], 0
    deadline = time.monotonic() + seconds
    while True:
        left = int(deadline - time.monotonic())
        if left < 2:
            break
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        log = logs / f"{name}-{label}-{stamp}.log"
        before = set(found_dir.iterdir())
        cmd = [
            "nice",
            "-n",
            str(args.nice),
            py,
            str(HERE / f"fuzz_{name}.py"),
            f"-max_total_time={left}",
            f"-timeout={INPUT_TIMEOUTS.get(name, INPUT_TIMEOUT)}",
            f"-rss_limit_mb={RSS_LIMIT_MB}",
            f"-max_len={TARGETS[name]}",
            f"-artifact_prefix={found_dir}/",
            "-print_final_stats=1",
            *extra,
            str(work),
            str(HERE / "corpus" / name),
        ]
        start = time.monotonic()
        with open(log, "w") as fh:
            proc = subprocess.run(
                cmd,
                stdout=fh,
                stderr=subprocess.STDOUT,
                env={**os.environ, **env},
                cwd=REPO,
                timeout=left + 3 * INPUT_TIMEOUTS.get(name, INPUT_TIMEOUT) + 120,
            )
        elapsed = time.monotonic() - start
        text = log.read_text(errors="replace")
        execs, found = parse_log(text)
        new = sorted(str(p.relative_to(REPO)) for p in set(found_dir.iterdir()) - before)
        runs += 1
        total_execs += execs
        total_time += elapsed
        if proc.returncode != 0 or new:
            findings.append(
                {
                    "log": str(log.relative_to(REPO)),
                    "rc": proc.returncode,
                    "what": found[:4],
                    "artifacts": new,
                }
            )
            artifacts.extend(new)
            print(
                f"[{name}] FINDING (rc {proc.returncode}): {found[:2]} {new} — see {log}",
                flush=True,
            )
        with open(OUT / "runs.jsonl", "a") as fh:
            fh.write(
                json.dumps(
                    {
                        "target": name,
                        "mode": label,
                        "date": stamp,
                        "seconds": round(elapsed, 1),
                        "executions": execs,
                        "rc": proc.returncode,
                        "findings": found[:4],
                        "artifacts": new,
                        "host": os.uname().nodename,
                        "cpus": os.cpu_count(),
                    }
                )
                + "\n"
            )
        if proc.returncode == 0 or (elapsed < 5 and not new):
            break  # ran to its time limit (or cannot start: do not spin)
    results[name] = {
        "seconds": total_time,
        "executions": total_execs,
        "runs": runs,
        "findings": findings,
    }


def main() -> int:
    global args
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--target", default="all", help="|".join(TARGETS) + " or all (default)")
    ap.add_argument("--seconds", type=float, default=60, help="time per target (default 60)")
    ap.add_argument("--jobs", type=int, default=1, help="targets run at the same time (default 1)")
    ap.add_argument("--asan", action="store_true", help="use the AddressSanitizer build")
    ap.add_argument(
        "--asan-toolchain",
        choices=("auto", "clang", "gcc"),
        default="auto",
        help="clang (coverage feedback kept; default when installed) or gcc",
    )
    ap.add_argument("--rebuild-asan", action="store_true", help="rebuild the ASan environment")
    ap.add_argument("--nice", type=int, default=10, help="niceness of the fuzzers (default 10)")
    ap.add_argument(
        "--scratch",
        type=int,
        default=0,
        metavar="BYTES",
        help="keep output scratch buffers of at most BYTES, so texts move from the "
        "scratch into their bytes object while they are written (default: 4 MiB, "
        "which fuzz texts never outgrow)",
    )
    ap.add_argument("extra", nargs="*", help="extra libFuzzer flags (after --)")
    ap.add_argument(
        "--summary",
        action="store_true",
        help="only print the totals of every run recorded in fuzz/out/runs.jsonl",
    )
    args = ap.parse_args()
    if args.summary:
        return summary()
    names = list(TARGETS) if args.target == "all" else args.target.split(",")
    for n in names:
        if n not in TARGETS:
            ap.error(f"unknown target {n!r} (choose from {', '.join(TARGETS)} or all)")
    if args.asan:
        py, env, label = asan_env(args.rebuild_asan, args.asan_toolchain)
    else:
        py, env, label = sys.executable, {"NUIF_REQUIRE_EXTENSION": "1"}, "plain"
    if args.scratch > 0:
        env = {**env, "NUIF_FUZZ_SCRATCH": str(args.scratch)}
        label += f"-scratch{args.scratch}"
    OUT.mkdir(exist_ok=True)
    results: dict[str, dict] = {}
    pending = list(names)
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not pending:
                    return
                name = pending.pop(0)
            run_target(name, args.seconds, py, env, label, args.extra, results)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    print(
        f"\nfuzz run ({label}) on {os.uname().nodename}, {os.cpu_count()} CPUs, "
        f"{dt.datetime.now():%Y-%m-%d %H:%M}"
    )
    print(f"{'target':<10} {'seconds':>8} {'executions':>11} {'exec/s':>8} {'findings':>9}")
    bad = 0
    for n in names:
        r = results.get(n, {"seconds": 0, "executions": 0, "findings": []})
        rate = r["executions"] / r["seconds"] if r["seconds"] else 0
        print(
            f"{n:<10} {r['seconds']:>8.0f} {r['executions']:>11} {rate:>8.0f} {len(r['findings']):>9}"
        )
        for f in r["findings"]:
            bad += 1
            print(f"    {f['what'][:2]} {f['artifacts']} ({f['log']})")
    return 1 if bad else 0


def summary() -> int:
    """Totals per target and mode over ``fuzz/out/runs.jsonl`` (every run of this checkout)."""
    rows: dict[tuple[str, str], list[float]] = {}
    findings = 0
    path = OUT / "runs.jsonl"
    if not path.exists():
        print("no runs recorded in fuzz/out/runs.jsonl")
        return 0
    first = last = ""
    for line in path.read_text().splitlines():
        r = json.loads(line)
        first = min(first or r["date"], r["date"])
        last = max(last, r["date"])
        acc = rows.setdefault((r["target"], r["mode"]), [0.0, 0, 0, 0])
        acc[0] += r["seconds"]
        acc[1] += r["executions"]
        acc[2] += 1
        acc[3] += 1 if (r["rc"] or r["artifacts"]) else 0
        findings += 1 if (r["rc"] or r["artifacts"]) else 0
    print(f"runs from {first} to {last} ({os.uname().nodename}, {os.cpu_count()} CPUs)")
    print(
        f"{'target':<10} {'mode':<11} {'minutes':>8} {'executions':>11} {'exec/s':>7} {'runs':>5} {'findings':>9}"
    )
    totals: dict[str, list[float]] = {}
    for (target, mode), (sec, execs, runs, bad) in sorted(rows.items()):
        print(
            f"{target:<10} {mode:<11} {sec / 60:>8.1f} {execs:>11} {execs / max(sec, 1):>7.0f} "
            f"{runs:>5} {bad:>9}"
        )
        t = totals.setdefault(target, [0.0, 0])
        t[0] += sec
        t[1] += execs
    for target, (sec, execs) in sorted(totals.items()):
        print(f"{target:<10} {'all':<11} {sec / 60:>8.1f} {execs:>11}")
    return 1 if findings else 0


args: argparse.Namespace

if __name__ == "__main__":
    sys.exit(main())
