# The NUIF-0 §3 check on the token tape (csrc/nuif_check.h).
from libc.stdint cimport uint8_t, uint64_t
from nuif_tape cimport Tok

cdef extern from "nuif_check.h":
    enum:
        NUIF_CK_GEN_MAX
    ctypedef struct Check "nuif_check":
        Tok* tape
        const uint8_t* p
        size_t n
        const uint8_t* arena
        size_t arena_cap
        const double* doubles
        size_t max_nodes
        size_t* walk_next
        size_t* walk_end
        size_t walk_cap
        uint64_t* ids
        size_t ids_cap
        size_t ids_used
        uint64_t ids_gen
        size_t count
        int result
    int nuif_check_finish(Check* c) noexcept nogil
    void nuif_check_start(Check* c, Tok* tape, const uint8_t* p, size_t n, const uint8_t* arena,
                          size_t arena_cap, const double* doubles, size_t max_nodes,
                          size_t* stack, size_t walk_cap, uint64_t* ids, size_t ids_cap,
                          uint64_t gen) noexcept nogil
