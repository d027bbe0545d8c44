# Part of _speedups.pyx (included there): the canonical writer.  Its loop (csrc/nuif_write.h)
# walks the token tape with an explicit stack of open containers and appends RFC 8785 bytes to a
# growing buffer (_speedups_buffer.pxi); an object's members come in the order its run of the
# ``order`` array gives (sorted when the object closed).  This part sets the loop up, gives it
# room, hashes the text while it is written (on a second thread, csrc/nuif_hashpipe.h, settings
# in _speedups_hash.pxi; or a small text block by block in the loop itself) and ends the §3
# check shared with that thread.


# the §3 check beside the writer (_set_check_ahead: tests and measurements)
cdef bint _check_ahead = True
# SHA-256 on the writer's thread, a block at a time as the text is written, for inputs below
# _sha_beside_max bytes (where no other thread hashes them; docs/format.md, "Hashing while
# writing, small documents"; _set_sha_beside: tests and measurements)
cdef bint _sha_beside = True
cdef Py_ssize_t _sha_beside_max = 16 * 1024
cdef bint _sha_beside_fault = False
cdef Py_ssize_t _sha_beside_texts = 0  # texts whose digest the writer made (_sha_beside_count)


cdef int _sha_update_fails(nuif_sha256_ctx* c, const void* p, size_t n) noexcept nogil:
    return 0  # _set_sha_beside(True, fault=True): an update that fails


cdef inline int _follower_start(_Buf out, bint hot, Check* ck) noexcept:
    """Start the follower of ``out``'s text (0, else -1); with ``ck``, it checks nodes whenever it
    has caught up with the writer."""
    if ck != NULL:
        return nuif_hashfollow_start_idle(<const unsigned char*>out.b, hot, nuif_check_step, ck)
    return nuif_hashfollow_start(<const unsigned char*>out.b, hot)


cdef enum:
    WRITE_STACK_LEVELS = 32


cdef object _write_canonical(_Parser parser, Check* ck=NULL):
    global _sha_beside_texts
    """The RFC 8785 text of the value on the tape, members marked F_SKIP left out; with
    ``parser.want_digest``, the SHA-256 of a large text, or of a mid-size one whose walk was
    shared or offered a follower (``parser.hot_follow``), goes to ``parser.digest`` as it is
    written (``parser.has_digest``), by a follower
    or the hashing pipe (csrc/nuif_hashpipe.h), and that of a small text by the writer itself,
    a block at a time (``_sha_beside``).  The loop itself is C (``nuif_write_run``,
    csrc/nuif_write.h); it comes back here for room, for each step of the text to hash, and for a
    double only Python prints.

    With ``ck`` (``_check_prepare``d, not run), the text of a valid NUIF document, or None.  With
    a follower, the §3 check is shared with it (csrc/nuif_check.h): the follower checks nodes
    while it waits for text, this writer checks on where a member it may omit (an empty object
    or array as its value) needs its mark, and to the end once the text is written; without one
    the check runs here before anything is written."""
    cdef _Buf out = _new_buf(parser.n + 64)
    # the loop's state (csrc/nuif_write.h), with its stack of open containers
    cdef Writer w
    cdef Py_ssize_t cap = parser.deepest + 1
    cdef char* o
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
    cdef nuif_sha256_ctx sha_ctx
    # the stack of open containers of a text this shallow (2 words and 2 bytes a level: at most 3
    # words)
    cdef size_t open_stack[3 * WRITE_STACK_LEVELS]
    cdef size_t* stack
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
    if cap <= WRITE_STACK_LEVELS:
        stack = &open_stack[0]
    else:
        stack = <size_t*>PyMem_Malloc(cap * (2 * sizeof(size_t) + 2))
    if stack == NULL:
        if ck_shared:
            nuif_check_settle(ck)
        if follow:
            out.follow = False
            nuif_hashfollow_stop(0)
        if pipe != NULL:
            out.pipe = NULL
            nuif_hashpipe_abort(pipe)
        raise MemoryError()
    nuif_write_start(&w, parser.tape, parser.order, parser.p, parser.n,
                     <const uint8_t*>parser.arena, parser.arena_cap, parser.doubles, _float_libs,
                     stack, cap)
    w.ck = ck
    w.checked = checked
    w.sha_ctx = &sha_ctx
    if (_sha_beside and parser.n < _sha_beside_max and not follow and pipe == NULL
            and parser.want_digest and _openssl
            and nuif_sha256_lowlevel(-1) == 1 and nuif_crypto.update != NULL
            and nuif_crypto.init(&sha_ctx) == 1):
        # hashed here, a block at a time as it is written
        w.sha_update = _sha_update_fails if _sha_beside_fault else nuif_crypto.update
        feed_at = 64
    w.feed_at = <size_t>feed_at
    try:
        while True:
            rc = nuif_write_run(&w, out.b, &out.n, out.cap)
            if rc == NUIF_W_DONE:
                break
            if rc == NUIF_W_ROOM:
                out.reserve(<Py_ssize_t>w.need)
                continue
            if rc == NUIF_W_VALUE:  # a double the libraries do not print: Python's repr, respelled
                o = out.reserve(NUMBER_TEXT_MAX)
                out.n += _fmt_double(o, parser.doubles[parser.tape[w.t].dbl])
                w.after = 1
                if out.n < feed_at or w.sha_update != NULL:
                    continue
            # another step of the text is final: hash it meanwhile
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
            w.feed_at = <size_t>feed_at
        if ck_shared:
            ck_shared = False
            if nuif_check_finish(ck) != 1:  # not a valid document: the text is of no use
                valid = False
        if w.sha_update != NULL:  # the last blocks, then the digest
            parser.has_digest = (
                w.sha_update(&sha_ctx, out.b + w.hashed, <size_t>out.n - w.hashed) == 1
                and nuif_crypto.final(parser.digest, &sha_ctx) == 1)
            _sha_beside_texts += parser.has_digest
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
        if cap > WRITE_STACK_LEVELS:
            PyMem_Free(w.open_next)
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
