# Part of _speedups.pyx (included there): numbers.  Doubles to and from text (the digit work is C:
# csrc/nuif_number.h; this part picks the conversion route and raises), and the parser's scanning
# of number literals (``_scan_number``).

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


cdef Py_ssize_t _scan_number(_Parser parser, Py_ssize_t i) except -1:
    """Scan the number literal at i into a value; return the index after it."""
    cdef const uint8_t* p = parser.p
    cdef Py_ssize_t start = i, L, nd, int_s, int_e, mant_e
    cdef bint neg = False, integer = True, has_exp = False
    cdef int rc = -1
    cdef NumInfo r
    cdef double x
    cdef int64_t v
    if p[i] == 0x2D:
        neg = True
        i += 1
    int_s = i
    if not (0x30 <= p[i] <= 0x39):
        parser.syntax(EXPECT_DIGIT, i)
    if p[i] == 0x30:
        i += 1
    else:
        i = nuif_digits_end(p, i, parser.n)
    int_e = i
    if p[i] == 0x2E:
        integer = False
        i += 1
        if not (0x30 <= p[i] <= 0x39):
            parser.syntax(EXPECT_DIGIT, i)
        i = nuif_digits_end(p, i, parser.n)
    mant_e = i
    if p[i] == 0x65 or p[i] == 0x45:
        integer = False
        has_exp = True
        i += 1
        if p[i] == 0x2B or p[i] == 0x2D:
            i += 1
        if not (0x30 <= p[i] <= 0x39):
            parser.syntax(EXPECT_DIGIT, i)
        while 0x30 <= p[i] <= 0x39:
            i += 1
    L = i - start
    if integer:
        nd = L - neg
        if nd > 16 or (nd == 16 and memcmp(p + start + neg, b"9007199254740991", 16) > 0):
            return _scan_big_integer(parser, start, i)
        v = 0
        for nd in range(start + neg, i):
            v = v * 10 + (p[nd] - 0x30)
        parser.attach(-v if neg else v)
        return i
    if nuif_many_digits(p, <size_t>int_s, <size_t>int_e, <size_t>mant_e):
        # more than 15 significant digits: the double itself (without nuif_analyze's pass), and
        # maybe the literal's own text (1: already its double's shortest ES spelling)
        if _float_libs:
            rc = nuif_long_decimal(p, neg, <size_t>int_s, <size_t>int_e, <size_t>mant_e, has_exp,
                                   &x)
        r.k = 16
    else:
        nuif_analyze(p + start, L, &r)
    if rc < 0:
        x = _literal_double(p + start, L, &r)
    if isinf(x):
        literal = (<char*>p)[start:i].decode("ascii")
        parser.fail("NUIF_NUMBER", NUMBER_OVERFLOW.format(short(literal)), start, False)
    if x == 0.0:
        x = 0.0
    parser.attach(x)
    return i


cdef Py_ssize_t _scan_big_integer(_Parser parser, Py_ssize_t start, Py_ssize_t i) except -1:
    """An integer literal beyond ±(2^53 - 1): accepted, as its double, only when it is that
    double's RFC 8785 text (so the canonical text is the literal itself)."""
    cdef double x
    cdef char nearest[NUMBER_TEXT_MAX]
    cdef Py_ssize_t n = _big_integer(parser.p + start, i - start, &x, nearest)
    if n >= 0:
        literal = (<char*>parser.p)[start:i].decode("ascii")
        parser.fail("NUIF_NUMBER", big_integer_message(
            short(literal), nearest[:n].decode("ascii") if n else None), start, False)
    parser.attach(x)
    return i
