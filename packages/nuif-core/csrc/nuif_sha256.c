/* See nuif_sha256.h.  The portable block function follows FIPS 180-4 §6.2.2 directly.  The
 * SHA-NI one keeps the state as the two vectors the instructions take (ABEF and CDGH) and runs
 * 16 steps of four rounds: each step's four message words are made from the four before by
 * sha256msg1/msg2 (the schedule's sigma0 and sigma1 terms) plus the words seven back, then
 * sha256rnds2 does two rounds twice.  The ARMv8 one is the same 16 steps with the SHA-2
 * instructions of the ARMv8 Cryptographic Extension. */
#include "nuif_sha256.h"

#include <string.h>

static const uint32_t nuif_sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/* the 16 steps unrolled: their message vectors then live in registers (GCC leaves the loop
 * rolled at -O3, at 80 % of the speed) */
#if defined(__GNUC__) || defined(__clang__)
#define NUIF_SHA_UNROLL _Pragma("GCC unroll 16")
#else
#define NUIF_SHA_UNROLL
#endif

typedef void (*nuif_sha_blocks_fn)(uint32_t h[8], const uint8_t *p, size_t blocks);

#define NUIF_ROR(x, r) (((x) >> (r)) | ((x) << (32 - (r))))

static void nuif_sha_blocks_portable(uint32_t h[8], const uint8_t *p, size_t blocks) {
    uint32_t w[64], a, b, c, d, e, f, g, k, t1, t2;
    int i;
    for (; blocks; blocks--, p += 64) {
        for (i = 0; i < 16; i++) {
            w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
                   (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
        }
        for (i = 16; i < 64; i++) {
            t1 = NUIF_ROR(w[i - 2], 17) ^ NUIF_ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
            t2 = NUIF_ROR(w[i - 15], 7) ^ NUIF_ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
            w[i] = t1 + w[i - 7] + t2 + w[i - 16];
        }
        a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (i = 0; i < 64; i++) {
            t1 = k + (NUIF_ROR(e, 6) ^ NUIF_ROR(e, 11) ^ NUIF_ROR(e, 25)) + ((e & f) ^ (~e & g)) +
                 nuif_sha_k[i] + w[i];
            t2 = (NUIF_ROR(a, 2) ^ NUIF_ROR(a, 13) ^ NUIF_ROR(a, 22)) +
                 ((a & b) ^ (a & c) ^ (b & c));
            k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
    }
}

#if !defined(NUIF_SHA256_PORTABLE) && (defined(__x86_64__) || defined(_M_X64)) &&                  \
    (defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER))
#define NUIF_SHA_NI 1
#include <immintrin.h>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define NUIF_SHA_TARGET
#else
#include <cpuid.h>
#define NUIF_SHA_TARGET __attribute__((target("sha,ssse3,sse4.1")))
#endif

static int nuif_sha_cpu_has_ni(void) {
    unsigned b7 = 0, c1 = 0;
#if defined(_MSC_VER) && !defined(__clang__)
    int r[4];
    __cpuid(r, 0);
    if (r[0] < 7) return 0;
    __cpuid(r, 1);
    c1 = (unsigned)r[2];
    __cpuidex(r, 7, 0);
    b7 = (unsigned)r[1];
#else
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid(1, a, b, c, d);
    c1 = c;
    __cpuid_count(7, 0, a, b, c, d);
    b7 = b;
#endif
    /* SHA (leaf 7 EBX bit 29), SSSE3 (leaf 1 ECX bit 9), SSE4.1 (bit 19) */
    return (b7 >> 29 & 1) && (c1 >> 9 & 1) && (c1 >> 19 & 1);
}

NUIF_SHA_TARGET static void nuif_sha_blocks_ni(uint32_t h[8], const uint8_t *p, size_t blocks) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abef, cdgh, abef0, cdgh0, t, m[4];
    int i;
    /* h[0..3] = A B C D and h[4..7] = E F G H, lane 0 first, into ABEF and CDGH (lane 3 first) */
    t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xB1);
    cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1B);
    abef = _mm_alignr_epi8(t, cdgh, 8);
    cdgh = _mm_blend_epi16(cdgh, t, 0xF0);
    for (; blocks; blocks--, p += 64) {
        abef0 = abef;
        cdgh0 = cdgh;
        NUIF_SHA_UNROLL for (i = 0; i < 16; i++) {
            if (i < 4) {
                m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
            } else { /* W[4i..4i+3] from m[i-4], m[i-3], m[i-2], m[i-1] */
                t = _mm_sha256msg1_epu32(m[i & 3], m[(i + 1) & 3]);
                t = _mm_add_epi32(t, _mm_alignr_epi8(m[(i + 3) & 3], m[(i + 2) & 3], 4));
                m[i & 3] = _mm_sha256msg2_epu32(t, m[(i + 3) & 3]);
            }
            t = _mm_add_epi32(m[i & 3], _mm_loadu_si128((const __m128i *)(nuif_sha_k + 4 * i)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, t);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(t, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    t = _mm_shuffle_epi32(abef, 0x1B);
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)h, _mm_blend_epi16(t, cdgh, 0xF0));
    _mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(cdgh, t, 8));
}
#else
#define NUIF_SHA_NI 0
#endif

#if !defined(NUIF_SHA256_PORTABLE) && (defined(__aarch64__) || defined(_M_ARM64)) &&               \
    (defined(__ARM_FEATURE_SHA2) || defined(__ARM_FEATURE_CRYPTO) ||                               \
     ((defined(__linux__) || defined(__APPLE__)) && (defined(__GNUC__) || defined(__clang__))))
#define NUIF_SHA_ARM 1
#include <arm_neon.h>
#if defined(__ARM_FEATURE_SHA2) || defined(__ARM_FEATURE_CRYPTO)
#define NUIF_SHA_ARM_TARGET
static int nuif_sha_cpu_has_arm(void) { return 1; }
#elif defined(__APPLE__) /* every Apple arm64 CPU has the SHA-2 instructions */
#define NUIF_SHA_ARM_TARGET __attribute__((target("sha2")))
static int nuif_sha_cpu_has_arm(void) { return 1; }
#else /* Linux: the kernel says (HWCAP_SHA2) */
#include <sys/auxv.h>
#if defined(__clang__)
#define NUIF_SHA_ARM_TARGET __attribute__((target("sha2")))
#else
#define NUIF_SHA_ARM_TARGET __attribute__((target("+crypto")))
#endif
static int nuif_sha_cpu_has_arm(void) { return (getauxval(AT_HWCAP) >> 6) & 1; }
#endif

/* The ARMv8 SHA-2 instructions keep the state as ABCD and EFGH; sha256su0/su1 make four
 * message words from the four vectors before, sha256h/h2 run four rounds. */
NUIF_SHA_ARM_TARGET static void nuif_sha_blocks_arm(uint32_t h[8], const uint8_t *p,
                                                    size_t blocks) {
    uint32x4_t abcd = vld1q_u32(h), efgh = vld1q_u32(h + 4), abcd0, efgh0, t, was, m[4];
    int i;
    for (; blocks; blocks--, p += 64) {
        abcd0 = abcd;
        efgh0 = efgh;
        NUIF_SHA_UNROLL for (i = 0; i < 16; i++) {
            if (i < 4) {
                m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * i)));
            } else { /* W[4i..4i+3] from m[i-4], m[i-3], m[i-2], m[i-1] */
                m[i & 3] = vsha256su1q_u32(vsha256su0q_u32(m[i & 3], m[(i + 1) & 3]),
                                           m[(i + 2) & 3], m[(i + 3) & 3]);
            }
            t = vaddq_u32(m[i & 3], vld1q_u32(nuif_sha_k + 4 * i));
            was = abcd;
            abcd = vsha256hq_u32(abcd, efgh, t);
            efgh = vsha256h2q_u32(efgh, was, t);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
    }
    vst1q_u32(h, abcd);
    vst1q_u32(h + 4, efgh);
}
#else
#define NUIF_SHA_ARM 0
#endif

static nuif_sha_blocks_fn nuif_sha_blocks = nuif_sha_blocks_portable;

void nuif_sha256_setup(int portable) {
    nuif_sha_blocks = nuif_sha_blocks_portable;
    if (portable) return;
#if NUIF_SHA_NI
    if (nuif_sha_cpu_has_ni()) nuif_sha_blocks = nuif_sha_blocks_ni;
#endif
#if NUIF_SHA_ARM
    if (nuif_sha_cpu_has_arm()) nuif_sha_blocks = nuif_sha_blocks_arm;
#endif
}

const char *nuif_sha256_route(void) {
#if NUIF_SHA_NI
    if (nuif_sha_blocks == nuif_sha_blocks_ni) return "sha-ni";
#endif
#if NUIF_SHA_ARM
    if (nuif_sha_blocks == nuif_sha_blocks_arm) return "armv8";
#endif
    return "portable";
}

void nuif_sha256_init(nuif_sha256_ctx *c) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof(h0));
    c->len = 0;
    c->fill = 0;
}

void nuif_sha256_update(nuif_sha256_ctx *c, const void *data, size_t n) {
    const uint8_t *p = (const uint8_t *)data;
    size_t take;
    c->len += n;
    if (c->fill) {
        take = 64 - c->fill < n ? 64 - c->fill : n;
        memcpy(c->buf + c->fill, p, take);
        c->fill += take;
        p += take;
        n -= take;
        if (c->fill < 64) return;
        nuif_sha_blocks(c->h, c->buf, 1);
        c->fill = 0;
    }
    if (n >= 64) {
        nuif_sha_blocks(c->h, p, n / 64);
        p += n & ~(size_t)63;
        n &= 63;
    }
    if (n) memcpy(c->buf, p, n);
    c->fill = n;
}

void nuif_sha256_final(nuif_sha256_ctx *c, uint8_t out[32]) {
    uint64_t bits = c->len * 8;
    int i;
    c->buf[c->fill++] = 0x80;
    if (c->fill > 56) {
        memset(c->buf + c->fill, 0, 64 - c->fill);
        nuif_sha_blocks(c->h, c->buf, 1);
        c->fill = 0;
    }
    memset(c->buf + c->fill, 0, 56 - c->fill);
    for (i = 0; i < 8; i++) c->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    nuif_sha_blocks(c->h, c->buf, 1);
    for (i = 0; i < 32; i++) out[i] = (uint8_t)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

void nuif_sha256(const void *p, size_t n, uint8_t out[32]) {
    nuif_sha256_ctx c;
    nuif_sha256_init(&c);
    nuif_sha256_update(&c, p, n);
    nuif_sha256_final(&c, out);
}
