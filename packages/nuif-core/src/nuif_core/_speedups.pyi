# Type stub of the compiled codec (_speedups.pyx and its parts).  Not a public API: nuif_core
# reaches it through ``_codec``.  The functions it shares with the pure-Python twin
# (``_codec_py``) have the twin's signatures; arguments of other types are handed to the twin,
# which raises its own errors.
from collections.abc import Callable
from typing import Any, TypeVar

from nuif_core._document import CatalogLike
from nuif_core._limits import Limits
from nuif_core._results import CanonicalResult, ValidationReport

_R = TypeVar("_R")

__all__ = [
    "canonical_document",
    "canonical_json",
    "canonical_result",
    "dumps",
    "float_backend",
    "hash_backend",
    "hash_bytes",
    "inspect_summary",
    "loads",
    "scan_backend",
    "schema_report",
    "utf8_backend",
    "valid_report",
]

def loads(data: bytes, max_depth: int) -> Any: ...
def dumps(value: Any, max_depth: int) -> bytes: ...
def canonical_json(data: bytes, max_depth: int) -> bytes: ...
def canonical_document(data: bytes, max_depth: int, max_nodes: int) -> bytes | None: ...
def hash_bytes(canonical: bytes) -> str: ...
def canonical_result(
    data: bytes, max_depth: int, max_nodes: int, make: Callable[[bytes, str, bool], _R]
) -> _R | None: ...
def valid_report(
    data: bytes, max_depth: int, max_nodes: int, make: Callable[[bool, str, tuple[()], bool], _R]
) -> _R | None: ...
def schema_report(
    data: bytes, max_depth: int, max_nodes: int, max_diagnostics: int
) -> tuple[tuple[tuple[str, str, str, int | None, int | None], ...], bool]: ...

# the front doors (nuif_core exports them as canonicalize and validate; docs/format.md)
def canonicalize(text: str | bytes, *, limits: Limits | None = None) -> CanonicalResult: ...
def validate(
    text: str | bytes,
    *,
    limits: Limits | None = None,
    max_diagnostics: int = 100,
    catalog: CatalogLike | None = None,
) -> ValidationReport: ...
def inspect_summary(
    data: bytes,
    max_depth: int,
    max_nodes: int,
    max_outline: int,
    make: Callable[..., _R],
    entry: Callable[[str, str, int, int], Any],
    ref: Callable[[str, str], Any],
) -> _R | None: ...
def node_spans(data: bytes) -> tuple[int, dict[str, tuple[int, int, int, int, int]]]: ...

# which routes this build and process use
def utf8_backend() -> str: ...
def scan_backend() -> str: ...
def float_backend() -> str: ...
def hash_backend() -> str: ...

# tests: the settings (one function), and what they read back
def _settings(**changes: Any) -> dict[str, Any]: ...
def _counters() -> dict[str, int]: ...
def _utf8_check(data: bytes) -> bool: ...
def _doc_reset() -> None: ...
