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
    ctypedef struct S1State "nuif_s1_state":
        pass
    int nuif_s1_route() noexcept nogil
    int nuif_s1_route_runs(int route) noexcept nogil
    void nuif_s1_start(S1State* st) noexcept nogil
    int nuif_s1_ok(const S1State* st) noexcept nogil
    size_t nuif_s1_chunk(int route, S1State* st, const uint8_t* p, size_t n, size_t start,
                         size_t end, uint32_t* out) noexcept nogil

cdef extern from "nuif_indexpipe.h":
    int nuif_ipipe_available() noexcept nogil
    void nuif_ipipe_set_lazy_worker(int on) noexcept nogil
    void nuif_ipipe_last_counts(size_t* by_worker, size_t* chunks) noexcept nogil
    void nuif_thread_counts(size_t* created, size_t* reused, size_t* idle) noexcept nogil
    int nuif_thread_set_pool(int on) noexcept nogil
    int nuif_thread_hot() noexcept nogil
    long long nuif_clock_ns() noexcept nogil
    void nuif_thread_warm() noexcept nogil
    void nuif_thread_set_spin(long us) noexcept nogil
    long nuif_thread_spin() noexcept nogil

cdef extern from "nuif_stage2.h":
    enum:
        S2_OK "NUIF_S2_OK"
        S2_REFUSE "NUIF_S2_REFUSE"
        S2_NOMEM "NUIF_S2_NOMEM"
        S2_CHUNK "NUIF_S2_CHUNK"
    ctypedef struct S2Frame "nuif_s2_frame":
        pass
    ctypedef struct S2Split "nuif_s2_split":
        size_t start "from"
        int wait
    void nuif_s2_split_trim(S2Split* sp, size_t max_bytes, size_t max_arena) noexcept
    ctypedef struct S2 "nuif_s2":
        const uint8_t* p
        size_t n
        size_t max_depth
        int s1_route
        int float_libs
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
        size_t pipe_min
        int direct
        uint32_t* idx_buf
        int raw_mem
        S2Split* split
        size_t spliced
        int* stop
        int* lock
    int nuif_s2_parse(S2* s) noexcept
