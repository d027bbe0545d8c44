/* Doubles to and from text for what the vendored libraries (nuif_float.h) do not convert: builds
 * without a C++17 compiler, and literals whose exponent is beyond their range.  The host does it
 * (nuif_host.h: CPython's dtoa in the extension, the C library in the plain C build), with the
 * same results, more slowly. */
#ifndef NUIF_FALLBACK_H
#define NUIF_FALLBACK_H

#include "nuif_host.h"

#include <stdint.h>

#include "nuif_float.h"
#include "nuif_number.h"

/* The ECMAScript text of the finite double x into o (NUIF_NUMBER_TEXT_MAX bytes), with the
 * vendored libraries when float_libs, else from the host's shortest digits: its length, or -1
 * (the host recorded why). */
static ptrdiff_t nuif_fmt_double(char *o, double x, int float_libs) {
    nuif_numinfo r;
    char s[32];
    ptrdiff_t L;
    int k, point;
    if (x == 0.0) {
        o[0] = '0';
        return 1;
    }
    if (float_libs && (k = nuif_shortest_digits(x, r.d, &point)) > 0) {
        return nuif_fmt_es(o, x < 0.0, r.d, k, point);
    }
    L = nuif_host_repr(x, s);
    if (L < 0) return -1;
    nuif_analyze((const uint8_t *)s, L, &r);
    return nuif_fmt_es(o, r.neg, r.d, r.k, r.n);
}

#endif
