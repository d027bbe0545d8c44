cdef extern from "nuif_crypto.h":
    enum:
        NUIF_CRYPTO_NONE
        NUIF_CRYPTO_LINKED
        NUIF_CRYPTO_LOADED
    int nuif_crypto_bind(int how, const char* via, const char* prefix) noexcept nogil
    int nuif_crypto_binding(const char** path) noexcept nogil
    int nuif_crypto_can(int how) noexcept nogil
    ctypedef struct nuif_sha256_ctx:
        pass
    ctypedef struct nuif_crypto_api:
        int (*init)(nuif_sha256_ctx* c) noexcept nogil
        int (*update)(nuif_sha256_ctx* c, const void* p, size_t n) noexcept nogil
        int (*final)(unsigned char* digest, nuif_sha256_ctx* c) noexcept nogil
    nuif_crypto_api nuif_crypto
