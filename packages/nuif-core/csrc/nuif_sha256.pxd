cdef extern from "nuif_sha256.h":
    int nuif_sha256(const void* p, size_t n, unsigned char* out) noexcept nogil
    int nuif_sha256_backend() noexcept nogil
    int nuif_sha256_lowlevel(int on) noexcept nogil
