"""Fuzz target 4: diff.

Input: ``a`` 0x1E ``b`` (two document texts).  An input starting with NUL is a recipe: a
generated document ``a`` and ``b`` derived from it by tree edits (attributes set and unset,
kinds changed, subtrees moved, swapped, inserted, removed, ids renamed, meta changed).

Properties (besides "only NuifError with a known code"):

* ``diff(a, b)`` is the same bytes under both codecs, and deterministic;
* it is canonical JSON, its ``base`` is ``hash(a)``, and applying it to ``a`` yields exactly
  the canonical text of ``b`` (no exception since NUIF-0.1);
* ``diff(a, a)`` and ``diff(a, canonical(a))`` have no transactions;
* the inverse of the diff, applied to the result, gives back canonical ``a``.
"""

from __future__ import annotations

import json

import _common as c
import atheris
from _gen import DocGen, limits, mutate_document, to_text

nc = c.nuif_core
#: patches nest a few levels below the document: the engine writes and reads them with this slack
PATCH_DEPTH = nc.Limits.DEFAULT.max_depth + nc._patch_read.WRAP_DEPTH


def check(a: bytes, b: bytes, lim: object = None) -> None:
    d = c.twin_outcomes(nc.diff, a, b, limits=lim)
    if d[0] == "error":
        ca, cb = (
            c.outcome(nc.canonicalize, a, limits=lim),
            c.outcome(nc.canonicalize, b, limits=lim),
        )
        # the one refusal allowed for two valid documents: no patch within tightened operation
        # limits exists (root and meta both change, one operation allowed)
        if (
            ca[0] == "ok"
            and cb[0] == "ok"
            and not (lim is not None and d[1] == "NUIF_LIMIT_OPERATIONS" and _root_and_meta(ca, cb))
        ):
            c.fail("diff fails on two valid documents", d, a, b)
        return
    patch = d[1]
    if nc.diff(a, b, limits=lim) != patch:
        c.fail("diff is not deterministic", a, b)
    ca, cb = nc.canonicalize(a, limits=lim), nc.canonicalize(b, limits=lim)
    pj = c.outcome(c._speedups.canonical_json, patch, PATCH_DEPTH)
    if pj[0] == "error":
        c.fail("diff output is not strict JSON", patch, pj)
    if pj[1] != patch:
        c.fail("diff output is not canonical JSON", patch)
    parsed = json.loads(patch)
    if parsed["base"] != ca.hash:
        c.fail("diff base is not hash(a)", patch, ca.hash)
    if cb.canonical == ca.canonical and parsed["transactions"]:
        c.fail("diff of equal documents has transactions", patch)

    res = c.twin_outcomes(
        nc.apply_patch, a, patch, inverse=True, limits=lim, render=lambda r: r.to_dict()
    )
    if res[0] == "error":
        c.fail("diff(a, b) does not apply to a", a, b, patch, res)
    r = res[1]
    if r.canonical != cb.canonical or r.hash != cb.hash:
        c.fail("diff(a, b) applied to a is not canonical b", patch, r.canonical, cb.canonical)
    back = c.outcome(nc.apply_patch, r.canonical, r.inverse, limits=lim)
    if back[0] == "error":
        c.fail("the inverse of a diff does not apply", r.inverse, back)
    if back[1].canonical != ca.canonical:
        c.fail("the inverse of a diff does not restore a", r.inverse, back[1].canonical)

    for same in (a, ca.canonical):
        z = c.outcome(nc.diff, a, same, limits=lim)
        if z[0] != "ok" or json.loads(z[1])["transactions"] != []:
            c.fail("diff(a, a) is not empty", z)


def _root_and_meta(ca: tuple, cb: tuple) -> bool:
    da, db = json.loads(ca[1].canonical), json.loads(cb[1].canonical)
    return da["root"] != db["root"] and da.get("meta") != db.get("meta")


def TestOneInput(data: bytes) -> None:
    if data[:1] != b"\x00":
        check(*c.split2(data))
        return
    fdp = atheris.FuzzedDataProvider(data[1:])
    lim = limits(fdp)
    gen = DocGen(fdp, broken=fdp.ConsumeIntInRange(0, 31) == 0, max_nodes=16)
    a = gen.document()
    if isinstance(a.get("root"), dict) and isinstance(a["root"].get("id"), str) and not gen.broken:
        b = mutate_document(fdp, a)
    else:
        b = DocGen(fdp, broken=False).document()
    check(to_text(fdp, a), to_text(fdp, b), lim)


if __name__ == "__main__":
    c.main(TestOneInput)
