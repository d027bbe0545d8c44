"""The catalogs shipped with nuif-core (NUIF-0 §9, docs/catalogs.md).

``basic()`` is the basic catalog: the everyday kinds of a form-and-content screen (``screen``,
``stack``, ``row``, ``card``, ``text``, ``button``, ``link``, ``input``, ``checkbox``, ``select``,
``image``, ``list``, ``list-item``, ``divider``), closed, each with a schema for its attributes
and the kinds of children it may hold.  It is the example the documentation uses and a starting
point to copy: ``basic_text()`` is its text as shipped.
"""

from __future__ import annotations

import functools
from importlib import resources

from .._catalog import Catalog

__all__ = ["basic", "basic_text"]


def basic_text() -> str:
    """The basic catalog's text, as shipped (``catalogs/basic.json``)."""
    return resources.files(__name__).joinpath("basic.json").read_text(encoding="utf-8")


@functools.cache
def basic() -> Catalog:
    """The basic catalog, read and compiled once."""
    return Catalog(basic_text())
