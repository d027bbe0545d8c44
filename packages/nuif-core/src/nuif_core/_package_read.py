"""Reading ``.nuif`` packages: :func:`read`, :func:`verify` and :func:`unpack`.

This is not a public API (``nuif_core.package`` exports them).  Nothing in the archive is
trusted: ``_package_zip`` checks its structure, then the :class:`Reader` inflates the manifest,
the document and each asset in bounded chunks, counting sizes while inflating and checking each
against the manifest.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Union

from ._document import canonicalize, dumps, loads
from ._errors import NuifError, escape_pointer
from ._limits import Limits
from ._limits import resolve_limits as _limits
from ._package_names import (
    ASSETS_DIR,
    DOCUMENT_NAME,
    MANIFEST_NAME,
    asset_pointer,
    check_asset_name,
    over_limit,
    quote_entry,
    refuse,
    sort_key,
)
from ._package_zip import ZIP_ERRORS, ZipEntries, check_end_record, new_inflater, points_outside

__all__ = ["Package", "PackageSummary", "Reader", "Source", "read", "unpack", "verify"]

_CHUNK = 1 << 16
_HEX64 = re.compile(r"[0-9a-f]{64}")
_DOCUMENT_HASH = re.compile(r"sha256:[0-9a-f]{64}")

#: where a package comes from: bytes of the archive, a path, or a seekable binary file object
Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes]]


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


class Reader(ZipEntries):
    """The checks shared by :func:`read`, :func:`verify` and :func:`unpack`: the structure
    (:class:`~._package_zip.ZipEntries`), then the contents, inflated in bounded chunks."""

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
        inflater = new_inflater(info.compress_type)
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
                        raise refuse(
                            f"entry {quote_entry(name)} is truncated: the archive ends inside its "
                            "data",
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
            raise refuse(f"entry {quote_entry(name)} is corrupt: {exc}", pointer) from exc
        if inflater is not None:
            if not inflater.eof:
                raise refuse(
                    f"entry {quote_entry(name)} is corrupt: its deflate stream is cut short",
                    pointer,
                )
            trailing = len(inflater.unused_data) + len(pending) + left
            if trailing:
                raise refuse(
                    f"entry {quote_entry(name)} has {trailing} bytes after the end of its deflate "
                    "stream "
                    "inside its compressed size; a reader that follows the stream would read "
                    "them as the next header",
                    pointer,
                )
        if size != info.file_size:
            raise refuse(
                f"entry {quote_entry(name)} inflates to {size} bytes but its headers declare "
                f"{info.file_size}",
                pointer,
            )
        if crc != info.CRC:
            raise refuse(
                f"entry {quote_entry(name)} is corrupt: its CRC-32 is {crc:08x} but its headers "
                "declare "
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
            raise over_limit(
                f"entry {quote_entry(name)} inflates past the limit of {cap} bytes", pointer
            )
        if self.inflated > self.limits.max_package_bytes:
            raise over_limit(
                f"the entries inflate past the limit of {self.limits.max_package_bytes} bytes "
                "in all",
                pointer,
            )
        if expected is not None and size > expected:
            raise refuse(
                f"entry {quote_entry(name)} inflates to more than the {expected} bytes the "
                "manifest "
                "declares",
                pointer,
            )
        if size > declared:
            raise refuse(
                f"entry {quote_entry(name)} inflates to more than the {declared} bytes its "
                "headers declare",
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
            raise refuse("manifest.json is not canonical JSON (RFC 8785)")
        listed = value["assets"]
        present = sorted((n for n in self.by_name if n.startswith(ASSETS_DIR)), key=sort_key)
        for name in present:
            if name not in listed:
                raise refuse(f"entry {quote_entry(name)} is not listed in manifest.json")
        for name in sorted(listed, key=sort_key):
            pointer = asset_pointer(name)
            if name not in self.by_name:
                raise refuse(
                    f"manifest.json lists {quote_entry(name)} but the archive has no such entry",
                    pointer,
                )
            declared = self.by_name[name].file_size
            if declared != listed[name]["bytes"]:
                raise refuse(
                    f"entry {quote_entry(name)} is {declared} bytes in the archive but "
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
            raise refuse("document.json is not canonical", "/document")
        if result.hash != manifest["document"]:
            raise refuse(
                f"document.json hashes to {result.hash} but manifest.json says "
                f"{manifest['document']}",
                "/document",
            )
        return data, result.hash

    def assets(self, manifest: Mapping[str, Any], keep: bool) -> Iterator[tuple[str, bytes]]:
        listed = manifest["assets"]
        for name in sorted(listed, key=sort_key):
            pointer = asset_pointer(name)
            expected = listed[name]["bytes"]
            data, digest, size = self.inflate(name, expected, pointer, keep)
            if size != expected:
                raise refuse(
                    f"entry {quote_entry(name)} inflates to {size} bytes but manifest.json says "
                    f"{expected}",
                    pointer,
                )
            if digest != listed[name]["sha256"]:
                raise refuse(
                    f"entry {quote_entry(name)} has sha256 {digest} but manifest.json says "
                    f"{listed[name]['sha256']}",
                    pointer,
                )
            yield name, data


def _check_manifest_shape(value: Any, limits: Limits) -> None:
    if not isinstance(value, dict):
        raise refuse("manifest.json is not a JSON object")
    expected = {"nuif_package", "document", "assets"}
    for key in value:
        if key not in expected:
            raise refuse(f"manifest.json has an unknown member {key!r}", "/" + escape_pointer(key))
    for key in sorted(expected - set(value)):
        raise refuse(f"manifest.json has no {key!r} member", "/" + key)
    version = value["nuif_package"]
    if isinstance(version, bool) or version != 0:
        raise refuse(
            f"manifest.json declares nuif_package {version!r}; this reader knows version 0",
            "/nuif_package",
        )
    document = value["document"]
    if not isinstance(document, str) or not _DOCUMENT_HASH.fullmatch(document):
        raise refuse('manifest.json "document" is not a "sha256:<64 hex>" hash', "/document")
    assets = value["assets"]
    if not isinstance(assets, dict):
        raise refuse('manifest.json "assets" is not an object', "/assets")
    total = 0
    for name, entry in assets.items():
        pointer = asset_pointer(name)
        problem = check_asset_name(name)
        if problem is not None:
            raise refuse(
                f"manifest.json lists {quote_entry(name)}, which is refused: {problem}", pointer
            )
        if not isinstance(entry, dict) or set(entry) != {"sha256", "bytes"}:
            raise refuse(
                f'manifest.json entry {quote_entry(name)} is not {{"bytes": n, "sha256": hex}}',
                pointer,
            )
        digest, size = entry["sha256"], entry["bytes"]
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise refuse(
                f"manifest.json entry {quote_entry(name)} has no lowercase hex sha256",
                pointer + "/sha256",
            )
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise refuse(
                f"manifest.json entry {quote_entry(name)} has no byte count", pointer + "/bytes"
            )
        if size > limits.max_asset_bytes:
            raise over_limit(
                f"manifest.json declares {size} bytes for {quote_entry(name)}; the limit is "
                f"{limits.max_asset_bytes}",
                pointer + "/bytes",
            )
        total += size
        if total > limits.max_package_bytes:
            raise over_limit(
                f"manifest.json declares more than {limits.max_package_bytes} bytes of assets"
            )


def _run(
    src: Source, limits: Limits | None, keep: bool
) -> tuple[Reader, dict[str, Any], bytes, bytes, str, dict[str, bytes]]:
    lim = _limits(limits)
    fh, owned = _open_source(src)
    try:
        check_end_record(fh, lim)
        try:
            zf = zipfile.ZipFile(fh)
        except NuifError:
            raise
        except ZIP_ERRORS as exc:
            raise refuse(f"not a readable ZIP archive: {exc}") from exc
        except OSError as exc:
            if not points_outside(exc):
                raise
            raise refuse("not a readable ZIP archive: it points outside itself") from exc
        with zf:
            reader = Reader(zf, lim)
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


#: what ``mkdtemp(prefix=f".{stem}.", suffix=".nuif-tmp")`` adds to the stem: two dots, eight
#: random characters and the suffix
_TEMPORARY_EXTRA = 2 + 8 + len(".nuif-tmp")


def _temporary_stem(name: str, parent: Path) -> str:
    """``name`` cut at a character boundary so that the temporary directory's name fits the
    parent's NAME_MAX: a target of any valid name can be unpacked (the whole name when it fits,
    every name up to NAME_MAX - 19 bytes)."""
    try:
        name_max = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows), or no answer
        name_max = 255
    room = max(0, name_max - _TEMPORARY_EXTRA)
    size = len(os.fsencode(name))
    while size > room:  # whole characters: a cut one would not be a valid name
        size -= len(os.fsencode(name[-1]))
        name = name[:-1]
    return name


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
    stem = _temporary_stem(dest.name, parent)
    tmp = Path(tempfile.mkdtemp(prefix=f".{stem}.", suffix=".nuif-tmp", dir=parent))
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
                raise refuse(f"entry {quote_entry(name)} would be written outside the target")
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
