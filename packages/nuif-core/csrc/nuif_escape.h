/* Writing JSON strings as RFC 8785 / JSON.stringify does: '"', '\\' and control characters
 * escaped (the short forms \b \t \n \f \r where they exist, else \u00XX), every other byte as it
 * is; and lowercase hex for the hash text.  Used by the canonical writer (csrc/nuif_write.h), the
 * value dumper (src/nuif_core/_speedups_dump.pxi) and the hash text (_speedups_hash.pxi). */
#ifndef NUIF_ESCAPE_H
#define NUIF_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_scan.h"

static const char nuif_hexdigits[] = "0123456789abcdef";
static uint8_t nuif_out_esc[256]; /* 1 when the byte must be escaped in a JSON string */
static char nuif_hex2[512];       /* the two lowercase hex digits of every byte */

static void nuif_escape_init(void) {
    int c;
    for (c = 0; c < 256; c++) {
        nuif_out_esc[c] = c < 0x20 || c == '"' || c == '\\';
        nuif_hex2[2 * c] = nuif_hexdigits[c >> 4];
        nuif_hex2[2 * c + 1] = nuif_hexdigits[c & 15];
    }
}

static inline uint64_t nuif_haszero64(uint64_t v) {
    return (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
}

/* Nonzero when a little-endian word holds '"', '\\' or a control character (non-ASCII bytes are
 * fine); the lowest marked byte (0x80) is the first such byte. */
static inline uint64_t nuif_out_special(uint64_t w) {
    return (((w - 0x2020202020202020ULL) & ~w) | nuif_haszero64(w ^ 0x2222222222222222ULL) |
            nuif_haszero64(w ^ 0x5C5C5C5C5C5C5C5CULL)) &
           0x8080808080808080ULL;
}

/* Index of the first byte of s[0:L) that must be escaped, or L. */
static inline ptrdiff_t nuif_plain_len(const uint8_t *s, ptrdiff_t L) {
    ptrdiff_t r = 0;
    while (r + 8 <= L && nuif_out_special(nuif_load64_(s + r)) == 0) {
        r += 8;
    }
    while (r < L && nuif_out_esc[s[r]] == 0) {
        r++;
    }
    return r;
}

/* memcpy(o, src, L) where o has 16 bytes of room past L: short runs whose source can be read
 * 16 bytes past L (before lim) are copied in 16-byte blocks, without a call. */
static inline void nuif_copy(char *o, const uint8_t *src, ptrdiff_t L, const uint8_t *lim) {
    if (L <= 64 && src + L + 16 <= lim) {
        nuif_copy16(o, src, L);
    } else {
        memcpy(o, src, (size_t)L);
    }
}

#if NUIF_SSE2
/* 16 nibbles (0..15) as lowercase hex digits: '0' + n, and 'a' - '0' - 10 more where n > 9 */
static inline __m128i nuif_hex_digits16(__m128i n) {
    __m128i over =
        _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
    return _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8('0')), over);
}
#endif

/* The 64 lowercase hex digits of a 32-byte digest into o (the text of every "sha256:" hash):
 * 16 bytes a step where the build has SSE2, else two digits a byte from nuif_hex2. */
static inline void nuif_hex32(char *o, const uint8_t *d) {
#if NUIF_SSE2
    const __m128i low4 = _mm_set1_epi8(0x0F);
    int h;
    for (h = 0; h < 32; h += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(d + h));
        __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4), lo = _mm_and_si128(v, low4);
        /* digits in order: each byte's high nibble, then its low one */
        __m128i a = _mm_unpacklo_epi8(hi, lo), b = _mm_unpackhi_epi8(hi, lo);
        _mm_storeu_si128((__m128i *)(o + 2 * h), nuif_hex_digits16(a));
        _mm_storeu_si128((__m128i *)(o + 2 * h + 16), nuif_hex_digits16(b));
    }
#else
    int k;
    for (k = 0; k < 32; k++) {
        memcpy(o + 2 * k, nuif_hex2 + 2 * d[k], 2);
    }
#endif
}

/* Write the JSON.stringify escape of '"', '\\' or a control character; return its length. */
static inline ptrdiff_t nuif_escape_byte(char *o, uint8_t c) {
    o[0] = '\\';
    if (c == '"' || c == '\\') {
        o[1] = (char)c;
        return 2;
    }
    if (c == 0x08) {
        o[1] = 'b';
    } else if (c == '\t') {
        o[1] = 't';
    } else if (c == '\n') {
        o[1] = 'n';
    } else if (c == 0x0C) {
        o[1] = 'f';
    } else if (c == '\r') {
        o[1] = 'r';
    } else {
        o[1] = 'u';
        o[2] = '0';
        o[3] = '0';
        o[4] = nuif_hexdigits[c >> 4];
        o[5] = nuif_hexdigits[c & 15];
        return 6;
    }
    return 2;
}

/* The length of the escape at p[j] (a backslash) when it is spelled as nuif_escape_byte spells
 * it: 2 for \" \\ \b \f \n \r \t, 6 for \u00xx of the other control characters (lowercase hex);
 * else 0 (\/, \u of anything else, uppercase hex, or no valid escape at all).  A string value
 * whose escapes all have that length is its own canonical text.  The tests stop at the first
 * byte that does not match, so a NUL after the text (p[n]) ends the reading. */
static inline ptrdiff_t nuif_canon_esc_len(const uint8_t *p, ptrdiff_t j) {
    uint8_t e = p[j + 1], d;
    if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        return 2;
    }
    if (e != 'u' || p[j + 2] != '0' || p[j + 3] != '0' || (p[j + 4] != '0' && p[j + 4] != 0x31)) {
        return 0;
    }
    d = p[j + 5];
    if (p[j + 4] == '0') {
        /* \u0000-\u000f without the short forms: 8, 9, a, c and d */
        return (d >= '0' && d <= 0x37) || d == 'b' || d == 'e' || d == 'f' ? 6 : 0;
    }
    return (d >= '0' && d <= '9') || (d >= 'a' && d <= 'f') ? 6 : 0;
}

/* Write s[0:L) escaped as JSON.stringify does (o has room for 6 * L bytes); return the length. */
static ptrdiff_t nuif_escape_into(char *o, const uint8_t *s, ptrdiff_t L) {
    ptrdiff_t i = 0, w = 0, r;
    uint64_t m;
    while (i < L) {
        r = i;
        while (r + 8 <= L) {
            m = nuif_out_special(nuif_load64_(s + r));
            if (m) {
                r += NUIF_CTZ64(m) >> 3;
                break;
            }
            r += 8;
        }
        while (r < L && nuif_out_esc[s[r]] == 0) {
            r++;
        }
        if (r > i) {
            memcpy(o + w, s + i, (size_t)(r - i));
            w += r - i;
            i = r;
        }
        if (i >= L) {
            break;
        }
        w += nuif_escape_byte(o + w, s[i]);
        i++;
    }
    return w;
}

/* 1 when s[0:L) is ASCII, else 0. */
static inline int nuif_is_ascii(const uint8_t *s, ptrdiff_t L) {
    ptrdiff_t i = 0;
    uint64_t w;
    for (; i + 8 <= L; i += 8) {
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull) return 0;
    }
    for (; i < L; i++) {
        if (s[i] >= 0x80) return 0;
    }
    return 1;
}

#endif
