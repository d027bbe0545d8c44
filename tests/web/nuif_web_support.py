"""Helpers of the browser-surface tests (packages/nuif-web): where things are, the
skip-or-fail rule, and one Node process with Pyodide that answers JSON lines
(``bin/nuif-web-lines.mjs``), and the WebAssembly module every use of nuif-web needs.

Node and the pinned ``pyodide`` npm package (``npm ci --prefix packages/nuif-web``) are needed;
without them these tests skip with that reason, unless ``NUIF_REQUIRE_PYODIDE=1`` (set by
``.ci/run``) makes their absence a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import shutil
import subprocess
import threading
from itertools import count
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "packages" / "nuif-web"
LINES = WEB / "bin" / "nuif-web-lines.mjs"
PYODIDE_PIN = json.loads((WEB / "package.json").read_text())["dependencies"]["pyodide"]
NPM_CI = "npm ci --prefix packages/nuif-web"
WASM_BUILD = REPO / "packages" / "nuif-core" / "wasm" / "build.py"


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


def wasm_build() -> Any:
    """packages/nuif-core/wasm/build.py as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("nuif_wasm_build", WASM_BUILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wasm_module() -> Path:
    """nuif_core.wasm beside src/core.mjs, built unless current (node and zig are needed)."""
    if shutil.which("node") is None:
        require("NODE", "node is not installed (Node 20 or later runs nuif-web)")
    if importlib.util.find_spec("ziglang") is None:
        require("NODE", "ziglang (in the dev group) builds nuif_core.wasm and is not installed")
    return wasm_build().ensure()  # type: ignore[no-any-return]


class NodeLines:
    """One ``nuif-web-lines.mjs`` process: requests out, answers in, every wait bounded.

    A thread reads the answers into a queue (``select`` on a buffered pipe would miss lines
    already read ahead into the buffer)."""

    def __init__(self, wheel: Path | None, script: Path = LINES) -> None:
        wasm_module()
        self.proc = subprocess.Popen(
            ["node", str(script), *([] if wheel is None else [str(wheel)])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._ids = count()
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()
        self.ready = self._read(timeout=120)["ready"]

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # the end

    def _read(self, timeout: float) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nuif-web-lines gave no answer within {timeout} s") from None
        if not line:
            self._lines.put(b"")
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            raise AssertionError(f"nuif-web-lines ended (status {self.proc.wait(10)}): {err}")
        return json.loads(line)

    def send(self, op: str, *args: Any) -> dict[str, Any]:
        """The whole answer line: ``{"id", "ok"}``, ``{"id", "error"}`` or ``{"id", "throw"}``."""
        return self.many([(op, list(args))])[0]

    def many(
        self, requests: list[tuple[str, list[Any]]], timeout: float = 300
    ) -> list[dict[str, Any]]:
        """Send every request, then read every answer (in order)."""
        assert self.proc.stdin is not None
        ids = [next(self._ids) for _ in requests]
        text = "".join(
            json.dumps({"id": i, "op": op, "args": args}) + "\n"
            for i, (op, args) in zip(ids, requests, strict=True)
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
        self._reader.join(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
