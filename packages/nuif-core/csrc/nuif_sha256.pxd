# SHA-256 from the libcrypto the build linked (csrc/nuif_sha256.h).
cdef extern from "nuif_sha256.h":
    ctypedef struct nuif_sha256_ctx:
        pass
    int nuif_sha256_linked() noexcept nogil
    nuif_sha256_ctx* nuif_sha256_begin() noexcept nogil
    int nuif_sha256_update(nuif_sha256_ctx* c, const void* p, size_t n) noexcept nogil
    int nuif_sha256_final(nuif_sha256_ctx* c, unsigned char* out) noexcept nogil
    int nuif_sha256(const void* p, size_t n, unsigned char* out) noexcept nogil
