/* The float conversions when the build has no C++17 <charconv> (see nuif_float.h): every call
 * returns -1 and the compiled codec uses CPython's dtoa, which gives the same bytes. */
#include "nuif_float.h"

int nuif_parse_double(const char *s, size_t n, double *out) {
    (void)s;
    (void)n;
    (void)out;
    return -1;
}

int nuif_shortest_double(double x, char *buf) {
    (void)x;
    (void)buf;
    return -1;
}

int nuif_float_backend(void) { return 0; }
