# Part of _speedups.pyx (included there): the one-pass parser, one iterative left-to-right scan
# (an explicit stack, never C recursion) that builds Python objects (``loads``) and raises every
# text error, with its code, message, pointer, line and column: it is also what reads again a
# text the pipeline's walk refused (_speedups_doc.pxi).  Its string and number scanning are in
# _speedups_strings.pxi and _speedups_numbers.pxi.

ctypedef struct Frame:
    bint is_obj
    Py_ssize_t count        # index of the current element / member
    Py_ssize_t key_at       # offset of the current member name
    Py_ssize_t dup_at       # first duplicate member name (-1: none)


# slots of the member-name cache of loads (a power of 2)
cdef enum:
    KCACHE_SIZE = 256


@cython.final
@cython.freelist(4)  # one per call of the codec: reuse the object's memory
@cython.no_gc  # its objects (the input, limits, values being built) never refer back to it
cdef class _Parser:
    cdef bytes data
    cdef const uint8_t* p           # the input's bytes (NUL-terminated: p[n] == 0)
    cdef Py_ssize_t n               # the input's size
    cdef Py_ssize_t max_depth
    cdef object max_depth_obj       # max_depth as the caller gave it (for messages)
    # the stack of open arrays and objects
    cdef Frame* frames
    cdef Py_ssize_t depth
    cdef Py_ssize_t frames_cap
    # the string just scanned (_scan_str)
    cdef Py_ssize_t s_off           # its first byte, in the input or (s_flags & F_ESC) the arena
    cdef Py_ssize_t s_len
    cdef uint8_t s_flags
    cdef uint8_t s_high             # 0x80 when it has a byte >= 0x80, else 0
    # the decoded text of the last string with escapes
    cdef uint8_t* arena
    cdef Py_ssize_t arena_cap
    cdef PyObject** kcache          # member names seen (ASCII, short): one str object per name
    # the containers being built, their current member names and first duplicate names
    cdef list conts
    cdef list keys
    cdef list dupkeys
    cdef object result

    cdef int init(self, bytes data, Py_ssize_t max_depth, object max_depth_obj) except -1:
        """Set up a parser made by ``_new_parser`` (no argument parsing through ``__cinit__``)."""
        self.data = data
        self.p = <const uint8_t*>PyBytes_AS_STRING(data)
        self.n = PyBytes_GET_SIZE(data)
        self.max_depth = max_depth
        self.max_depth_obj = max_depth_obj
        self.frames = NULL
        self.arena = NULL
        self.kcache = NULL
        self.conts = []
        self.keys = []
        self.dupkeys = []
        return 0

    def __dealloc__(self):
        cdef Py_ssize_t k
        if self.kcache != NULL:
            for k in range(KCACHE_SIZE):
                Py_XDECREF(self.kcache[k])
            PyMem_Free(self.kcache)
        PyMem_Free(self.frames)
        PyMem_Free(self.arena)

    # -- memory -------------------------------------------------------------------------------

    cdef void* _grow(self, void* ptr, Py_ssize_t* cap, Py_ssize_t need, size_t item) except NULL:
        cdef Py_ssize_t newcap = cap[0] * 2
        cdef void* q
        if newcap < need:
            newcap = need
        if newcap < 16:
            newcap = 16
        q = PyMem_Realloc(ptr, <size_t>newcap * item)
        if q == NULL:
            raise MemoryError()
        cap[0] = newcap
        return q

    # -- errors -------------------------------------------------------------------------------

    cdef object pointer(self, bint omit_top):
        cdef Py_ssize_t d, cnt = self.depth - 1 if omit_top else self.depth
        parts = []
        for d in range(cnt):
            if self.frames[d].is_obj:
                parts.append(self.keys[d])
            else:
                parts.append(self.frames[d].count)
        return parts

    cdef int syntax(self, str expected, Py_ssize_t off) except -1:
        raise text_error("NUIF_PARSE", f"{expected}, found {describe_found(self.data, off)}",
                         self.data, off)

    cdef int fail(self, str code, str message, Py_ssize_t off, bint omit_top) except -1:
        raise text_error(code, message, self.data, off, join_pointer(self.pointer(omit_top)))

    cdef int fail_nonchar(self, Py_ssize_t at, Py_ssize_t cp, bint is_key) except -1:
        return self.fail("NUIF_UNICODE",
                         f"U+{cp:04X} is a Unicode noncharacter (I-JSON forbids it)", at, is_key)

    cdef int fail_surrogate(self, Py_ssize_t at, Py_ssize_t cp, bint is_key) except -1:
        return self.fail("NUIF_UNICODE",
                         SURROGATE_ESCAPE.format(cp), at, is_key)

    cdef int fail_duplicate(self, object key, Py_ssize_t at) except -1:
        """NUIF_DUPLICATE_KEY for the member name ``key`` at ``at`` in the innermost object."""
        parts = self.pointer(True)
        parts.append(key)
        raise text_error("NUIF_DUPLICATE_KEY",
                         DUPLICATE_KEY.format(quote(key)),
                         self.data, at, join_pointer(parts))

    # -- scanning -----------------------------------------------------------------------------

    cdef int validate(self) except -1:
        cdef Py_ssize_t bad = -1
        if not _utf8_ok(self.p, self.n):
            bad = nuif_utf8_first_bad(self.p, self.n)
        if bad >= 0:
            raise text_error("NUIF_UTF8", UTF8, self.data, bad)
        if self.n >= 3 and self.p[0] == 0xEF and self.p[1] == 0xBB and self.p[2] == 0xBF:
            raise text_error("NUIF_PARSE", BOM, self.data, 0)
        return 0

    cdef inline Py_ssize_t skip_ws(self, Py_ssize_t i) noexcept:
        # the bytes object ends with a NUL, which is not whitespace: no bound checks needed
        cdef const uint8_t* p = self.p
        if p[i] > 0x20:
            return i
        if p[i] == 0x20 and p[i + 1] > 0x20:  # ": " and ", "
            return i + 1
        return nuif_skip_ws(p, i, self.n)

    cdef Py_ssize_t literal(self, Py_ssize_t i, const char* word, Py_ssize_t L, str name) except -1:
        cdef Py_ssize_t k
        for k in range(1, L):
            if self.p[i + k] != <uint8_t>word[k]:  # the NUL after the text never matches
                self.syntax(EXPECT_LITERAL.format(name), i + k)
        return i + L

    # -- structure ----------------------------------------------------------------------------

    cdef inline int attach(self, object v) except -1:
        cdef Frame* f
        cdef Py_ssize_t before
        if self.depth == 0:
            self.result = v
            return 0
        f = &self.frames[self.depth - 1]
        cont = self.conts[self.depth - 1]
        if not f.is_obj:
            PyList_Append(cont, v)
        else:
            key = self.keys[self.depth - 1]
            before = PyDict_GET_SIZE(cont)
            PyDict_SetItem(cont, key, v)
            if PyDict_GET_SIZE(cont) == before and f.dup_at < 0:
                f.dup_at = f.key_at
                self.dupkeys[self.depth - 1] = key
        return 0

    cdef int push(self, bint is_obj, Py_ssize_t i) except -1:
        cdef Frame* f
        if self.depth + 1 > self.max_depth:
            self.fail("NUIF_DEPTH",
                      DEPTH.format(self.max_depth_obj),
                      i, False)
        if self.depth >= self.frames_cap:
            self.frames = <Frame*>self._grow(self.frames, &self.frames_cap, self.depth + 1,
                                             sizeof(Frame))
        f = &self.frames[self.depth]
        f.is_obj = is_obj
        f.count = 0
        f.dup_at = -1
        if len(self.conts) <= self.depth:
            self.conts.append(None)
            self.keys.append(None)
            self.dupkeys.append(None)
        self.conts[self.depth] = {} if is_obj else []
        self.depth += 1
        return 0

    cdef Py_ssize_t member_key(self, Py_ssize_t i) except -1:
        cdef Frame* f = &self.frames[self.depth - 1]
        cdef Py_ssize_t j = _scan_str(self, i, True)
        self.keys[self.depth - 1] = _make_key(self)
        f.key_at = i
        j = self.skip_ws(j)
        if self.p[j] != 0x3A:
            self.syntax(EXPECT_COLON, j)
        return self.skip_ws(j + 1)

    cdef int close_arr(self) except -1:
        v = self.conts[self.depth - 1]
        self.conts[self.depth - 1] = None
        self.depth -= 1
        return self.attach(v)

    cdef int close_obj(self) except -1:
        cdef Frame* f = &self.frames[self.depth - 1]
        if f.dup_at >= 0:
            self.fail_duplicate(self.dupkeys[self.depth - 1], f.dup_at)
        v = self.conts[self.depth - 1]
        self.conts[self.depth - 1] = None
        self.depth -= 1
        return self.attach(v)

    cdef int run(self) except -1:
        """The one-pass parser: ``self.result``, or the text's first error raised."""
        cdef const uint8_t* p = self.p
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t i
        cdef Frame* f
        cdef uint8_t c
        i = self.skip_ws(0)
        while True:
            # ---- a value starts at i ----
            c = p[i]
            if c == 0x22:
                i = _scan_str(self, i, False)
                self.attach(_make_str(self))
            elif c == 0x7B or c == 0x5B:
                self.push(c == 0x7B, i)
                i = self.skip_ws(i + 1)
                if c == 0x5B:
                    if p[i] == 0x5D:
                        i += 1
                        self.close_arr()
                    else:
                        continue
                else:
                    if p[i] == 0x7D:
                        i += 1
                        self.close_obj()
                    else:
                        if p[i] != 0x22 or i >= n:
                            self.syntax(EXPECT_FIRST_KEY, i)
                        i = self.member_key(i)
                        continue
            elif c == 0x2D or 0x30 <= c <= 0x39:
                i = _scan_number(self, i)
            elif c == 0x74:
                i = self.literal(i, b"true", 4, "true")
                self.attach(True)
            elif c == 0x66:
                i = self.literal(i, b"false", 5, "false")
                self.attach(False)
            elif c == 0x6E:
                i = self.literal(i, b"null", 4, "null")
                self.attach(None)
            else:
                self.syntax(EXPECT_VALUE, i)
            # ---- after a value ----
            while True:
                i = self.skip_ws(i)
                if self.depth == 0:
                    if i != n:
                        self.syntax(EXPECT_END, i)
                    return 0
                f = &self.frames[self.depth - 1]
                c = p[i] if i < n else 0
                if f.is_obj:
                    if c == 0x2C:
                        f.count += 1
                        i = self.skip_ws(i + 1)
                        if i >= n or p[i] != 0x22:
                            self.syntax(EXPECT_KEY, i)
                        i = self.member_key(i)
                        break
                    if c == 0x7D:
                        i += 1
                        self.close_obj()
                        continue
                    self.syntax(EXPECT_OBJECT_NEXT, i)
                else:
                    if c == 0x2C:
                        f.count += 1
                        i = self.skip_ws(i + 1)
                        break
                    if c == 0x5D:
                        i += 1
                        self.close_arr()
                        continue
                    self.syntax(EXPECT_ARRAY_NEXT, i)


cdef _Parser _new_parser(bytes data, Py_ssize_t max_depth, object max_depth_obj):
    cdef _Parser parser = _Parser.__new__(_Parser)
    parser.init(data, max_depth, max_depth_obj)
    return parser


cdef Py_ssize_t _clamp_depth(object max_depth, Py_ssize_t n) except? -2:
    """max_depth (an int: the callers checked its type) as a C integer: no text of n bytes nests
    deeper than n, so larger limits become n + 1."""
    cdef int overflow = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(max_depth, &overflow)
    if overflow > 0 or v > n + 1:
        return n + 1
    if overflow < 0 or v < -1:
        return -1
    return <Py_ssize_t>v
