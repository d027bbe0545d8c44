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


def _set_hashpipe(Py_ssize_t min_bytes, Py_ssize_t step, bint fault=False):
    """Hash texts of inputs of ``min_bytes`` and more while writing, fed every
    ``step`` bytes (``min_bytes`` = PY_SSIZE_T_MAX: never); ``fault``: the first feed raises
    MemoryError (the error path).  Returns the old triple."""
    global _pipe_min, _pipe_step, _pipe_fault
    if step < 1 or min_bytes < 0:
        raise ValueError("step must be positive and min_bytes not negative")
    old = (_pipe_min, _pipe_step, _pipe_fault)
    _pipe_min, _pipe_step, _pipe_fault = min_bytes, step, fault
    return old


def _set_follow(Py_ssize_t max_bytes, Py_ssize_t step, bint fault=False):
    """Hash the texts of inputs below ``max_bytes`` with a follower (when the call shared its
    walk, or its input is of the pipe's ``min_bytes`` or more), fed every ``step`` bytes
    (``max_bytes`` = 0: never); ``fault``: the first feed raises MemoryError (the error path).
    Returns the old triple."""
    global _follow_max, _follow_step, _follow_fault
    if step < 1 or max_bytes < 0:
        raise ValueError("step must be positive and max_bytes not negative")
    old = (_follow_max, _follow_step, _follow_fault)
    _follow_max, _follow_step, _follow_fault = max_bytes, step, fault
    return old


def _set_check_ahead(bint on, bint late=False):
    """Share the §3 check of a document whose text a follower hashes between the writer and the
    follower (``on``: csrc/nuif_check.h), or run it before the writer; ``late``: the follower
    leaves it all to the writer, as one that starts late does.  Returns the old pair."""
    global _check_ahead, nuif_check_plant_late
    old = (_check_ahead, nuif_check_plant_late != 0)
    _check_ahead = on
    nuif_check_plant_late = 1 if late else 0
    return old


def _set_id_generation(uint64_t gen):
    """Make ``gen`` the kept id table's last generation (tests: the next call takes gen + 1, and
    past NUIF_CK_GEN_MAX zeroes the table).  Returns the old one."""
    global _spare_gen
    old = _spare_gen
    _spare_gen = gen
    return old


def _check_ahead_runs():
    """How many nodes followers have checked so far (the §3 check beside the writer)."""
    return nuif_check_by_job


def _follow_last():
    """(followers started so far, bytes of its text the last one hashed itself: 0 when it never
    started)."""
    cdef size_t started = 0
    cdef size_t hashed = nuif_hashfollow_last(&started)
    return started, hashed


def _set_openssl(bint on):
    """Hash through libcrypto (when built with it) or hashlib. Returns the old state."""
    global _openssl
    cdef bint old = _openssl
    _openssl = on and nuif_sha256_backend() == 1
    return old


def _set_crypto(str how, prefix=None):
    """Bind libcrypto's SHA-256 functions anew (tests): ``"linked"`` (where the build linked
    it), ``"loaded"`` (as at import: the libcrypto hashlib's ``_hashlib`` uses, else the first
    loaded ``libcrypto*``; with ``prefix``, only the first loaded library whose file name starts
    with it) or ``"none"``.  Returns the binding before, as
    :func:`crypto_binding` gives it; raises ValueError when ``how`` is not one of the three or
    this build cannot bind that way (a search that finds nothing leaves them unbound).  Also
    re-reads the direct route (``_set_openssl(True)``).  Not while another thread hashes."""
    global _openssl
    cdef dict ways = {"none": NUIF_CRYPTO_NONE, "linked": NUIF_CRYPTO_LINKED,
                      "loaded": NUIF_CRYPTO_LOADED}
    if how not in ways or not nuif_crypto_can(ways[how]):
        raise ValueError(f"cannot bind libcrypto's SHA-256 functions by {how!r} in this build")
    old = crypto_binding()
    if how == "loaded":
        _bind_loaded_crypto(prefix)
    else:
        nuif_crypto_bind(ways[how], NULL, NULL)
    _openssl = nuif_sha256_backend() == 1
    return old


def _set_sha_lowlevel(int on):
    """libcrypto's SHA256_Init/_Update/_Final (1, used while they are bound) or its EVP
    interface (0, a linked build's; elsewhere hashlib) for the direct route; -1 only asks.
    Returns the old choice as a bool, whether or not the functions are bound now."""
    if on not in (-1, 0, 1):
        raise ValueError("on must be -1, 0 or 1")
    return nuif_sha256_lowlevel(on) == 1


def _set_indexed(object min_bytes):
    """Build the tapes of inputs of ``min_bytes`` and more with the structural-index parser
    (0: every input; None: none, the one-pass parser only); returns the old setting."""
    global _indexed_min
    old = None if _indexed_min == PY_SSIZE_T_MAX else _indexed_min
    _indexed_min = PY_SSIZE_T_MAX if min_bytes is None else <Py_ssize_t>min_bytes
    return old


def _set_direct(object min_bytes):
    """Build the tapes of inputs of ``min_bytes`` and more (below ``_set_indexed``'s threshold)
    with the second stage of the structural-index parser alone, which finds each next token
    itself (0: every input; None: none); returns the old setting."""
    global _direct_min
    old = None if _direct_min == PY_SSIZE_T_MAX else _direct_min
    _direct_min = PY_SSIZE_T_MAX if min_bytes is None else <Py_ssize_t>min_bytes
    return old


def _set_split(object min_bytes, int permille=-1, bint wait=False):
    """Build the tapes of inputs of ``min_bytes`` and more with the split walk (the direct walk,
    a helper thread parsing from ``permille`` thousandths of the input on; -1: keep it), in place
    of the indexed parser there (None: never); ``wait``: the walk starts once the helper is done
    (tests: it then meets every segment the helper made, however small the input).  Returns the
    old ``(min_bytes, permille, wait)``."""
    global _split_min, _split_permille
    if not -1 <= permille <= 1000:
        raise ValueError("permille must be within 0..1000 (or -1)")
    old = (None if _split_min == PY_SSIZE_T_MAX else _split_min, _split_permille,
           bool(_s2_split.wait))
    _split_min = PY_SSIZE_T_MAX if min_bytes is None else <Py_ssize_t>min_bytes
    if permille >= 0:
        _split_permille = permille
    _s2_split.wait = wait
    return old


def _set_hot(object min_bytes, object max_bytes):
    """Share the parse of inputs from ``min_bytes`` up to ``max_bytes`` bytes (below the split
    walk's own threshold) with a pooled thread when one is spinning (None: never); returns the
    old ``(min_bytes, max_bytes)``."""
    global _split_hot_min, _split_hot_max
    old = (None if _split_hot_min == PY_SSIZE_T_MAX else _split_hot_min, _split_hot_max)
    _split_hot_min = PY_SSIZE_T_MAX if min_bytes is None else <Py_ssize_t>min_bytes
    _split_hot_max = 0 if max_bytes is None else <Py_ssize_t>max_bytes
    return old


def _set_thread_spin(long us):
    """How long a pooled thread spins for its next job before it sleeps, in microseconds (0:
    never), and with it the largest input the split walk shares with a spinning thread (2/3 KiB
    per microsecond); returns the old value (csrc/nuif_indexpipe.h)."""
    global _split_hot_max
    if us < 0:
        raise ValueError("the spin must not be negative")
    old = nuif_thread_spin()
    nuif_thread_set_spin(us)
    if _split_hot_min != PY_SSIZE_T_MAX:  # the mid-size split walk follows the spin
        _split_hot_max = us * HOT_BYTES_PER_US
    return old


def _hot_record_state():
    """The mid-size split's record: ``(split, alone, probe)``, the means of the last calls'
    nanoseconds per KiB shared with a spinning thread and alone (0.0: none yet), and whether a
    trial of the split is due."""
    return _hot_ns_split, _hot_ns_alone, bool(_hot_probe)


def _set_hot_record(double split, double alone, bint guard=True, int trial=16):
    """Start the mid-size split's records afresh, each with the one call ``split`` or ``alone``
    (0.0: none; see ``_hot_record_state``), the probe cleared; ``guard``: the records decide
    (off: every mid-size call is offered to a spinning thread); ``trial``: one call in how many
    tries the other way (0: none).  Returns the old ``(split, alone, guard, trial)``."""
    global _hot_probe, _hot_guard, _hot_trial
    old = (_hot_ns_split, _hot_ns_alone, bool(_hot_guard), <int>_hot_trial)
    _ring_restart(&_hot_rings, alone, split, &_hot_ns_alone, &_hot_ns_split, trial)
    _hot_probe = False
    _hot_guard, _hot_trial = guard, <uint32_t>trial
    return old


def _big_record_state():
    """The record of texts from the pipe's threshold up: ``(follower, pipe)``, the means of the
    last calls' writer nanoseconds per KiB of input with each (0.0: none yet)."""
    return _big_ns_follow, _big_ns_pipe


def _set_big_record(double follow, double pipe, bint guard=True, int trial=16):
    """Start that record afresh, each side with the one call ``follow`` or ``pipe`` (0.0: none);
    ``guard``: the record decides (off: always the follower); ``trial``: one call in how many
    goes the other way (0: none).  Returns the old ``(follow, pipe, guard, trial)``."""
    global _big_guard, _big_trial
    old = (_big_ns_follow, _big_ns_pipe, bool(_big_guard), <int>_big_trial)
    _ring_restart(&_big_rings, pipe, follow, &_big_ns_pipe, &_big_ns_follow, trial)
    _big_guard, _big_trial = guard, <uint32_t>trial
    return old


def _solo_record_state():
    """The solo record (calls walked alone): ``(follower, none)``, the means of the last calls'
    nanoseconds per KiB of input with a follower hashing their text and without one (0.0: none
    yet)."""
    return _solo_ns_follow, _solo_ns_plain


def _set_solo_record(double follow, double plain, bint guard=True, int trial=16):
    """Start the solo record afresh, each side with the one call ``follow`` or ``plain`` (0.0:
    none); ``guard``: the record decides (off: a follower is always offered); ``trial``: one
    call in how many goes the other way (0: none).  Returns the old ``(follow, plain, guard,
    trial)``."""
    global _solo_guard, _solo_trial
    old = (_solo_ns_follow, _solo_ns_plain, bool(_solo_guard), <int>_solo_trial)
    _ring_restart(&_solo_rings, plain, follow, &_solo_ns_plain, &_solo_ns_follow, trial)
    _solo_guard, _solo_trial = guard, <uint32_t>trial
    return old


def _set_gap_follow(bint on):
    """Offer a follower (by the solo record) to the texts of inputs above the mid-size range and
    below the pipe's threshold (``on``), or hash them after the writer.  Returns the old setting."""
    global _gap_follow
    old = _gap_follow
    _gap_follow = on
    return old


def _split_taken():
    """How many of its helper's segments the last split walk took."""
    return _split_last


def _split_walks():
    """How many split walks have run (the process's count)."""
    return _split_count


def _set_stage1_route(str route):
    """Index with ``route`` (``"portable"``, or a vector route this CPU and build run); returns
    the old route's name."""
    global _s1_route
    cdef str old = _S1_ROUTES[_s1_route]
    cdef int r = _S1_ROUTES.index(route)
    if not nuif_s1_route_runs(r):
        raise ValueError(f"this CPU or build cannot index with {route}")
    _s1_route = r
    return old


def _set_index_chunk(Py_ssize_t size):
    """Index ``size`` input bytes per chunk (a multiple of 64, at most the default, which
    ``size`` = 0 restores): small chunks make short inputs cross chunk boundaries.  Returns the
    old size."""
    global _s2_chunk
    cdef Py_ssize_t old = <Py_ssize_t>_s2_chunk
    if size == 0:
        size = S2_CHUNK
    if size < 64 or size % 64 or size > S2_CHUNK:
        raise ValueError(f"an index chunk is a multiple of 64 bytes up to {S2_CHUNK}")
    _s2_chunk = <size_t>size
    return old


def _set_index_pipe(Py_ssize_t min_bytes, bint lazy=False):
    """Index inputs of ``min_bytes`` and more on a second thread (0: never); ``lazy``: the thread
    indexes nothing, so the parsing thread takes over (the fallback path).  Returns the old
    ``min_bytes``."""
    global _ipipe_min
    cdef Py_ssize_t old = _ipipe_min
    if min_bytes and not nuif_ipipe_available():
        raise ValueError("this build has no threads for the index pipe")
    _ipipe_min = min_bytes
    nuif_ipipe_set_lazy_worker(lazy)
    return old


def _index_pipe_counts():
    """``(by_worker, chunks)`` of the last index pipe: how many of the chunks it indexed were the
    worker's (the rest, the parsing thread's own)."""
    cdef size_t w, c
    nuif_ipipe_last_counts(&w, &c)
    return w, c


def _thread_counts():
    """``(created, reused, idle)`` of the codec's thread pool (csrc/nuif_indexpipe.h): threads
    it started, jobs an idle pooled thread took, and threads idle in it now."""
    cdef size_t c, r, i
    nuif_thread_counts(&c, &r, &i)
    return c, r, i


def _thread_hot():
    """Whether a pooled thread is spinning now (a job given to it starts at once)."""
    return nuif_thread_hot() != 0


def _set_thread_pool(bint on):
    """Keep the codec's idle threads for the next job (True, the default) or not (False: each
    job starts a thread of its own; idle ones exit).  Returns the old setting."""
    return nuif_thread_set_pool(on) != 0


def _tape(bytes data not None, Py_ssize_t max_depth, bint indexed, bint direct=False):
    """The tape of ``data``, for comparing the two parsers: ``(tokens, arena, order, doubles,
    deepest)``, each token a tuple of its kind, flags and three words; with ``indexed``, from the
    structural-index parser alone (with ``direct``, its second stage without the index; None when
    it refuses), else from the one-pass parser (its errors raised)."""
    cdef _Parser parser = _new_parser(data, _clamp_depth(max_depth, len(data)), max_depth, True)
    parser.take_cache()
    if indexed:
        if not _utf8_ok(parser.p, parser.n) or not parser.indexed(direct):
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


def _index_count(bytes data not None):
    """Stage 1 alone over ``data`` (the current route and chunk size, UTF-8 not checked): the
    number of index entries, or None when stage 1 refuses the input.  For measuring stage 1's
    share of a parse, and for tests."""
    cdef S1State st
    cdef size_t n = <size_t>PyBytes_GET_SIZE(data), start = 0, end, total = 0
    cdef const uint8_t* p = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef uint32_t* idx = _index_buffer()
    nuif_s1_start(&st)
    while start < n:
        end = start + _s2_chunk if n - start > _s2_chunk else n
        total += nuif_s1_chunk(_s1_route, &st, p, n, start, end, idx)
        start = end
    return total if nuif_s1_ok(&st) else None


def _set_sha_beside(bint on, bint fault=False):
    """Whether the writer hashes the text it writes block by block on its own thread (where no
    follower or pipe hashes it); ``fault``: its first block's update fails, as libcrypto's
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
