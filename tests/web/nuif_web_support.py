"""Helpers of the browser-surface tests (packages/nuif-web): where things are, the
skip-or-fail rule, and one Node process with Pyodide that answers JSON lines
(``bin/nuif-web-lines.mjs``).

Node and the pinned ``pyodide`` npm package (``npm ci --prefix packages/nuif-web``) are needed;
without them these tests skip with that reason, unless ``NUIF_REQUIRE_PYODIDE=1`` (set by
``.ci/run``) makes their absence a failure.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
from itertools import count
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "packages" / "nuif-web"
LINES = WEB / "bin" / "nuif-web-lines.mjs"
PYODIDE_PIN = json.loads((WEB / "package.json").read_text())["dependencies"]["pyodide"]
NPM_CI = "npm ci --prefix packages/nuif-web"


def require(what: str, why: str) -> None:
    """Skip (with the reason), or fail under ``NUIF_REQUIRE_<what>=1``."""
    if os.environ.get(f"NUIF_REQUIRE_{what}") == "1":
        pytest.fail(f"NUIF_REQUIRE_{what}=1 but {why}")
    pytest.skip(why)


def pyodide_dir() -> Path:
    """The installed pinned Pyodide runtime (packages/nuif-web/node_modules/pyodide)."""
    if shutil.which("node") is None:
        require("PYODIDE", "node is not installed (Node 20 or later runs Pyodide)")
    folder = WEB / "node_modules" / "pyodide"
    try:
        installed = json.loads((folder / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        installed = None
    if installed != PYODIDE_PIN:
        require(
            "PYODIDE",
            f"pyodide {PYODIDE_PIN} is not installed in packages/nuif-web (found {installed}); "
            f"run `{NPM_CI}`",
        )
    return folder


class NodeLines:
    """One ``nuif-web-lines.mjs`` process: requests out, answers in, every wait bounded."""

    def __init__(self, wheel: Path) -> None:
        self.proc = subprocess.Popen(
            ["node", str(LINES), str(wheel)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._ids = count()
        self.ready = self._read(timeout=120)["ready"]

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise AssertionError(f"nuif-web-lines gave no answer within {timeout} s")
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            raise AssertionError(f"nuif-web-lines ended (status {self.proc.wait(10)}): {err}")
        return json.loads(line)

    def send(self, op: str, *args: Any) -> dict[str, Any]:
        """The whole answer line: ``{"id", "ok"}``, ``{"id", "error"}`` or ``{"id", "throw"}``."""
        return self.many([(op, list(args))])[0]

    def many(self, requests: list[tuple[str, list[Any]]], timeout: float = 300) -> list[dict[str, Any]]:
        """Send every request, then read every answer (in order)."""
        assert self.proc.stdin is not None
        first = next(self._ids)
        ids = [first] + [next(self._ids) for _ in requests[1:]]
        text = "".join(
            json.dumps({"id": i, "op": op, "args": args}) + "\n" for i, (op, args) in zip(ids, requests)
        )
        self.proc.stdin.write(text.encode("utf-8", "surrogatepass"))
        self.proc.stdin.flush()
        answers = [self._read(timeout) for _ in requests]
        assert [a["id"] for a in answers] == ids
        return answers

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
