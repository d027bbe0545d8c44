# Part of _speedups.pyx (included there): the canonical writer.  It walks the token tape with an
# explicit stack of open containers and appends RFC 8785 bytes to a growing ``bytes`` object
# (_speedups_buffer.pxi); an object's members come in the order its run of the ``order`` array
# gives (sorted when the object closed).  A large text is hashed on a second thread while it is
# written (csrc/nuif_hashpipe.h; settings in _speedups_hash.pxi).


cdef int _write_escaped(_Buf out, const uint8_t* src, Py_ssize_t L, bint name) except -1:
    """A string that has characters to escape, quoted; a member name is followed by its colon."""
    cdef char* o = out.reserve(6 * L + 3)
    o[0] = 0x22
    L = nuif_escape_into(o + 1, src, L) + 1
    o[L] = 0x22
    if name:
        o[L + 1] = 0x3A
        out.n += L + 2
    else:
        out.n += L + 1
    return 0


cdef inline int _write_value_string(_Parser parser, _Buf out, const Tok* tk) except -1:
    """A string value, quoted and escaped."""
    cdef Py_ssize_t L = tk.len
    cdef char* o
    if tk.flags & F_NEEDS_ESC:
        return _write_escaped(out, parser.tstr(tk), L, False)
    o = out.reserve(L + 18)  # 16 bytes of room past the text for nuif_copy's block copies
    o[0] = 0x22
    nuif_copy(o + 1, parser.tstr(tk), L, parser.tlim(tk))
    o[L + 1] = 0x22
    out.n += L + 2
    return 0


cdef inline int _write_member_name(_Parser parser, _Buf out, const Tok* tk, bint comma) except -1:
    """A member name, quoted and escaped, then its colon; after a comma when ``comma``."""
    cdef Py_ssize_t L = tk.len
    cdef char* o
    if tk.flags & F_NEEDS_ESC:
        if comma:
            out.putc(0x2C)
        return _write_escaped(out, parser.tstr(tk), L, True)
    o = out.reserve(L + 20)  # one reservation for all of it, and 16 bytes for nuif_copy
    if comma:
        o[0] = 0x2C
        o += 1
        out.n += 1
    o[0] = 0x22
    nuif_copy(o + 1, parser.tstr(tk), L, parser.tlim(tk))
    o[L + 1] = 0x22
    o[L + 2] = 0x3A
    out.n += L + 3
    return 0


cdef inline int _write_number(_Parser parser, _Buf out, const Tok* tk,
                              const uint8_t* p_lim) except -1:
    """A number token: the literal itself (integers and F_LIT), or its ES spelling.  One
    reservation covers every case (the literal and nuif_copy's 16 bytes, or an ES spelling)."""
    cdef char* o = out.reserve(tk.len + NUMBER_TEXT_MAX)
    cdef NumInfo r
    if tk.kind == T_INT:
        if tk.flags & F_NEGZERO:
            o[0] = 0x30
            out.n += 1
        else:
            nuif_copy(o, parser.p + tk.at, tk.len, p_lim)
            out.n += tk.len
    elif tk.flags & F_LIT:
        nuif_copy(o, parser.p + tk.at, tk.len, p_lim)
        out.n += tk.len
    elif tk.flags & F_DBL:
        out.n += _fmt_double(o, parser.doubles[tk.dbl])
    else:
        nuif_analyze(parser.p + tk.at, tk.len, &r)
        if r.k == 0:
            o[0] = 0x30
            out.n += 1
        else:
            out.n += nuif_fmt_es(o, r.neg, r.d, r.k, r.n)
    return 0


# the §3 check beside the writer (_set_check_ahead: tests and measurements)
cdef bint _check_ahead = True


cdef inline int _follower_start(_Buf out, bint hot, Check* ck) noexcept:
    """Start the follower of ``out``'s text (0, else -1); with ``ck``, it checks nodes whenever it
    has caught up with the writer."""
    if ck != NULL:
        return nuif_hashfollow_start_idle(<const unsigned char*>out.b, hot, nuif_check_step, ck)
    return nuif_hashfollow_start(<const unsigned char*>out.b, hot)


cdef inline bint _may_skip(const Tok* tape, Py_ssize_t kt) noexcept:
    """Whether the check may mark the member whose name is token ``kt`` F_SKIP: its value is an
    empty object or array."""
    cdef const Tok* v = &tape[kt + 1]
    return (v.kind == T_OBJ and v.members == 0) or (v.kind == T_ARR and v.end == kt + 2)


cdef object _write_canonical(_Parser parser, Check* ck=NULL):
    """The RFC 8785 text of the value on the tape, members marked F_SKIP left out; with
    ``parser.want_digest``, the SHA-256 of a large text, or of a mid-size one whose walk was
    shared or offered a follower (``parser.hot_follow``), goes to ``parser.digest`` as it is
    written (``parser.has_digest``), by a follower
    or the hashing pipe (csrc/nuif_hashpipe.h).  The container stack stays inline in this loop
    (the hot path of every canonicalization); strings and numbers go through inline helpers.

    With ``ck`` (``_check_prepare``d, not run), the text of a valid NUIF document, or None.  With
    a follower, the §3 check is shared with it (csrc/nuif_check.h): the follower checks nodes
    while it waits for text, this writer checks on where a member it may omit (an empty object
    or array as its value) needs its mark, and to the end once the text is written; without one
    the check runs here before anything is written."""
    cdef _Buf out = _new_buf(parser.n + 64)
    cdef Tok* tape = parser.tape
    cdef uint32_t* order = parser.order
    cdef Tok* tk
    cdef Py_ssize_t t = 0, top = 0, kt
    cdef char* o
    cdef const uint8_t* p_lim = parser.p + parser.n
    # the open containers, innermost at top - 1: the next member (an index into order) or element
    # (a token index) to write, where that run ends, whether it is an object, and whether nothing
    # has been written in it yet
    cdef Py_ssize_t cap = parser.deepest + 1
    cdef Py_ssize_t* open_next
    cdef Py_ssize_t* open_end
    cdef uint8_t* open_is_obj
    cdef uint8_t* open_first
    cdef nuif_hashpipe* pipe = NULL
    cdef Py_ssize_t feed_at = PY_SSIZE_T_MAX
    cdef int rc
    cdef bint follow = False
    cdef object copied = None
    cdef bint valid = True
    cdef long long big_t0 = 0
    cdef bint big_follow = False
    # the check beside the writer: member names below token `checked` have their final marks
    cdef bint ck_shared = False
    cdef size_t checked = <size_t>-1
    parser.has_digest = False
    if parser.want_digest and _openssl and _pipe_min <= parser.n < _follow_max:
        big_t0 = nuif_clock_ns()  # follower or pipe: the record decides (_big_offers_follow)
        big_follow = _big_offers_follow()
    if (parser.want_digest and _openssl and parser.n < _follow_max
          and ((parser.hot_t0 != 0 and (parser.hot_split or parser.hot_follow)) or big_follow)
          and _follower_start(out, parser.n < _pipe_min and not parser.hot_gap,
                              ck if _check_ahead else NULL) == 0):
        follow = out.follow = True
        feed_at = _follow_step
        ck_shared = ck != NULL and _check_ahead
        if ck_shared:
            checked = 0
    else:
        parser.hot_follow = False  # offered one, but no thread was spinning: hashed afterwards
    if ck != NULL and not ck_shared and nuif_check_finish(ck) != 1:
        if follow:
            out.follow = False
            nuif_hashfollow_stop(0)
        return None  # not a valid document (the check ran here, before anything was written)
    if not follow and parser.want_digest and _openssl and parser.n >= _pipe_min:
        pipe = nuif_hashpipe_start()  # NULL: hashed afterwards, as for small texts
        if pipe != NULL:
            out.pipe = pipe
            feed_at = _pipe_step
    open_next = <Py_ssize_t*>PyMem_Malloc(cap * (2 * sizeof(Py_ssize_t) + 2))
    if open_next == NULL:
        if ck_shared:
            nuif_check_settle(ck)
        if follow:
            out.follow = False
            nuif_hashfollow_stop(0)
        if pipe != NULL:
            out.pipe = NULL
            nuif_hashpipe_abort(pipe)
        raise MemoryError()
    open_end = open_next + cap
    open_is_obj = <uint8_t*>(open_end + cap)
    open_first = open_is_obj + cap
    try:
        while True:
            tk = &tape[t]
            if tk.kind == T_STR:
                _write_value_string(parser, out, tk)
            elif tk.kind == T_ARR or tk.kind == T_OBJ:
                o = out.reserve(1)
                if tk.kind == T_ARR:
                    o[0] = 0x5B
                    open_next[top] = t + 1
                    open_end[top] = tk.end
                    open_is_obj[top] = 0
                else:
                    o[0] = 0x7B
                    open_next[top] = tk.order_at
                    open_end[top] = tk.order_at + tk.members
                    open_is_obj[top] = 1
                open_first[top] = 1
                out.n += 1
                top += 1
                if tk.kind == T_ARR and tk.end > t + 1 and nuif_literal_number(&tape[t + 1]):
                    # an array of numbers written as they are: its elements in a loop of their
                    # own (csrc/nuif_write.h), up to one that is not such a number
                    kt = nuif_write_literals(tape, t + 1, tk.end, parser.p, p_lim, out.b,
                                             &out.n, out.cap)
                    if kt != t + 1:
                        open_next[top - 1] = kt
                        open_first[top - 1] = 0
            elif tk.kind == T_INT or tk.kind == T_FLT:
                _write_number(parser, out, tk, p_lim)
            elif tk.kind == T_TRUE:
                out.put(b"true", 4)
            elif tk.kind == T_FALSE:
                out.put(b"false", 5)
            else:
                out.put(b"null", 4)
            if out.n >= feed_at:  # another step of the text is final: hash it meanwhile
                if out.follow:
                    if _follow_fault:
                        raise MemoryError("injected by _set_follow (testing)")
                    nuif_hashfollow_feed(out.n)
                    feed_at = out.n + _follow_step
                elif pipe == NULL:  # the buffer moved and ended the follower: no more feeds
                    feed_at = PY_SSIZE_T_MAX
                elif _pipe_fault:
                    raise MemoryError("injected by _set_hashpipe (testing)")
                else:
                    nuif_hashpipe_feed(pipe, <const unsigned char*>out.b, out.n)
                    feed_at = out.n + _pipe_step
            # the next value to write: close finished containers, then a member's name or a comma
            while top > 0:
                if open_next[top - 1] == open_end[top - 1]:
                    out.putc(0x7D if open_is_obj[top - 1] else 0x5D)
                    top -= 1
                    continue
                if open_is_obj[top - 1]:
                    kt = order[open_next[top - 1]]
                    open_next[top - 1] += 1
                    tk = &tape[kt]
                    if <size_t>kt >= checked and _may_skip(tape, kt):  # the check must pass it
                        checked = nuif_check_until(ck, kt)
                    if tk.flags & F_SKIP:  # only canonical_document sets it
                        continue
                    _write_member_name(parser, out, tk, not open_first[top - 1])
                    open_first[top - 1] = 0
                    t = kt + 1
                else:
                    if not open_first[top - 1]:
                        out.putc(0x2C)
                    open_first[top - 1] = 0
                    t = open_next[top - 1]
                    open_next[top - 1] = parser.vend(t)
                break
            else:
                break
        if ck_shared:
            ck_shared = False
            if nuif_check_finish(ck) != 1:  # not a valid document: the text is of no use
                valid = False
        if follow:
            if out.follow:
                # the bytes object first: the follower hashes the rest of the text meanwhile
                copied = out.copy_out()
                out.follow = False
                out.follow_from = nuif_hashfollow_stop(out.n)
            parser.has_digest = nuif_hashfollow_end(<const unsigned char*>out.b, out.follow_from,
                                                    out.n, parser.digest) == 0
        if pipe != NULL:  # the last part, then the digest (the buffer moves in finish)
            out.pipe = NULL
            with nogil:
                rc = nuif_hashpipe_finish(pipe, <const unsigned char*>out.b, out.n, parser.digest)
            pipe = NULL
            parser.has_digest = rc == 0
    finally:
        PyMem_Free(open_next)
        if ck_shared:  # an error while writing: the check must be over before ck goes
            nuif_check_settle(ck)
        if out.follow:  # an error while writing: the follower must not read the buffer any more
            out.follow = False
            nuif_hashfollow_stop(out.n)
        if pipe != NULL:  # an error while writing: stop the hashing thread
            out.pipe = NULL
            nuif_hashpipe_abort(pipe)
    text = out.finish(copied)
    if not valid:
        parser.has_digest = False
        return None
    if big_t0 != 0 and parser.has_digest:
        _big_keep(follow, big_t0, parser.n)
    return text
