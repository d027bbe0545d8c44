"""Every example of server output in the docs and the tool descriptions is real output.

The examples are replayed against the real ``nuif-mcp`` process and compared with what it sends:

* ``docs/mcp.md``: each ```` ```json ```` request line is sent (as the first request of a new
  connection) and each answer line shown must equal
  the server's answer byte for byte (the ``serverInfo`` version aside); each ``request -> answer``
  pair of the JSON-RPC line section likewise;
* ``docs/mcp.md`` and ``packages/nuif-mcp/README.md``: each stderr line shown (```` ```text ````
  lines starting ``nuif-mcp``) must be a line the server wrote for those requests;
* those two files, the README's "Agent hosts (MCP)" section and the four tool descriptions (read
  from ``tools/list``): each backticked tool error text (``NUIF_CODE: ...``), diagnostic
  (``{"code":"NUIF_..."}``) and protocol message (``Invalid Request: ...``, ``Parse error: ...``,
  ``Unsupported protocol version: ...``) must be one the server sends for the calls below, and
  each backticked fragment of a refusal must appear in a real refusal.

A doc that shows an example the server does not send fails here, naming the example.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from nuif_mcp_wire import DOC, call, line, request, server_command

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
MCP_DOC = ROOT / "docs" / "mcp.md"
PACKAGE_README = ROOT / "packages" / "nuif-mcp" / "README.md"
README = ROOT / "README.md"

#: The document the docs use for a duplicate id (the second child repeats the first's id).
DUPLICATE_DOC = '{"nuif":0,"root":{"id":"r","kind":"screen","children":[{"id":"a","kind":"x"},{"id":"a","kind":"x"}]}}'
MISSING_NODE_PATCH = '{"nuif_patch":0,"transactions":[{"ops":[{"op":"remove","id":"zz"}]}]}'

#: The calls behind the tool-level examples of the docs and the tool descriptions.
EXAMPLE_CALLS = [
    ("canonicalize", {"document": DUPLICATE_DOC}),
    ("inspect", {"document": DUPLICATE_DOC}),
    ("validate", {"document": DUPLICATE_DOC}),
    ("apply-patch", {"document": DOC, "patch": MISSING_NODE_PATCH}),
    ("canonicalize", {"document": DOC, "extra": 1}),
    ("inspect", {"document": DOC, "max_outline_nodes": "2"}),
]

_OLD_META = {
    "io.modelcontextprotocol/protocolVersion": "2025-11-25",
    "io.modelcontextprotocol/clientCapabilities": {},
}
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 9,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18"},
}

#: Protocol-level examples whose inputs are not shown in full in the docs: (flag?, lines).
PROTOCOL_REPLAYS: list[tuple[tuple[str, ...], list[bytes]]] = [
    ((), [b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}\n']),
    ((), [line(request(1, "tools/list", {"_meta": _OLD_META}))]),
    (("--allow-legacy-handshake",), [line(request(1, "tools/list", {"_meta": _OLD_META}))]),
    (("--allow-legacy-handshake",), [line(request(1, "server/discover")), line(_INITIALIZE)]),
]

_SERVER_VERSION = re.compile(r'("io\.modelcontextprotocol/serverInfo":\{[^{}]*?"version":")[^"]*"')
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_PROTOCOL_PREFIXES = ("Invalid Request: ", "Parse error: ", "Unsupported protocol version: ")
#: Backticked parts of a refusal message quoted on their own in the docs.
_REFUSAL_FRAGMENTS = ("MCP 20", "--allow-legacy-handshake is on")


def _run(lines: Iterable[bytes], *args: str) -> tuple[list[str], list[str]]:
    """Raw stdout lines and stderr lines of one server process fed ``lines`` (bounded wait)."""
    done = subprocess.run(
        server_command(*args),
        input=b"".join(lines),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return done.stdout.decode().splitlines(), done.stderr.decode().splitlines()


def _fenced(text: str, lang: str) -> list[str]:
    """The lines inside every ```` ```lang ```` fence of ``text``."""
    out: list[str] = []
    for block in re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.M | re.S):
        out += [ln for ln in block.splitlines() if ln.strip()]
    return out


def _agent_hosts_section(text: str) -> str:
    start = text.index("## Agent hosts (MCP)")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _normalized(answer: str) -> str:
    return _SERVER_VERSION.sub(r'\1<version>"', answer)


def _arrow_pairs(text: str) -> list[tuple[bytes, str]]:
    """``request`` / ``  -> answer`` pairs of the JSON-RPC line section, requests made literal."""
    lines = _fenced(text, "text")
    pairs = []
    for first, second in itertools.pairwise(lines):
        if not second.startswith("  -> "):
            continue
        raw = re.sub(r"\s{3}\(.*\)$", "", first)  # "   (a raw 0xFF byte)" is a note
        raw = raw.replace("[[[[ ... 100,000 levels ... ]]]]", "[" * 100_000 + "]" * 100_000)
        pairs.append((raw.encode().replace(b"\\xff", b"\xff"), second[len("  -> ") :]))
    return pairs


@pytest.fixture(scope="module")
def real() -> dict[str, Any]:
    """What the server really sends for every documented input, gathered once."""
    doc = MCP_DOC.read_text()
    json_lines = _fenced(doc, "json")
    requests = [ln for ln in json_lines if '"method"' in ln]
    answers_shown = [ln for ln in json_lines if '"method"' not in ln]
    answers: dict[Any, str] = {}
    stderr_lines: list[str] = []
    for request_line in requests:  # each on a new connection, as a client's first request
        stdout, stderr = _run([(request_line + "\n").encode()])
        answers |= {json.loads(ln)["id"]: ln for ln in stdout}
        stderr_lines += stderr

    arrow = [(shown, _run([raw + b"\n"])[0]) for raw, shown in _arrow_pairs(doc)]

    calls = [line(call(i, name, args)) for i, (name, args) in enumerate(EXAMPLE_CALLS)]
    calls.append(line(request(len(calls), "tools/list")))
    tool_out, _ = _run(calls)
    by_id = {m["id"]: m for m in map(json.loads, tool_out)}
    results = [by_id[i]["result"] for i in range(len(EXAMPLE_CALLS))]
    tool_errors = {r["content"][0]["text"] for r in results if r["isError"]}
    diagnostics = [
        d
        for r in results
        if not r["isError"]
        for d in r["structuredContent"].get("diagnostics", [])
    ]
    protocol_messages = set()
    for args, lines in PROTOCOL_REPLAYS:
        out, err = _run(lines, *args)
        protocol_messages |= {m["error"]["message"] for m in map(json.loads, out) if "error" in m}
        stderr_lines += err
    for ln in list(answers.values()) + [ans for _, outs in arrow for ans in outs]:
        message = json.loads(ln).get("error", {}).get("message")
        if message:
            protocol_messages.add(message)
    return {
        "answers_shown": answers_shown,
        "answers": answers,
        "stderr": stderr_lines,
        "arrow": arrow,
        "tool_errors": tool_errors,
        "diagnostics": diagnostics,
        "protocol_messages": protocol_messages,
        "tools": by_id[len(EXAMPLE_CALLS)]["result"]["tools"],
    }


def _sources(real: dict[str, Any]) -> dict[str, str]:
    sources = {
        "docs/mcp.md": MCP_DOC.read_text(),
        "packages/nuif-mcp/README.md": PACKAGE_README.read_text(),
        "README.md (Agent hosts)": _agent_hosts_section(README.read_text()),
    }
    for tool in real["tools"]:
        sources[f"description of {tool['name']}"] = tool["description"]
    return sources


def _check_snippet(snippet: str, real: dict[str, Any]) -> str | None:
    """``None`` when ``snippet`` is real output (or not an output example); else what is wrong."""
    if re.match(r"NUIF_[A-Z_]+: ", snippet):
        if snippet not in real["tool_errors"]:
            return f"tool error text not sent by the server: {snippet}"
    elif snippet.startswith('{"code":"NUIF_'):
        if json.loads(snippet) not in real["diagnostics"]:
            return f"diagnostic not sent by the server: {snippet}"
    elif snippet.startswith(_PROTOCOL_PREFIXES):
        if snippet not in real["protocol_messages"]:
            return f"protocol message not sent by the server: {snippet}"
    elif snippet.startswith(_REFUSAL_FRAGMENTS) and not any(
        snippet in m for m in real["protocol_messages"]
    ):
        return f"refusal fragment in no real refusal: {snippet}"
    return None


def test_every_example_answer_in_docs_mcp_is_what_the_server_sends(real):
    assert len(real["answers_shown"]) >= 4
    for shown in real["answers_shown"]:
        rid = json.loads(shown)["id"]
        assert rid in real["answers"], f"no request in docs/mcp.md has the id {rid!r}"
        assert _normalized(shown) == _normalized(real["answers"][rid])


def test_every_request_and_answer_pair_of_the_json_rpc_line_section_is_real(real):
    assert len(real["arrow"]) == 3
    for shown, outs in real["arrow"]:
        assert outs == [shown]


@pytest.mark.parametrize("path", [MCP_DOC, PACKAGE_README], ids=lambda p: p.name)
def test_every_stderr_line_shown_is_one_the_server_writes(real, path):
    shown = [ln for ln in _fenced(path.read_text(), "text") if ln.startswith("nuif-mcp ")]
    assert shown, f"{path.name} shows no stderr line"
    for ln in shown:
        assert ln in real["stderr"]


def test_every_backticked_output_example_is_real(real):
    problems = []
    for where, text in _sources(real).items():
        for snippet in _BACKTICKED.findall(text):
            problem = _check_snippet(snippet, real)
            if problem:
                problems.append(f"{where}: {problem}")
    assert problems == []


@pytest.mark.parametrize(
    ("where", "needle"),
    [
        (
            "docs/mcp.md",
            '`NUIF_DUPLICATE_ID: id "a" is used twice (first at /root/children/0/id) (at /root/children/1/id, line 1 column 84)`',
        ),
        ("docs/mcp.md", '`{"code":"NUIF_DUPLICATE_ID"'),
        (
            "packages/nuif-mcp/README.md",
            '`NUIF_DUPLICATE_ID: id "a" is used twice (first at /root/children/0/id) (at /root/children/1/id, line 1 column 84)`',
        ),
        ("packages/nuif-mcp/README.md", "`Invalid Request: "),
        ("description of validate", '`{"code":"NUIF_DUPLICATE_ID"'),
        ("description of inspect", "`NUIF_DUPLICATE_ID: "),
        ("description of canonicalize", "`NUIF_DUPLICATE_ID: "),
        ("description of apply-patch", "`NUIF_PATCH_NOT_FOUND: "),
        ("description of apply-patch", "`NUIF_ARGUMENTS: "),
    ],
)
def test_each_source_shows_a_checked_example(real, where, needle):
    """The check above is not vacuous: each place an agent or a user reads has its examples."""
    assert needle in _sources(real)[where]


def test_the_checker_refuses_an_example_the_server_does_not_send(real):
    stale = 'NUIF_DUPLICATE_ID: id "a" is used twice (at /root/children/1/id, line 1 column 52)'
    assert _check_snippet(stale, real) is not None
    assert _check_snippet(
        '{"code":"NUIF_DUPLICATE_ID","message":"x","pointer":null,"line":null,"column":null}', real
    )
    assert _check_snippet("Invalid Request: the request id must be a string; found a boolean", real)
    assert _check_snippet("--allow-legacy-handshake is on: nothing else", real)


def test_validate_description_matches_what_an_agent_sees(real):
    """An invalid document is a normal result; only a call it cannot process is an error."""
    validate = next(t for t in real["tools"] if t["name"] == "validate")["description"]
    assert "an invalid document is a normal result, not an error: isError is false" in validate
    assert "always succeeds" not in validate and "On bad input" not in validate
    out, _ = _run(
        [
            line(call(1, "validate", {"document": DUPLICATE_DOC})),
            line(call(2, "validate", {"document": DUPLICATE_DOC, "extra": 1})),
        ]
    )
    first, second = (json.loads(ln)["result"] for ln in out)
    assert first["isError"] is False and first["structuredContent"]["valid"] is False
    assert second["isError"] is True and "structuredContent" not in second
    for name in ("inspect", "canonicalize", "apply-patch"):
        description = next(t for t in real["tools"] if t["name"] == name)["description"]
        assert "the result has isError true and no structuredContent" in description
