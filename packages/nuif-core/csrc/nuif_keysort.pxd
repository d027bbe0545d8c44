from libc.stdint cimport uint8_t, uint32_t

cdef extern from "nuif_keysort.h":
    ctypedef struct KeyEntry "nuif_key_entry":
        const uint8_t* ptr
        uint32_t len
        uint32_t tok
    void nuif_sort_keys(KeyEntry* a, KeyEntry* tmp, Py_ssize_t n) noexcept nogil
