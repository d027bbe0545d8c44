/* The float conversions when the build has no C++17 compiler (see nuif_float.h): every call
 * returns -1 and the compiled codec uses CPython's dtoa, which gives the same bytes. */
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

int nuif_float_backend(void) { return 0; }
