/* Stage 1 of the structural-index parser (docs/parser-design.md): the positions of every byte the
 * second stage (csrc/nuif_stage2.h) must look at, found 64 input bytes per step with bit masks.
 *
 * The index holds, in order:
 *   - the operators { } [ ] : , outside strings;
 *   - the first byte of every scalar (a string's opening quote, true, 12.5, ...): a byte that is
 *     neither an operator nor whitespace (space, tab, LF, CR) and whose predecessor is an
 *     operator, whitespace, a closing quote or the start of the input.  (In `true"x"` the quote
 *     follows a plain scalar byte and is not indexed: stage 2 refuses `true"` as a bad literal.)
 * A quote is unescaped unless an odd run of backslashes precedes it; the bytes from an opening
 * quote to its closing quote are inside the string, and nothing inside is indexed.
 *
 * Stage 1 refuses (nuif_s1_ok() == 0 at the end) an input with an unescaped byte below 0x20
 * inside a string or that ends inside a string.  UTF-8 is checked by the caller, separately
 * (csrc/nuif_utf8.h: 20-90 GB/s, so fusing it into this loop saves nothing measurable).  A refused
 * input locates nothing: the codec re-reads it with its one-pass parser, which reports the
 * NUIF_* code, pointer, line and column.
 *
 * The input is read in chunks (nuif_s1_chunk): the state carries over, so the caller interleaves
 * stage 1 and stage 2 over a cache-sized index instead of an index of the whole input.  Only
 * p[0:n) is read: the last partial block is copied into a 64-byte buffer padded with spaces.
 *
 * Routes, chosen once at run time (nuif_s1_route): AVX2 + PCLMUL and SSSE3 + PCLMUL on x86-64
 * (GCC and Clang: function target attributes), NEON on arm64, and a portable one (any C99
 * compiler; also what NUIF_SCAN_PORTABLE builds use).  benchmarks/stage1/harness.c checks every
 * route against a byte-at-a-time reference, natively and under qemu-aarch64.
 */
#ifndef NUIF_STAGE1_H
#define NUIF_STAGE1_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NUIF_S1_PORTABLE 0
#define NUIF_S1_SSSE3 1
#define NUIF_S1_AVX2 2
#define NUIF_S1_NEON 3

/* out must hold (to - from) + 72 entries: the routes write up to 8 entries past the last one */
#define NUIF_S1_SLACK 72

typedef struct {
    uint64_t escape_carry; /* 1: bit 0 of the next block is escaped */
    uint64_t in_str_carry; /* all ones: the next block starts inside a string */
    uint64_t scalar_carry; /* 1: the last byte was a scalar byte other than a quote */
    uint64_t ctrl_err;     /* nonzero: a control byte inside a string */
} nuif_s1_state;

static inline void nuif_s1_start(nuif_s1_state *st) {
    st->escape_carry = st->in_str_carry = st->scalar_carry = st->ctrl_err = 0;
}

/* 1 when everything read so far is acceptable and the input did not end inside a string */
static inline int nuif_s1_ok(const nuif_s1_state *st) {
    return st->in_str_carry == 0 && st->ctrl_err == 0;
}

/* ---- bit helpers --------------------------------------------------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
#define NUIF_S1_GNU 1
static inline unsigned nuif_s1_ctz(uint64_t x) { return (unsigned)__builtin_ctzll(x); }
static inline int nuif_s1_popcount(uint64_t x) { return __builtin_popcountll(x); }
static inline uint64_t nuif_s1_add_carry(uint64_t a, uint64_t b, uint64_t *sum) {
    return (uint64_t)__builtin_add_overflow(a, b, sum);
}
#else
#define NUIF_S1_GNU 0
static inline unsigned nuif_s1_ctz(uint64_t x) {
    unsigned n = 0;
    if (x == 0) return 64;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
static inline int nuif_s1_popcount(uint64_t x) {
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}
static inline uint64_t nuif_s1_add_carry(uint64_t a, uint64_t b, uint64_t *sum) {
    *sum = a + b;
    return *sum < a;
}
#endif

#define NUIF_S1_EVEN 0x5555555555555555ULL
#define NUIF_S1_ODD 0xAAAAAAAAAAAAAAAAULL

/* The escaped bytes of a block: the byte after each odd-length run of backslashes.  A run is
 * found by adding 1 at its first bit: the carry ripples through the run and lands on the byte
 * after it, whose position has the other parity than the start exactly when the run is odd. */
static inline uint64_t nuif_s1_escaped(uint64_t bs, nuif_s1_state *st) {
    uint64_t carry_in, b, starts, even_ends, odd_sum, overflow, odd_ends;
    if (!(bs | st->escape_carry)) {
        return 0; /* most blocks: no backslash, nothing escaped, the carry stays 0 */
    }
    carry_in = st->escape_carry;
    b = bs & ~carry_in; /* an escaped backslash escapes nothing */
    starts = b & ~(b << 1);
    even_ends = (b + (starts & NUIF_S1_EVEN)) & ~b;
    overflow = nuif_s1_add_carry(b, starts & NUIF_S1_ODD, &odd_sum);
    odd_ends = odd_sum & ~b;
#ifdef NUIF_S1_FAULT_DROP_ESCAPE_CARRY /* a planted bug: the harness test proves it is caught */
    st->escape_carry = 0 * overflow;
#else
    st->escape_carry = overflow; /* an odd-start run reaching bit 63 is odd: it escapes bit 64 */
#endif
    return (even_ends & NUIF_S1_ODD) | (odd_ends & NUIF_S1_EVEN) | carry_in;
}

static inline uint64_t nuif_s1_prefix_xor_portable(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The structural bits of a block from its class masks; PREFIX_XOR is the route's own. */
#define NUIF_S1_BLOCK_BODY(PREFIX_XOR)                                                          \
    uint64_t escaped = nuif_s1_escaped(bs, st);                                                 \
    uint64_t quotes = q & ~escaped;                                                             \
    uint64_t in_str = PREFIX_XOR(quotes) ^ st->in_str_carry;                                    \
    uint64_t tail, scalar, plain, follows_plain;                                                \
    st->in_str_carry = (uint64_t)((int64_t)in_str >> 63);                                      \
    tail = in_str ^ quotes; /* inside, and the closing quote; not the opening one */            \
    scalar = ~(op | ws);                                                                        \
    plain = scalar & ~quotes;                                                                   \
    follows_plain = (plain << 1) | st->scalar_carry;                                            \
    st->scalar_carry = plain >> 63;                                                             \
    st->ctrl_err |= ctrl & (in_str & ~quotes);                                                  \
    return (op | (scalar & ~follows_plain)) & ~tail;

static inline uint64_t nuif_s1_block_portable(uint64_t bs, uint64_t q, uint64_t op, uint64_t ws,
                                              uint64_t ctrl, nuif_s1_state *st) {
    NUIF_S1_BLOCK_BODY(nuif_s1_prefix_xor_portable)
}

/* Write the positions of the set bits of s at out + k, 8 per round (up to 8 past them). */
static inline size_t nuif_s1_flatten(uint32_t *out, size_t k, uint32_t base, uint64_t s) {
    int cnt = nuif_s1_popcount(s), j;
    uint32_t *o = out + k;
    while (s) {
        for (j = 0; j < 8; j++) {
            o[j] = base + nuif_s1_ctz(s | (1ULL << 63)); /* s == 0: harmless, overwritten */
            s &= s - 1;
        }
        o += 8;
    }
    return k + (size_t)cnt;
}

/* The block at p + i, or a copy of the last partial block padded with spaces. */
static inline const uint8_t *nuif_s1_block_at(const uint8_t *p, size_t n, size_t i,
                                             uint8_t *last) {
    if (n - i >= 64) {
        return p + i;
    }
    memset(last, ' ', 64);
    memcpy(last, p + i, n - i);
    return last;
}

/* ---- portable: 8 bytes per word (SWAR) ---------------------------------------------------- */

/* the high bit of each byte of w that is zero */
static inline uint64_t nuif_s1_zero_bytes(uint64_t w) {
    return ~(((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w | 0x7F7F7F7F7F7F7F7FULL);
}
/* the high bits of a word's marked bytes gathered into its 8 low bits (byte j -> bit j) */
static inline uint64_t nuif_s1_gather(uint64_t hi) {
    return ((hi >> 7) * 0x0102040810204080ULL) >> 56;
}
#define NUIF_S1_REP(c) (0x0101010101010101ULL * (uint8_t)(c))

/* 8 bytes as a little-endian word (byte j in bits 8j..8j+7) */
static inline uint64_t nuif_s1_load_le(const uint8_t *b) {
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint64_t w = 0;
    int j;
    for (j = 7; j >= 0; j--) {
        w = (w << 8) | b[j];
    }
    return w;
#else
    uint64_t w;
    memcpy(&w, b, 8); /* one unaligned load */
    return w;
#endif
}

static size_t nuif_s1_portable(nuif_s1_state *st, const uint8_t *p, size_t n, size_t from,
                               size_t to, uint32_t *out) {
    size_t k = 0, i;
    uint8_t last[64];
    int j;
    for (i = from; i < to; i += 64) {
        const uint8_t *b = nuif_s1_block_at(p, n, i, last);
        uint64_t bs = 0, q = 0, op = 0, ws = 0, ctrl = 0;
        for (j = 0; j < 8; j++) {
            uint64_t w = nuif_s1_load_le(b + 8 * j);
            uint64_t lt20 = ~(((w & 0x7F7F7F7F7F7F7F7FULL) + NUIF_S1_REP(0x60)) | w) &
                            0x8080808080808080ULL; /* bytes below 0x20 */
            uint64_t mb = nuif_s1_zero_bytes(w ^ NUIF_S1_REP('\\'));
            uint64_t mq = nuif_s1_zero_bytes(w ^ NUIF_S1_REP('"'));
            /* { and } are [ and ] with bit 5 set (only they are): fold it away */
            uint64_t f = w & NUIF_S1_REP(0xDF);
            uint64_t mo = nuif_s1_zero_bytes(f ^ NUIF_S1_REP('[')) |
                          nuif_s1_zero_bytes(f ^ NUIF_S1_REP(']')) |
                          nuif_s1_zero_bytes(w ^ NUIF_S1_REP(':')) |
                          nuif_s1_zero_bytes(w ^ NUIF_S1_REP(','));
            uint64_t mw = nuif_s1_zero_bytes(w ^ NUIF_S1_REP(' ')) |
                          nuif_s1_zero_bytes(w ^ NUIF_S1_REP('\t')) |
                          nuif_s1_zero_bytes(w ^ NUIF_S1_REP('\n')) |
                          nuif_s1_zero_bytes(w ^ NUIF_S1_REP('\r'));
            bs |= nuif_s1_gather(mb) << (8 * j);
            q |= nuif_s1_gather(mq) << (8 * j);
            op |= nuif_s1_gather(mo) << (8 * j);
            ws |= nuif_s1_gather(mw) << (8 * j);
            ctrl |= nuif_s1_gather(lt20) << (8 * j);
        }
        k = nuif_s1_flatten(out, k, (uint32_t)i, nuif_s1_block_portable(bs, q, op, ws, ctrl, st));
    }
    return k;
}

/* ---- x86-64: SSSE3 and AVX2, with PCLMUL for the in-string prefix XOR ----------------------- */
#if !defined(NUIF_SCAN_PORTABLE) && NUIF_S1_GNU && defined(__x86_64__)
#define NUIF_S1_X86 1
#include <immintrin.h>

#define NUIF_S1_T_AVX2 __attribute__((target("avx2,pclmul")))
#define NUIF_S1_T_SSSE3 __attribute__((target("ssse3,pclmul")))

/* Operators and whitespace by two nibble lookups: a byte's class is the AND of its low-nibble
 * entry and its high-nibble entry, and each class bit needs both nibbles to match exactly:
 *   bit 0  5B 5D 7B 7D  [ ] { }      bit 1  2C ,      bit 2  3A :
 *   bit 3  20 space                  bit 4  09 0A 0D  tab LF CR
 * Bytes 80..FF have a zero high-nibble entry (entries 8..F). */
static const uint8_t nuif_s1_lo_nib[16] = {8, 0, 0, 0, 0, 0, 0, 0, 0, 16, 4 | 16, 1, 2, 1 | 16, 0, 0};
static const uint8_t nuif_s1_hi_nib[16] = {16, 0, 2 | 8, 4, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};

NUIF_S1_T_SSSE3 static inline uint64_t nuif_s1_prefix_xor_clmul(uint64_t x) {
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

NUIF_S1_T_SSSE3 static inline uint64_t nuif_s1_block_clmul(uint64_t bs, uint64_t q, uint64_t op,
                                                           uint64_t ws, uint64_t ctrl,
                                                           nuif_s1_state *st) {
    NUIF_S1_BLOCK_BODY(nuif_s1_prefix_xor_clmul)
}

NUIF_S1_T_AVX2 static inline uint64_t nuif_s1_mask256(__m256i lo, __m256i hi) {
    return (uint32_t)_mm256_movemask_epi8(lo) |
           ((uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32);
}

NUIF_S1_T_AVX2 static inline __m256i nuif_s1_class256(__m256i v, __m256i lo_t, __m256i hi_t,
                                                      __m256i nib) {
    __m256i lo = _mm256_shuffle_epi8(lo_t, _mm256_and_si256(v, nib));
    __m256i hi = _mm256_shuffle_epi8(hi_t, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
    return _mm256_and_si256(lo, hi);
}

NUIF_S1_T_AVX2 static size_t nuif_s1_avx2(nuif_s1_state *st, const uint8_t *p, size_t n,
                                         size_t from, size_t to, uint32_t *out) {
    size_t k = 0, i;
    uint8_t last[64];
    const __m256i bsv = _mm256_set1_epi8('\\'), qv = _mm256_set1_epi8('"');
    const __m256i c1f = _mm256_set1_epi8(0x1F);
    const __m256i lo_t =
        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nuif_s1_lo_nib));
    const __m256i hi_t =
        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nuif_s1_hi_nib));
    const __m256i nib = _mm256_set1_epi8(0x0F), zero = _mm256_setzero_si256();
    const __m256i opbits = _mm256_set1_epi8(7), wsbits = _mm256_set1_epi8(24);
    for (i = from; i < to; i += 64) {
        const uint8_t *b = nuif_s1_block_at(p, n, i, last);
        __m256i v0 = _mm256_loadu_si256((const __m256i *)b);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(b + 32));
        __m256i k0 = nuif_s1_class256(v0, lo_t, hi_t, nib);
        __m256i k1 = nuif_s1_class256(v1, lo_t, hi_t, nib);
        uint64_t bs = nuif_s1_mask256(_mm256_cmpeq_epi8(v0, bsv), _mm256_cmpeq_epi8(v1, bsv));
        uint64_t q = nuif_s1_mask256(_mm256_cmpeq_epi8(v0, qv), _mm256_cmpeq_epi8(v1, qv));
        uint64_t ctrl = nuif_s1_mask256(_mm256_cmpeq_epi8(_mm256_min_epu8(v0, c1f), v0),
                                        _mm256_cmpeq_epi8(_mm256_min_epu8(v1, c1f), v1));
        uint64_t op = ~nuif_s1_mask256(_mm256_cmpeq_epi8(_mm256_and_si256(k0, opbits), zero),
                                       _mm256_cmpeq_epi8(_mm256_and_si256(k1, opbits), zero));
        uint64_t ws = ~nuif_s1_mask256(_mm256_cmpeq_epi8(_mm256_and_si256(k0, wsbits), zero),
                                       _mm256_cmpeq_epi8(_mm256_and_si256(k1, wsbits), zero));
        k = nuif_s1_flatten(out, k, (uint32_t)i, nuif_s1_block_clmul(bs, q, op, ws, ctrl, st));
    }
    return k;
}

NUIF_S1_T_SSSE3 static inline uint64_t nuif_s1_mask128(__m128i a, __m128i b, __m128i c, __m128i d) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(a) |
           ((uint64_t)(uint16_t)_mm_movemask_epi8(b) << 16) |
           ((uint64_t)(uint16_t)_mm_movemask_epi8(c) << 32) |
           ((uint64_t)(uint16_t)_mm_movemask_epi8(d) << 48);
}

NUIF_S1_T_SSSE3 static size_t nuif_s1_ssse3(nuif_s1_state *st, const uint8_t *p, size_t n,
                                           size_t from, size_t to, uint32_t *out) {
    size_t k = 0, i;
    uint8_t last[64];
    int j;
    const __m128i bsv = _mm_set1_epi8('\\'), qv = _mm_set1_epi8('"'), c1f = _mm_set1_epi8(0x1F);
    const __m128i lo_t = _mm_loadu_si128((const __m128i *)nuif_s1_lo_nib);
    const __m128i hi_t = _mm_loadu_si128((const __m128i *)nuif_s1_hi_nib);
    const __m128i nib = _mm_set1_epi8(0x0F), zero = _mm_setzero_si128();
    const __m128i opbits = _mm_set1_epi8(7), wsbits = _mm_set1_epi8(24);
    for (i = from; i < to; i += 64) {
        const uint8_t *b = nuif_s1_block_at(p, n, i, last);
        __m128i mb[4], mq[4], mc[4], mo[4], mw[4];
        for (j = 0; j < 4; j++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(b + 16 * j));
            __m128i cls = _mm_and_si128(
                _mm_shuffle_epi8(lo_t, _mm_and_si128(v, nib)),
                _mm_shuffle_epi8(hi_t, _mm_and_si128(_mm_srli_epi16(v, 4), nib)));
            mb[j] = _mm_cmpeq_epi8(v, bsv);
            mq[j] = _mm_cmpeq_epi8(v, qv);
            mc[j] = _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v);
            mo[j] = _mm_cmpeq_epi8(_mm_and_si128(cls, opbits), zero);
            mw[j] = _mm_cmpeq_epi8(_mm_and_si128(cls, wsbits), zero);
        }
        k = nuif_s1_flatten(
            out, k, (uint32_t)i,
            nuif_s1_block_clmul(nuif_s1_mask128(mb[0], mb[1], mb[2], mb[3]),
                                nuif_s1_mask128(mq[0], mq[1], mq[2], mq[3]),
                                ~nuif_s1_mask128(mo[0], mo[1], mo[2], mo[3]),
                                ~nuif_s1_mask128(mw[0], mw[1], mw[2], mw[3]),
                                nuif_s1_mask128(mc[0], mc[1], mc[2], mc[3]), st));
    }
    return k;
}
#else
#define NUIF_S1_X86 0
#endif

/* ---- arm64: NEON ----------------------------------------------------------------------------- */
#if !defined(NUIF_SCAN_PORTABLE) && defined(__aarch64__)
#define NUIF_S1_ARM 1
#include <arm_neon.h>

static inline uint64_t nuif_s1_neon_mask64(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d) {
    /* each byte is 0x00 or 0xFF: keep one bit per lane by position, then add pairwise */
    const uint8x16_t w = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t s0 = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
    uint8x16_t s1 = vpaddq_u8(vandq_u8(c, w), vandq_u8(d, w));
    s0 = vpaddq_u8(s0, s1);
    s0 = vpaddq_u8(s0, s0);
    return vgetq_lane_u64(vreinterpretq_u64_u8(s0), 0);
}

static size_t nuif_s1_neon(nuif_s1_state *st, const uint8_t *p, size_t n, size_t from, size_t to,
                           uint32_t *out) {
    size_t k = 0, i;
    uint8_t last[64];
    int j;
    const uint8x16_t bsv = vdupq_n_u8('\\'), qv = vdupq_n_u8('"'), c1f = vdupq_n_u8(0x1F);
    for (i = from; i < to; i += 64) {
        const uint8_t *b = nuif_s1_block_at(p, n, i, last);
        uint8x16_t m_bs[4], m_q[4], m_op[4], m_ws[4], m_ct[4];
        for (j = 0; j < 4; j++) {
            uint8x16_t x = vld1q_u8(b + 16 * j);
            m_bs[j] = vceqq_u8(x, bsv);
            m_q[j] = vceqq_u8(x, qv);
#define NUIF_S1_EQ(c) vceqq_u8(x, vdupq_n_u8(c))
            m_op[j] = vorrq_u8(vorrq_u8(vorrq_u8(NUIF_S1_EQ('{'), NUIF_S1_EQ('}')),
                                        vorrq_u8(NUIF_S1_EQ('['), NUIF_S1_EQ(']'))),
                               vorrq_u8(NUIF_S1_EQ(':'), NUIF_S1_EQ(',')));
            m_ws[j] = vorrq_u8(vorrq_u8(NUIF_S1_EQ(' '), NUIF_S1_EQ('\t')),
                               vorrq_u8(NUIF_S1_EQ('\n'), NUIF_S1_EQ('\r')));
#undef NUIF_S1_EQ
            m_ct[j] = vcleq_u8(x, c1f);
        }
        k = nuif_s1_flatten(
            out, k, (uint32_t)i,
            nuif_s1_block_portable(nuif_s1_neon_mask64(m_bs[0], m_bs[1], m_bs[2], m_bs[3]),
                                   nuif_s1_neon_mask64(m_q[0], m_q[1], m_q[2], m_q[3]),
                                   nuif_s1_neon_mask64(m_op[0], m_op[1], m_op[2], m_op[3]),
                                   nuif_s1_neon_mask64(m_ws[0], m_ws[1], m_ws[2], m_ws[3]),
                                   nuif_s1_neon_mask64(m_ct[0], m_ct[1], m_ct[2], m_ct[3]), st));
    }
    return k;
}
#else
#define NUIF_S1_ARM 0
#endif

/* ---- choosing a route ------------------------------------------------------------------------ */

/* The best route this CPU runs. */
static inline int nuif_s1_route(void) {
#if NUIF_S1_X86
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("pclmul")) {
        return NUIF_S1_PORTABLE;
    }
    if (__builtin_cpu_supports("avx2")) {
        return NUIF_S1_AVX2;
    }
    if (__builtin_cpu_supports("ssse3")) {
        return NUIF_S1_SSSE3;
    }
    return NUIF_S1_PORTABLE;
#elif NUIF_S1_ARM
    return NUIF_S1_NEON;
#else
    return NUIF_S1_PORTABLE;
#endif
}

/* 1 when this build has the route and this CPU runs it (tests switch among these). */
static inline int nuif_s1_route_runs(int route) {
    if (route == NUIF_S1_PORTABLE) {
        return 1;
    }
#if NUIF_S1_X86
    __builtin_cpu_init();
    if (route == NUIF_S1_AVX2) {
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
    }
    if (route == NUIF_S1_SSSE3) {
        return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("pclmul");
    }
#endif
#if NUIF_S1_ARM
    if (route == NUIF_S1_NEON) {
        return 1;
    }
#endif
    return 0;
}

/* Index the blocks of p[0:n) from `from` (a multiple of 64) up to `to` (a multiple of 64, or
 * n); returns how many entries were written to out (which holds to - from + NUIF_S1_SLACK). */
static inline size_t nuif_s1_chunk(int route, nuif_s1_state *st, const uint8_t *p, size_t n,
                                   size_t from, size_t to, uint32_t *out) {
#if NUIF_S1_X86
    if (route == NUIF_S1_AVX2) {
        return nuif_s1_avx2(st, p, n, from, to, out);
    }
    if (route == NUIF_S1_SSSE3) {
        return nuif_s1_ssse3(st, p, n, from, to, out);
    }
#endif
#if NUIF_S1_ARM
    if (route == NUIF_S1_NEON) {
        return nuif_s1_neon(st, p, n, from, to, out);
    }
#endif
    (void)route;
    return nuif_s1_portable(st, p, n, from, to, out);
}

#endif
