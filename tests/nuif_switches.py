"""Context managers over the compiled codec's test switches, shared by the core tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["following", "general_path"]


@contextmanager
def following(compiled: Any, step: int, *, fault: bool = False, ahead: bool = True,
              late: bool = False) -> Iterator[None]:
    """Every document's text hashed by a follower (the hashing pipe's threshold at 0, the
    follower-or-pipe record off), fed every ``step`` bytes, with an injected MemoryError at the
    first feed when ``fault``; the §3 check shared with it when ``ahead`` (``late``: followers
    leave it to the writer)."""
    old_pipe = compiled._set_hashpipe(0, 1 << 20)
    old_follow = compiled._set_follow(1 << 40, step, fault)
    old_record = compiled._set_big_record(0.0, 0.0, False)  # the follower, never the pipe
    old_ahead = compiled._set_check_ahead(ahead, late)
    try:
        yield
    finally:
        compiled._set_check_ahead(*old_ahead)
        compiled._set_big_record(*old_record)
        compiled._set_follow(*old_follow)
        compiled._set_hashpipe(*old_pipe)


@contextmanager
def general_path(compiled: Any) -> Iterator[None]:
    """Every call of canonicalize and validate through the general path: the front doors give
    no input to the one-call path of small documents (``_set_small``)."""
    old = compiled._set_small(False)
    try:
        yield
    finally:
        compiled._set_small(old)
