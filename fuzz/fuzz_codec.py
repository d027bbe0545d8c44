"""Fuzz target 1: the strict I-JSON parser and the RFC 8785 writer.

Input: JSON text bytes.  An input starting with NUL (which no JSON text does) is instead read as
a recipe for a Python value handed to ``dumps`` (tuples, big ints, nan, surrogates, bad keys…).

Properties (besides "only NuifError with a known code"):

* ``_speedups`` and ``_codec_py`` agree on ``canonical_json`` and ``loads`` (bytes, values with
  their types, and every error field), at the default depth and at a small one;
* ``canonical_json(t) == dumps(loads(t))`` (the tape path and the value path agree);
* when the text is accepted: the standard library's ``json`` accepts it too and reads the same
  values (an integer literal beyond ±(2^53 - 1), an ``int`` there, is a ``float`` here: the
  double whose RFC 8785 text it is, NUIF-0.1); the ``rfc8785`` package writes the same bytes
  where it accepts the value;
* the canonical output is a fixed point that re-parses to the same hash, with no exception;
* ``dumps`` of a Python value: the twins agree; accepted output is canonical JSON that reads
  back to a value that dumps to the same bytes.
"""

from __future__ import annotations

import hashlib
import json

import _common as c
import atheris
import rfc8785
from _gen import py_value

compiled, twin = c._speedups, c._codec_py
DEPTH = 128
HAS_DOCUMENT_PATH = hasattr(compiled, "canonical_document") and hasattr(twin, "canonical_document")


def both(fn_name: str, *args: object) -> tuple:
    a = c.outcome(getattr(compiled, fn_name), *args)
    b = c.outcome(getattr(twin, fn_name), *args)
    ra = a if a[0] == "error" else ("ok", c.shape(a[1]))
    rb = b if b[0] == "error" else ("ok", c.shape(b[1]))
    if ra != rb:
        c.fail(f"twins disagree on {fn_name}", ra, rb, args[0])
    return a


def check_text(data: bytes) -> None:
    if HAS_DOCUMENT_PATH:  # the compiled document fast path parses raw text too
        both("canonical_document", data, DEPTH, 250_000)
        both("canonical_document", data, 5, 3)
    canon = both("canonical_json", data, DEPTH)
    loaded = both("loads", data, DEPTH)
    both("canonical_json", data, 3)
    both("loads", data, 3)
    if (canon[0] == "ok") != (loaded[0] == "ok") or (canon[0] == "error" and canon != loaded):
        c.fail("canonical_json and loads disagree", canon, loaded, data)
    if canon[0] == "error":
        return
    out: bytes = canon[1]
    value = loaded[1]
    dumped = both("dumps", value, DEPTH)
    if dumped != ("ok", out):
        c.fail("canonical_json(t) != dumps(loads(t))", out, dumped, data)

    # oracle: the standard library reads every text we accept, to the same values
    try:
        theirs = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        c.fail("accepted text is refused by the json module", data, exc)
    if not _same(value, theirs):
        c.fail("loads differs from the json module", value, theirs, data)
    try:
        ref = rfc8785.dumps(theirs)
    except (rfc8785.CanonicalizationError, ValueError):
        ref = None  # e.g. integers the package refuses; NUIF's own rules are checked above
    if ref is not None and ref != out:
        c.fail("canonical_json differs from the rfc8785 package", out, ref, data)

    # fixed point and hash, for both codecs: every canonical text reads back (NUIF-0.1)
    for _, impl in c.TWINS:
        c.expect_fixed_point(
            out, lambda t, impl=impl: impl.canonical_json(t, DEPTH), "canonical_json"
        )
        if hashlib.sha256(impl.canonical_json(out, DEPTH)).digest() != hashlib.sha256(out).digest():
            c.fail("re-parsed canonical text hashes differently", out)


def _same(ours: object, theirs: object) -> bool:
    """Our values against the json module's: same types and values (-0.0 reads as 0.0 here)."""
    if isinstance(ours, dict):
        return (
            isinstance(theirs, dict)
            and list(ours) == list(theirs)
            and all(_same(ours[k], theirs[k]) for k in ours)
        )
    if isinstance(ours, list):
        return (
            isinstance(theirs, list)
            and len(ours) == len(theirs)
            and all(_same(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    if type(ours) is float and type(theirs) is int and abs(theirs) > c.MAX_SAFE:
        # an integer literal beyond ±(2^53 - 1) is accepted only as the RFC 8785 text of a
        # double, and reads as that double (NUIF-0.1)
        return ours == float(theirs) and twin.format_number(ours) == str(theirs)
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, float):
        return ours == theirs and (ours != 0.0 or str(ours) == "0.0")
    return ours == theirs


def check_value(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    value = py_value(fdp)
    depth = fdp.ConsumeIntInRange(1, DEPTH)
    res = both("dumps", value, depth)
    if res[0] == "error":
        return
    out = res[1]
    back = both("loads", out, DEPTH)
    if back[0] == "error":
        c.fail("dumps output does not load", out, back, value)
    again = both("dumps", back[1], DEPTH)
    if again != ("ok", out):
        c.fail("dumps(loads(dumps(v))) != dumps(v)", out, again)


def TestOneInput(data: bytes) -> None:
    if data[:1] == b"\x00":
        check_value(data[1:])
    else:
        check_text(data)


if __name__ == "__main__":
    c.main(TestOneInput)
