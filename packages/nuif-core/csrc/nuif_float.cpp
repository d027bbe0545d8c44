// See nuif_float.h.  This file only adapts std::from_chars / std::to_chars to C; CMake builds it
// when the C++ compiler has them, else nuif_float_none.c.
#include "nuif_float.h"

#include <charconv>
#include <system_error>

extern "C" int nuif_parse_double(const char *s, size_t n, double *out) {
    double v = 0.0;
    std::from_chars_result r = std::from_chars(s, s + n, v, std::chars_format::general);
    if (r.ec != std::errc() || r.ptr != s + n) {
        return -1;
    }
    *out = v;
    return 0;
}

extern "C" int nuif_shortest_double(double x, char *buf) {
    std::to_chars_result r = std::to_chars(buf, buf + 32, x, std::chars_format::scientific);
    if (r.ec != std::errc()) {
        return -1;
    }
    return static_cast<int>(r.ptr - buf);
}

extern "C" int nuif_float_backend(void) { return 1; }
