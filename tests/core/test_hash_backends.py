"""The compiled codec's SHA-256 (csrc/nuif_sha256.h) gives hashlib's digest on both of its block
functions: SHA-NI (picked at import where the CPU has the SHA extensions) and portable C (what
the WebAssembly build runs, and every CPU without them).  ``_speedups.hash_bytes`` hashes what it
is given; the canonical writer hashes every document's text while it writes it, 64-byte block by
block, across every move of its buffer.  Every route must equal hashlib byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import platform
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nuif_core
from nuif_core import _codec

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

BEST = compiled.hash_backend()  # the route picked at import
ROUTES = sorted({BEST, "portable"})
NOGIL = 64 * 1024  # _speedups_hash.pxi: SHA_NOGIL


def expected(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@contextmanager
def route(name: str) -> Iterator[None]:
    old = compiled._settings(sha256_route=name)
    try:
        assert compiled.hash_backend() == name
        yield
    finally:
        compiled._settings(**old)


def test_the_route_is_named_and_can_be_switched_to_portable_and_back() -> None:
    assert BEST in ("sha-ni", "portable")
    with route("portable"):
        assert compiled._settings()["sha256_route"] == "portable"
    assert compiled.hash_backend() == BEST


def test_a_route_this_cpu_has_not_is_refused_before_anything_changes() -> None:
    refused = ["openssl", ""] + (["sha-ni"] if BEST == "portable" else [])
    keep = compiled._settings()["scratch_keep"]
    for name in refused:
        with pytest.raises(ValueError, match="cannot hash with"):
            compiled._settings(sha256_route=name, scratch_keep=0)
    assert compiled.hash_backend() == BEST
    assert compiled._settings()["scratch_keep"] == keep


@pytest.mark.skipif(
    not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")),
    reason="reads the CPU's flags from /proc/cpuinfo (x86-64 Linux)",
)
def test_sha_ni_is_picked_exactly_where_the_cpu_has_it() -> None:
    flags = next(
        line.split(":", 1)[1].split()
        for line in Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("flags")
    )
    has = "sha_ni" in flags and "ssse3" in flags and "sse4_1" in flags
    assert (BEST == "sha-ni") == has


@pytest.mark.parametrize(
    "size",
    [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096, NOGIL - 1, NOGIL, NOGIL + 1, 3 * NOGIL],
)
@pytest.mark.parametrize("name", ROUTES)
def test_every_route_gives_hashlibs_digest_at_block_and_size_edges(name: str, size: int) -> None:
    data = random.Random(size).randbytes(size)
    with route(name):
        assert compiled.hash_bytes(data) == expected(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_every_route_agrees_on_any_bytes(data: bytes) -> None:
    for name in ROUTES:
        with route(name):
            assert compiled.hash_bytes(data) == expected(data), name


def test_the_hex_of_every_digest_byte_at_every_position_is_hashlibs() -> None:
    # the 64 digits are written 16 bytes at a time (nuif_hex32): find inputs until every
    # position of the digest has shown every one of the 16 values in both of its nibbles
    seen: list[set[str]] = [set() for _ in range(64)]
    rng = random.Random(21)
    tried = 0
    while tried < 5000 and not all(len(s) == 16 for s in seen):
        tried += 1
        data = rng.randbytes(rng.randrange(0, 200))
        got = compiled.hash_bytes(data)
        assert got == expected(data)
        for k, c in enumerate(got[7:]):
            seen[k].add(c)
    assert all(s == set("0123456789abcdef") for s in seen), tried


def test_other_buffers_and_bytes_subclasses_hash_like_bytes() -> None:
    class B(bytes):
        pass

    data = b'{"nuif":0,"root":{"id":"a","kind":"b"}}'
    big = data * (NOGIL // len(data) + 1)
    for text in (data, big):
        for value in (bytearray(text), memoryview(text), B(text)):
            assert compiled.hash_bytes(value) == expected(text)


def test_what_is_not_bytes_like_is_refused_as_hashlib_refuses_it() -> None:
    for value in ("text", 3, None):
        with pytest.raises(TypeError):
            compiled.hash_bytes(value)
        with pytest.raises(TypeError):
            hashlib.sha256(value)  # type: ignore[arg-type]


# -- hashed by the writer itself, a block at a time, while it writes ------------------------------


def writer_hashes(call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()``'s result, and how many texts the writer hashed while writing them meanwhile."""
    before = compiled._counters()["hashed_while_writing"]
    got = call()
    return got, compiled._counters()["hashed_while_writing"] - before


def texts_around_block_edges() -> Iterator[bytes]:
    """Documents whose canonical texts are 40 to 400 bytes long, one of each length, so that
    every offset of a text's end in its last 64-byte block comes several times; and some whose
    canonical text outgrows the input (``1e20`` is written as 21 digits), several blocks in one
    number."""
    for n in range(361):
        yield json.dumps(
            {"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"t": "x" * n}}}, indent=2
        ).encode()
    for k in range(1, 40):
        yield (
            b'{"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"n": ['
            + b", ".join([b"1e20"] * k)
            + b"]}}}"
        )


@pytest.mark.parametrize("keep", [None, 64])
@pytest.mark.parametrize("name", ROUTES)
def test_the_digest_the_writer_makes_is_hashlibs(name: str, keep: int | None) -> None:
    """With ``keep`` 64 the scratch buffer is too small for any of these texts, so each moves
    into a new buffer while it is written and hashed: the blocks hashed before must be the ones
    moved."""
    old_keep = compiled._settings(scratch_keep=keep) if keep is not None else None
    try:
        with route(name):
            for text in texts_around_block_edges():
                got, hashed = writer_hashes(lambda text=text: nuif_core.canonicalize(text))
                assert hashed == 1
                assert got.hash == expected(got.canonical)
                assert nuif_core.validate(text).hash == got.hash
                assert nuif_core.inspect(text).hash == got.hash
    finally:
        if old_keep is not None:
            compiled._settings(**old_keep)


def test_the_writer_hashes_nothing_it_does_not_have_to() -> None:
    """Not for canonical_json and canonical_document (no hash asked), once for canonicalize."""
    small = next(texts_around_block_edges())
    before = compiled._counters()["hashed_while_writing"]
    compiled.canonical_json(small, 128)
    compiled.canonical_document(small, 128, 100)
    assert compiled._counters()["hashed_while_writing"] == before
    nuif_core.canonicalize(small)
    assert compiled._counters()["hashed_while_writing"] == before + 1


@pytest.mark.parametrize("size", [16 * 1024, 300 * 1024, 5 << 20])
def test_a_large_text_is_hashed_by_its_writer_across_every_move_of_its_buffer(size: int) -> None:
    """Past the kept scratch buffer the text moves into its bytes object, and past 4 MiB that
    object grows in place: the blocks hashed before each move must be the ones moved."""
    doc = {
        "nuif": 0,
        "root": {
            "id": "a",
            "kind": "b",
            "attrs": {"n": [1e20] * (size // 40), "t": "x" * (size // 2)},
        },
    }
    text = json.dumps(doc).encode()  # 1e20 is written as 21 digits: the text outgrows the input
    for name in ROUTES:
        with route(name):
            got, hashed = writer_hashes(lambda: nuif_core.canonicalize(text))
        assert hashed == 1
        assert got.hash == expected(got.canonical), name
