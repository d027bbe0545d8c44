"""The live-client matrix: real MCP clients from npm, pinned in ``live/package-lock.json``.

The tests install the pinned packages themselves (``npm install`` from the committed lock file
into ``live/.cache/``, git-ignored; npm's own cache goes there too) and drive the real
``nuif-mcp`` process with:

* the TypeScript SDK v2 client ``@modelcontextprotocol/client`` pinned to 2026-07-28 and in
  ``auto`` mode (it spawns the server twice: a sibling process for the ``server/discover`` probe,
  which then gets EOF, and the session process);
* the MCP Inspector CLI with ``--protocol-era modern`` (exit 5 on a tool error result);
* the handshake-only TypeScript SDK 1.x client ``@modelcontextprotocol/sdk``: refused with
  ``-32022`` by default, served with ``--allow-legacy-handshake``.

``npm ci`` is not used: the lock cannot name vite's optional ``napi-windows-process-start-time``
(it is not on the registry), which makes ``npm ci`` refuse a lock that ``npm install`` accepts
unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import nuif_core
import pytest
from nuif_mcp_wire import DOC, server_command

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

LIVE = Path(__file__).resolve().parent / "live"
CACHE = LIVE / ".cache"
PINS = json.loads((LIVE / "package.json").read_text())["dependencies"]
NODE = shutil.which("node")
NPM = shutil.which("npm")

HASH = nuif_core.canonicalize(DOC).hash
PATCH = json.dumps(
    {
        "nuif_patch": 0,
        "base": HASH,
        "transactions": [{"ops": [{"op": "remove", "id": "login.submit"}]}],
    }
)


def _calls() -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = [
        {"name": "validate", "arguments": {"document": DOC}},
        {"name": "inspect", "arguments": {"document": DOC, "max_outline_nodes": 5}},
        {"name": "canonicalize", "arguments": {"document": DOC}},
    ]
    if hasattr(nuif_core, "apply_patch"):
        calls.append(
            {
                "name": "apply-patch",
                "arguments": {"document": DOC, "patch": PATCH, "include_inverse": True},
            }
        )
    else:  # the core has no apply_patch yet: still call the tool, with arguments it refuses itself
        calls.append(
            {"name": "apply-patch", "arguments": {"document": DOC, "patch": PATCH, "dry_run": True}}
        )
    calls.append(
        {"name": "canonicalize", "arguments": {"document": '{"nuif": 0}'}}
    )  # a tool error result
    return calls


def _installed_version(package: str) -> str | None:
    manifest = CACHE / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The install directory with the pinned clients, installed on first use."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed for the live-client matrix")
    CACHE.mkdir(exist_ok=True)
    for name in (
        "package.json",
        "package-lock.json",
        ".npmrc",
        "ts_client.mjs",
        "legacy_client.mjs",
    ):
        shutil.copyfile(LIVE / name, CACHE / name)
    if any(_installed_version(pkg) != version for pkg, version in PINS.items()):
        subprocess.run(
            [NPM, "install", "--no-audit", "--no-fund", "--cache", str(CACHE / "npm-cache")],
            cwd=CACHE,
            check=True,
            timeout=600,
            stdout=subprocess.DEVNULL,
        )
    for pkg, version in PINS.items():
        assert _installed_version(pkg) == version
    return CACHE


@pytest.fixture
def calls_file(tmp_path: Path) -> Path:
    path = tmp_path / "calls.json"
    path.write_text(json.dumps(_calls()))
    return path


def _run_node(live: Path, script: str, *args: str, timeout: float = 120) -> dict[str, Any]:
    done = subprocess.run(
        [NODE, script, *args], cwd=live, check=False, capture_output=True, timeout=timeout
    )
    lines = done.stdout.decode().strip().splitlines()
    assert lines, done.stderr.decode()[-2000:]
    return json.loads(lines[-1])


def _spawn_logger(tmp_path: Path, *server_args: str) -> tuple[Path, Path]:
    """A launcher that records each spawn of the server, then execs it."""
    log = tmp_path / "spawns.log"
    launcher = tmp_path / "launch.sh"
    cmd = " ".join(f"'{part}'" for part in server_command(*server_args))
    launcher.write_text(f'#!/bin/sh\necho spawn >> "{log}"\nexec {cmd} "$@"\n')
    launcher.chmod(0o755)
    return launcher, log


def _check_tool_results(out: dict[str, Any]) -> None:
    assert "error" not in out, out
    assert [t["name"] for t in out["tools"]] == [
        "validate",
        "inspect",
        "canonicalize",
        "apply-patch",
    ]
    for tool in out["tools"]:
        assert (
            tool["annotations"]["readOnlyHint"] is True
            and tool["annotations"]["openWorldHint"] is False
        )
    results = out["calls"]
    assert [c["isError"] for c in results[:3]] == [False, False, False]
    assert results[0]["structuredContent"]["hash"] == HASH
    assert results[2]["structuredContent"]["canonical"] == nuif_core.canonicalize(DOC).text
    if hasattr(nuif_core, "apply_patch"):
        assert results[3]["isError"] is False and results[3]["structuredContent"]["base"] == HASH
    else:
        assert results[3]["isError"] is True and results[3]["text"].startswith("NUIF_ARGUMENTS: ")
    assert results[4]["isError"] is True and results[4]["text"].startswith("NUIF_SCHEMA: ")


@pytest.mark.parametrize("mode", ["pin", "auto"])
def test_typescript_client_v2_lists_and_calls_every_tool(live, calls_file, tmp_path, mode):
    launcher, log = _spawn_logger(tmp_path)
    out = _run_node(live, "ts_client.mjs", mode, str(calls_file), str(launcher))
    _check_tool_results(out)
    assert out["protocolVersion"] == "2026-07-28"
    # one short-lived process answered server/discover and then got EOF; one served the session
    assert log.read_text().count("spawn") == 2


def _inspector(live: Path, home: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "HOME": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"),
    }
    cmd = [
        NODE,
        str(live / "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"),
    ]
    cmd += ["--cli", "--protocol-era", "modern", "--format", "json", *server_command(), *args]
    return subprocess.run(cmd, cwd=live, env=env, check=False, capture_output=True, timeout=120)


def test_inspector_cli_modern_lists_the_tools(live, tmp_path):
    done = _inspector(live, tmp_path, "--method", "tools/list")
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    tools = json.loads(done.stdout)["result"]["tools"]
    assert [t["name"] for t in tools] == ["validate", "inspect", "canonicalize", "apply-patch"]


@pytest.mark.parametrize(
    "index", range(5), ids=["validate", "inspect", "canonicalize", "apply-patch", "tool-error"]
)
def test_inspector_cli_modern_calls_each_tool(live, tmp_path, index):
    call = _calls()[index]
    done = _inspector(
        live,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        call["name"],
        "--tool-args-json",
        json.dumps(call["arguments"]),
    )
    expect_error = index == 4 or (index == 3 and not hasattr(nuif_core, "apply_patch"))
    assert done.returncode == (5 if expect_error else 0), done.stderr.decode()[-2000:]
    if not expect_error:
        result = json.loads(done.stdout)["result"]
        assert result["isError"] is False and result["structuredContent"]


def test_handshake_only_client_is_refused_with_unsupported_protocol_version(live, calls_file):
    out = _run_node(live, "legacy_client.mjs", str(calls_file), *server_command())
    assert out["error"]["code"] == -32022


def test_handshake_only_client_works_with_allow_legacy_handshake(live, calls_file):
    out = _run_node(
        live, "legacy_client.mjs", str(calls_file), *server_command("--allow-legacy-handshake")
    )
    _check_tool_results(out)


def test_lock_file_pins_exact_versions_and_records_no_download_addresses():
    lock = json.loads((LIVE / "package-lock.json").read_text())
    assert "resolved" not in (LIVE / "package-lock.json").read_text()
    for pkg, version in PINS.items():
        assert lock["packages"][f"node_modules/{pkg}"]["version"] == version
        assert lock["packages"][""]["dependencies"][pkg] == version
