"""The worst shapes found for ``diff``, as pairs of documents of about *n* nodes.

Shared by tests/core/test_diff_cost.py (growth and correctness at n and 4n) and
tests/core/test_diff_compat.py (the same bytes as the replaced algorithm, at small n).  Each
function returns two parsed documents ``(a, b)`` with the same root id; ``WIDE`` holds the
shapes whose minimal patch has about one operation per node, which the growth tests also run
with a fixed number of operations in a growing document (``sparse``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Doc = dict[str, Any]


def node(nid: str, *children: Doc, kind: str = "k", attrs: dict[str, Any] | None = None) -> Doc:
    out: Doc = {"id": nid, "kind": kind}
    if attrs:
        out["attrs"] = attrs
    if children:
        out["children"] = list(children)
    return out


def doc(root: Doc, meta: dict[str, Any] | None = None) -> Doc:
    out: Doc = {"nuif": 0, "root": root}
    if meta is not None:
        out["meta"] = meta
    return out


def leaves(n: int, prefix: str = "c") -> list[Doc]:
    return [node(f"{prefix}{i}") for i in range(n)]


def reverse(n: int) -> tuple[Doc, Doc]:
    """n children in reverse order: the kept subsequence is one child, n - 1 moves."""
    kids = leaves(n)
    return doc(node("r", *kids)), doc(node("r", *kids[::-1]))


def rotate(n: int) -> tuple[Doc, Doc]:
    """The second half of the children goes first: n/2 moves to the front."""
    kids = leaves(n)
    return doc(node("r", *kids)), doc(node("r", *kids[n // 2 :], *kids[: n // 2]))


def interleave(n: int) -> tuple[Doc, Doc]:
    """x0..xk y0..yk becomes x0 y0 x1 y1 ...: every y moves into the middle of the list."""
    xs, ys = leaves(n // 2, "x"), leaves(n // 2, "y")
    mixed = [v for p in zip(xs, ys, strict=True) for v in p]
    return doc(node("r", *xs, *ys)), doc(node("r", *mixed))


def cross_parent(n: int) -> tuple[Doc, Doc]:
    """n children move from one parent to another, reversed."""
    kids = leaves(n)
    a = doc(node("r", node("p", *kids), node("q")))
    return a, doc(node("r", node("p"), node("q", *kids[::-1])))


def many_parents(n: int) -> tuple[Doc, Doc]:
    """n/8 parents of 8 children each: every child list reversed, and the parents too."""
    ps = [node(f"p{j}", *leaves(8, f"c{j}_")) for j in range(max(1, n // 8))]
    qs = [node(p["id"], *p["children"][::-1]) for p in ps]
    return doc(node("r", *ps)), doc(node("r", *qs[::-1]))


def _chain(ids: list[str]) -> Doc:
    out: Doc | None = None
    for nid in reversed(ids):
        out = node(nid, *([out] if out else []))
    assert out is not None
    return out


def deep_chains(n: int, depth: int = 40) -> tuple[Doc, Doc]:
    """n/40 chains 40 nodes deep (the two documents together are deeper than the depth limit,
    so the exact depth check runs): in b each chain's head goes to its bottom, chains reversed."""
    ids = [[f"h{j}_{i}" for i in range(depth)] for j in range(max(1, n // depth))]
    a = [_chain(c) for c in ids]
    b = [_chain(c[1:] + c[:1]) for c in ids]
    return doc(node("r", *a)), doc(node("r", *b[::-1]))


def deep_carry(n: int, depth: int = 40) -> tuple[Doc, Doc]:
    """Chains x0 > x1 > x2 > ... split into x0 > x2 > x4 ... and x1 > x3 > ...: each even node
    moves while it still carries the rest of its chain (the carried height is recomputed per
    move by a naive check)."""
    a, b = [], []
    for j in range(max(1, n // depth)):
        ids = [f"d{j}_{i}" for i in range(depth)]
        a.append(_chain(ids))
        b += [_chain(ids[0::2]), _chain(ids[1::2])]
    return doc(node("r", *a)), doc(node("r", *b))


def wide_deep(n: int, depth: int = 20) -> tuple[Doc, Doc]:
    """Subtrees 20 levels deep with two leaves per level; b reverses every child list."""

    def sub(j: int, flip: bool) -> Doc:
        out: Doc | None = None
        for i in range(depth - 1, -1, -1):
            kids = [node(f"w{j}_{i}_a"), node(f"w{j}_{i}_b")] + ([out] if out else [])
            out = node(f"w{j}_{i}", *(kids[::-1] if flip else kids))
        assert out is not None
        return out

    w = max(1, n // (3 * depth))
    a = doc(node("r", *[sub(j, False) for j in range(w)]))
    return a, doc(node("r", *[sub(j, True) for j in reversed(range(w))]))


def dead(n: int) -> tuple[Doc, Doc]:
    """n children removed."""
    return doc(node("r", *leaves(n), node("keep"))), doc(node("r", node("keep")))


def inserts(n: int) -> tuple[Doc, Doc]:
    """A new child before each of n/2 children."""
    old = leaves(n // 2)
    new = [v for i, c in enumerate(old) for v in (node(f"n{i}"), c)]
    return doc(node("r", *old)), doc(node("r", *new))


def dead_holding(n: int) -> tuple[Doc, Doc]:
    """A removed parent whose n children persist: n moves out, then the late removal."""
    kids = leaves(n)
    return doc(node("r", node("dead", *kids))), doc(node("r", *kids))


def dead_between(n: int) -> tuple[Doc, Doc]:
    """Children interleaved with removed parents that hold persisting nodes (which stay in the
    child list while its children are placed), the persisting ones reversed."""
    a_kids, b_kids = [], []
    for i in range(max(1, n // 2)):
        a_kids += [node(f"c{i}"), node(f"dead{i}", node(f"h{i}"))]
        b_kids += [node(f"h{i}"), node(f"c{i}")]
    return doc(node("r", *a_kids)), doc(node("r", *b_kids[::-1]))


def attrs(n: int) -> tuple[Doc, Doc]:
    """n nodes with three attribute changes each."""
    a = [node(f"c{i}", attrs={"v": i, "w": "x"}) for i in range(n)]
    b = [node(f"c{i}", attrs={"v": i + 1, "u": True}) for i in range(n)]
    return doc(node("r", *a)), doc(node("r", *b))


def shells(n: int) -> tuple[Doc, Doc]:
    """Every four children wrapped in a new parent: a shell insert plus four moves each."""
    kids = leaves(n)
    groups = [node(f"g{j}", *kids[j * 4 : j * 4 + 4]) for j in range(n // 4)]
    return doc(node("r", *kids)), doc(node("r", *groups))


def meta_deep(n: int) -> tuple[Doc, Doc]:
    """meta objects nested n/100 levels (at most 120), with a list of n numbers at the bottom
    that differs in its last entry: a diff that compares each level's whole value again is
    quadratic in the nesting."""
    levels = max(1, min(120, n // 100))

    def nest(leaf: Any) -> Any:
        v = leaf
        for i in range(levels):
            v = {"k": v, "s": i}
        return v

    big = list(range(10**6, 10**6 + n))  # not the small integers Python caches: memory grows with n
    return doc(node("r"), {"m": nest(big)}), doc(node("r"), {"m": nest(big[:-1] + [-1])})


SHAPES: dict[str, Callable[[int], tuple[Doc, Doc]]] = {
    f.__name__: f
    for f in (
        reverse,
        rotate,
        interleave,
        cross_parent,
        many_parents,
        deep_chains,
        deep_carry,
        wide_deep,
        dead,
        inserts,
        dead_holding,
        dead_between,
        attrs,
        shells,
        meta_deep,
    )
}


def sparse(n: int, moves: int) -> tuple[Doc, Doc]:
    """n children of which ``moves`` (spread out) go to the end in reverse order: a fixed number
    of operations, each placed in a child list of n."""
    kids = leaves(n)
    step = max(1, n // max(1, moves))
    moving = kids[::step][:moves]
    ids = {c["id"] for c in moving}
    rest = [c for c in kids if c["id"] not in ids]
    return doc(node("r", *kids)), doc(node("r", *rest, *moving[::-1]))
