# SHA-256 (csrc/nuif_sha256.h).
from libc.stdint cimport uint8_t

cdef extern from "nuif_sha256.h":
    void nuif_sha256_setup(int portable) noexcept nogil
    const char* nuif_sha256_route() noexcept nogil
    void nuif_sha256(const void* p, size_t n, uint8_t* out) noexcept nogil
