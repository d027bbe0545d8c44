// See nuif_float.h.  This file only adapts two vendored, proven libraries to C: fast_float
// (Eisel-Lemire with an exact big-integer fallback) for parsing and Dragonbox for shortest
// printing (csrc/third_party/README.md has their versions and licences).  Nothing here computes
// digits itself.
#include "nuif_float.h"

#include <cstdint>
#include <system_error>

#include "dragonbox/dragonbox.h"
#include "fast_float/fast_float.h"

extern "C" int nuif_parse_double(const char *s, size_t n, double *out) {
    double v = 0.0;
    fast_float::from_chars_result r = fast_float::from_chars(s, s + n, v);
    if (r.ec != std::errc() || r.ptr != s + n) {
        return -1;  // not one literal, or out of range (overflow, or underflow to zero)
    }
    *out = v;
    return 0;
}

// "00" "01" ... "99": two digits per division
static const char nuif_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// the decimal digits of v (< 10**9) ending just before end, padded with zeros to `width` digits
// when width > 0; returns where they start
static inline char *nuif_put_u32(char *end, std::uint32_t v, int width) {
    char *start = width > 0 ? end - width : nullptr;
    while (v >= 100) {
        std::uint32_t r = v % 100;
        v /= 100;
        end -= 2;
        end[0] = nuif_pairs[2 * r];
        end[1] = nuif_pairs[2 * r + 1];
    }
    if (v >= 10) {
        end -= 2;
        end[0] = nuif_pairs[2 * v];
        end[1] = nuif_pairs[2 * v + 1];
    } else if (v > 0 || start == nullptr) {
        *--end = static_cast<char>('0' + v);
    }
    while (start != nullptr && end > start) {
        *--end = '0';
    }
    return end;
}

extern "C" int nuif_shortest_digits(double x, char *digits, int *point) {
    // Dragonbox's defaults: the shortest digits that read back as x, the closest to x among
    // them and the even one on a tie (ECMAScript's Number::toString), trailing zeros removed
    auto v = jkj::dragonbox::to_decimal(x, jkj::dragonbox::policy::sign::ignore);
    char buf[20];
    char *end = buf + sizeof buf;
    char *start;
    std::uint64_t sig = v.significand;  // at most 17 digits
    if (sig >= 100000000u) {
        // two independent 32-bit halves: the low 8 digits (zero-padded) and the rest
        nuif_put_u32(end, static_cast<std::uint32_t>(sig % 100000000u), 8);
        start = nuif_put_u32(end - 8, static_cast<std::uint32_t>(sig / 100000000u), 0);
    } else {
        start = nuif_put_u32(end, static_cast<std::uint32_t>(sig), 0);
    }
    int k = static_cast<int>(end - start);
    for (int i = 0; i < k; i++) {
        digits[i] = start[i];
    }
    *point = v.exponent + k;
    return k;
}

extern "C" int nuif_float_backend(void) { return 1; }
