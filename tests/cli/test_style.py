"""The colour rule and the painter (nuif_cli._style), in process: which streams are painted, and
that painting only wraps parts of a line in ANSI codes (the text stays the same)."""

from __future__ import annotations

import io
import re

import pytest

from nuif_cli._style import BOLD, GREEN, RED, RESET, YELLOW, Painter, wants_colour

ANSI = re.compile(r"\x1b\[\d+m")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


@pytest.mark.parametrize(
    ("stream", "environ", "painted"),
    [
        (_Terminal(), {}, True),
        (io.StringIO(), {}, False),
        (io.StringIO(), {"FORCE_COLOR": "1"}, True),
        (_Terminal(), {"NO_COLOR": "1"}, False),
        (io.StringIO(), {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        (_Terminal(), {"NO_COLOR": ""}, True),
        (_Terminal(), {"TERM": "dumb"}, False),
        (_Closed(), {}, False),
        (object(), {}, False),
    ],
    ids=[
        "terminal",
        "pipe",
        "forced",
        "no-color",
        "no-color-wins",
        "empty-no-color",
        "dumb",
        "closed",
        "no-isatty",
    ],
)
def test_which_streams_are_painted(stream: object, environ: dict[str, str], painted: bool) -> None:
    assert wants_colour(stream, environ) is painted  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "painted"),
    [
        (
            "doc.json:3:7: NUIF_ID id must be a string (at /root/id)",
            f"{BOLD}doc.json:3:7:{RESET} {RED}NUIF_ID{RESET} id must be a string (at /root/id)",
        ),
        ("nuif: error: no such file", f"nuif: {RED}error{RESET}: no such file"),
        ("nuif: WARNING: nothing checked", f"nuif: {YELLOW}WARNING{RESET}: nothing checked"),
        ("pkg.nuif: OK", f"pkg.nuif: {GREEN}OK{RESET}"),
        ("a.json: FAILED expected x", f"a.json: {RED}FAILED{RESET} expected x"),
        ("sha256:ab12  a.json", "sha256:ab12  a.json"),
    ],
    ids=["diagnostic", "error", "warning", "ok", "failed", "other"],
)
def test_painting_wraps_parts_of_a_line(line: str, painted: str) -> None:
    assert Painter(True).line(line) == painted
    assert ANSI.sub("", painted) == line
    assert Painter(False).line(line) == line
