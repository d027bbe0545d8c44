from libc.stdint cimport uint8_t

cdef extern from "nuif_names.h":
    void nuif_names_init() noexcept nogil
    bint nuif_name_ok(const uint8_t* s, Py_ssize_t L, const uint8_t* lim, bint attr) noexcept nogil
    bint nuif_kind_ok(const uint8_t* s, Py_ssize_t L, const uint8_t* lim) noexcept nogil
