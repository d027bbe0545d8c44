from libc.stdint cimport uint8_t

cdef extern from "nuif_escape.h":
    void nuif_escape_init() noexcept nogil
    Py_ssize_t nuif_plain_len(const uint8_t* s, Py_ssize_t L) noexcept nogil
    void nuif_copy(char* o, const uint8_t* src, Py_ssize_t L, const uint8_t* lim) noexcept nogil
    Py_ssize_t nuif_escape_byte(char* o, uint8_t c) noexcept nogil
    void nuif_hex32(char* o, const uint8_t* d) noexcept nogil
    Py_ssize_t nuif_canon_esc_len(const uint8_t* p, Py_ssize_t j) noexcept nogil
    Py_ssize_t nuif_escape_into(char* o, const uint8_t* s, Py_ssize_t L) noexcept nogil
    bint nuif_is_ascii(const uint8_t* s, Py_ssize_t L) noexcept nogil
