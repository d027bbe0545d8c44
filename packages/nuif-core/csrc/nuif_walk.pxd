# The walk: strict I-JSON text to the token tape (csrc/nuif_walk.h).
from libc.stdint cimport uint8_t, uint32_t
from nuif_tape cimport Tok
from nuif_keysort cimport KeyEntry

cdef extern from "nuif_walk.h":
    enum:
        S2_OK "NUIF_S2_OK"
        S2_REFUSE "NUIF_S2_REFUSE"
        S2_NOMEM "NUIF_S2_NOMEM"
    ctypedef struct S2Frame "nuif_s2_frame":
        pass
    ctypedef struct S2 "nuif_s2":
        const uint8_t* p
        size_t n
        size_t max_depth
        int float_libs
        Tok* tape
        size_t tape_cap, ntok
        uint8_t* arena
        size_t arena_cap, arena_len
        uint32_t* names
        size_t names_cap
        uint32_t* order
        size_t order_cap, order_len
        KeyEntry* sort_buf
        size_t sort_cap
        double* doubles
        size_t doubles_cap, doubles_len
        S2Frame* frames
        size_t frames_cap
        size_t deepest
    int nuif_s2_parse(S2* s) noexcept
