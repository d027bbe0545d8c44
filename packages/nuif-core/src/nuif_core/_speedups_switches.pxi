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


def _set_charconv(bint on):
    """Use <charconv> (when built with it) or CPython's dtoa. Returns the old state."""
    global _charconv
    cdef bint old = _charconv
    _charconv = on and nuif_float_backend() == 1
    return old


def _set_huge(bint on):
    """Give large output buffers the huge-page hint or not (also for measuring)."""
    global _huge
    cdef bint old = _huge
    _huge = on
    return old

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


def _set_openssl(bint on):
    """Hash through libcrypto (when built with it) or hashlib. Returns the old state."""
    global _openssl
    cdef bint old = _openssl
    _openssl = on and nuif_sha256_backend() == 1
    return old


def _set_sha_lowlevel(int on):
    """libcrypto's SHA256_Init/_Update/_Final (1, where built) or its EVP interface
    (0) for the direct route; -1 only asks.  Returns the old choice as a bool."""
    if on not in (-1, 0, 1):
        raise ValueError("on must be -1, 0 or 1")
    return nuif_sha256_lowlevel(on) == 1
