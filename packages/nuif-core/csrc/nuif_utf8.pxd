from libc.stdint cimport uint8_t, uint32_t

cdef extern from "nuif_utf8.h":
    void nuif_utf8_init() noexcept nogil
    int nuif_utf8_route() noexcept nogil
    int nuif_utf8_route_runs(int route) noexcept nogil
    int nuif_utf8_valid(const uint8_t* p, size_t n, int route) noexcept nogil
    Py_ssize_t nuif_utf8_first_bad(const uint8_t* p, Py_ssize_t n) noexcept nogil
    Py_ssize_t nuif_nonchar_at(const uint8_t* p, Py_ssize_t j) noexcept nogil
    int nuif_seq_len(uint8_t c) noexcept nogil
    Py_ssize_t nuif_first_nonchar(const uint8_t* p, Py_ssize_t L) noexcept nogil
    int nuif_utf8_put(uint8_t* w, uint32_t cp) noexcept nogil
    int nuif_utf8_put_bmp(uint8_t* w, uint32_t cp) noexcept nogil
