"""Line coverage of the compiled codec's C (csrc/, outside third_party/).

    uv run python scripts/c_coverage.py                  # tests/core, summary table
    uv run python scripts/c_coverage.py --html out.html  # and gcovr's annotated pages
    uv run python scripts/c_coverage.py -- -k codec      # pytest arguments after --

It builds nuif-core with gcov's instrumentation (the NUIF_COVERAGE CMake option: ``--coverage
-O0``) into a separate environment under ``build/c-coverage/`` with the test suite's own pinned
test dependencies, runs the codec's tests there (tests/core by default) against that build, and
has gcovr (a well-kept reader of gcov's data) report the lines of csrc/ that ran.  Python line
coverage is the test command's own (``pytest --cov``, floor in pyproject.toml).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORE = REPO / "packages" / "nuif-core"
ROOT = REPO / "build" / "c-coverage"
GCOVR = "gcovr==8.8"
#: the test suite's own dependencies for tests/core, at the versions the dev group pins
TEST_DEPS = (
    "pytest",
    "pytest-timeout",
    "hypothesis",
    "rfc8785",
    "orjson",
    "jsonpatch",
    "psutil",
    "pytest-benchmark",
)


def config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def pinned() -> list[str]:
    dev = config()["dependency-groups"]["dev"]
    by_name = {d.split("==")[0]: d for d in dev if isinstance(d, str) and "==" in d}
    missing = [name for name in TEST_DEPS if name not in by_name]
    if missing:
        sys.exit(f"c_coverage: the dev group pins no version of {', '.join(missing)}")
    return [by_name[name] for name in TEST_DEPS]


def uv() -> str:
    for candidate in (shutil.which("uv"), REPO / ".uv" / "bin" / "uv"):
        if candidate and Path(candidate).exists():
            return str(candidate)
    sys.exit("c_coverage: uv not found (the README's commands put it in .uv/bin)")


def build(uv_bin: str) -> Path:
    """The instrumented build in its own environment; returns its Python."""
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    venv = ROOT / "venv"
    subprocess.run([uv_bin, "venv", "-q", str(venv), "--python", sys.executable], check=True)
    py = venv / "bin" / "python"
    uv_config = config()["tool"]["uv"]
    exclude_newer = uv_config["exclude-newer"]
    constraints = ROOT / "build-constraints.txt"
    constraints.write_text("\n".join(uv_config["build-constraint-dependencies"]) + "\n")
    subprocess.run(
        [
            uv_bin,
            "pip",
            "install",
            "-q",
            "--python",
            str(py),
            "--exclude-newer",
            exclude_newer,
            "--build-constraint",
            str(constraints),
            "-C",
            "cmake.define.NUIF_COVERAGE=ON",
            "-C",
            f"build-dir={ROOT / 'build'}",
            str(CORE),
            *pinned(),
            GCOVR,
        ],
        check=True,
    )
    return py


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", metavar="FILE", help="also write gcovr's annotated pages")
    parser.add_argument("--no-build", action="store_true", help="reuse the last build")
    parser.add_argument("pytest_args", nargs="*", help="pytest arguments (after --)")
    args = parser.parse_args()
    py = ROOT / "venv" / "bin" / "python"
    if not args.no_build or not py.exists():
        py = build(uv())
    for stale in (ROOT / "build").rglob("*.gcda"):
        stale.unlink()
    env = {**os.environ, "NUIF_REQUIRE_EXTENSION": "1"}
    env.pop("VIRTUAL_ENV", None)
    tests = args.pytest_args or ["tests/core"]
    done = subprocess.run(
        [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *tests],
        cwd=REPO,
        env=env,
    )
    if done.returncode != 0:
        print("c_coverage: the tests failed; the figures below count what ran", file=sys.stderr)
    report = [
        str(py),
        "-m",
        "gcovr",
        "--root",
        str(CORE),
        "--filter",
        str(CORE / "csrc") + "/",
        "--exclude",
        str(CORE / "csrc" / "third_party") + "/",
        "--gcov-ignore-parse-errors=negative_hits.warn",
        "--sort",
        "uncovered-percent",
        str(ROOT / "build"),
    ]
    if args.html:
        report += ["--html-details", args.html]
    subprocess.run(report, cwd=CORE, check=True)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
