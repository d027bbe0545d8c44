cdef extern from "nuif_hashpipe.h":
    ctypedef struct nuif_hashpipe:
        pass
    nuif_hashpipe* nuif_hashpipe_start() noexcept nogil
    void nuif_hashpipe_feed(nuif_hashpipe* hp, const unsigned char* base, size_t n) noexcept nogil
    void nuif_hashpipe_hold(nuif_hashpipe* hp) noexcept nogil
    int nuif_hashpipe_finish(nuif_hashpipe* hp, const unsigned char* base, size_t n,
                             unsigned char* digest) noexcept nogil
    void nuif_hashpipe_abort(nuif_hashpipe* hp) noexcept nogil
    int nuif_hashpipe_available() noexcept nogil
    int nuif_hashfollow_start(const unsigned char* base, int hot_only) noexcept nogil
    int nuif_hashfollow_start_idle(const unsigned char* base, int hot_only,
                                   int (*idle)(void*) noexcept nogil,
                                   void* idle_arg) noexcept nogil
    void nuif_hashfollow_feed(size_t n) noexcept nogil
    size_t nuif_hashfollow_stop(size_t n) noexcept nogil
    int nuif_hashfollow_end(const unsigned char* base, size_t h, size_t n,
                            unsigned char* digest) noexcept nogil
    size_t nuif_hashfollow_last(size_t* started) noexcept nogil
