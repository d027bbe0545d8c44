# The structural-index parser (csrc/nuif_stage1.h: the index; csrc/nuif_stage2.h: the tape).
from libc.stdint cimport uint8_t, uint32_t
from nuif_tape cimport Tok
from nuif_keysort cimport KeyEntry

cdef extern from "nuif_stage1.h":
    enum:
        S1_PORTABLE "NUIF_S1_PORTABLE"
        S1_SSSE3 "NUIF_S1_SSSE3"
        S1_AVX2 "NUIF_S1_AVX2"
        S1_NEON "NUIF_S1_NEON"
        S1_SLACK "NUIF_S1_SLACK"
    int nuif_s1_route() noexcept nogil
    int nuif_s1_route_runs(int route) noexcept nogil

cdef extern from "nuif_stage2.h":
    enum:
        S2_OK "NUIF_S2_OK"
        S2_REFUSE "NUIF_S2_REFUSE"
        S2_NOMEM "NUIF_S2_NOMEM"
        S2_CHUNK "NUIF_S2_CHUNK"
    ctypedef struct S2Frame "nuif_s2_frame":
        pass
    ctypedef struct S2 "nuif_s2":
        const uint8_t* p
        size_t n
        size_t max_depth
        int s1_route
        int charconv
        size_t chunk
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
        uint32_t* idx
    int nuif_s2_parse(S2* s) noexcept
