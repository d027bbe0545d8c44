"""The live-client matrix: real MCP clients and agent frameworks, pinned, against ``nuif-mcp``.

Each client runs in the mode it uses by default and in its 2026-07-28 mode, without and (for the
handshake) with ``--allow-legacy-handshake``, and must do what the README's host table says:

=====================================  =========  ==============================================
client                                 pinned     runs
=====================================  =========  ==============================================
Python SDK ``mcp.Client``              2.3.x      ``auto`` (default), ``2026-07-28``, ``legacy``
fastmcp ``Client``                     4.1.7      ``auto`` (default), ``2026-07-28``, ``legacy``
openai-agents ``MCPServerStdio``       0.24.0     default (mcp 2.3.0: ``auto``)
langchain-mcp-adapters                 0.3.2      default (mcp 1.30.0: the handshake)
TS SDK v2 ``@modelcontextprotocol/     2.4.0      default (the handshake), ``auto``, pinned
client``
TS SDK 1.x ``@modelcontextprotocol/    1.32.2     default (the handshake)
sdk``
MCP Inspector CLI                      2.12.0     default (``legacy``), ``--protocol-era modern``
AI SDK ``@ai-sdk/mcp``                 2.0.99     default (discovery, a 1 s probe on stdio:
                                                  with a warm server and with a late one),
                                                  ``protocolVersionDiscovery: false`` (handshake)
Claude Code CLI                        2.1.328    ``claude mcp add`` + ``claude mcp list`` (its
                                                  health check; no login needed), flag or not
Codex CLI                              0.169.0    ``codex mcp add`` + a ``codex exec`` session
                                                  that cannot reach its model, flag or not
=====================================  =========  ==============================================

"Works" means: the four tools are listed (with annotations and an output schema wherever the
client exposes them), every tool is called — validate, inspect, canonicalize and apply-patch with
the direct API's hashes and text, ``validate`` on an invalid document read back as a normal result
(``valid: false``) and ``canonicalize`` on an invalid document read back as an error result with
the server's exact text. "Refused" means: the client reports ``-32022`` with the server's message
naming ``--allow-legacy-handshake``, and the server's stderr line naming the client reaches the
client's stderr. The host CLIs call a tool only when their model asks for one, so their rows check
what they sent, the tool list they were given, and the server's stderr.

Installation (pinned, from committed locks without download addresses):

* npm: ``live/package.json`` (exact versions) and ``live/package-lock.json`` (written with
  ``omit-lockfile-registry-resolved``, see ``live/.npmrc``: integrity hashes, no ``resolved``
  URLs), installed with ``npm install`` into ``live/.cache/`` (git-ignored). ``npm ci`` is not
  used: the lock cannot name vite's optional ``napi-windows-process-start-time`` (not on the
  registry), which makes ``npm ci`` refuse a lock that ``npm install`` accepts unchanged.
* Python: one virtual environment per framework in ``live/.cache/venv-<name>``, made by ``uv venv``
  and filled by ``uv pip sync`` from ``live/python/<name>.txt`` (exact pins with hashes, no index
  URLs; regenerate with the command in each file's header, from ``<name>.in``). The frameworks
  cannot share the test environment: langchain-mcp-adapters pins the Python SDK below 2.0.

Every wait is bounded (subprocess timeouts; each driver also gives up after 60 s). The host CLIs
run in a network namespace of their own (``unshare -n``, as root here and in CI): they reach
nothing but the server they spawn, and their tests skip where no such namespace can be made.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nuif_mcp_wire import DOC, DUPLICATE_ID_DOC, line, request, server_command

import nuif_core
from nuif_mcp._tools import call_tool

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

LIVE = Path(__file__).resolve().parent / "live"
CACHE = LIVE / ".cache"
PY_LOCKS = LIVE / "python"
PINS = json.loads((LIVE / "package.json").read_text())["dependencies"]
NODE = shutil.which("node")
NPM = shutil.which("npm")
UV = os.environ.get("UV") or shutil.which("uv")
FLAG = "--allow-legacy-handshake"

HASH = nuif_core.canonicalize(DOC).hash
PATCH = json.dumps(
    {
        "nuif_patch": 0,
        "base": HASH,
        "transactions": [{"ops": [{"op": "remove", "id": "login.submit"}]}],
    }
)
PATCHED_HASH = nuif_core.apply_patch(DOC, PATCH).hash
INVALID_DOC = '{"nuif": 0}'
#: The text the server itself gives for the last call: what every client must read back.
ERROR_TEXT = call_tool("canonicalize", {"document": INVALID_DOC}).content[0].text
CALLS: list[dict[str, Any]] = [
    {"name": "validate", "arguments": {"document": DOC}},
    {"name": "inspect", "arguments": {"document": DOC, "max_outline_nodes": 5}},
    {"name": "canonicalize", "arguments": {"document": DOC}},
    {
        "name": "apply-patch",
        "arguments": {"document": DOC, "patch": PATCH, "include_inverse": True},
    },
    {"name": "validate", "arguments": {"document": DUPLICATE_ID_DOC}},
    {"name": "canonicalize", "arguments": {"document": INVALID_DOC}},
]
TOOL_NAMES = ["validate", "inspect", "canonicalize", "apply-patch"]
REFUSAL_START = "Unsupported protocol version: the client asked for MCP "


# --- installation ------------------------------------------------------------------------------


def _installed_version(package: str) -> str | None:
    manifest = CACHE / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="session")
def live() -> Path:
    """The npm install directory with the pinned clients, installed on first use."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are needed for the live-client matrix")
    CACHE.mkdir(exist_ok=True)
    for path in LIVE.iterdir():
        if path.suffix in (".json", ".mjs") or path.name == ".npmrc":
            shutil.copyfile(path, CACHE / path.name)
    if any(_installed_version(pkg) != version for pkg, version in PINS.items()):
        subprocess.run(  # npm's own cache (~/.npm): a fresh clone does not download again
            [NPM, "install", "--no-audit", "--no-fund"],
            cwd=CACHE,
            check=True,
            timeout=600,
            stdout=subprocess.DEVNULL,
        )
    for pkg, version in PINS.items():
        assert _installed_version(pkg) == version
    return CACHE


def _venv(name: str) -> Path:
    """The Python interpreter of ``.cache/venv-<name>``, synced with ``python/<name>.txt``."""
    if UV is None:
        pytest.skip("uv is needed to install the pinned Python clients")
    lock = PY_LOCKS / f"{name}.txt"
    venv = CACHE / f"venv-{name}"
    python = venv / "bin" / "python"
    stamp = venv / "nuif-lock.sha256"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not (python.exists() and stamp.exists() and stamp.read_text() == digest):
        CACHE.mkdir(exist_ok=True)
        subprocess.run(
            [UV, "venv", "--quiet", "--clear", "--python", sys.executable, str(venv)],
            check=True,
            timeout=300,
        )
        subprocess.run(
            [UV, "pip", "sync", "--quiet", "--python", str(python), str(lock)],
            check=True,
            timeout=600,
        )
        stamp.write_text(digest)
    return python


@pytest.fixture(scope="session")
def venvs() -> dict[str, Path]:
    return {name: _venv(name) for name in ("fastmcp", "openai-agents", "langchain-mcp-adapters")}


@pytest.fixture
def calls_file(tmp_path: Path) -> Path:
    path = tmp_path / "calls.json"
    path.write_text(json.dumps(CALLS))
    return path


# --- running a driver ----------------------------------------------------------------------------


def _run(cmd: list[str], *, cwd: Path, timeout: float = 120) -> tuple[dict[str, Any], str]:
    """Run a driver: its one JSON report (last stdout line) and its stderr."""
    done = subprocess.run(cmd, cwd=cwd, check=False, capture_output=True, timeout=timeout)
    stderr = done.stderr.decode("utf-8", "replace")
    lines = done.stdout.decode().strip().splitlines()
    assert lines, f"no report; stderr:\n{stderr[-3000:]}"
    return json.loads(lines[-1]), stderr


def _node(live: Path, script: str, *args: str) -> tuple[dict[str, Any], str]:
    return _run([str(NODE), script, *args], cwd=live)


def _python(python: Path, script: str, *args: str) -> tuple[dict[str, Any], str]:
    return _run([str(python), str(LIVE / script), *args], cwd=LIVE)


def _spawn_logger(tmp_path: Path, *server_args: str) -> tuple[Path, Path]:
    """A launcher that records each spawn of the server, then execs it."""
    log = tmp_path / "spawns.log"
    launcher = tmp_path / "launch.sh"
    cmd = " ".join(f"'{part}'" for part in server_command(*server_args))
    launcher.write_text(f'#!/bin/sh\necho spawn >> "{log}"\nexec {cmd} "$@"\n')
    launcher.chmod(0o755)
    return launcher, log


@contextlib.contextmanager
def _warm_server(tmp_path: Path, *server_args: str) -> Iterator[list[str]]:
    """A command that reaches a ``nuif-mcp`` already started and answering (``live/relay.py``).

    The server is started here and has answered one ``server/discover`` before the command is
    handed out, so a client's first request is answered in milliseconds, whatever the machine's
    load: what a client with a short probe timeout meets when the server starts fast enough.
    """
    path = tmp_path / "warm.sock"
    proc = subprocess.Popen(
        server_command(*server_args), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    assert proc.stdin is not None and proc.stdout is not None
    server_in, server_out = proc.stdin, proc.stdout
    try:
        listener.bind(str(path))
        listener.listen(1)
        listener.settimeout(120)
        server_in.write(line(request("warm-up", "server/discover")))
        server_in.flush()
        ready, _, _ = select.select([server_out], [], [], 60)
        assert ready, "the server did not answer its warm-up request within 60 s"
        assert b'"warm-up"' in server_out.readline()

        def pump() -> None:
            conn, _ = listener.accept()
            conn.settimeout(120)

            def to_server() -> None:
                while chunk := conn.recv(65536):
                    server_in.write(chunk)
                    server_in.flush()
                server_in.close()

            inbound = threading.Thread(target=to_server, daemon=True)
            inbound.start()
            while chunk := os.read(server_out.fileno(), 65536):
                conn.sendall(chunk)
            conn.shutdown(socket.SHUT_WR)
            inbound.join(timeout=120)
            conn.close()

        pumping = threading.Thread(target=pump, daemon=True)
        pumping.start()
        yield [sys.executable, str(LIVE / "relay.py"), str(path)]
        pumping.join(timeout=120)
        assert proc.wait(timeout=60) == 0
    finally:
        listener.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for stream in (server_in, server_out):
            stream.close()


def _slow_server(tmp_path: Path, *server_args: str) -> Path:
    """A launcher that starts the server 1.5 s late: past the AI SDK's 1 s stdio probe timeout."""
    launcher = tmp_path / "slow.sh"
    cmd = " ".join(f"'{part}'" for part in server_command(*server_args))
    launcher.write_text(f"#!/bin/sh\nsleep 1.5\nexec {cmd}\n")
    launcher.chmod(0o755)
    return launcher


# --- what "works" and "refused" mean ------------------------------------------------------------


def check_works(out: dict[str, Any]) -> None:
    """Tools listed (annotations, output schemas), every call made and read back as sent."""
    assert "error" not in out, out.get("error")
    assert [t["name"] for t in out["tools"]] == TOOL_NAMES
    for tool in out["tools"]:
        annotations = tool["annotations"]
        assert annotations["readOnlyHint"] is True and annotations["destructiveHint"] is False
        assert annotations["idempotentHint"] is True and annotations["openWorldHint"] is False
        assert tool["hasOutputSchema"] is True
    calls = out["calls"]
    assert [c["name"] for c in calls] == [c["name"] for c in CALLS]
    assert [c["isError"] for c in calls] == [False] * 5 + [True]
    validated, inspected, canonical, patched, invalid, error = calls
    assert validated["structuredContent"] == {
        "valid": True,
        "hash": HASH,
        "diagnostics": [],
        "truncated": False,
    }
    assert inspected["structuredContent"]["hash"] == HASH
    assert inspected["structuredContent"]["node_count"] == 2
    assert canonical["structuredContent"]["canonical"] == nuif_core.canonicalize(DOC).text
    assert canonical["text"] == json.dumps(canonical["structuredContent"], separators=(",", ":"))
    assert patched["structuredContent"]["base"] == HASH
    assert patched["structuredContent"]["hash"] == PATCHED_HASH
    assert patched["structuredContent"]["inverse"]
    # an invalid document is a normal result for validate ...
    assert invalid["structuredContent"]["valid"] is False
    assert invalid["structuredContent"]["diagnostics"][0]["code"] == "NUIF_DUPLICATE_ID"
    # ... and an error result, with the server's exact text, for the other tools
    assert error["text"] == ERROR_TEXT and error["structuredContent"] is None


def check_refused(out: dict[str, Any], stderr: str, client_name: str) -> None:
    """-32022 with the explanatory message; the server's stderr line reached the client."""
    assert out["calls"] == [] and "tools" not in out
    error = out["error"]
    assert error["code"] in (-32022, None), error  # a client may drop the code, never the text
    assert REFUSAL_START in error["message"] and FLAG in error["message"], error
    refused = [ln for ln in stderr.splitlines() if "nuif-mcp WARNING nuif_mcp: refused" in ln]
    assert len(refused) == 1, stderr[-3000:]
    assert f'refused client "{client_name}"' in refused[0] and FLAG in refused[0]


# --- Python clients ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "2026-07-28"])
def test_python_sdk_client_works_by_default_and_pinned(calls_file, mode):
    out, _ = _python(
        Path(sys.executable), "py_mcp_client.py", mode, str(calls_file), *server_command()
    )
    check_works(out)
    assert out["version"].startswith("2.3.") and out["protocolVersion"] == "2026-07-28"


def test_python_sdk_client_legacy_mode_is_refused_then_served_with_the_flag(calls_file):
    args = ("py_mcp_client.py", "legacy", str(calls_file))
    out, stderr = _python(Path(sys.executable), *args, *server_command())
    check_refused(out, stderr, "mcp")
    out, _ = _python(Path(sys.executable), *args, *server_command(FLAG))
    check_works(out)
    assert out["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize("mode", ["auto", "2026-07-28"])
def test_fastmcp_works_by_default_and_pinned(venvs, calls_file, mode):
    out, _ = _python(venvs["fastmcp"], "py_fastmcp.py", mode, str(calls_file), *server_command())
    check_works(out)
    assert out["version"] == "4.1.7" and out["protocolVersion"] == "2026-07-28"
    assert out["raised"] == ERROR_TEXT  # fastmcp's default raise_on_error=True: ToolError


def test_fastmcp_legacy_mode_is_refused_then_served_with_the_flag(venvs, calls_file):
    args = ("py_fastmcp.py", "legacy", str(calls_file))
    out, stderr = _python(venvs["fastmcp"], *args, *server_command())
    check_refused(out, stderr, "mcp")
    out, _ = _python(venvs["fastmcp"], *args, *server_command(FLAG))
    check_works(out)


def test_openai_agents_works_by_default(venvs, calls_file):
    out, _ = _python(
        venvs["openai-agents"], "py_openai_agents.py", str(calls_file), *server_command()
    )
    check_works(out)
    assert out["version"] == "0.24.0" and out["mcp"] == "2.3.0"
    assert out["protocolVersion"] == "2026-07-28"
    # what an agent run hands the model for an error result: the server's text, as it is
    assert out["modelSees"] == {"type": "text", "text": ERROR_TEXT}


def test_langchain_adapters_need_the_flag(venvs, calls_file):
    args = ("py_langchain.py", str(calls_file))
    out, stderr = _python(venvs["langchain-mcp-adapters"], *args, *server_command())
    check_refused(out, stderr, "mcp")
    out, _ = _python(venvs["langchain-mcp-adapters"], *args, *server_command(FLAG))
    check_works(out)
    assert out["version"] == "0.3.2"
    # the LangChain tools carry the annotations as metadata, for the agent's tool policy
    assert out["metadata"]["apply-patch"]["readOnlyHint"] is True


# --- TypeScript / JavaScript clients ---------------------------------------------------------


@pytest.mark.parametrize("mode", ["pin", "auto"])
def test_typescript_client_v2_works_pinned_and_in_auto_mode(live, calls_file, tmp_path, mode):
    launcher, log = _spawn_logger(tmp_path)
    out, _ = _node(live, "ts_client.mjs", mode, str(calls_file), str(launcher))
    check_works(out)
    assert out["protocolVersion"] == "2026-07-28"
    # one short-lived process answered server/discover and then got EOF; one served the session
    assert log.read_text().count("spawn") == 2


def test_typescript_client_v2_default_mode_is_refused_then_served_with_the_flag(live, calls_file):
    out, stderr = _node(live, "ts_client.mjs", "default", str(calls_file), *server_command())
    check_refused(out, stderr, "nuif-live-ts-client")
    out, _ = _node(live, "ts_client.mjs", "default", str(calls_file), *server_command(FLAG))
    check_works(out)


def test_typescript_sdk_1_is_refused_then_served_with_the_flag(live, calls_file):
    out, stderr = _node(live, "legacy_client.mjs", str(calls_file), *server_command())
    check_refused(out, stderr, "nuif-live-legacy-client")
    out, _ = _node(live, "legacy_client.mjs", str(calls_file), *server_command(FLAG))
    check_works(out)


def test_ai_sdk_mcp_client_works_by_default_when_the_server_answers_its_probe_in_time(
    live, calls_file, tmp_path
):
    """@ai-sdk/mcp probes with server/discover and gives it 1 s on stdio."""
    with _warm_server(tmp_path) as command:
        out, _ = _node(live, "ai_sdk_client.mjs", "default", str(calls_file), *command)
    check_works(out)
    assert out["protocolVersion"] == "2026-07-28"


@pytest.mark.parametrize("flag", [(), (FLAG,)], ids=["no-flag", "flag"])
def test_ai_sdk_mcp_client_fails_by_default_when_the_server_starts_late(
    live, calls_file, tmp_path, flag
):
    """Past the 1 s probe timeout the AI SDK sends initialize on the same pipe, after its probe:
    the server reads the probe first, so the connection is 2026-07-28 and initialize is refused,
    flag or not. This is the row's documented failure; the handshake mode below avoids it."""
    launcher = _slow_server(tmp_path, *flag)
    out, _ = _node(live, "ai_sdk_client.mjs", "default", str(calls_file), str(launcher))
    assert out["calls"] == [] and out["error"]["code"] == -32022
    assert out["error"]["message"].endswith(
        "this connection already uses 2026-07-28, so it goes on in 2026-07-28 "
        "(--allow-legacy-handshake admits initialize only as the first request of a connection)"
    )


def test_ai_sdk_mcp_client_handshake_mode_is_refused_then_served_with_the_flag(
    live, calls_file, tmp_path
):
    out, stderr = _node(live, "ai_sdk_client.mjs", "handshake", str(calls_file), *server_command())
    check_refused(out, stderr, "nuif-live-ai-sdk")
    # with the flag it works however late the server starts: nothing races a probe
    launcher = _slow_server(tmp_path, FLAG)
    out, _ = _node(live, "ai_sdk_client.mjs", "handshake", str(calls_file), str(launcher))
    check_works(out)
    assert out["protocolVersion"] == "2025-11-25"


def _inspector(live: Path, home: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "HOME": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"),
    }
    launcher = live / "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
    cmd = [str(NODE), str(launcher), "--cli", "--format", "json", *args]
    return subprocess.run(cmd, cwd=live, env=env, check=False, capture_output=True, timeout=120)


def _inspector_tools(done: subprocess.CompletedProcess[bytes]) -> list[dict[str, Any]]:
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    tools = json.loads(done.stdout)["result"]["tools"]
    assert [t["name"] for t in tools] == TOOL_NAMES
    for tool in tools:
        assert tool["annotations"]["readOnlyHint"] is True and tool["outputSchema"]
    return tools


def test_inspector_cli_modern_lists_the_tools(live, tmp_path):
    era = ("--protocol-era", "modern")
    _inspector_tools(_inspector(live, tmp_path, *era, *server_command(), "--method", "tools/list"))


@pytest.mark.parametrize(
    "index", range(len(CALLS)), ids=[f"{i}-{c['name']}" for i, c in enumerate(CALLS)]
)
def test_inspector_cli_modern_calls_each_tool(live, tmp_path, index):
    call = CALLS[index]
    done = _inspector(
        live,
        tmp_path,
        "--protocol-era",
        "modern",
        *server_command(),
        "--method",
        "tools/call",
        "--tool-name",
        call["name"],
        "--tool-args-json",
        json.dumps(call["arguments"]),
    )
    expect_error = index == len(CALLS) - 1
    assert done.returncode == (5 if expect_error else 0), done.stderr.decode()[-2000:]
    result = json.loads(done.stdout)["result"]
    assert result["isError"] is expect_error
    if expect_error:
        assert result["content"][0]["text"] == ERROR_TEXT
    else:
        assert result["structuredContent"]


def test_inspector_cli_default_era_is_refused_then_served_with_the_flag(live, tmp_path):
    done = _inspector(live, tmp_path, *server_command(), "--method", "tools/list")
    stderr = done.stderr.decode()
    assert done.returncode == 1 and done.stdout == b""
    assert REFUSAL_START in json.loads(stderr.strip().splitlines()[-1])["error"]["message"]
    assert 'nuif-mcp WARNING nuif_mcp: refused client "inspector-cli" 2.12.0' in stderr
    _inspector_tools(_inspector(live, tmp_path, *server_command(FLAG), "--method", "tools/list"))
    call = CALLS[-1]
    done = _inspector(
        live,
        tmp_path,
        *server_command(FLAG),
        "--method",
        "tools/call",
        "--tool-name",
        call["name"],
        "--tool-args-json",
        json.dumps(call["arguments"]),
    )
    assert (
        done.returncode == 5
        and json.loads(done.stdout)["result"]["content"][0]["text"] == ERROR_TEXT
    )


# --- Claude Code ----------------------------------------------------------------------------------


def _isolated(cmd: list[str]) -> list[str]:
    """``cmd`` in a network namespace of its own (``unshare -n``): it can reach no address at all.

    The host CLIs try to reach their model providers (and may try other services); here they
    cannot, and the test does not run where no such namespace can be made.
    """
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare is needed to run a host CLI without network access")
    probe = subprocess.run([unshare, "-n", "true"], check=False, capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"no network namespace here: {probe.stderr.decode().strip()}")
    return [unshare, "-n", *cmd]


def _wire_launcher(tmp_path: Path, *server_args: str) -> tuple[Path, Path]:
    """A launcher recording, per spawn, what the client sent, what the server answered, stderr
    (``live/record.py``: each chunk is on disk before the other side can read it)."""
    wire = tmp_path / "wire"
    wire.mkdir()
    record = [sys.executable, str(LIVE / "record.py")]
    cmd = " ".join(
        f"'{part}'" for part in [*record, f"{wire}/SPAWN", *server_command(*server_args)]
    )
    launcher = tmp_path / "launch.sh"
    launcher.write_text("#!/bin/sh\nexec " + cmd.replace("SPAWN", "'$$'") + "\n")
    launcher.chmod(0o755)
    return launcher, wire


HOST_ENV = {  # a throwaway HOME and nothing of the caller's credentials
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}


@pytest.mark.parametrize("flag", [(), (FLAG,)], ids=["no-flag", "flag"])
def test_claude_code_health_check_connects_in_2026_07_28(live, tmp_path, flag):
    claude = live / "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    launcher, wire = _wire_launcher(tmp_path, *flag)
    env = {**HOST_ENV, "HOME": str(home)}

    def claude_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _isolated([str(claude), *args]),
            cwd=project,
            env=env,
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )

    version = claude_run("--version")
    assert version.stdout.strip() == f"{PINS['@anthropic-ai/claude-code']} (Claude Code)"
    added = claude_run("mcp", "add", "nuif", "--", str(launcher))
    assert added.returncode == 0, added.stderr
    listed = claude_run("mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^nuif: .* - ✔ Connected$", listed.stdout, flags=re.M), listed.stdout
    sessions = [p.read_text().splitlines() for p in sorted(wire.glob("*.in"))]
    assert sessions, "the health check started no server"
    for lines in sessions:
        sent = [json.loads(ln) for ln in lines]
        # it probes with server/discover at 2026-07-28 first ...
        first = sent[0]
        assert first["method"] == "server/discover"
        assert first["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        info = first["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]
        assert (
            info["name"] == "claude-code" and info["version"] == PINS["@anthropic-ai/claude-code"]
        )
        # ... and lists the tools in that era. When the probe is slow to be answered (the server
        # starts in about a second) it also sends initialize on the same connection, reads the
        # -32022 and goes on in 2026-07-28: every other request carries the envelope.
        assert "tools/list" in [m.get("method") for m in sent]
        for message in sent:
            if "id" in message and message["method"] != "initialize":
                meta = message["params"]["_meta"]
                assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    # ... and the tools it was given, with their annotations and output schemas
    for out in wire.glob("*.out"):
        answers = [json.loads(ln) for ln in out.read_text().splitlines()]
        [tools] = [a["result"]["tools"] for a in answers if "tools" in a.get("result", {})]
        assert [t["name"] for t in tools] == TOOL_NAMES
        assert all(t["annotations"]["readOnlyHint"] is True and t["outputSchema"] for t in tools)
    # a late initialize is logged at info: a working Claude Code leaves no warning in its log
    assert all(p.read_text() == "" for p in wire.glob("*.err"))


# --- the locks ----------------------------------------------------------------------------------


def test_npm_lock_pins_exact_versions_and_records_no_download_addresses():
    text = (LIVE / "package-lock.json").read_text()
    lock = json.loads(text)
    assert '"resolved"' not in text  # funding "url"s are not download addresses
    for pkg, version in PINS.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{pkg} is not pinned exactly"
        assert lock["packages"][f"node_modules/{pkg}"]["version"] == version
        assert lock["packages"][""]["dependencies"][pkg] == version
    for name, entry in lock["packages"].items():
        assert not name or "integrity" in entry, f"{name} has no integrity hash"


@pytest.mark.parametrize("name", ["fastmcp", "openai-agents", "langchain-mcp-adapters"])
def test_python_locks_pin_every_package_with_hashes_and_no_addresses(name):
    top = (PY_LOCKS / f"{name}.in").read_text().split()
    text = (PY_LOCKS / f"{name}.txt").read_text()
    assert "://" not in text and "--index-url" not in text
    requirements = [ln for ln in text.splitlines() if ln and not ln.startswith((" ", "#"))]
    assert requirements
    for requirement in requirements:
        assert re.match(r"[A-Za-z0-9._-]+==[^ ]+( ;.*)? \\$", requirement), requirement
    pinned = {r.split("==")[0]: r.split("==")[1].split()[0] for r in requirements}
    for spec in top:
        package, version = spec.split("==")
        assert pinned[package] == version
    assert text.count("--hash=sha256:") >= len(requirements)


# --- Codex CLI -------------------------------------------------------------------------------------


def _codex_session(live: Path, tmp_path: Path, *server_args: str) -> Path:
    """Start a ``codex exec`` session with nuif-mcp configured; end it once the server is done.

    Codex has no connect-only check (``codex mcp list`` starts no server): it starts its MCP
    servers when a session starts. The session runs without network, so its model is never
    reached; it is ended (its process group) once the server's answer to ``tools/list``, or its
    refusal, has been delivered, and at the latest after 60 s.
    """
    codex = live / "node_modules/@openai/codex/bin/codex.js"
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    launcher, wire = _wire_launcher(tmp_path, *server_args)
    env = {**HOST_ENV, "HOME": str(home), "OPENAI_API_KEY": "sk-not-a-key"}
    added = subprocess.run(
        _isolated([str(NODE), str(codex), "mcp", "add", "nuif", "--", str(launcher)]),
        cwd=project,
        env=env,
        check=False,
        capture_output=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr.decode()[-2000:]
    session = subprocess.Popen(
        _isolated([str(NODE), str(codex), "exec", "--skip-git-repo-check", "say hi"]),
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def server_done() -> bool:  # the answer has passed the launcher's tee, on its way to Codex
        answers = [p.read_text() for p in wire.glob("*.out")]
        return any('"tools":[' in a or '"code":-32022' in a for a in answers)

    try:
        for _ in range(600):  # 60 s at most
            if server_done() or session.poll() is not None:
                break
            threading.Event().wait(0.1)
    finally:
        if session.poll() is None:
            os.killpg(session.pid, 9)
        session.wait(timeout=30)
    return wire


def _first_session(wire: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    [stdin] = sorted(wire.glob("*.in"))
    sent = [json.loads(ln) for ln in stdin.read_text().splitlines()]
    out = stdin.with_suffix(".out")
    answered = [json.loads(ln) for ln in out.read_text().splitlines()] if out.exists() else []
    return sent, answered, stdin.with_suffix(".err").read_text()


def test_codex_cli_opens_with_initialize_and_is_refused_with_a_stderr_line(live, tmp_path):
    sent, answered, stderr = _first_session(_codex_session(live, tmp_path))
    opening = sent[0]
    assert opening["method"] == "initialize"
    assert opening["params"]["protocolVersion"] == "2025-06-18"
    info = opening["params"]["clientInfo"]
    assert info["name"] == "codex-mcp-client" and info["version"] == PINS["@openai/codex"]
    assert answered[0]["error"]["code"] == -32022
    assert FLAG in answered[0]["error"]["message"]
    [logged] = stderr.splitlines()
    assert logged.startswith(
        f'nuif-mcp WARNING nuif_mcp: refused client "codex-mcp-client" {PINS["@openai/codex"]}: '
        f"{REFUSAL_START}2025-06-18 with an initialize request"
    )


def test_codex_cli_lists_the_tools_with_the_flag(live, tmp_path):
    sent, answered, stderr = _first_session(_codex_session(live, tmp_path, FLAG))
    assert [m.get("method") for m in sent[:3]] == [
        "initialize",
        "notifications/initialized",
        "tools/list",
    ]
    by_id = {m["id"]: m for m in answered}
    assert by_id[0]["result"]["protocolVersion"] == "2025-06-18"
    tools = by_id[sent[2]["id"]]["result"]["tools"]
    assert [t["name"] for t in tools] == TOOL_NAMES
    assert all(t["annotations"]["readOnlyHint"] is True and t["outputSchema"] for t in tools)
    assert stderr == ""


# --- the README's host table ---------------------------------------------------------------------


def _locked(lock: str, package: str) -> str:
    match = re.search(
        rf"^{re.escape(package)}==([^ \n]+)", (PY_LOCKS / f"{lock}.txt").read_text(), re.M
    )
    assert match, f"{package} is not in python/{lock}.txt"
    return match.group(1)


def test_readme_host_table_gives_the_versions_this_matrix_runs():
    from importlib.metadata import version

    readme = (LIVE.parents[2] / "README.md").read_text()
    section = readme[readme.index("## Agent hosts (MCP)") :]
    section = section[: section.index("\n## ")]
    rows = {}
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if row.startswith("| ") and len(cells) == 4 and cells[1] not in ("version", "---"):
            rows[cells[0]] = cells[1]
    assert rows == {
        "Claude Code CLI": PINS["@anthropic-ai/claude-code"],
        "Codex CLI": PINS["@openai/codex"],
        "Python SDK `mcp.Client`": version("mcp"),
        "fastmcp `Client`": _locked("fastmcp", "fastmcp"),
        "OpenAI Agents SDK `MCPServerStdio`": (
            f"{_locked('openai-agents', 'openai-agents')} "
            f"(with mcp {_locked('openai-agents', 'mcp')})"
        ),
        "langchain-mcp-adapters": (
            f"{_locked('langchain-mcp-adapters', 'langchain-mcp-adapters')} "
            f"(with mcp {_locked('langchain-mcp-adapters', 'mcp')})"
        ),
        "TypeScript SDK v2 `@modelcontextprotocol/client`": PINS["@modelcontextprotocol/client"],
        "TypeScript SDK 1.x `@modelcontextprotocol/sdk`": PINS["@modelcontextprotocol/sdk"],
        "MCP Inspector CLI": PINS["@modelcontextprotocol/inspector"],
        "AI SDK `@ai-sdk/mcp`": PINS["@ai-sdk/mcp"],
    }
