"""Colour for people at a terminal, and nowhere else.

A stream is painted when it is a terminal (and ``TERM`` is not ``dumb``), or when
``FORCE_COLOR`` is set to anything but the empty string (force-color.org); never when
``NO_COLOR`` is set to anything but the empty string (no-color.org), which wins over
``FORCE_COLOR``.  Painting only adds ANSI SGR codes around parts of a line: the text is the same.
"""

from __future__ import annotations

import os
import re
from typing import IO, Any

BOLD, RED, GREEN, YELLOW, RESET = "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[0m"

#: FILE:LINE:COL: NUIF_CODE … (or FILE: NUIF_CODE …)
_DIAGNOSTIC = re.compile(r"(?P<where>\S.*?:(?:\d+:\d+:)?) (?P<code>NUIF_[A-Z0-9_]+)(?P<rest> .*)?")
#: nuif: NUIF_CODE: … / nuif: error: … / nuif: WARNING: …
_PROGRAM = re.compile(r"nuif: (?P<tag>NUIF_[A-Z0-9_]+|error|WARNING)(?P<rest>:.*)")
#: FILE: OK / FILE: FAILED …
_VERDICT = re.compile(r"(?P<file>.*): (?P<verdict>OK|FAILED)(?P<rest>.*)")


def wants_colour(stream: IO[Any], environ: Any = None) -> bool:
    """Whether to paint what goes to ``stream`` (the rule of this module's docstring)."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", ""):
        return False
    if env.get("FORCE_COLOR", ""):
        return True
    if env.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Painter:
    """Paints the lines of one stream (or passes them through unchanged)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: IO[Any]) -> Painter:
        return cls(wants_colour(stream))

    def line(self, text: str) -> str:
        """``text`` with its location in bold and its code or verdict in colour."""
        if not self.enabled:
            return text
        m = _DIAGNOSTIC.fullmatch(text)
        if m:
            return f"{BOLD}{m['where']}{RESET} {RED}{m['code']}{RESET}{m['rest'] or ''}"
        m = _PROGRAM.fullmatch(text)
        if m:
            colour = YELLOW if m["tag"] == "WARNING" else RED
            return f"nuif: {colour}{m['tag']}{RESET}{m['rest']}"
        m = _VERDICT.fullmatch(text)
        if m:
            colour = GREEN if m["verdict"] == "OK" else RED
            return f"{m['file']}: {colour}{m['verdict']}{RESET}{m['rest']}"
        return text
