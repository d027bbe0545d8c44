# The walk: strict I-JSON text to the token tape (csrc/nuif_walk.h).
from libc.stdint cimport uint8_t, uint32_t
from nuif_tape cimport Tok
from nuif_keysort cimport KeyEntry

cdef extern from "nuif_walk.h":
    enum:
        WALK_OK "NUIF_WALK_OK"
        WALK_REFUSE "NUIF_WALK_REFUSE"
        WALK_NOMEM "NUIF_WALK_NOMEM"
    ctypedef struct WalkFrame "nuif_walk_frame":
        pass
    ctypedef struct Walk "nuif_walk":
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
        WalkFrame* frames
        size_t frames_cap
        size_t deepest
    int nuif_walk_parse(Walk* s) noexcept
    int nuif_walk_parse_values(Walk* s) noexcept
