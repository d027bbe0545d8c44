from libc.stdint cimport uint8_t, uint64_t

cdef extern from "nuif_scan.h":
    void nuif_hint_huge(void* p, size_t n) noexcept nogil
    int nuif_scan_sse2() noexcept nogil
    Py_ssize_t nuif_ascii_run(const uint8_t* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil
    Py_ssize_t nuif_skip_ws(const uint8_t* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil
    Py_ssize_t nuif_digits_end(const uint8_t* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil
    Py_ssize_t nuif_str_run(const uint8_t* p, Py_ssize_t j, Py_ssize_t n, int* hi) noexcept nogil
    void nuif_copy16(char* dst, const uint8_t* src, Py_ssize_t L) noexcept nogil
    int nuif_name16(const uint8_t* s, Py_ssize_t L, int attr) noexcept nogil
    uint64_t nuif_load64_(const uint8_t* p) noexcept nogil
    # count of trailing zero bits (x != 0): the compiler's builtin, else a portable fallback
    unsigned NUIF_CTZ64(uint64_t x) noexcept nogil
