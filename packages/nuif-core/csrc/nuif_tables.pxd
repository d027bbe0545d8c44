from libc.stdint cimport uint8_t

cdef extern from "nuif_tables.h":
    enum:
        C_PLAIN "NUIF_C_PLAIN"
        C_QUOTE "NUIF_C_QUOTE"
        C_BSLASH "NUIF_C_BSLASH"
        C_CTRL "NUIF_C_CTRL"
        C_EF "NUIF_C_EF"
        C_F0 "NUIF_C_F0"
    uint8_t STR_CLS "nuif_str_cls"[256]
    uint8_t HEXVAL "nuif_hexval"[256]
    uint8_t UNESCAPE "nuif_unescape"[256]
    void nuif_tables_init() noexcept nogil
