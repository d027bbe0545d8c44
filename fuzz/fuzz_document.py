"""Fuzz target 2: document validation, canonicalization and inspection.

Input: document text bytes.  An input starting with NUL is a recipe: a generated document
(mostly valid, with schema defects now and then) written in a non-canonical spelling.

Properties (besides "only NuifError with a known code"), each call run under both codecs,
which must agree on the whole result (diagnostics with pointer, line and column included):

* ``schema_report`` (what follows the fast path's None) gives the same findings, also under a
  small node limit and diagnostics bound;
* ``validate`` never raises NuifError; ``valid`` iff ``canonicalize`` succeeds, with the same
  hash; an invalid report has at least one diagnostic, the first one equal to the error
  ``canonicalize`` raises; ``max_diagnostics=1`` reports that same first diagnostic;
* ``canonicalize``: the canonical text is a fixed point (``changed`` is False on it, same
  hash; no exception since NUIF-0.1), is the codec's canonical JSON of the normalized
  model, ``changed`` iff input bytes differ; ``str`` input gives the same result as bytes;
* ``inspect``, ``document_hash``, ``is_canonical``, ``node_hash`` agree with ``canonicalize``.
"""

from __future__ import annotations

import hashlib

import _common as c
import atheris
from _gen import DocGen, limits, to_text

nc = c.nuif_core


def render_report(r: object) -> object:
    return r.to_dict()  # type: ignore[attr-defined]


def check(data: bytes, lim: object = None) -> None:
    if "canonical_document" in c.CODEC_FUNCTIONS:
        # the compiled fast path directly: bytes, None (a schema problem) or the same error
        eff = lim or nc.Limits.DEFAULT
        fast = [
            c.outcome(impl.canonical_document, data, eff.max_depth, eff.max_nodes)
            for _, impl in c.TWINS
        ]
        if fast[0] != fast[1]:
            c.fail("twins disagree on canonical_document", fast[0], fast[1], data)
        if fast[0] == ("ok", None):  # the reporter, with a node limit and a bound it may hit
            for nodes, most in ((eff.max_nodes, 3), (1 + len(data) % 7, 1 + len(data) % 5)):
                found = [
                    c.outcome(impl.schema_report, data, eff.max_depth, nodes, most)
                    for _, impl in c.TWINS
                ]
                if found[0] != found[1]:
                    c.fail("twins disagree on schema_report", found[0], found[1], data)
    report = c.twin_outcomes(nc.validate, data, limits=lim, render=render_report)
    if report[0] != "ok":
        c.fail("validate raised NuifError", report, data)
    report = report[1]
    first = nc.validate(data, max_diagnostics=1, limits=lim)
    canon = c.twin_outcomes(nc.canonicalize, data, limits=lim, render=lambda r: r.to_dict())
    if report.valid != (canon[0] == "ok"):
        c.fail("validate and canonicalize disagree on validity", report, canon, data)
    if not report.valid:
        if not report.diagnostics or report.hash is not None:
            c.fail("invalid report without diagnostics, or with a hash", report)
        d = report.diagnostics[0]
        if (d.code, d.message, d.pointer, d.line, d.column) != canon[1:]:
            c.fail("first diagnostic differs from canonicalize's error", d, canon)
        if first.diagnostics[0] != d or len(first.diagnostics) != 1:
            c.fail("max_diagnostics=1 reports something else", first, d)
        if len(report.diagnostics) > 100:
            c.fail("more diagnostics than max_diagnostics", len(report.diagnostics))
        for other in (nc.inspect, nc.document_hash, nc.is_canonical):
            o = c.outcome(other, data, limits=lim)
            if o != canon:
                c.fail(f"{other.__name__} fails differently from canonicalize", o, canon)
        return
    result = canon[1]
    if "canonical_document" in c.CODEC_FUNCTIONS and fast[0] != ("ok", result.canonical):
        c.fail("the fast path does not give the canonical text of a valid document", fast[0])
    if result.hash != report.hash:
        c.fail("validate and canonicalize hash differently", report, result)
    if result.changed != (result.canonical != data):
        c.fail("changed does not say whether the bytes differ", result, data)
    if result.hash != "sha256:" + hashlib.sha256(result.canonical).hexdigest():
        c.fail("hash is not sha256 of the canonical text", result)

    # canonical text re-read: a fixed point with the same hash
    def reread(t: bytes) -> bytes:
        again = nc.canonicalize(t)
        if again.changed or again.hash != result.hash:
            c.fail("canonical text is not canonical on re-read", t, again)
        return again.canonical

    for _, impl in c.TWINS:
        with c.using(impl):
            c.expect_fixed_point(result.canonical, reread, "canonicalize")
    if not nc.validate(result.canonical).valid:
        c.fail("canonical text does not validate", result.canonical)

    if nc.dumps(nc.loads(result.canonical)) != result.canonical:
        c.fail("canonical text is not the RFC 8785 form of its own model", result.canonical)

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        as_str = c.outcome(nc.canonicalize, text, limits=lim)
        if as_str != canon:
            c.fail("str and bytes input disagree", as_str, canon)

    insp = c.twin_outcomes(nc.inspect, data, max_outline_nodes=3, limits=lim)
    if insp[0] != "ok":
        c.fail("inspect fails on a valid document", insp)
    insp = insp[1]
    if (insp.hash, insp.is_canonical, insp.canonical_bytes, insp.input_bytes) != (
        result.hash,
        not result.changed,
        len(result.canonical),
        len(data),
    ):
        c.fail("inspect disagrees with canonicalize", insp, result)
    if insp.node_count != sum(insp.kinds.values()) or len(insp.outline) > 3:
        c.fail("inspect counts are inconsistent", insp)
    if insp.truncated != (insp.node_count > len(insp.outline)):
        c.fail("inspect truncated flag is wrong", insp)
    if nc.document_hash(data, limits=lim) != result.hash or nc.is_canonical(data, limits=lim) != (
        not result.changed
    ):
        c.fail("document_hash / is_canonical disagree with canonicalize", result)
    root = insp.root.id
    if nc.node_hash(data, root, limits=lim) != nc.node_hash(result.canonical, root):
        c.fail("node_hash differs between input and canonical text", root)


def TestOneInput(data: bytes) -> None:
    if data[:1] == b"\x00":
        fdp = atheris.FuzzedDataProvider(data[1:])
        lim = limits(fdp)
        gen = DocGen(fdp, broken=fdp.ConsumeIntInRange(0, 3) == 0)
        doc = gen.document()
        check(to_text(fdp, doc), lim)
    else:
        check(data)


if __name__ == "__main__":
    c.main(TestOneInput)
