"""Importing nuif_core never fails because of what the environment holds."""

from __future__ import annotations

import os
import subprocess
import sys


def test_import_with_a_thread_spin_setting_of_thousands_of_digits_succeeds():
    env = dict(os.environ, NUIF_THREAD_SPIN_US="9" * 5000)  # past int()'s 4,300-digit limit
    run = subprocess.run(
        [sys.executable, "-c", "import nuif_core; print(nuif_core.canonical_json(b'[1]'))"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "b'[1]'"
    assert "Traceback" not in run.stderr
