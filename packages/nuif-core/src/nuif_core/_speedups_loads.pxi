# Part of _speedups.pyx (included there): ``loads``, the Python values of a text, built from the
# token tape of the pipeline's walk (csrc/nuif_walk.h), so that one parser reads every text and
# reports every error (_speedups_fault.pxi).  The tape holds one token per value and member name
# in document order, a container's token the index just past its subtree: one pass over it, with
# a stack of the open containers, builds the values.

# slots of the member-name cache of one loads call (a power of 2)
cdef enum:
    KCACHE_SIZE = 256


ctypedef struct _LoadFrame:
    PyObject* cont  # the container being filled (borrowed: its parent, or the root, holds it)
    uint32_t end    # the token index just past its subtree
    bint is_obj


cdef object _load_text(const Walk* s, const Tok* t):
    """A string token's text as a str (nuif_walk_parse_values decoded its escapes)."""
    cdef const uint8_t* ptr = (<const uint8_t*>s.arena if t.flags & F_ESC else s.p) + t.at
    cdef object text
    if t.flags & F_ASCII:
        text = PyUnicode_New(t.len, 127)
        memcpy(PyUnicode_DATA(text), ptr, t.len)
        return text
    return PyUnicode_DecodeUTF8(<const char*>ptr, t.len, NULL)


cdef object _load_key(const Walk* s, const Tok* t, PyObject** kcache):
    """A member name: short ASCII names come from the call's cache, so the few names a document
    repeats are one str object each (allocated and hashed once)."""
    cdef const uint8_t* ptr = (<const uint8_t*>s.arena if t.flags & F_ESC else s.p) + t.at
    cdef Py_ssize_t L = t.len, slot
    cdef PyObject* hit
    if L > 32 or not (t.flags & F_ASCII or nuif_is_ascii(ptr, L)):
        return _load_text(s, t)
    slot = <Py_ssize_t>(nuif_strhash(ptr, L) & (KCACHE_SIZE - 1))
    hit = kcache[slot]
    if hit != NULL and PyUnicode_GET_LENGTH(<object>hit) == L and memcmp(
            PyUnicode_DATA(<object>hit), ptr, L) == 0:
        return <object>hit
    text = PyUnicode_New(L, 127)
    memcpy(PyUnicode_DATA(text), ptr, L)
    Py_INCREF(text)
    Py_XDECREF(hit)
    kcache[slot] = <PyObject*>text
    return text


cdef object _load_number(const Walk* s, const Tok* t):
    """A number token's value: an int within ±(2^53 - 1), else a float (-0.0 read as 0.0)."""
    cdef const uint8_t* ptr = s.p + t.at
    cdef Py_ssize_t k, L = t.len
    cdef int64_t v = 0
    cdef double x
    cdef NumInfo r
    if t.kind == T_INT:
        k = 1 if ptr[0] == 0x2D else 0
        while k < L:
            v = v * 10 + (ptr[k] - 0x30)
            k += 1
        return -v if ptr[0] == 0x2D else v
    if t.flags & F_DBL:  # every non-integer (nuif_walk_parse_values)
        x = s.doubles[t.dbl]
    else:  # an integer beyond ±(2^53 - 1) that is its double's text
        nuif_analyze(ptr, L, &r)
        x = _literal_double(ptr, L, &r)
    return x if x != 0.0 else 0.0


cdef object _load_values(Walk* s):
    """The values of the tape of the walk's last parse (a valid text)."""
    cdef PyObject* kcache[KCACHE_SIZE]
    cdef _LoadFrame* frames = NULL
    cdef size_t depth = 0, cap = 0, k = 0
    cdef const Tok* t
    cdef _LoadFrame* f
    cdef Py_ssize_t slot
    cdef int gc_was_on
    memset(kcache, 0, sizeof(kcache))
    # the values built here hold no reference cycles: the cyclic collector would only walk the
    # growing tree again and again (about a third of the time on large documents)
    gc_was_on = PyGC_Disable()
    root = None
    try:
        while k < s.ntok:
            while depth and k == frames[depth - 1].end:
                depth -= 1
            t = &s.tape[k]
            key = None
            if depth and frames[depth - 1].is_obj:
                key = _load_key(s, t, kcache)
                k += 1
                t = &s.tape[k]
            if t.kind == T_STR:
                v = _load_text(s, t)
            elif t.kind == T_INT or t.kind == T_FLT:
                v = _load_number(s, t)
            elif t.kind == T_OBJ:
                v = {}
            elif t.kind == T_ARR:
                v = []
            else:
                v = True if t.kind == T_TRUE else False if t.kind == T_FALSE else None
            if depth == 0:
                root = v
            elif key is not None:
                PyDict_SetItem(<object>frames[depth - 1].cont, key, v)
            else:
                PyList_Append(<object>frames[depth - 1].cont, v)
            if t.kind == T_OBJ or t.kind == T_ARR:
                if depth >= cap:
                    cap = 2 * cap + 16
                    f = <_LoadFrame*>PyMem_Realloc(frames, cap * sizeof(_LoadFrame))
                    if f == NULL:
                        raise MemoryError()
                    frames = f
                frames[depth].cont = <PyObject*>v
                frames[depth].end = t.end
                frames[depth].is_obj = t.kind == T_OBJ
                depth += 1
            k += 1
    finally:
        if gc_was_on:
            PyGC_Enable()
        for slot in range(KCACHE_SIZE):
            Py_XDECREF(kcache[slot])
        PyMem_Free(frames)
    return root


cdef object _loads(bytes data, object max_depth):
    """``loads`` on the kept state (or one of its own when that is busy)."""
    cdef nuif_doc spare
    if _doc.busy:
        memset(&spare, 0, sizeof(nuif_doc))
        try:
            return _loads_on(&spare, data, max_depth)
        finally:
            nuif_doc_free(&spare)
    return _loads_on(&_doc, data, max_depth)


cdef object _loads_on(nuif_doc* st, bytes data, object max_depth):
    cdef Walk* s = &st.s
    cdef const uint8_t* p = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef int rc, was_busy
    if not _utf8_ok(p, n):
        _raise_fault(st, data, max_depth)
    s.p = p
    s.n = <size_t>n
    s.max_depth = _c_depth(max_depth, n)
    s.float_libs = _float_libs
    rc = nuif_walk_parse_values(s)
    if rc == WALK_NOMEM:
        _raise_set()
    if rc == WALK_REFUSE:
        _raise_fault(st, data, max_depth)
    # building the values allocates, and so may run Python code that calls the codec again: the
    # tape is this call's until the values are built
    was_busy = st.busy
    st.busy = 1
    try:
        return _load_values(s)
    finally:
        st.busy = was_busy
