"""Limits (NUIF-0 §4 and §7): every limit is a named setting that callers may tighten, never raise.

The settings and their defaults are the tables of NUIF-0 §4.1 and §7.6 (docs/spec/nuif-0.1.md,
docs/spec/nuif-0.1-packages.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["Limits", "resolve_limits"]

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits every operation enforces.

    The defaults are the ceilings of NUIF-0 §4 and §7; a caller may lower any of them
    (``Limits(max_depth=32)``, ``Limits.DEFAULT.tighten(max_nodes=1000)``) but not raise one:
    a value above the default is a ``ValueError``.  ``Limits.MCP`` is the inline profile of the
    MCP server (1 MiB of document and of patch text).
    """

    #: bytes of UTF-8 document text (NUIF_TOO_LARGE); also applies to generic JSON text
    max_document_bytes: int = 16 * MiB
    #: bytes of UTF-8 patch text (NUIF_TOO_LARGE)
    max_patch_bytes: int = 16 * MiB
    #: nesting of arrays and objects together (NUIF_DEPTH)
    max_depth: int = 128
    #: nodes in a document (NUIF_LIMIT_NODES)
    max_nodes: int = 250_000
    #: transactions in a patch (NUIF_LIMIT_TRANSACTIONS)
    max_transactions: int = 128
    #: operations in one transaction (NUIF_LIMIT_OPERATIONS)
    max_operations_per_transaction: int = 1024
    #: operations in a whole patch (NUIF_LIMIT_OPERATIONS)
    max_operations: int = 4096
    #: entries in a .nuif package (NUIF_PACKAGE_LIMIT)
    max_package_entries: int = 10_000
    #: one package entry, inflated (NUIF_PACKAGE_LIMIT)
    max_asset_bytes: int = 64 * MiB
    #: all package entries together, inflated (NUIF_PACKAGE_LIMIT)
    max_package_bytes: int = 256 * MiB

    DEFAULT: ClassVar[Limits]
    MCP: ClassVar[Limits]

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Limits.{field.name} must be an int, not {type(value).__name__}")
            if value < 1:
                raise ValueError(f"Limits.{field.name} must be at least 1, got {value}")
            if value > field.default:  # type: ignore[operator]
                raise ValueError(
                    f"Limits.{field.name} can only be tightened: {value} is above the NUIF-0 "
                    f"ceiling {field.default}"
                )

    def tighten(self, **changes: int) -> Limits:
        """A copy with some limits lowered; a change that raises a limit is a ``ValueError``."""
        for name, value in changes.items():
            current = getattr(self, name)
            if isinstance(value, int) and value > current:
                raise ValueError(f"Limits.{name} can only be tightened: {value} > {current}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The limits as a plain mapping (for docs, logs and the CLI)."""
        return dataclasses.asdict(self)


Limits.DEFAULT = Limits()
Limits.MCP = Limits(max_document_bytes=1 * MiB, max_patch_bytes=1 * MiB)


def resolve_limits(limits: Limits | None) -> Limits:
    """``limits``, or the defaults for ``None``; anything else is a ``TypeError``."""
    if limits is None:
        return Limits.DEFAULT
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a nuif_core.Limits, not {type(limits).__name__}")
    return limits
