# Part of _speedups.pyx (included there): the glue of the codec's one pipeline (csrc/nuif_doc.h:
# walk, §3 check, writer with SHA-256 beside it, in C; its output texts are bytes objects:
# glue/nuif_host_python.h).  Every canonical_json, canonical_document,
# canonical_result, valid_report and inspect_summary call runs it on the state kept in ``_doc``;
# this part turns its answer into the entry point's: the text, None for a schema problem
# (schema_report then reports: _speedups_report.pxi), or the error of a text it refused
# (_speedups_fault.pxi).

# the pipeline's state, kept between calls (its buffers grow to the largest input and stay)
cdef nuif_doc _doc
_doc.scratch_keep = NUIF_DOC_SCRATCH_KEEP
# texts the writer hashed (tests: _counters()["hashed_while_writing"])
cdef Py_ssize_t _doc_hashed = 0


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


cdef inline size_t _c_depth(object max_depth, Py_ssize_t n) except? 0:
    """A depth limit (an int) as the pipeline's C integer (negative: 0)."""
    cdef Py_ssize_t depth = _clamp_depth(max_depth, n)
    return <size_t>depth if depth > 0 else 0


cdef inline size_t _c_nodes(object max_nodes) except? 0:
    """A node limit (an int) as the pipeline's C integer (negative: 0, no node at all)."""
    return <size_t>_clamp_count(max_nodes) if max_nodes >= 0 else 0


cdef inline object _run(bytes data, object max_depth, size_t depth, size_t nodes, int mode,
                        unsigned char* digest=NULL):
    """The pipeline on ``data`` (see ``_run_on``), on the kept state; in modes NUIF_DOC_HASH
    and NUIF_DOC_DIGEST, the text's SHA-256, made while it was written, goes to ``digest``."""
    cdef nuif_doc spare
    if _doc.busy:  # a call made while an inspect summary reads the kept tape (a finalizer)
        memset(&spare, 0, sizeof(nuif_doc))
        try:
            return _run_on(&spare, data, max_depth, depth, nodes, mode, digest)
        finally:
            nuif_doc_free(&spare)
    return _run_on(&_doc, data, max_depth, depth, nodes, mode, digest)


cdef object _run_on(nuif_doc* st, bytes data, object max_depth, size_t depth, size_t nodes,
                    int mode, unsigned char* digest):
    """The pipeline on ``data``, nesting at most ``depth`` deep, a document of at most ``nodes``
    nodes (``_c_depth``, ``_c_nodes``; ``max_depth`` as given, for the error): its canonical
    text (``b""`` in mode NUIF_DOC_DIGEST: only the hash is wanted);
    None when ``mode`` asks for a document and the text is valid JSON but not a valid document;
    raises the error of a text it refuses."""
    global _doc_hashed
    cdef const uint8_t* p = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef int status = NUIF_DOC_TEXT
    cdef PyObject* r = NULL
    if _utf8_ok(p, n):
        r = <PyObject*>nuif_doc_run(st, p, <size_t>n, depth, nodes, _float_libs, mode, &status)
    if r != NULL:
        text = <object>r
        Py_DECREF(text)  # the reference nuif_doc_run gave; ``text`` holds its own
        if mode >= NUIF_DOC_HASH:
            memcpy(digest, st.digest, 32)
            _doc_hashed += 1
        return text
    if status == NUIF_DOC_SCHEMA:
        return None
    if status == NUIF_DOC_ERROR:
        _raise_set()
    _raise_fault(st, data, max_depth)


cdef int _raise_set() except -1:
    """Raise the exception the host recorded (glue/nuif_host_python.h: MemoryError, or what
    CPython's float conversion raised)."""
    if PyErr_Occurred() == NULL:
        raise SystemError("nuif: the pipeline failed and recorded no exception")
    return -1
