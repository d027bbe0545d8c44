"""The ZIP structure of a ``.nuif`` package, checked byte for byte before anything is inflated.

This is not a public API.  :class:`ZipEntries` reads the central directory (bounded first by
:func:`check_end_record`), checks every entry's name, type, flags and extra fields, and walks the
local headers to prove that they agree with the central directory and fill the archive without
a gap; ``_package_read`` inflates the entries it found.
"""

from __future__ import annotations

import errno
import io
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO, Any

from ._limits import Limits
from ._package_names import (
    ASSETS_DIR,
    DOCUMENT_NAME,
    MANIFEST_NAME,
    MAX_NAME_BYTES,
    NameSet,
    asset_pointer,
    check_asset_name,
    over_limit,
    quote_entry,
    refuse,
)

__all__ = [
    "UNIX",
    "ZIP_ERRORS",
    "ZipEntries",
    "check_end_record",
    "check_flags",
    "new_inflater",
    "points_outside",
]

#: "made by" host system: Unix (3), so that the mode bits above are meaningful to readers
UNIX = 3
#: bytes of one central directory record we accept on average (fixed part + name + extras); it
#: bounds the central directory that must be parsed before the entry count is known
_MAX_CENTRAL_RECORD = 46 + MAX_NAME_BYTES + 256


def check_end_record(fh: IO[bytes], limits: Limits) -> None:
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
        raise refuse("not a ZIP archive (no end of central directory record)")
    # readers look for this record from the end in different ways (the last signature, the last
    # one whose comment fits, the first...): it must be the only one that ends the file exactly
    (comment_len,) = struct.unpack_from("<H", tail, at + 20)
    if at + 22 + comment_len != len(tail):
        raise refuse(
            f"the end of central directory record declares a {comment_len}-byte comment but "
            f"{len(tail) - at - 22} bytes follow it; readers would disagree on where the "
            "archive ends"
        )
    other = tail.rfind(b"PK\x05\x06", 0, at)
    while other >= 0:
        (n,) = struct.unpack_from("<H", tail, other + 20)
        if other + 22 + n == len(tail):
            raise refuse(
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
        raise over_limit(
            f"the archive declares {count} entries; the limit is {limits.max_package_entries}"
        )
    if cd_size > limits.max_package_entries * _MAX_CENTRAL_RECORD:
        raise over_limit(
            f"the archive's central directory is {cd_size} bytes, more than "
            f"{limits.max_package_entries} entries can need"
        )
    fh.seek(0)


ZIP_ERRORS = (
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


def new_inflater(method: int) -> Any:
    """A raw deflate decompressor for a deflated entry, ``None`` for a stored one."""
    return zlib.decompressobj(-zlib.MAX_WBITS) if method == zipfile.ZIP_DEFLATED else None


def points_outside(exc: OSError) -> bool:
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
            raise refuse(
                f"entry {quote_entry(name)} has {len(raw) - pos} stray bytes at the end of the "
                "extra field "
                f"of its {where}",
                pointer,
            )
        tag, size = struct.unpack_from("<HH", raw, pos)
        if pos + 4 + size > len(raw):
            raise refuse(
                f"entry {quote_entry(name)} has an extra field record 0x{tag:04x} that runs past "
                "the extra "
                f"field of its {where}",
                pointer,
            )
        if tag in fields:
            raise refuse(
                f"entry {quote_entry(name)} has two extra field records 0x{tag:04x} in its "
                f"{where}; "
                "readers would take different ones",
                pointer,
            )
        if tag not in _EXTRAS_ALLOWED:
            what = _EXTRAS_REFUSED.get(tag, "unknown to this reader")
            raise refuse(
                f"entry {quote_entry(name)} has an extra field 0x{tag:04x} ({what}) in its "
                f"{where}; a "
                "package entry may carry ZIP64, timestamp, owner and padding fields only",
                pointer,
            )
        fields[tag] = raw[pos + 4 : pos + 4 + size]
        pos += 4 + size
    return fields


def check_flags(name: str, flags: int, where: str, pointer: str | None) -> None:
    if flags & _FLAG_ENCRYPTED:
        raise refuse(
            f"entry {quote_entry(name)} is encrypted (general-purpose flag bit 0 in its {where}); "
            "packages hold plain entries only",
            pointer,
        )
    extra = flags & ~_FLAGS_ALLOWED
    if extra:
        bit = (extra & -extra).bit_length() - 1
        what = _FLAG_MEANING.get(bit, "reserved")
        raise refuse(
            f"entry {quote_entry(name)} sets general-purpose flag bit {bit} ({what}) in its "
            f"{where}; "
            "only bits 1-3 and 11 are allowed",
            pointer,
        )


def _name_for_message(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


class ZipEntries:
    """The entries of an archive, checked: names, types, flags, sizes against the limits, and
    the layout of the local headers (``data_start``: where each entry's data begins)."""

    def __init__(self, zf: zipfile.ZipFile, limits: Limits) -> None:
        self.zf = zf
        self.fh: IO[bytes] = zf.fp  # type: ignore[assignment]
        self.limits = limits
        self.inflated = 0
        infos = zf.infolist()
        if len(infos) > limits.max_package_entries:
            raise over_limit(
                f"the archive has {len(infos)} entries; the limit is {limits.max_package_entries}"
            )
        self.entries = len(infos)
        self.by_name: dict[str, zipfile.ZipInfo] = {}
        names = NameSet()
        declared = 0
        for info in infos:
            name = info.filename
            self._check_entry(info)
            pointer = asset_pointer(name) if name.startswith(ASSETS_DIR) else None
            names.add(name, pointer)
            cap = self._cap(name)
            if info.file_size > cap:
                raise over_limit(
                    f"entry {quote_entry(name)} declares {info.file_size} bytes; the limit is "
                    f"{cap}",
                    pointer,
                )
            declared += info.file_size
            if declared > limits.max_package_bytes:
                raise over_limit(
                    f"the entries declare more than {limits.max_package_bytes} bytes in all"
                )
            self.by_name[name] = info
        for required in (MANIFEST_NAME, DOCUMENT_NAME):
            if required not in self.by_name:
                raise refuse(f"the archive has no {required}")
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
            pointer = asset_pointer(name) if name.startswith(ASSETS_DIR) else None
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
                raise refuse(
                    f"entry {quote_entry(name)} has a size or offset of 0xFFFFFFFF in its central "
                    "directory record but no ZIP64 extra field",
                    pointer,
                )
            if zip64 is not None and len(zip64) != want:
                raise refuse(
                    f"entry {quote_entry(name)} has a ZIP64 extra field of {len(zip64)} bytes in "
                    "its "
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
                raise refuse(
                    f"entry {quote_entry(name)} is on disk {disk} of a split archive; a package "
                    "is one file",
                    pointer,
                )
            headers.append(_Header(flags, method, crc, csize, usize, raw_name, zip64 is not None))
        return headers

    def _local_header(self, name: str, offset: int, pointer: str | None) -> tuple[_Header, int]:
        """The local header at ``offset``, ZIP64 fields resolved; and where its data starts."""
        self.fh.seek(offset)
        fixed = self.fh.read(_LOCAL.size)
        if len(fixed) != _LOCAL.size or fixed[:4] != _LOCAL_SIG:
            raise refuse(
                f"entry {quote_entry(name)} has no local header at byte {offset}, where its "
                "central "
                "directory record points",
                pointer,
            )
        (_, _, flags, method, _, _, crc, csize, usize, nlen, elen) = _LOCAL.unpack(fixed)
        raw_name = self.fh.read(nlen)
        raw_extra = self.fh.read(elen)
        if len(raw_name) != nlen or len(raw_extra) != elen:
            raise refuse(f"entry {quote_entry(name)} has a truncated local header", pointer)
        check_flags(name, flags, "local header", pointer)
        zip64 = _extra_fields(raw_extra, name, "local header", pointer).get(_EXTRA_ZIP64)
        if zip64 is not None:
            # a local ZIP64 field holds both sizes; a 32-bit field that is not 0xFFFFFFFF must
            # say the same, or readers that prefer one or the other disagree
            if len(zip64) != 16:
                raise refuse(
                    f"entry {quote_entry(name)} has a ZIP64 extra field of {len(zip64)} bytes in "
                    "its local "
                    "header; a local header's holds both sizes, 16 bytes",
                    pointer,
                )
            wide_usize, wide_csize = struct.unpack("<QQ", zip64)
            for short, wide in ((usize, wide_usize), (csize, wide_csize)):
                if short not in (_MAX32, wide):
                    raise refuse(
                        f"entry {quote_entry(name)} has a size of {short} in its local header and "
                        f"{wide} in that header's ZIP64 field; readers would disagree",
                        pointer,
                    )
            usize, csize = wide_usize, wide_csize
        elif _MAX32 in (usize, csize):
            raise refuse(
                f"entry {quote_entry(name)} has a size of 0xFFFFFFFF in its local header but no "
                "ZIP64 "
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
        raise refuse(
            f"entry {quote_entry(name)} has a data descriptor (flag bit 3) that does not repeat "
            "the "
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
            pointer = asset_pointer(name) if name.startswith(ASSETS_DIR) else None
            offset = info.header_offset
            if offset != expected:
                if previous is None:
                    problem = (
                        f"{offset} bytes come before the first entry, {quote_entry(name)}"
                        if offset > 0
                        else f"entry {quote_entry(name)} starts before the archive"
                    )
                elif offset > expected:
                    problem = (
                        f"{offset - expected} bytes between entries {quote_entry(previous)} and "
                        f"{quote_entry(name)} belong to no entry"
                    )
                else:
                    problem = (
                        f"entry {quote_entry(name)} starts inside entry {quote_entry(previous)}"
                    )
                raise refuse(
                    f"{problem}; a reader that walks the local headers could find entries there "
                    "that the central directory does not list",
                    pointer,
                )
            local, data_start = self._local_header(name, offset, pointer)
            end = self._check_local(name, central, local, data_start, pointer)
            self.data_start[name] = data_start
            expected, previous = end, name
        start_dir = self.zf.start_dir
        if expected != start_dir:
            last = quote_entry(previous) if previous is not None else "(none)"
            if expected < start_dir:
                problem = (
                    f"{start_dir - expected} bytes between the last entry, {last}, and the "
                    "central directory belong to no entry"
                )
            else:
                problem = f"the last entry, {last}, runs into the central directory"
            raise refuse(
                f"{problem}; a reader that walks the local headers could find entries there that "
                "the central directory does not list"
            )

    def _check_local(
        self, name: str, central: _Header, local: _Header, data_start: int, pointer: str | None
    ) -> int:
        """The local header must say what the central directory record says (flags, name,
        method, CRC-32 and sizes, or a data descriptor that repeats them); returns where the
        entry ends."""
        if local.flags != central.flags:
            raise refuse(
                f"entry {quote_entry(name)} has general-purpose flags 0x{local.flags:04x} in its "
                "local "
                f"header but 0x{central.flags:04x} in its central directory record; readers "
                "that use one or the other would read it differently",
                pointer,
            )
        if local.name != central.name:
            raise refuse(
                f"entry {quote_entry(name)} is named {quote_entry(_name_for_message(local.name))} "
                "in its local "
                "header",
                pointer,
            )
        if local.method != central.method:
            raise refuse(
                f"entry {quote_entry(name)} has compression method {local.method} in its local "
                "header "
                f"but {central.method} in its central directory record",
                pointer,
            )
        fields = (central.crc, central.csize, central.usize)
        declared = (local.crc, local.csize, local.usize)
        end = data_start + central.csize
        if central.flags & _FLAG_DESCRIPTOR:
            if central.method == zipfile.ZIP_STORED:
                raise refuse(
                    f"entry {quote_entry(name)} is stored with a data descriptor (flag bit 3): "
                    "its end "
                    "can only be found by searching its data for a signature",
                    pointer,
                )
            # the local fields may be zero ("see the descriptor") or the values themselves
            if any(mine not in (0, theirs) for mine, theirs in zip(declared, fields, strict=True)):
                raise refuse(
                    f"entry {quote_entry(name)} has CRC-32 and sizes {declared} in its local "
                    "header "
                    f"but {fields} in its central directory record",
                    pointer,
                )
            end += self._descriptor_length(name, central, local, end, pointer)
        elif declared != fields:
            raise refuse(
                f"entry {quote_entry(name)} has CRC-32 and sizes {declared} in its local header "
                "but "
                f"{fields} in its central directory record",
                pointer,
            )
        if central.method == zipfile.ZIP_STORED and central.csize != central.usize:
            raise refuse(
                f"entry {quote_entry(name)} is stored but its compressed size ({central.csize}) "
                "is not "
                f"its size ({central.usize})",
                pointer,
            )
        return end

    def _cap(self, name: str) -> int:
        if name in (DOCUMENT_NAME, MANIFEST_NAME):
            return min(self.limits.max_asset_bytes, self.limits.max_document_bytes)
        return self.limits.max_asset_bytes

    @staticmethod
    def _check_entry(info: zipfile.ZipInfo) -> None:
        name = info.filename
        if info.orig_filename != name:
            # zipfile cuts names at NUL (and maps os.sep): the stored name is not what it shows
            raise refuse(f"entry name {quote_entry(info.orig_filename)} contains a NUL character")
        if not (info.flag_bits & 0x800) and not name.isascii():
            raise refuse(f"entry name {quote_entry(name)} is not ASCII and not marked as UTF-8")
        if name not in (DOCUMENT_NAME, MANIFEST_NAME):
            problem = check_asset_name(name)
            if problem is not None:
                if name.endswith("/"):
                    problem = "directory entries are not allowed (the manifest lists files only)"
                raise refuse(f"entry {quote_entry(name)} is refused: {problem}")
        pointer = asset_pointer(name) if name.startswith(ASSETS_DIR) else None
        check_flags(name, info.flag_bits, "central directory record", pointer)
        mode = info.external_attr >> 16
        if info.create_system == UNIX and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            kind = (
                "a symbolic link"
                if stat.S_ISLNK(mode)
                else ("a directory" if stat.S_ISDIR(mode) else "not a regular file")
            )
            raise refuse(
                f"entry {quote_entry(name)} is {kind}; packages hold regular files only", pointer
            )
        if info.external_attr & 0x10:  # MS-DOS directory attribute
            raise refuse(f"entry {quote_entry(name)} is marked as a directory", pointer)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise refuse(
                f"entry {quote_entry(name)} uses compression method {info.compress_type}; only "
                "stored "
                "and deflated entries are read",
                pointer,
            )
