/* Number text: the digits and decimal exponent of a JSON number literal (or of a double's
 * shortest text), and ECMAScript's Number.prototype.toString spelling of them (RFC 8785 §3.2.2.3).
 * Used by the walk, the §3 check and the canonical writer (nuif_walk.h, nuif_check.h,
 * nuif_write.h), and by src/nuif_core/_speedups_numbers.pxi, which adds the conversions to and
 * from doubles. */
#ifndef NUIF_NUMBER_H
#define NUIF_NUMBER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* value = (neg ? -1 : 1) * 0.d[0]d[1]..d[k-1] * 10**n */
typedef struct {
    int neg;
    int64_t k;  /* significant digits without leading and trailing zeros (0: the value is 0) */
    int64_t n;  /* the decimal exponent */
    char d[24]; /* the first (up to 24) significant digits */
} nuif_numinfo;

/* the most bytes a double's ES spelling takes: nuif_fmt_es and nuif_fmt_double write no more */
#define NUIF_NUMBER_TEXT_MAX 48

/* Digits and decimal exponent of a JSON number literal or a repr() of a double. */
static void nuif_analyze(const uint8_t *s, ptrdiff_t L, nuif_numinfo *r) {
    ptrdiff_t i = 0;
    int64_t pos = 0, int_len = -1, first = -1, sig = 0, last_nz = 0, ex = 0;
    int eneg = 0;
    uint8_t c;
    r->neg = 0;
    if (L > 0 && s[0] == '-') {
        r->neg = 1;
        i = 1;
    }
    while (i < L) {
        c = s[i];
        if (c == '.') {
            int_len = pos;
            i++;
            continue;
        }
        if (c == 'e' || c == 'E') {
            break;
        }
        if (first < 0) {
            if (c != '0') {
                first = pos;
                r->d[0] = (char)c;
                sig = 1;
                last_nz = 1;
            }
        } else {
            if (sig < 24) {
                r->d[sig] = (char)c;
            }
            sig++;
            if (c != '0') {
                last_nz = sig;
            }
        }
        pos++;
        i++;
    }
    if (int_len < 0) {
        int_len = pos;
    }
    if (i < L) {
        i++;
        if (i < L && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i] == '-';
            i++;
        }
        while (i < L) {
            if (ex < 100000000) {
                ex = ex * 10 + (s[i] - 0x30);
            }
            i++;
        }
        if (eneg) {
            ex = -ex;
        }
    }
    if (first < 0) {
        r->k = 0;
        r->n = 0;
        return;
    }
    r->k = last_nz;
    r->n = int_len - first + ex;
}

/* Copy len <= 24 bytes with at most three fixed-size moves (overlapping ones for the ragged
 * end), reading and writing nothing past len: a variable-size memcpy is a library call, which
 * costs more than the digits of a number. */
static inline void nuif_copy_short(char *dst, const char *src, size_t len) {
    uint64_t a, b, c;
    uint32_t x, y;
    if (len >= 8) { /* [0, 8), [8, 16) when len > 16, and the last 8 (overlapping) */
        memcpy(&a, src, 8);
        memcpy(&c, src + len - 8, 8);
        if (len > 16) {
            memcpy(&b, src + 8, 8);
            memcpy(dst + 8, &b, 8);
        }
        memcpy(dst, &a, 8);
        memcpy(dst + len - 8, &c, 8);
    } else if (len >= 4) {
        memcpy(&x, src, 4);
        memcpy(&y, src + len - 4, 4);
        memcpy(dst, &x, 4);
        memcpy(dst + len - 4, &y, 4);
    } else {
        while (len--) {
            *dst++ = *src++;
        }
    }
}

/* ECMAScript Number.prototype.toString of 0.d * 10**n (k >= 1 digits) into o
 * (NUIF_NUMBER_TEXT_MAX bytes); returns the length. */
static ptrdiff_t nuif_fmt_es(char *o, int neg, const char *d, int64_t k, int64_t n) {
    ptrdiff_t w = 0;
    int64_t e, z;
    char eb[8];
    int ne = 0;
    if (neg) {
        o[0] = '-';
        w = 1;
    }
    if (k <= n && n <= 21) {
        nuif_copy_short(o + w, d, (size_t)k);
        w += k;
        for (z = 0; z < n - k; z++) {
            o[w++] = '0';
        }
    } else if (0 < n && n <= 21) {
        nuif_copy_short(o + w, d, (size_t)n);
        w += n;
        o[w++] = '.';
        nuif_copy_short(o + w, d + n, (size_t)(k - n));
        w += k - n;
    } else if (-6 < n && n <= 0) {
        o[w] = '0';
        o[w + 1] = '.';
        w += 2;
        for (z = 0; z < -n; z++) {
            o[w++] = '0';
        }
        nuif_copy_short(o + w, d, (size_t)k);
        w += k;
    } else {
        e = n - 1;
        o[w++] = d[0];
        if (k > 1) {
            o[w++] = '.';
            nuif_copy_short(o + w, d + 1, (size_t)(k - 1));
            w += k - 1;
        }
        o[w] = 'e';
        o[w + 1] = e >= 0 ? 0x2B : 0x2D;
        w += 2;
        if (e < 0) {
            e = -e;
        }
        do {
            eb[ne++] = (char)(0x30 + e % 10);
            e /= 10;
        } while (e != 0);
        while (ne > 0) {
            o[w++] = eb[--ne];
        }
    }
    return w;
}

/* 1 when a decimal literal has more than 15 significant digits and no trailing zeros, told from
 * its digit positions alone (so the walk skips nuif_analyze and goes to the double): integer
 * digits p[int_s:int_e), the fraction's up to mant_e (mant_e == int_e: none).  A 0 does not say
 * the literal has at most 15 (trailing zeros are left to nuif_analyze). */
static inline int nuif_many_digits(const uint8_t *p, size_t int_s, size_t int_e, size_t mant_e) {
    size_t z;
    if (p[mant_e - 1] == '0') {
        return 0;
    }
    if (p[int_s] != '0') {
        return (int_e - int_s) + (mant_e > int_e ? mant_e - int_e - 1 : 0) > 15;
    }
    if (mant_e == int_e) {
        return 0;
    }
    z = int_e + 1; /* 0.000ddd: skip the zeros (stops at the nonzero last digit) */
    while (p[z] == '0') {
        z++;
    }
    return mant_e - z > 15;
}

/* 1 when a literal's digits are its shortest round-trip digits (<= 15, normal range). */
static inline int nuif_fast_digits(const nuif_numinfo *r) {
    return r->k <= 15 && -290 <= r->n && r->n <= 300;
}

/* The double of a decimal with at most 15 significant digits and an exponent e = n - k within
 * ±22 (both factors exact, so one rounding): 1 and *x set, else 0 (the caller converts). */
static inline int nuif_small_decimal(const nuif_numinfo *r, double *x) {
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    int64_t m = 0, e, i;
    if (r->k > 15) {
        return 0;
    }
    e = r->n - r->k;
    if (e < -22 || e > 22) {
        return 0;
    }
    for (i = 0; i < r->k; i++) {
        m = m * 10 + (r->d[i] - 0x30);
    }
    *x = e >= 0 ? (double)m * pow10[e] : (double)m / pow10[-e];
    if (r->neg) {
        *x = -*x;
    }
    return 1;
}

#endif
