/* Whole-input UTF-8 validation: a scalar check, and vector table lookups (the "lookup" method of
 * J. Keiser and D. Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte", Software:
 * Practice and Experience 51(5), 2021, written for NUIF from the paper's description); and the
 * noncharacter test of the string scanner.
 *
 * The verdict is the one of Python's strict decoder (bytes.decode('utf-8')): every sequence is
 * the shortest form, no code point is a surrogate (U+D800..U+DFFF) or above U+10FFFF.  The vector
 * routes compute the verdict only; nuif_utf8_first_bad locates the first bad byte (the offset
 * Python's decoder reports) when the verdict is "invalid".  Every route gives the same verdict
 * (tests/core/test_utf8_routes.py).
 *
 * How it works.  UTF-8 is a sequence of characters:
 *
 *   00..7F                      ASCII
 *   C2..DF  80..BF              2 bytes
 *   E0..EF  80..BF  80..BF      3 bytes; E0 needs A0..BF second (shorter forms are overlong),
 *                                        ED needs 80..9F second (A0..BF would be surrogates)
 *   F0..F4  80..BF  80..BF  80..BF
 *                               4 bytes; F0 needs 90..BF second (overlong), F4 needs 80..8F
 *                                        second (above U+10FFFF); F5..FF and C0, C1 never occur
 *
 * Almost every rule is about two neighbouring bytes: a lead byte and the byte after it.  A byte
 * pair is classified by three 4-bit keys: the high and the low nibble of the first byte and the
 * high nibble of the second.  Each key indexes a 16-entry table of 8-bit masks (one SSSE3/AVX2
 * byte shuffle or NEON table lookup each, 16 or 32 pairs at a time); bit k of a table entry says
 * "a pair with this nibble can belong to error class k".  A pair is in class k exactly when all
 * three lookups have bit k set, so the AND of the three masks is nonzero for a bad pair.  Eight
 * classes fit in a byte because the classes were cut so that each is the product of three nibble
 * conditions:
 *
 *   bit 0  a lead byte (C0..FF) followed by ASCII or by another lead byte: the sequence is cut
 *   bit 1  an ASCII byte followed by a continuation byte (80..BF): a stray continuation
 *   bit 2  E0 followed by 80..9F: an overlong 3-byte form
 *   bit 3  F4 followed by 90..BF, or F5..FF followed by 90..BF: above U+10FFFF
 *   bit 4  ED followed by A0..BF: a surrogate
 *   bit 5  C0 or C1 followed by a continuation byte: an overlong 2-byte form
 *   bit 6  F0 followed by 80..8F (overlong 4-byte form) or F5..FF followed by 80..8F (too big);
 *          the two share a bit because their first bytes' low nibbles never overlap with the
 *          other rule's (F0 has low nibble 0, F5..FF have 5..F, and F4 has neither)
 *   bit 7  a continuation byte followed by a continuation byte: not an error by itself
 *
 * Bit 7 is what the pair rules cannot decide: whether a continuation byte after a continuation
 * byte is wanted.  It is wanted exactly when the byte two places back is a 3- or 4-byte lead
 * (E0..FF) or the byte three places back is a 4-byte lead (F0..FF); anywhere else it is one too
 * many.  Conversely, where such a lead says "a continuation byte must be here", bit 7 must be
 * set.  So "bit 7 of the pair classes" XOR "must be a 2nd/3rd continuation" is an error.  (When
 * both leads are present at once, one lead follows another and bit 0 already fires.)  The test
 * "byte >= E0" is one saturating subtraction: byte - 0x60 keeps its top bit exactly for E0..FF,
 * and byte - 0x70 exactly for F0..FF.
 *
 * Each block of 16 or 32 bytes needs the last three bytes of the block before it (the first
 * bytes of a block pair up with them): the previous block is kept in a register and "the byte k
 * places back" is a byte-wise shift across the two blocks (palignr; vextq_u8 on NEON).  A block
 * with no byte >= 0x80 cannot hold an error of its own; it only has to make sure the previous
 * block did not end inside a sequence.  So runs of ASCII are skipped 64 bytes at a time (loads,
 * ORs and one test), and the check that the block before them ended at a character boundary is
 * computed when that block is classified (its last three bytes compared with F0, E0 and C0).
 * After an ASCII run the "previous block" is all zeros: an ASCII byte before a block acts like a
 * zero.
 *
 * Memory: only bytes inside p[0:n) are read.  The last n % 16 (or 32) bytes are copied into a
 * zeroed block; zero bytes are ASCII, so a sequence cut by the end of the input fails the
 * ordinary checks at the first zero (every partial sequence is followed by at least one zero).
 * Errors are only OR-ed into an accumulator and looked at once at the end.
 *
 * Builds: the vector code is compiled only by GCC and Clang.  On x86-64 it has function
 * attributes target("ssse3") and target("avx2"), so the rest of the extension keeps its baseline
 * -O3 flags, and is chosen at run time with __builtin_cpu_supports.  On arm64 (aarch64) NEON is
 * part of the base instruction set: the 16-byte NEON route (vqtbl1q_u8 for the nibble lookups,
 * vextq_u8 for "the byte k places back", vqsubq_u8 for the saturating tests) needs no attribute
 * and no run-time check.  WebAssembly built with SIMD128 (packages/nuif-core/wasm/build.py) has
 * the NEON route's loop with one SIMD128 instruction for each NEON one.  With NUIF_SCAN_PORTABLE,
 * on other CPUs and with other compilers, nuif_utf8_route() is 0 and the scalar check runs.
 * tests/core/utf8_harness.c holds every vector route to the scalar one (natively, under
 * qemu-aarch64 for NEON, and under wasmtime for SIMD128).
 */
#ifndef NUIF_UTF8_H
#define NUIF_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_scan.h"

#if !defined(NUIF_SCAN_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define NUIF_UTF8_X86 1
#else
#define NUIF_UTF8_X86 0
#endif

#if !defined(NUIF_SCAN_PORTABLE) && (defined(__GNUC__) || defined(__clang__)) &&                   \
    defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define NUIF_UTF8_ARM64 1
#else
#define NUIF_UTF8_ARM64 0
#endif

#if !defined(NUIF_SCAN_PORTABLE) && defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define NUIF_UTF8_WASM 1
#else
#define NUIF_UTF8_WASM 0
#endif

#define NUIF_UTF8_SIMD (NUIF_UTF8_X86 || NUIF_UTF8_ARM64 || NUIF_UTF8_WASM)

/* routes: what nuif_utf8_route() returns and nuif_utf8_valid() takes (the index of the route's
 * name in _UTF8_ROUTES, _speedups_strings.pxi) */
#define NUIF_UTF8_SCALAR 0
#define NUIF_UTF8_SSSE3 1
#define NUIF_UTF8_AVX2 2
#define NUIF_UTF8_NEON 3
#define NUIF_UTF8_SIMD128 4

/* ---- the scalar check ------------------------------------------------------------------- */

/* Whether c1 may follow the lead byte c of a 3- or 4-byte sequence: a continuation byte, in the
 * narrower ranges that rule out overlong forms (E0, F0), surrogates (ED) and code points above
 * U+10FFFF (F4). */
static inline int nuif_u8_second_ok(uint8_t c, uint8_t c1) {
    switch (c) {
    case 0xE0:
        return c1 >= 0xA0 && c1 <= 0xBF;
    case 0xED:
        return c1 >= 0x80 && c1 <= 0x9F;
    case 0xF0:
        return c1 >= 0x90 && c1 <= 0xBF;
    case 0xF4:
        return c1 >= 0x80 && c1 <= 0x8F;
    default:
        return (c1 & 0xC0) == 0x80;
    }
}

/* The first byte of p[0:n) where Python's strict decoder fails, or -1 when it is all UTF-8. */
static ptrdiff_t nuif_utf8_first_bad(const uint8_t *p, ptrdiff_t n) {
    ptrdiff_t i = 0, end = 0, k, len;
    uint8_t c;
    uint64_t w;
    while (i < n) {
        if (i >= end) {
            if (i + 16 <= n &&
                ((nuif_load64_(p + i) | nuif_load64_(p + i + 8)) & 0x8080808080808080ULL) == 0) {
                i += 16;
                continue;
            }
            end = i + 32;
        }
        if (i + 8 <= n) {
            w = nuif_load64_(p + i);
            /* four 2-byte sequences (lead C2..DF, then a continuation byte) */
            if ((w & 0xC0E0C0E0C0E0C0E0ULL) == 0x80C080C080C080C0ULL &&
                (((w & 0x001E001E001E001EULL) + 0x7FFF7FFF7FFF7FFFULL) & 0x8000800080008000ULL) ==
                    0x8000800080008000ULL) {
                i += 8;
                continue;
            }
        }
        c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c < 0xC2) {
            return i;
        }
        if (c < 0xE0) {
            if (i + 1 >= n || (p[i + 1] & 0xC0) != 0x80) {
                return i;
            }
            i += 2;
            continue;
        }
        if (c >= 0xF5 || i + 1 >= n || !nuif_u8_second_ok(c, p[i + 1])) {
            return i;
        }
        len = c < 0xF0 ? 3 : 4;
        for (k = 2; k < len; k++) {
            if (i + k >= n || (p[i + k] & 0xC0) != 0x80) {
                return i;
            }
        }
        i += len;
    }
    return -1;
}

/* A lead byte's sequence length (0: never a lead byte), and the lead bytes whose second byte has
 * a narrower range (E0: no overlong, ED: no surrogate, F0: no overlong, F4: <= U+10FFFF); filled
 * by nuif_utf8_init(). */
static uint8_t nuif_u8_len[256];
static uint8_t nuif_u8_narrow[256];
/* the continuation-byte masks of a little-endian 32-bit load at a lead byte, by sequence length */
static const uint32_t nuif_u8_mask[5] = {0, 0, 0xC000, 0xC0C000, 0xC0C0C000};
static const uint32_t nuif_u8_want[5] = {0, 0, 0x8000, 0x808000, 0x80808000};

static void nuif_utf8_init(void) {
    int c;
    for (c = 0; c < 256; c++) {
        nuif_u8_len[c] = c < 0x80    ? 1
                         : c < 0xC2  ? 0
                         : c <= 0xDF ? 2
                         : c <= 0xEF ? 3
                         : c <= 0xF4 ? 4
                                     : 0;
        nuif_u8_narrow[c] = c == 0xE0 || c == 0xED || c == 0xF0 || c == 0xF4;
    }
}

/* 1 when p[0:n) is valid UTF-8 (the verdict of nuif_utf8_first_bad(p, n) < 0), in one pass with
 * few branches per character: ASCII runs skip 8 or 16 bytes at a time; a multi-byte sequence is
 * checked with one table lookup and one masked 32-bit load. */
static int nuif_utf8_valid_scalar(const uint8_t *p, ptrdiff_t n) {
    ptrdiff_t i = 0;
    uint32_t v;
    uint8_t c, L, c1;
    for (;;) {
        i = nuif_ascii_run(p, i, n);
        if (i + 4 > n) {
            break;
        }
        c = p[i];
        L = nuif_u8_len[c];
        if (L == 0) {
            return 0;
        }
        memcpy(&v, p + i, 4);
        if ((v & nuif_u8_mask[L]) != nuif_u8_want[L]) {
            return 0;
        }
        if (nuif_u8_narrow[c]) {
            c1 = p[i + 1];
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) ||
                (c == 0xF4 && c1 > 0x8F)) {
                return 0;
            }
        }
        i += L;
    }
    /* i is at a character boundary: the last few bytes go through the exact check */
    return nuif_utf8_first_bad(p + i, n - i) < 0;
}

/* ---- noncharacters (valid UTF-8 assumed) ------------------------------------------------- */

/* The noncharacter code point encoded at p[j] (a valid EF or F0..F4 lead byte), or -1. */
static inline ptrdiff_t nuif_nonchar_at(const uint8_t *p, ptrdiff_t j) {
    uint8_t c = p[j], c1 = p[j + 1], c2 = p[j + 2];
    if (c == 0xEF) {
        if (c1 == 0xB7) {
            if (0x90 <= c2 && c2 <= 0xAF) {
                return 0xFDD0 + (c2 - 0x90);
            }
        } else if (c1 == 0xBF && c2 >= 0xBE) {
            return 0xFFC0 | (c2 & 0x3F);
        }
        return -1;
    }
    if ((c1 & 0x0F) == 0x0F && c2 == 0xBF && p[j + 3] >= 0xBE) {
        return ((ptrdiff_t)(c & 0x07) << 18) | ((c1 & 0x3F) << 12) | 0xFC0 | (p[j + 3] & 0x3F);
    }
    return -1;
}

/* The length of the sequence a valid lead byte starts. */
static inline int nuif_seq_len(uint8_t c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

/* nuif_utf8_put of a code point in U+0080..U+FFFF (the escape decoder's fast path) */
static inline int nuif_utf8_put_bmp(uint8_t *w, uint32_t cp) {
    if (cp < 0x800) {
        w[0] = (uint8_t)(0xC0 | (cp >> 6));
        w[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    w[0] = (uint8_t)(0xE0 | (cp >> 12));
    w[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    w[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
}

/* Write the UTF-8 of code point cp (not a surrogate, at most U+10FFFF) at w; return its length. */
static inline int nuif_utf8_put(uint8_t *w, uint32_t cp) {
    if (cp < 0x80) {
        w[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x10000) {
        return nuif_utf8_put_bmp(w, cp);
    }
    w[0] = (uint8_t)(0xF0 | (cp >> 18));
    w[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    w[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    w[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* The first noncharacter code point in valid UTF-8 p[0:L), or -1. */
static ptrdiff_t nuif_first_nonchar(const uint8_t *p, ptrdiff_t L) {
    ptrdiff_t j = 0, cp;
    while (j < L) {
        if (p[j] < 0xEF) {
            j++;
            continue;
        }
        cp = nuif_nonchar_at(p, j);
        if (cp >= 0) {
            return cp;
        }
        j += nuif_seq_len(p[j]);
    }
    return -1;
}

/* ---- the vector routes ------------------------------------------------------------------ */

#if NUIF_UTF8_SIMD

/* the error classes (see above) */
#define NUIF_U8_CUT 0x01       /* lead, then ASCII or lead */
#define NUIF_U8_STRAY 0x02     /* ASCII, then continuation */
#define NUIF_U8_OVER3 0x04     /* E0, then 80..9F */
#define NUIF_U8_BIG 0x08       /* F4..FF, then 90..BF (F4 only up to 8F) */
#define NUIF_U8_SURR 0x10      /* ED, then A0..BF */
#define NUIF_U8_OVER2 0x20     /* C0/C1, then continuation */
#define NUIF_U8_OVER4_BIG 0x40 /* F0 then 80..8F; F5..FF then 80..8F */
#define NUIF_U8_CONT2 0x80     /* continuation, then continuation */

/* classes decided by the first byte's high nibble and the second byte alone: every entry of
 * the low-nibble table carries them */
#define NUIF_U8_ANY_LOW (NUIF_U8_CUT | NUIF_U8_STRAY | NUIF_U8_CONT2)

/* first byte, high nibble: 0..7 ASCII, 8..B continuation, C..F lead */
/* (the tables keep their hand layout, a row per group of nibbles: clang-format is off) */
/* clang-format off */
static const uint8_t nuif_u8_first_hi[16] = {
    NUIF_U8_STRAY, NUIF_U8_STRAY, NUIF_U8_STRAY, NUIF_U8_STRAY,
    NUIF_U8_STRAY, NUIF_U8_STRAY, NUIF_U8_STRAY, NUIF_U8_STRAY,
    NUIF_U8_CONT2, NUIF_U8_CONT2, NUIF_U8_CONT2, NUIF_U8_CONT2,
    NUIF_U8_CUT | NUIF_U8_OVER2,                                     /* C_ */
    NUIF_U8_CUT,                                                     /* D_ */
#ifndef NUIF_UTF8_FAULT_SURROGATE
    NUIF_U8_CUT | NUIF_U8_OVER3 | NUIF_U8_SURR,                      /* E_ */
#else /* a planted bug for tests/core/test_utf8_harness.py: ED A0..BF let through */
    NUIF_U8_CUT | NUIF_U8_OVER3,
#endif
    NUIF_U8_CUT | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,                   /* F_ */
};

/* first byte, low nibble: which lead bytes of the C_, E_ and F_ rows are special */
static const uint8_t nuif_u8_first_lo[16] = {
    NUIF_U8_ANY_LOW | NUIF_U8_OVER2 | NUIF_U8_OVER3 | NUIF_U8_OVER4_BIG, /* C0 E0 F0 */
    NUIF_U8_ANY_LOW | NUIF_U8_OVER2,                                     /* C1 */
    NUIF_U8_ANY_LOW,
    NUIF_U8_ANY_LOW,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG,                                       /* F4 */
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,                   /* F5 .. */
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG | NUIF_U8_SURR,   /* ED, FD */
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,
    NUIF_U8_ANY_LOW | NUIF_U8_BIG | NUIF_U8_OVER4_BIG,                  /* .. FF */
};

/* second byte, high nibble */
static const uint8_t nuif_u8_second_hi[16] = {
    NUIF_U8_CUT, NUIF_U8_CUT, NUIF_U8_CUT, NUIF_U8_CUT,           /* ASCII */
    NUIF_U8_CUT, NUIF_U8_CUT, NUIF_U8_CUT, NUIF_U8_CUT,
    NUIF_U8_STRAY | NUIF_U8_CONT2 | NUIF_U8_OVER2 | NUIF_U8_OVER3 | NUIF_U8_OVER4_BIG, /* 8_ */
    NUIF_U8_STRAY | NUIF_U8_CONT2 | NUIF_U8_OVER2 | NUIF_U8_OVER3 | NUIF_U8_BIG,       /* 9_ */
    NUIF_U8_STRAY | NUIF_U8_CONT2 | NUIF_U8_OVER2 | NUIF_U8_SURR | NUIF_U8_BIG,        /* A_ */
    NUIF_U8_STRAY | NUIF_U8_CONT2 | NUIF_U8_OVER2 | NUIF_U8_SURR | NUIF_U8_BIG,        /* B_ */
    NUIF_U8_CUT, NUIF_U8_CUT, NUIF_U8_CUT, NUIF_U8_CUT,           /* leads */
};

/* Byte i of a block may not start a sequence that the block's end cuts: the last three bytes
 * must be below F0, E0 and C0 respectively (the others below 0xFF + 1).  A byte above its limit
 * leaves a nonzero saturating difference. */
static const uint8_t nuif_u8_end_limit[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xDF, 0xBF,
};
/* clang-format on */

#endif /* NUIF_UTF8_SIMD */

#if NUIF_UTF8_X86

/* ---- 16 bytes at a time (SSSE3) ------------------------------------------------------------ */

#define NUIF_U8_SSSE3 __attribute__((target("ssse3")))

typedef struct {
    __m128i t1h, t1l, t2h, nib, cont3, cont4, top;
} nuif_u8_k128;

NUIF_U8_SSSE3 static inline nuif_u8_k128 nuif_u8_consts128(void) {
    nuif_u8_k128 k;
    k.t1h = _mm_loadu_si128((const __m128i *)nuif_u8_first_hi);
    k.t1l = _mm_loadu_si128((const __m128i *)nuif_u8_first_lo);
    k.t2h = _mm_loadu_si128((const __m128i *)nuif_u8_second_hi);
    k.nib = _mm_set1_epi8(0x0F);
    k.cont3 = _mm_set1_epi8(0x60); /* byte - 0x60 keeps bit 7 iff byte >= E0 */
    k.cont4 = _mm_set1_epi8(0x70); /* byte - 0x70 keeps bit 7 iff byte >= F0 */
    k.top = _mm_set1_epi8((char)0x80);
    return k;
}

/* The error bits of block b, whose predecessor is a (zero before the input's first byte). */
NUIF_U8_SSSE3 static inline __m128i nuif_u8_block128(__m128i b, __m128i a, const nuif_u8_k128 *k) {
    __m128i back1 = _mm_alignr_epi8(b, a, 15); /* byte i: the byte one place before b[i] */
    __m128i back2 = _mm_alignr_epi8(b, a, 14);
    __m128i back3 = _mm_alignr_epi8(b, a, 13);
    __m128i c1 = _mm_shuffle_epi8(k->t1h, _mm_and_si128(_mm_srli_epi16(back1, 4), k->nib));
    __m128i c2 = _mm_shuffle_epi8(k->t1l, _mm_and_si128(back1, k->nib));
    __m128i c3 = _mm_shuffle_epi8(k->t2h, _mm_and_si128(_mm_srli_epi16(b, 4), k->nib));
    __m128i pair = _mm_and_si128(_mm_and_si128(c1, c2), c3);
    __m128i must = _mm_and_si128(
        _mm_or_si128(_mm_subs_epu8(back2, k->cont3), _mm_subs_epu8(back3, k->cont4)), k->top);
    return _mm_xor_si128(pair, must);
}

/* The end of the whole 64-byte ASCII blocks from p + i on. */
NUIF_U8_SSSE3 static inline size_t nuif_u8_ascii128(const uint8_t *p, size_t i, size_t n) {
    const uint8_t *q = p + i;
    const uint8_t *end = p + n;
    while (end - q >= 64) {
        __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)q),
                                 _mm_loadu_si128((const __m128i *)(q + 16)));
        __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(q + 32)),
                                 _mm_loadu_si128((const __m128i *)(q + 48)));
        if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0) {
            break;
        }
        q += 64;
    }
    return (size_t)(q - p);
}

NUIF_U8_SSSE3 static int nuif_utf8_valid_ssse3(const uint8_t *p, size_t n) {
    const nuif_u8_k128 k = nuif_u8_consts128();
    const __m128i limit = _mm_loadu_si128((const __m128i *)(nuif_u8_end_limit + 16));
    __m128i prev = _mm_setzero_si128(); /* the last block looked at */
    __m128i err = _mm_setzero_si128();  /* OR of every error bit */
    __m128i open = _mm_setzero_si128(); /* nonzero when the last classified block ends inside a
                                            sequence: an error unless the next block continues it */
    size_t i = 0;
    while (i + 64 <= n) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(p + i + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(p + i + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(p + i + 48));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3))) == 0) {
            /* ASCII: settle the last block's end, then skip to the next non-ASCII 64 bytes
             * with no state to carry (an ASCII predecessor acts exactly like a zero one) */
            err = _mm_or_si128(err, open);
            open = _mm_setzero_si128();
            prev = _mm_setzero_si128();
            i = nuif_u8_ascii128(p, i + 64, n);
            continue;
        }
        err = _mm_or_si128(err, nuif_u8_block128(v0, prev, &k));
        err = _mm_or_si128(err, nuif_u8_block128(v1, v0, &k));
        err = _mm_or_si128(err, nuif_u8_block128(v2, v1, &k));
        err = _mm_or_si128(err, nuif_u8_block128(v3, v2, &k));
        open = _mm_subs_epu8(v3, limit);
        prev = v3;
        i += 64;
    }
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        if (_mm_movemask_epi8(v) == 0) {
            err = _mm_or_si128(err, open);
        } else {
            err = _mm_or_si128(err, nuif_u8_block128(v, prev, &k));
            open = _mm_subs_epu8(v, limit);
        }
        prev = v;
        i += 16;
    }
    /* the last 0..15 bytes, zero-padded; the full check also settles "open" (see above) */
    uint8_t last[16] = {0};
    memcpy(last, p + i, n - i);
    __m128i tail = _mm_loadu_si128((const __m128i *)last);
    err = _mm_or_si128(err, nuif_u8_block128(tail, prev, &k));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(err, _mm_setzero_si128())) == 0xFFFF;
}

/* ---- 32 bytes at a time (AVX2) -------------------------------------------------------------- */

#define NUIF_U8_AVX2 __attribute__((target("avx2")))

typedef struct {
    __m256i t1h, t1l, t2h, nib, cont3, cont4, top;
} nuif_u8_k256;

NUIF_U8_AVX2 static inline nuif_u8_k256 nuif_u8_consts256(void) {
    nuif_u8_k256 k;
    /* vpshufb looks up each 128-bit lane separately: the same table in both lanes */
    k.t1h = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nuif_u8_first_hi));
    k.t1l = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nuif_u8_first_lo));
    k.t2h = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nuif_u8_second_hi));
    k.nib = _mm256_set1_epi8(0x0F);
    k.cont3 = _mm256_set1_epi8(0x60);
    k.cont4 = _mm256_set1_epi8(0x70);
    k.top = _mm256_set1_epi8((char)0x80);
    return k;
}

NUIF_U8_AVX2 static inline __m256i nuif_u8_block256(__m256i b, __m256i a, const nuif_u8_k256 *k) {
    /* vpalignr also works per lane: give it [a's high lane, b's low lane] as the bytes before
     * b's lanes, so that lane 0 continues from a and lane 1 from b's own low lane */
    __m256i before = _mm256_permute2x128_si256(a, b, 0x21);
    __m256i back1 = _mm256_alignr_epi8(b, before, 15);
    __m256i back2 = _mm256_alignr_epi8(b, before, 14);
    __m256i back3 = _mm256_alignr_epi8(b, before, 13);
    __m256i c1 = _mm256_shuffle_epi8(k->t1h, _mm256_and_si256(_mm256_srli_epi16(back1, 4), k->nib));
    __m256i c2 = _mm256_shuffle_epi8(k->t1l, _mm256_and_si256(back1, k->nib));
    __m256i c3 = _mm256_shuffle_epi8(k->t2h, _mm256_and_si256(_mm256_srli_epi16(b, 4), k->nib));
    __m256i pair = _mm256_and_si256(_mm256_and_si256(c1, c2), c3);
    __m256i must = _mm256_and_si256(
        _mm256_or_si256(_mm256_subs_epu8(back2, k->cont3), _mm256_subs_epu8(back3, k->cont4)),
        k->top);
    return _mm256_xor_si256(pair, must);
}

NUIF_U8_AVX2 static inline size_t nuif_u8_ascii256(const uint8_t *p, size_t i, size_t n) {
    const uint8_t *q = p + i;
    const uint8_t *end = p + n;
    while (end - q >= 64) {
        __m256i a = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)q),
                                    _mm256_loadu_si256((const __m256i *)(q + 32)));
        if (_mm256_movemask_epi8(a) != 0) {
            break;
        }
        q += 64;
    }
    return (size_t)(q - p);
}

NUIF_U8_AVX2 static int nuif_utf8_valid_avx2(const uint8_t *p, size_t n) {
    const nuif_u8_k256 k = nuif_u8_consts256();
    const __m256i limit = _mm256_loadu_si256((const __m256i *)nuif_u8_end_limit);
    __m256i prev = _mm256_setzero_si256();
    __m256i err = _mm256_setzero_si256();
    __m256i open = _mm256_setzero_si256();
    size_t i = 0;
    while (i + 64 <= n) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        if (_mm256_movemask_epi8(_mm256_or_si256(v0, v1)) == 0) {
            err = _mm256_or_si256(err, open);
            open = _mm256_setzero_si256();
            prev = _mm256_setzero_si256();
            i = nuif_u8_ascii256(p, i + 64, n);
            continue;
        }
        err = _mm256_or_si256(err, nuif_u8_block256(v0, prev, &k));
        err = _mm256_or_si256(err, nuif_u8_block256(v1, v0, &k));
        open = _mm256_subs_epu8(v1, limit);
        prev = v1;
        i += 64;
    }
    if (i + 32 <= n) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
        if (_mm256_movemask_epi8(v) == 0) {
            err = _mm256_or_si256(err, open);
        } else {
            err = _mm256_or_si256(err, nuif_u8_block256(v, prev, &k));
        }
        prev = v;
        i += 32;
    }
    uint8_t last[32] = {0};
    memcpy(last, p + i, n - i);
    __m256i tail = _mm256_loadu_si256((const __m256i *)last);
    err = _mm256_or_si256(err, nuif_u8_block256(tail, prev, &k));
    return _mm256_testz_si256(err, err);
}

/* The best route this CPU runs (the OS must also save the AVX registers, which
 * __builtin_cpu_supports checks). */
static inline int nuif_utf8_route(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        return NUIF_UTF8_AVX2;
    }
    if (__builtin_cpu_supports("ssse3")) {
        return NUIF_UTF8_SSSE3;
    }
    return NUIF_UTF8_SCALAR;
}

/* 1 when p[0:n) is valid UTF-8, else 0, checked by route (one nuif_utf8_route() allows on this
 * CPU). */
static inline int nuif_utf8_valid(const uint8_t *p, size_t n, int route) {
    if (route == NUIF_UTF8_AVX2) {
        return nuif_utf8_valid_avx2(p, n);
    }
    if (route == NUIF_UTF8_SSSE3) {
        return nuif_utf8_valid_ssse3(p, n);
    }
    return nuif_utf8_valid_scalar(p, (ptrdiff_t)n);
}

#elif NUIF_UTF8_ARM64

/* ---- 16 bytes at a time (arm64 NEON) -------------------------------------------------------- */

typedef struct {
    uint8x16_t t1h, t1l, t2h, nib, cont3, cont4, top;
} nuif_u8_kneon;

static inline nuif_u8_kneon nuif_u8_consts_neon(void) {
    nuif_u8_kneon k;
    k.t1h = vld1q_u8(nuif_u8_first_hi);
    k.t1l = vld1q_u8(nuif_u8_first_lo);
    k.t2h = vld1q_u8(nuif_u8_second_hi);
    k.nib = vdupq_n_u8(0x0F);
    k.cont3 = vdupq_n_u8(0x60); /* byte - 0x60 keeps bit 7 iff byte >= E0 */
    k.cont4 = vdupq_n_u8(0x70); /* byte - 0x70 keeps bit 7 iff byte >= F0 */
    k.top = vdupq_n_u8(0x80);
    return k;
}

/* The error bits of block b, whose predecessor is a (zero before the input's first byte): the
 * same computation as nuif_u8_block128.  vextq_u8(a, b, 15) is a's last byte followed by b's
 * first 15, i.e. byte i is the byte one place before b[i]; vqtbl1q_u8 looks a 16-entry table up
 * (indexes are 0..15 here, so its "0 above 15" rule never applies); NEON shifts bytes
 * individually, so the high nibble needs no mask. */
static inline uint8x16_t nuif_u8_block_neon(uint8x16_t b, uint8x16_t a, const nuif_u8_kneon *k) {
#ifdef NUIF_UTF8_FAULT_NEON_CARRY /* a planted bug for the harness: the previous block lost */
    a = vdupq_n_u8(0);
#endif
    uint8x16_t back1 = vextq_u8(a, b, 15);
    uint8x16_t back2 = vextq_u8(a, b, 14);
    uint8x16_t back3 = vextq_u8(a, b, 13);
    uint8x16_t c1 = vqtbl1q_u8(k->t1h, vshrq_n_u8(back1, 4));
    uint8x16_t c2 = vqtbl1q_u8(k->t1l, vandq_u8(back1, k->nib));
    uint8x16_t c3 = vqtbl1q_u8(k->t2h, vshrq_n_u8(b, 4));
    uint8x16_t pair = vandq_u8(vandq_u8(c1, c2), c3);
    uint8x16_t must =
        vandq_u8(vorrq_u8(vqsubq_u8(back2, k->cont3), vqsubq_u8(back3, k->cont4)), k->top);
    return veorq_u8(pair, must);
}

/* Nonzero when a block ends inside a sequence (its last three bytes against F0, E0 and C0):
 * OR it into the errors unless the next block is classified with this one as its predecessor. */
static inline uint8x16_t nuif_u8_open_neon(uint8x16_t b) {
    return vqsubq_u8(b, vld1q_u8(nuif_u8_end_limit + 16));
}

/* 1 when no byte of v is 0x80 or above */
static inline int nuif_u8_ascii_neon(uint8x16_t v) { return vmaxvq_u8(v) < 0x80; }

/* The end of the whole 64-byte ASCII blocks from p + i on. */
static inline size_t nuif_u8_ascii64_neon(const uint8_t *p, size_t i, size_t n) {
    const uint8_t *q = p + i;
    const uint8_t *end = p + n;
    while (end - q >= 64) {
        uint8x16_t a = vorrq_u8(vld1q_u8(q), vld1q_u8(q + 16));
        uint8x16_t b = vorrq_u8(vld1q_u8(q + 32), vld1q_u8(q + 48));
        if (!nuif_u8_ascii_neon(vorrq_u8(a, b))) {
            break;
        }
        q += 64;
    }
    return (size_t)(q - p);
}

/* 1 when p[0:n) is valid UTF-8: nuif_utf8_valid_ssse3's loop with NEON blocks. */
static int nuif_utf8_valid_neon(const uint8_t *p, size_t n) {
    const nuif_u8_kneon k = nuif_u8_consts_neon();
    uint8x16_t prev = vdupq_n_u8(0); /* the last block looked at */
    uint8x16_t err = vdupq_n_u8(0);  /* OR of every error bit */
    uint8x16_t open = vdupq_n_u8(0); /* nonzero when the last classified block ends inside a
                                        sequence: an error unless the next block continues it */
    size_t i = 0;
    while (i + 64 <= n) {
        uint8x16_t v0 = vld1q_u8(p + i);
        uint8x16_t v1 = vld1q_u8(p + i + 16);
        uint8x16_t v2 = vld1q_u8(p + i + 32);
        uint8x16_t v3 = vld1q_u8(p + i + 48);
        if (nuif_u8_ascii_neon(vorrq_u8(vorrq_u8(v0, v1), vorrq_u8(v2, v3)))) {
            /* ASCII: settle the last block's end, then skip the ASCII run (an ASCII
             * predecessor acts exactly like a zero one) */
            err = vorrq_u8(err, open);
            open = vdupq_n_u8(0);
            prev = vdupq_n_u8(0);
            i = nuif_u8_ascii64_neon(p, i + 64, n);
            continue;
        }
        err = vorrq_u8(err, nuif_u8_block_neon(v0, prev, &k));
        err = vorrq_u8(err, nuif_u8_block_neon(v1, v0, &k));
        err = vorrq_u8(err, nuif_u8_block_neon(v2, v1, &k));
        err = vorrq_u8(err, nuif_u8_block_neon(v3, v2, &k));
        open = nuif_u8_open_neon(v3);
        prev = v3;
        i += 64;
    }
    while (i + 16 <= n) {
        uint8x16_t v = vld1q_u8(p + i);
        if (nuif_u8_ascii_neon(v)) {
            err = vorrq_u8(err, open);
        } else {
            err = vorrq_u8(err, nuif_u8_block_neon(v, prev, &k));
            open = nuif_u8_open_neon(v);
        }
        prev = v;
        i += 16;
    }
    /* the last 0..15 bytes, zero-padded; the full check also settles "open" */
    uint8_t last[16] = {0};
    memcpy(last, p + i, n - i);
    err = vorrq_u8(err, nuif_u8_block_neon(vld1q_u8(last), prev, &k));
    return vmaxvq_u8(err) == 0;
}

/* NEON is baseline on arm64: no run-time check. */
static inline int nuif_utf8_route(void) { return NUIF_UTF8_NEON; }

static inline int nuif_utf8_valid(const uint8_t *p, size_t n, int route) {
    if (route == NUIF_UTF8_NEON) {
        return nuif_utf8_valid_neon(p, n);
    }
    return nuif_utf8_valid_scalar(p, (ptrdiff_t)n);
}

#elif NUIF_UTF8_WASM

/* ---- 16 bytes at a time (WebAssembly SIMD128) ----------------------------------------------- */

typedef struct {
    v128_t t1h, t1l, t2h, nib, cont3, cont4, top, limit;
} nuif_u8_kwasm;

static inline nuif_u8_kwasm nuif_u8_consts_wasm(void) {
    nuif_u8_kwasm k;
    k.t1h = wasm_v128_load(nuif_u8_first_hi);
    k.t1l = wasm_v128_load(nuif_u8_first_lo);
    k.t2h = wasm_v128_load(nuif_u8_second_hi);
    k.nib = wasm_u8x16_splat(0x0F);
    k.cont3 = wasm_u8x16_splat(0x60); /* byte - 0x60 keeps bit 7 iff byte >= E0 */
    k.cont4 = wasm_u8x16_splat(0x70); /* byte - 0x70 keeps bit 7 iff byte >= F0 */
    k.top = wasm_u8x16_splat(0x80);
    k.limit = wasm_v128_load(nuif_u8_end_limit + 16);
    return k;
}

/* The error bits of block b, whose predecessor is a (zero before the input's first byte): the
 * NEON block's computation, one SIMD128 instruction for each NEON one.  The shuffle of (a, b)
 * from lane 15 on is a's last byte followed by b's first 15 (vextq_u8); swizzle looks a
 * 16-entry table up (vqtbl1q_u8; the indexes are 0..15 here); bytes shift individually. */
static inline v128_t nuif_u8_block_wasm(v128_t b, v128_t a, const nuif_u8_kwasm *k) {
    v128_t back1 =
        wasm_i8x16_shuffle(a, b, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
    v128_t back2 =
        wasm_i8x16_shuffle(a, b, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
    v128_t back3 =
        wasm_i8x16_shuffle(a, b, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
    v128_t c1 = wasm_i8x16_swizzle(k->t1h, wasm_u8x16_shr(back1, 4));
    v128_t c2 = wasm_i8x16_swizzle(k->t1l, wasm_v128_and(back1, k->nib));
    v128_t c3 = wasm_i8x16_swizzle(k->t2h, wasm_u8x16_shr(b, 4));
    v128_t pair = wasm_v128_and(wasm_v128_and(c1, c2), c3);
    v128_t must = wasm_v128_and(
        wasm_v128_or(wasm_u8x16_sub_sat(back2, k->cont3), wasm_u8x16_sub_sat(back3, k->cont4)),
        k->top);
    return wasm_v128_xor(pair, must);
}

/* 1 when no byte of v is 0x80 or above */
static inline int nuif_u8_ascii_wasm(v128_t v) { return wasm_i8x16_bitmask(v) == 0; }

/* The end of the whole 64-byte ASCII blocks from p + i on. */
static inline size_t nuif_u8_ascii64_wasm(const uint8_t *p, size_t i, size_t n) {
    const uint8_t *q = p + i;
    const uint8_t *end = p + n;
    while (end - q >= 64) {
        v128_t a = wasm_v128_or(wasm_v128_load(q), wasm_v128_load(q + 16));
        v128_t b = wasm_v128_or(wasm_v128_load(q + 32), wasm_v128_load(q + 48));
        if (!nuif_u8_ascii_wasm(wasm_v128_or(a, b))) {
            break;
        }
        q += 64;
    }
    return (size_t)(q - p);
}

/* 1 when p[0:n) is valid UTF-8: nuif_utf8_valid_neon's loop with SIMD128 blocks. */
static int nuif_utf8_valid_simd128(const uint8_t *p, size_t n) {
    const nuif_u8_kwasm k = nuif_u8_consts_wasm();
    v128_t zero = wasm_u8x16_splat(0);
    v128_t prev = zero; /* the last block looked at */
    v128_t err = zero;  /* OR of every error bit */
    v128_t open = zero; /* nonzero when the last classified block ends inside a sequence: an
                           error unless the next block continues it */
    size_t i = 0;
    while (i + 64 <= n) {
        v128_t v0 = wasm_v128_load(p + i);
        v128_t v1 = wasm_v128_load(p + i + 16);
        v128_t v2 = wasm_v128_load(p + i + 32);
        v128_t v3 = wasm_v128_load(p + i + 48);
        if (nuif_u8_ascii_wasm(wasm_v128_or(wasm_v128_or(v0, v1), wasm_v128_or(v2, v3)))) {
            /* ASCII: settle the last block's end, then skip the ASCII run (an ASCII
             * predecessor acts exactly like a zero one) */
            err = wasm_v128_or(err, open);
            open = zero;
            prev = zero;
            i = nuif_u8_ascii64_wasm(p, i + 64, n);
            continue;
        }
        err = wasm_v128_or(err, nuif_u8_block_wasm(v0, prev, &k));
        err = wasm_v128_or(err, nuif_u8_block_wasm(v1, v0, &k));
        err = wasm_v128_or(err, nuif_u8_block_wasm(v2, v1, &k));
        err = wasm_v128_or(err, nuif_u8_block_wasm(v3, v2, &k));
        open = wasm_u8x16_sub_sat(v3, k.limit);
        prev = v3;
        i += 64;
    }
    while (i + 16 <= n) {
        v128_t v = wasm_v128_load(p + i);
        if (nuif_u8_ascii_wasm(v)) {
            err = wasm_v128_or(err, open);
        } else {
            err = wasm_v128_or(err, nuif_u8_block_wasm(v, prev, &k));
            open = wasm_u8x16_sub_sat(v, k.limit);
        }
        prev = v;
        i += 16;
    }
    /* the last 0..15 bytes, zero-padded; the full check also settles "open" */
    uint8_t last[16] = {0};
    memcpy(last, p + i, n - i);
    err = wasm_v128_or(err, nuif_u8_block_wasm(wasm_v128_load(last), prev, &k));
    return !wasm_v128_any_true(err);
}

/* SIMD128 is in every build for WebAssembly that defines __wasm_simd128__: no run-time check. */
static inline int nuif_utf8_route(void) { return NUIF_UTF8_SIMD128; }

static inline int nuif_utf8_valid(const uint8_t *p, size_t n, int route) {
    if (route == NUIF_UTF8_SIMD128) {
        return nuif_utf8_valid_simd128(p, n);
    }
    return nuif_utf8_valid_scalar(p, (ptrdiff_t)n);
}

#else /* no vector route */

static inline int nuif_utf8_route(void) { return NUIF_UTF8_SCALAR; }

static inline int nuif_utf8_valid(const uint8_t *p, size_t n, int route) {
    (void)route;
    return nuif_utf8_valid_scalar(p, (ptrdiff_t)n);
}

#endif

/* 1 when this CPU and build can run route: the scalar route and nuif_utf8_route() always, and
 * SSSE3 where AVX2 is the best (every AVX2 CPU has SSSE3).  A route of the other architecture
 * never. */
static inline int nuif_utf8_route_runs(int route) {
    int best = nuif_utf8_route();
    return route == NUIF_UTF8_SCALAR || route == best ||
           (route == NUIF_UTF8_SSSE3 && best == NUIF_UTF8_AVX2);
}

#endif
