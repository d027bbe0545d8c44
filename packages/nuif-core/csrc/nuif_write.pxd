from libc.stdint cimport uint8_t

from nuif_tape cimport Tok

cdef extern from "nuif_write.h":
    bint nuif_literal_number(const Tok* tk) noexcept nogil
    Py_ssize_t nuif_write_literals(const Tok* tape, Py_ssize_t t, Py_ssize_t end, const uint8_t* p,
                                   const uint8_t* lim, char* b, Py_ssize_t* n,
                                   Py_ssize_t cap) noexcept nogil
