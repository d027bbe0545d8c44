# Part of _speedups.pyx (included there): the one-call path of small documents.  The front
# doors (_speedups_doors.pxi) give it a call they take whose input is shorter than 16 KiB and
# routed as this build routes such inputs by default; it runs the walk, the §3 check and the
# writer with its hash in one C function on a state kept between calls (csrc/nuif_small.h), and
# only the result's three objects are made here.  Any input it does not answer -- not a valid
# document, a double only Python prints, memory short -- goes on to the general path, which does
# the whole call again and owns every error and diagnostic (docs/parser-design.md, "The one-call
# path of small documents").

# on (tests: _set_small); it takes inputs below SMALL_MAX bytes: above, its fixed cost (the
# general path's per-call objects) is under 2 % of a call
cdef bint _small_on = True
cdef Py_ssize_t SMALL_MAX = 16 * 1024
# the state: its buffers grow to the largest input taken and stay for the next call
cdef Small _small
# the default limits as C integers (bind_front_doors)
cdef Py_ssize_t _small_depth = 0
cdef Py_ssize_t _small_nodes = 0


cdef inline bint _small_takes(Py_ssize_t n) noexcept:
    """Whether an input of ``n`` bytes is the path's: shorter than 16 KiB, and routed as the
    general path routes it by default -- the walk, the text hashed by the writer with
    libcrypto.  Each switch that routes it otherwise (tests) turns the path off for it."""
    return (_small_on and n < SMALL_MAX and _sha_beside and _walk_on
            and not _sha_beside_fault and _openssl)


cdef inline int _small_run(bytes data) noexcept:
    """NUIF_SMALL_OK with the canonical text and its digest in ``_small``, else NUIF_SMALL_PASS
    (the caller takes the general path)."""
    cdef const uint8_t* p = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    if not _utf8_ok(p, n):
        return NUIF_SMALL_PASS
    return nuif_small_run(&_small, p, <size_t>n, <size_t>_small_depth, <size_t>_small_nodes,
                          _float_libs)


cdef object _small_result(bytes data):
    """``CanonicalResult`` of ``data`` (a door's call: bytes, default limits), or None."""
    if _small_run(data) != NUIF_SMALL_OK:
        return None
    # the state read out before the result object, whose allocation may run a collection (and
    # so any Python code, another call of this path among it); bytes and str objects are not
    # tracked by the collector
    canonical = PyBytes_FromStringAndSize(_small.out, <Py_ssize_t>_small.out_len)
    h = _hash_text(canonical, _small.digest)
    return _made3(_door_result_cls, _RESULT_FIELDS, canonical, h,
                  not _same_bytes(canonical, data))


cdef object _small_report(bytes data):
    """``ValidationReport`` of a valid ``data`` (as ``_small_result``), or None."""
    if _small_run(data) != NUIF_SMALL_OK:
        return None
    h = _hash_text(None, _small.digest)  # before any allocation a collection may follow
    return _filled(_door_report_cls, _REPORT_FIELDS, (True, h, (), False))


cdef int _small_limits(object max_depth, object max_nodes) except -1:
    """The default limits as the path's C integers (ints: bind_front_doors checked)."""
    global _small_depth, _small_nodes
    _small_depth = _clamp_depth(max_depth, LIMIT_TAPE)
    _small_nodes = _clamp_count(max_nodes) if max_nodes >= 0 else 0
    if _small_depth < 0:
        _small_depth = 0
    return 0
