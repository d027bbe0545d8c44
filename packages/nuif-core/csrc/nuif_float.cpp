// See nuif_float.h.  This file adapts two vendored, proven libraries to C: fast_float
// (Eisel-Lemire with an exact big-integer fallback) for parsing and Dragonbox for shortest
// printing (csrc/third_party/README.md has their versions and licences).  No conversion is
// computed here: nuif_long_decimal only reads a literal's digits into an integer for them, and
// compares Dragonbox's answer with the literal.
#include "nuif_float.h"

#include <cstdint>
#include <cstring>
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

// the 8 decimal digits of v (< 10**8, zero-padded) at p[0:8): a tree of two divisions deep
// (10**4, then 100 in each half), not a chain of four
static inline void nuif_put8(unsigned char *p, std::uint32_t v) {
    std::uint32_t hi = v / 10000u, lo = v - hi * 10000u;
    std::uint32_t a = hi / 100u, b = hi - a * 100u, c = lo / 100u, d = lo - c * 100u;
    std::memcpy(p, nuif_pairs + 2 * a, 2);
    std::memcpy(p + 2, nuif_pairs + 2 * b, 2);
    std::memcpy(p + 4, nuif_pairs + 2 * c, 2);
    std::memcpy(p + 6, nuif_pairs + 2 * d, 2);
}

// the number of decimal digits of v (1 <= v < 10**17)
static inline int nuif_ndigits(std::uint64_t v) {
    // clang-format off
    static const std::uint64_t pow10[18] = {
        1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
        10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
        1000000000000000u, 10000000000000000u, 100000000000000000u};
    // clang-format on
#if defined(__GNUC__) || defined(__clang__)
    // log10 from log2 (1233 / 4096 ~ log10 2), one step too low at most
    int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;
    return t - (v < pow10[t]) + 1;
#else
    int k = 1;
    while (k < 18 && v >= pow10[k]) {
        k++;
    }
    return k;
#endif
}

extern "C" int nuif_shortest_digits(double x, char *digits, int *point) {
    // Dragonbox's defaults: the shortest digits that read back as x, the closest to x among
    // them and the even one on a tie (ECMAScript's Number::toString), trailing zeros removed
    auto v = jkj::dragonbox::to_decimal(x, jkj::dragonbox::policy::sign::ignore);
    std::uint64_t sig = v.significand;  // at most 17 digits
    // the digits right-aligned at buf + 32 (zero-padded to 17), then moved with two fixed
    // 16-byte copies (no call, no loop): buf has 16 bytes on either side of any 1..17 digits
    unsigned char buf[48];
    unsigned char *end = buf + 32;
    int k = nuif_ndigits(sig);
    std::uint32_t hi = static_cast<std::uint32_t>(sig / 100000000u);
    nuif_put8(end - 8, static_cast<std::uint32_t>(sig - std::uint64_t{hi} * 100000000u));
    nuif_put8(end - 16, hi % 100000000u);
    end[-17] = static_cast<unsigned char>('0' + hi / 100000000u);
    std::memcpy(digits, end - k, 16);
    if (k > 16) {
        std::memcpy(digits + k - 16, end - 16, 16);
    }
    *point = v.exponent + k;
    return k;
}

// w followed by the len digits at s (w's digits and len together at most 19), 8 per step where
// they run that long (fast_float's SWAR reading: no byte past s + len is read)
static inline std::uint64_t nuif_digits_value(std::uint64_t w, const unsigned char *s, size_t len) {
    const char *c = reinterpret_cast<const char *>(s);
    for (; len >= 8; len -= 8, c += 8) {
        w = w * 100000000u + fast_float::parse_eight_digits_unrolled(c);
    }
    for (; len > 0; len--, c++) {
        w = w * 10u + static_cast<unsigned>(*c - '0');
    }
    return w;
}

// See nuif_float.h.  The literal's digits are read once into an integer w and its decimal exponent
// q (value = w * 10**q): fast_float's Clinger fast path and Eisel-Lemire compute_float then give
// the double without a second reading of the text, and the literal is the canonical text when
// Dragonbox's shortest digits of that double are exactly (w, q) and the literal is laid out as
// ECMAScript lays out k = digits(w) digits with the point at n = q + k.
extern "C" int nuif_long_decimal(const unsigned char *p, int neg, size_t int_s, size_t int_e,
                                 size_t mant_e, int has_exp, double *out) {
    const bool lead0 = p[int_s] == '0';  // "0.000ddd" (JSON has no other leading zeros)
    const size_t frac_s = int_e + 1;
    const size_t frac = mant_e > int_e ? mant_e - frac_s : 0;  // fraction digits, zeros included
    size_t sig_s = lead0 ? frac_s : int_s;                     // first significant digit
    if (lead0) {
        while (sig_s < mant_e && p[sig_s] == '0') {
            sig_s++;
        }
    }
    const size_t k = lead0 ? mant_e - sig_s : (int_e - int_s) + frac;
    if (k > 19 || k == 0) {
        return -1;  // w would not fit in 64 bits (or no digit: not this function's literal)
    }
    std::uint64_t w = lead0 ? nuif_digits_value(0, p + sig_s, mant_e - sig_s)
                            : nuif_digits_value(0, p + int_s, int_e - int_s);
    if (!lead0 && frac > 0) {
        w = nuif_digits_value(w, p + frac_s, frac);
    }
    long e = 0;  // the literal's exponent
    if (has_exp) {
        size_t j = mant_e + 1;
        bool eneg = false;
        if (p[j] == '+' || p[j] == '-') {
            eneg = p[j] == '-';
            j++;
        }
        while (p[j] == '0') {
            j++;
        }
        int ed = 0;
        for (; p[j] >= '0' && p[j] <= '9'; j++) {
            if (++ed > 3) {
                return -1;  // beyond ±999: zero or infinity, left to the caller
            }
            e = e * 10 + (p[j] - '0');
        }
        if (eneg) {
            e = -e;
        }
    }
    const long q = e - static_cast<long>(frac);
    double v;
    if (!fast_float::clinger_fast_path_impl(w, q, neg != 0, v)) {
        fast_float::adjusted_mantissa am =
            fast_float::compute_float<fast_float::binary_format<double>>(q, w);
        if (am.power2 < 0 || am.power2 == fast_float::binary_format<double>::infinite_power() ||
            (am.mantissa == 0 && am.power2 == 0)) {
            return -1;  // undecided, infinite or zero: the caller's conversion says which
        }
        fast_float::to_float(neg != 0, am, v);
    }
    *out = v;
    // the layout ECMAScript gives k digits with the point at n (nuif_fmt_es), told from the text
    const long n = q + static_cast<long>(k);
    bool laid_out;
    if (!has_exp) {
        // "ddd.ddd" (n = the integer digits, 1..19, and a fraction follows), or "0.000ddd" with at
        // most five zeros (n = -zeros)
        laid_out = lead0 ? n > -6 : frac > 0;
    } else {
        // "d.ddde+x" / "d.ddde-x": one integer digit, lower-case e, an explicit sign, no leading
        // zero in the exponent, and only where ECMAScript leaves the positional forms
        laid_out = !lead0 && int_e - int_s == 1 && frac > 0 && (n > 21 || n <= -6) &&
                   p[mant_e] == 'e' && (p[mant_e + 1] == '+' || p[mant_e + 1] == '-') &&
                   p[mant_e + 2] != '0';
    }
    if (!laid_out) {
        return 0;
    }
    auto d = jkj::dragonbox::to_decimal(v, jkj::dragonbox::policy::sign::ignore);
    return d.significand == w && d.exponent == q ? 1 : 0;
}

extern "C" int nuif_float_backend(void) { return 1; }
