"""``nuif completion bash|zsh|fish``: a completion script generated from the argparse parser.

The script is written by ``shtab`` from :func:`nuif_cli._cli.build_parser`, so it offers every
command and option the parser has, and file or directory names where an argument names one.
"""

from __future__ import annotations

import argparse
from typing import Any

SHELLS = ("bash", "zsh", "fish")

#: metavars of arguments that name a directory; every other path-like metavar names a file
_DIRECTORIES = {"DIR"}
_FILES = {
    "FILE",
    "DOC",
    "PATCH",
    "A",
    "B",
    "PKG",
    "LIST",
    "OUT",
    "OUT.nuif",
    "REPORT",
    "INPUT",
}


def _mark_paths(parser: argparse.ArgumentParser, shtab: Any) -> None:
    """Tell shtab which arguments complete file or directory names (by their metavar)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                _mark_paths(sub, shtab)
            continue
        metavar = action.metavar if isinstance(action.metavar, str) else None
        if metavar in _DIRECTORIES:
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
        elif metavar in _FILES:
            action.complete = shtab.FILE  # type: ignore[attr-defined]


def script(shell: str) -> str:
    """The completion script for ``shell`` (one of :data:`SHELLS`)."""
    import shtab

    from ._cli import build_parser

    parser = build_parser()
    _mark_paths(parser, shtab)
    return shtab.complete(parser, shell=shell)


def cmd_completion(args: argparse.Namespace) -> int:
    import sys

    text = script(args.shell)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
