cdef extern from "nuif_float.h":
    int nuif_parse_double(const char* s, size_t n, double* out) noexcept nogil
    int nuif_shortest_digits(double x, char* digits, int* point) noexcept nogil
    int nuif_long_decimal(const unsigned char* p, int neg, size_t int_s, size_t int_e,
                          size_t mant_e, int has_exp, double* out) noexcept nogil
    int nuif_float_backend() noexcept nogil
