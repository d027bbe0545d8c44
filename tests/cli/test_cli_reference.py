"""docs/cli.md documents every command and option of the parser, and every exit status.

The parser is the one the installed ``nuif`` script runs (``nuif_cli._cli.build_parser``); each
command must have its own section in docs/cli.md (a heading ``### `nuif COMMAND …```), and each
of its options must be named in that section, in every spelling the parser accepts (``-j`` and
``--jobs``).  ``-h``/``--help`` and ``-v``/``--verbose``, common to every command, are documented
once in the conventions."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from nuif_cli._cli import build_parser

from .conftest import script

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
COMMON = {"-h", "--help", "-v", "--verbose"}


def _commands(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[prefix + name] = sub
                found.update(_commands(sub, prefix + name + " "))
    return found


def _sections(text: str) -> dict[str, str]:
    """{heading: body} of the ``###`` sections."""
    parts = re.split(r"^### ", text, flags=re.M)
    return {part.split("\n", 1)[0]: part for part in parts[1:]}


def _section_of(command: str, sections: dict[str, str]) -> str:
    """The body of the section whose heading names ``nuif COMMAND`` (``json canonicalize`` may
    share one with its siblings: ``nuif json canonicalize|hash|check``)."""
    words = command.split(" ")
    for heading, body in sections.items():
        m = re.match(r"`nuif ([a-z-]+(?: [a-z|-]+)?)", heading)
        if not m:
            continue
        named = m.group(1).split(" ")
        if named[0] != words[0]:
            continue
        if len(words) == 1 or (len(named) > 1 and words[1] in named[1].split("|")):
            return body
    raise AssertionError(f"docs/cli.md has no section for `nuif {command}`")


def test_every_command_and_option_is_documented() -> None:
    text = DOC.read_text()
    sections = _sections(text)
    commands = _commands(build_parser())
    assert len(commands) >= 17
    missing = []
    for command, parser in commands.items():
        body = _section_of(command, sections)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            for option in action.option_strings:
                if option in COMMON:
                    continue
                if not re.search(rf"`[^`]*(?<![\w-]){re.escape(option)}(?![\w-])", body):
                    missing.append(f"nuif {command} {option}")
            if not action.option_strings and action.choices:  # COMMAND choices: each named
                for choice in action.choices:
                    if choice not in body:
                        missing.append(f"nuif {command}: {choice}")
    assert missing == []
    for option in COMMON:
        assert f"`{option}`" in text


def test_every_exit_status_is_documented() -> None:
    table = DOC.read_text().split("### Exit status", 1)[1].split("\n\n", 2)[1]
    statuses = {int(m) for m in re.findall(r"^\| (\d+) \|", table, flags=re.M)}
    assert statuses == {0, 1, 2, 3, 130, 143}


def test_the_reference_names_the_commands_the_script_lists() -> None:
    proc = subprocess.run([*script(), "--help"], capture_output=True, text=True, timeout=60)
    listed = re.findall(r"^    ([a-z-]+)\s", proc.stdout, flags=re.M)
    assert listed and set(listed) == {c for c in _commands(build_parser()) if " " not in c}
    text = DOC.read_text()
    for command in listed:
        assert f"### `nuif {command}" in text, command
