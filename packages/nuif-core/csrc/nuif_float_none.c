/* The float conversions when the build has no C++17 compiler (see nuif_float.h): every call
 * returns -1 and the codec uses the host's conversions (nuif_fallback.h), which give the same
 * bytes. */
#include "nuif_float.h"

int nuif_parse_double(const char *s, size_t n, double *out) {
    (void)s;
    (void)n;
    (void)out;
    return -1;
}

int nuif_shortest_digits(double x, char *digits, int *point) {
    (void)x;
    (void)digits;
    (void)point;
    return -1;
}

int nuif_long_decimal(const unsigned char *p, int neg, size_t int_s, size_t int_e, size_t mant_e,
                      int has_exp, double *out) {
    (void)p;
    (void)neg;
    (void)int_s;
    (void)int_e;
    (void)mant_e;
    (void)has_exp;
    (void)out;
    return -1;
}

int nuif_float_backend(void) { return 0; }
