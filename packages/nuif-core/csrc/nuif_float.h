/* Correctly rounded decimal <-> binary64 conversions for the compiled codec.
 *
 * Both functions come from the C++17 standard library (<charconv>): libstdc++ 12+ implements
 * std::from_chars(double) with the Eisel-Lemire algorithm (fast_float) and std::to_chars(double)
 * with Ryu; MSVC and libc++ ship equivalent proven implementations.  Nothing here computes digits
 * itself (nuif_float.cpp).  When the toolchain lacks a C++ compiler or floating-point <charconv>,
 * CMake links nuif_float_none.c instead: every function returns -1 and the caller uses CPython's
 * dtoa (PyOS_string_to_double / PyOS_double_to_string), which gives the same results more slowly.
 */
#ifndef NUIF_FLOAT_H
#define NUIF_FLOAT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parse the JSON number literal [s, s + n) into *out, correctly rounded to nearest-even.
 * Returns 0 on success; -1 when the literal is not consumed whole, its magnitude is out of range
 * (overflow or underflow to zero) or the facility is unavailable: the caller then falls back. */
int nuif_parse_double(const char *s, size_t n, double *out);

/* Write the shortest round-trip digits of the finite, non-zero double x in scientific form
 * ("-d.ddde+X", at most 32 bytes, no NUL) into buf.  Returns the length, or -1 (fall back). */
int nuif_shortest_double(double x, char *buf);

/* 1 when the two functions above are backed by <charconv>, else 0. */
int nuif_float_backend(void);

#ifdef __cplusplus
}
#endif

#endif
