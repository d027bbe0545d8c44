# Part of _speedups.pyx (included there): the whole input's UTF-8 check.

# The verdict comes from csrc/nuif_utf8.h's vector check (AVX2 or SSSE3, chosen once at import
# from what the CPU has; NEON on arm64) where the build compiled it, else from its scalar loop;
# the routes always agree.  ``_settings(utf8_route=...)`` (tests) switches routes so the tests
# can compare them.
cdef int _utf8_route = nuif_utf8_route()
cdef tuple _UTF8_ROUTES = ("scalar", "ssse3", "avx2", "neon")


cdef inline bint _utf8_ok(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """True when p[0:n] is valid UTF-8 (``nuif_utf8_first_bad`` then locates an error)."""
    return nuif_utf8_valid(p, <size_t>n, _utf8_route) == 1
