"""``.nuif`` packages (NUIF-0 §7): one document with the binary assets it references.

A package is a ZIP archive holding exactly

* ``document.json`` — the canonical text of a valid NUIF document;
* ``assets/…`` — any number of files under relative POSIX paths;
* ``manifest.json`` — canonical JSON
  ``{"assets": {"assets/logo.png": {"bytes": 1234, "sha256": "<hex>"}}, "document": "sha256:…",
  "nuif_package": 0}``.

Writing (:func:`pack`, :func:`pack_dir`) is deterministic: the same document and assets give the
same bytes.  Reading (:func:`read`, :func:`verify`, :func:`unpack`) trusts nothing in the
archive: every name, type, size and hash is checked, sizes are counted while inflating, and every
refusal is a :class:`~nuif_core.NuifError` with the code ``NUIF_PACKAGE`` (an unsafe, missing,
extra or mismatching entry) or ``NUIF_PACKAGE_LIMIT`` (entry count or inflated sizes).  The full
list of refusals and the reasons for each choice are in ``docs/package.md``.

Asset names are the full entry names, ``"assets/logo.png"``, everywhere: in the mapping given to
:func:`pack`, in the manifest, in :attr:`Package.assets` and on disk after :func:`unpack`.

Error locations: ``pointer`` is a JSON Pointer into the *manifest* for the member concerned
(``/document`` for the document, ``/assets/assets~1logo.png`` for an asset), or ``None`` when the
entry has no place in the manifest (an unsafe name, an entry the manifest does not list, an
archive-level problem).  The message always names the entry.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import re
import shutil
import stat
import struct
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Union

from ._document import canonicalize, dumps, loads
from ._errors import NuifError, escape_pointer
from ._limits import Limits, resolve_limits as _limits

__all__ = [
    "ASSETS_DIR",
    "COMPRESS_LEVEL",
    "DOCUMENT_NAME",
    "MANIFEST_NAME",
    "Package",
    "PackageSummary",
    "Source",
    "check_asset_name",
    "pack",
    "pack_dir",
    "read",
    "unpack",
    "verify",
]

DOCUMENT_NAME = "document.json"
MANIFEST_NAME = "manifest.json"
ASSETS_DIR = "assets/"

#: zlib level used for every entry (fixed, so output is reproducible; 6 is zlib's own default)
COMPRESS_LEVEL = 6
#: every entry's timestamp: the earliest date a ZIP can hold
FIXED_DATE_TIME = (1980, 1, 1, 0, 0, 0)
#: every entry's permissions: a regular file, rw-r--r--
FILE_MODE = stat.S_IFREG | 0o644
#: "made by" host system: Unix (3), so that the mode bits above are meaningful to readers
_UNIX = 3

#: a segment of an asset path, in UTF-8 bytes (NAME_MAX on common file systems)
MAX_SEGMENT_BYTES = 255
#: a whole entry name, in UTF-8 bytes
MAX_NAME_BYTES = 1024
#: bytes of one central directory record we accept on average (fixed part + name + extras); it
#: bounds the central directory that must be parsed before the entry count is known
_MAX_CENTRAL_RECORD = 46 + MAX_NAME_BYTES + 256
_CHUNK = 1 << 16

_HEX64 = re.compile(r"[0-9a-f]{64}")
_DOCUMENT_HASH = re.compile(r"sha256:[0-9a-f]{64}")
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

#: where a package comes from: bytes of the archive, a path, or a seekable binary file object
Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes]]


def _refuse(message: str, pointer: str | None = None) -> NuifError:
    return NuifError("NUIF_PACKAGE", message, pointer=pointer)


def _limit(message: str, pointer: str | None = None) -> NuifError:
    return NuifError("NUIF_PACKAGE_LIMIT", message, pointer=pointer)


def _asset_pointer(name: str) -> str:
    return "/assets/" + escape_pointer(name)


def _q(name: str) -> str:
    """An entry name quoted for a message (escapes make control characters visible)."""
    return repr(name)


# ---------------------------------------------------------------------------------------------
# names


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


def _fold(name: str) -> str:
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


class _NameSet:
    """Entry names seen so far: exact and folded duplicates, and file/directory clashes."""

    def __init__(self) -> None:
        self.folded: dict[str, str] = {}
        self.dirs: dict[str, str] = {}

    def add(self, name: str, pointer: str | None) -> None:
        key = _fold(name)
        if key in self.folded:
            other = self.folded[key]
            if other == name:
                raise _refuse(f"entry {_q(name)} appears twice", pointer)
            raise _refuse(
                f"entries {_q(other)} and {_q(name)} would be the same file on Windows or macOS, "
                "which compare names without case and Unicode normalization (Windows also "
                "without trailing dots and spaces); one would overwrite the other",
                pointer,
            )
        if key in self.dirs:
            raise _refuse(
                f"entry {_q(name)} is a file but {_q(self.dirs[key])} uses it as a directory",
                pointer,
            )
        parts = key.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if parent in self.folded:
                raise _refuse(
                    f"entry {_q(name)} uses {_q(self.folded[parent])}, a file, as a directory",
                    pointer,
                )
            self.dirs.setdefault(parent, name)
        self.folded[key] = name


# ---------------------------------------------------------------------------------------------
# writing


def _document_canonical(document: Any, limits: Limits) -> tuple[bytes, str]:
    result = canonicalize(document, limits=limits)
    if result.changed:
        # a double in [2^53, 1e21) is written as an integer literal that the strict reader
        # refuses (docs/canonical-json.md): such a package could never be read back
        try:
            canonicalize(result.canonical, limits=limits)
        except NuifError as err:
            raise NuifError(
                err.code,
                "the canonical text of the document cannot be read back, so a package holding "
                f"it would be refused: {err.message}",
                pointer=err.pointer,
            ) from err
    return result.canonical, result.hash


def _manifest_bytes(document_hash: str, assets: Mapping[str, tuple[str, int]]) -> bytes:
    return dumps(
        {
            "nuif_package": 0,
            "document": document_hash,
            "assets": {name: {"sha256": h, "bytes": n} for name, (h, n) in assets.items()},
        }
    )


def _zip_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=FIXED_DATE_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = _UNIX
    info.external_attr = FILE_MODE << 16
    return info


def pack(
    document: str | bytes | bytearray | memoryview,
    assets: Mapping[str, bytes | bytearray | memoryview] | None = None,
    *,
    limits: Limits | None = None,
) -> bytes:
    """Build a ``.nuif`` package and return its bytes.

    ``document`` is NUIF text; it is validated and stored canonical (any valid text is
    accepted, canonical or not).  ``assets`` maps entry names (``"assets/logo.png"``) to their
    bytes.  The output depends only on the canonical document and the assets: entries are sorted
    by name, every timestamp is 1980-01-01 00:00:00, every mode is ``0o100644`` and every entry is
    deflated at level :data:`COMPRESS_LEVEL` (see docs/package.md about zlib versions).

    Raises :class:`NuifError`: the document's own code when it is not valid, ``NUIF_PACKAGE`` for
    an unsafe or clashing asset name, ``NUIF_PACKAGE_LIMIT`` past the entry or size limits
    (a package this function writes is always one :func:`read` accepts with the same limits).
    """
    lim = _limits(limits)
    assets = {} if assets is None else assets
    if not isinstance(assets, Mapping):
        raise TypeError(f"assets must be a mapping of names to bytes, not {type(assets).__name__}")
    if len(assets) + 2 > lim.max_package_entries:
        raise _limit(
            f"{len(assets)} assets plus document.json and manifest.json make more than "
            f"{lim.max_package_entries} entries"
        )
    names = _NameSet()
    entries: dict[str, tuple[str, int]] = {}
    blobs: dict[str, bytes | bytearray | memoryview] = {}
    total = 0
    for name in sorted(assets, key=_sort_key):
        pointer = _asset_pointer(name) if isinstance(name, str) else None
        problem = check_asset_name(name)
        if problem is not None:
            raise _refuse(f"asset name {_q(name)} is refused: {problem}", pointer)
        data = assets[name]
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"asset {name!r} must be bytes, not {type(data).__name__}")
        size = memoryview(data).nbytes
        if size > lim.max_asset_bytes:
            raise _limit(
                f"asset {_q(name)} is {size} bytes; the limit is {lim.max_asset_bytes}", pointer
            )
        total += size
        names.add(name, pointer)
        entries[name] = (hashlib.sha256(data).hexdigest(), size)
        blobs[name] = data
    canonical, doc_hash = _document_canonical(document, lim)
    # the cap read applies to document.json and manifest.json (_Reader._cap)
    cap = min(lim.max_asset_bytes, lim.max_document_bytes)
    if len(canonical) > cap:
        raise _limit(
            f"document.json is {len(canonical)} bytes; it may hold at most {cap}",
            "/document",
        )
    manifest = _manifest_bytes(doc_hash, entries)
    if len(manifest) > cap:
        raise _limit(f"manifest.json would be {len(manifest)} bytes; it may hold at most {cap}")
    total += len(canonical) + len(manifest)
    if total > lim.max_package_bytes:
        raise _limit(
            f"the package would hold {total} bytes; the limit is {lim.max_package_bytes}"
        )
    contents: dict[str, bytes | bytearray | memoryview] = {
        **blobs,
        DOCUMENT_NAME: canonical,
        MANIFEST_NAME: manifest,
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", allowZip64=False) as zf:
        for name in sorted(contents, key=_sort_key):
            zf.writestr(_zip_info(name), contents[name], compresslevel=COMPRESS_LEVEL)
    return out.getvalue()


def _sort_key(name: Any) -> bytes:
    # byte order of the UTF-8 names: independent of locale and of Python's str ordering quirks
    return name.encode("utf-8", "surrogatepass") if isinstance(name, str) else b""


def pack_dir(
    document: str | bytes | bytearray | memoryview,
    assets_dir: str | os.PathLike[str] | None = None,
    *,
    limits: Limits | None = None,
) -> bytes:
    """:func:`pack` with the assets read from a directory tree.

    Every regular file under ``assets_dir`` becomes ``assets/<its relative path>``; empty
    directories are not represented.  Symbolic links and special files are refused with
    NUIF_PACKAGE (following a link could pack a file from outside the tree), and file sizes are
    checked against the limits before and while reading.
    """
    lim = _limits(limits)
    assets: dict[str, bytes] = {}
    if assets_dir is not None:
        root = Path(assets_dir)
        if not root.is_dir():
            raise NotADirectoryError(f"assets directory {str(root)!r} is not a directory")
        total = 0
        for path in _walk(root):
            rel = path.relative_to(root).as_posix()
            name = ASSETS_DIR + rel
            if len(assets) + 2 >= lim.max_package_entries:
                raise _limit(f"the assets directory holds more than {lim.max_package_entries - 2} files")
            with open(path, "rb") as fh:
                data = fh.read(lim.max_asset_bytes + 1)
            if len(data) > lim.max_asset_bytes:
                raise _limit(
                    f"asset {_q(name)} is larger than the limit of {lim.max_asset_bytes} bytes",
                    _asset_pointer(name),
                )
            total += len(data)
            if total > lim.max_package_bytes:
                raise _limit(f"the assets hold more than {lim.max_package_bytes} bytes")
            assets[name] = data
    return pack(document, assets, limits=lim)


def _walk(root: Path) -> Iterator[Path]:
    stack = [root]
    while stack:
        current = stack.pop()
        with os.scandir(current) as it:
            items = sorted(it, key=lambda e: e.name)
        subdirs = []
        for entry in items:
            path = Path(entry.path)
            if entry.is_symlink():
                raise _refuse(f"{str(path)!r} is a symbolic link; packages hold regular files only")
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(path)
            elif entry.is_file(follow_symlinks=False):
                yield path
            else:
                raise _refuse(f"{str(path)!r} is not a regular file")
        stack.extend(reversed(subdirs))


# ---------------------------------------------------------------------------------------------
# reading


@dataclass(frozen=True)
class Package:
    """A verified package: every entry was checked against the manifest."""

    #: canonical text of the document (the bytes of ``document.json``)
    document: bytes
    #: the document hash, ``"sha256:…"``
    hash: str
    #: the parsed manifest (read-only)
    manifest: Mapping[str, Any]
    #: asset bytes by entry name (``"assets/logo.png"``), sorted by name (read-only)
    assets: Mapping[str, bytes]
    #: the bytes of ``manifest.json`` (canonical JSON)
    manifest_bytes: bytes = field(default=b"", repr=False)

    @property
    def text(self) -> str:
        """The document as ``str``."""
        return self.document.decode("utf-8")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no asset bytes)."""
        return {
            "hash": self.hash,
            "document_bytes": len(self.document),
            "assets": {n: dict(m) for n, m in self.manifest["assets"].items()},
        }


@dataclass(frozen=True)
class PackageSummary:
    """What :func:`verify` returns: the package was verified; its contents were not kept."""

    hash: str
    manifest: Mapping[str, Any]
    #: entries in the archive (document, manifest and assets)
    entries: int
    #: inflated bytes of every entry together
    total_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "entries": self.entries,
            "total_bytes": self.total_bytes,
            "assets": {n: dict(m) for n, m in self.manifest["assets"].items()},
        }


def _open_source(src: Source) -> tuple[IO[bytes], bool]:
    """A seekable binary stream for ``src`` and whether we own (must close) it."""
    if isinstance(src, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(src)), True
    if isinstance(src, (str, os.PathLike)):
        return open(src, "rb"), True
    if hasattr(src, "read") and hasattr(src, "seek"):
        return src, False
    raise TypeError(
        f"a package source is bytes, a path or a binary file object, not {type(src).__name__}"
    )


def _check_end_record(fh: IO[bytes], limits: Limits) -> None:
    """Bound the central directory before :mod:`zipfile` parses it.

    ``zipfile`` reads the whole central directory into ``ZipInfo`` objects before anyone can
    count them; a small archive can declare millions of entries.  The end-of-central-directory
    record (and its ZIP64 twin) gives the entry count and the directory size up front.
    """
    size = fh.seek(0, io.SEEK_END)
    tail_len = min(size, 22 + 0xFFFF)
    fh.seek(size - tail_len)
    tail = fh.read(tail_len)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise _refuse("not a ZIP archive (no end of central directory record)")
    # readers look for this record from the end in different ways (the last signature, the last
    # one whose comment fits, the first...): it must be the only one that ends the file exactly
    (comment_len,) = struct.unpack_from("<H", tail, at + 20)
    if at + 22 + comment_len != len(tail):
        raise _refuse(
            f"the end of central directory record declares a {comment_len}-byte comment but "
            f"{len(tail) - at - 22} bytes follow it; readers would disagree on where the "
            "archive ends"
        )
    other = tail.rfind(b"PK\x05\x06", 0, at)
    while other >= 0:
        (n,) = struct.unpack_from("<H", tail, other + 20)
        if other + 22 + n == len(tail):
            raise _refuse(
                "the archive has two end of central directory records that both end the file "
                "(one inside the other's comment); readers would pick different ones"
            )
        other = tail.rfind(b"PK\x05\x06", 0, other)
    count, cd_size = struct.unpack_from("<HI", tail, at + 10)
    if count == 0xFFFF or cd_size == 0xFFFFFFFF:
        locator = at - 20
        if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
            (offset,) = struct.unpack_from("<Q", tail, locator + 8)
            if offset + 56 <= size:
                fh.seek(offset)
                record = fh.read(56)
                if record[:4] == b"PK\x06\x06":
                    count, cd_size = struct.unpack_from("<QQ", record, 32)
    if count > limits.max_package_entries:
        raise _limit(
            f"the archive declares {count} entries; the limit is {limits.max_package_entries}"
        )
    if cd_size > limits.max_package_entries * _MAX_CENTRAL_RECORD:
        raise _limit(
            f"the archive's central directory is {cd_size} bytes, more than "
            f"{limits.max_package_entries} entries can need"
        )
    fh.seek(0)


_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    struct.error,
    zlib.error,
    NotImplementedError,
    OverflowError,
    ValueError,
    KeyError,
    RuntimeError,
)


def _inflater(method: int) -> Any:
    """A raw deflate decompressor for a deflated entry, ``None`` for a stored one."""
    return zlib.decompressobj(-zlib.MAX_WBITS) if method == zipfile.ZIP_DEFLATED else None


def _points_outside(exc: OSError) -> bool:
    """A seek before the start of a real file (a corrupt offset), not an I/O failure."""
    return exc.errno == errno.EINVAL


# ---------------------------------------------------------------------------------------------
# ZIP headers, read directly: zipfile reads the central directory only, and trusts it

_LOCAL = struct.Struct("<4s5H3L2H")  # local file header: 30 bytes, then name and extra field
_CENTRAL = struct.Struct("<4s4B4H3L5H2L")  # central directory record: 46 bytes, then the rest
_LOCAL_SIG = b"PK\x03\x04"
_DESCRIPTOR_SIG = b"PK\x07\x08"
_MAX32 = 0xFFFFFFFF

_FLAG_ENCRYPTED = 0x0001
_FLAG_DESCRIPTOR = 0x0008
_FLAG_UTF8 = 0x0800
#: general-purpose flags an entry may set: the deflate options (bits 1 and 2, informative), a
#: data descriptor (bit 3) and UTF-8 names (bit 11).  Every other bit is refused: encryption
#: (0, 6, 13), patch data (5) and the bits the format reserves all change how an entry is read.
_FLAGS_ALLOWED = 0x0002 | 0x0004 | _FLAG_DESCRIPTOR | _FLAG_UTF8
_FLAG_MEANING = {
    0: "encryption",
    4: "enhanced deflating",
    5: "compressed patched data",
    6: "strong encryption",
    13: "an encrypted central directory",
}

_EXTRA_ZIP64 = 0x0001
#: extra fields an entry may carry: ZIP64 sizes (checked against the header fields) and
#: metadata that changes neither what the entry is nor where it goes
_EXTRAS_ALLOWED = {
    _EXTRA_ZIP64: "ZIP64",
    0x000A: "NTFS times",
    0x5455: "extended timestamp",
    0x5855: "Info-ZIP Unix times and owner",
    0x7875: "Info-ZIP Unix owner",
    0xCAFE: "JAR marker",
    0xD935: "Android alignment padding",
}
#: why some refused extra fields matter, for the message
_EXTRAS_REFUSED = {
    0x000D: "PKWARE Unix, which can hold a link target",
    0x0017: "strong encryption",
    0x7075: "Info-ZIP Unicode path, which replaces the entry's name for some readers",
    0x756E: "ASi Unix, which can make the entry a link",
    0x9901: "AES encryption",
}


@dataclass(frozen=True)
class _Header:
    """What one header (local or central) says about an entry, ZIP64 fields resolved."""

    flags: int
    method: int
    crc: int
    csize: int
    usize: int
    name: bytes
    zip64: bool


def _extra_fields(raw: bytes, name: str, where: str, pointer: str | None) -> dict[int, bytes]:
    """The records of an extra field, by id: well framed, each id once, each one allowed."""
    fields: dict[int, bytes] = {}
    pos = 0
    while pos < len(raw):
        if len(raw) - pos < 4:
            raise _refuse(
                f"entry {_q(name)} has {len(raw) - pos} stray bytes at the end of the extra field "
                f"of its {where}",
                pointer,
            )
        tag, size = struct.unpack_from("<HH", raw, pos)
        if pos + 4 + size > len(raw):
            raise _refuse(
                f"entry {_q(name)} has an extra field record 0x{tag:04x} that runs past the extra "
                f"field of its {where}",
                pointer,
            )
        if tag in fields:
            raise _refuse(
                f"entry {_q(name)} has two extra field records 0x{tag:04x} in its {where}; "
                "readers would take different ones",
                pointer,
            )
        if tag not in _EXTRAS_ALLOWED:
            what = _EXTRAS_REFUSED.get(tag, "unknown to this reader")
            raise _refuse(
                f"entry {_q(name)} has an extra field 0x{tag:04x} ({what}) in its {where}; a "
                "package entry may carry ZIP64, timestamp, owner and padding fields only",
                pointer,
            )
        fields[tag] = raw[pos + 4 : pos + 4 + size]
        pos += 4 + size
    return fields


def _check_flags(name: str, flags: int, where: str, pointer: str | None) -> None:
    if flags & _FLAG_ENCRYPTED:
        raise _refuse(
            f"entry {_q(name)} is encrypted (general-purpose flag bit 0 in its {where}); "
            "packages hold plain entries only",
            pointer,
        )
    extra = flags & ~_FLAGS_ALLOWED
    if extra:
        bit = (extra & -extra).bit_length() - 1
        what = _FLAG_MEANING.get(bit, "reserved")
        raise _refuse(
            f"entry {_q(name)} sets general-purpose flag bit {bit} ({what}) in its {where}; "
            "only bits 1-3 and 11 are allowed",
            pointer,
        )


def _name_for_message(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


class _Reader:
    """The checks shared by :func:`read`, :func:`verify` and :func:`unpack`."""

    def __init__(self, zf: zipfile.ZipFile, limits: Limits) -> None:
        self.zf = zf
        self.fh: IO[bytes] = zf.fp  # type: ignore[assignment]
        self.limits = limits
        self.inflated = 0
        infos = zf.infolist()
        if len(infos) > limits.max_package_entries:
            raise _limit(
                f"the archive has {len(infos)} entries; the limit is {limits.max_package_entries}"
            )
        self.entries = len(infos)
        self.by_name: dict[str, zipfile.ZipInfo] = {}
        names = _NameSet()
        declared = 0
        for info in infos:
            name = info.filename
            self._check_entry(info)
            pointer = _asset_pointer(name) if name.startswith(ASSETS_DIR) else None
            names.add(name, pointer)
            cap = self._cap(name)
            if info.file_size > cap:
                raise _limit(
                    f"entry {_q(name)} declares {info.file_size} bytes; the limit is {cap}",
                    pointer,
                )
            declared += info.file_size
            if declared > limits.max_package_bytes:
                raise _limit(
                    f"the entries declare more than {limits.max_package_bytes} bytes in all"
                )
            self.by_name[name] = info
        for required in (MANIFEST_NAME, DOCUMENT_NAME):
            if required not in self.by_name:
                raise _refuse(f"the archive has no {required}")
        #: where each entry's compressed data starts (after its local header)
        self.data_start: dict[str, int] = {}
        self._check_layout(infos)

    def _central_headers(self, infos: list[zipfile.ZipInfo]) -> list[_Header]:
        """Each central directory record as stored, ZIP64 fields resolved and checked.

        zipfile has parsed the same records (in the same order) but keeps no raw field; the
        ZIP64 rules need them: a ZIP64 field holds exactly the values whose 32-bit field is
        0xFFFFFFFF (0xFFFF for the disk), so that no reader can take one value for another.
        """
        headers = []
        self.fh.seek(self.zf.start_dir)
        for info in infos:
            name = info.filename
            pointer = _asset_pointer(name) if name.startswith(ASSETS_DIR) else None
            fixed = self.fh.read(_CENTRAL.size)
            record = _CENTRAL.unpack(fixed)
            flags, method, crc, csize, usize = record[5], record[6], *record[9:12]
            nlen, elen, clen, disk, offset = *record[12:16], record[18]
            raw_name = self.fh.read(nlen)
            extras = _extra_fields(self.fh.read(elen), name, "central directory record", pointer)
            self.fh.seek(clen, io.SEEK_CUR)
            zip64 = extras.get(_EXTRA_ZIP64)
            wide = [usize == _MAX32, csize == _MAX32, offset == _MAX32]
            want = 8 * sum(wide) + (4 if disk == 0xFFFF else 0)
            if zip64 is None and want:
                raise _refuse(
                    f"entry {_q(name)} has a size or offset of 0xFFFFFFFF in its central "
                    "directory record but no ZIP64 extra field",
                    pointer,
                )
            if zip64 is not None and len(zip64) != want:
                raise _refuse(
                    f"entry {_q(name)} has a ZIP64 extra field of {len(zip64)} bytes in its "
                    f"central directory record where its header fields call for {want}; readers "
                    "would disagree on its sizes",
                    pointer,
                )
            if zip64:
                values = list(struct.unpack_from(f"<{sum(wide)}Q", zip64))
                if wide[0]:
                    usize = values.pop(0)
                if wide[1]:
                    csize = values.pop(0)
                if disk == 0xFFFF:
                    (disk,) = struct.unpack_from("<I", zip64, want - 4)
            if disk != 0:
                raise _refuse(
                    f"entry {_q(name)} is on disk {disk} of a split archive; a package is one file",
                    pointer,
                )
            headers.append(_Header(flags, method, crc, csize, usize, raw_name, zip64 is not None))
        return headers

    def _local_header(self, name: str, offset: int, pointer: str | None) -> tuple[_Header, int]:
        """The local header at ``offset``, ZIP64 fields resolved; and where its data starts."""
        self.fh.seek(offset)
        fixed = self.fh.read(_LOCAL.size)
        if len(fixed) != _LOCAL.size or fixed[:4] != _LOCAL_SIG:
            raise _refuse(
                f"entry {_q(name)} has no local header at byte {offset}, where its central "
                "directory record points",
                pointer,
            )
        (_, _, flags, method, _, _, crc, csize, usize, nlen, elen) = _LOCAL.unpack(fixed)
        raw_name = self.fh.read(nlen)
        raw_extra = self.fh.read(elen)
        if len(raw_name) != nlen or len(raw_extra) != elen:
            raise _refuse(f"entry {_q(name)} has a truncated local header", pointer)
        _check_flags(name, flags, "local header", pointer)
        zip64 = _extra_fields(raw_extra, name, "local header", pointer).get(_EXTRA_ZIP64)
        if zip64 is not None:
            # a local ZIP64 field holds both sizes; a 32-bit field that is not 0xFFFFFFFF must
            # say the same, or readers that prefer one or the other disagree
            if len(zip64) != 16:
                raise _refuse(
                    f"entry {_q(name)} has a ZIP64 extra field of {len(zip64)} bytes in its local "
                    "header; a local header's holds both sizes, 16 bytes",
                    pointer,
                )
            wide_usize, wide_csize = struct.unpack("<QQ", zip64)
            for short, wide in ((usize, wide_usize), (csize, wide_csize)):
                if short not in (_MAX32, wide):
                    raise _refuse(
                        f"entry {_q(name)} has a size of {short} in its local header and "
                        f"{wide} in that header's ZIP64 field; readers would disagree",
                        pointer,
                    )
            usize, csize = wide_usize, wide_csize
        elif _MAX32 in (usize, csize):
            raise _refuse(
                f"entry {_q(name)} has a size of 0xFFFFFFFF in its local header but no ZIP64 "
                "extra field",
                pointer,
            )
        header = _Header(flags, method, crc, csize, usize, raw_name, zip64 is not None)
        return header, offset + _LOCAL.size + nlen + elen

    def _descriptor_length(
        self, name: str, central: _Header, local: _Header, at: int, pointer: str | None
    ) -> int:
        """The length of the data descriptor at ``at``, which must repeat the central CRC-32
        and sizes (with or without its optional signature; 8-byte sizes under ZIP64)."""
        fmt = "<LQQ" if local.zip64 else "<LLL"
        body = struct.calcsize(fmt)
        self.fh.seek(at)
        raw = self.fh.read(4 + body)
        want = (central.crc, central.csize, central.usize)
        signed = raw[:4] == _DESCRIPTOR_SIG and len(raw) == 4 + body
        if signed and struct.unpack_from(fmt, raw, 4) == want:
            return 4 + body
        if len(raw) >= body and struct.unpack_from(fmt, raw) == want:
            return body
        raise _refuse(
            f"entry {_q(name)} has a data descriptor (flag bit 3) that does not repeat the "
            "CRC-32 and sizes of its central directory record",
            pointer,
        )

    def _check_layout(self, infos: list[zipfile.ZipInfo]) -> None:
        """The local headers must agree with the central directory, and the entries must fill
        the archive from its first byte to the central directory, one after the other.

        A reader that walks the local headers (a streaming unzipper) then finds exactly the
        entries, names, flags, methods and sizes that this reader verified: no gap can hide
        another entry, no flag can mean something else to it.
        """
        centrals = self._central_headers(infos)
        order = sorted(range(len(infos)), key=lambda i: infos[i].header_offset)
        expected = 0
        previous: str | None = None
        for i in order:
            info, central = infos[i], centrals[i]
            name = info.filename
            pointer = _asset_pointer(name) if name.startswith(ASSETS_DIR) else None
            offset = info.header_offset
            if offset != expected:
                if previous is None:
                    problem = (
                        f"{offset} bytes come before the first entry, {_q(name)}"
                        if offset > 0
                        else f"entry {_q(name)} starts before the archive"
                    )
                elif offset > expected:
                    problem = (
                        f"{offset - expected} bytes between entries {_q(previous)} and "
                        f"{_q(name)} belong to no entry"
                    )
                else:
                    problem = f"entry {_q(name)} starts inside entry {_q(previous)}"
                raise _refuse(
                    f"{problem}; a reader that walks the local headers could find entries there "
                    "that the central directory does not list",
                    pointer,
                )
            local, data_start = self._local_header(name, offset, pointer)
            if local.flags != central.flags:
                raise _refuse(
                    f"entry {_q(name)} has general-purpose flags 0x{local.flags:04x} in its local "
                    f"header but 0x{central.flags:04x} in its central directory record; readers "
                    "that use one or the other would read it differently",
                    pointer,
                )
            if local.name != central.name:
                raise _refuse(
                    f"entry {_q(name)} is named {_q(_name_for_message(local.name))} in its local "
                    "header",
                    pointer,
                )
            if local.method != central.method:
                raise _refuse(
                    f"entry {_q(name)} has compression method {local.method} in its local header "
                    f"but {central.method} in its central directory record",
                    pointer,
                )
            fields = (central.crc, central.csize, central.usize)
            declared = (local.crc, local.csize, local.usize)
            end = data_start + central.csize
            if central.flags & _FLAG_DESCRIPTOR:
                if central.method == zipfile.ZIP_STORED:
                    raise _refuse(
                        f"entry {_q(name)} is stored with a data descriptor (flag bit 3): its end "
                        "can only be found by searching its data for a signature",
                        pointer,
                    )
                # the local fields may be zero ("see the descriptor") or the values themselves
                if any(mine not in (0, theirs) for mine, theirs in zip(declared, fields)):
                    raise _refuse(
                        f"entry {_q(name)} has CRC-32 and sizes {declared} in its local header "
                        f"but {fields} in its central directory record",
                        pointer,
                    )
                end += self._descriptor_length(name, central, local, end, pointer)
            elif declared != fields:
                raise _refuse(
                    f"entry {_q(name)} has CRC-32 and sizes {declared} in its local header but "
                    f"{fields} in its central directory record",
                    pointer,
                )
            if central.method == zipfile.ZIP_STORED and central.csize != central.usize:
                raise _refuse(
                    f"entry {_q(name)} is stored but its compressed size ({central.csize}) is not "
                    f"its size ({central.usize})",
                    pointer,
                )
            self.data_start[name] = data_start
            expected, previous = end, name
        start_dir = self.zf.start_dir
        if expected != start_dir:
            last = _q(previous) if previous is not None else "(none)"
            if expected < start_dir:
                problem = (
                    f"{start_dir - expected} bytes between the last entry, {last}, and the "
                    "central directory belong to no entry"
                )
            else:
                problem = f"the last entry, {last}, runs into the central directory"
            raise _refuse(
                f"{problem}; a reader that walks the local headers could find entries there that "
                "the central directory does not list"
            )

    def _cap(self, name: str) -> int:
        if name in (DOCUMENT_NAME, MANIFEST_NAME):
            return min(self.limits.max_asset_bytes, self.limits.max_document_bytes)
        return self.limits.max_asset_bytes

    @staticmethod
    def _check_entry(info: zipfile.ZipInfo) -> None:
        name = info.filename
        if info.orig_filename != name:
            # zipfile cuts names at NUL (and maps os.sep): the stored name is not what it shows
            raise _refuse(f"entry name {_q(info.orig_filename)} contains a NUL character")
        if not (info.flag_bits & 0x800) and not name.isascii():
            raise _refuse(f"entry name {_q(name)} is not ASCII and not marked as UTF-8")
        if name not in (DOCUMENT_NAME, MANIFEST_NAME):
            problem = check_asset_name(name)
            if problem is not None:
                if name.endswith("/"):
                    problem = "directory entries are not allowed (the manifest lists files only)"
                raise _refuse(f"entry {_q(name)} is refused: {problem}")
        pointer = _asset_pointer(name) if name.startswith(ASSETS_DIR) else None
        _check_flags(name, info.flag_bits, "central directory record", pointer)
        mode = info.external_attr >> 16
        if info.create_system == _UNIX and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            kind = "a symbolic link" if stat.S_ISLNK(mode) else (
                "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            )
            raise _refuse(f"entry {_q(name)} is {kind}; packages hold regular files only", pointer)
        if info.external_attr & 0x10:  # MS-DOS directory attribute
            raise _refuse(f"entry {_q(name)} is marked as a directory", pointer)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _refuse(
                f"entry {_q(name)} uses compression method {info.compress_type}; only stored "
                "and deflated entries are read",
                pointer,
            )

    def inflate(
        self, name: str, expected: int | None, pointer: str | None, keep: bool
    ) -> tuple[bytes, str, int]:
        """Inflate one entry in chunks, never past ``expected``, its declared size or the limits.

        Returns (bytes if ``keep`` else b"", hex sha256, size).  The size is counted here, on
        the inflated stream.  The compressed bytes are read straight from the archive (where
        :meth:`_check_layout` found them), and a deflate stream must end exactly at the entry's
        compressed size: bytes after its end would be read as the next header by a reader that
        follows the stream.  The CRC-32 is checked at the end.
        """
        info = self.by_name[name]
        bound = min(self._cap(name), info.file_size)
        if expected is not None:
            bound = min(bound, expected)
        inflater = _inflater(info.compress_type)
        digest = hashlib.sha256()
        crc = 0
        chunks: list[bytes] = []
        size = 0
        left = info.compress_size
        position = self.data_start[name]
        pending = b""
        try:
            while True:
                if not pending and left:
                    self.fh.seek(position)
                    pending = self.fh.read(min(_CHUNK, left))
                    if not pending:
                        raise _refuse(
                            f"entry {_q(name)} is truncated: the archive ends inside its data",
                            pointer,
                        )
                    position += len(pending)
                    left -= len(pending)
                want = bound - size + 1  # one byte past the bound is enough to know it is passed
                want = max(1, min(_CHUNK, want))
                if inflater is None:
                    chunk, pending = pending[:want], pending[want:]
                elif inflater.eof:
                    chunk = b""
                else:
                    chunk = inflater.decompress(pending, want)
                    pending = inflater.unconsumed_tail
                if not chunk:
                    if inflater is None or inflater.eof or (not pending and not left):
                        break
                    continue
                size += len(chunk)
                self.inflated += len(chunk)
                self._count(name, size, expected, info.file_size, pointer)
                digest.update(chunk)
                crc = zlib.crc32(chunk, crc)
                if keep:
                    chunks.append(chunk)
        except NuifError:
            raise
        except zlib.error as exc:
            raise _refuse(f"entry {_q(name)} is corrupt: {exc}", pointer) from exc
        if inflater is not None:
            if not inflater.eof:
                raise _refuse(
                    f"entry {_q(name)} is corrupt: its deflate stream is cut short", pointer
                )
            trailing = len(inflater.unused_data) + len(pending) + left
            if trailing:
                raise _refuse(
                    f"entry {_q(name)} has {trailing} bytes after the end of its deflate stream "
                    "inside its compressed size; a reader that follows the stream would read "
                    "them as the next header",
                    pointer,
                )
        if size != info.file_size:
            raise _refuse(
                f"entry {_q(name)} inflates to {size} bytes but its headers declare "
                f"{info.file_size}",
                pointer,
            )
        if crc != info.CRC:
            raise _refuse(
                f"entry {_q(name)} is corrupt: its CRC-32 is {crc:08x} but its headers declare "
                f"{info.CRC:08x}",
                pointer,
            )
        return b"".join(chunks), digest.hexdigest(), size

    def _count(
        self, name: str, size: int, expected: int | None, declared: int, pointer: str | None
    ) -> None:
        """Refuse as soon as an inflating entry passes a limit, the manifest or its headers."""
        cap = self._cap(name)
        if size > cap:
            raise _limit(f"entry {_q(name)} inflates past the limit of {cap} bytes", pointer)
        if self.inflated > self.limits.max_package_bytes:
            raise _limit(
                f"the entries inflate past the limit of {self.limits.max_package_bytes} bytes "
                "in all",
                pointer,
            )
        if expected is not None and size > expected:
            raise _refuse(
                f"entry {_q(name)} inflates to more than the {expected} bytes the manifest "
                "declares",
                pointer,
            )
        if size > declared:
            raise _refuse(
                f"entry {_q(name)} inflates to more than the {declared} bytes its headers declare",
                pointer,
            )

    def manifest(self) -> tuple[dict[str, Any], bytes]:
        data, _, _ = self.inflate(MANIFEST_NAME, None, None, keep=True)
        try:
            value = loads(data, limits=self.limits)
        except NuifError as err:
            raise NuifError(
                "NUIF_PACKAGE",
                f"manifest.json is not strict JSON: {err.code}: {err.message}",
                line=err.line,
                column=err.column,
            ) from err
        _check_manifest_shape(value, self.limits)
        if dumps(value, limits=self.limits) != data:
            raise _refuse("manifest.json is not canonical JSON (RFC 8785)")
        listed = value["assets"]
        present = sorted((n for n in self.by_name if n.startswith(ASSETS_DIR)), key=_sort_key)
        for name in present:
            if name not in listed:
                raise _refuse(f"entry {_q(name)} is not listed in manifest.json")
        for name in sorted(listed, key=_sort_key):
            pointer = _asset_pointer(name)
            if name not in self.by_name:
                raise _refuse(f"manifest.json lists {_q(name)} but the archive has no such entry", pointer)
            declared = self.by_name[name].file_size
            if declared != listed[name]["bytes"]:
                raise _refuse(
                    f"entry {_q(name)} is {declared} bytes in the archive but "
                    f"{listed[name]['bytes']} in manifest.json",
                    pointer,
                )
        return value, data

    def document(self, manifest: Mapping[str, Any]) -> tuple[bytes, str]:
        data, _, _ = self.inflate(DOCUMENT_NAME, None, "/document", keep=True)
        try:
            result = canonicalize(data, limits=self.limits)
        except NuifError as err:
            raise NuifError(
                "NUIF_PACKAGE",
                f"document.json is not a valid NUIF document: {err.code}: {err.message}"
                + (f" (at {err.pointer or '/'})" if err.pointer is not None else ""),
                pointer="/document",
                line=err.line,
                column=err.column,
            ) from err
        if result.changed:
            raise _refuse("document.json is not canonical", "/document")
        if result.hash != manifest["document"]:
            raise _refuse(
                f"document.json hashes to {result.hash} but manifest.json says "
                f"{manifest['document']}",
                "/document",
            )
        return data, result.hash

    def assets(self, manifest: Mapping[str, Any], keep: bool) -> Iterator[tuple[str, bytes]]:
        listed = manifest["assets"]
        for name in sorted(listed, key=_sort_key):
            pointer = _asset_pointer(name)
            expected = listed[name]["bytes"]
            data, digest, size = self.inflate(name, expected, pointer, keep)
            if size != expected:
                raise _refuse(
                    f"entry {_q(name)} inflates to {size} bytes but manifest.json says {expected}",
                    pointer,
                )
            if digest != listed[name]["sha256"]:
                raise _refuse(
                    f"entry {_q(name)} has sha256 {digest} but manifest.json says "
                    f"{listed[name]['sha256']}",
                    pointer,
                )
            yield name, data


def _check_manifest_shape(value: Any, limits: Limits) -> None:
    if not isinstance(value, dict):
        raise _refuse("manifest.json is not a JSON object")
    expected = {"nuif_package", "document", "assets"}
    for key in value:
        if key not in expected:
            raise _refuse(f"manifest.json has an unknown member {key!r}", "/" + escape_pointer(key))
    for key in sorted(expected - set(value)):
        raise _refuse(f"manifest.json has no {key!r} member", "/" + key)
    version = value["nuif_package"]
    if isinstance(version, bool) or version != 0:
        raise _refuse(
            f"manifest.json declares nuif_package {version!r}; this reader knows version 0",
            "/nuif_package",
        )
    document = value["document"]
    if not isinstance(document, str) or not _DOCUMENT_HASH.fullmatch(document):
        raise _refuse('manifest.json "document" is not a "sha256:<64 hex>" hash', "/document")
    assets = value["assets"]
    if not isinstance(assets, dict):
        raise _refuse('manifest.json "assets" is not an object', "/assets")
    total = 0
    for name, entry in assets.items():
        pointer = _asset_pointer(name)
        problem = check_asset_name(name)
        if problem is not None:
            raise _refuse(f"manifest.json lists {_q(name)}, which is refused: {problem}", pointer)
        if not isinstance(entry, dict) or set(entry) != {"sha256", "bytes"}:
            raise _refuse(
                f'manifest.json entry {_q(name)} is not {{"bytes": n, "sha256": hex}}', pointer
            )
        digest, size = entry["sha256"], entry["bytes"]
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise _refuse(f"manifest.json entry {_q(name)} has no lowercase hex sha256", pointer + "/sha256")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise _refuse(f"manifest.json entry {_q(name)} has no byte count", pointer + "/bytes")
        if size > limits.max_asset_bytes:
            raise _limit(
                f"manifest.json declares {size} bytes for {_q(name)}; the limit is "
                f"{limits.max_asset_bytes}",
                pointer + "/bytes",
            )
        total += size
        if total > limits.max_package_bytes:
            raise _limit(f"manifest.json declares more than {limits.max_package_bytes} bytes of assets")


def _run(
    src: Source, limits: Limits | None, keep: bool
) -> tuple[_Reader, dict[str, Any], bytes, bytes, str, dict[str, bytes]]:
    lim = _limits(limits)
    fh, owned = _open_source(src)
    try:
        _check_end_record(fh, lim)
        try:
            zf = zipfile.ZipFile(fh)
        except NuifError:
            raise
        except _ZIP_ERRORS as exc:
            raise _refuse(f"not a readable ZIP archive: {exc}") from exc
        except OSError as exc:
            if not _points_outside(exc):
                raise
            raise _refuse("not a readable ZIP archive: it points outside itself") from exc
        with zf:
            reader = _Reader(zf, lim)
            manifest, manifest_bytes = reader.manifest()
            document, doc_hash = reader.document(manifest)
            assets = dict(reader.assets(manifest, keep))
    finally:
        if owned:
            fh.close()
    return reader, manifest, manifest_bytes, document, doc_hash, assets


def read(src: Source, *, limits: Limits | None = None) -> Package:
    """Read and verify a package; everything is checked before anything is returned.

    ``src`` is the archive's bytes, a path (``str`` or path-like: a ``str`` is always a path)
    or a seekable binary file object.  The whole content is held in memory, bounded by
    ``limits.max_package_bytes``; use :func:`verify` to check a package without keeping it.
    """
    _, manifest, manifest_bytes, document, doc_hash, assets = _run(src, limits, keep=True)
    return Package(
        document=document,
        hash=doc_hash,
        manifest=_frozen(manifest),
        assets=MappingProxyType(assets),
        manifest_bytes=manifest_bytes,
    )


def verify(src: Source, *, limits: Limits | None = None) -> PackageSummary:
    """Verify a package (the same checks as :func:`read`) while keeping only one chunk of each
    asset in memory at a time.  Raises :class:`NuifError` on the first problem."""
    reader, manifest, _, _, doc_hash, _ = _run(src, limits, keep=False)
    return PackageSummary(
        hash=doc_hash,
        manifest=_frozen(manifest),
        entries=reader.entries,
        total_bytes=reader.inflated,
    )


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    return value


def unpack(
    src: Source,
    dest_dir: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
) -> Package:
    """Verify a package and write it into ``dest_dir``, which must not exist or be empty.

    The package is verified completely first, then written into a fresh temporary directory
    next to ``dest_dir`` (same parent, so same file system), each file synced, and the
    directory renamed to ``dest_dir`` at the end.  A failure at any point removes the
    temporary directory: ``dest_dir`` is either absent (or left empty) or complete, and nothing
    is ever written outside the temporary directory.  Returns the verified :class:`Package`.
    """
    dest = Path(os.fspath(dest_dir))
    if dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir()))):
        raise FileExistsError(f"{str(dest)!r} exists and is not an empty directory")
    package = read(src, limits=limits)
    parent = dest.parent if str(dest.parent) else Path(".")
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".nuif-tmp", dir=parent))
    try:
        files: list[tuple[str, bytes]] = [
            (DOCUMENT_NAME, package.document),
            (MANIFEST_NAME, package.manifest_bytes),
            *package.assets.items(),
        ]
        made: set[Path] = {tmp}
        for name, data in files:
            target = tmp.joinpath(*name.split("/"))
            # the name passed check_asset_name; this re-checks the containment on disk anyway
            if tmp not in target.parents:
                raise _refuse(f"entry {_q(name)} would be written outside the target")
            for folder in reversed(target.parents):
                if folder not in made and tmp in folder.parents:
                    os.mkdir(folder, 0o755)
                    made.add(folder)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            flags |= getattr(os, "O_BINARY", 0)
            fd = os.open(target, flags, 0o644)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
        os.chmod(tmp, 0o755)
        if dest.exists():
            dest.rmdir()  # empty (checked above); rename cannot replace a directory everywhere
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_dir(parent)
    return package


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

