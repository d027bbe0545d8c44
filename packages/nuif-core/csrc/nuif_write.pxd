from libc.stdint cimport uint8_t, uint32_t

from nuif_tape cimport Tok
from nuif_sha256 cimport nuif_sha256_ctx

cdef extern from "nuif_write.h":
    enum:
        NUIF_W_DONE
        NUIF_W_ROOM
        NUIF_W_VALUE
    ctypedef struct Writer "nuif_writer":
        const Tok* tape
        const uint32_t* order
        const uint8_t* p
        const uint8_t* p_lim
        const uint8_t* arena
        const uint8_t* arena_lim
        const double* doubles
        int float_libs
        size_t* open_next
        size_t* open_end
        uint8_t* open_is_obj
        uint8_t* open_first
        size_t top
        size_t t
        int after
        size_t need
        int (*sha_update)(nuif_sha256_ctx* c, const void* p, size_t n) noexcept nogil
        nuif_sha256_ctx* sha_ctx
        size_t hashed
        size_t feed_at
    void nuif_write_start(Writer* w, const Tok* tape, const uint32_t* order, const uint8_t* p,
                          size_t n, const uint8_t* arena, size_t arena_cap, const double* doubles,
                          int float_libs, size_t* stack, size_t cap) noexcept nogil
    int nuif_write_run(Writer* w, char* b, Py_ssize_t* np, Py_ssize_t cap) noexcept nogil
