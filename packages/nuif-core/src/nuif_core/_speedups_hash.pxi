# Part of _speedups.pyx (included there): SHA-256 of canonical texts, as ``"sha256:"`` + hex.

# libcrypto directly (csrc/nuif_sha256.h) when the build linked it, for texts up to
# SHA_DIRECT_MAX bytes; larger texts go through hashlib, which releases the GIL while it hashes
# (the direct path shares one context and must not).  ``_set_openssl(False)`` switches to
# hashlib so the tests can compare the two.
cdef bint _openssl = nuif_sha256_backend() == 1
cdef Py_ssize_t SHA_DIRECT_MAX = 64 * 1024


# Texts of documents of at least _pipe_min input bytes are hashed on a second thread while they
# are written, fed every _pipe_step output bytes (csrc/nuif_hashpipe.h).  Measured on `ui`: at
# 256 KiB the thread's start and hand-overs (~40 us) cost what overlapping the hash saves, at 1 MiB
# it saves ~7 % (16 MiB: ~10 %).  A process allowed on one CPU only gains nothing from a second
# thread: it never starts one.
cdef Py_ssize_t _pipe_min = PY_SSIZE_T_MAX

# Below _follow_max input bytes, the text of a call that shared its walk with a spinning pooled
# thread (the mid-size split), or of an input of _pipe_min bytes and more, is hashed by a
# *follower* instead (csrc/nuif_hashpipe.h): the pooled thread the split walk's helper gave back,
# reading the text right behind the writer, fed every _follow_step bytes.  Measured in one process
# (docs/parser-design.md, "The hash behind the writer"): 64 KiB 1.09-1.11x faster than hashing
# after the writer, 1 MiB 1.07-1.13x faster than the pipe; at 16 MiB the pipe is as fast or
# faster (`strings` 0.95), so it keeps the largest texts.
cdef Py_ssize_t _follow_max = 4 << 20
cdef Py_ssize_t _follow_step = 2048
cdef bint _follow_fault = False


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
    us = int(v) if v.isascii() and v.isdigit() else -1
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
    cdef Py_ssize_t k
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
    for k in range(32):
        memcpy(o + 7 + 2 * k, HEX2 + 2 * d[k], 2)
    return s
