"""The compiled codec's SHA-256 routes give hashlib's digest.

``_speedups.hash_bytes`` (and ``canonical_result``, whose writer hashes the text while it writes
it) call OpenSSL's libcrypto directly when its SHA-256 functions are bound
(``hash_backend() == "openssl"``; ``hash_bytes``: texts up to 64 KiB): its
SHA256_Init/_Update/_Final, linked by the build or found at import in the libcrypto the
interpreter loaded (csrc/nuif_crypto.h), else, in a linked build, its EVP interface with one kept
context.  Otherwise, and for larger texts or other buffers, ``hashlib.sha256``.  Every route must
equal hashlib byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

import nuif_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nuif_core import _codec
from nuif_strategies import attr_names, values

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

HAVE_OPENSSL = compiled.hash_backend() == "openssl"
LIMIT = 64 * 1024


def expected(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def python_c(code: str, *args: str) -> str:
    """The standard output of ``python -c code args`` in a new process, which must succeed."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


@contextmanager
def through_hashlib() -> Iterator[None]:
    old = compiled._set_openssl(False)
    try:
        assert compiled.hash_backend() == "hashlib"
        yield
    finally:
        compiled._set_openssl(old)


@contextmanager
def through_evp() -> Iterator[None]:
    """The direct route through libcrypto's EVP interface instead of SHA256_Init/_Update/_Final
    (what builds against an OpenSSL without its deprecated APIs use); in a build that linked no
    libcrypto, hashlib."""
    old = compiled._set_sha_lowlevel(0)
    try:
        assert compiled._set_sha_lowlevel(-1) is False
        yield
    finally:
        compiled._set_sha_lowlevel(1 if old else 0)


ROUTES = [nullcontext, through_evp, through_hashlib]


def test_the_backend_is_named_and_can_be_switched_off_and_back() -> None:
    before = compiled.hash_backend()
    assert before in ("openssl", "hashlib")
    with through_hashlib():
        pass
    assert compiled.hash_backend() == before


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096,
                                  LIMIT - 1, LIMIT, LIMIT + 1, 3 * LIMIT])
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
    for count in range(1, 5001):
        data = rng.randbytes(rng.randrange(0, 200))
        got = compiled.hash_bytes(data)
        assert got == expected(data)
        for k, c in enumerate(got[7:]):
            seen[k].add(c)
        if all(len(s) == 16 for s in seen):
            break
    assert all(s == set("0123456789abcdef") for s in seen), count


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
        for route in (through_evp, through_hashlib):
            with route():
                assert nuif_core.canonicalize(text) == result


def test_the_direct_route_is_in_use_when_the_build_linked_libcrypto() -> None:
    if not HAVE_OPENSSL:
        pytest.skip("built without OpenSSL's libcrypto: hashlib only")
    old = compiled._set_openssl(True)
    try:
        assert compiled.hash_backend() == "openssl"
    finally:
        compiled._set_openssl(old)


def test_the_sha256_switch_refuses_nonsense_and_reports_the_choice() -> None:
    with pytest.raises(ValueError):
        compiled._set_sha_lowlevel(2)
    before = compiled._set_sha_lowlevel(-1)
    assert before is True  # the default: the block functions, wherever they are bound
    with through_evp():
        pass
    assert compiled._set_sha_lowlevel(-1) is before


def test_ci_build_links_libcrypto() -> None:
    """CI's machine has OpenSSL 3's headers, so the direct route must have been built there."""
    import os

    if os.environ.get("NUIF_REQUIRE_OPENSSL") != "1":
        pytest.skip("NUIF_REQUIRE_OPENSSL is not set (CI sets it)")
    assert HAVE_OPENSSL
    # OpenSSL 3 as Debian ships it keeps SHA256_Init/_Update/_Final: the faster direct calls
    assert compiled._set_sha_lowlevel(-1) is True


# -- hashed by the writer itself, a block at a time, while it writes (``_set_sha_beside``) -------


def growing_document(n: int) -> bytes:
    """A valid document whose canonical text is longer than its input (1E20 is 21 digits), so
    the output buffer must grow while the text is being written and hashed."""
    values = ",".join(["1E20"] * n)
    return b'{"nuif":0,"root":{"id":"a","kind":"b","attrs":{"v":[' + values.encode() + b"]}}}"


@contextmanager
def beside(on: bool, fault: bool = False) -> Iterator[None]:
    old = compiled._set_sha_beside(on, fault)
    try:
        yield
    finally:
        compiled._set_sha_beside(old)


def texts_around_block_edges() -> Iterator[bytes]:
    """Documents whose canonical texts are 40 to 400 bytes long, one of each length, so that
    every offset of a text's end in its last 64-byte block comes several times; and some whose
    canonical text outgrows the input (``1e20`` is written as 21 digits), several blocks in one
    number."""
    for n in range(0, 361):
        yield json.dumps({"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"t": "x" * n}}},
                         indent=2).encode()
    for k in range(1, 40):
        yield (b'{"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"n": ['
               + b", ".join([b"1e20"] * k) + b"]}}}")


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
@pytest.mark.parametrize("keep", [None, 64])
def test_the_digest_the_writer_makes_itself_is_hashlibs(keep: int | None) -> None:
    """With ``keep`` 64 the scratch buffer is too small for any of these texts, so each moves
    into a new buffer while it is written and hashed: the blocks hashed before must be the ones
    moved."""
    old_keep = compiled._set_scratch_keep(keep) if keep is not None else None
    try:
        for text in texts_around_block_edges():
            with beside(True):
                before = compiled._sha_beside_count()
                got = nuif_core.canonicalize(text)
                assert compiled._sha_beside_count() == before + 1
            assert got.hash == expected(got.canonical)
            with beside(False):
                before = compiled._sha_beside_count()
                assert nuif_core.canonicalize(text) == got
                assert nuif_core.validate(text).hash == got.hash
                assert compiled._sha_beside_count() == before
    finally:
        if old_keep is not None:
            compiled._set_scratch_keep(old_keep)


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
def test_a_failed_update_of_the_writers_hash_leaves_the_text_to_be_hashed_after() -> None:
    for text in texts_around_block_edges():
        want = nuif_core.canonicalize(text)
        with beside(True, fault=True):
            before = compiled._sha_beside_count()
            assert nuif_core.canonicalize(text) == want
            assert compiled._sha_beside_count() == before


def test_the_writer_hashes_nothing_it_does_not_have_to() -> None:
    """Not with hashlib chosen (``_set_openssl(False)``), nor for canonical_json and
    canonical_document (no hash asked)."""
    small = next(texts_around_block_edges())
    with beside(True):
        before = compiled._sha_beside_count()
        with through_hashlib():
            got = nuif_core.canonicalize(small)
        assert got.hash == expected(got.canonical)
        compiled.canonical_json(small, 128)
        compiled.canonical_document(small, 128, 100)
        assert compiled._sha_beside_count() == before
        nuif_core.canonicalize(small)
        assert compiled._sha_beside_count() == before + 1


@pytest.mark.skipif(not HAVE_OPENSSL, reason="the writer hashes with libcrypto only")
@pytest.mark.parametrize("size", [16 * 1024, 300 * 1024, 5 << 20])
def test_a_large_text_is_hashed_by_its_writer_across_every_move_of_its_buffer(size: int) -> None:
    """Past the kept scratch buffer the text moves into its bytes object, and past 4 MiB that
    object grows in place: the blocks hashed before each move must be the ones moved."""
    doc = {"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {
        "n": [1e20] * (size // 40), "t": "x" * (size // 2)}}}
    text = json.dumps(doc).encode()  # 1e20 is written as 21 digits: the text outgrows the input
    with beside(True):
        before = compiled._sha_beside_count()
        got = nuif_core.canonicalize(text)
        assert compiled._sha_beside_count() == before + 1
    assert got.hash == expected(got.canonical)
    with beside(False):
        assert nuif_core.canonicalize(text) == got


# -- where libcrypto's functions come from (csrc/nuif_crypto.h) ------------------------------------
# A build that linked libcrypto binds SHA256_Init/_Update/_Final at link time ("linked"); one that
# did not (the release wheels, NUIF_OPENSSL=OFF) binds them at import to the libcrypto the
# interpreter already loaded for hashlib ("loaded"), after two known-answer digests; else none
# is bound and hashlib hashes.  ``_set_crypto`` rebinds in-process, so a linked build (CI's) also
# runs every route through functions found the way a release wheel finds them.

BINDING = compiled.crypto_binding()


def _can_load() -> bool:
    """Whether this build can look libcrypto up among the loaded libraries (ELF platforms)."""
    try:
        old = compiled._set_crypto("loaded")
    except ValueError:
        return False
    compiled._set_crypto(old[0])
    return True


CAN_LOAD = _can_load()


@contextmanager
def bound(how: str, prefix: str | None = None) -> Iterator[tuple[str, str]]:
    """libcrypto's functions bound ``how`` for the block; the binding of before afterwards."""
    before = compiled.crypto_binding()
    old = compiled._set_crypto(how, prefix)
    try:
        yield compiled.crypto_binding()
    finally:
        compiled._set_crypto(old[0])
        assert compiled.crypto_binding() == before


def mapped_libcrypto() -> set[str]:
    """The libcrypto files mapped into this process (Linux), as real paths."""
    import os

    with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
        return {os.path.realpath(line.split(None, 5)[5].strip()) for line in fh
                if len(line.split(None, 5)) == 6 and "/libcrypto" in line}


def test_the_binding_is_named_and_ci_links_libcrypto() -> None:
    import os

    how, path = BINDING
    assert how in ("linked", "loaded", "none")
    assert (path != "") == (how == "loaded")
    if how != "none":  # the functions are bound: the direct route is in use
        assert compiled.hash_backend() == "openssl"
    if os.environ.get("NUIF_REQUIRE_OPENSSL") == "1":
        assert how == "linked"
    elif how != "linked" and CAN_LOAD and os.path.exists("/proc/self/maps") and mapped_libcrypto():
        # a build that links none found the interpreter's libcrypto at import (a wheel's case)
        assert how == "loaded" and os.path.realpath(path) in mapped_libcrypto()


@pytest.mark.skipif(not CAN_LOAD, reason="this build cannot look libcrypto up at import")
def test_functions_found_in_the_loaded_libcrypto_hash_every_route_like_hashlib() -> None:
    import os

    from benchmarks.corpus import load

    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps to see which libraries are loaded")
    if not mapped_libcrypto():  # e.g. python-build-standalone: OpenSSL linked into _hashlib
        pytest.skip("this interpreter has loaded no shared libcrypto")
    texts = [load("ui", 64 * 1024), growing_document(3000),
             b'{"nuif":0,"root":{"id":"a","kind":"b"}}']
    results = [nuif_core.canonicalize(t) for t in texts]
    with bound("loaded") as (how, path):
        assert how == "loaded"
        # the library the interpreter loaded, and no other: no second OpenSSL in the process
        assert {__import__("os").path.realpath(path)} == mapped_libcrypto()
        assert compiled.hash_backend() == "openssl"
        for size in (0, 1, 55, 56, 64, 1000, LIMIT):
            data = random.Random(size).randbytes(size)
            assert compiled.hash_bytes(data) == expected(data)
        for text, result in zip(texts, results):
            before = compiled._sha_beside_count()
            assert nuif_core.canonicalize(text) == result
            assert compiled._sha_beside_count() == before + 1  # the loaded functions hashed


@pytest.mark.skipif(not CAN_LOAD, reason="this build cannot look libcrypto up at import")
def test_a_search_that_finds_no_library_leaves_hashlib_to_hash() -> None:
    text = growing_document(3000)
    result = nuif_core.canonicalize(text)
    with bound("loaded", "libnuif-no-such-library") as (how, path):
        assert (how, path) == ("none", "")
        before = compiled._sha_beside_count()
        assert nuif_core.canonicalize(text) == result
        assert compiled._sha_beside_count() == before  # no writer's hash without the functions
        data = b"x" * 1000
        assert compiled.hash_bytes(data) == expected(data)
    with bound("none") as (how, _):
        assert how == "none"
        assert nuif_core.canonicalize(text) == result


def test_the_binding_switch_refuses_what_the_build_cannot_do() -> None:
    with pytest.raises(ValueError, match="cannot bind"):
        compiled._set_crypto("bogus")
    if BINDING[0] != "linked":
        with pytest.raises(ValueError, match="cannot bind"):
            compiled._set_crypto("linked")
    if not CAN_LOAD:
        with pytest.raises(ValueError, match="cannot bind"):
            compiled._set_crypto("loaded")
    assert compiled.crypto_binding() == BINDING


@pytest.mark.skipif(BINDING[0] != "loaded", reason="only a build that links no libcrypto")
def test_an_interpreter_without_openssl_hashes_through_hashlib() -> None:
    """Where hashlib does not use OpenSSL (no _hashlib), nothing is found and nothing is loaded:
    hashlib's built-in SHA-256 hashes, with the same digests."""
    import os

    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps to see which libraries are loaded")
    code = (
        "import sys\n"
        "sys.modules['_hashlib'] = None\n"  # as if the interpreter had no OpenSSL
        "import nuif_core\n"
        "from nuif_core import _speedups as s\n"
        "r = nuif_core.canonicalize(b'{\"nuif\":0,\"root\":{\"id\":\"a\",\"kind\":\"b\"}}')\n"
        "maps = open('/proc/self/maps').read()\n"
        "print(s.crypto_binding()[0], s.hash_backend(), '/libcrypto' in maps, r.hash)\n"
    )
    want = nuif_core.canonicalize(b'{"nuif":0,"root":{"id":"a","kind":"b"}}').hash
    assert python_c(code).split() == ["none", "hashlib", "False", want]


FAKE_LIBCRYPTO = r"""
/* SHA256_Init/_Update/_Final that hash right (libcrypto's, looked up in the loaded library), and,
 * with WITH_VERSION, OpenSSL_version_num: whether the search takes it decides on the latter */
#include <dlfcn.h>
#include <stddef.h>
static void *real(const char *name) {
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libcrypto.so.1.1", RTLD_NOW | RTLD_NOLOAD);
    return h != NULL ? dlsym(h, name) : NULL;
}
int SHA256_Init(void *c) {
    int (*f)(void *) = (int (*)(void *))real("SHA256_Init");
    return f != NULL ? f(c) : 0;
}
int SHA256_Update(void *c, const void *p, size_t n) {
    int (*f)(void *, const void *, size_t) = (int (*)(void *, const void *, size_t))real("SHA256_Update");
    return f != NULL ? f(c, p, n) : 0;
}
int SHA256_Final(unsigned char *d, void *c) {
    int (*f)(unsigned char *, void *) = (int (*)(unsigned char *, void *))real("SHA256_Final");
    return f != NULL ? f(d, c) : 0;
}
#ifdef WITH_VERSION
unsigned long OpenSSL_version_num(void) { return 0x30000000UL; }
#endif
"""


@pytest.mark.skipif(not CAN_LOAD, reason="this build cannot look libcrypto up at import")
def test_the_search_takes_only_a_library_with_openssls_api(tmp_path) -> None:
    """A loaded library whose name matches and whose SHA256_* hash right is still passed over
    unless it is OpenSSL's API (OpenSSL_version_num): another library's SHA256_Init may take a
    larger context than OpenSSL's.  Each library is loaded first (ctypes), as _hashlib loads
    libcrypto."""
    import os
    import shutil
    import subprocess

    gcc = shutil.which("gcc")
    if gcc is None or not os.path.exists("/proc/self/maps"):
        pytest.skip("needs gcc and /proc/self/maps")
    if not mapped_libcrypto():
        pytest.skip("this interpreter has loaded no shared libcrypto")
    source = tmp_path / "fake.c"
    source.write_text(FAKE_LIBCRYPTO)
    libs = {}
    for name, extra in (("libcrypto-nuif-plain", []), ("libcrypto-nuif-api", ["-DWITH_VERSION"])):
        libs[name] = tmp_path / f"{name}.so"
        subprocess.run([gcc, "-shared", "-fPIC", "-O1", *extra, str(source), "-o",
                        str(libs[name]), "-ldl"], check=True, timeout=120)
    code = (
        "import ctypes, sys\n"
        "from nuif_core import _speedups as s\n"
        "import nuif_core\n"
        "ctypes.CDLL(sys.argv[1])\n"
        "s._set_crypto('loaded', sys.argv[2])\n"
        "r = nuif_core.canonicalize(b'{\"nuif\":0,\"root\":{\"id\":\"a\",\"kind\":\"b\"}}')\n"
        "print(*s.crypto_binding(), r.hash)\n"
    )
    want = nuif_core.canonicalize(b'{"nuif":0,"root":{"id":"a","kind":"b"}}').hash
    for name, taken in (("libcrypto-nuif-plain", False), ("libcrypto-nuif-api", True)):
        expect = ["loaded", str(libs[name]), want] if taken else ["none", want]
        assert python_c(code, str(libs[name]), name).split() == expect, name
    # without a prefix (as at import), the libcrypto hashlib's _hashlib uses comes first, even
    # when a look-alike with OpenSSL's API (a libcrypto a wheel bundles, say) was loaded before
    code = (
        "import ctypes, sys\n"
        "ctypes.CDLL(sys.argv[1])\n"
        "from nuif_core import _speedups as s\n"
        "first = s.crypto_binding()\n"
        "s._set_crypto('loaded')\n"
        "print(first[0], first[1] or '-', *s.crypto_binding())\n"
    )
    first, first_path, how, path = python_c(code, str(libs["libcrypto-nuif-api"])).split()
    assert how == "loaded" and {os.path.realpath(path)} == mapped_libcrypto(), path
    if first == "loaded":  # a build that links none bound the same one at import
        assert first_path == path
