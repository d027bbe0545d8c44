"""Writing ``.nuif`` packages: :func:`pack` and :func:`pack_dir`, deterministic to the byte.

This is not a public API (``nuif_core.package`` exports both).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ._document import canonicalize, dumps
from ._errors import NuifError
from ._limits import Limits
from ._limits import resolve_limits as _limits
from ._package_names import (
    ASSETS_DIR,
    DOCUMENT_NAME,
    MANIFEST_NAME,
    NameSet,
    asset_pointer,
    check_asset_name,
    over_limit,
    quote_entry,
    refuse,
    sort_key,
)
from ._package_zip import UNIX

__all__ = ["COMPRESS_LEVEL", "FILE_MODE", "FIXED_DATE_TIME", "pack", "pack_dir"]

#: zlib level used for every entry (fixed, so output is reproducible; 6 is zlib's own default)
COMPRESS_LEVEL = 6
#: every entry's timestamp: the earliest date a ZIP can hold
FIXED_DATE_TIME = (1980, 1, 1, 0, 0, 0)
#: every entry's permissions: a regular file, rw-r--r--
FILE_MODE = stat.S_IFREG | 0o644


def _document_canonical(document: Any, limits: Limits) -> tuple[bytes, str]:
    result = canonicalize(document, limits=limits)
    if result.changed:
        # the writer holds itself to the reader: a canonical text the reader refused would
        # make a package that could never be read back (docs/package.md, "Writing (deterministic)")
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
    info.create_system = UNIX
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
        raise over_limit(
            f"{len(assets)} assets plus document.json and manifest.json make more than "
            f"{lim.max_package_entries} entries"
        )
    names = NameSet()
    entries: dict[str, tuple[str, int]] = {}
    blobs: dict[str, bytes | bytearray | memoryview] = {}
    total = 0
    for name in sorted(assets, key=sort_key):
        pointer = asset_pointer(name) if isinstance(name, str) else None
        problem = check_asset_name(name)
        if problem is not None:
            raise refuse(f"asset name {quote_entry(name)} is refused: {problem}", pointer)
        data = assets[name]
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"asset {name!r} must be bytes, not {type(data).__name__}")
        size = memoryview(data).nbytes
        if size > lim.max_asset_bytes:
            raise over_limit(
                f"asset {quote_entry(name)} is {size} bytes; the limit is {lim.max_asset_bytes}",
                pointer,
            )
        total += size
        names.add(name, pointer)
        entries[name] = (hashlib.sha256(data).hexdigest(), size)
        blobs[name] = data
    canonical, doc_hash = _document_canonical(document, lim)
    # the cap read applies to document.json and manifest.json (Reader._cap)
    cap = min(lim.max_asset_bytes, lim.max_document_bytes)
    if len(canonical) > cap:
        raise over_limit(
            f"document.json is {len(canonical)} bytes; it may hold at most {cap}",
            "/document",
        )
    manifest = _manifest_bytes(doc_hash, entries)
    if len(manifest) > cap:
        raise over_limit(f"manifest.json would be {len(manifest)} bytes; it may hold at most {cap}")
    total += len(canonical) + len(manifest)
    if total > lim.max_package_bytes:
        raise over_limit(
            f"the package would hold {total} bytes; the limit is {lim.max_package_bytes}"
        )
    contents: dict[str, bytes | bytearray | memoryview] = {
        **blobs,
        DOCUMENT_NAME: canonical,
        MANIFEST_NAME: manifest,
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", allowZip64=False) as zf:
        for name in sorted(contents, key=sort_key):
            zf.writestr(_zip_info(name), contents[name], compresslevel=COMPRESS_LEVEL)
    return out.getvalue()


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
                raise over_limit(
                    f"the assets directory holds more than {lim.max_package_entries - 2} files"
                )
            with open(path, "rb") as fh:
                data = fh.read(lim.max_asset_bytes + 1)
            if len(data) > lim.max_asset_bytes:
                raise over_limit(
                    f"asset {quote_entry(name)} is larger than the limit of {lim.max_asset_bytes} "
                    "bytes",
                    asset_pointer(name),
                )
            total += len(data)
            if total > lim.max_package_bytes:
                raise over_limit(f"the assets hold more than {lim.max_package_bytes} bytes")
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
                raise refuse(f"{str(path)!r} is a symbolic link; packages hold regular files only")
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(path)
            elif entry.is_file(follow_symlinks=False):
                yield path
            else:
                raise refuse(f"{str(path)!r} is not a regular file")
        stack.extend(reversed(subdirs))
