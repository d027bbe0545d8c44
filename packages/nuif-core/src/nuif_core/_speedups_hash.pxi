# Part of _speedups.pyx (included there): SHA-256 of canonical texts, as ``"sha256:"`` + hex.

# libcrypto directly (csrc/nuif_sha256.h), for texts up to SHA_DIRECT_MAX bytes, when its
# functions are bound (csrc/nuif_crypto.h): linked by the build, or else found at import in the
# libcrypto the interpreter loaded for hashlib (release wheels link none); larger texts go
# through hashlib, which releases the GIL while it hashes (the direct path shares one context and
# must not).  ``_set_openssl(False)`` switches to hashlib so the tests can compare the two.
def _bind_loaded_crypto(prefix=None):
    """Bind libcrypto's SHA-256 functions to the libcrypto the interpreter's hashlib uses (the
    one its ``_hashlib`` module depends on; hashlib has imported it already where it uses
    OpenSSL), else to the first loaded library whose file name starts with ``"libcrypto"``.
    With ``prefix`` (tests), only the latter, by that prefix.  Returns whether they are bound."""
    cdef bytes p = prefix.encode() if prefix is not None else b""
    cdef bytes via = b""
    try:
        import _hashlib
    except ImportError:  # an interpreter without OpenSSL: hashlib hashes
        _hashlib = None
    if prefix is None and isinstance(getattr(_hashlib, "__file__", None), str):
        via = _hashlib.__file__.encode()
    return nuif_crypto_bind(NUIF_CRYPTO_LOADED, via, p) == NUIF_CRYPTO_LOADED


if nuif_crypto_binding(NULL) == NUIF_CRYPTO_NONE and nuif_crypto_can(NUIF_CRYPTO_LOADED):
    _bind_loaded_crypto()
cdef bint _openssl = nuif_sha256_backend() == 1
cdef Py_ssize_t SHA_DIRECT_MAX = 64 * 1024


# Texts of documents of at least _pipe_min input bytes are hashed on a second thread while they
# are written, fed every _pipe_step output bytes (csrc/nuif_hashpipe.h).  Measured on `ui`: at
# 256 KiB the thread's start and hand-overs (~40 us) cost what overlapping the hash saves, at 1 MiB
# it saves ~7 % (16 MiB: ~10 %).  A process allowed on one CPU only gains nothing from a second
# thread: it never starts one.
cdef Py_ssize_t _pipe_min = PY_SSIZE_T_MAX

# Below _follow_max input bytes, the text of a call that shared its walk with a spinning pooled
# thread (the mid-size split), of a mid-size call walked alone that the solo record offers one
# (_solo_offers_follow), or of an input of _pipe_min bytes and more, is hashed by a *follower*
# instead (csrc/nuif_hashpipe.h): a pooled thread (the one the split walk's helper gave back, or
# the one a walk alone warmed), reading the text right behind the writer, fed every _follow_step
# bytes.  Measured in one process
# (docs/parser-design.md, "The hash behind the writer"): 64 KiB 1.09-1.11x faster than hashing
# after the writer, 1 MiB 1.07-1.13x faster than the pipe; at 16 MiB the pipe is as fast or
# faster (`strings` 0.95), so it keeps the largest texts.
cdef Py_ssize_t _follow_max = 4 << 20
cdef Py_ssize_t _follow_step = 2048
cdef bint _follow_fault = False
# From _pipe_min up, the writer waits for a follower that is in the middle of its blocks, and a
# follower descheduled there (another process busy on the second CPU) holds the call up: with a
# Python loop pinned to it, `strings` 1 MiB took 1.35x the time with the follower that it took
# with the pipe, which never waits for its thread to be scheduled.  So in that range each call's
# writer is timed, from its start to the text and its digest, per KiB of input, into a record
# of the last HOT_RING calls with the follower and with the pipe (_ring_keep, as the mid-size
# split's); the follower is used unless its mean is above the pipe's, and one call in
# _big_trial (xorshift) goes the other way, so that both stay current.  _big_guard off: always
# the follower (tests).
cdef Ring2 _big_rings  # [0]: the pipe, [1]: the follower
_big_rings.len[0] = _big_rings.len[1] = _big_rings.next[0] = _big_rings.next[1] = 0
cdef double _big_ns_pipe = 0.0
cdef double _big_ns_follow = 0.0
cdef uint32_t _big_rng = 88172645u
cdef uint32_t _big_trial = 16
cdef bint _big_guard = True


cdef inline bint _big_offers_follow() noexcept:
    """Whether the text of an input from _pipe_min up is hashed by a follower (else the pipe)."""
    return _ring_offers(_big_ns_follow, _big_ns_pipe, 1.0, _big_guard, _big_trial, &_big_rng)


cdef void _big_keep(bint follow, long long t0, Py_ssize_t n) noexcept:
    """Keep the time since ``t0`` of the writer of a text of ``n`` input bytes."""
    global _big_ns_pipe, _big_ns_follow
    cdef long long ns = nuif_clock_ns() - t0
    if ns <= 0 or n <= 0:
        return
    if follow:
        _big_ns_follow = _ring_keep(&_big_rings, 1, <double>ns * 1024.0 / <double>n, _big_ns_follow)
    else:
        _big_ns_pipe = _ring_keep(&_big_rings, 0, <double>ns * 1024.0 / <double>n, _big_ns_pipe)


def _usable_cpus():
    import os
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# The structural-index parser (_indexed_min, _speedups_parser.pxi) builds the tapes of inputs of
# 1 MiB and more, with its first stage on a second thread (csrc/nuif_indexpipe.h): measured
# 0-15 % faster than the one-pass parser there on an idle machine, on a par on a busy one.  With
# its first stage on the parsing thread, or below 1 MiB (the thread's start costs 10-25 % at
# 64 KiB), it is not faster: without a second usable CPU or threads, it stays off
# (docs/parser-design.md, "Indexed vs one-pass, measured").
if _usable_cpus() >= 2:
    _pipe_min = 512 * 1024
    if nuif_ipipe_available():
        _ipipe_min = 1024 * 1024
        _indexed_min = 1024 * 1024
        _split_min = 512 * 1024
        _split_hot_min = 32 * 1024
# NUIF_THREAD_SPIN_US: how long a pooled thread spins for its next job before it sleeps
# (csrc/nuif_indexpipe.h; 200 by default; 0: never, and then no input below _split_min is
# shared); read once, at import; a value that is not a whole number from 0 to 1000000 is
# ignored with a RuntimeWarning (docs/format.md, "Threads").
def _spin_from_env():
    """NUIF_THREAD_SPIN_US's microseconds, or None (not set, or not valid: warned)."""
    import os
    v = os.environ.get("NUIF_THREAD_SPIN_US", "").strip()
    if not v:
        return None
    us = int(v) if v.isascii() and v.isdigit() and len(v) <= 7 else -1
    if not 0 <= us <= 1000000:
        import warnings
        warnings.warn(f"NUIF_THREAD_SPIN_US={v!r} ignored: it must be a whole number of "
                      f"microseconds from 0 to 1000000", RuntimeWarning, stacklevel=2)
        return None
    return us


_env_spin = _spin_from_env()
if _env_spin is not None:
    nuif_thread_set_spin(_env_spin)
if _split_hot_min != PY_SSIZE_T_MAX:
    _split_hot_max = nuif_thread_spin() * HOT_BYTES_PER_US
cdef Py_ssize_t _pipe_step = 128 * 1024
cdef bint _pipe_fault = False


cdef object _hash_text(object canonical, const unsigned char* known=NULL):
    """``"sha256:"`` + lowercase hex SHA-256: libcrypto's or hashlib's digest (or ``known``, the
    digest already computed while writing), hex written here."""
    cdef unsigned char raw[32]
    cdef const uint8_t* d = raw
    cdef char* o
    cdef bytes dg = None
    if known != NULL:
        d = known
    elif not (_openssl and type(canonical) is bytes
            and PyBytes_GET_SIZE(canonical) <= SHA_DIRECT_MAX
            and nuif_sha256(PyBytes_AS_STRING(canonical), PyBytes_GET_SIZE(canonical), raw) == 0):
        dg = _sha256(canonical).digest()
        if PyBytes_GET_SIZE(dg) != 32:  # pragma: no cover - hashlib's sha256 is SHA-256
            raise ValueError("hashlib.sha256 did not return 32 bytes")
        d = <const uint8_t*>PyBytes_AS_STRING(dg)
    s = PyUnicode_New(71, 127)
    o = <char*>PyUnicode_DATA(s)
    memcpy(o, b"sha256:", 7)
    nuif_hex32(o + 7, d)
    return s
