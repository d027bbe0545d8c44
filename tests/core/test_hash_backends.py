"""The compiled codec's SHA-256 routes give hashlib's digest.

A build that linked OpenSSL's libcrypto (``hash_backend() == "openssl"``) hashes through it
(csrc/nuif_sha256.h): ``_speedups.hash_bytes`` for texts up to 64 KiB, and the
canonical writer every document's text while it writes it.  Otherwise, and for larger texts or
other buffers, ``hashlib.sha256``.  Every route must equal hashlib byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nuif_core
from nuif_core import _codec

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

HAVE_OPENSSL = compiled.hash_backend() == "openssl"
LIMIT = 64 * 1024


def expected(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def python_c(code: str, *args: str) -> str:
    """The standard output of ``python -c code args`` in a new process, which must succeed."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@contextmanager
def through_hashlib() -> Iterator[None]:
    old = compiled._settings(openssl=False)
    try:
        assert compiled.hash_backend() == "hashlib"
        yield
    finally:
        compiled._settings(**old)


ROUTES = [nullcontext, through_hashlib]


def test_the_backend_is_named_and_can_be_switched_off_and_back() -> None:
    before = compiled.hash_backend()
    assert before in ("openssl", "hashlib")
    with through_hashlib():
        pass
    assert compiled.hash_backend() == before


@pytest.mark.parametrize(
    "size",
    [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096, LIMIT - 1, LIMIT, LIMIT + 1, 3 * LIMIT],
)
def test_every_route_gives_hashlibs_digest_at_block_and_size_limit_edges(size: int) -> None:
    data = random.Random(size).randbytes(size)
    for route in ROUTES:
        with route():
            assert compiled.hash_bytes(data) == expected(data), route


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_every_route_agrees_on_any_bytes(data: bytes) -> None:
    for route in ROUTES:
        with route():
            assert compiled.hash_bytes(data) == expected(data), route


def test_the_hex_of_every_digest_byte_at_every_position_is_hashlibs() -> None:
    # the 64 digits are written 16 bytes at a time (nuif_hex32): find inputs until every
    # position of the digest has shown every one of the 16 values in both of its nibbles
    seen = [set() for _ in range(64)]
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
    for value in (bytearray(data), memoryview(data), B(data)):
        assert compiled.hash_bytes(value) == expected(data)


def test_canonicalize_hashes_the_same_through_either_route() -> None:
    data = b'{"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"t": "' + b"x" * LIMIT + b'"}}}'
    small = b'{"nuif": 0, "root": {"id": "a", "kind": "b"}}'
    for text in (small, data):
        result = nuif_core.canonicalize(text)
        assert result.hash == expected(result.canonical)
        with through_hashlib():
            assert nuif_core.canonicalize(text) == result


def test_the_direct_route_is_in_use_when_the_build_linked_libcrypto() -> None:
    if not HAVE_OPENSSL:
        pytest.skip("built without OpenSSL's libcrypto: hashlib only")
    old = compiled._settings(openssl=True)
    try:
        assert compiled.hash_backend() == "openssl"
    finally:
        compiled._settings(**old)


def test_ci_build_links_libcrypto() -> None:
    """CI's machine has OpenSSL 3's headers, so the direct route must have been built there."""
    import os

    if os.environ.get("NUIF_REQUIRE_OPENSSL") != "1":
        pytest.skip("NUIF_REQUIRE_OPENSSL is not set (CI sets it)")
    assert HAVE_OPENSSL


# -- hashed by the writer itself, a block at a time, while it writes (``hash_while_writing``) -----


def growing_document(n: int) -> bytes:
    """A valid document whose canonical text is longer than its input (1E20 is 21 digits), so
    the output buffer must grow while the text is being written and hashed."""
    values = ",".join(["1E20"] * n)
    return b'{"nuif":0,"root":{"id":"a","kind":"b","attrs":{"v":[' + values.encode() + b"]}}}"


@contextmanager
def beside(on: bool, fault: bool = False) -> Iterator[None]:
    old = compiled._settings(hash_while_writing=on, hash_fault=fault)
    try:
        yield
    finally:
        compiled._settings(**old)


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


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
@pytest.mark.parametrize("keep", [None, 64])
def test_the_digest_the_writer_makes_itself_is_hashlibs(keep: int | None) -> None:
    """With ``keep`` 64 the scratch buffer is too small for any of these texts, so each moves
    into a new buffer while it is written and hashed: the blocks hashed before must be the ones
    moved."""
    old_keep = compiled._settings(scratch_keep=keep) if keep is not None else None
    try:
        for text in texts_around_block_edges():
            with beside(True):
                got, hashed = writer_hashes(lambda text=text: nuif_core.canonicalize(text))
                assert hashed == 1
            assert got.hash == expected(got.canonical)
            with beside(False):
                before = compiled._counters()["hashed_while_writing"]
                assert nuif_core.canonicalize(text) == got
                assert nuif_core.validate(text).hash == got.hash
                assert compiled._counters()["hashed_while_writing"] == before
    finally:
        if old_keep is not None:
            compiled._settings(**old_keep)


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
def test_a_failed_update_of_the_writers_hash_leaves_the_text_to_be_hashed_after() -> None:
    for text in texts_around_block_edges():
        want = nuif_core.canonicalize(text)
        with beside(True, fault=True):
            before = compiled._counters()["hashed_while_writing"]
            assert nuif_core.canonicalize(text) == want
            assert compiled._counters()["hashed_while_writing"] == before


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
def test_the_writer_hashes_nothing_it_does_not_have_to() -> None:
    """Not with hashlib chosen (``_settings(openssl=False)``), nor for canonical_json and
    canonical_document (no hash asked)."""
    small = next(texts_around_block_edges())
    with beside(True):
        before = compiled._counters()["hashed_while_writing"]
        with through_hashlib():
            got = nuif_core.canonicalize(small)
        assert got.hash == expected(got.canonical)
        compiled.canonical_json(small, 128)
        compiled.canonical_document(small, 128, 100)
        assert compiled._counters()["hashed_while_writing"] == before
        nuif_core.canonicalize(small)
        assert compiled._counters()["hashed_while_writing"] == before + 1


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
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
    with beside(True):
        got, hashed = writer_hashes(lambda: nuif_core.canonicalize(text))
        assert hashed == 1
    assert got.hash == expected(got.canonical)
    with beside(False):
        assert nuif_core.canonicalize(text) == got
