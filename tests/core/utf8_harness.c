/* The vector routes of packages/nuif-core/csrc/nuif_utf8.h against the scalar route, in C.
 *
 * Built and run by tests/core/test_utf8_harness.py: natively (on x86-64 the SSSE3 and AVX2 routes
 * the CPU has), cross-compiled with aarch64-linux-gnu-gcc -static, under qemu-aarch64 (the
 * NEON route, and the NEON block functions driven the way a caller such as stage 1 drives them),
 * and compiled for wasm32-wasi with SIMD128 by zig, under wasmtime (the SIMD128 route).
 *
 *   utf8_harness [--fail-fast] [FILE...]
 *
 * Every input is judged four ways that must agree: an independent decoder written here (code
 * point by code point: shortest form, no surrogate, nothing above U+10FFFF: the verdict of
 * Python's strict decoder), the header's exact locator (nuif_utf8_first_bad), its scalar check
 * (nuif_utf8_valid_scalar), and every vector route this CPU and build run.  The inputs:
 *
 *   - every named sequence class (valid extremes, overlong forms, surrogates, code points above
 *     U+10FFFF, F5..FF, stray and surplus continuation bytes, cut sequences, lead after lead) at
 *     every offset of inputs of 1..200 bytes, in ASCII and in mixed 1- to 4-byte text, so that it
 *     sits before, on and after every 16-, 32- and 64-byte block boundary and at the end;
 *   - every 2-byte string (all 65,536) at offsets around the 16/32/64-byte boundaries;
 *   - every 4-byte string over 27 boundary byte values (531,441), each at a boundary offset;
 *   - every valid 2-, 3- and 4-byte character cut by the end of inputs of 1..200 bytes;
 *   - random text (long ASCII runs between characters of every length) with seeded mutations;
 *   - each FILE as it is, shifted by 0..15 bytes, and with seeded mutations (half of them next to
 *     a block boundary), bounded per file by its size.
 *
 * Each input is copied so that its last byte is the last byte before an inaccessible page (in
 * WebAssembly: the last byte of the linear memory): a route that reads past p[0:n) crashes the
 * harness.  It prints
 *   utf8 harness: N cases, routes (R1, R2, ...), best NAME, M mismatches
 * and exits 1 when M > 0 (the first mismatches are described on stderr; with --fail-fast it
 * stops at the first input with a mismatch).
 *
 * Planted bugs (the test builds them to prove the harness fails): -DNUIF_UTF8_FAULT_SURROGATE
 * lets ED A0..BF through in every vector route; -DNUIF_UTF8_FAULT_NEON_CARRY makes the NEON block
 * forget the block before it.
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef __wasm__
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "nuif_utf8.h"

/* ---- the independent reference ------------------------------------------------------------ */

static int ref_valid(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t c = p[i], cp, min;
        size_t len, k;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return 0;
        }
        if (n - i < len) {
            return 0;
        }
        for (k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80) {
                return 0;
            }
            cp = (cp << 6) | (p[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return 0;
        }
        i += len;
    }
    return 1;
}

/* ---- the routes under test ------------------------------------------------------------------ */

#if NUIF_UTF8_ARM64
/* The NEON blocks driven the way a 64-bytes-per-step caller (stage 1) drives them: four blocks per
 * step, no ASCII skip, the last partial step zero-padded, "open" settled by the next block. */
static int neon_blocks_valid(const uint8_t *p, size_t n) {
    const nuif_u8_kneon k = nuif_u8_consts_neon();
    uint8x16_t prev = vdupq_n_u8(0), err = vdupq_n_u8(0);
    uint8_t last[64];
    size_t i, j;
    for (i = 0; i < n; i += 64) {
        const uint8_t *b = p + i;
        if (n - i < 64) {
            memset(last, 0, sizeof last);
            memcpy(last, b, n - i);
            b = last;
        }
        for (j = 0; j < 64; j += 16) {
            uint8x16_t v = vld1q_u8(b + j);
            err = vorrq_u8(err, nuif_u8_block_neon(v, prev, &k));
            prev = v;
        }
    }
    /* an input that ends inside a sequence at a 64-byte boundary: one zero block settles it */
    err = vorrq_u8(err, nuif_u8_open_neon(prev));
    return vmaxvq_u8(err) == 0;
}
#endif

typedef struct {
    const char *name;
    int route; /* a NUIF_UTF8_* route, or -1: neon_blocks_valid */
} route_t;

static const char *route_name(int r) {
    static const char *known[] = {"scalar", "ssse3", "avx2", "neon", "simd128"};
    return r >= 0 && r < 5 ? known[r] : "?";
}

static route_t routes[4];
static int n_routes;

static void pick_routes(void) {
#if NUIF_UTF8_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("ssse3")) {
        routes[n_routes++] = (route_t){"ssse3", NUIF_UTF8_SSSE3};
    }
    if (__builtin_cpu_supports("avx2")) {
        routes[n_routes++] = (route_t){"avx2", NUIF_UTF8_AVX2};
    }
#elif NUIF_UTF8_ARM64
    routes[n_routes++] = (route_t){"neon", NUIF_UTF8_NEON};
    routes[n_routes++] = (route_t){"neon-blocks", -1};
#elif NUIF_UTF8_WASM
    routes[n_routes++] = (route_t){"simd128", NUIF_UTF8_SIMD128};
#endif
}

static int run_route(const route_t *r, const uint8_t *p, size_t n) {
#if NUIF_UTF8_ARM64
    if (r->route < 0) {
        return neon_blocks_valid(p, n);
    }
#endif
    return nuif_utf8_valid(p, n, r->route);
}

/* ---- the check ------------------------------------------------------------------------------ */

#define MAX_INPUT (1u << 20)

static uint8_t *guard_end; /* the first byte of an inaccessible page */
static size_t n_cases, n_bad;
static int fail_fast;
static char names[128] = "scalar"; /* the routes, for the summary */

static void summary(void) {
    printf("utf8 harness: %zu cases, routes (%s), best %s, %zu mismatches\n", n_cases, names,
           route_name(nuif_utf8_route()), n_bad);
}

static void describe(const char *what, const char *route, int got, int want, const uint8_t *p,
                     size_t n) {
    size_t i;
    if (n_bad > 12) {
        return;
    }
    fprintf(stderr, "MISMATCH %s: %s says %s, the reference %s; %zu bytes:", what, route,
            got ? "valid" : "invalid", want ? "valid" : "invalid", n);
    for (i = 0; i < n && i < 200; i++) {
        fprintf(stderr, " %02x", p[i]);
    }
    fprintf(stderr, n > 200 ? " ...\n" : "\n");
}

static void check(const uint8_t *src, size_t n, const char *what) {
    uint8_t *p = guard_end - n;
    int want, got, i;
    if (n > MAX_INPUT) {
        fprintf(stderr, "input too large for the harness (%zu bytes): %s\n", n, what);
        exit(2);
    }
    memmove(p, src, n);
    n_cases++;
    want = ref_valid(p, n);
    got = nuif_utf8_first_bad(p, (ptrdiff_t)n) < 0;
    if (got != want) {
        describe(what, "nuif_utf8_first_bad", got, want, p, n);
        n_bad++;
    }
    got = nuif_utf8_valid_scalar(p, (ptrdiff_t)n);
    if (got != want) {
        describe(what, "scalar", got, want, p, n);
        n_bad++;
    }
    for (i = 0; i < n_routes; i++) {
        got = run_route(&routes[i], p, n);
        if (got != want) {
            describe(what, routes[i].name, got, want, p, n);
            n_bad++;
        }
    }
    if (fail_fast && n_bad) {
        summary();
        exit(1);
    }
}

/* ---- inputs ------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return (size_t)(rnd() % n); }

/* 27 byte values at the edges of every class: ASCII, continuation ranges, every special lead */
static const uint8_t B[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                            0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF};
#define NB (sizeof B / sizeof B[0])

/* offsets that put a spot before, on and after the 16-, 32-, 64- and 128-byte boundaries */
static const size_t AT[] = {0,  1,  2,  13, 14, 15, 16, 17, 29, 30, 31,  32,  33,  45,
                            46, 47, 48, 61, 62, 63, 64, 65, 66, 77, 78, 79,  80,  125,
                            126, 127, 128, 129};
#define NAT (sizeof AT / sizeof AT[0])

typedef struct {
    const char *name;
    const char *bytes;
} spot_t;

static const spot_t SPOTS[] = {
    /* valid extremes */
    {"U+0000", "\x00"}, {"U+007F", "\x7f"}, {"C2 80", "\xc2\x80"}, {"DF BF", "\xdf\xbf"},
    {"E0 A0 80", "\xe0\xa0\x80"}, {"E1 80 80", "\xe1\x80\x80"}, {"EC BF BF", "\xec\xbf\xbf"},
    {"ED 80 80", "\xed\x80\x80"}, {"ED 9F BF", "\xed\x9f\xbf"}, {"EE 80 80", "\xee\x80\x80"},
    {"EF BF BF", "\xef\xbf\xbf"}, {"F0 90 80 80", "\xf0\x90\x80\x80"},
    {"F1 80 80 80", "\xf1\x80\x80\x80"}, {"F3 BF BF BF", "\xf3\xbf\xbf\xbf"},
    {"F4 80 80 80", "\xf4\x80\x80\x80"}, {"F4 8F BF BF", "\xf4\x8f\xbf\xbf"},
    /* overlong forms */
    {"C0 80", "\xc0\x80"}, {"C1 BF", "\xc1\xbf"}, {"E0 80 80", "\xe0\x80\x80"},
    {"E0 9F BF", "\xe0\x9f\xbf"}, {"F0 80 80 80", "\xf0\x80\x80\x80"},
    {"F0 8F BF BF", "\xf0\x8f\xbf\xbf"},
    /* surrogates */
    {"ED A0 80", "\xed\xa0\x80"}, {"ED AF BF", "\xed\xaf\xbf"}, {"ED B0 80", "\xed\xb0\x80"},
    {"ED BF BF", "\xed\xbf\xbf"},
    /* above U+10FFFF, and bytes that never occur */
    {"F4 90 80 80", "\xf4\x90\x80\x80"}, {"F4 BF BF BF", "\xf4\xbf\xbf\xbf"},
    {"F5 80 80 80", "\xf5\x80\x80\x80"}, {"F7 BF BF BF", "\xf7\xbf\xbf\xbf"},
    {"F8 88 80 80 80", "\xf8\x88\x80\x80\x80"}, {"FC 84 80 80 80 80", "\xfc\x84\x80\x80\x80\x80"},
    {"FE", "\xfe"}, {"FF", "\xff"},
    /* stray and surplus continuation bytes */
    {"80", "\x80"}, {"BF", "\xbf"}, {"C3 A9 80", "\xc3\xa9\x80"},
    {"E2 82 AC 80", "\xe2\x82\xac\x80"}, {"F0 9F 98 80 80", "\xf0\x9f\x98\x80\x80"},
    /* cut sequences, and a lead after a lead */
    {"C3", "\xc3"}, {"E2", "\xe2"}, {"E2 82", "\xe2\x82"}, {"F0", "\xf0"}, {"F0 9F", "\xf0\x9f"},
    {"F0 9F 98", "\xf0\x9f\x98"}, {"C3 C3 A9", "\xc3\xc3\xa9"}, {"E2 E2 82 AC", "\xe2\xe2\x82\xac"},
    {"F0 9F E2 82 AC", "\xf0\x9f\xe2\x82\xac"},
};
#define NSPOTS (sizeof SPOTS / sizeof SPOTS[0])

/* spot lengths: a spot's bytes may hold 00 (U+0000), so each length is given by its name */
static size_t spot_len(const spot_t *s) {
    if (strcmp(s->name, "U+0000") == 0) {
        return 1;
    }
    return strlen(s->bytes);
}

/* valid text of exactly n bytes made of the filler's characters (ASCII to top up) */
static void fill(uint8_t *out, size_t n, int mixed) {
    static const char *chars[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                  "\xce\xa9", "\xd0\xb6", "\xe4\xb8\xad"};
    size_t i = 0, k = 0, L;
    while (mixed && i < n) {
        const char *c = chars[k++ % 7];
        L = strlen(c);
        if (i + L > n) {
            break;
        }
        memcpy(out + i, c, L);
        i += L;
    }
    memset(out + i, 'a', n - i);
}

static uint8_t work[MAX_INPUT];

static void every_spot_at_every_offset(void) {
    size_t s, n, at, L;
    int mixed;
    uint8_t spot[8];
    for (s = 0; s < NSPOTS; s++) {
        L = spot_len(&SPOTS[s]);
        memcpy(spot, SPOTS[s].bytes, L);
        for (mixed = 0; mixed < 2; mixed++) {
            for (n = 1; n <= 200; n++) {
                for (at = 0; at < n; at++) {
                    /* filler before, the spot, filler after; cut at n when the spot is longer */
                    fill(work, at, mixed);
                    memcpy(work + at, spot, L);
                    if (at + L < n) {
                        fill(work + at + L, n - at - L, mixed);
                    }
                    check(work, n, SPOTS[s].name);
                }
            }
        }
    }
}

static void every_pair_at_the_boundaries(void) {
    size_t a, b, j, tail;
    static const size_t TAIL[] = {0, 1, 2, 3, 17, 40};
    for (a = 0; a < 256; a++) {
        for (b = 0; b < 256; b++) {
            for (j = 0; j < NAT; j += 1) {
                tail = TAIL[(a + b + j) % 6];
                fill(work, AT[j], (int)((a ^ b ^ j) & 1));
                work[AT[j]] = (uint8_t)a;
                work[AT[j] + 1] = (uint8_t)b;
                fill(work + AT[j] + 2, tail, (int)(j & 1));
                check(work, AT[j] + 2 + tail, "pair");
            }
        }
    }
}

static void every_boundary_quad(void) {
    size_t a, b, c, d, i = 0, at, tail;
    for (a = 0; a < NB; a++) {
        for (b = 0; b < NB; b++) {
            for (c = 0; c < NB; c++) {
                for (d = 0; d < NB; d++, i++) {
                    at = AT[i % NAT];
                    tail = (i / NAT) % 5;
                    fill(work, at, (int)((i / 7) & 1));
                    work[at] = B[a];
                    work[at + 1] = B[b];
                    work[at + 2] = B[c];
                    work[at + 3] = B[d];
                    fill(work + at + 4, tail, 0);
                    check(work, at + 4 + tail, "quad");
                }
            }
        }
    }
}

static void every_cut_character_at_the_end(void) {
    static const char *full[] = {"\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe2\x82\xac",
                                 "\xed\x9f\xbf", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
                                 "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf"};
    size_t f, cut, n, L;
    int mixed;
    for (f = 0; f < sizeof full / sizeof full[0]; f++) {
        L = strlen(full[f]);
        for (cut = 1; cut <= L; cut++) { /* cut == L: the whole character, valid */
            for (mixed = 0; mixed < 2; mixed++) {
                for (n = cut; n <= 200; n++) {
                    fill(work, n - cut, mixed);
                    memcpy(work + n - cut, full[f], cut);
                    check(work, n, "cut at the end");
                }
            }
        }
    }
}

/* one random character of 1..4 bytes (valid), written at w; its length */
static size_t random_char(uint8_t *w) {
    uint32_t cp;
    switch (below(4)) {
    case 0:
        cp = (uint32_t)below(0x80);
        break;
    case 1:
        cp = 0x80 + (uint32_t)below(0x800 - 0x80);
        break;
    case 2:
        do {
            cp = 0x800 + (uint32_t)below(0x10000 - 0x800);
        } while (cp >= 0xD800 && cp <= 0xDFFF);
        break;
    default:
        cp = 0x10000 + (uint32_t)below(0x110000 - 0x10000);
        break;
    }
    return (size_t)nuif_utf8_put(w, cp);
}

static void mutate(uint8_t *p, size_t n) {
    size_t k, m = 1 + below(3), i;
    for (k = 0; k < m && n > 0; k++) {
        /* half the time next to a 16-byte boundary (the 64-byte ones included) */
        i = below(2) ? below(n) : ((below(n) & ~(size_t)15) + below(6) + n - 3) % n;
        p[i] = below(2) ? B[below(NB)] : (uint8_t)rnd();
    }
}

static void random_texts(size_t count) {
    size_t t, n, run;
    for (t = 0; t < count; t++) {
        size_t target = 1 + below(t % 10 == 0 ? 4000 : 400);
        n = 0;
        while (n < target) {
            if (below(3) == 0) { /* an ASCII run, sometimes long enough to skip 64-byte blocks */
                run = below(below(4) == 0 ? 200 : 20);
                memset(work + n, 'x', run);
                n += run;
            } else {
                n += random_char(work + n);
            }
        }
        check(work, n, "random text");
        mutate(work, n);
        check(work, n, "random text, mutated");
    }
}

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long size;
    if (!f) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* the file as it is, shifted by 0..15 bytes of ASCII, and with seeded mutations (at most ~2 MiB of
 * mutated input per file, and at most 60 mutations) */
static int file_cases(const char *path) {
    size_t n, shift, m, count;
    uint8_t *data = read_file(path, &n);
    if (!data) {
        fprintf(stderr, "cannot read %s\n", path);
        return 0;
    }
    if (n + 16 > MAX_INPUT) {
        fprintf(stderr, "%s is larger than the harness takes (%zu bytes)\n", path, n);
        free(data);
        return 0;
    }
    for (shift = 0; shift < 16; shift++) {
        memset(work, ' ', shift);
        memcpy(work + shift, data, n);
        check(work, n + shift, path);
    }
    count = n == 0 ? 0 : (2u << 20) / n;
    count = count > 60 ? 60 : count;
    for (m = 0; m < count; m++) {
        shift = below(16);
        memset(work, ' ', shift);
        memcpy(work + shift, data, n);
        mutate(work + shift, n);
        check(work, n + shift, path);
    }
    free(data);
    return 1;
}

/* ---- the route selection -------------------------------------------------------------------- */

/* nuif_utf8_route() is the fastest route the harness found, and nuif_utf8_route_runs() allows
 * exactly the scalar route and the routes found */
static void check_selection(void) {
    int r, found;
    int best = nuif_utf8_route(), want_best = NUIF_UTF8_SCALAR;
    for (r = 0; r < n_routes; r++) {
        if (routes[r].route >= 0) {
            want_best = routes[r].route; /* listed slowest first */
        }
    }
    n_cases++;
    if (best != want_best) {
        fprintf(stderr, "MISMATCH nuif_utf8_route() is %s, expected %s\n", route_name(best),
                route_name(want_best));
        n_bad++;
    }
    for (r = 0; r < 5; r++) {
        int i;
        found = r == NUIF_UTF8_SCALAR;
        for (i = 0; i < n_routes; i++) {
            found |= routes[i].route == r;
        }
        n_cases++;
        if (nuif_utf8_route_runs(r) != found) {
            fprintf(stderr, "MISMATCH nuif_utf8_route_runs(%s) is %d\n", route_name(r),
                    nuif_utf8_route_runs(r));
            n_bad++;
        }
    }
}

int main(int argc, char **argv) {
#ifdef __wasm__
    long page = 65536;
#else
    long page = sysconf(_SC_PAGESIZE);
#endif
    size_t span = MAX_INPUT + (size_t)page;
    uint8_t *mem;
    int a, first = 1;

#ifdef __wasm__
    /* inputs end at the end of the linear memory, past which a load traps: the memory is grown
     * by span bytes last, after malloc has been given room for every later allocation (a file's
     * bytes, stdio's buffers), so that nothing is placed beyond it */
    free(malloc((size_t)16 << 20));
    {
        size_t pages = (span + 65535) / 65536;
        size_t old = __builtin_wasm_memory_grow(0, pages);
        if (old == (size_t)-1) {
            perror("memory.grow");
            return 2;
        }
        mem = (uint8_t *)((old + pages) * 65536 - span);
    }
#else
    /* inputs end right before a page that may not be read */
    mem = mmap(NULL, span + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
               0);
    if (mem == MAP_FAILED || mprotect(mem + span, (size_t)page, PROT_NONE) != 0) {
        perror("mmap");
        return 2;
    }
#endif
    guard_end = mem + span;

    nuif_utf8_init();
    pick_routes();
    for (a = 0; a < n_routes; a++) {
        strcat(names, ", ");
        strcat(names, routes[a].name);
    }
    if (argc > 1 && strcmp(argv[1], "--fail-fast") == 0) {
        fail_fast = 1;
        first = 2;
    }
    check_selection();
    every_spot_at_every_offset();
    every_pair_at_the_boundaries();
    every_boundary_quad();
    every_cut_character_at_the_end();
    random_texts(20000);
    for (a = first; a < argc; a++) {
        if (!file_cases(argv[a])) {
            return 2;
        }
    }
    summary();
    return n_bad ? 1 : 0;
}
