# Part of _speedups.pyx (included there): test switches.  Each one changes a route or a setting
# of this process so the tests can compare routes or reach an error path, and returns the old
# state; none is part of the API.


def _set_utf8_route(str route):
    """Check UTF-8 with ``route`` (``"scalar"``, or a vector route that is no better than what
    this CPU and build allow); returns the old route's name."""
    global _utf8_route
    cdef str old = _UTF8_ROUTES[_utf8_route]
    cdef int r = _UTF8_ROUTES.index(route)
    if not nuif_utf8_route_runs(r):
        raise ValueError(f"this CPU or build cannot check UTF-8 with {route}")
    _utf8_route = r
    return old


def _utf8_check(bytes data not None):
    """The whole-input verdict (``_utf8_ok``) of the current route."""
    return _utf8_ok(<const uint8_t*>PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))


def _set_float_libs(bint on):
    """Convert doubles with the vendored libraries (when built with them) or CPython's dtoa.
    Returns the old state."""
    global _float_libs
    cdef bint old = _float_libs
    _float_libs = on and nuif_float_backend() == 1
    return old


def _set_huge(bint on):
    """Give large output buffers the huge-page hint or not (also for measuring)."""
    global _huge
    cdef bint old = _huge
    _huge = on
    return old

def _set_scratch_keep(Py_ssize_t max_bytes):
    """Keep output scratch buffers of at most ``max_bytes`` between calls (texts that outgrow it
    move into their bytes object while they are written); returns the previous setting.  The
    buffer kept now is dropped, so the next call starts from a fresh one."""
    global SCRATCH_KEEP, _spare, _spare_cap
    cdef Py_ssize_t old = SCRATCH_KEEP
    SCRATCH_KEEP = max_bytes
    PyMem_Free(_spare)
    _spare = NULL
    _spare_cap = 0
    return old


def _scratch_kept():
    """The size of the output scratch buffer kept for the next call (0: none)."""
    return _spare_cap


def _set_id_generation(uint64_t gen):
    """Make ``gen`` the kept id table's last generation (tests: the next call takes gen + 1, and
    past NUIF_CK_GEN_MAX zeroes the table).  Returns the old one."""
    global _spare_gen
    old = _spare_gen
    _spare_gen = gen
    return old


def _set_openssl(bint on):
    """Hash through libcrypto (when the build linked it) or hashlib. Returns the old state."""
    global _openssl
    cdef bint old = _openssl
    _openssl = on and nuif_sha256_linked() == 1
    return old


def _tape(bytes data not None, Py_ssize_t max_depth, bint walk):
    """The tape of ``data``, for comparing the two ways of building it: ``(tokens, arena, order,
    doubles, deepest)``, each token a tuple of its kind, flags and three words; with ``walk``,
    from the walk alone (None when it refuses), else from the one-pass parser (its errors
    raised)."""
    cdef _Parser parser = _new_parser(data, _clamp_depth(max_depth, len(data)), max_depth, True)
    parser.take_cache()
    if walk:
        if not _utf8_ok(parser.p, parser.n) or not parser.walk():
            return None
    else:
        parser.one_pass_tape()
    cdef Py_ssize_t k
    tokens = [(parser.tape[k].kind, parser.tape[k].flags, parser.tape[k].at, parser.tape[k].len,
               parser.tape[k].quote) for k in range(parser.ntok)]
    return (tokens,
            (<char*>parser.arena)[:parser.arena_len] if parser.arena_len else b"",
            (<char*>parser.order)[:parser.order_len * 4] if parser.order_len else b"",
            (<char*>parser.doubles)[:parser.doubles_len * sizeof(double)]
            if parser.doubles_len else b"",
            parser.deepest)


def _set_walk(bint on):
    """Build tapes with the walk (True, the default) or with the one-pass parser alone (the
    error path, as every call would take it). Returns the old setting."""
    global _walk_on
    cdef bint old = _walk_on
    _walk_on = on
    return old


def _set_sha_beside(bint on, bint fault=False):
    """Whether the writer hashes the text it writes block by block; ``fault``: its first block's
    update fails, as libcrypto's
    might, and the text is hashed afterwards instead (testing).  Returns the previous setting."""
    global _sha_beside, _sha_beside_fault
    cdef bint old = _sha_beside
    _sha_beside = on
    _sha_beside_fault = fault
    return old


def _sha_beside_count():
    """How many texts the writer has hashed itself (``_set_sha_beside``) since the module loaded:
    the general path's and those of the one-call path of small documents, whose writer always
    does."""
    return _sha_beside_texts + <Py_ssize_t>_small.answered


def _set_small(bint on):
    """Whether the front doors give small inputs to the one-call path of small documents
    (_speedups_small.pxi); off, every call takes the general path.  Returns the old setting."""
    global _small_on
    cdef bint old = _small_on
    _small_on = on
    return old


def _small_count():
    """How many calls the one-call path of small documents has answered since the module
    loaded."""
    return <Py_ssize_t>_small.answered


def _set_small_generation(uint64_t gen):
    """Make ``gen`` the one-call path's id set's last generation (as ``_set_id_generation`` does
    for the general path's).  Returns the old one."""
    old = _small.ids_gen
    _small.ids_gen = gen
    return old


def _small_reset():
    """Free the one-call path's buffers (tests: the next call grows them from nothing, its text
    moving while it is written and hashed).  Its count stays."""
    cdef size_t answered = _small.answered
    nuif_small_free(&_small)
    _small.answered = answered
