"""Fuzz target 5: the ``.nuif`` package reader (``nuif_core.package.read`` / ``verify``).

Input: the bytes of a ZIP archive.  An input starting with NUL is a recipe: a valid package is
built with ``pack`` from a generated document and assets, then rewritten entry by entry with
hostile variations (names with ``..``, absolute, backslashes, NUL, case clashes, names Windows
cannot hold, directories, symlink and device modes, duplicate entries, other compression
methods, the encryption flag, non-canonical or lying manifests, a non-canonical document, extra
entries), then byte-level mutations (flips, truncation, splices), and last a general-purpose
flag set in one local header only.

Properties (besides "only NuifError with a known code" — zipfile/zlib errors must be mapped):

* ``read`` gives the same package or the same error under both codecs;
* ``verify`` agrees with ``read`` (the same error, or the same hash and manifest), from bytes
  and from a file object alike;
* an accepted package holds a canonical, valid document whose hash is the manifest's, every
  asset name passes ``check_asset_name``, sizes and sha256 match the manifest, and packing the
  content again gives a package that reads back to the same content (``pack`` is deterministic);
* ``unpack`` of an accepted package writes exactly its files, inside the target directory.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tempfile
import warnings
import zipfile

import _common as c
import atheris
from _gen import DocGen, limits, pick, to_text

nc = c.nuif_core
pkg = nc.package

warnings.simplefilter("ignore")  # zipfile warns about duplicate names we write on purpose


def plain(value: object) -> object:
    if hasattr(value, "items"):
        return {k: plain(v) for k, v in value.items()}  # type: ignore[attr-defined]
    return value


def render(p: object) -> object:
    return (p.document, p.hash, plain(p.manifest), dict(p.assets), p.manifest_bytes)  # type: ignore[attr-defined]


def check(data: bytes, unpack: bool = False, lim: object = None, pristine: bool = False) -> None:
    res = c.twin_outcomes(pkg.read, data, limits=lim, render=render)
    ver = c.outcome(pkg.verify, data, limits=lim)
    ver_fh = c.outcome(pkg.verify, io.BytesIO(data), limits=lim)
    # when either refuses, both refuse with the same error fields (code, message, locations)
    if (ver[0] == "error" or res[0] == "error") and ver != res:
        c.fail("verify and read disagree", res, ver)
    if ver_fh[0] != ver[0] or (ver[0] == "error" and ver_fh != ver):
        c.fail("verify of bytes and of a file object disagree", ver, ver_fh)
    if res[0] == "error":
        if pristine:
            c.fail("read refuses what pack wrote with the same limits", res)
        return
    p = res[1]
    summary = ver[1]
    if summary.hash != p.hash or plain(summary.manifest) != plain(p.manifest):
        c.fail("verify and read report different content", summary, p)
    if summary.total_bytes != len(p.document) + len(p.manifest_bytes) + sum(
        len(b) for b in p.assets.values()
    ):
        c.fail("verify counts inflated bytes wrongly", summary, p)

    canon = c.outcome(nc.canonicalize, p.document, limits=lim)
    if canon[0] == "error" or canon[1].changed or canon[1].hash != p.hash:
        c.fail("an accepted package holds a non-canonical or invalid document", p.document, canon)
    if p.hash != "sha256:" + hashlib.sha256(p.document).hexdigest():
        c.fail("package hash is not sha256 of document.json")
    if p.manifest["document"] != p.hash:
        c.fail("manifest document hash mismatch accepted")
    if nc.dumps(plain(p.manifest)) != p.manifest_bytes:
        c.fail("accepted manifest is not canonical")
    listed = p.manifest["assets"]
    if sorted(listed) != sorted(p.assets):
        c.fail("assets differ from the manifest", list(listed), list(p.assets))
    for name, blob in p.assets.items():
        problem = pkg.check_asset_name(name)
        if problem is not None:
            c.fail("accepted an unsafe asset name", name, problem)
        if (
            listed[name]["bytes"] != len(blob)
            or listed[name]["sha256"] != hashlib.sha256(blob).hexdigest()
        ):
            c.fail("accepted an asset that does not match the manifest", name)

    again = c.outcome(pkg.pack, p.document, dict(p.assets), limits=lim)
    if again[0] == "error":
        c.fail("the content of an accepted package cannot be packed again", again)
    if pkg.pack(p.document, dict(p.assets), limits=lim) != again[1]:
        c.fail("pack is not deterministic")
    back = c.outcome(pkg.read, again[1], limits=lim)
    if back[0] == "error" or render(back[1]) != render(p):
        c.fail("a re-packed package reads back differently", back)

    if unpack:
        with tempfile.TemporaryDirectory(prefix="nuif-fuzz-") as tmp:
            dest = os.path.join(tmp, "out")
            u = c.outcome(pkg.unpack, data, dest, limits=lim)
            if u[0] == "error":
                c.fail("unpack refuses what read accepted", u)
            found = set()
            for root, _dirs, files in os.walk(tmp):
                for f in files:
                    full = os.path.join(root, f)
                    if os.path.islink(full) or not full.startswith(dest + os.sep):
                        c.fail("unpack wrote outside the target or a link", full)
                    found.add(os.path.relpath(full, dest).replace(os.sep, "/"))
            expected = {"document.json", "manifest.json", *p.assets}
            if found != expected:
                c.fail("unpack wrote other files than the package holds", found, expected)


# -- structured packages -------------------------------------------------------------------------

HOSTILE_NAMES = [
    "assets/../x",
    "/assets/a",
    "assets\\a",
    "assets/a\x00b",
    "ASSETS/a",
    "assets/A",
    "assets/a/",
    "assets/",
    "assets//a",
    "assets/./a",
    "assets/ä",
    "assets/a:b",
    "c:/x",
    "document.json/",
    "Document.json",
    "assets/" + "a" * 256,
    "assets/\u0301",
    "assets/\x7f",
    "assets/a/b/../../c",
    "assets/con",
    "manifest.json",
    "document.json",
    "other.txt",
    "assets/a\nb",
    # names Windows cannot hold, or that are one file there or on macOS
    "assets/a.",
    "assets/a ",
    "assets/NUL.txt",
    "assets/nul .txt",
    "assets/com\u00b9",
    "assets/a<b",
    "assets/PROGRA~1",
    "assets/\u0131",
    "assets/I",
    "assets/e\u0301",
    "assets/\u00e9",
]


def _entry(
    fdp: atheris.FuzzedDataProvider, name: str, data: bytes
) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    if fdp.ConsumeIntInRange(0, 11) == 0:
        what = fdp.ConsumeIntInRange(0, 6)
        if what == 0:
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
        elif what == 1:
            info.external_attr = (stat.S_IFDIR | 0o755) << 16 | 0x10
        elif what == 2:
            info.compress_type = pick(
                fdp, [zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
            )
        elif what == 3:
            info.flag_bits |= pick(fdp, [0x1, 0x800, 0x8])
        elif what == 4:
            info.create_system = 0
            info.external_attr = pick(fdp, [0, 0x10, 0x20])
        elif what == 5:
            info.extra = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 12))
        else:
            info.external_attr = (stat.S_IFCHR | 0o644) << 16
    return info, data


def structured(data: bytes) -> tuple[bytes, bool, object, bool]:
    fdp = atheris.FuzzedDataProvider(data)
    lim = limits(fdp, package=True)
    gen = DocGen(fdp, broken=fdp.ConsumeIntInRange(0, 15) == 0, max_nodes=6)
    doc = to_text(fdp, gen.document())
    assets: dict[str, bytes] = {}
    for i in range(fdp.ConsumeIntInRange(0, 3)):
        name = pick(fdp, ["assets/logo.png", "assets/a/b.txt", "assets/é.svg", f"assets/f{i}"])
        assets[name] = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64)) * fdp.ConsumeIntInRange(1, 3)
    made = c.outcome(pkg.pack, doc, assets, limits=lim)
    if made[0] == "error":
        return b"", False, lim, False
    archive: bytes = made[1]
    pristine = True
    if fdp.ConsumeIntInRange(0, 2):
        # rewrite entry by entry with hostile variations
        pristine = False
        with zipfile.ZipFile(io.BytesIO(archive)) as zf:
            entries = [(i.filename, zf.read(i)) for i in zf.infolist()]
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            what = fdp.ConsumeIntInRange(0, 7)
            k = fdp.ConsumeIntInRange(0, len(entries) - 1)
            name, blob = entries[k]
            if what == 0:
                entries[k] = (pick(fdp, HOSTILE_NAMES), blob)
            elif what == 1:
                entries.append((pick(fdp, HOSTILE_NAMES + [name]), fdp.ConsumeBytes(8)))
            elif what == 2 and name == "manifest.json":
                entries[k] = (
                    name,
                    blob.replace(b'"bytes":', b'"bytes": ', 1)
                    if fdp.ConsumeBool()
                    else blob.replace(b"0", b"1", 1),
                )
            elif what == 3 and name == "document.json":
                entries[k] = (
                    name,
                    b" " + blob if fdp.ConsumeBool() else blob.replace(b"}", b',"x":1}', 1),
                )
            elif what == 4:
                del entries[k]
                if not entries:
                    break
            elif what == 5:
                entries[k] = (name, blob + fdp.ConsumeBytes(4))
            elif what == 6:
                entries.insert(0, entries.pop(k))
            else:
                entries[k] = (name, fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 32)))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as zw:
            for name, blob in entries:
                info, blob = _entry(fdp, name, blob)
                try:
                    zw.writestr(info, blob)
                except (ValueError, NotImplementedError, RuntimeError):
                    continue
        archive = out.getvalue()
    buf = bytearray(archive)
    flips = fdp.ConsumeIntInRange(0, 3) if fdp.ConsumeBool() else 0
    pristine = pristine and flips == 0
    for _ in range(flips):
        if not buf:
            break
        what = fdp.ConsumeIntInRange(0, 3)
        at = fdp.ConsumeIntInRange(0, len(buf) - 1)
        if what == 0:
            buf[at] = fdp.ConsumeIntInRange(0, 255)
        elif what == 1:
            del buf[at:]
        elif what == 2:
            buf[at:at] = fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 8))
        else:
            struct_field = fdp.ConsumeBytes(4).ljust(4, b"\xff")
            buf[at : at + 4] = struct_field
    unpack = fdp.ConsumeIntInRange(0, 7) == 0
    # a flag (encryption, data descriptor, UTF-8...) set in one local header only
    locals_at: list[int] = []
    at = buf.find(b"PK\x03\x04")
    while 0 <= at < len(buf) - 8:
        locals_at.append(at)
        at = buf.find(b"PK\x03\x04", at + 4)
    if locals_at and fdp.ConsumeIntInRange(0, 7) == 0:
        at = pick(fdp, locals_at) + 6
        buf[at] ^= pick(fdp, [0x01, 0x08, 0x40, 0x20])
        buf[at + 1] ^= pick(fdp, [0x00, 0x08, 0x20])
        pristine = False
    return bytes(buf), unpack, lim, pristine


def TestOneInput(data: bytes) -> None:
    if data[:1] == b"\x00":
        archive, unpack, lim, pristine = structured(data[1:])
        check(archive, unpack, lim, pristine)
    else:
        check(data)


if __name__ == "__main__":
    c.main(TestOneInput)
