"""Context managers over the compiled codec's test switches, shared by the core tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["general_path"]


@contextmanager
def general_path(compiled: Any) -> Iterator[None]:
    """Every call of canonicalize and validate through the general path: the front doors give
    no input to the one-call path of small documents (``_set_small``)."""
    old = compiled._set_small(False)
    try:
        yield
    finally:
        compiled._set_small(old)
