"""Fuzz target 3: semantic patch application, inverse patches, Session atomicity.

Input: ``document`` 0x1E ``patch`` (two texts).  An input starting with NUL is a recipe: a
generated document and a patch aimed at its ids and attributes (base right, wrong or absent);
the patch is handed over as text or, sometimes, as a mapping.

Properties (besides "only NuifError with a known code"):

* ``apply_patch(doc, patch, inverse=True)`` gives the same result (document, hashes, counts,
  inverse text) or the same error under both codecs;
* the patch mapping is never mutated;
* on success: ``base`` is the document hash, ``changed`` iff the hashes differ, the result is
  canonical (a fixed point with the same hash, no exception since NUIF-0.1), the inverse
  patch is canonical JSON with ``base`` = the new hash, applying it (again with ``inverse=True``)
  gives back the canonical input byte for byte, and re-applying *that* inverse to the input
  gives the result again; ``diff(input, result)`` applied to the input also gives the result;
* a ``Session`` that fails on the patch is left exactly as it was (atomicity), and one that
  succeeds ends on the same bytes as ``apply_patch``.
"""

from __future__ import annotations

import copy
import hashlib
import json

import _common as c
import atheris
from _gen import document_and_patch, to_text

nc = c.nuif_core
#: patches nest a few levels below the document: the engine writes and reads them with this slack
PATCH_DEPTH = nc.Limits.DEFAULT.max_depth + nc._patch_read.WRAP_DEPTH


def render(r: object) -> object:
    return r.to_dict()  # type: ignore[attr-defined]


def check(doc: bytes, patch: object, lim: object = None) -> None:
    before = copy.deepcopy(patch)
    res = c.twin_outcomes(nc.apply_patch, doc, patch, inverse=True, limits=lim, render=render)
    if patch != before or c.shape(patch) != c.shape(before):
        c.fail("apply_patch mutated the patch mapping", before, patch)

    session_out = None
    sess = c.outcome(nc.Session, doc, limits=lim)
    if sess[0] == "ok":
        s = sess[1]
        start = s.canonical()
        session_out = c.outcome(s.apply, patch)
        if session_out[0] == "error" and (s.canonical() != start or s.hash != s.base):
            c.fail("a failed Session.apply left the session changed", start, s.canonical())
        if session_out[0] == "ok" and res[0] == "ok" and s.canonical() != res[1].canonical:
            c.fail("Session.apply and apply_patch end on different documents")
    if res[0] == "error":
        if session_out is not None and session_out[0] == "ok":
            c.fail("Session.apply succeeds where apply_patch fails", res, doc, patch)
        return
    if session_out is not None and session_out[0] == "error":
        c.fail("Session.apply fails where apply_patch succeeds", session_out, doc, patch)

    r = res[1]
    original = nc.canonicalize(doc, limits=lim)
    if r.base != original.hash or r.changed != (r.hash != r.base):
        c.fail("base/changed are wrong", r, original)
    if r.hash != "sha256:" + hashlib.sha256(r.canonical).hexdigest():
        c.fail("hash is not sha256 of the result")

    def reread(t: bytes) -> bytes:
        again = nc.canonicalize(t)
        if again.hash != r.hash:
            c.fail("result re-reads to another hash", t)
        return again.canonical

    c.expect_fixed_point(r.canonical, reread, "apply_patch result")
    inv_json = c.outcome(c._speedups.canonical_json, r.inverse, PATCH_DEPTH)
    if inv_json[0] == "error":
        c.fail("inverse patch is not strict JSON", r.inverse, inv_json)
    if inv_json[1] != r.inverse:
        c.fail("inverse patch is not canonical JSON", r.inverse)
    if json.loads(r.inverse)["base"] != r.hash:
        c.fail("inverse base is not the new hash", r.inverse)

    back = c.twin_outcomes(
        nc.apply_patch, r.canonical, r.inverse, inverse=True, limits=lim, render=render
    )
    if back[0] == "error":
        c.fail("the inverse patch does not apply", r.canonical, r.inverse, back)
    back = back[1]
    if back.canonical != original.canonical or back.hash != original.hash:
        c.fail("the inverse patch does not restore the input", original.canonical, back.canonical)
    again = c.outcome(nc.apply_patch, original.canonical, back.inverse, limits=lim)
    if again[0] == "error" or again[1].canonical != r.canonical:
        c.fail("the inverse of the inverse does not redo the patch", back.inverse, again)

    d = c.twin_outcomes(nc.diff, doc, r.canonical, limits=lim)
    if d[0] == "error":
        c.fail("diff fails between a document and its patched version", d)
    via = c.outcome(nc.apply_patch, doc, d[1], limits=lim)
    if via[0] == "error":
        c.fail("diff(input, result) does not apply", d[1], via)
    if via[1].canonical != r.canonical:
        c.fail("diff(input, result) applied is not the result", d[1], via[1].canonical, r.canonical)


def TestOneInput(data: bytes) -> None:
    if data[:1] != b"\x00":
        doc, patch = c.split2(data)
        check(doc, patch)
        return
    fdp = atheris.FuzzedDataProvider(data[1:])
    lim, doc, p = document_and_patch(fdp)
    if fdp.ConsumeIntInRange(0, 3) == 0:
        check(doc, p, lim)  # as a mapping
    else:
        check(doc, to_text(fdp, p), lim)


if __name__ == "__main__":
    c.main(TestOneInput)
