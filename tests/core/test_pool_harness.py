"""The codec's thread pool and its users under ThreadSanitizer (tests/core/pool_harness.c).

The harness is built with gcc's ``-fsanitize=thread`` from ``csrc/nuif_indexpipe.c`` (the pool,
the split walk's helper, the index pipe) and ``csrc/nuif_hashpipe.c`` (the hashing thread and
the follower, with libcrypto's functions bound at link time or found at run time,
``csrc/nuif_crypto.c``), and drives them as the codec does and harder (several callers at
once, the spin and the pool switched while jobs run); see its header comment.  It must finish
with no report and no failure, and each planted bug (``-DNUIF_PLANT_JOIN_EARLY``: joining a
helper returns before it is done; ``-DNUIF_PLANT_FOLLOW_EARLY``: stopping a follower returns
before it is done) must make it fail.

Needs gcc with ThreadSanitizer's runtime (Debian's gcc brings it) and OpenSSL's headers
(``libssl-dev``): without them the tests skip, or fail where ``NUIF_REQUIRE_OPENSSL=1`` (CI) says
the machine has them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CSRC = REPO / "packages" / "nuif-core" / "csrc"
HARNESS = Path(__file__).with_name("pool_harness.c")
FLAGS = ["-fsanitize=thread", "-g", "-O1", "-std=c11", "-Wall", "-Wextra", "-Werror",
         "-Wno-unused-function", "-DNUIF_HAVE_PTHREADS=1", "-DNUIF_HAVE_OPENSSL=1", f"-I{CSRC}",
         # nuif_check.h includes the string set's header, which includes Python.h
         f"-I{sysconfig.get_paths()['include']}"]
SUMMARY = re.compile(r"^pool harness: (\d+) jobs, (\d+) failures", re.MULTILINE)
JOBS = 2000 + 300 + 100 + 3000 + 8 * 4 + 8 * 4 + 6 * 8 + 20  # helpers, pipes, followers, checks,
# indexes


def build(out: Path, *extra: str) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        if os.environ.get("NUIF_REQUIRE_OPENSSL") == "1":
            pytest.fail("gcc is missing")
        pytest.skip("gcc is missing")
    exe = out / ("pool_harness" + "".join(x.replace("-D", "_") for x in extra))
    cmd = [gcc, *FLAGS, *extra, str(HARNESS), str(CSRC / "nuif_indexpipe.c"),
           str(CSRC / "nuif_hashpipe.c"), str(CSRC / "nuif_crypto.c"), "-lcrypto", "-ldl",
           "-pthread", "-o", str(exe)]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        if os.environ.get("NUIF_REQUIRE_OPENSSL") == "1":
            pytest.fail(f"the harness did not build:\n{done.stderr[-3000:]}")
        pytest.skip(f"no ThreadSanitizer or OpenSSL headers here: {done.stderr[-300:]}")
    return exe


def run(exe: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=0 exitcode=66")
    return subprocess.run([str(exe)], check=False, capture_output=True, text=True, timeout=600,
                          env=env)


# libcrypto's functions bound at link time, or found at run time as a release wheel finds them
LOADED = ("-UNUIF_HAVE_OPENSSL", "-DNUIF_HAVE_OPENSSL=0", "-DNUIF_HAVE_DLPHDR=1",
          "-DNUIF_HARNESS_LOADED")


@pytest.mark.parametrize("binding", ["linked", "loaded"])
def test_the_pool_and_its_users_have_no_race_and_no_failure(tmp_path: Path, binding: str) -> None:
    done = run(build(tmp_path, *(LOADED if binding == "loaded" else ())))
    assert "ThreadSanitizer" not in done.stderr, done.stderr[-4000:]
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    m = SUMMARY.search(done.stdout)
    assert m is not None, done.stdout
    assert (int(m.group(1)), int(m.group(2))) == (JOBS, 0)


@pytest.mark.parametrize("plant", ["-DNUIF_PLANT_JOIN_EARLY", "-DNUIF_PLANT_FOLLOW_EARLY"])
def test_a_planted_early_join_is_caught(tmp_path: Path, plant: str) -> None:
    done = run(build(tmp_path, plant))
    assert done.returncode != 0
    m = SUMMARY.search(done.stdout)
    failed = m is not None and int(m.group(2)) > 0
    assert "WARNING: ThreadSanitizer: data race" in done.stderr or failed, done.stderr[-2000:]
