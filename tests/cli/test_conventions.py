"""The conventions people expect, through the ``nuif`` script: ``-q`` and ``--json`` on every
command that reports, colour on a terminal only (``NO_COLOR``, ``FORCE_COLOR``), the command's
own usage on a usage error, and shell completion generated from the parser."""

from __future__ import annotations

import argparse
import json
import os
import pty
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from nuif_cli._cli import build_parser
from nuif_core import package

from .conftest import INVALID, PRETTY, Run, script

HASH = nuif_core.document_hash(PRETTY)
#: the commands that report (a verdict, a list, a summary): each has -q/--quiet and --json
REPORTING = {
    "validate",
    "inspect",
    "canonicalize",
    "hash",
    "apply-patch",
    "diff",
    "unpack",
    "verify",
    "batch",
    "json canonicalize",
    "json hash",
    "json check",
}
ANSI = "\x1b["


def run(*argv: str, env: dict[str, str] | None = None, stdin: bytes = b"") -> Run:
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.run(
        [*script(), *argv],
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**base, **(env or {})},
    )
    return Run(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))


def commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, Any]:
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[prefix + name] = sub
                out.update(commands(sub, prefix + name + " "))
    return out


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "a.json").write_bytes(PRETTY)
    (tmp_path / "bad.json").write_bytes(INVALID)
    (tmp_path / "a.nuif").write_bytes(package.pack(PRETTY))
    (tmp_path / "p.json").write_text(json.dumps({"nuif_patch": 0, "transactions": []}))
    return tmp_path


def test_every_reporting_command_has_quiet_and_json() -> None:
    found = commands(build_parser())
    assert set(found) >= REPORTING
    for name in REPORTING:
        options = {o for a in found[name]._actions for o in a.option_strings}
        assert {"-q", "--quiet", "--json"} <= options, name


def test_json_output_of_each_reporting_command(files: Path) -> None:
    a, bad, pkg, patch = (str(files / n) for n in ("a.json", "bad.json", "a.nuif", "p.json"))
    cases = {
        ("validate", a, bad): 1,
        ("inspect", a): 0,
        ("canonicalize", a): 0,
        ("canonicalize", "--check", a, bad): 1,
        ("hash", a, bad): 1,
        ("apply-patch", a, patch): 0,
        ("diff", a, a): 0,
        ("unpack", pkg, "-o", str(files / "out")): 0,
        ("verify", pkg): 0,
        ("json", "hash", a): 0,
        ("json", "check", a): 1,
    }
    for argv, code in cases.items():
        r = run(*argv, "--json")
        assert r.code == code, (argv, r.err)
        text = r.text.strip()
        values = (
            [json.loads(text)]
            if text.startswith("{\n")
            else [json.loads(line) for line in text.splitlines()]
        )
        assert values and all(isinstance(v, dict) for v in values), argv
    r = run("hash", "--json", a, bad)
    good, invalid = (json.loads(line) for line in r.text.splitlines())
    assert good["hash"] == HASH and good["canonical"] is False
    assert invalid["error"]["code"] == "NUIF_ID" and invalid["error"]["line"] == 1
    r = run("diff", "--json", a, a)
    assert json.loads(r.text)["differ"] is False and json.loads(r.text)["base"] == HASH


def test_quiet_drops_ok_lines_and_summaries_but_not_failures(files: Path) -> None:
    a, bad, pkg = (str(files / n) for n in ("a.json", "bad.json", "a.nuif"))
    r = run("validate", "-q", a, bad)
    assert r.code == 1 and "NUIF_ID" in r.text and r.err == ""  # no "1 of 2 files…"
    assert "1 of 2 files" in run("validate", a, bad).err
    r = run("canonicalize", "--check", "-q", a)
    assert (r.code, r.text, r.err) == (1, f"{a}\n", "")
    listing = f"{HASH}  {a}\n{HASH}  {bad}\n".encode()
    r = run("hash", "--check", "-", "-q", stdin=listing)
    assert r.code == 1 and r.text == f"{bad}: FAILED NUIF_ID\n" and "WARNING" not in r.err
    assert (run("verify", "-q", pkg).out, run("verify", pkg).text.startswith(f"{pkg}: OK")) == (
        b"",
        True,
    )
    r = run("unpack", "-q", pkg, "-o", str(files / "out"))
    assert (r.code, r.out, r.err) == (0, b"", "") and (files / "out" / "document.json").exists()
    r = run("canonicalize", "-i", "-q", a)
    assert (r.code, r.err) == (0, "")


def test_colour_only_when_asked_or_on_a_terminal(files: Path) -> None:
    bad = str(files / "bad.json")
    plain = run("inspect", bad)
    assert plain.code == 1 and ANSI not in plain.err  # a pipe: no colour
    forced = run("inspect", bad, env={"FORCE_COLOR": "1"})
    assert f"{ANSI}31mNUIF_ID" in forced.err and f"{ANSI}1m{bad}:1:28:" in forced.err
    assert (
        forced.err.replace(ANSI + "1m", "").replace(ANSI + "31m", "").replace(ANSI + "0m", "")
        == plain.err
    )  # the same text, painted
    assert ANSI not in run("inspect", bad, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).err
    assert ANSI not in run("inspect", bad, env={"FORCE_COLOR": ""}).err
    r = run("validate", bad, env={"FORCE_COLOR": "1"})
    assert f"{ANSI}31mNUIF_ID" in r.text  # validate's diagnostics on stdout too


def _on_a_terminal(*argv: str, env: dict[str, str]) -> bytes:
    """Run the script with stdout and stderr on a pseudo-terminal; return what it wrote."""
    leader, follower = pty.openpty()
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    try:
        proc = subprocess.Popen(
            [*script(), *argv],
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=follower,
            env={**base, "TERM": "xterm", **env},
        )
        os.close(follower)
        chunks = []
        for _ in range(10_000):  # bounded: the output is one line
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=60)
        return b"".join(chunks)
    finally:
        os.close(leader)


def test_colour_on_a_terminal_and_no_color_there(files: Path) -> None:
    bad = str(files / "bad.json")
    assert b"\x1b[31mNUIF_ID" in _on_a_terminal("inspect", bad, env={})
    assert b"\x1b[" not in _on_a_terminal("inspect", bad, env={"NO_COLOR": "1"})
    assert b"\x1b[" not in _on_a_terminal("inspect", bad, env={"TERM": "dumb"})


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["hash", "--bogus", "x"], "usage: nuif hash "),
        (["validate", "--max-diagnostics", "0", "x"], "usage: nuif validate "),
        (["json", "check", "--bogus", "x"], "usage: nuif json check "),
        (["batch", "frobnicate", "x"], "usage: nuif batch "),
        (["completion", "tcsh"], "usage: nuif completion "),
        (["json"], "usage: nuif json "),
    ],
)
def test_a_usage_error_shows_the_commands_own_usage(argv: list[str], usage: str) -> None:
    r = run(*argv)
    assert r.code == 2 and r.out == b""
    assert r.err.startswith(usage), r.err


def test_completion_scripts_name_every_command() -> None:
    names = {name.split(" ")[-1] for name in commands(build_parser())}
    for shell in ("bash", "zsh", "fish"):
        r = run("completion", shell)
        assert r.code == 0 and r.err == ""
        for name in names:
            assert name in r.text, (shell, name)
        program = shutil.which(shell)
        if program:  # the script parses in the shell it is for
            check = subprocess.run([program, "-n"], input=r.out, capture_output=True, timeout=60)
            assert check.returncode == 0, (shell, check.stderr)


def _bash_completions(script_text: str, words: list[str]) -> list[str]:
    code = (
        f"{script_text}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
        'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; '
        '_shtab_nuif; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    proc = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_bash_completion_completes_commands_and_options(tmp_path: Path) -> None:
    text = run("completion", "bash").text
    assert _bash_completions(text, ["nuif", "js"]) == ["json"]
    assert sorted(_bash_completions(text, ["nuif", "json", ""])) == [
        "canonicalize",
        "check",
        "hash",
    ]
    assert "--no-newline" in _bash_completions(text, ["nuif", "canonicalize", "--no"])
    assert set(_bash_completions(text, ["nuif", "completion", ""])) == {"bash", "zsh", "fish"}
