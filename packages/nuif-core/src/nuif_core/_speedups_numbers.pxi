# Part of _speedups.pyx (included there): numbers.  Doubles to and from text (the digit work is C:
# csrc/nuif_number.h; this part picks the conversion route), for dumps and loads.

# The vendored fast_float (parsing) and Dragonbox (shortest digits; csrc/nuif_float.h) when the
# build has a C++17 compiler, else CPython's dtoa.  Both are correctly rounded and give the same
# bytes; ``_settings(float_libs=False)`` (tests) uses dtoa so the tests can compare the two.
cdef bint _float_libs = nuif_float_backend() == 1


cdef Py_ssize_t _fmt_double(char* o, double x) except -1:
    """ECMAScript Number.prototype.toString of a finite double into o (NUMBER_TEXT_MAX bytes)."""
    cdef NumInfo r
    cdef char* s
    cdef int k, point
    if x == 0.0:
        o[0] = 0x30
        return 1
    if _float_libs:
        k = nuif_shortest_digits(x, r.d, &point)
        if k > 0:
            return nuif_fmt_es(o, x < 0.0, r.d, k, point)
    s = PyOS_double_to_string(x, b'r', 0, 0, NULL)
    try:
        nuif_analyze(<const uint8_t*>s, <Py_ssize_t>strlen(s), &r)
    finally:
        PyMem_Free(s)
    return nuif_fmt_es(o, r.neg, r.d, r.k, r.n)


cdef double _literal_double(const uint8_t* s, Py_ssize_t L, NumInfo* r) except? -1.0:
    """The correctly rounded double of a non-integer literal (as float() gives it); ``r`` is
    its ``nuif_analyze``."""
    cdef double x
    cdef char* end
    if r.k == 0:
        return 0.0
    if nuif_small_decimal(r, &x):
        return x
    if _float_libs and nuif_parse_double(<const char*>s, <size_t>L, &x) == 0:
        return x
    # the bytes object is NUL-terminated and a literal never continues into what follows it
    x = PyOS_string_to_double(<const char*>s, &end, NULL)
    return x


cdef Py_ssize_t _big_integer(const uint8_t* s, Py_ssize_t L, double* x, char* nearest) except -2:
    """An integer literal beyond ±(2^53 - 1) (NUIF-0.1 §1.5, docs/spec/nuif-0.1.md): *x gets its
    correctly rounded double.  Returns -1 when the literal is exactly the RFC 8785 text of *x
    (accepted: it reads back unchanged), 0 when *x overflows, else the length of the nearest
    double's RFC 8785 text, written into nearest (NUMBER_TEXT_MAX bytes)."""
    cdef NumInfo r
    cdef Py_ssize_t n
    nuif_analyze(s, L, &r)
    x[0] = _literal_double(s, L, &r)
    if isinf(x[0]):
        return 0
    n = _fmt_double(nearest, x[0])
    if n == L and memcmp(nearest, s, L) == 0:
        return -1
    return n
