"""The undo log of a patch: one entry per change made in place, replayed backwards on failure.

This is not a public API.  The session (``_session``) and the JSON Patch engine it lends its
log to (``_jsonpatch``) append an entry before every change they make to the working copy; a
failed patch calls :meth:`undo` on each entry, last first, and the copy is exactly as before,
object for object.  A scratch session (``apply_patch``) keeps no log.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MISSING", "Inserted", "Removed", "SetItem", "rollback"]

#: "no value here": what :class:`SetItem` restores as "absent", and what an undo result holds
MISSING: Any = object()


class SetItem:
    """``container[key]`` (a dict member or a list element) held ``old`` (``MISSING``: absent)."""

    __slots__ = ("container", "key", "old")

    def __init__(self, container: Any, key: Any, old: Any) -> None:
        self.container = container
        self.key = key
        self.old = old

    def undo(self) -> None:
        if self.old is MISSING:
            del self.container[self.key]
        else:
            self.container[self.key] = self.old


class Inserted:
    """An item was inserted into ``items`` at ``index``."""

    __slots__ = ("index", "items")

    def __init__(self, items: list[Any], index: int) -> None:
        self.items = items
        self.index = index

    def undo(self) -> None:
        del self.items[self.index]


class Removed:
    """``item`` was removed from ``items`` at ``index``."""

    __slots__ = ("index", "item", "items")

    def __init__(self, items: list[Any], index: int, item: Any) -> None:
        self.items = items
        self.index = index
        self.item = item

    def undo(self) -> None:
        self.items.insert(self.index, self.item)


#: one entry of the log
Entry = SetItem | Inserted | Removed


def rollback(log: list[Entry]) -> None:
    """Undo every change of ``log``, last first."""
    for entry in reversed(log):
        entry.undo()
