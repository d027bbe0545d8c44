"""Fuzz target 7: the structural-index parser against the one-pass parser (issue 21).

Input: JSON text bytes.  The first byte is not part of the text: it picks the index chunk (64
bytes, so that short inputs cross chunk boundaries, or the default), the depth limit, whether
stage 1 runs on the index pipe's second thread (``csrc/nuif_indexpipe.h``), whether the split walk
starts only once its helper is done (so that it meets every segment the helper made) or at once
(racing it, as it does by default), and where the helper starts guessing (the top three bits: at
the first byte, or an eighth further per step).

Properties, for every stage-1 route this CPU runs (``csrc/nuif_stage1.h``: AVX2, SSSE3, the
portable one), for the second stage's direct walk (no index: it finds each next token itself,
as it does by default for inputs below 1 MiB), and for its split walk (the direct walk taking the
segments a helper thread parsed ahead, as for inputs of 1 MiB and more):

* where the indexed parser (``csrc/nuif_stage2.h``) accepts the text, its token tape, arena,
  member-name order, doubles and depth are the one-pass parser's (``_tape``);
* it accepts no text the one-pass parser refuses, and refuses a valid one only when the text
  holds a number with a three-digit exponent (a conversion that may leave the float library's
  range, which it leaves to the one-pass parser on purpose);
* ``canonical_json`` gives the same bytes, or the same error (code, message, pointer, line,
  column), with the indexed parser on, with the direct walk, and with the one-pass parser alone.
"""

from __future__ import annotations

import re
import sys

import _common as c
import atheris

compiled = c._speedups
DEPTH = 128
ROUTES = []
for _name in ("avx2", "ssse3", "neon", "portable"):
    try:
        _old = compiled._set_stage1_route(_name)
    except ValueError:
        continue
    compiled._set_stage1_route(_old)
    ROUTES.append(_name)

_BIG_EXP = re.compile(rb"[eE][-+]?0*\d{3,}")


def tape(data: bytes, indexed: bool, depth: int, direct: bool = False) -> object:
    try:
        return compiled._tape(data, depth, indexed, direct)
    except c.NuifError as err:
        c.check_error(err)
        return None


def TestOneInput(raw: bytes) -> None:
    if not raw:
        return
    chunk = 64 if raw[0] & 1 else 0
    depth = DEPTH if raw[0] & 2 else 4
    pipe = 1 if raw[0] & 4 else 0
    wait = bool(raw[0] & 8)
    permille = (raw[0] >> 5) * 125  # 0, 125, ..., 875
    data = raw[1:]
    want = tape(data, False, depth)
    old_pipe = compiled._set_index_pipe(pipe)
    old_chunk = compiled._set_index_chunk(chunk)
    old_route = compiled._set_stage1_route(ROUTES[0])
    old_split = compiled._set_split(None, permille, wait)
    try:
        for route in ROUTES + ["direct", "split"]:
            if route not in ("direct", "split"):
                compiled._set_stage1_route(route)
            compiled._set_split(0 if route == "split" else None, -1, wait)
            got = tape(data, True, depth, route in ("direct", "split"))
            if want is None and got is not None:
                c.fail(f"{route}: the indexed parser accepts what the one-pass parser refuses", data)
            if want is not None and got is None and not _BIG_EXP.search(data):
                c.fail(f"{route}: the indexed parser refuses a valid text", data)
            if got is not None and got != want:
                c.fail(f"{route}: another tape", got, want, data)
        compiled._set_split(None, -1, wait)
        old_min = compiled._set_indexed(0)
        old_direct = compiled._set_direct(None)
        try:
            with_index = c.outcome(compiled.canonical_json, data, depth)
            compiled._set_indexed(None)
            without = c.outcome(compiled.canonical_json, data, depth)
            compiled._set_direct(0)
            direct = c.outcome(compiled.canonical_json, data, depth)
            compiled._set_split(0, -1, wait)
            split = c.outcome(compiled.canonical_json, data, depth)
        finally:
            compiled._set_indexed(old_min)
            compiled._set_direct(old_direct)
        if with_index != without:
            c.fail("canonical_json differs with the indexed parser on and off", with_index, without, data)
        if direct != without:
            c.fail("canonical_json differs with the direct walk", direct, without, data)
        if split != without:
            c.fail("canonical_json differs with the split walk", split, without, data)
    finally:
        compiled._set_split(*old_split)
        compiled._set_index_pipe(old_pipe)
        compiled._set_index_chunk(old_chunk)
        compiled._set_stage1_route(old_route)


if __name__ == "__main__":
    c.main(TestOneInput)
