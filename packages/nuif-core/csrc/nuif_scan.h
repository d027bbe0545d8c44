/* Byte-run scanners for the codec's hot loops: the walk (nuif_walk.h), the name checks
 * (nuif_names.h) and the string escaping (nuif_escape.h).
 *
 * Each function finds the end of a run of "uninteresting" bytes: 16 bytes at a time with SSE2
 * (part of every x86-64 CPU) or WebAssembly's SIMD128 (the same operations, mapped below), 8 bytes
 * at a time with portable word-at-a-time (SWAR) code elsewhere.  Only unaligned loads that stay inside p[0:n) are made: the caller's buffer is a
 * bytes object whose byte p[n] is a NUL, and nothing beyond it may be read.
 */
#ifndef NUIF_SCAN_H
#define NUIF_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* NUIF_SCAN_PORTABLE (CMake option of the same name) forces the portable code on x86-64 too:
 * tests/packaging/test_portable_scan.py builds the extension that way and runs the codec tests. */
#if !defined(NUIF_SCAN_PORTABLE) &&                                                                \
    (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#include <emmintrin.h>
#define NUIF_SSE2 1
#elif !defined(NUIF_SCAN_PORTABLE) && defined(__wasm_simd128__)
/* WebAssembly with SIMD128 (wasm/build.py): the SSE2 operations these scanners use, each one
 * instruction of SIMD128 (a byte mask from bitmask, as movemask gives). */
#include <wasm_simd128.h>
typedef v128_t __m128i;
#define _mm_loadu_si128(p) wasm_v128_load(p)
#define _mm_storeu_si128(p, v) wasm_v128_store((p), (v))
#define _mm_set1_epi8(x) wasm_i8x16_splat(x)
#define _mm_cmpeq_epi8(a, b) wasm_i8x16_eq((a), (b))
#define _mm_cmpgt_epi8(a, b) wasm_i8x16_gt((a), (b))
#define _mm_cmplt_epi8(a, b) wasm_i8x16_lt((a), (b))
#define _mm_min_epu8(a, b) wasm_u8x16_min((a), (b))
#define _mm_max_epu8(a, b) wasm_u8x16_max((a), (b))
#define _mm_or_si128(a, b) wasm_v128_or((a), (b))
#define _mm_and_si128(a, b) wasm_v128_and((a), (b))
#define _mm_movemask_epi8(v) ((int)wasm_i8x16_bitmask(v))
#define _mm_add_epi8(a, b) wasm_i8x16_add((a), (b))
#define _mm_srli_epi16(v, n) wasm_u16x8_shr((v), (n))
#define _mm_unpacklo_epi8(a, b)                                                                    \
    wasm_i8x16_shuffle((a), (b), 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)
#define _mm_unpackhi_epi8(a, b)                                                                    \
    wasm_i8x16_shuffle((a), (b), 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)
#define NUIF_SSE2 1
#else
#define NUIF_SSE2 0
#endif

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Ask for transparent huge pages over the 2 MiB-aligned interior of a large fresh buffer (Linux
 * with THP in "madvise" mode): one fault per 2 MiB instead of per 4 KiB.  A hint only. */
static inline void nuif_hint_huge(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(huge - 1);
    if (b > a) {
        (void)madvise((void *)a, (size_t)(b - a), MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)n;
#endif
}

/* 1 when the SSE2 scanners were compiled in, 0 for the portable ones. */
static inline int nuif_scan_sse2(void) { return NUIF_SSE2; }

#if defined(__GNUC__) || defined(__clang__)
#define NUIF_CTZ32(x) ((unsigned)__builtin_ctz(x))
#define NUIF_CTZ64(x) ((unsigned)__builtin_ctzll(x))
#define NUIF_LIKELY(x) __builtin_expect(!!(x), 1)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
#include <intrin.h>
static __forceinline unsigned nuif_ctz64_(uint64_t x) {
    unsigned long n;
    _BitScanForward64(&n, x);
    return (unsigned)n;
}
#define NUIF_CTZ32(x) nuif_ctz64_((uint64_t)(x))
#define NUIF_CTZ64(x) nuif_ctz64_(x)
#define NUIF_LIKELY(x) (x)
#else
static inline unsigned nuif_ctz64_(uint64_t x) {
    unsigned n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
#define NUIF_CTZ32(x) nuif_ctz64_((uint64_t)(x))
#define NUIF_CTZ64(x) nuif_ctz64_(x)
#define NUIF_LIKELY(x) (x)
#endif

static inline uint64_t nuif_load64_(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint32_t nuif_load32_(const uint8_t *p) {
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* Little-endian byte order is assumed by the SWAR paths' "first marked byte" arithmetic. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NUIF_BIG_ENDIAN 1
#else
#define NUIF_BIG_ENDIAN 0
#endif

/* Index of the first byte in p[i:n] that is not an ASCII digit (at most n: p[n] must be the
 * bytes object's NUL).  Eight bytes per step where eight are readable, so a 17-digit literal
 * costs three steps and one mispredicted exit, not one branch per digit (the walk's number
 * scanning). */
static inline ptrdiff_t nuif_digits_end(const uint8_t *p, ptrdiff_t i, ptrdiff_t n) {
#if !NUIF_BIG_ENDIAN
    while (i + 8 <= n + 1) {
        uint64_t x = nuif_load64_(p + i) ^ 0x3030303030303030ULL;
        /* the high bit of each byte that is not a digit: x's byte is 10 or more, or above 0x7F */
        uint64_t stop =
            (((x & 0x7F7F7F7F7F7F7F7FULL) + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
        if (stop) {
            return i + (NUIF_CTZ64(stop) >> 3);
        }
        i += 8;
    }
#endif
    while ((uint8_t)(p[i] - 0x30) < 10) {
        i++;
    }
    return i;
}

/* Index of the first byte >= 0x80 in p[i:n), or n. */
static inline ptrdiff_t nuif_ascii_run(const uint8_t *p, ptrdiff_t i, ptrdiff_t n) {
#if NUIF_SSE2
    while (i + 64 <= n) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(p + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(p + i + 48));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0) {
            break;
        }
        i += 64;
    }
    while (i + 16 <= n) {
        int m = _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(p + i)));
        if (m) {
            return i + NUIF_CTZ32((unsigned)m);
        }
        i += 16;
    }
#else
    while (i + 8 <= n) {
        uint64_t m = nuif_load64_(p + i) & 0x8080808080808080ULL;
        if (m) {
#if !NUIF_BIG_ENDIAN
            return i + (NUIF_CTZ64(m) >> 3);
#else
            break;
#endif
        }
        i += 8;
    }
#endif
    while (i < n && p[i] < 0x80) {
        i++;
    }
    return i;
}

/* Index of the first byte that is not JSON whitespace (space, \n, \r, \t) from i; p[n] must be
 * a NUL (not whitespace), so the result is at most n. */
static inline ptrdiff_t nuif_skip_ws(const uint8_t *p, ptrdiff_t i, ptrdiff_t n) {
#if NUIF_SSE2
    /* pretty-printed text: a newline and an indentation, 16 bytes classified per step */
    const __m128i sp = _mm_set1_epi8(0x20);
    const __m128i nl = _mm_set1_epi8(0x0A);
    const __m128i cr = _mm_set1_epi8(0x0D);
    const __m128i tb = _mm_set1_epi8(0x09);
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tb)));
        unsigned m = (unsigned)_mm_movemask_epi8(w) ^ 0xFFFFu;
        if (m) {
            return i + NUIF_CTZ32(m);
        }
        i += 16;
    }
#elif !NUIF_BIG_ENDIAN
    for (;;) {
        uint8_t c = p[i];
        if (c == ' ') {
            while (i + 8 <= n) {
                uint64_t x = nuif_load64_(p + i) ^ 0x2020202020202020ULL;
                if (x) {
                    i += NUIF_CTZ64(x) >> 3;
                    goto next;
                }
                i += 8;
            }
            break;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            i++;
        } else {
            return i;
        }
    next:;
    }
#endif
    /* the last bytes; p[n] is a NUL, so this stops */
    for (;;) {
        uint8_t c = p[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            i++;
        } else {
            return i;
        }
    }
}

/* The number of spaces at q[0:32) before the first other byte (32 when all are spaces); q[0:32)
 * must be readable.  Pretty-printed text's indentation after a newline, found without a loop
 * (a loop's exit is a branch whose outcome follows the indentation, line after line). */
static inline unsigned nuif_indent32(const uint8_t *q) {
#if NUIF_SSE2
    const __m128i sp = _mm_set1_epi8(0x20);
    unsigned lo =
        (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)q), sp));
    unsigned hi =
        (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(q + 16)), sp));
    uint64_t m = ~(uint64_t)(lo | hi << 16); /* bit 32 and up set: at most 32 */
    return NUIF_CTZ64(m);
#elif !NUIF_BIG_ENDIAN
    unsigned k = 0;
    while (k < 32) {
        uint64_t x = nuif_load64_(q + k) ^ 0x2020202020202020ULL;
        if (x) {
            return k + (NUIF_CTZ64(x) >> 3);
        }
        k += 8;
    }
    return 32;
#else
    unsigned k = 0;
    while (k < 32 && q[k] == ' ') {
        k++;
    }
    return k;
#endif
}

#if !NUIF_SSE2
static inline uint64_t nuif_haszero_(uint64_t v) {
    return (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
}
#endif

#if NUIF_SSE2
/* Of the bytes >= 0xEF at p[j:j+16), those that may start a noncharacter (valid UTF-8 assumed;
 * p[j+16:j+19) readable): EF B7 (U+FDD0..U+FDEF, and a few other EF B7 xx), EF BF BE/BF
 * (U+FFFE, U+FFFF), F0..F4 xF BF BE/BF (U+nFFFE, U+nFFFF).  The caller checks each exactly. */
static inline unsigned nuif_nonchar_leads16(const uint8_t *p, ptrdiff_t j) {
    const __m128i bf = _mm_set1_epi8((char)0xBF), one = _mm_set1_epi8(1);
    const __m128i low = _mm_set1_epi8(0x0F);
    __m128i v = _mm_loadu_si128((const __m128i *)(p + j));
    __m128i v1 = _mm_loadu_si128((const __m128i *)(p + j + 1));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(p + j + 2));
    __m128i v3 = _mm_loadu_si128((const __m128i *)(p + j + 3));
    __m128i ef = _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xEF));
    __m128i end2 = _mm_cmpeq_epi8(_mm_or_si128(v2, one), bf); /* BE or BF */
    __m128i bmp = _mm_and_si128(ef, _mm_or_si128(_mm_cmpeq_epi8(v1, _mm_set1_epi8((char)0xB7)),
                                                 _mm_and_si128(_mm_cmpeq_epi8(v1, bf), end2)));
    __m128i f0f4 = _mm_and_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8((char)0xF0)), v),
                                 _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8((char)0xF4)), v));
    __m128i astral = _mm_and_si128(
        _mm_and_si128(f0f4, _mm_cmpeq_epi8(_mm_and_si128(v1, low), low)),
        _mm_and_si128(_mm_cmpeq_epi8(v2, bf), _mm_cmpeq_epi8(_mm_or_si128(v3, one), bf)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(bmp, astral));
}
#endif

/* Index of the first byte in p[j:n) that is '"', '\\', a control character (< 0x20) or a byte
 * >= 0xEF that may start a noncharacter (a lead byte of U+FDD0..U+FDEF or U+nFFFE/U+nFFFF; the
 * caller checks it with nuif_nonchar_at and goes on when it is not one), or n.  p[j:n) must be
 * valid UTF-8 up to the first such byte.  Any byte >= 0xEF may be returned (the last bytes, and
 * builds without SSE2, stop at every one): the caller's check makes that only slower.
 * *hi |= 0x80 when a skipped byte is >= 0x80. */
static inline ptrdiff_t nuif_str_run(const uint8_t *p, ptrdiff_t j, ptrdiff_t n, int *hi) {
#if NUIF_SSE2
    const __m128i q = _mm_set1_epi8(0x22);
    const __m128i bs = _mm_set1_epi8(0x5C);
    const __m128i c1f = _mm_set1_epi8(0x1F);
    const __m128i cef = _mm_set1_epi8((char)0xEF);
    int acc = 0;
    while (j + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + j));
        __m128i s = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                                 _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v));
        unsigned m = (unsigned)_mm_movemask_epi8(s);
        unsigned h = (unsigned)_mm_movemask_epi8(v);
        unsigned lead = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, cef), v));
        if (lead) {
            /* most text with such bytes (CJK halfwidth forms, emoji) holds no noncharacter:
             * stop only at the lead bytes that may start one, where 3 more bytes are readable */
            m |= j + 19 <= n + 1 ? (lead & nuif_nonchar_leads16(p, j)) : lead;
        }
        if (m) {
            unsigned k = NUIF_CTZ32(m);
            if (h & ((1u << k) - 1u)) {
                *hi = 0x80;
            }
            if (acc) {
                *hi = 0x80;
            }
            return j + k;
        }
        acc |= (int)h;
        j += 16;
    }
    if (acc) {
        *hi = 0x80;
    }
#elif !NUIF_BIG_ENDIAN
    uint64_t acc = 0;
    while (j + 8 <= n) {
        uint64_t w = nuif_load64_(p + j);
        uint64_t m =
            (((w - 0x2020202020202020ULL) & ~w) | nuif_haszero_(w ^ 0x2222222222222222ULL) |
             nuif_haszero_(w ^ 0x5C5C5C5C5C5C5C5CULL) |
             (((w & 0x7F7F7F7F7F7F7F7FULL) + 0x1111111111111111ULL) & w)) &
            0x8080808080808080ULL;
        if (m) {
            unsigned k = NUIF_CTZ64(m) >> 3;
            if (k) {
                acc |= w & ((1ULL << (8 * k)) - 1ULL);
            }
            if (acc & 0x8080808080808080ULL) {
                *hi = 0x80;
            }
            return j + k;
        }
        acc |= w;
        j += 8;
    }
    if (acc & 0x8080808080808080ULL) {
        *hi = 0x80;
    }
#endif
    while (j < n) {
        uint8_t c = p[j];
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0xEF) {
            break;
        }
        if (c >= 0x80) {
            *hi = 0x80;
        }
        j++;
    }
    return j;
}

/* memcpy(dst, src, L) in 16-byte blocks: dst and src must have 15 bytes of room past L (the
 * bytes written there are garbage the caller overwrites or ignores). */
static inline void nuif_copy16(char *dst, const uint8_t *src, ptrdiff_t L) {
#if NUIF_SSE2
    ptrdiff_t k = 0;
    do {
        _mm_storeu_si128((__m128i *)(dst + k), _mm_loadu_si128((const __m128i *)(src + k)));
        k += 16;
    } while (k < L);
#else
    memcpy(dst, src, (size_t)L);
#endif
}

/* NUIF names (ids and attribute names) of 1..16 bytes with s[0:16] readable: 1 when every byte
 * of s[0:L] is an ASCII letter, digit, '_', '.', ':' or '-' (or, when attr, '$' or '@'), else 0;
 * -1 when this build has no vector code (the caller loops instead). */
static inline int nuif_name16(const uint8_t *s, ptrdiff_t L, int attr) {
#if NUIF_SSE2
    __m128i v = _mm_loadu_si128((const __m128i *)s);
    __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i ok = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                               _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
    ok = _mm_or_si128(ok, _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                        _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1))));
    ok = _mm_or_si128(ok, _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')),
                                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('.'))),
                                       _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
                                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('-')))));
    if (attr) {
        ok = _mm_or_si128(ok, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('$')),
                                           _mm_cmpeq_epi8(v, _mm_set1_epi8('@'))));
    }
    unsigned want = (1u << L) - 1u;
    return ((unsigned)_mm_movemask_epi8(ok) & want) == want;
#else
    (void)s;
    (void)L;
    (void)attr;
    return -1;
#endif
}

/* NUIF kinds of 1..16 bytes with s[0:16] readable: 1 when s[0:L] matches
 * ^[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*$ (every byte a lowercase letter, a digit, '-' or a
 * separator '.', ':' or '/'; the first byte and every byte after a separator a letter; the last
 * byte not a separator), else 0; -1 when this build has no vector code (the caller loops). */
static inline int nuif_kind16(const uint8_t *s, ptrdiff_t L) {
#if NUIF_SSE2
    __m128i v = _mm_loadu_si128((const __m128i *)s);
    __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('a' - 1)),
                                  _mm_cmplt_epi8(v, _mm_set1_epi8('z' + 1)));
    __m128i rest = _mm_or_si128(_mm_or_si128(alpha, _mm_cmpeq_epi8(v, _mm_set1_epi8('-'))),
                                _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                              _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1))));
    __m128i sep = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8(':'))),
        _mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
    unsigned want = (1u << L) - 1u;
    unsigned a = (unsigned)_mm_movemask_epi8(alpha);
    unsigned r = (unsigned)_mm_movemask_epi8(rest);
    unsigned p = (unsigned)_mm_movemask_epi8(sep);
    /* a letter first and after each separator, and no separator last (what follows s[L - 1]
     * is never looked at: in the arena it may be the next string's letter) */
    unsigned need_alpha = (1u | (p << 1)) & want;
    return ((r | p) & want) == want && (need_alpha & ~a) == 0 && !((p >> (L - 1)) & 1u);
#else
    (void)s;
    (void)L;
    return -1;
#endif
}

#endif
