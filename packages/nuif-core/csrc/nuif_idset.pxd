from libc.stdint cimport uint8_t, uint64_t

cdef extern from "nuif_idset.h":
    const uint64_t NUIF_HASH_MASK
    const uint64_t NUIF_PAYLOAD_MASK
    uint64_t nuif_strhash(const uint8_t* s, Py_ssize_t L) noexcept nogil
    uint64_t nuif_hset_entry(const uint8_t* s, Py_ssize_t L) noexcept nogil
    Py_ssize_t nuif_hset_home(uint64_t entry, Py_ssize_t cap) noexcept nogil
    uint64_t* nuif_hset_grow(uint64_t* tab, Py_ssize_t cap, Py_ssize_t** vals) except NULL
