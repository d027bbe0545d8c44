# Part of _speedups.pyx (included there): the whole input's UTF-8 check, and the parser's string
# scanning (values and member names).  The scanning functions take the parser (``_Parser``) as
# their first argument, apart from its class so that each job has its own file: a cdef function of
# a final class's instance costs what a cdef method does.

# The verdict comes from csrc/nuif_utf8.h's vector check (AVX2 or SSSE3, chosen once at import
# from what the CPU has; NEON on arm64) where the build compiled it, else from its scalar loop;
# the routes always agree.  ``_settings(utf8_route=...)`` (tests) switches routes so the tests
# can compare them.
cdef int _utf8_route = nuif_utf8_route()
cdef tuple _UTF8_ROUTES = ("scalar", "ssse3", "avx2", "neon")


cdef inline bint _utf8_ok(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """True when p[0:n] is valid UTF-8 (``nuif_utf8_first_bad`` then locates an error)."""
    return nuif_utf8_valid(p, <size_t>n, _utf8_route) == 1


cdef inline Py_ssize_t _scan_str(_Parser parser, Py_ssize_t i, bint is_key) except -1:
    """Scan the string whose quote is at i; return the index after its closing quote.

    A string with escapes is decoded into the arena (from its start: one string at a time)."""
    cdef const uint8_t* p = parser.p
    cdef Py_ssize_t start = i + 1
    cdef Py_ssize_t j
    cdef int hi = 0
    # most strings end at the first stop byte of the scanner: this part is inlined
    j = nuif_str_run(p, start, parser.n, &hi)
    if j < parser.n and p[j] == 0x22:
        parser.s_high = <uint8_t>hi
        parser.s_off = start
        parser.s_len = j - start
        parser.s_flags = 0
        return j + 1
    return _scan_str_rest(parser, i, j, hi, is_key)


cdef Py_ssize_t _scan_str_rest(_Parser parser, Py_ssize_t i, Py_ssize_t j, int hi,
                               bint is_key) except -1:
    """_scan_str after its first run stopped at j (not at the closing quote).

    A hot loop, a little over the ~100 lines a function should have: it decodes every escape and
    copies the runs between them.  Only the rare escapes (surrogate pairs, \\u of ASCII or of a
    noncharacter) go through a call (``_unicode_escape``); moving more out costs instructions on
    escape-heavy text (docs/architecture.md, "The compiled codec")."""
    cdef const uint8_t* p = parser.p
    cdef Py_ssize_t n = parser.n
    cdef Py_ssize_t start = i + 1
    cdef Py_ssize_t k, d0
    cdef uint8_t* w
    cdef uint8_t c, e, h0, h1, h2, h3
    cdef uint8_t flags
    cdef int cp
    parser.s_high = <uint8_t>hi
    if j < n and p[j] >= 0xEF:
        j = _plain_run(parser, j, is_key)
    if j >= n:
        parser.syntax(EXPECT_STRING_END, n)
    c = p[j]
    if c == 0x22:
        parser.s_off = start
        parser.s_len = j - start
        parser.s_flags = 0
        return j + 1
    if c != 0x5C:
        raise text_error("NUIF_PARSE", CONTROL_IN_STRING.format(c), parser.data, j)
    # escapes: into the arena (the result is never longer than the rest of the input)
    if (n - start) + 8 > parser.arena_cap:
        parser.arena = <uint8_t*>parser._grow(parser.arena, &parser.arena_cap, (n - start) + 8, 1)
    d0 = 0
    w = parser.arena
    flags = F_ESC
    memcpy(w, p + start, j - start)
    w += j - start
    while True:
        # here p[j] is a backslash, a quote, a control character, or j == n
        c = p[j]
        if c == 0x5C and p[j + 1] == 0x75 and j + 6 <= n:
            # fast path: \uXXXX of a BMP character that needs no further thought
            h0 = HEXVAL[p[j + 2]]
            h1 = HEXVAL[p[j + 3]]
            h2 = HEXVAL[p[j + 4]]
            h3 = HEXVAL[p[j + 5]]
            if ((h0 | h1 | h2 | h3) & 0xF0) == 0:
                cp = (h0 << 12) | (h1 << 8) | (h2 << 4) | h3
                if 0x80 <= cp < 0xD800 and not (0xFDD0 <= cp <= 0xFDEF):
                    w += nuif_utf8_put_bmp(w, cp)
                    parser.s_high = 0x80
                    j += 6
                    c = p[j]
                    if c != 0x5C and c != 0x22:
                        k = _plain_run(parser, j, is_key)
                        memcpy(w, p + j, k - j)
                        w += k - j
                        j = k
                    continue
        if j >= n:
            parser.syntax(EXPECT_STRING_END, n)
        if c == 0x22:
            break
        if c != 0x5C:
            raise text_error("NUIF_PARSE", CONTROL_IN_STRING.format(c), parser.data, j)
        if j + 1 >= n:
            parser.syntax(EXPECT_STRING_END, j + 1)
        e = p[j + 1]
        if e == 0x75:  # u
            j = _unicode_escape(parser, j, is_key, &cp)
            if cp < 0x20 or cp == 0x22 or cp == 0x5C:
                w[0] = <uint8_t>cp
                w += 1
                flags |= F_NEEDS_ESC
            else:
                w += nuif_utf8_put(w, cp)
                if cp >= 0x80:
                    parser.s_high = 0x80
        else:
            c = UNESCAPE[e]
            if c == 0:
                parser.syntax(EXPECT_ESCAPE, j + 1)
            if e == 0x2F:
                w[0] = 0x2F
                w += 1
            else:
                w[0] = c
                w += 1
                flags |= F_NEEDS_ESC
            j += 2
        c = p[j]
        if c != 0x5C and c != 0x22:
            k = _plain_run(parser, j, is_key)
            memcpy(w, p + j, k - j)
            w += k - j
            j = k
    parser.s_off = d0
    parser.s_len = (w - parser.arena) - d0
    parser.s_flags = flags
    return j + 1


cdef Py_ssize_t _unicode_escape(_Parser parser, Py_ssize_t j, bint is_key, int* cp) except -1:
    """The \\uXXXX escape at j (a surrogate pair counts as one): ``*cp`` gets its code point;
    returns the index after it.  Lone surrogates and noncharacters are errors."""
    cdef const uint8_t* p = parser.p
    cdef Py_ssize_t n = parser.n, esc_at = j
    cdef int low
    cp[0] = _hex4(parser, j + 2)
    j += 6
    if 0xDC00 <= cp[0] <= 0xDFFF:
        parser.fail_surrogate(esc_at, cp[0], is_key)
    if 0xD800 <= cp[0] <= 0xDBFF:
        if j >= n:
            parser.syntax(EXPECT_STRING_END, j)
        if p[j] != 0x5C:
            parser.fail_surrogate(esc_at, cp[0], is_key)
        if j + 1 >= n:
            parser.syntax(EXPECT_STRING_END, j + 1)
        if p[j + 1] != 0x75:
            parser.fail_surrogate(esc_at, cp[0], is_key)
        low = _hex4(parser, j + 2)
        if not 0xDC00 <= low <= 0xDFFF:
            parser.fail_surrogate(esc_at, cp[0], is_key)
        j += 6
        cp[0] = 0x10000 + ((cp[0] - 0xD800) << 10) + (low - 0xDC00)
    if (0xFDD0 <= cp[0] <= 0xFDEF) or (cp[0] & 0xFFFE) == 0xFFFE:
        parser.fail_nonchar(esc_at, cp[0], is_key)
    return j


cdef Py_ssize_t _plain_run(_Parser parser, Py_ssize_t j, bint is_key) except -1:
    """Index of the first quote, backslash, control character or the end, from j."""
    cdef const uint8_t* p = parser.p
    cdef Py_ssize_t n = parser.n
    cdef uint8_t c
    cdef Py_ssize_t cp
    cdef int hi = 0
    while True:
        j = nuif_str_run(p, j, n, &hi)
        if j >= n:
            j = n
            break
        c = p[j]
        if STR_CLS[c] < C_EF:
            break
        hi = 0x80
        cp = nuif_nonchar_at(p, j)
        if cp >= 0:
            parser.fail_nonchar(j, cp, is_key)
        j += nuif_seq_len(c)
    if hi:
        parser.s_high = 0x80
    return j


cdef int _hex4(_Parser parser, Py_ssize_t i) except -1:
    cdef Py_ssize_t k
    cdef int v = 0
    cdef uint8_t h, h1, h2, h3
    cdef const uint8_t* p = parser.p
    if i + 4 <= parser.n:
        h = HEXVAL[p[i]]
        h1 = HEXVAL[p[i + 1]]
        h2 = HEXVAL[p[i + 2]]
        h3 = HEXVAL[p[i + 3]]
        if ((h | h1 | h2 | h3) & 0xF0) == 0:
            return (h << 12) | (h1 << 8) | (h2 << 4) | h3
    for k in range(i, i + 4):
        if k >= parser.n:
            parser.syntax(EXPECT_STRING_END, k)
        h = HEXVAL[parser.p[k]]
        if h == 255:
            parser.syntax(EXPECT_HEX, k)
        v = (v << 4) | h
    return v


cdef object _make_str(_Parser parser):
    cdef const uint8_t* ptr
    if parser.s_flags & F_ESC:
        ptr = parser.arena + parser.s_off
    else:
        ptr = parser.p + parser.s_off
    if parser.s_high == 0:
        s = PyUnicode_New(parser.s_len, 127)
        memcpy(PyUnicode_DATA(s), ptr, parser.s_len)
        return s
    return PyUnicode_DecodeUTF8(<const char*>ptr, parser.s_len, NULL)


cdef object _make_key(_Parser parser):
    """A member name: short ASCII names come from a small cache, so the few names a document
    repeats are one str object each (allocated and hashed once)."""
    cdef const uint8_t* ptr
    cdef Py_ssize_t slot, L = parser.s_len
    cdef PyObject* hit
    if parser.s_high != 0 or L > 32:
        return _make_str(parser)
    ptr = (<const uint8_t*>parser.arena if parser.s_flags & F_ESC else parser.p) + parser.s_off
    if parser.kcache == NULL:
        parser.kcache = <PyObject**>PyMem_Calloc(KCACHE_SIZE, sizeof(PyObject*))
        if parser.kcache == NULL:
            raise MemoryError()
    slot = <Py_ssize_t>(nuif_strhash(ptr, L) & (KCACHE_SIZE - 1))
    hit = parser.kcache[slot]
    if hit != NULL and PyUnicode_GET_LENGTH(<object>hit) == L and memcmp(
            PyUnicode_DATA(<object>hit), ptr, L) == 0:
        return <object>hit
    s = PyUnicode_New(L, 127)
    memcpy(PyUnicode_DATA(s), ptr, L)
    Py_INCREF(s)
    Py_XDECREF(hit)
    parser.kcache[slot] = <PyObject*>s
    return s
