/* Stage 1 routes: see stage1.h for what the index holds and when an input is refused. */
#include "stage1.h"

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

/* ---- the mask logic shared by every vector route ----------------------------------------- */

#define S1_EVEN 0x5555555555555555ULL
#define S1_ODD 0xAAAAAAAAAAAAAAAAULL

typedef struct {
    uint64_t escape_carry;   /* 1: bit 0 of the next block is escaped */
    uint64_t in_str_carry;   /* all ones: the next block starts inside a string */
    uint64_t scalar_carry;   /* 1: the last byte was a scalar byte other than a quote */
    uint64_t ctrl_err;       /* nonzero: a control byte inside a string */
} s1_state;

/* The escaped bytes of a block: the byte after each odd-length run of backslashes.  A run is
 * found by adding 1 at its first bit: the carry ripples through the run and lands on the byte
 * after it, whose position has the other parity than the start exactly when the run is odd. */
static inline uint64_t s1_escaped(uint64_t bs, s1_state *st) {
    if (!(bs | st->escape_carry)) {
        return 0; /* most blocks: no backslash, nothing escaped, the carry stays 0 */
    }
    uint64_t carry_in = st->escape_carry;
    uint64_t b = bs & ~carry_in;               /* an escaped backslash escapes nothing */
    uint64_t starts = b & ~(b << 1);
    uint64_t even_ends = (b + (starts & S1_EVEN)) & ~b;
    uint64_t odd_sum;
    uint64_t overflow = __builtin_add_overflow(b, starts & S1_ODD, &odd_sum);
    uint64_t odd_ends = odd_sum & ~b;
#ifdef S1_FAULT_DROP_ESCAPE_CARRY /* a planted bug: tests prove the self-test catches it */
    st->escape_carry = 0 * overflow;
#else
    st->escape_carry = overflow; /* an odd-start run reaching bit 63 is odd: it escapes bit 64 */
#endif
    return (even_ends & S1_ODD) | (odd_ends & S1_EVEN) | carry_in;
}

static inline uint64_t s1_prefix_xor_portable(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* structural bits of a block from its class masks; prefix_xor is the route's own */
#define S1_BLOCK_BODY(PREFIX_XOR)                                                               \
    uint64_t escaped = s1_escaped(bs, st);                                                      \
    uint64_t quotes = q & ~escaped;                                                             \
    uint64_t in_str = PREFIX_XOR(quotes) ^ st->in_str_carry;                                    \
    st->in_str_carry = (uint64_t)((int64_t)in_str >> 63);                                      \
    uint64_t tail = in_str ^ quotes; /* inside, and the closing quote; not the opening one */  \
    uint64_t scalar = ~(op | ws);                                                               \
    uint64_t plain = scalar & ~quotes;                                                          \
    uint64_t follows_plain = (plain << 1) | st->scalar_carry;                                   \
    st->scalar_carry = plain >> 63;                                                             \
    st->ctrl_err |= ctrl & (in_str & ~quotes);                                                  \
    return (op | (scalar & ~follows_plain)) & ~tail;

static inline uint64_t s1_block_portable(uint64_t bs, uint64_t q, uint64_t op, uint64_t ws,
                                         uint64_t ctrl, s1_state *st) {
    S1_BLOCK_BODY(s1_prefix_xor_portable)
}

/* Writes the positions of the set bits of s, 8 per round; may write up to 8 entries past them.
 * (Writing a first round of 8 unconditionally measured no better here: see parser-design.md.) */
static inline size_t s1_flatten(uint32_t *out, size_t k, uint32_t base, uint64_t s) {
    int cnt = __builtin_popcountll(s);
    uint32_t *o = out + k;
    while (s) {
        for (int j = 0; j < 8; j++) {
            o[j] = base + (uint32_t)__builtin_ctzll(s | (1ULL << 63)); /* s==0: harmless */
            s &= s - 1;
        }
        o += 8;
    }
    return k + (size_t)cnt;
}

/* ---- portable: byte classes from a table ------------------------------------------------- */

#define C_BS 1
#define C_Q 2
#define C_OP 4
#define C_WS 8
#define C_CTRL 16

static uint8_t s1_class[256];
static int s1_class_ready = 0;

static void s1_class_init(void) {
    for (int c = 0; c < 256; c++) {
        uint8_t v = 0;
        if (c == '\\') v |= C_BS;
        if (c == '"') v |= C_Q;
        if (is_op((uint8_t)c)) v |= C_OP;
        if (is_ws((uint8_t)c)) v |= C_WS;
        if (c < 0x20) v |= C_CTRL;
        s1_class[c] = v;
    }
    s1_class_ready = 1;
}

int s1_portable(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    s1_state st = {0, 0, 0, 0};
    size_t k = 0;
    uint8_t last[64];
    *count = 0;
    if (!s1_class_ready) s1_class_init();
    if (!s1_utf8_scalar(p, n)) return S1_REFUSE;
    for (size_t i = 0; i < n; i += 64) {
        const uint8_t *b = p + i;
        if (n - i < 64) {
            memset(last, ' ', 64);
            memcpy(last, b, n - i);
            b = last;
        }
        uint64_t bs = 0, q = 0, op = 0, ws = 0, ctrl = 0;
        for (int j = 0; j < 64; j++) {
            uint64_t c = s1_class[b[j]];
            bs |= (c & 1) << j;
            q |= ((c >> 1) & 1) << j;
            op |= ((c >> 2) & 1) << j;
            ws |= ((c >> 3) & 1) << j;
            ctrl |= ((c >> 4) & 1) << j;
        }
        k = s1_flatten(out, k, (uint32_t)i, s1_block_portable(bs, q, op, ws, ctrl, &st));
    }
    if (st.in_str_carry || st.ctrl_err) return S1_REFUSE;
    *count = k;
    return S1_OK;
}

/* ---- x86-64 AVX2 ------------------------------------------------------------------------- */
#if defined(__x86_64__)
#include "nuif_utf8.h" /* packages/nuif-core/csrc, by -I: the lookup blocks, not a copy */
#include <immintrin.h>

#define S1_AVX2 __attribute__((target("avx2,pclmul")))

int s1_have_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
}

S1_AVX2 static inline uint64_t s1_prefix_xor_clmul(uint64_t x) {
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

S1_AVX2 static inline uint64_t s1_block_avx2(uint64_t bs, uint64_t q, uint64_t op, uint64_t ws,
                                             uint64_t ctrl, s1_state *st) {
    S1_BLOCK_BODY(s1_prefix_xor_clmul)
}

S1_AVX2 static inline uint64_t s1_mask64(__m256i lo, __m256i hi) {
    return (uint32_t)_mm256_movemask_epi8(lo) |
           ((uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32);
}

/* Operators and whitespace by two nibble lookups: a byte's class is the AND of its low-nibble
 * entry and its high-nibble entry, and each class bit needs both nibbles to match exactly:
 *   bit 0  5B 5D 7B 7D  [ ] { }      bit 1  2C ,      bit 2  3A :
 *   bit 3  20 space                  bit 4  09 0A 0D  tab LF CR
 * Bytes 80..FF have a zero high-nibble entry (entries 8..F). */
static const uint8_t s1_lo_nib[16] = {8, 0, 0, 0, 0, 0, 0, 0, 0, 16, 4 | 16, 1, 2, 1 | 16, 0, 0};
static const uint8_t s1_hi_nib[16] = {16, 0, 2 | 8, 4, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};

S1_AVX2 static inline __m256i s1_class_avx2(__m256i v, __m256i lo_t, __m256i hi_t, __m256i nib) {
    __m256i lo = _mm256_shuffle_epi8(lo_t, _mm256_and_si256(v, nib));
    __m256i hi = _mm256_shuffle_epi8(hi_t, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
    return _mm256_and_si256(lo, hi);
}

int s1_avx2(const uint8_t *p, size_t n, uint32_t *out, size_t *count) S1_AVX2;
int s1_avx2(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    s1_state st = {0, 0, 0, 0};
    size_t k = 0;
    const nuif_u8_k256 uk = nuif_u8_consts256();
    const __m256i limit = _mm256_loadu_si256((const __m256i *)nuif_u8_end_limit);
    __m256i prev = _mm256_setzero_si256(), uerr = _mm256_setzero_si256(),
            open = _mm256_setzero_si256();
    const __m256i bsv = _mm256_set1_epi8('\\'), qv = _mm256_set1_epi8('"');
    const __m256i c1f = _mm256_set1_epi8(0x1F);
    const __m256i lo_t = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)s1_lo_nib));
    const __m256i hi_t = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)s1_hi_nib));
    const __m256i nib = _mm256_set1_epi8(0x0F), zero = _mm256_setzero_si256();
    const __m256i opbits = _mm256_set1_epi8(7), wsbits = _mm256_set1_epi8(24);
    uint8_t last[64];
    *count = 0;
    for (size_t i = 0; i < n; i += 64) {
        const uint8_t *b = p + i;
        if (n - i < 64) {
            memset(last, ' ', 64);
            memcpy(last, b, n - i);
            b = last;
        }
        __m256i v0 = _mm256_loadu_si256((const __m256i *)b);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(b + 32));
        /* UTF-8, fused: an ASCII block only settles the previous block's end */
        if (_mm256_movemask_epi8(_mm256_or_si256(v0, v1)) == 0) {
            uerr = _mm256_or_si256(uerr, open);
            open = _mm256_setzero_si256();
            prev = _mm256_setzero_si256();
        } else {
            uerr = _mm256_or_si256(uerr, nuif_u8_block256(v0, prev, &uk));
            uerr = _mm256_or_si256(uerr, nuif_u8_block256(v1, v0, &uk));
            open = _mm256_subs_epu8(v1, limit);
            prev = v1;
        }
        __m256i k0 = s1_class_avx2(v0, lo_t, hi_t, nib), k1 = s1_class_avx2(v1, lo_t, hi_t, nib);
        uint64_t bs = s1_mask64(_mm256_cmpeq_epi8(v0, bsv), _mm256_cmpeq_epi8(v1, bsv));
        uint64_t q = s1_mask64(_mm256_cmpeq_epi8(v0, qv), _mm256_cmpeq_epi8(v1, qv));
        uint64_t ctrl = s1_mask64(_mm256_cmpeq_epi8(_mm256_min_epu8(v0, c1f), v0),
                                  _mm256_cmpeq_epi8(_mm256_min_epu8(v1, c1f), v1));
        uint64_t op = ~s1_mask64(_mm256_cmpeq_epi8(_mm256_and_si256(k0, opbits), zero),
                                 _mm256_cmpeq_epi8(_mm256_and_si256(k1, opbits), zero));
        uint64_t ws = ~s1_mask64(_mm256_cmpeq_epi8(_mm256_and_si256(k0, wsbits), zero),
                                 _mm256_cmpeq_epi8(_mm256_and_si256(k1, wsbits), zero));
        k = s1_flatten(out, k, (uint32_t)i, s1_block_avx2(bs, q, op, ws, ctrl, &st));
    }
    uerr = _mm256_or_si256(uerr, open);
    if (st.in_str_carry || st.ctrl_err || !_mm256_testz_si256(uerr, uerr)) return S1_REFUSE;
    *count = k;
    return S1_OK;
}
#endif

/* ---- arm64 NEON ---------------------------------------------------------------------------- */
#if defined(__aarch64__)
#include <arm_neon.h>

static inline uint64_t s1_neon_mask64(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d) {
    /* each byte is 0x00 or 0xFF: keep one bit per lane by position, then add pairwise */
    const uint8x16_t w = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t s0 = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
    uint8x16_t s1 = vpaddq_u8(vandq_u8(c, w), vandq_u8(d, w));
    s0 = vpaddq_u8(s0, s1);
    s0 = vpaddq_u8(s0, s0);
    return vgetq_lane_u64(vreinterpretq_u64_u8(s0), 0);
}

int s1_neon(const uint8_t *p, size_t n, uint32_t *out, size_t *count) {
    s1_state st = {0, 0, 0, 0};
    size_t k = 0;
    uint8_t last[64];
    *count = 0;
    /* UTF-8: the scalar check for now (a NEON port of the lookup blocks is stage 2 work) */
    if (!s1_utf8_scalar(p, n)) return S1_REFUSE;
    const uint8x16_t bsv = vdupq_n_u8('\\'), qv = vdupq_n_u8('"');
    for (size_t i = 0; i < n; i += 64) {
        const uint8_t *b = p + i;
        if (n - i < 64) {
            memset(last, ' ', 64);
            memcpy(last, b, n - i);
            b = last;
        }
        uint8x16_t v[4], m_bs[4], m_q[4], m_op[4], m_ws[4], m_ct[4];
        for (int j = 0; j < 4; j++) {
            v[j] = vld1q_u8(b + 16 * j);
            m_bs[j] = vceqq_u8(v[j], bsv);
            m_q[j] = vceqq_u8(v[j], qv);
            uint8x16_t x = v[j];
#define S1_EQ(c) vceqq_u8(x, vdupq_n_u8(c))
            m_op[j] = vorrq_u8(vorrq_u8(vorrq_u8(S1_EQ('{'), S1_EQ('}')),
                                        vorrq_u8(S1_EQ('['), S1_EQ(']'))),
                               vorrq_u8(S1_EQ(':'), S1_EQ(',')));
            m_ws[j] = vorrq_u8(vorrq_u8(S1_EQ(' '), S1_EQ('\t')),
                               vorrq_u8(S1_EQ('\n'), S1_EQ('\r')));
#undef S1_EQ
            m_ct[j] = vcleq_u8(v[j], vdupq_n_u8(0x1F));
        }
        uint64_t bs = s1_neon_mask64(m_bs[0], m_bs[1], m_bs[2], m_bs[3]);
        uint64_t q = s1_neon_mask64(m_q[0], m_q[1], m_q[2], m_q[3]);
        uint64_t op = s1_neon_mask64(m_op[0], m_op[1], m_op[2], m_op[3]);
        uint64_t ws = s1_neon_mask64(m_ws[0], m_ws[1], m_ws[2], m_ws[3]);
        uint64_t ctrl = s1_neon_mask64(m_ct[0], m_ct[1], m_ct[2], m_ct[3]);
        k = s1_flatten(out, k, (uint32_t)i, s1_block_portable(bs, q, op, ws, ctrl, &st));
    }
    if (st.in_str_carry || st.ctrl_err) return S1_REFUSE;
    *count = k;
    return S1_OK;
}
#endif
