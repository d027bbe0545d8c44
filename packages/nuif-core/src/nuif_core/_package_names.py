"""``.nuif`` package entry names: the fixed names, the asset name rules, name clashes.

This is not a public API (``nuif_core.package`` exports ``check_asset_name`` and the names).
The layers of the package code: names (this module) → ZIP structure (``_package_zip``) →
writing (``_package_write``) and reading (``_package_read``) → ``package``, the public module.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ._errors import NuifError, escape_pointer

__all__ = [
    "ASSETS_DIR",
    "DOCUMENT_NAME",
    "MANIFEST_NAME",
    "MAX_NAME_BYTES",
    "MAX_SEGMENT_BYTES",
    "NameSet",
    "asset_pointer",
    "check_asset_name",
    "fold",
    "over_limit",
    "quote_entry",
    "refuse",
    "sort_key",
]

DOCUMENT_NAME = "document.json"
MANIFEST_NAME = "manifest.json"
ASSETS_DIR = "assets/"

#: a segment of an asset path, in UTF-8 bytes (NAME_MAX on common file systems)
MAX_SEGMENT_BYTES = 255
#: a whole entry name, in UTF-8 bytes
MAX_NAME_BYTES = 1024

# control characters (C0, DEL, C1), backslash and colon (Windows separators, drive letters and
# NTFS streams) and the other characters Windows refuses in a file name: < > " | ? *
_FORBIDDEN_CHARS = re.compile(r'[\x00-\x1f\x7f-\x9f\\:<>"|?*]')
#: device names Windows reserves in every directory, whatever the extension (``nul.txt``) and
#: with spaces before it (``nul .txt``); superscript digits count as COM/LPT numbers there too.
#: COM0, LPT0 and CLOCK$ are on Microsoft's list or were in older versions: refused as well.
_WINDOWS_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789\u00b9\u00b2\u00b3"}
)
# a Windows 8.3 short name (PROGRA~1): it can name another entry's long name on NTFS
_SHORT_NAME = re.compile(r"~[0-9]+\Z")
# code points HFS+ ignores when it compares names (git refuses them in '.git' for that reason)
_IGNORED_BY_HFS = dict.fromkeys(
    [0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)


def refuse(message: str, pointer: str | None = None) -> NuifError:
    """NUIF_PACKAGE: an unsafe, missing, extra or mismatching entry."""
    return NuifError("NUIF_PACKAGE", message, pointer=pointer)


def over_limit(message: str, pointer: str | None = None) -> NuifError:
    """NUIF_PACKAGE_LIMIT: an entry count or an inflated size past its limit."""
    return NuifError("NUIF_PACKAGE_LIMIT", message, pointer=pointer)


def asset_pointer(name: str) -> str:
    """Where an asset is in the manifest (the pointer of its errors)."""
    return "/assets/" + escape_pointer(name)


def quote_entry(name: str) -> str:
    """An entry name quoted for a message (escapes make control characters visible)."""
    return repr(name)


def check_asset_name(name: object) -> str | None:
    """Why ``name`` is not a valid asset entry name, or ``None`` when it is.

    A valid name starts with ``assets/``, has at least one more segment, uses ``/`` only as the
    separator, and has no empty, ``.`` or ``..`` segment, no trailing ``/``, at most 255 UTF-8
    bytes per segment and 1024 in all.  It must also be a name every file system can hold as
    written (a package unpacks the same everywhere): no control character and none of
    ``\\ : < > " | ? *``; no segment that Windows reserves for a device (``con``, ``NUL.txt``,
    ``com1.tar.gz``, ``lpt¹`` …: a reserved device name before the first dot, spaces
    around it ignored), that ends in a dot or a space (Windows drops them, so ``a.`` would be
    the file ``a``), or that looks like a Windows short name (``PROGRA~1``, ``x~2.png``).
    """
    if not isinstance(name, str):
        return f"an asset name is a str, not {type(name).__name__}"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "it is an absolute path"
    bad = _FORBIDDEN_CHARS.search(name)
    if bad:
        ch = bad.group()
        if ch == "\\":
            what = "a backslash"
        elif ch == ":":
            what = "a colon (drive letter or stream name)"
        elif ch.isprintable():
            what = f"{ch!r}, a character Windows does not allow in file names"
        else:
            what = f"the control character U+{ord(ch):04X}"
        return f"it contains {what}"
    try:
        encoded = name.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not valid Unicode (lone surrogate)"
    segments = name.split("/")
    if segments[-1] == "" and len(segments) > 1:
        return "it names a directory, not a file"
    for segment in segments:
        if segment == "":
            return "it has an empty path segment ('//')"
        if segment in (".", ".."):
            return f"it has a '{segment}' segment"
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            return f"a path segment is longer than {MAX_SEGMENT_BYTES} bytes"
        problem = _windows_segment_problem(segment)
        if problem is not None:
            return problem
    if not name.startswith(ASSETS_DIR):
        return "it is outside assets/ (asset names start with 'assets/')"
    if len(encoded) > MAX_NAME_BYTES:
        return f"it is longer than {MAX_NAME_BYTES} bytes"
    return None


def _windows_segment_problem(segment: str) -> str | None:
    """Why Windows cannot hold ``segment`` as written (a reserved device name, a trailing dot
    or space, a short-name look-alike), or ``None``."""
    base = segment.split(".", 1)[0].strip(" ")
    if base.upper() in _WINDOWS_DEVICES:
        return (
            f"its segment {segment!r} is the device name {base.upper()}, which Windows reserves "
            "in every directory and with any extension"
        )
    if segment[-1] in ". ":
        what = "a dot" if segment[-1] == "." else "a space"
        left = segment.rstrip(". ")
        becomes = f"the file {left!r}" if left else "no name at all"
        return (
            f"its segment {segment!r} ends in {what}, which Windows drops: it would be {becomes} "
            "there"
        )
    if _SHORT_NAME.search(base):
        return (
            f"its segment {segment!r} looks like a Windows short (8.3) name, a tilde and digits "
            "before the extension, which can be another entry's name on Windows"
        )
    return None


def fold(name: str) -> str:
    """The key under which two names would land on the same file on some file system.

    Per segment: canonical (NFD) decomposition without the code points HFS+ ignores, trailing
    dots and spaces dropped (Windows), then upper case followed by Unicode case folding.  Case
    folding alone is Go's rule for module zips (strings.EqualFold); upper-casing first also
    joins the pairs Windows' upper-case table joins and folding keeps apart (``ı`` and ``i``
    are both ``I`` there).  Folding more than a file system does only refuses more packages.
    """
    out = []
    for segment in name.split("/"):
        segment = unicodedata.normalize("NFD", segment).translate(_IGNORED_BY_HFS).rstrip(". ")
        out.append(unicodedata.normalize("NFC", segment.upper().casefold()))
    return "/".join(out)


class NameSet:
    """Entry names seen so far: exact and folded duplicates, and file/directory clashes."""

    def __init__(self) -> None:
        self.folded: dict[str, str] = {}
        self.dirs: dict[str, str] = {}

    def add(self, name: str, pointer: str | None) -> None:
        key = fold(name)
        if key in self.folded:
            other = self.folded[key]
            if other == name:
                raise refuse(f"entry {quote_entry(name)} appears twice", pointer)
            raise refuse(
                f"entries {quote_entry(other)} and {quote_entry(name)} would be the same file on "
                "Windows or macOS, "
                "which compare names without case and Unicode normalization (Windows also "
                "without trailing dots and spaces); one would overwrite the other",
                pointer,
            )
        if key in self.dirs:
            raise refuse(
                f"entry {quote_entry(name)} is a file but {quote_entry(self.dirs[key])} uses it "
                "as a directory",
                pointer,
            )
        parts = key.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if parent in self.folded:
                raise refuse(
                    f"entry {quote_entry(name)} uses {quote_entry(self.folded[parent])}, a file, "
                    "as a directory",
                    pointer,
                )
            self.dirs.setdefault(parent, name)
        self.folded[key] = name


def sort_key(name: Any) -> bytes:
    """The order of entries: the byte order of their UTF-8 names."""
    # byte order of the UTF-8 names: independent of locale and of Python's str ordering quirks
    return name.encode("utf-8", "surrogatepass") if isinstance(name, str) else b""
