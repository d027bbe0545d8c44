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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Union

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
    from . import canonicalize  # late: the package module is imported by nuif_core itself

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
    from . import dumps

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


def _points_outside(exc: OSError) -> bool:
    """A seek before the start of a real file (a corrupt offset), not an I/O failure."""
    return exc.errno == errno.EINVAL


class _Reader:
    """The checks shared by :func:`read`, :func:`verify` and :func:`unpack`."""

    def __init__(self, zf: zipfile.ZipFile, limits: Limits) -> None:
        self.zf = zf
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
        if info.flag_bits & 0x1:
            raise _refuse(f"entry {_q(name)} is encrypted")
        if name not in (DOCUMENT_NAME, MANIFEST_NAME):
            problem = check_asset_name(name)
            if problem is not None:
                if name.endswith("/"):
                    problem = "directory entries are not allowed (the manifest lists files only)"
                raise _refuse(f"entry {_q(name)} is refused: {problem}")
        pointer = _asset_pointer(name) if name.startswith(ASSETS_DIR) else None
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

    def inflate(self, name: str, expected: int | None, pointer: str | None, keep: bool) -> tuple[bytes, str, int]:
        """Inflate one entry in chunks, never past ``expected`` or the limits.

        Returns (bytes if ``keep`` else b"", hex sha256, size).  The size is counted here, on
        the inflated stream, whatever the archive declares.
        """
        info = self.by_name[name]
        cap = self._cap(name)
        digest = hashlib.sha256()
        chunks: list[bytes] = []
        size = 0
        try:
            with self.zf.open(info) as stream:
                while True:
                    want = _CHUNK
                    if expected is not None:
                        want = min(want, expected - size + 1)
                    want = min(want, cap - size + 1)
                    chunk = stream.read(max(want, 1))
                    if not chunk:
                        break
                    size += len(chunk)
                    self.inflated += len(chunk)
                    if size > cap:
                        raise _limit(
                            f"entry {_q(name)} inflates past the limit of {cap} bytes", pointer
                        )
                    if self.inflated > self.limits.max_package_bytes:
                        raise _limit(
                            f"the entries inflate past the limit of "
                            f"{self.limits.max_package_bytes} bytes in all",
                            pointer,
                        )
                    if expected is not None and size > expected:
                        raise _refuse(
                            f"entry {_q(name)} inflates to more than the {expected} bytes the "
                            "manifest declares",
                            pointer,
                        )
                    digest.update(chunk)
                    if keep:
                        chunks.append(chunk)
        except NuifError:
            raise
        except _ZIP_ERRORS as exc:
            raise _refuse(f"entry {_q(name)} is corrupt: {exc}", pointer) from exc
        except OSError as exc:
            if not _points_outside(exc):
                raise
            raise _refuse(f"entry {_q(name)} is corrupt: it points outside the archive", pointer) from exc
        return b"".join(chunks), digest.hexdigest(), size

    def manifest(self) -> tuple[dict[str, Any], bytes]:
        from . import dumps, loads

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
        from . import canonicalize

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

