"""The CLI never loads the MCP stack, and starts fast (measured and printed, not asserted)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from .conftest import script

PROBE = r"""
import io, sys, tempfile, pathlib
from nuif_cli.__main__ import main
d = pathlib.Path(tempfile.mkdtemp())
doc = d / "d.json"
doc.write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"screen"}}')
patch = d / "p.json"
patch.write_bytes(b'{"nuif_patch":0,"transactions":[{"ops":[{"op":"set","id":"a","attr":"x","value":1}]}]}')
out = io.StringIO()
real = sys.stdout
sys.stdout = io.TextIOWrapper(io.BytesIO())
try:
    for argv in (["--version"], ["validate", str(doc)], ["inspect", str(doc)], ["hash", str(doc)],
                 ["canonicalize", "--check", str(doc)], ["apply-patch", str(doc), str(patch)],
                 ["diff", str(doc), str(doc)], ["pack", str(doc), "-o", str(d / "x.nuif")],
                 ["verify", str(d / "x.nuif")], ["unpack", str(d / "x.nuif"), "-o", str(d / "u")],
                 ["demo"]):
        main(argv)
finally:
    sys.stdout = real
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "pydantic", "pydantic_core", "anyio", "starlette", "httpx", "nuif_mcp"))
print(",".join(bad))
"""


def test_no_command_imports_the_mcp_stack() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, timeout=120, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_hash_start_up_time_is_reported(tmp_path: Path) -> None:
    """Wall time of `nuif hash` on a small file: printed for the record (-s), never asserted."""
    doc = tmp_path / "d.json"
    doc.write_bytes(b'{"nuif":0,"root":{"id":"a","kind":"screen"}}')
    cmd = [*script(), "hash", str(doc)]
    subprocess.run(cmd, capture_output=True, timeout=60, check=True)  # warm the caches
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, timeout=60, check=True)
        times.append(time.perf_counter() - start)
    print(
        f"\nnuif hash start-up: best {min(times) * 1000:.0f} ms, median {sorted(times)[2] * 1000:.0f} ms"
    )
