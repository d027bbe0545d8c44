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
extra or mismatching entry) or ``NUIF_PACKAGE_LIMIT`` (entry count or inflated sizes).  The rules
are NUIF-0 §7 (``docs/spec/nuif-0.1-packages.md``); the full list of refusals and the reasons for
each choice are in ``docs/package.md``.

Asset names are the full entry names, ``"assets/logo.png"``, everywhere: in the mapping given to
:func:`pack`, in the manifest, in :attr:`Package.assets` and on disk after :func:`unpack`.

Error locations: ``pointer`` is a JSON Pointer into the *manifest* for the member concerned
(``/document`` for the document, ``/assets/assets~1logo.png`` for an asset), or ``None`` when the
entry has no place in the manifest (an unsafe name, an entry the manifest does not list, an
archive-level problem).  The message always names the entry.
"""

from __future__ import annotations

# The public module of packages; the code is in _package_names (entry names), _package_zip (the
# ZIP structure), _package_write (pack) and _package_read (read, verify, unpack).
from ._package_names import (
    ASSETS_DIR,
    DOCUMENT_NAME,
    MANIFEST_NAME,
    check_asset_name,
)
from ._package_read import Package, PackageSummary, Source, read, unpack, verify
from ._package_write import COMPRESS_LEVEL, pack, pack_dir

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
