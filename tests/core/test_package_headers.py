"""The local headers of a package must say what its central directory says.

``zipfile`` reads the central directory and, of each local header, only the name; tools that
stream an archive read the local headers only.  An archive on which the two disagree (an entry
encrypted only in its local header, other sizes, another name, bytes between entries that a
streaming reader would take for another entry) is read differently by different tools, so the
reader refuses it.  Each rule has a test on an archive built here byte by byte: the test
asserts the code, the entry named in the message, the rule, and that nothing is written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

import nuif_core
from nuif_core import NuifError, package

DOC = '{"nuif": 0, "root": {"id": "home", "kind": "screen"}}'
CANONICAL = nuif_core.canonicalize(DOC).canonical
HASH = nuif_core.canonicalize(DOC).hash
LOGO = bytes(range(256)) * 8 + b"\x00" * 4096
NOTE = b"unicode names are flagged UTF-8 (bit 11)"
ASSETS = {"assets/logo.png": LOGO, "assets/é.txt": NOTE}

UT = struct.pack("<HHBL", 0x5455, 5, 1, 0x5F000000)  # extended timestamp, as Info-ZIP writes
UX = struct.pack("<HHBBLBL", 0x7875, 11, 1, 4, 1000, 4, 1000)  # Unix owner, as Info-ZIP writes


def deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


@dataclass
class Entry:
    """One entry as it will be written; the ``local_*`` fields override what the local header
    says (by default the same as the central directory record)."""

    name: str
    data: bytes
    method: int = 8
    flags: int = -1  # -1: 0x800 for a non-ASCII name, else 0
    payload: bytes | None = None  # the bytes stored after the local header (default: deflated)
    crc: int | None = None
    csize: int | None = None
    usize: int | None = None
    central_extra: bytes = b""
    central_disk: int = 0
    local_flags: int | None = None
    local_method: int | None = None
    local_crc: int | None = None
    local_csize: int | None = None
    local_usize: int | None = None
    local_name: bytes | None = None
    local_extra: bytes = b""
    descriptor: bytes = b""  # written after the payload
    after: bytes = b""  # bytes after this entry (before the next local header)

    def resolved(self) -> Entry:
        e = dataclasses.replace(self)
        if e.flags < 0:
            e.flags = 0 if e.name.isascii() else 0x800
        if e.payload is None:
            e.payload = deflate(e.data) if e.method == 8 else e.data
        e.crc = zlib.crc32(e.data) if e.crc is None else e.crc
        e.csize = len(e.payload) if e.csize is None else e.csize
        e.usize = len(e.data) if e.usize is None else e.usize
        return e


def build(
    entries: list[Entry], *, prefix: bytes = b"", comment: bytes = b"", trailer: bytes = b""
) -> bytes:
    """The archive: ``prefix``, each entry (local header, payload, descriptor, ``after``), the
    central directory, the end record with ``comment``, then ``trailer``."""
    out = bytearray(prefix)
    central = bytearray()
    offsets: dict[str, int] = {}
    for raw in entries:
        e = raw.resolved()
        name = e.name.encode()
        lname = e.local_name if e.local_name is not None else name
        lflags = e.flags if e.local_flags is None else e.local_flags
        offsets[e.name] = len(out) - len(prefix)
        out += struct.pack(
            "<4s5H3L2H",
            b"PK\x03\x04",
            20,
            lflags,
            e.method if e.local_method is None else e.local_method,
            0,
            0x21,
            e.crc if e.local_crc is None else e.local_crc,
            e.csize if e.local_csize is None else e.local_csize,
            e.usize if e.local_usize is None else e.local_usize,
            len(lname),
            len(e.local_extra),
        )
        out += lname + e.local_extra + e.payload + e.descriptor + e.after
        central += struct.pack(
            "<4s4B4H3L5H2L",
            b"PK\x01\x02",
            20,
            3,
            20,
            0,
            e.flags,
            e.method,
            0,
            0x21,
            e.crc,
            e.csize,
            e.usize,
            len(name),
            len(e.central_extra),
            0,
            e.central_disk,
            0,
            0o100644 << 16,
            offsets[e.name],
        )
        central += name + e.central_extra
    cd_offset = len(out) - len(prefix)
    end = struct.pack(
        "<4s4H2LH",
        b"PK\x05\x06",
        0,
        0,
        len(entries),
        len(entries),
        len(central),
        cd_offset,
        len(comment),
    )
    return bytes(out + central + end + comment + trailer)


def manifest(assets: dict[str, bytes]) -> bytes:
    return nuif_core.dumps(
        {
            "nuif_package": 0,
            "document": HASH,
            "assets": {
                n: {"sha256": hashlib.sha256(d).hexdigest(), "bytes": len(d)}
                for n, d in assets.items()
            },
        }
    )


def entries(**changes: dict[str, object]) -> list[Entry]:
    """The entries of a valid package; ``changes`` maps an entry name (``logo`` for
    assets/logo.png, ``note``, ``document``, ``manifest``) to the fields to change."""
    made = {
        "document": Entry("document.json", CANONICAL),
        "manifest": Entry("manifest.json", manifest(ASSETS)),
        "logo": Entry("assets/logo.png", LOGO),
        "note": Entry("assets/é.txt", NOTE),
    }
    for key, fields in changes.items():
        made[key] = dataclasses.replace(made[key], **fields)
    return list(made.values())


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def refused(data: bytes, tmp_path: Path, entry: str | None, *rule: str) -> NuifError:
    """read, verify and unpack refuse ``data`` with NUIF_PACKAGE, the same message naming
    ``entry`` (repr) and every fragment of ``rule``; unpack writes nothing."""
    messages = []
    for fn in (lambda: package.read(data), lambda: package.verify(io.BytesIO(data))):
        with pytest.raises(NuifError) as info:
            fn()
        assert info.value.code == "NUIF_PACKAGE", info.value
        messages.append(info.value.message)
    (tmp_path / "pkg.nuif").write_bytes(data)
    (tmp_path / "work").mkdir()
    with pytest.raises(NuifError) as info:
        package.unpack(tmp_path / "pkg.nuif", tmp_path / "work" / "out")
    messages.append(info.value.message)
    assert listing(tmp_path) == ["pkg.nuif", "work"]
    assert len(set(messages)) == 1, messages
    message = messages[0]
    if entry is not None:
        assert repr(entry) in message, message
    for fragment in rule:
        assert fragment in message, message
    return info.value


def accepted(data: bytes, tmp_path: Path) -> None:
    pkg = package.read(data)
    assert dict(pkg.assets) == ASSETS
    package.unpack(data, tmp_path / "out")
    assert (tmp_path / "out" / "assets" / "logo.png").read_bytes() == LOGO


# ---------------------------------------------------------------------------------------------
# the baseline: what this builder writes is accepted, so each refusal below is its change's


def test_the_hand_built_package_is_accepted(tmp_path: Path) -> None:
    accepted(build(entries()), tmp_path)


def test_timestamp_and_owner_extra_fields_are_accepted(tmp_path: Path) -> None:
    # what Info-ZIP's zip writes on Unix: UT in both headers, ux in the local one
    data = build(entries(logo={"local_extra": UT + UX, "central_extra": UT}))
    accepted(data, tmp_path)


def test_an_archive_comment_is_accepted(tmp_path: Path) -> None:
    accepted(build(entries(), comment=b"made by hand"), tmp_path)


@pytest.mark.parametrize("signature", [True, False])
def test_a_deflated_entry_with_a_matching_data_descriptor_is_accepted(
    signature: bool, tmp_path: Path
) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    descriptor = (b"PK\x07\x08" if signature else b"") + struct.pack(
        "<3L", logo.crc, logo.csize, logo.usize
    )
    data = build(
        entries(
            logo={
                "flags": 0x8,
                "local_crc": 0,
                "local_csize": 0,
                "local_usize": 0,
                "descriptor": descriptor,
            }
        )
    )
    accepted(data, tmp_path)


def test_a_data_descriptor_may_leave_the_local_size_in_place(tmp_path: Path) -> None:
    # Info-ZIP's zip writing to a pipe: CRC and compressed size zero, the size known
    logo = Entry("assets/logo.png", LOGO).resolved()
    descriptor = b"PK\x07\x08" + struct.pack("<3L", logo.crc, logo.csize, logo.usize)
    data = build(
        entries(logo={"flags": 0x8, "local_crc": 0, "local_csize": 0, "descriptor": descriptor})
    )
    accepted(data, tmp_path)


def test_zip64_fields_that_agree_with_the_other_header_are_accepted(tmp_path: Path) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    assert logo.csize is not None and logo.usize is not None
    # local: both sizes in the ZIP64 field, 0xFFFFFFFF in the header (Python's force_zip64)
    local64 = struct.pack("<HHQQ", 1, 16, logo.usize, logo.csize)
    # central: only the compressed size is 0xFFFFFFFF, so the ZIP64 field holds it alone
    central64 = struct.pack("<HHQ", 1, 8, logo.csize)
    data = build(
        entries(
            logo={
                "local_extra": local64,
                "local_csize": 0xFFFFFFFF,
                "local_usize": 0xFFFFFFFF,
                "central_extra": central64,
                "csize": 0xFFFFFFFF,
            }
        )
    )
    accepted(data, tmp_path)


def test_packages_python_writes_to_a_pipe_or_with_zip64_are_accepted(tmp_path: Path) -> None:
    class Pipe(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b: bytes) -> int:  # type: ignore[override]
            self.data += b
            return len(b)

    files = {"document.json": CANONICAL, "manifest.json": manifest(ASSETS), **ASSETS}
    for force_zip64 in (False, True):
        pipe = Pipe()  # not seekable: every entry gets a data descriptor
        with zipfile.ZipFile(pipe, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, blob in files.items():
                with zf.open(name, "w", force_zip64=force_zip64) as fh:
                    fh.write(blob)
        assert zipfile.ZipFile(io.BytesIO(bytes(pipe.data))).infolist()[0].flag_bits & 0x8
        assert dict(package.read(bytes(pipe.data)).assets) == ASSETS


# ---------------------------------------------------------------------------------------------
# encryption and flags


def test_an_entry_encrypted_only_in_its_local_header_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"local_flags": 0x1}))
    # the differential: zipfile reads it as a plain entry
    assert zipfile.ZipFile(io.BytesIO(data)).read("assets/logo.png") == LOGO
    err = refused(
        data,
        tmp_path,
        "assets/logo.png",
        "is encrypted (general-purpose flag bit 0 in its local header)",
    )
    assert err.pointer == "/assets/assets~1logo.png"  # the entry's place in the manifest


def test_an_entry_encrypted_only_in_its_central_record_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"flags": 0x1, "local_flags": 0}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "is encrypted (general-purpose flag bit 0 in its central directory record)",
    )


@pytest.mark.parametrize(
    ("bit", "meaning"),
    [
        (6, "strong encryption"),
        (13, "an encrypted central directory"),
        (5, "compressed patched data"),
        (4, "enhanced deflating"),
        (12, "reserved"),
        (15, "reserved"),
    ],
)
def test_flags_that_change_how_an_entry_is_read_are_refused(
    bit: int, meaning: str, tmp_path: Path
) -> None:
    data = build(entries(note={"flags": 0x800 | 1 << bit}))
    refused(
        data,
        tmp_path,
        "assets/é.txt",
        f"sets general-purpose flag bit {bit} ({meaning}) in its central directory record",
    )
    data = build(entries(note={"local_flags": 0x800 | 1 << bit}))
    (tmp_path / "local").mkdir()
    refused(
        data,
        tmp_path / "local",
        "assets/é.txt",
        f"sets general-purpose flag bit {bit} ({meaning}) in its local header",
    )


@pytest.mark.parametrize(
    ("key", "name", "local", "central"),
    [
        ("logo", "assets/logo.png", 0x0008, 0x0000),  # a data descriptor in the local header only
        ("note", "assets/é.txt", 0x0000, 0x0800),  # the UTF-8 flag in the central record only
        ("logo", "assets/logo.png", 0x0800, 0x0000),  # the UTF-8 flag on an ASCII name, locally
        ("logo", "assets/logo.png", 0x0002, 0x0000),  # a deflate option
    ],
)
def test_flags_that_differ_between_the_headers_are_refused(
    key: str, name: str, local: int, central: int, tmp_path: Path
) -> None:
    data = build(entries(**{key: {"flags": central, "local_flags": local}}))
    refused(
        data,
        tmp_path,
        name,
        f"has general-purpose flags 0x{local:04x} in its local header but 0x{central:04x} in its central directory record",
    )


# ---------------------------------------------------------------------------------------------
# method, CRC, sizes, name


def test_a_compression_method_that_differs_between_the_headers_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"local_method": 0}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "has compression method 0 in its local header but 8 in its central directory record",
    )


@pytest.mark.parametrize("fieldname", ["local_crc", "local_csize", "local_usize"])
def test_a_crc_or_size_that_differs_between_the_headers_is_refused(
    fieldname: str, tmp_path: Path
) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    value = {"local_crc": logo.crc, "local_csize": logo.csize, "local_usize": logo.usize}[fieldname]
    assert value is not None
    data = build(entries(logo={fieldname: value + 1}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "in its local header but",
        "in its central directory record",
    )


def test_a_local_header_with_another_name_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"local_name": b"assets/LOGO.png"}))
    refused(data, tmp_path, "assets/logo.png", "is named 'assets/LOGO.png' in its local header")


def test_a_stored_entry_whose_compressed_size_is_not_its_size_is_refused(tmp_path: Path) -> None:
    # 16 bytes after the data, inside the entry: zipfile stops at the size, others may not
    data = build(entries(logo={"method": 0, "payload": LOGO + b"PK\x03\x04hidden!!"}))
    refused(
        data, tmp_path, "assets/logo.png", "is stored but its compressed size", "is not its size"
    )


def test_bytes_after_the_end_of_a_deflate_stream_are_refused(tmp_path: Path) -> None:
    hidden = build([Entry("assets/evil.sh", b"#!/bin/sh\n")])[:-22]  # a local header and more
    data = build(entries(logo={"payload": deflate(LOGO) + hidden}))
    # zipfile reads the entry and its CRC without noticing
    assert zipfile.ZipFile(io.BytesIO(data)).read("assets/logo.png") == LOGO
    refused(data, tmp_path, "assets/logo.png", "bytes after the end of its deflate stream")


def test_a_deflate_stream_cut_short_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"payload": deflate(LOGO)[:-3], "usize": len(LOGO)}))
    refused(data, tmp_path, "assets/logo.png", "is corrupt")


# ---------------------------------------------------------------------------------------------
# extra fields and ZIP64


def test_a_unicode_path_extra_field_is_refused(tmp_path: Path) -> None:
    # Info-ZIP's 0x7075 gives another name to readers that honour it (7-Zip, unzip)
    other = b"../../evil.sh"
    up = struct.pack("<HHBL", 0x7075, 5 + len(other), 1, zlib.crc32(b"assets/logo.png")) + other
    data = build(entries(logo={"local_extra": up}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "extra field 0x7075 (Info-ZIP Unicode path",
        "in its local header",
    )
    data = build(entries(logo={"central_extra": up}))
    (tmp_path / "c").mkdir()
    refused(
        data,
        tmp_path / "c",
        "assets/logo.png",
        "extra field 0x7075",
        "in its central directory record",
    )


@pytest.mark.parametrize(
    ("extra", "rule"),
    [
        (struct.pack("<HH", 0x4242, 0), "extra field 0x4242 (unknown to this reader)"),
        (struct.pack("<HH", 0x756E, 0), "ASi Unix, which can make the entry a link"),
        (UT + UT, "two extra field records 0x5455"),
        (UT[:-1], "runs past the extra field"),
        (UT + b"\x00\x00", "2 stray bytes at the end of the extra field"),
    ],
)
def test_malformed_or_unknown_local_extra_fields_are_refused(
    extra: bytes, rule: str, tmp_path: Path
) -> None:
    data = build(entries(logo={"local_extra": extra}))
    refused(data, tmp_path, "assets/logo.png", rule, "local header")


def test_a_local_zip64_size_that_differs_from_the_central_one_is_refused(tmp_path: Path) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    assert logo.csize is not None and logo.usize is not None
    local64 = struct.pack("<HHQQ", 1, 16, logo.usize + 1, logo.csize)
    data = build(
        entries(logo={"local_extra": local64, "local_csize": 0xFFFFFFFF, "local_usize": 0xFFFFFFFF})
    )
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "in its local header but",
        "in its central directory record",
    )


def test_a_local_size_that_differs_from_its_own_zip64_field_is_refused(tmp_path: Path) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    assert logo.csize is not None and logo.usize is not None
    local64 = struct.pack("<HHQQ", 1, 16, 7, logo.csize)  # the header says usize, ZIP64 says 7
    data = build(entries(logo={"local_extra": local64}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        f"has a size of {logo.usize} in its local header and 7 in that header's ZIP64 field",
    )


def test_a_local_zip64_field_without_both_sizes_is_refused(tmp_path: Path) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    data = build(
        entries(
            logo={"local_extra": struct.pack("<HHQ", 1, 8, logo.usize), "local_usize": 0xFFFFFFFF}
        )
    )
    refused(data, tmp_path, "assets/logo.png", "ZIP64 extra field of 8 bytes in its local header")


def test_a_local_size_of_0xffffffff_without_zip64_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"local_csize": 0xFFFFFFFF}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "size of 0xFFFFFFFF in its local header but no ZIP64 extra field",
    )


def test_a_central_zip64_field_holding_values_no_header_field_calls_for_is_refused(
    tmp_path: Path,
) -> None:
    # the compressed size is not 0xFFFFFFFF, yet the ZIP64 field holds a different one: a reader
    # that always takes ZIP64 values would read other bytes
    data = build(entries(logo={"central_extra": struct.pack("<HHQ", 1, 8, 5)}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "ZIP64 extra field of 8 bytes in its central directory record where its header fields call for 0",
    )


def test_a_central_size_of_0xffffffff_without_zip64_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"csize": 0xFFFFFFFF, "local_csize": len(deflate(LOGO))}))
    refused(
        data, tmp_path, "assets/logo.png", "0xFFFFFFFF in its central", "but no ZIP64 extra field"
    )


def test_an_entry_on_another_disk_is_refused(tmp_path: Path) -> None:
    data = build(entries(logo={"central_disk": 1}))
    refused(data, tmp_path, "assets/logo.png", "is on disk 1 of a split archive")


# ---------------------------------------------------------------------------------------------
# data descriptors


def test_a_data_descriptor_that_does_not_match_the_central_record_is_refused(
    tmp_path: Path,
) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    assert logo.crc is not None
    descriptor = b"PK\x07\x08" + struct.pack("<3L", logo.crc ^ 1, logo.csize, logo.usize)
    data = build(
        entries(
            logo={
                "flags": 0x8,
                "local_crc": 0,
                "local_csize": 0,
                "local_usize": 0,
                "descriptor": descriptor,
            }
        )
    )
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "data descriptor (flag bit 3) that does not repeat the CRC-32 and sizes",
    )


def test_local_values_beside_a_data_descriptor_must_be_zero_or_the_central_ones(
    tmp_path: Path,
) -> None:
    logo = Entry("assets/logo.png", LOGO).resolved()
    descriptor = b"PK\x07\x08" + struct.pack("<3L", logo.crc, logo.csize, logo.usize)
    data = build(entries(logo={"flags": 0x8, "local_usize": 3, "descriptor": descriptor}))
    refused(
        data,
        tmp_path,
        "assets/logo.png",
        "in its local header but",
        "in its central directory record",
    )


def test_a_stored_entry_with_a_data_descriptor_is_refused(tmp_path: Path) -> None:
    # a streaming reader can only find its end by searching its data for PK\x07\x08, which
    # the data itself may hold, followed by a local header of its own
    logo = Entry("assets/logo.png", LOGO, method=0).resolved()
    descriptor = b"PK\x07\x08" + struct.pack("<3L", logo.crc, logo.csize, logo.usize)
    data = build(
        entries(
            logo={
                "method": 0,
                "flags": 0x8,
                "local_crc": 0,
                "local_csize": 0,
                "local_usize": 0,
                "descriptor": descriptor,
            }
        )
    )
    refused(data, tmp_path, "assets/logo.png", "is stored with a data descriptor (flag bit 3)")


# ---------------------------------------------------------------------------------------------
# layout: the entries fill the archive, one after the other, up to the central directory


def test_bytes_before_the_first_entry_are_refused(tmp_path: Path) -> None:
    # a self-extracting stub, or a second archive for readers that start at byte 0
    stub = build([Entry("assets/evil.sh", b"#!/bin/sh\n")])
    data = build(entries(), prefix=stub)
    assert zipfile.ZipFile(io.BytesIO(data)).read("assets/logo.png") == LOGO  # zipfile skips it
    refused(data, tmp_path, "document.json", f"{len(stub)} bytes come before the first entry")


def test_a_hidden_local_header_between_entries_is_refused(tmp_path: Path) -> None:
    hidden = build([Entry("assets/evil.sh", b"#!/bin/sh\n")])[:-22]  # local header + data + CD
    data = build(entries(document={"after": hidden}))
    assert zipfile.ZipFile(io.BytesIO(data)).read("assets/logo.png") == LOGO
    refused(
        data,
        tmp_path,
        "manifest.json",
        f"{len(hidden)} bytes between entries 'document.json' and 'manifest.json' belong to no entry",
    )


def test_bytes_between_the_last_entry_and_the_central_directory_are_refused(tmp_path: Path) -> None:
    data = build(entries(note={"after": b"PK\x03\x04" + b"\x00" * 26}))
    refused(
        data,
        tmp_path,
        None,
        "30 bytes between the last entry, 'assets/é.txt', and the central directory belong to no entry",
    )


def test_two_central_records_for_one_local_header_are_refused(tmp_path: Path) -> None:
    # the central record of assets/é.txt points at the local header of assets/logo.png
    good = build(entries())
    logo_at = zipfile.ZipFile(io.BytesIO(good)).getinfo("assets/logo.png").header_offset
    data = bytearray(good)
    cd = data.rindex(b"PK\x01\x02")  # the last central record: assets/é.txt
    struct.pack_into("<L", data, cd + 42, logo_at)
    refused(bytes(data), tmp_path, "assets/é.txt", "starts inside entry 'assets/logo.png'")


# ---------------------------------------------------------------------------------------------
# the end record


def test_bytes_after_the_end_record_and_its_comment_are_refused(tmp_path: Path) -> None:
    data = build(entries(), comment=b"abc", trailer=b"xyz")
    refused(data, tmp_path, None, "declares a 3-byte comment but 6 bytes follow it")


def test_a_second_end_record_inside_the_comment_is_refused(tmp_path: Path) -> None:
    inner = build(entries())
    fake_end = inner[-22:]  # a complete end record with an empty comment: it ends the file too
    data = build(entries(), comment=fake_end)
    refused(data, tmp_path, None, "two end of central directory records that both end the file")
