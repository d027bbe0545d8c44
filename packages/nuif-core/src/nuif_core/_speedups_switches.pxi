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

def _set_id_generation(uint64_t gen):
    """Make ``gen`` the check's id set's last generation (tests: the next call takes gen + 1, and
    past NUIF_CK_GEN_MAX zeroes the table).  Returns the old one."""
    old = _doc.ids_gen
    _doc.ids_gen = gen
    return old

def _set_openssl(bint on):
    """Hash through libcrypto (when the build linked it) or hashlib. Returns the old state."""
    global _openssl
    cdef bint old = _openssl
    _openssl = on and nuif_sha256_linked() == 1
    return old


def _set_sha_beside(bint on, bint fault=False):
    """Whether the writer hashes the text while it writes it (with libcrypto; off: the text is
    hashed afterwards, as in a build without libcrypto); ``fault``: its first update fails, as
    libcrypto's might, and the text is hashed afterwards instead.  Returns the previous
    setting."""
    cdef bint old = not _doc.hash_off
    _doc.hash_off = not on
    _doc.hash_fault = fault
    return old


def _sha_beside_count():
    """How many texts the writer has hashed while writing them since the module loaded."""
    return _doc_hashed


def _doc_reset():
    """Free the pipeline's kept buffers (tests: the next call grows them from nothing, its text
    moving while it is written and hashed)."""
    cdef uint64_t gen = _doc.ids_gen
    nuif_doc_free(&_doc)
    _doc.ids_gen = gen


def _set_scratch_keep(Py_ssize_t max_bytes):
    """Keep output scratch buffers of at most ``max_bytes`` between calls, the pipeline's and
    ``dumps``' (texts that outgrow it move into their bytes object while they are written);
    returns the previous setting.  The buffers kept now are dropped."""
    global SCRATCH_KEEP, _spare, _spare_cap
    cdef Py_ssize_t old = SCRATCH_KEEP
    SCRATCH_KEEP = max_bytes
    _doc.scratch_keep = <size_t>max_bytes
    PyMem_Free(_spare)
    _spare = NULL
    _spare_cap = 0
    PyMem_Free(_doc.scratch)
    _doc.scratch = NULL
    _doc.scratch_cap = 0
    return old


def _scratch_kept():
    """The size of the pipeline's output scratch kept for the next call (0: none)."""
    return _doc.scratch_cap
