/* Correctly rounded decimal <-> binary64 conversions for the compiled codec.
 *
 * Both come from vendored, header-only libraries made for exactly this (csrc/third_party/):
 * fast_float (Lemire et al.: the Eisel-Lemire algorithm with an exact fallback; the parser
 * libstdc++ and .NET ship) and Dragonbox (Jeon: shortest round-trip digits, as Ryu and Schubfach
 * give them).  nuif_float.cpp only adapts them to C.  They replaced the C++17 <charconv>
 * functions, which here took ~40 ns to parse and ~56 ns to print a 17-digit double.  When the
 * toolchain has no C++17 compiler, CMake links nuif_float_none.c instead: every function returns
 * -1 and the caller uses the host's conversions (nuif_fallback.h: CPython's dtoa in the
 * extension), which give the same results more slowly.
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

/* A decimal literal with 16 to 19 significant digits, read once for both of the above: its
 * integer digits are p[int_s:int_e) (after a minus sign when neg), its fraction's run from the
 * point at p[int_e] to mant_e (mant_e == int_e: no fraction; the last digit before mant_e is not
 * 0: nuif_many_digits), and an exponent follows from mant_e when has_exp.  *out
 * gets its double, correctly rounded, and the result says whether the literal is already that
 * double's RFC 8785 text (shortest digits, ECMAScript spelling): 1 (it is: the canonical text is
 * the literal), 0 (it is not).  -1: the caller converts as before (more than 19 significant
 * digits, an exponent beyond ±999, a result of 0 or infinity, or no libraries here).  The
 * literal's grammar is already checked. */
int nuif_long_decimal(const unsigned char *p, int neg, size_t int_s, size_t int_e, size_t mant_e,
                      int has_exp, double *out);

/* 1 when the functions above are backed by the vendored libraries, else 0. */
int nuif_float_backend(void);

#ifdef __cplusplus
}
#endif

#endif
