cdef extern from "nuif_crypto.h":
    enum:
        NUIF_CRYPTO_NONE
        NUIF_CRYPTO_LINKED
        NUIF_CRYPTO_LOADED
    int nuif_crypto_bind(int how, const char* via, const char* prefix) noexcept nogil
    int nuif_crypto_binding(const char** path) noexcept nogil
    int nuif_crypto_can(int how) noexcept nogil
