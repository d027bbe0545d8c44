# The one-call path of small documents (csrc/nuif_small.h).
from libc.stdint cimport uint8_t, uint64_t

cdef extern from "nuif_small.h":
    enum:
        NUIF_SMALL_OK
        NUIF_SMALL_PASS
    ctypedef struct Small "nuif_small":
        char* out
        size_t out_len
        unsigned char digest[32]
        size_t answered
        uint64_t ids_gen
    int nuif_small_run(Small* st, const uint8_t* p, size_t n, size_t max_depth,
                       size_t max_nodes, int float_libs) noexcept
    void nuif_small_free(Small* st) noexcept
