"""The compiled codec's two SHA-256 routes give hashlib's digest.

``_speedups.hash_bytes`` (and ``canonical_result``) call OpenSSL's libcrypto directly when the
build linked it (``hash_backend() == "openssl"``; texts up to 64 KiB, one kept context), else, and
for larger texts or other buffers, ``hashlib.sha256``.  Both must equal hashlib byte for byte.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from contextlib import contextmanager

import nuif_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nuif_core import _speedups as compiled

HAVE_OPENSSL = compiled.hash_backend() == "openssl"
LIMIT = 64 * 1024


def expected(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@contextmanager
def through_hashlib() -> Iterator[None]:
    old = compiled._set_openssl(False)
    try:
        assert compiled.hash_backend() == "hashlib"
        yield
    finally:
        compiled._set_openssl(old)


def test_the_backend_is_named_and_can_be_switched_off_and_back() -> None:
    before = compiled.hash_backend()
    assert before in ("openssl", "hashlib")
    with through_hashlib():
        pass
    assert compiled.hash_backend() == before


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096,
                                  LIMIT - 1, LIMIT, LIMIT + 1, 3 * LIMIT])
def test_both_routes_give_hashlibs_digest_at_block_and_size_limit_edges(size: int) -> None:
    data = random.Random(size).randbytes(size)
    assert compiled.hash_bytes(data) == expected(data)
    with through_hashlib():
        assert compiled.hash_bytes(data) == expected(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_both_routes_agree_on_any_bytes(data: bytes) -> None:
    assert compiled.hash_bytes(data) == expected(data)
    with through_hashlib():
        assert compiled.hash_bytes(data) == expected(data)


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
    old = compiled._set_openssl(True)
    try:
        assert compiled.hash_backend() == "openssl"
    finally:
        compiled._set_openssl(old)


def test_ci_build_links_libcrypto() -> None:
    """CI's machine has OpenSSL 3's headers, so the direct route must have been built there."""
    import os

    if os.environ.get("NUIF_REQUIRE_OPENSSL") != "1":
        pytest.skip("NUIF_REQUIRE_OPENSSL is not set (CI sets it)")
    assert HAVE_OPENSSL
