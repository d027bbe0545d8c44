# Part of _speedups.pyx (included there): the parsers.  The one-pass parser is one iterative
# left-to-right scan (an explicit stack, never C recursion) that either builds Python objects
# (``loads``) or the token tape (csrc/nuif_tape.h) that the schema check, the canonical writer and
# the inspect summary read; its string and number scanning are in _speedups_strings.pxi and
# _speedups_numbers.pxi.  ``parse_tape`` hands large inputs to the structural-index parser (C:
# csrc/nuif_stage1.h, nuif_stage2.h, nuif_indexpipe.h) and the others to its second stage alone
# (the direct walk, no index); both build the same tape, and every input they refuse is re-read
# by the one-pass parser, which raises the error.

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

# The structural-index parser: for inputs of _indexed_min bytes and more (``_set_indexed``;
# PY_SSIZE_T_MAX: never; set to 1 MiB with the index pipe in _speedups_hash.pxi); its
# stage-1 route, the best this CPU runs (``_set_stage1_route``); its index and stack, kept for
# the process (the parse runs without calling back into Python, so no second parse can use
# them at the same time); the input bytes it indexes per chunk (``_set_index_chunk``).
cdef Py_ssize_t _indexed_min = PY_SSIZE_T_MAX
cdef int _s1_route = nuif_s1_route()
cdef tuple _S1_ROUTES = ("portable", "ssse3", "avx2", "neon")
cdef uint32_t* _s2_idx = NULL
cdef S2Frame* _s2_frames = NULL
cdef size_t _s2_frames_cap = 0
cdef size_t _s2_chunk = S2_CHUNK
# Inputs of _direct_min bytes and more, below _indexed_min, go to the second stage without an index
# (``_set_direct``; PY_SSIZE_T_MAX: never): it finds each next token itself.
cdef Py_ssize_t _direct_min = 0
# Inputs of _split_min bytes and more go to the split walk: the direct walk, with a helper thread
# parsing the input from _split_permille thousandths of it on (csrc/nuif_stage2.h,
# nuif_s2_split_parse); set to 512 KiB in _speedups_hash.pxi where two CPUs and threads are there
# (``_set_split``; PY_SSIZE_T_MAX: never), which leaves the indexed parser unused by default.
# The helper's buffers are kept between calls (fresh pages cost ~2 us each here), up to CACHE_MAX
# bytes each, but its arena of decoded strings only up to SPLIT_ARENA_KEEP: a larger one is freed
# as soon as the tape is built, before the text is written, since the text of a document of
# escaped strings is about as large as it (a `strings` 16 MiB call read 2.38x its input in extra
# RSS with it kept, 1.91x before the split walk, 1.95x now; `ui` 16 MiB, whose helper keeps a
# ~5 MB tape, 1.37x, and 6 % slower than the index pipe when that tape too was freed).
cdef Py_ssize_t _split_min = PY_SSIZE_T_MAX
# Inputs from _split_hot_min to _split_hot_max bytes go to the split walk too, but only when a
# pooled thread is spinning (csrc/nuif_indexpipe.h, nuif_thread_hot): waking a sleeping one takes
# ~20 us here, which the split walk of a 64 KiB input does not win back (it was 15-30 % slower),
# while a spinning one starts within a microsecond.  When none is spinning, such an input is
# walked alone and a thread is left spinning for the next call (nuif_thread_warm): a program
# canonicalizing documents one after the other gets the split walk from its second call on.
# The spin must outlast the rest of a call after the helper's part (about half of it, ~1 us per
# KiB here) and the caller's own time between calls, so _split_hot_max follows the spin: 2/3 KiB
# per microsecond of it (HOT_BYTES_PER_US; 133 KiB at the default 200 us).  Larger inputs would
# mostly find the thread asleep again, and their warm-ups cost (measured at 128 KiB with a 100 us
# spin: 5-30 % slower; with 200 us: the split walk nearly every call).  Set in
# _speedups_hash.pxi (``_set_hot``, ``_set_thread_spin``; docs/parser-design.md, "Threads kept").
cdef Py_ssize_t _split_hot_min = PY_SSIZE_T_MAX
cdef Py_ssize_t _split_hot_max = 0
# Whether the mid-size split pays is measured, not assumed (docs/parser-design.md, "The mid-size
# split's record"): with the other CPU busy, a shared call waits now and then a whole scheduler
# slice for its helper (64 KiB calls took 1.7-2.6x their time alone with another process running
# on the second CPU), and on a quiet machine the gain is 0.82-1.36x by shape and minute.  So
# each mid-size call is timed from the start of its walk to the end of its text (_hot_done), per
# KiB of input, and kept with the last HOT_RING calls of its kind, shared or alone;
# _hot_ns_split and _hot_ns_alone are their means (0: no call yet), each call counted at most 3
# times the mean it joins (_hot_keep).  Means, not medians: most shared calls on a busy machine
# are as fast as on a quiet one, so a median says "faster" while the calls take twice as long in
# all.  The cap, because on a quiet machine one preempted call (0.7 ms among 70 us ones) would
# otherwise turn the record for the next few hundred calls; a stall every few calls still shows.
# A call is offered to a spinning thread unless the shared mean is above 97 % of the alone one
# (a split must save something to be worth the other CPU), and one call in _hot_trial (chosen by
# a xorshift generator) goes the other way, so that both records stay current; a trial of the
# split, when walking alone is the better, leaves a thread spinning (_hot_probe) so that the
# next call can take it.  _hot_guard off: every mid-size call is offered (tests).
cdef enum:
    HOT_RING = 16
# the last HOT_RING calls of two kinds, each kind's newest at next[kind] - 1 (_ring_keep)
cdef struct Ring2:
    double v[2][HOT_RING]
    int len[2]
    int next[2]
cdef Ring2 _hot_rings  # [0]: alone, [1]: shared
cdef double _hot_ns_split = 0.0
cdef double _hot_ns_alone = 0.0
cdef uint32_t _hot_rng = 2463534242u
cdef uint32_t _hot_trial = 16
cdef bint _hot_probe = False
cdef bint _hot_guard = True
_hot_rings.len[0] = _hot_rings.len[1] = _hot_rings.next[0] = _hot_rings.next[1] = 0
# A call walked alone has its text hashed by a follower too (the pooled thread warmed during the
# walk, found spinning when the writer starts: docs/parser-design.md, "A follower for calls
# walked alone"), unless the solo record says that loses: the same rings, of the calls walked
# alone with a follower and without one; the follower is offered unless its mean is above
# 97 % of the other's, and one call in _solo_trial goes the other way.  Measured in one process:
# 1.04-1.25x faster at 64 KiB on a quiet machine; with a busy loop on the second CPU and the
# follower always offered, 0.71-0.90x (a follower descheduled in the middle of its blocks holds
# the writer up), which the record turns down (0.92-1.06x with it).  Calls above the mid-size
# range and below the pipe's threshold are timed into it too (Parser.hot_gap; not into the
# split's record).  _solo_guard off: always offered (tests).
cdef Ring2 _solo_rings  # [0]: no follower, [1]: a follower
_solo_rings.len[0] = _solo_rings.len[1] = _solo_rings.next[0] = _solo_rings.next[1] = 0
cdef double _solo_ns_follow = 0.0
cdef double _solo_ns_plain = 0.0
cdef uint32_t _solo_rng = 362436069u
cdef uint32_t _solo_trial = 16
cdef bint _solo_guard = True
# Inputs above the mid-size range and below the pipe's threshold (133-512 KiB by default), walked
# alone, are timed into the solo record too and offered a follower the same way (_gap_follow).
cdef bint _gap_follow = True
cdef Py_ssize_t HOT_BYTES_PER_US = 2048 // 3  # 2/3 KiB
cdef size_t SPLIT_ARENA_KEEP = 4 << 20
cdef int _split_permille = 500
cdef S2Split _s2_split
cdef size_t _split_last = 0  # segments the last split walk took (tests)
cdef size_t _split_count = 0  # split walks run (tests)
# Inputs of _ipipe_min bytes and more are indexed on a second thread ahead of stage 2
# (csrc/nuif_indexpipe.h), where the build has threads and the process may use two CPUs
# (``_set_index_pipe``); 0: never.
cdef Py_ssize_t _ipipe_min = 0


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
    # the mid-size split's record: when this call's walk was timed (_hot_offers_split), its
    # start and whether it was shared; _hot_done records the time to the end of the writer
    cdef long long hot_t0
    cdef bint hot_split
    # a timed call walked alone: its text offered a follower (_solo_offers_follow), then
    # whether one hashed it (the writer clears it when none started)
    cdef bint hot_follow
    cdef bint hot_gap
    # write: hash the text while writing it (large texts; see _pipe_min) into digest
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
        self.hot_t0 = 0
        self.hot_follow = False
        self.hot_gap = False
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
        self.hot_t0 = 0
        self.hot_split = self.hot_follow = self.hot_gap = False
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
        """Build the tape: with the structural-index parser (csrc/nuif_stage1.h, nuif_stage2.h)
        for inputs of _indexed_min bytes and more, with its direct walk for those of _direct_min
        and more below that, else -- and for every input they refuse -- with validate() and the
        one-pass run(), which is how errors keep their codes, pointers, lines and columns."""
        self.take_cache()
        if (self.n >= _indexed_min or self.n >= _direct_min) and _utf8_ok(self.p, self.n):
            if self.indexed(self.n < _indexed_min or self.n >= _split_min):
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

    cdef bint indexed(self, bint direct) except -1:
        """The structural-index parser (``direct``: its second stage alone, without the index):
        True with the tape built, False when it refused the input (the buffers are kept either
        way)."""
        global _s2_frames, _s2_frames_cap, _split_last, _split_count
        cdef S2 s
        cdef int rc
        cdef bint hot = False
        cdef bint timed = False
        cdef long long t0 = 0
        s.p = self.p
        s.n = <size_t>self.n
        s.max_depth = <size_t>self.max_depth if self.max_depth > 0 else 0
        s.s1_route = _s1_route
        s.float_libs = _float_libs
        s.chunk = _s2_chunk
        s.tape, s.tape_cap = self.tape, <size_t>self.tape_cap
        s.arena, s.arena_cap = self.arena, <size_t>self.arena_cap
        s.names, s.names_cap = self.names, <size_t>self.names_cap
        s.order, s.order_cap = self.order, <size_t>self.order_cap
        s.sort_buf, s.sort_cap = self.sort_buf, <size_t>self.sort_cap
        s.doubles, s.doubles_cap = self.doubles, <size_t>self.doubles_cap
        s.frames, s.frames_cap = _s2_frames, _s2_frames_cap
        s.direct = direct
        s.idx_buf = NULL if direct else _index_buffer()
        s.pipe_min = <size_t>_ipipe_min
        s.raw_mem = 0
        s.stop = NULL
        s.lock = NULL
        s.split = NULL
        s.spliced = 0
        if direct and self.n >= _split_min:
            hot = True
        elif direct and _split_hot_min <= self.n <= _split_hot_max:
            timed = True
            if _hot_offers_split():
                hot = nuif_thread_hot()
                if not hot:
                    nuif_thread_warm()  # walk alone; the next call may find a spinning thread
            if not hot and self.want_digest and _openssl and _solo_offers_follow():
                self.hot_follow = True
                nuif_thread_warm()  # spinning by the time the text starts: its follower
            t0 = nuif_clock_ns()
        elif (direct and _gap_follow and _split_hot_min <= self.n and _split_hot_max < self.n
              and self.n < _pipe_min and self.want_digest and _openssl):
            # between the mid-size range and the pipe's: walked alone, and its walk outlasts a
            # spin, so no warm-up: the writer wakes a pooled thread for its follower itself
            timed = True
            self.hot_gap = True
            self.hot_follow = _solo_offers_follow()
            t0 = nuif_clock_ns()
        if hot:
            _s2_split.start = <size_t>self.n * <size_t>_split_permille // 1000
            s.split = &_s2_split
        rc = nuif_s2_parse(&s)
        if timed and rc == S2_OK:  # recorded once the text is written (_hot_done)
            self.hot_t0 = t0
            self.hot_split = hot
        if s.split != NULL:
            _split_last = s.spliced
            _split_count += 1
            nuif_s2_split_trim(&_s2_split, CACHE_MAX, SPLIT_ARENA_KEEP)
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


cdef inline bint _hot_offers_split() noexcept:
    """Whether a mid-size walk is offered to a spinning thread (see _hot_ns_split)."""
    global _hot_probe
    cdef bint split
    if not _hot_guard or _hot_probe:
        return True
    split = (_hot_ns_split == 0.0 or _hot_ns_alone == 0.0
             or _hot_ns_split <= 0.97 * _hot_ns_alone)
    if _hot_trial > 0:
        if _xorshift(&_hot_rng) % _hot_trial == 0:  # a trial the other way
            if split:
                return False
            _hot_probe = True
            return True
    return split


cdef inline bint _solo_offers_follow() noexcept:
    """Whether the text of a call walked alone is offered a follower (see _solo_rings)."""
    return _ring_offers(_solo_ns_follow, _solo_ns_plain, 0.97, _solo_guard, _solo_trial,
                        &_solo_rng)


cdef inline uint32_t _xorshift(uint32_t* state) noexcept:
    """The next number of a xorshift generator (the records' trials: not every n-th call, which
    a program cycling through n documents would always land on the same one)."""
    state[0] ^= state[0] << 13
    state[0] ^= state[0] >> 17
    state[0] ^= state[0] << 5
    return state[0]


cdef inline void _hot_done(_Parser parser) noexcept:
    """After the writer (of a text not hashed): keep the time of a timed mid-size call, from the
    start of its walk to the end of its text, per KiB of input, in the record of its kind (split
    or alone).  Not the walk alone: a shared walk leaves the caller part of the input and tape it
    did not read itself, which the writer then fetches (``strings`` 64 KiB: the walk twice as
    fast shared, the call 6 % slower)."""
    if parser.hot_t0 == 0:
        return
    _hot_record(parser.hot_t0, parser.hot_split, parser.hot_follow, parser.hot_gap, parser.n)
    parser.hot_t0 = 0


# A text that is also hashed is timed to the end of its hash (_hot_defer, then _hot_settle once
# the digest is there): a shared call's text is hashed by the follower while it is written, so
# the writer's end includes the hash, and a call walked alone hashes after it.  Timed to the
# writer's end, the record charged the hash to shared calls only, and chose walking alone for
# `strings` 64 KiB (842 against 1,056 ns per KiB), which is 1.14x slower than sharing.
cdef long long _hot_pend_t0 = 0
cdef bint _hot_pend_split = False
cdef bint _hot_pend_follow = False
cdef bint _hot_pend_gap = False
cdef Py_ssize_t _hot_pend_n = 0


cdef inline void _hot_defer(_Parser parser) noexcept:
    """After the writer of a text that is hashed next: keep the call's record for _hot_settle."""
    global _hot_pend_t0, _hot_pend_split, _hot_pend_follow, _hot_pend_gap, _hot_pend_n
    _hot_pend_t0 = parser.hot_t0
    _hot_pend_split = parser.hot_split
    _hot_pend_follow = parser.hot_follow
    _hot_pend_gap = parser.hot_gap
    _hot_pend_n = parser.n
    parser.hot_t0 = 0


cdef inline void _hot_settle() noexcept:
    """After the hash of the last deferred call's text: keep its time (see _hot_done)."""
    global _hot_pend_t0
    if _hot_pend_t0 == 0:
        return
    _hot_record(_hot_pend_t0, _hot_pend_split, _hot_pend_follow, _hot_pend_gap, _hot_pend_n)
    _hot_pend_t0 = 0


cdef void _hot_record(long long t0, bint split, bint follow, bint gap, Py_ssize_t n) noexcept:
    """Keep the time since ``t0`` of a mid-size call of ``n`` input bytes, shared or not (and
    when not, in the solo record too, by whether a follower hashed its text); ``gap``: a call
    above the mid-size range (``Parser.hot_gap``), kept in the solo record only."""
    global _hot_ns_split, _hot_ns_alone, _hot_probe, _solo_ns_follow, _solo_ns_plain
    cdef long long ns = nuif_clock_ns() - t0
    cdef double per_kib
    if ns <= 0 or n <= 0:
        return
    per_kib = <double>ns * 1024.0 / <double>n
    if split:
        _hot_probe = False
        _hot_ns_split = _hot_keep(1, per_kib)
    else:
        if not gap:
            _hot_ns_alone = _hot_keep(0, per_kib)
        if follow:
            _solo_ns_follow = _ring_keep(&_solo_rings, 1, per_kib, _solo_ns_follow)
        else:
            _solo_ns_plain = _ring_keep(&_solo_rings, 0, per_kib, _solo_ns_plain)


cdef double _hot_keep(int kind, double per_kib) noexcept:
    """Keep ``per_kib`` in record ``kind`` (0 alone, 1 shared) and return its new mean."""
    return _ring_keep(&_hot_rings, kind, per_kib, _hot_ns_split if kind else _hot_ns_alone)


cdef double _ring_keep(Ring2* r, int kind, double x, double mean) noexcept:
    """Keep ``x`` in ``r``'s ring ``kind``, at most 3 times that ring's ``mean`` once it has 4
    calls, and return the ring's new mean."""
    cdef double total = 0.0
    cdef int i
    if r.len[kind] >= 4 and x > 3.0 * mean:
        x = 3.0 * mean
    r.v[kind][r.next[kind]] = x
    r.next[kind] = (r.next[kind] + 1) % HOT_RING
    if r.len[kind] < HOT_RING:
        r.len[kind] += 1
    for i in range(r.len[kind]):
        total += r.v[kind][i]
    return total / r.len[kind]


cdef int _ring_restart(Ring2* r, double x0, double x1, double* mean0, double* mean1,
                       int trial) except -1:
    """Empty both of ``r``'s rings, then keep ``x0`` in ring 0 and ``x1`` in ring 1 (0.0:
    nothing), their means in ``mean0`` and ``mean1``: the records' switches (ValueError for a
    negative call or trial rate)."""
    if x0 < 0.0 or x1 < 0.0 or trial < 0:
        raise ValueError("the records and the trial rate must not be negative")
    r.len[0] = r.len[1] = r.next[0] = r.next[1] = 0
    mean0[0] = _ring_keep(r, 0, x0, 0.0) if x0 > 0.0 else 0.0
    mean1[0] = _ring_keep(r, 1, x1, 0.0) if x1 > 0.0 else 0.0
    return 0


cdef inline bint _ring_offers(double yes, double no, double factor, bint guard, uint32_t trial,
                              uint32_t* rng) noexcept:
    """Whether a record of two ways offers the one of mean ``yes``: unless it has both means
    and ``yes`` is above ``factor`` times ``no``; one call in ``trial`` (drawn from ``rng``)
    goes the other way; always without ``guard``."""
    cdef bint offer
    if not guard:
        return True
    offer = yes == 0.0 or no == 0.0 or yes <= factor * no
    if trial > 0 and _xorshift(rng) % trial == 0:
        return not offer
    return offer


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


cdef uint32_t* _index_buffer() except NULL:
    """The process's stage-1 index buffer (one chunk's entries), allocated on first use."""
    global _s2_idx
    if _s2_idx == NULL:
        _s2_idx = <uint32_t*>PyMem_Malloc((S2_CHUNK + S1_SLACK) * sizeof(uint32_t))
        if _s2_idx == NULL:
            raise MemoryError()
    return _s2_idx


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
