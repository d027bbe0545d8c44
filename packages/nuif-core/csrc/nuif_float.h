/* Correctly rounded decimal <-> binary64 conversions for the compiled codec.
 *
 * Both come from vendored, header-only libraries made for exactly this (csrc/third_party/):
 * fast_float (Lemire et al.: the Eisel-Lemire algorithm with an exact fallback; the parser
 * libstdc++ and .NET ship) and Dragonbox (Jeon: shortest round-trip digits, as Ryu and Schubfach
 * give them).  nuif_float.cpp only adapts them to C.  They replaced the C++17 <charconv>
 * functions, which here took ~40 ns to parse and ~56 ns to print a 17-digit double.  When the
 * toolchain has no C++17 compiler, CMake links nuif_float_none.c instead: every function returns
 * -1 and the caller uses CPython's dtoa (PyOS_string_to_double / PyOS_double_to_string), which
 * gives the same results more slowly.
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

/* The shortest round-trip digits of the finite, non-zero double x (its sign ignored): the k
 * digits (at most 17, no leading or trailing zeros) go to digits (at least 24 bytes: the bytes
 * after the k digits, up to 16, are overwritten), and *point gets n with
 * |x| = 0.d1...dk * 10**n.  Among the shortest digit strings that read back as x, the one
 * closest to x, the even one on a tie (ECMAScript's Number::toString).  Returns k, or -1
 * (fall back). */
int nuif_shortest_digits(double x, char *digits, int *point);

/* 1 when the two functions above are backed by the vendored libraries, else 0. */
int nuif_float_backend(void);

#ifdef __cplusplus
}
#endif

#endif
