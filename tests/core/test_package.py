""".nuif packages (NUIF-0 §7): deterministic writing, verified reading, refusals, safe unpacking."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import struct
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nuif_core
from nuif_core import Limits, NuifError, _package_read, package

DOC = (
    '{"nuif": 0, "root": {"id": "home", "kind": "screen", "children": ['
    '{"id": "home.logo", "kind": "image", "attrs": {"src": "assets/logo.png"}}]}}'
)
CANONICAL = nuif_core.canonicalize(DOC).canonical
HASH = nuif_core.canonicalize(DOC).hash
ASSETS = {
    "assets/logo.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
    "assets/fonts/inter.woff2": b"wOF2" + b"\x00" * 100,
    "assets/notes/é-ü.txt": b"non-ASCII names are stored as UTF-8",
}
MiB = 1024 * 1024


# ---------------------------------------------------------------------------------------------
# helpers that build archives by hand (the hostile ones package.pack would never write)


def manifest_for(assets: dict[str, bytes], document_hash: str = HASH) -> bytes:
    return nuif_core.dumps(
        {
            "nuif_package": 0,
            "document": document_hash,
            "assets": {
                n: {"sha256": hashlib.sha256(d).hexdigest(), "bytes": len(d)}
                for n, d in assets.items()
            },
        }
    )


def build_zip(entries: list[tuple[str | zipfile.ZipInfo, bytes]], level: int = 6) -> bytes:
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # zipfile warns about the duplicate names we write on purpose
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in entries:
                zf.writestr(name, data, compresslevel=level)
    return out.getvalue()


def build_package(
    assets: dict[str, bytes],
    *,
    extra: list[tuple[str | zipfile.ZipInfo, bytes]] = (),  # type: ignore[assignment]
    manifest: bytes | None = None,
    document: bytes = CANONICAL,
) -> bytes:
    entries: list[tuple[str | zipfile.ZipInfo, bytes]] = [
        ("document.json", document),
        ("manifest.json", manifest if manifest is not None else manifest_for(assets)),
    ]
    entries += list(assets.items())
    entries += list(extra)
    return build_zip(entries)


def set_declared_size(archive: bytes, name: str, size: int) -> bytes:
    """Rewrite the uncompressed size of ``name`` in its local header and central record."""
    data = bytearray(archive)
    encoded = name.encode()
    pos = 0
    while (pos := data.find(b"PK\x03\x04", pos)) >= 0:
        n = struct.unpack_from("<H", data, pos + 26)[0]
        if data[pos + 30 : pos + 30 + n] == encoded:
            struct.pack_into("<I", data, pos + 22, size)
        pos += 4
    pos = 0
    while (pos := data.find(b"PK\x01\x02", pos)) >= 0:
        n = struct.unpack_from("<H", data, pos + 28)[0]
        if data[pos + 46 : pos + 46 + n] == encoded:
            struct.pack_into("<I", data, pos + 24, size)
        pos += 4
    return bytes(data)


def set_local_flags(archive: bytes, name: str, bits: int) -> bytes:
    """Set general-purpose flag ``bits`` in the local header of ``name`` only."""
    data = bytearray(archive)
    at = zipfile.ZipFile(io.BytesIO(archive)).getinfo(name).header_offset
    assert data[at : at + 4] == b"PK\x03\x04"
    struct.pack_into("<H", data, at + 6, struct.unpack_from("<H", data, at + 6)[0] | bits)
    return bytes(data)


def refused(fn: Callable[[], Any], code: str) -> NuifError:
    with pytest.raises(NuifError) as info:
        fn()
    assert info.value.code == code, str(info.value)
    return info.value


def snapshot(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# ---------------------------------------------------------------------------------------------
# writing


def test_pack_read_round_trip_returns_the_canonical_document_and_every_asset() -> None:
    pkg = package.read(package.pack(DOC, ASSETS))
    assert pkg.document == CANONICAL
    assert pkg.hash == HASH
    assert dict(pkg.assets) == ASSETS
    assert list(pkg.assets) == sorted(ASSETS, key=lambda n: n.encode())
    assert pkg.manifest["document"] == HASH
    assert pkg.manifest["assets"]["assets/logo.png"]["bytes"] == len(ASSETS["assets/logo.png"])


def test_packing_the_same_content_twice_gives_the_same_bytes() -> None:
    first = package.pack(DOC, ASSETS)
    reordered = dict(reversed(list(ASSETS.items())))
    assert package.pack(DOC, reordered) == first
    assert package.pack(CANONICAL, ASSETS) == first  # pretty or canonical input: same package
    assert package.pack(DOC, {k: bytearray(v) for k, v in ASSETS.items()}) == first


def test_packed_entries_are_sorted_with_fixed_time_mode_and_compression() -> None:
    zf = zipfile.ZipFile(io.BytesIO(package.pack(DOC, ASSETS)))
    names = [i.filename for i in zf.infolist()]
    assert names == sorted(names, key=lambda n: n.encode())
    assert {"document.json", "manifest.json"} <= set(names)
    for info in zf.infolist():
        assert info.date_time == (1980, 1, 1, 0, 0, 0)
        assert info.external_attr >> 16 == stat.S_IFREG | 0o644
        assert info.create_system == 3
        assert info.compress_type == zipfile.ZIP_DEFLATED
        assert info.extra == b""
    assert zf.comment == b""
    assert zf.read("manifest.json") == manifest_for(ASSETS)


def test_pack_without_assets_writes_an_empty_asset_map() -> None:
    pkg = package.read(package.pack(DOC))
    assert dict(pkg.assets) == {}
    assert (
        pkg.manifest_bytes == b'{"assets":{},"document":"' + HASH.encode() + b'","nuif_package":0}'
    )


def test_pack_refuses_an_invalid_document_with_its_own_code() -> None:
    refused(lambda: package.pack('{"nuif": 0, "root": {"id": "-bad", "kind": "x"}}'), "NUIF_ID")


@pytest.mark.parametrize(
    "name",
    [
        "logo.png",
        "/assets/logo.png",
        "assets/../evil",
        "assets/./logo",
        "assets/a//b",
        "assets/",
        "assets/dir/",
        "assets/a\\b",
        "assets/C:evil",
        "C:/assets/x",
        "assets/tab\there",
        "assets/" + "x" * 256,
    ],
)
def test_pack_refuses_unsafe_asset_names(name: str) -> None:
    refused(lambda: package.pack(DOC, {name: b"x"}), "NUIF_PACKAGE")


def test_pack_refuses_names_that_clash_on_case_insensitive_file_systems() -> None:
    refused(
        lambda: package.pack(DOC, {"assets/Logo.png": b"1", "assets/logo.png": b"2"}),
        "NUIF_PACKAGE",
    )
    refused(lambda: package.pack(DOC, {"assets/a": b"1", "assets/a/b": b"2"}), "NUIF_PACKAGE")


def test_pack_refuses_assets_past_the_limits() -> None:
    small = Limits(max_asset_bytes=10, max_package_bytes=2000, max_package_entries=4)
    refused(
        lambda: package.pack(DOC, {"assets/big": b"x" * 11}, limits=small), "NUIF_PACKAGE_LIMIT"
    )
    many = {f"assets/{i}": b"" for i in range(3)}
    refused(lambda: package.pack(DOC, many, limits=small), "NUIF_PACKAGE_LIMIT")
    total = {f"assets/{i}": b"x" * 10 for i in range(2)}
    refused(
        lambda: package.pack(DOC, total, limits=Limits(max_package_bytes=300)), "NUIF_PACKAGE_LIMIT"
    )


def test_pack_dir_reads_the_tree_and_matches_pack(tmp_path: Path) -> None:
    for name, data in ASSETS.items():
        path = tmp_path.joinpath(*name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (tmp_path / "assets" / "empty-dir").mkdir()
    assert package.pack_dir(DOC, tmp_path / "assets") == package.pack(DOC, ASSETS)


def test_pack_dir_refuses_a_symbolic_link(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "secret").write_bytes(b"outside")
    os.symlink(tmp_path / "secret", tmp_path / "assets" / "link")
    refused(lambda: package.pack_dir(DOC, tmp_path / "assets"), "NUIF_PACKAGE")


# ---------------------------------------------------------------------------------------------
# reading and unpacking


def test_unpack_then_repack_is_byte_identical(tmp_path: Path) -> None:
    original = package.pack(DOC, ASSETS)
    (tmp_path / "in.nuif").write_bytes(original)
    result = package.unpack(tmp_path / "in.nuif", tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "document.json").read_bytes() == CANONICAL
    assert (out / "manifest.json").read_bytes() == manifest_for(ASSETS)
    for name, data in ASSETS.items():
        assert out.joinpath(*name.split("/")).read_bytes() == data
    assert result.hash == HASH
    again = package.pack_dir((out / "document.json").read_bytes(), out / "assets")
    assert again == original
    assert package.verify(again).hash == HASH
    assert snapshot(tmp_path) == sorted(["in.nuif", "out", *snapshot_names(out, "out")])


def snapshot_names(root: Path, prefix: str) -> list[str]:
    return [f"{prefix}/{p}" for p in snapshot(root)]


def test_read_accepts_bytes_paths_and_file_objects(tmp_path: Path) -> None:
    data = package.pack(DOC, ASSETS)
    (tmp_path / "p.nuif").write_bytes(data)
    for src in (
        data,
        bytearray(data),
        memoryview(data),
        str(tmp_path / "p.nuif"),
        tmp_path / "p.nuif",
        io.BytesIO(data),
    ):
        assert package.read(src).hash == HASH


def test_verify_reports_entries_and_inflated_bytes() -> None:
    data = package.pack(DOC, ASSETS)
    summary = package.verify(data)
    assert summary.hash == HASH
    assert summary.entries == len(ASSETS) + 2
    assert summary.total_bytes == len(CANONICAL) + len(manifest_for(ASSETS)) + sum(
        map(len, ASSETS.values())
    )


def test_read_results_are_read_only() -> None:
    pkg = package.read(package.pack(DOC, ASSETS))
    with pytest.raises(TypeError):
        pkg.assets["assets/x"] = b""  # type: ignore[index]
    with pytest.raises(TypeError):
        pkg.manifest["document"] = ""  # type: ignore[index]


@pytest.mark.parametrize("name", ["d" * 255, "é" * 127, "d" * 236])
def test_unpack_into_a_directory_of_any_valid_name(name: str, tmp_path: Path) -> None:
    # the temporary directory beside the target adds 19 bytes to its name: cut, it still fits
    if len(name.encode()) > os.pathconf(tmp_path, "PC_NAME_MAX"):
        pytest.skip("this file system takes shorter names")
    data = package.pack(DOC, ASSETS)
    result = package.unpack(data, tmp_path / name)
    assert (tmp_path / name / "document.json").read_bytes() == CANONICAL
    assert result.hash == HASH
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary left


def test_unpack_refuses_a_non_empty_destination_and_accepts_an_empty_one(tmp_path: Path) -> None:
    data = package.pack(DOC, ASSETS)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        package.unpack(data, tmp_path / "full")
    assert snapshot(tmp_path / "full") == ["keep.txt"]
    (tmp_path / "empty").mkdir()
    package.unpack(data, tmp_path / "empty")
    assert (tmp_path / "empty" / "document.json").read_bytes() == CANONICAL


def test_unpack_leaves_nothing_behind_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = package.pack(DOC, ASSETS)

    def broken_rename(*args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(_package_read.os, "rename", broken_rename)
    with pytest.raises(OSError, match=r"^disk full$"):
        package.unpack(data, tmp_path / "out")
    assert snapshot(tmp_path) == []


# hostile archives: every one is refused by read, verify and unpack, and unpack writes nothing

GOOD_ASSETS = {"assets/logo.png": b"logo"}


def _symlink_info() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo("assets/link")
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _hostile() -> dict[str, tuple[bytes, str]]:
    wrong_hash = manifest_for(GOOD_ASSETS).replace(
        hashlib.sha256(b"logo").hexdigest().encode(), b"0" * 64
    )
    link_target = b"../../../../etc/passwd"
    cases = {
        "path traversal": (
            build_package(GOOD_ASSETS, extra=[("../evil.txt", b"x")]),
            "NUIF_PACKAGE",
        ),
        "traversal inside assets": (
            build_package({"assets/../../evil.txt": b"x"}),
            "NUIF_PACKAGE",
        ),
        "absolute path": (
            build_package(GOOD_ASSETS, extra=[("/tmp/evil.txt", b"x")]),
            "NUIF_PACKAGE",
        ),
        "backslash": (build_package({"assets\\..\\evil.txt": b"x"}), "NUIF_PACKAGE"),
        "drive letter": (build_package({"C:/evil.txt": b"x"}), "NUIF_PACKAGE"),
        "symlink": (
            build_package(
                {},
                extra=[(_symlink_info(), link_target)],
                manifest=manifest_for({"assets/link": link_target}),
            ),
            "NUIF_PACKAGE",
        ),
        "duplicate entry": (
            build_package(GOOD_ASSETS, extra=[("assets/logo.png", b"evil")]),
            "NUIF_PACKAGE",
        ),
        "duplicate manifest": (
            build_package(GOOD_ASSETS, extra=[("manifest.json", manifest_for({}))]),
            "NUIF_PACKAGE",
        ),
        "case clash": (
            build_package({"assets/a.png": b"1", "assets/A.png": b"2"}),
            "NUIF_PACKAGE",
        ),
        "windows trailing dot and space twins": (
            build_package({"assets/a": b"1", "assets/a.": b"2", "assets/a ": b"3"}),
            "NUIF_PACKAGE",
        ),
        "windows device names": (
            build_package({"assets/con": b"1", "assets/NUL.txt": b"2"}),
            "NUIF_PACKAGE",
        ),
        "encrypted in the local header only": (
            set_local_flags(build_package(GOOD_ASSETS), "assets/logo.png", 0x1),
            "NUIF_PACKAGE",
        ),
        "data descriptor in the local header only": (
            set_local_flags(build_package(GOOD_ASSETS), "assets/logo.png", 0x8),
            "NUIF_PACKAGE",
        ),
        "directory entry": (build_package(GOOD_ASSETS, extra=[("assets/", b"")]), "NUIF_PACKAGE"),
        "hash mismatch": (build_package(GOOD_ASSETS, manifest=wrong_hash), "NUIF_PACKAGE"),
        "size mismatch": (
            build_package(
                GOOD_ASSETS,
                manifest=manifest_for({"assets/logo.png": b"logo!"}).replace(
                    hashlib.sha256(b"logo!").hexdigest().encode(),
                    hashlib.sha256(b"logo").hexdigest().encode(),
                ),
            ),
            "NUIF_PACKAGE",
        ),
        "entry not in manifest": (
            build_package(GOOD_ASSETS, extra=[("assets/extra", b"x")]),
            "NUIF_PACKAGE",
        ),
        "manifest entry missing": (
            build_package({}, manifest=manifest_for(GOOD_ASSETS)),
            "NUIF_PACKAGE",
        ),
        "unknown top-level entry": (
            build_package(GOOD_ASSETS, extra=[("README", b"x")]),
            "NUIF_PACKAGE",
        ),
        "no manifest": (build_zip([("document.json", CANONICAL)]), "NUIF_PACKAGE"),
        "no document": (build_zip([("manifest.json", manifest_for({}))]), "NUIF_PACKAGE"),
        "non-canonical document": (
            build_package(GOOD_ASSETS, document=DOC.encode()),
            "NUIF_PACKAGE",
        ),
        "invalid document": (
            build_package(GOOD_ASSETS, document=b'{"nuif":0}'),
            "NUIF_PACKAGE",
        ),
        "document hash mismatch": (
            build_package(GOOD_ASSETS, manifest=manifest_for(GOOD_ASSETS, "sha256:" + "1" * 64)),
            "NUIF_PACKAGE",
        ),
        "non-canonical manifest": (
            build_package(GOOD_ASSETS, manifest=manifest_for(GOOD_ASSETS) + b" "),
            "NUIF_PACKAGE",
        ),
        "manifest not JSON": (build_package(GOOD_ASSETS, manifest=b"{nope"), "NUIF_PACKAGE"),
        "manifest wrong version": (
            build_package(
                {}, manifest=manifest_for({}).replace(b'"nuif_package":0', b'"nuif_package":1')
            ),
            "NUIF_PACKAGE",
        ),
        "not a zip": (b"PK\x03\x04 this is not an archive", "NUIF_PACKAGE"),
        "empty file": (b"", "NUIF_PACKAGE"),
        "declares 1 GiB": (
            set_declared_size(build_package(GOOD_ASSETS), "assets/logo.png", 1 << 30),
            "NUIF_PACKAGE_LIMIT",
        ),
        "declares a small size but holds more": (
            set_declared_size(
                build_package({"assets/logo.png": b"\x00" * 100_000}), "assets/logo.png", 4
            ),
            "NUIF_PACKAGE",
        ),
    }
    return cases


HOSTILE = _hostile()


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_are_refused_by_read_and_verify(case: str) -> None:
    data, code = HOSTILE[case]
    refused(lambda: package.read(data), code)
    refused(lambda: package.verify(io.BytesIO(data)), code)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_write_nothing_when_unpacked(case: str, tmp_path: Path) -> None:
    data, code = HOSTILE[case]
    (tmp_path / "pkg.nuif").write_bytes(data)
    work = tmp_path / "work"
    work.mkdir()
    refused(lambda: package.unpack(tmp_path / "pkg.nuif", work / "dest"), code)
    assert snapshot(tmp_path) == ["pkg.nuif", "work"]


def test_errors_point_into_the_manifest_and_name_the_entry() -> None:
    data, _ = HOSTILE["hash mismatch"]
    err = refused(lambda: package.read(data), "NUIF_PACKAGE")
    assert err.pointer == "/assets/assets~1logo.png"
    assert "assets/logo.png" in err.message
    err = refused(lambda: package.read(HOSTILE["entry not in manifest"][0]), "NUIF_PACKAGE")
    assert err.pointer is None and "assets/extra" in err.message
    err = refused(lambda: package.read(HOSTILE["non-canonical document"][0]), "NUIF_PACKAGE")
    assert err.pointer == "/document"


def test_too_many_entries_are_refused_before_the_directory_is_parsed() -> None:
    assets = {f"assets/{i}": b"x" for i in range(8)}
    refused(
        lambda: package.read(build_package(assets), limits=Limits(max_package_entries=5)),
        "NUIF_PACKAGE_LIMIT",
    )


def test_total_inflated_size_is_limited() -> None:
    assets = {f"assets/{i}": b"x" * 1000 for i in range(5)}
    data = build_package(assets)
    refused(lambda: package.read(data, limits=Limits(max_package_bytes=3000)), "NUIF_PACKAGE_LIMIT")


def test_a_small_archive_that_inflates_past_a_lowered_limit_is_refused() -> None:
    bomb = build_package(
        {"assets/zeros": b"\x00" * (4 * MiB)},
    )
    assert len(bomb) < 8 * 1024
    refused(lambda: package.read(bomb, limits=Limits(max_asset_bytes=MiB)), "NUIF_PACKAGE_LIMIT")


def _default_limit_bomb(declared: int | None) -> bytes:
    """~70 KB archive whose one asset inflates to 65 MiB of zeros (deflate level 9, ~1000:1)."""
    size = 65 * MiB
    zeros = b"\x00" * size
    asset = "assets/zeros.bin"
    manifest = nuif_core.dumps(
        {
            "nuif_package": 0,
            "document": HASH,
            "assets": {
                asset: {"sha256": hashlib.sha256(zeros).hexdigest(), "bytes": declared or size}
            },
        }
    )
    data = build_zip(
        [("document.json", CANONICAL), ("manifest.json", manifest), (asset, zeros)], level=9
    )
    return data if declared is None else set_declared_size(data, asset, declared)


@pytest.mark.slow
def test_a_70kb_archive_inflating_past_64_mib_is_refused_with_default_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = _default_limit_bomb(None)
    assert len(honest) < 100 * 1024
    refused(lambda: package.verify(honest), "NUIF_PACKAGE_LIMIT")
    # the same stream under a lying header (1 KiB declared): inflation stops at the declared size,
    # counted on every inflated chunk (each goes through the reader's CRC), not timed
    import zlib

    from nuif_core import _package_read

    inflated = [0]

    class CountingZlib:
        error = zlib.error

        def __getattr__(self, name: str) -> Any:
            return getattr(zlib, name)

        def crc32(self, data: bytes, value: int = 0) -> int:
            inflated[0] += len(data)
            return zlib.crc32(data, value)

    monkeypatch.setattr(_package_read, "zlib", CountingZlib())
    lying = _default_limit_bomb(1024)
    refused(lambda: package.unpack(lying, tmp_path / "out"), "NUIF_PACKAGE")
    assert 0 < inflated[0] <= 1024 + (1 << 16)  # not 65 MiB: a chunk past the declared size at most
    assert snapshot(tmp_path) == []


class _EndlessInflater:
    """What a decompressor that ignores the end of its stream would do: zeros forever."""

    eof = False
    unconsumed_tail = b""
    unused_data = b""

    def __init__(self) -> None:
        self.served = 0

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        n = max_length or 1 << 16
        self.served += n
        return b"\x00" * n


def test_inflation_is_counted_and_stopped_at_the_limit_whatever_the_archive_declares(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = build_package({"assets/zeros": b"\x00" * 10})
    zf = zipfile.ZipFile(io.BytesIO(data))
    reader = _package_read.Reader(zf, Limits(max_asset_bytes=MiB))
    endless = [_EndlessInflater() for _ in range(3)]
    feed = iter(endless)
    monkeypatch.setattr(_package_read, "new_inflater", lambda method: next(feed))
    # the entry declares 10 bytes: one byte more and reading stops
    err = refused(lambda: reader.inflate("assets/zeros", None, None, keep=False), "NUIF_PACKAGE")
    assert "more than the 10 bytes its headers declare" in err.message
    assert endless[0].served <= 11
    # the manifest says 10: the same
    refused(lambda: reader.inflate("assets/zeros", 10, None, keep=True), "NUIF_PACKAGE")
    assert endless[1].served <= 11
    # whatever the headers declare (here 2**40, as if it had passed every check), the limit holds
    monkeypatch.setattr(reader.by_name["assets/zeros"], "file_size", 1 << 40)
    refused(lambda: reader.inflate("assets/zeros", None, None, keep=False), "NUIF_PACKAGE_LIMIT")
    assert endless[2].served <= MiB + 1


def test_check_asset_name_accepts_ordinary_names() -> None:
    for name in (
        "assets/logo.png",
        "assets/a/b/c.txt",
        "assets/é.svg",
        "assets/.hidden",
        "assets/a b",
    ):
        assert package.check_asset_name(name) is None, name
