# Part of _speedups.pyx (included there): the canonical writer.  Its loop (csrc/nuif_write.h)
# walks the token tape with an explicit stack of open containers and appends RFC 8785 bytes to a
# growing buffer (_speedups_buffer.pxi); an object's members come in the order its run of the
# ``order`` array gives (sorted when the object closed).  This part sets the loop up, gives it
# room, and hashes the text block by block while it is written, when libcrypto's functions are
# linked (_speedups_hash.pxi).


# SHA-256 a block at a time as the text is written (docs/format.md, "Hashing while writing";
# _set_sha_beside: tests)
cdef bint _sha_beside = True
cdef bint _sha_beside_fault = False
cdef Py_ssize_t _sha_beside_texts = 0  # texts whose digest the writer made (_sha_beside_count)


cdef int _sha_update_fails(nuif_sha256_ctx* c, const void* p, size_t n) noexcept nogil:
    return 0  # _set_sha_beside(True, fault=True): an update that fails


cdef enum:
    WRITE_STACK_LEVELS = 32


cdef object _write_canonical(_Parser parser, Check* ck=NULL):
    """The RFC 8785 text of the value on the tape, members marked F_SKIP left out; with
    ``parser.want_digest``, its SHA-256 goes to ``parser.digest`` as it is written
    (``parser.has_digest``) when the build linked libcrypto.  The loop itself is C
    (``nuif_write_run``, csrc/nuif_write.h); it comes back here for room and for a double only
    Python prints.

    With ``ck`` (``_check_prepare``d, not run), the §3 check runs first (it marks what
    normalization omits), and the result is the text of a valid NUIF document, or None."""
    global _sha_beside_texts
    cdef _Buf out
    cdef Writer w
    cdef Py_ssize_t cap = parser.deepest + 1
    cdef char* o
    cdef int rc
    cdef nuif_sha256_ctx* sha_ctx = NULL
    # the stack of open containers of a text this shallow (2 words and 2 bytes a level: at most 3
    # words)
    cdef size_t open_stack[3 * WRITE_STACK_LEVELS]
    cdef size_t* stack
    parser.has_digest = False
    if ck != NULL and nuif_check_finish(ck) != 1:
        return None  # not a valid document
    out = _new_buf(parser.n + 64)
    if cap <= WRITE_STACK_LEVELS:
        stack = &open_stack[0]
    else:
        stack = <size_t*>PyMem_Malloc(cap * (2 * sizeof(size_t) + 2))
        if stack == NULL:
            raise MemoryError()
    nuif_write_start(&w, parser.tape, parser.order, parser.p, parser.n,
                     <const uint8_t*>parser.arena, parser.arena_cap, parser.doubles, _float_libs,
                     stack, cap)
    if _sha_beside and parser.want_digest and _openssl:
        sha_ctx = nuif_sha256_begin()
    if sha_ctx != NULL:
        w.sha_ctx = sha_ctx
        w.sha_update = _sha_update_fails if _sha_beside_fault else nuif_sha256_update
        w.feed_at = 64
    try:
        while True:
            rc = nuif_write_run(&w, out.b, &out.n, out.cap)
            if rc == NUIF_W_DONE:
                break
            if rc == NUIF_W_ROOM:
                out.reserve(<Py_ssize_t>w.need)
                continue
            # NUIF_W_VALUE: a double the libraries do not print: Python's repr, respelled
            o = out.reserve(NUMBER_TEXT_MAX)
            out.n += _fmt_double(o, parser.doubles[parser.tape[w.t].dbl])
            w.after = 1
        if w.sha_update != NULL:  # the last blocks, then the digest
            parser.has_digest = (
                w.sha_update(sha_ctx, out.b + w.hashed, <size_t>out.n - w.hashed) == 1
                and nuif_sha256_final(sha_ctx, parser.digest) == 1)
            _sha_beside_texts += parser.has_digest
    finally:
        if cap > WRITE_STACK_LEVELS:
            PyMem_Free(w.open_next)
    return out.finish()
