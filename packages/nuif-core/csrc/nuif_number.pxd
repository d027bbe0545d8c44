from libc.stdint cimport uint8_t, int64_t

cdef extern from "nuif_number.h":
    ctypedef struct NumInfo "nuif_numinfo":
        bint neg
        int64_t k       # significant digits without leading and trailing zeros (0: the value is 0)
        int64_t n       # value = 0.d1d2..dk * 10**n
        char d[24]      # the first (up to 24) significant digits
    enum:
        NUMBER_TEXT_MAX "NUIF_NUMBER_TEXT_MAX"
    void nuif_analyze(const uint8_t* s, Py_ssize_t L, NumInfo* r) noexcept nogil
    Py_ssize_t nuif_fmt_es(char* o, bint neg, const char* d, int64_t k, int64_t n) noexcept nogil
    bint nuif_many_digits(const uint8_t* p, size_t int_s, size_t int_e,
                          size_t mant_e) noexcept nogil
    bint nuif_fast_digits(const NumInfo* r) noexcept nogil
    bint nuif_small_decimal(const NumInfo* r, double* x) noexcept nogil
