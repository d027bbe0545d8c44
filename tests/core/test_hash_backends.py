"""The compiled codec's SHA-256 routes give hashlib's digest.

``_speedups.hash_bytes`` (and ``canonical_result``) call OpenSSL's libcrypto directly when its
SHA-256 functions are bound (``hash_backend() == "openssl"``; texts up to 64 KiB): its
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
from nuif_switches import following

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


# -- hashing while writing (csrc/nuif_hashpipe.h) ------------------------------------------------
# Documents of 512 KiB and more are hashed on a second thread while their canonical text is
# written.  ``_set_hashpipe(min_bytes, step)`` lowers the threshold and the feed step so small
# documents exercise every interleaving: feeds of one byte, a step larger than the text, and an
# output buffer that grows (and moves) while the thread hashes it.

HAVE_PIPE = compiled.hashpipe_backend() != "none"  # "off": built in, not used by default
needs_pipe = pytest.mark.skipif(not HAVE_PIPE, reason="built without OpenSSL or POSIX threads")


@contextmanager
def hashpipe(min_bytes: int, step: int, *, fault: bool = False) -> Iterator[None]:
    """The pipe from ``min_bytes``, and no follower (which would take the texts below 4 MiB)."""
    old = compiled._set_hashpipe(min_bytes, step, fault)
    old_follow = compiled._set_follow(0, 1)
    try:
        yield
    finally:
        compiled._set_hashpipe(*old)
        compiled._set_follow(*old_follow)


def threads() -> int | None:
    """This process's thread count (Linux), or None where /proc does not say."""
    import os

    task = "/proc/self/task"
    return len(os.listdir(task)) if os.path.isdir(task) else None


def busy_threads() -> int | None:
    """This process's threads but the codec's idle pooled ones (Linux), or None: a pooled thread
    waits for its next job for NUIF_POOL_KEEP_S seconds by design, a hashing thread still at work
    after its call is a bug."""
    n = threads()
    return None if n is None else n - compiled._thread_counts()[2]


def settled(count: int | None) -> bool:
    """The busy thread count is back to at most ``count`` within 5 s (a pooled thread that
    finished its job may take a moment to go idle).  At most: a thread that an earlier test
    left behind (a worker pool winding down) may end meanwhile; a hashing thread that does not
    end keeps the count above ``count``."""
    import time

    if count is None:
        return threads() is None
    deadline = time.monotonic() + 5
    while (busy_threads() or 0) > count and time.monotonic() < deadline:
        time.sleep(0.01)
    return (busy_threads() or 0) <= count


def growing_document(n: int) -> bytes:
    """A valid document whose canonical text is longer than its input (1E20 is 21 digits), so
    the output buffer must grow while the text is being written and hashed."""
    values = ",".join(["1E20"] * n)
    return b'{"nuif":0,"root":{"id":"a","kind":"b","attrs":{"v":[' + values.encode() + b"]}}}"


@needs_pipe
@pytest.mark.parametrize("step", [1, 7, 64, 1000, 1 << 20])
def test_the_digest_hashed_while_writing_is_hashlibs(step: int) -> None:
    from benchmarks.corpus import load

    for text in (load("ui", 64 * 1024), load("strings", 64 * 1024), growing_document(3000)):
        serial = nuif_core.canonicalize(text)
        with hashpipe(0, step):
            piped = nuif_core.canonicalize(text)
            report = nuif_core.validate(text)
        assert piped == serial
        assert piped.hash == expected(piped.canonical)
        assert report.valid and report.hash == serial.hash


@needs_pipe
def test_the_output_grows_while_it_is_hashed() -> None:
    text = growing_document(20000)
    result = nuif_core.canonicalize(text)
    assert len(result.canonical) > 4 * len(text)  # the buffer (input size + 64) grew, twice+
    for step in (1, 3, 4096):
        with hashpipe(0, step):
            assert nuif_core.canonicalize(text) == result


@needs_pipe
def test_an_error_while_writing_stops_the_thread_and_the_next_call_works() -> None:
    text = growing_document(2000)
    result = nuif_core.canonicalize(text)
    before = busy_threads()
    with hashpipe(0, 16, fault=True):
        for _ in range(20):
            with pytest.raises(MemoryError, match="injected"):
                nuif_core.canonicalize(text)
    assert settled(before)  # every hashing thread ended
    with hashpipe(0, 16):
        assert nuif_core.canonicalize(text) == result
    assert settled(before)


# -- the follower (csrc/nuif_hashpipe.h) ------------------------------------------------------------
# The text of a call that shared its walk with a spinning pooled thread (32-133 KiB, while the
# mid-size split's record says sharing pays), and of an input from the pipe's 512 KiB up to
# 4 MiB, is hashed by a follower: the pooled thread, reading right behind the writer.  With the
# pipe's threshold at 0 (``follower``), every document takes it whether or not a thread spins; a
# follower that has not started when the writer is done is taken over (the writer hashes all).

def follower(step: int, *, fault: bool = False) -> AbstractContextManager[None]:
    return following(compiled, step, fault=fault)


def followed(text: bytes, tries: int = 50) -> tuple[nuif_core.CanonicalResult, int]:
    """canonicalize ``text`` until a follower hashed part of it (at most ``tries`` calls: the
    first may find no thread in the pool); the result and the bytes the follower hashed."""
    for _ in range(tries):
        started = compiled._follow_last()[0]
        result = nuif_core.canonicalize(text)
        now, hashed = compiled._follow_last()
        if now > started and hashed > 0:
            return result, hashed
    return result, 0


@needs_pipe
@pytest.mark.parametrize("step", [1, 7, 64, 1000, 1 << 20])
def test_the_digest_a_follower_hashes_is_hashlibs(step: int) -> None:
    from benchmarks.corpus import load

    for text in (load("ui", 64 * 1024), load("strings", 64 * 1024), growing_document(3000)):
        serial = nuif_core.canonicalize(text)
        with follower(step):
            for _ in range(3):
                assert nuif_core.canonicalize(text) == serial
            report = nuif_core.validate(text)
        assert serial.hash == expected(serial.canonical)
        assert report.valid and report.hash == serial.hash


@needs_pipe
def test_a_follower_hashes_the_text_but_its_last_partial_block() -> None:
    from benchmarks.corpus import load

    text = load("ui", 64 * 1024)
    serial = nuif_core.canonicalize(text)
    with follower(2048):
        result, hashed = followed(text)
    assert result == serial
    # the follower reads whole 64-byte blocks: it stops at the last one the writer finished
    assert hashed == len(serial.canonical) // 64 * 64


@needs_pipe
def test_the_output_grows_while_a_follower_hashes_it() -> None:
    text = growing_document(20000)
    result = nuif_core.canonicalize(text)
    assert len(result.canonical) > 4 * len(text)  # the buffer (input size + 64) grew, twice+
    # every call starts in a scratch buffer of the input's size + 64 (a larger one is not kept)
    old_keep = compiled._set_scratch_keep(len(text) + 64)
    try:
        for step in (1, 3, 4096):
            with follower(step):
                got, hashed = followed(text)
            assert got == result
            # the first growth ends the follower (the buffer moves): it had hashed no further
            assert 0 < hashed <= len(text) + 64
    finally:
        compiled._set_scratch_keep(old_keep)



# -- small texts: hashed by the writer itself, a block at a time (``_set_sha_beside``) -----------


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
    canonical_document (no hash asked), nor for an input of 16 KiB or more."""
    small = next(texts_around_block_edges())
    big = json.dumps({"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": {"t": "x" * 17000}}}
                     ).encode()
    with beside(True):
        before = compiled._sha_beside_count()
        with through_hashlib():
            got = nuif_core.canonicalize(small)
        assert got.hash == expected(got.canonical)
        compiled.canonical_json(small, 128)
        compiled.canonical_document(small, 128, 100)
        got = nuif_core.canonicalize(big)
        assert got.hash == expected(got.canonical)
        assert compiled._sha_beside_count() == before
        nuif_core.canonicalize(small)
        assert compiled._sha_beside_count() == before + 1


@needs_pipe
@pytest.mark.parametrize("route", ["pipe", "follower"])
@settings(max_examples=60, deadline=None)
@given(st.dictionaries(attr_names, values, max_size=6), st.integers(min_value=1, max_value=200))
def test_any_document_hashes_the_same_hashed_after_or_while_it_is_written(
        route: str, attrs: dict, step: int) -> None:
    doc = {"nuif": 0, "root": {"id": "a", "kind": "b", "attrs": attrs}}
    text = json.dumps(doc, indent=1, ensure_ascii=False).encode()
    serial = nuif_core.canonicalize(text)
    with hashpipe(0, step) if route == "pipe" else follower(step):
        # twice: a follower's first job may find no pooled thread spinning yet
        assert nuif_core.canonicalize(text) == serial
        assert nuif_core.canonicalize(text) == serial
    assert serial.hash == expected(serial.canonical)


def many_nodes(n: int) -> bytes:
    """A valid document of ``n`` nodes, every third with empty attrs and children (omitted),
    so that the §3 check, shared with the follower, has work and marks to make."""
    kids = [{"id": f"n{i}", "kind": "k", **({"attrs": {}, "children": []} if i % 3 == 0
                                           else {"attrs": {"w": i}})} for i in range(n)]
    return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}).encode()


@needs_pipe
@pytest.mark.parametrize("make", [growing_document, many_nodes])
def test_an_error_while_writing_stops_the_follower_and_the_next_call_works(
        make: Callable[[int], bytes]) -> None:
    # (and ends the §3 check the follower shares: the next call's check starts afresh)
    text = make(2000)
    result = nuif_core.canonicalize(text)
    with follower(16, fault=True):
        for _ in range(20):
            with pytest.raises(MemoryError, match="injected by _set_follow"):
                nuif_core.canonicalize(text)
    with follower(16):
        got, hashed = followed(text)
    assert got == result and hashed > 0


@needs_pipe
def test_the_follower_switch_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        compiled._set_follow(1, 0)
    with pytest.raises(ValueError):
        compiled._set_follow(-1, 1)
    old = compiled._set_follow(0, 1)
    compiled._set_follow(*old)
    assert old == (4 << 20, 2048, False)  # the default: below 4 MiB, fed every 2 KiB


@needs_pipe
@pytest.mark.skipif(compiled.split_backend() != "thread",
                    reason="the mid-size split needs threads and a second usable CPU")
def test_a_mid_size_call_shared_with_a_spinning_thread_is_hashed_by_a_follower() -> None:
    """By default: no pipe below 512 KiB, so the follower comes with the shared walk only."""
    from benchmarks.corpus import load

    text = load("numbers", 64 * 1024)
    serial = nuif_core.canonicalize(text)
    old_spin = compiled._set_thread_spin(2_000_000)  # spinning through the test
    old_record = compiled._set_hot_record(0.0, 0.0, False, 16)  # every mid-size call shared
    try:
        # a call that finds no thread spinning walks alone (and may still get a follower,
        # offered to calls walked alone): the first calls may, on a busy machine
        for _ in range(50):
            walks = compiled._split_walks()
            got, hashed = followed(text, tries=1)
            if compiled._split_walks() > walks and hashed > 0:
                break
        else:
            pytest.fail("no call of 50 was walked on two threads and hashed by a follower")
        assert got == serial and hashed == len(serial.canonical) // 64 * 64
        # walked alone (the split switched off), the same call hashes its text itself
        old_hot = compiled._set_hot(None, None)
        try:
            started = compiled._follow_last()[0]
            assert nuif_core.canonicalize(text) == serial
            assert compiled._follow_last()[0] == started
        finally:
            compiled._set_hot(*old_hot)
    finally:
        compiled._set_thread_spin(old_spin)
        compiled._set_hot_record(*old_record)


@needs_pipe
def test_a_process_that_exits_right_after_a_follower_hashed_exits_cleanly() -> None:
    """The writer waits for its follower's last libcrypto call before it returns, and a follower
    job that starts too late makes none: libcrypto's clean-up at exit races nothing."""
    code = (
        "import nuif_core\n"
        "from nuif_core import _speedups as s\n"
        "s._set_hashpipe(0, 1 << 20); s._set_follow(1 << 40, 64); s._set_big_record(0, 0, False)\n"
        "text = b'{\"nuif\":0,\"root\":{\"id\":\"a\",\"kind\":\"b\",\"attrs\":{\"v\":[' + b','.join("
        "[b'1E20'] * 3000) + b']}}}'\n"
        "for _ in range(30):\n"
        "    r = nuif_core.canonicalize(text)\n"
        "print(s._follow_last()[0] >= 30, r.hash)\n"
    )
    want = nuif_core.canonicalize(growing_document(3000)).hash
    for _ in range(8):
        assert python_c(code).split() == ["True", want]


# From the pipe's 512 KiB up (below 4 MiB), the follower and the pipe are each timed, and a record
# of the last 16 calls with each decides, one call in 16 going the other way: a follower that a
# busy second CPU deschedules holds the writer up, the pipe never does.
needs_big = pytest.mark.skipif(compiled.hashpipe_backend() != "thread",
                               reason="no hashing thread here (built without, or one CPU)")


@contextmanager
def big_record(follow: float, pipe: float, trial: int) -> Iterator[None]:
    old = compiled._set_big_record(follow, pipe, True, trial)
    try:
        yield
    finally:
        compiled._set_big_record(*old)


def big_text() -> bytes:
    from benchmarks.corpus import load

    text = load("ui", 1 << 20)
    assert 512 * 1024 <= len(text) < 4 << 20
    return text


@needs_big
def test_from_512_kib_a_follower_recorded_slower_than_the_pipe_is_not_used() -> None:
    text = big_text()
    want = nuif_core.canonicalize(text)
    with big_record(1e9, 1.0, 0):  # the follower far slower, no trials
        started = compiled._follow_last()[0]
        for _ in range(3):
            assert nuif_core.canonicalize(text) == want
        assert compiled._follow_last()[0] == started
        follow, pipe = compiled._big_record_state()
    assert follow == 1e9 and pipe > 1.0  # the pipe's calls were kept


@needs_big
def test_from_512_kib_a_follower_recorded_faster_is_used_and_timed() -> None:
    text = big_text()
    want = nuif_core.canonicalize(text)
    with big_record(1.0, 1e9, 0):
        started = compiled._follow_last()[0]
        for _ in range(3):
            assert nuif_core.canonicalize(text) == want
        assert compiled._follow_last()[0] == started + 3
        follow, pipe = compiled._big_record_state()
    assert follow > 1.0 and pipe == 1e9


@needs_big
def test_from_512_kib_trials_go_the_way_the_record_does_not_take() -> None:
    text = big_text()
    want = nuif_core.canonicalize(text)
    with big_record(1.0, 1e9, 1):  # every call a trial: the pipe, though the follower leads
        started = compiled._follow_last()[0]
        for _ in range(3):
            assert nuif_core.canonicalize(text) == want
        assert compiled._follow_last()[0] == started
        follow, pipe = compiled._big_record_state()
    assert follow == 1.0 and pipe < 1e9


def test_the_big_record_switch_refuses_negative_values_and_returns_the_old_setting() -> None:
    with pytest.raises(ValueError):
        compiled._set_big_record(-1.0, 0.0)
    with pytest.raises(ValueError):
        compiled._set_big_record(0.0, 0.0, True, -1)
    old = compiled._set_big_record(2.0, 3.0, False, 4)
    try:
        assert compiled._big_record_state() == (2.0, 3.0)
        assert compiled._set_big_record(0.0, 0.0) == (2.0, 3.0, False, 4)
        assert compiled._big_record_state() == (0.0, 0.0)
    finally:
        compiled._set_big_record(*old)


def test_no_thread_below_the_threshold_or_without_openssl() -> None:
    from benchmarks.corpus import load

    text = load("ui", 64 * 1024)
    result = nuif_core.canonicalize(text)
    with hashpipe(0, 1, fault=True):
        with through_hashlib():  # no direct OpenSSL route: no thread, so no injected fault
            assert nuif_core.canonicalize(text) == result
    with hashpipe(len(text) + 1, 1, fault=True):  # below the threshold: no thread either
        assert nuif_core.canonicalize(text) == result


def test_the_pipe_switch_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        compiled._set_hashpipe(0, 0)
    with pytest.raises(ValueError):
        compiled._set_hashpipe(-1, 1)
    assert compiled.hashpipe_backend() in ("thread", "off", "none")


def test_ci_build_hashes_while_writing() -> None:
    import os

    if os.environ.get("NUIF_REQUIRE_OPENSSL") != "1":
        pytest.skip("NUIF_REQUIRE_OPENSSL is not set (CI sets it)")
    assert HAVE_PIPE


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="Linux only")
def test_a_process_allowed_on_one_cpu_never_starts_the_thread() -> None:
    import sys

    code = (
        "import os\n"
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
        "from nuif_core import _speedups as s\n"
        "print(s.hashpipe_backend(), s._set_hashpipe(1, 1)[0])\n"
    )
    backend, threshold = python_c(code).split()
    assert int(threshold) == sys.maxsize  # the default threshold: never
    assert backend == ("off" if HAVE_PIPE else "none")  # and --version does not claim it
    if len(__import__("os").sched_getaffinity(0)) >= 2:  # this process: the thread from 512 KiB
        old = compiled._set_hashpipe(0, 1)
        compiled._set_hashpipe(*old)
        assert old[0] == 512 * 1024


@needs_pipe
def test_a_process_that_exits_right_after_hashing_on_the_thread_exits_cleanly() -> None:
    """The worker may still be exiting when the interpreter ends and libcrypto cleans up at
    exit: after the writer lets go, the worker makes no OpenSSL call (csrc/nuif_hashpipe.c)."""
    code = (
        "import nuif_core\n"
        "from nuif_core import _speedups as s\n"
        "s._set_hashpipe(0, 64)\n"
        "text = b'{\"nuif\":0,\"root\":{\"id\":\"a\",\"kind\":\"b\",\"attrs\":{\"v\":[' + b','.join("
        "[b'1E20'] * 3000) + b']}}}'\n"
        "for _ in range(30):\n"
        "    r = nuif_core.canonicalize(text)\n"
        "print(r.hash)\n"
    )
    text = growing_document(3000)
    want = nuif_core.canonicalize(text).hash
    for _ in range(8):
        assert python_c(code).strip() == want


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
        assert compiled.hash_backend() == "openssl" and compiled.hashpipe_backend() != "none"
        for size in (0, 1, 55, 56, 64, 1000, LIMIT):
            data = random.Random(size).randbytes(size)
            assert compiled.hash_bytes(data) == expected(data)
        for text, result in zip(texts, results):
            assert nuif_core.canonicalize(text) == result
            with hashpipe(0, 7):
                assert nuif_core.canonicalize(text) == result
            if len(text) > 1000:  # the pipe ran (its injected fault fires only in the pipe)
                with hashpipe(0, 16, fault=True), pytest.raises(MemoryError, match="injected"):
                    nuif_core.canonicalize(text)
            with follower(64):
                got, hashed = followed(text)
                assert got == result
                assert hashed > 0 or len(result.canonical) < 64  # the loaded functions hashed


@pytest.mark.skipif(not CAN_LOAD, reason="this build cannot look libcrypto up at import")
def test_a_search_that_finds_no_library_leaves_hashlib_to_hash() -> None:
    text = growing_document(3000)
    result = nuif_core.canonicalize(text)
    with bound("loaded", "libnuif-no-such-library") as (how, path):
        assert (how, path) == ("none", "")
        assert compiled.hashpipe_backend() == "none"
        with follower(64):
            started = compiled._follow_last()[0]
            assert nuif_core.canonicalize(text) == result
            assert compiled._follow_last()[0] == started  # no follower without the functions
        with hashpipe(0, 1, fault=True):  # no pipe either, so its injected fault never fires
            assert nuif_core.canonicalize(text) == result
        data = b"x" * 1000
        assert compiled.hash_bytes(data) == expected(data)
    with bound("none") as (how, _):
        assert how == "none" and compiled.hashpipe_backend() == "none"
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
        "print(s.crypto_binding()[0], s.hash_backend(), s.hashpipe_backend(), "
        "'/libcrypto' in maps, r.hash)\n"
    )
    want = nuif_core.canonicalize(b'{"nuif":0,"root":{"id":"a","kind":"b"}}').hash
    assert python_c(code).split() == ["none", "hashlib", "none", "False", want]


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
