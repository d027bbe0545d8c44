/* Stage 1 for the harness: the byte-at-a-time reference, and the routes nuif-core ships
 * (csrc/nuif_stage1.h, by -I: the same code, not a copy) over a whole input.  See stage1.h. */
#include "stage1.h"
#include "nuif_stage1.h"
#include "nuif_utf8.h"

#include <string.h>

/* ---- the reference: one byte at a time -------------------------------------------------- */

static int is_op(uint8_t c) {
    return c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
}
static int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Strict UTF-8 (shortest forms, no surrogates, nothing above U+10FFFF), by ranges. */
int s1_utf8_scalar(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return 0;
        }
        if (n - i < len) return 0;
        if (p[i + 1] < lo || p[i + 1] > hi) return 0;
        for (size_t k = 2; k < len; k++) {
            if (p[i + k] < 0x80 || p[i + k] > 0xBF) return 0;
        }
        i += len;
    }
    return 1;
}

int s1_ref(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    size_t k = 0;
    int in_str = 0, escape_next = 0, prev_plain_scalar = 0;
    *count = 0;
    if (!s1_utf8_scalar(p, n)) return S1_REFUSE;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        int escaped = escape_next;
        escape_next = (c == '\\' && !escaped);
        int quote = (c == '"' && !escaped);
        int scalar = !is_op(c) && !is_ws(c);
        if (in_str) {
            if (quote) {
                in_str = 0;
            } else if (c < 0x20) {
                return S1_REFUSE;
            }
        } else if (quote) {
            if (!prev_plain_scalar) out[k++] = (uint32_t)i;
            in_str = 1;
        } else if (is_op(c) || (scalar && !prev_plain_scalar)) {
            out[k++] = (uint32_t)i;
        }
        prev_plain_scalar = scalar && !quote;
    }
    if (in_str) return S1_REFUSE;
    *count = k;
    return S1_OK;
}

/* ---- the shipped routes (packages/nuif-core/csrc/nuif_stage1.h), over the whole input ------- */

/* Input bytes per chunk: the codec reads the index in chunks of 16 KiB (NUIF_S2_CHUNK); the
 * self-test sets 256 so that its inputs cross chunk boundaries (where the state carries over) as
 * often as block boundaries. */
size_t s1_chunk = 16384;

static int s1_route(int route, const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    nuif_s1_state st;
    size_t k = 0, from;
    int utf8_ok;
    static int tables_ready = 0;
    *count = 0;
    if (!tables_ready) {
        nuif_utf8_init(); /* the scalar route's tables (the codec fills them at import) */
        tables_ready = 1;
    }
#if defined(__x86_64__)
    utf8_ok = nuif_utf8_valid(p, n, route == NUIF_S1_AVX2    ? NUIF_UTF8_AVX2
                                    : route == NUIF_S1_SSSE3 ? NUIF_UTF8_SSSE3
                                                             : NUIF_UTF8_SCALAR);
#else
    utf8_ok = s1_utf8_scalar(p, n);
#endif
    if (!utf8_ok) return S1_REFUSE;
    nuif_s1_start(&st);
    for (from = 0; from < n; from += s1_chunk) {
        size_t to = n - from > s1_chunk ? from + s1_chunk : n;
        k += nuif_s1_chunk(route, &st, p, n, from, to, out + k);
    }
    if (!nuif_s1_ok(&st)) return S1_REFUSE;
    *count = k;
    return S1_OK;
}

int s1_portable(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    return s1_route(NUIF_S1_PORTABLE, p, n, out, count);
}
#if defined(__x86_64__)
int s1_have_avx2(void) { return nuif_s1_route_runs(NUIF_S1_AVX2); }
int s1_have_ssse3(void) { return nuif_s1_route_runs(NUIF_S1_SSSE3); }

int s1_avx2(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    return s1_route(NUIF_S1_AVX2, p, n, out, count);
}
int s1_ssse3(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    return s1_route(NUIF_S1_SSSE3, p, n, out, count);
}
#endif
#if defined(__aarch64__)
int s1_neon(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    return s1_route(NUIF_S1_NEON, p, n, out, count);
}
#endif
