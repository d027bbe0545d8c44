from libc.stdint cimport uint8_t

cdef extern from "nuif_tables.h":
    uint8_t HEXVAL "nuif_hexval"[256]
    uint8_t UNESCAPE "nuif_unescape"[256]
    void nuif_tables_init() noexcept nogil
