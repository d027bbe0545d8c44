# Part of _speedups.pyx (included there): the parsers.  The one-pass parser is one iterative
# left-to-right scan (an explicit stack, never C recursion) that either builds Python objects
# (``loads``) or the token tape (csrc/nuif_tape.h) that the schema check, the canonical writer and
# the inspect summary read; its string and number scanning are in _speedups_strings.pxi and
# _speedups_numbers.pxi.  ``parse_tape`` hands every valid UTF-8 input to the walk (C,
# csrc/nuif_walk.h), which builds the same tape, and every input it refuses is re-read by the
# one-pass parser, which raises the error.

ctypedef struct Frame:
    bint is_obj
    uint32_t tok            # tape: container token
    Py_ssize_t count        # index of the current element / member
    Py_ssize_t names_base   # tape: where this object's names start on the member-name stack
    uint32_t key_tok        # tape: current member name token
    Py_ssize_t key_at       # loads: offset of the current member name
    Py_ssize_t dup_at       # loads: first duplicate member name (-1: none)


# Buffers kept between canonical_json calls (page faults of fresh memory cost ~15% at 16 MiB).
# A parser takes them (leaving NULL, so a re-entrant call allocates its own) and gives them
# back when it is done, unless they grew beyond CACHE_MAX bytes.
cdef Py_ssize_t CACHE_MAX = 64 * 1024 * 1024
# slots of the member-name cache of loads (a power of 2)
cdef enum:
    KCACHE_SIZE = 256
cdef Tok* _spare_tape = NULL
cdef Py_ssize_t _spare_tape_cap = 0
cdef uint8_t* _spare_arena = NULL
cdef Py_ssize_t _spare_arena_cap = 0
cdef uint32_t* _spare_order = NULL
cdef Py_ssize_t _spare_order_cap = 0
cdef uint32_t* _spare_names = NULL
cdef Py_ssize_t _spare_names_cap = 0
cdef Frame* _spare_frames = NULL
cdef Py_ssize_t _spare_frames_cap = 0
cdef KeyEntry* _spare_sort_buf = NULL
cdef Py_ssize_t _spare_sort_buf_cap = 0
cdef double* _spare_doubles = NULL
cdef Py_ssize_t _spare_doubles_cap = 0

# the walk's stack, kept for the process (the walk runs without calling back into Python, so no
# second walk can use it at the same time); _walk_on off: every tape by the one-pass parser
# (_set_walk: tests)
cdef bint _walk_on = True
cdef S2Frame* _s2_frames = NULL
cdef size_t _s2_frames_cap = 0


@cython.final
@cython.freelist(4)  # one per call of the codec: reuse the object's memory
@cython.no_gc  # its objects (the input, limits, values being built) never refer back to it
cdef class _Parser:
    cdef bytes data
    cdef const uint8_t* p           # the input's bytes (NUL-terminated: p[n] == 0)
    cdef Py_ssize_t n               # the input's size
    cdef Py_ssize_t max_depth
    cdef object max_depth_obj       # max_depth as the caller gave it (for messages)
    cdef bint tape_mode             # True: build the tape; False: build Python values (loads)
    # the stack of open arrays and objects
    cdef Frame* frames
    cdef Py_ssize_t depth
    cdef Py_ssize_t frames_cap
    cdef Py_ssize_t deepest         # the deepest nesting seen
    # the string just scanned (_scan_str)
    cdef Py_ssize_t s_off           # its first byte, in the input or (s_flags & F_ESC) the arena
    cdef Py_ssize_t s_len
    cdef uint8_t s_flags
    cdef uint8_t s_high             # 0x80 when it has a byte >= 0x80, else 0
    # arena of decoded strings
    cdef uint8_t* arena
    cdef Py_ssize_t arena_len
    cdef Py_ssize_t arena_cap
    # tape
    cdef Tok* tape
    cdef Py_ssize_t ntok
    cdef Py_ssize_t tape_cap
    cdef uint32_t* names            # member-name tokens of the open objects (a stack)
    cdef Py_ssize_t names_top
    cdef Py_ssize_t names_cap
    cdef uint32_t* order            # every object's member-name tokens, sorted, object by object
    cdef Py_ssize_t order_len
    cdef Py_ssize_t order_cap
    cdef KeyEntry* sort_buf         # scratch of the name sort (twice an object's member count)
    cdef Py_ssize_t sort_cap
    cdef double* doubles            # numbers kept as doubles (F_DBL tokens point here)
    cdef Py_ssize_t doubles_len
    cdef Py_ssize_t doubles_cap
    # write: hash the text while writing it into digest
    cdef bint want_digest
    cdef bint has_digest
    cdef unsigned char digest[32]
    # loads
    cdef PyObject** kcache  # member names seen (ASCII, short): one str object per name
    cdef list conts
    cdef list keys
    cdef list dupkeys
    cdef object result

    cdef int init(self, bytes data, Py_ssize_t max_depth, object max_depth_obj,
                  bint tape_mode) except -1:
        """Set up a parser made by ``_new_parser`` (no argument parsing through ``__cinit__``)."""
        self.data = data
        self.p = <const uint8_t*>PyBytes_AS_STRING(data)
        self.n = PyBytes_GET_SIZE(data)
        self.max_depth = max_depth
        self.max_depth_obj = max_depth_obj
        self.tape_mode = tape_mode
        self.frames = NULL
        self.arena = NULL
        self.tape = NULL
        self.names = NULL
        self.order = NULL
        self.sort_buf = NULL
        self.doubles = NULL
        self.kcache = NULL
        self.want_digest = False
        self.has_digest = False
        if not tape_mode:
            self.conts = []
            self.keys = []
            self.dupkeys = []
        return 0

    cdef void take_cache(self) noexcept:
        """Take the spare buffers, each where the parser has none of its own (a parser reused
        from ``_idle_parser`` kept its own)."""
        global _spare_tape, _spare_tape_cap, _spare_arena, _spare_arena_cap, _spare_order
        global _spare_order_cap, _spare_names, _spare_names_cap, _spare_frames, _spare_frames_cap
        global _spare_sort_buf, _spare_sort_buf_cap, _spare_doubles, _spare_doubles_cap
        if self.tape == NULL:
            self.tape, self.tape_cap = _spare_tape, _spare_tape_cap
            _spare_tape, _spare_tape_cap = NULL, 0
        if self.arena == NULL:
            self.arena, self.arena_cap = _spare_arena, _spare_arena_cap
            _spare_arena, _spare_arena_cap = NULL, 0
        if self.order == NULL:
            self.order, self.order_cap = _spare_order, _spare_order_cap
            _spare_order, _spare_order_cap = NULL, 0
        if self.names == NULL:
            self.names, self.names_cap = _spare_names, _spare_names_cap
            _spare_names, _spare_names_cap = NULL, 0
        # the stack and the sort buffer too: small, but a fresh malloc + free per call
        if self.frames == NULL:
            self.frames, self.frames_cap = _spare_frames, _spare_frames_cap
            _spare_frames, _spare_frames_cap = NULL, 0
        if self.sort_buf == NULL:
            self.sort_buf, self.sort_cap = _spare_sort_buf, _spare_sort_buf_cap
            _spare_sort_buf, _spare_sort_buf_cap = NULL, 0
        if self.doubles == NULL:
            self.doubles, self.doubles_cap = _spare_doubles, _spare_doubles_cap
            _spare_doubles, _spare_doubles_cap = NULL, 0

    cdef void reuse(self, bytes data, Py_ssize_t max_depth, object max_depth_obj) noexcept:
        """Set up a parked tape parser (``_park``) for another call: every field as ``init``
        leaves it, but the buffers, which it keeps."""
        self.data = data
        self.p = <const uint8_t*>PyBytes_AS_STRING(data)
        self.n = PyBytes_GET_SIZE(data)
        self.max_depth = max_depth
        self.max_depth_obj = max_depth_obj
        self.depth = self.deepest = 0
        self.s_off = self.s_len = 0
        self.s_flags = self.s_high = 0
        self.arena_len = self.ntok = self.names_top = self.order_len = self.doubles_len = 0
        self.want_digest = self.has_digest = False

    def __dealloc__(self):
        global _spare_tape, _spare_tape_cap, _spare_arena, _spare_arena_cap, _spare_order
        global _spare_order_cap, _spare_names, _spare_names_cap, _spare_frames, _spare_frames_cap
        global _spare_sort_buf, _spare_sort_buf_cap, _spare_doubles, _spare_doubles_cap
        if self.tape_mode:
            if _spare_frames == NULL and self.frames_cap * <Py_ssize_t>sizeof(Frame) <= CACHE_MAX:
                _spare_frames, _spare_frames_cap, self.frames = self.frames, self.frames_cap, NULL
            if _spare_sort_buf == NULL and self.sort_cap * <Py_ssize_t>sizeof(KeyEntry) <= CACHE_MAX:
                _spare_sort_buf, _spare_sort_buf_cap = self.sort_buf, self.sort_cap
                self.sort_buf = NULL
            if _spare_tape == NULL and self.tape_cap * <Py_ssize_t>sizeof(Tok) <= CACHE_MAX:
                _spare_tape, _spare_tape_cap, self.tape = self.tape, self.tape_cap, NULL
            if _spare_arena == NULL and self.arena_cap <= CACHE_MAX:
                _spare_arena, _spare_arena_cap, self.arena = self.arena, self.arena_cap, NULL
            if _spare_order == NULL and self.order_cap * 4 <= CACHE_MAX:
                _spare_order, _spare_order_cap, self.order = self.order, self.order_cap, NULL
            if _spare_names == NULL and self.names_cap * 4 <= CACHE_MAX:
                _spare_names, _spare_names_cap, self.names = self.names, self.names_cap, NULL
            if _spare_doubles == NULL and self.doubles_cap * 8 <= CACHE_MAX:
                _spare_doubles, _spare_doubles_cap = self.doubles, self.doubles_cap
                self.doubles = NULL
        cdef Py_ssize_t k
        if self.kcache != NULL:
            for k in range(KCACHE_SIZE):
                Py_XDECREF(self.kcache[k])
            PyMem_Free(self.kcache)
        PyMem_Free(self.frames)
        PyMem_Free(self.arena)
        PyMem_Free(self.tape)
        PyMem_Free(self.names)
        PyMem_Free(self.order)
        PyMem_Free(self.sort_buf)
        PyMem_Free(self.doubles)

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

    cdef inline Py_ssize_t emit(self, uint8_t kind, uint8_t flags, Py_ssize_t at, Py_ssize_t length,
                                Py_ssize_t third) except -1:
        """Append a token; ``at`` and ``length`` are a scalar's bytes, ``third`` a member name's
        quote offset or a double's index (csrc/nuif_tape.h).  Containers are emitted with zeros and
        filled in when they close.  Returns the token's index."""
        cdef Tok* t
        if self.ntok >= self.tape_cap:
            self.tape = <Tok*>self._grow(self.tape, &self.tape_cap, self.ntok + 1, sizeof(Tok))
        t = &self.tape[self.ntok]
        t.kind = kind
        t.flags = flags
        t.at = <uint32_t>at
        t.len = <uint32_t>length
        t.quote = <uint32_t>third
        self.ntok += 1
        return self.ntok - 1

    # -- errors -------------------------------------------------------------------------------

    cdef object key_str(self, Py_ssize_t d):
        """The member name being read at depth d."""
        if not self.tape_mode:
            return self.keys[d]
        return self.key_text(self.frames[d].key_tok)

    cdef object key_text(self, Py_ssize_t tok):
        """The (decoded) member name of a name token, as a str."""
        cdef const Tok* t = &self.tape[tok]
        return (<const char*>self.tstr(t))[:t.len].decode("utf-8")

    cdef object pointer(self, bint omit_top):
        cdef Py_ssize_t d, cnt = self.depth - 1 if omit_top else self.depth
        parts = []
        for d in range(cnt):
            if self.frames[d].is_obj:
                parts.append(self.key_str(d))
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
        if self.tape_mode:
            f.tok = <uint32_t>self.emit(T_OBJ if is_obj else T_ARR, 0, 0, 0, 0)
            f.names_base = self.names_top
        else:
            if len(self.conts) <= self.depth:
                self.conts.append(None)
                self.keys.append(None)
                self.dupkeys.append(None)
            self.conts[self.depth] = {} if is_obj else []
        self.depth += 1
        if self.depth > self.deepest:
            self.deepest = self.depth
        return 0

    cdef Py_ssize_t member_key(self, Py_ssize_t i) except -1:
        cdef Frame* f = &self.frames[self.depth - 1]
        cdef Py_ssize_t j = _scan_str(self, i, True)
        cdef Py_ssize_t name_tok
        if self.tape_mode:
            name_tok = self.emit(T_STR, self.s_flags, self.s_off, self.s_len, i)
            if self.names_top >= self.names_cap:
                self.names = <uint32_t*>self._grow(self.names, &self.names_cap, self.names_top + 1,
                                                   sizeof(uint32_t))
            self.names[self.names_top] = <uint32_t>name_tok
            self.names_top += 1
            f.key_tok = <uint32_t>name_tok
        else:
            self.keys[self.depth - 1] = _make_key(self)
            f.key_at = i
        j = self.skip_ws(j)
        if self.p[j] != 0x3A:
            self.syntax(EXPECT_COLON, j)
        return self.skip_ws(j + 1)

    cdef int close_arr(self) except -1:
        cdef Frame* f = &self.frames[self.depth - 1]
        if self.tape_mode:
            self.tape[f.tok].end = <uint32_t>self.ntok
            self.depth -= 1
            return 0
        v = self.conts[self.depth - 1]
        self.conts[self.depth - 1] = None
        self.depth -= 1
        return self.attach(v)

    cdef int close_obj(self) except -1:
        cdef Frame* f = &self.frames[self.depth - 1]
        cdef Py_ssize_t count, m, dup_tok
        cdef Tok* t
        cdef KeyEntry* entries
        if not self.tape_mode:
            if f.dup_at >= 0:
                self.fail_duplicate(self.dupkeys[self.depth - 1], f.dup_at)
            v = self.conts[self.depth - 1]
            self.conts[self.depth - 1] = None
            self.depth -= 1
            return self.attach(v)
        count = self.names_top - f.names_base
        t = &self.tape[f.tok]
        t.end = <uint32_t>self.ntok
        t.members = <uint32_t>count
        t.order_at = <uint32_t>self.order_len
        if self.order_len + count > self.order_cap:
            self.order = <uint32_t*>self._grow(self.order, &self.order_cap, self.order_len + count,
                                               sizeof(uint32_t))
        if count == 1:
            self.order[self.order_len] = self.names[f.names_base]
        elif count > 1:
            if 2 * count > self.sort_cap:
                self.sort_buf = <KeyEntry*>self._grow(self.sort_buf, &self.sort_cap, 2 * count,
                                                      sizeof(KeyEntry))
            entries = self.sort_buf
            for m in range(count):
                t = &self.tape[self.names[f.names_base + m]]
                entries[m].ptr = self.tstr(t)
                entries[m].len = t.len
                entries[m].tok = self.names[f.names_base + m]
            nuif_sort_keys(entries, entries + count, count)
            dup_tok = -1
            for m in range(count):
                if (m > 0 and entries[m].len == entries[m - 1].len
                        and memcmp(entries[m].ptr, entries[m - 1].ptr, entries[m].len) == 0):
                    if dup_tok < 0 or entries[m].tok < dup_tok:
                        dup_tok = entries[m].tok
                self.order[self.order_len + m] = entries[m].tok
            if dup_tok >= 0:
                self.fail_duplicate(self.key_text(dup_tok), self.tape[dup_tok].quote)
        self.order_len += count
        self.names_top = f.names_base
        self.depth -= 1
        return 0

    cdef int parse_tape(self) except -1:
        """Build the tape: with the walk (csrc/nuif_walk.h), else -- for every input it refuses
        -- with validate() and the one-pass run(), which is how errors keep their codes,
        pointers, lines and columns."""
        self.take_cache()
        if _walk_on and _utf8_ok(self.p, self.n):
            if self.walk():
                return 0
            self.ntok = self.arena_len = self.order_len = self.doubles_len = 0
        return self.one_pass_tape()

    cdef int one_pass_tape(self) except -1:
        """The tape by validate() and the one-pass run() (buffers taken by take_cache)."""
        if self.tape_cap < self.n // 24 + 16:
            PyMem_Free(self.tape)
            self.tape = NULL
            self.tape_cap = 0
            self.tape = <Tok*>self._grow(NULL, &self.tape_cap, self.n // 24 + 16, sizeof(Tok))
        self.validate()
        return self.run()

    cdef bint walk(self) except -1:
        """The walk (csrc/nuif_walk.h): True with the tape built, False when it refused the
        input (the buffers are kept either way)."""
        global _s2_frames, _s2_frames_cap
        cdef S2 s
        cdef int rc
        s.p = self.p
        s.n = <size_t>self.n
        s.max_depth = <size_t>self.max_depth if self.max_depth > 0 else 0
        s.float_libs = _float_libs
        s.tape, s.tape_cap = self.tape, <size_t>self.tape_cap
        s.arena, s.arena_cap = self.arena, <size_t>self.arena_cap
        s.names, s.names_cap = self.names, <size_t>self.names_cap
        s.order, s.order_cap = self.order, <size_t>self.order_cap
        s.sort_buf, s.sort_cap = self.sort_buf, <size_t>self.sort_cap
        s.doubles, s.doubles_cap = self.doubles, <size_t>self.doubles_cap
        s.frames, s.frames_cap = _s2_frames, _s2_frames_cap
        rc = nuif_s2_parse(&s)
        # the buffers, grown or not, are the parser's again whatever happened
        self.tape, self.tape_cap = s.tape, <Py_ssize_t>s.tape_cap
        self.arena, self.arena_cap = s.arena, <Py_ssize_t>s.arena_cap
        self.names, self.names_cap = s.names, <Py_ssize_t>s.names_cap
        self.order, self.order_cap = s.order, <Py_ssize_t>s.order_cap
        self.sort_buf, self.sort_cap = s.sort_buf, <Py_ssize_t>s.sort_cap
        self.doubles, self.doubles_cap = s.doubles, <Py_ssize_t>s.doubles_cap
        _s2_frames, _s2_frames_cap = s.frames, s.frames_cap
        if rc == S2_NOMEM:
            raise MemoryError()
        if rc != S2_OK:
            return False
        self.ntok = <Py_ssize_t>s.ntok
        self.arena_len = <Py_ssize_t>s.arena_len
        self.order_len = <Py_ssize_t>s.order_len
        self.doubles_len = <Py_ssize_t>s.doubles_len
        self.deepest = <Py_ssize_t>s.deepest
        return True

    cdef int run(self) except -1:
        """The one-pass parser (the tape's buffers set up by parse_tape in tape mode)."""
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
                if self.tape_mode:
                    self.emit(T_STR, self.s_flags, self.s_off, self.s_len, 0)
                else:
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
                if self.tape_mode:
                    self.emit(T_TRUE, 0, 0, 0, 0)
                else:
                    self.attach(True)
            elif c == 0x66:
                i = self.literal(i, b"false", 5, "false")
                if self.tape_mode:
                    self.emit(T_FALSE, 0, 0, 0, 0)
                else:
                    self.attach(False)
            elif c == 0x6E:
                i = self.literal(i, b"null", 4, "null")
                if self.tape_mode:
                    self.emit(T_NULL, 0, 0, 0, 0)
                else:
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

    # -- reading the tape (the schema check, the writer, the inspect summary) -----------------

    cdef inline const uint8_t* tstr(self, const Tok* t) noexcept:
        return (<const uint8_t*>self.arena if t.flags & F_ESC else self.p) + t.at

    cdef inline Py_ssize_t vend(self, Py_ssize_t v) noexcept:
        """The token index just past value v (its whole subtree)."""
        cdef const Tok* t = &self.tape[v]
        if t.kind == T_ARR or t.kind == T_OBJ:
            return t.end
        return v + 1


# A tape parser between calls, with the buffers it grew (_park): the next call takes it instead
# of a new object that takes the spare buffers and gives them back (~40 ns of a 1 KiB call).  A
# call that finds none (another call's parser in use on this thread or another) makes a new one.
cdef _Parser _idle_parser = None


cdef _Parser _new_parser(bytes data, Py_ssize_t max_depth, object max_depth_obj, bint tape_mode):
    global _idle_parser
    cdef _Parser parser
    if tape_mode and _idle_parser is not None:
        parser = _idle_parser
        _idle_parser = None
        parser.reuse(data, max_depth, max_depth_obj)
        return parser
    parser = _Parser.__new__(_Parser)
    parser.init(data, max_depth, max_depth_obj, tape_mode)
    return parser


cdef inline void _park(_Parser parser) noexcept:
    """At the end of a call whose tape parser nothing else refers to (not on an error: the parser
    is then freed, its buffers going back to the spares): keep it for the next call, unless one
    is kept already.  It lets go of the input."""
    global _idle_parser
    if _idle_parser is None and parser.tape_mode:
        parser.data = None
        parser.max_depth_obj = None
        parser.p = NULL
        parser.n = 0
        _idle_parser = parser


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
