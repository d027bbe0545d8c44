/* The stage-1 harness of issue 21: checks every compiled route of stage1.c against s1_ref, then
 * measures them, simdjson (when built with HAVE_SIMDJSON) and the baselines, interleaved.
 *
 *   harness selftest [FILE|any:FILE...]  tricky cases + bounded mutations + FILEs; exit 1 on
 *                                     any mismatch (index or verdict) or wrong expected verdict
 *   harness bench RUNS LABEL=FILE...  one line per (input, method): median/min/max GB/s */
#define _POSIX_C_SOURCE 200809L
#include "stage1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_OPENSSL
#include <openssl/evp.h>
#endif
#if defined(__x86_64__)
#include "nuif_utf8.h"
#endif

#ifdef HAVE_SIMDJSON
void *sj_new(size_t capacity);
void sj_free(void *ctx);
const char *sj_impl_name(void);
int sj_stage1(void *ctx, const uint8_t *p, size_t n, const uint32_t **idx, size_t *count);
int sj_parse(void *ctx, const uint8_t *p, size_t n);
#endif

#define PAD 128 /* readable bytes past every input (simdjson needs 64) */

typedef struct {
    const char *name;
    s1_fn fn;
} route;

static route routes[5];
static int n_routes = 0;

static void init_routes(void) {
    routes[n_routes++] = (route){"portable", s1_portable};
#if defined(__x86_64__)
    if (s1_have_ssse3()) routes[n_routes++] = (route){"ssse3", s1_ssse3};
    if (s1_have_avx2()) routes[n_routes++] = (route){"avx2", s1_avx2};
#endif
#if defined(__aarch64__)
    routes[n_routes++] = (route){"neon", s1_neon};
#endif
}

static uint8_t *padded_copy(const uint8_t *p, size_t n) {
    uint8_t *b = malloc(n + PAD);
    if (!b) { perror("malloc"); exit(2); }
    memcpy(b, p, n);
    memset(b + n, 0, PAD);
    return b;
}

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + PAD);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) { perror(path); exit(2); }
    fclose(f);
    memset(b + len, 0, PAD);
    *n = (size_t)len;
    return b;
}

/* ---- selftest ----------------------------------------------------------------------------- */

static long n_cases = 0, n_bad = 0;

/* expect: -1 don't care (only agreement), else S1_OK / S1_REFUSE */
#define REPORT (n_bad < 20)
static void check(const char *what, const uint8_t *src, size_t n, int expect) {
    uint8_t *p = padded_copy(src, n);
    uint32_t *ref = malloc((n + 72) * sizeof(uint32_t));
    uint32_t *got = malloc((n + 72) * sizeof(uint32_t));
    size_t nref = 0, ngot = 0;
    int vref = s1_ref(p, n, ref, &nref);
    n_cases++;
    if (expect >= 0 && vref != expect) {
        if (REPORT) fprintf(stderr, "FAIL %s: reference says %s, expected %s\n", what,
                vref ? "refuse" : "ok", expect ? "refuse" : "ok");
        n_bad++;
    }
    for (int r = 0; r < n_routes; r++) {
        int v = routes[r].fn(p, n, got, &ngot);
        if (v != vref) {
            if (REPORT) fprintf(stderr, "FAIL %s: %s says %s, reference %s\n", what, routes[r].name,
                    v ? "refuse" : "ok", vref ? "refuse" : "ok");
            n_bad++;
        } else if (v == S1_OK && (ngot != nref || memcmp(got, ref, nref * sizeof(uint32_t)))) {
            size_t i = 0;
            while (i < nref && i < ngot && got[i] == ref[i]) i++;
            if (REPORT)
                fprintf(stderr, "FAIL %s: %s index differs at entry %zu (%zu vs %zu entries; "
                    "got %ld, reference %ld)\n", what, routes[r].name, i, ngot, nref,
                    i < ngot ? (long)got[i] : -1L, i < nref ? (long)ref[i] : -1L);
            n_bad++;
        }
    }
    free(p); free(ref); free(got);
}

/* a string value whose body starts so that byte `at` of the document is `body[0]` */
static size_t doc_at(uint8_t *buf, size_t at, const char *body, size_t blen, const char *after) {
    size_t k = 0;
    const char *head = "{\"k\":\"";
    memcpy(buf, head, 6); k = 6;
    while (k < at) buf[k++] = 'a';
    memcpy(buf + k, body, blen); k += blen;
    size_t alen = strlen(after);
    memcpy(buf + k, after, alen); k += alen;
    return k;
}

static void tricky(void) {
    uint8_t buf[512];
    char what[96];
    static const struct { const char *body; size_t len; const char *after; int expect; } cases[] = {
        {"\\\"x", 3, "\",\"z\":[1, 2]}", S1_OK},          /* escaped quote */
        {"\\\\", 2, "\",\"z\":true}", S1_OK},             /* even run, then closing quote */
        {"\\\\\\\"", 4, "\" , \"z\": null}", S1_OK},      /* odd run of 3 escapes the quote */
        {"\\\\\\\\\\\\\\\\", 8, "\"}", S1_OK},            /* run of 8 */
        {"\\\\\\\\\\\\\\\"", 8, "\"}", S1_OK},            /* run of 7 + escaped quote */
        {"\xc3\xa9", 2, "\"}", S1_OK},                    /* é across a boundary */
        {"\xe2\x82\xac", 3, "\"}", S1_OK},                /* € */
        {"\xf0\x9f\x98\x80", 4, "\"}", S1_OK},            /* 😀 */
        {"\xef\xbf\xbd\xf4\x8f\xbf\xbf", 7, "\"}", S1_OK},/* U+FFFD, U+10FFFF */
        {"\xc3", 1, "\"}", S1_REFUSE},                    /* cut 2-byte sequence */
        {"\xe2\x82", 2, "\"}", S1_REFUSE},                /* cut 3-byte */
        {"\xc0\x80", 2, "\"}", S1_REFUSE},                /* overlong */
        {"\xe0\x80\x80", 3, "\"}", S1_REFUSE},            /* overlong 3 */
        {"\xed\xa0\x80", 3, "\"}", S1_REFUSE},            /* surrogate */
        {"\xf4\x90\x80\x80", 4, "\"}", S1_REFUSE},        /* above U+10FFFF */
        {"\xf8\x88\x80\x80", 4, "\"}", S1_REFUSE},        /* F8 */
        {"\x80", 1, "\"}", S1_REFUSE},                    /* stray continuation */
        {"\x01", 1, "\"}", S1_REFUSE},                    /* control byte in a string */
        {"\x1f", 1, "\"}", S1_REFUSE},
        {"\\\x0a", 2, "\"}", S1_REFUSE},                  /* escaped newline is still raw */
        {"x", 1, "", S1_REFUSE},                          /* ends inside the string */
        {"\\\"", 2, "", S1_REFUSE},                       /* ends on an escaped quote */
        {"x\" 12 true\"y\"-3", 16, "}", S1_OK},           /* stage 1 accepts bad grammar */
        {"\x7f", 1, "\"}", S1_OK},                        /* DEL is fine */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t at = 6; at < 140; at++) {
            size_t n = doc_at(buf, at, cases[c].body, cases[c].len, cases[c].after);
            snprintf(what, sizeof what, "tricky case %zu at byte %zu", c, at);
            check(what, buf, n, cases[c].expect);
            /* the same, with an invalid byte at the very end (outside any string) */
        }
    }
    /* a cut sequence as the input's last byte, at every length around 64 and 128 */
    for (size_t len = 1; len < 200; len++) {
        memset(buf, ' ', len);
        buf[len - 1] = 0xE2;
        snprintf(what, sizeof what, "cut E2 at end, length %zu", len);
        check(what, buf, len, S1_REFUSE);
        buf[len - 1] = '1';
        snprintf(what, sizeof what, "scalar at end, length %zu", len);
        check(what, buf, len, S1_OK);
    }
    check("empty", (const uint8_t *)"", 0, S1_OK);
    check("only quote", (const uint8_t *)"\"", 1, S1_REFUSE);
    check("bare backslashes", (const uint8_t *)"\\\\\\\"  [\"]\" ", 11, -1);
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_rand(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* bounded random mutations of the first 1 KiB of each corpus file */
static void mutations(const uint8_t *src, size_t n, const char *label, int rounds) {
    static const char *const pieces[] = {"\"", "\\", "\\\\", "{", "}", "[", "]", ":", ",", " ",
        "\n", "\t", "a", "7", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x80", "\xff",
        "\x01", "\xed\xa0\x80", "\xe2\x82"};
    size_t m = n < 1024 ? n : 1024;
    if (m == 0) return; /* nothing to mutate (and no position to draw) */
    uint8_t *buf = malloc(m + 64);
    char what[128];
    for (int r = 0; r < rounds; r++) {
        memcpy(buf, src, m);
        size_t len = m;
        int edits = 1 + (int)(next_rand() % 4);
        for (int e = 0; e < edits; e++) {
            const char *piece = pieces[next_rand() % (sizeof pieces / sizeof pieces[0])];
            size_t pl = strlen(piece);
            if (pl == 0) pl = 1;
            /* near a 64-byte boundary most of the time */
            size_t at = (next_rand() % 3)
                            ? (size_t)((next_rand() % 16) * 64 + 64 - (next_rand() % 5))
                            : (size_t)(next_rand() % len);
            if (at + pl > len) continue;
            memcpy(buf + at, piece, pl);
        }
        snprintf(what, sizeof what, "mutation %d of %s", r, label);
        check(what, buf, len, -1);
    }
    free(buf);
}

static int selftest(int argc, char **argv) {
    tricky();
    for (int i = 0; i < argc; i++) {
        size_t n;
        /* "any:FILE" (conformance inputs, valid or not): the routes must agree with the
         * reference, whatever its verdict; plain FILEs are valid JSON and must be accepted */
        int any = strncmp(argv[i], "any:", 4) == 0;
        const char *path = any ? argv[i] + 4 : argv[i];
        uint8_t *p = read_file(path, &n);
        check(argv[i], p, n, any ? -1 : S1_OK);
        mutations(p, n, argv[i], any ? 20 : 3000);
        if (any) {
            free(p);
            continue;
        }
#ifdef HAVE_SIMDJSON
        /* an outside check of the index's definition: simdjson's stage 1 on valid JSON */
        void *sj = sj_new(n + 64);
        const uint32_t *sidx;
        size_t scount;
        uint32_t *ref = malloc((n + 72) * sizeof(uint32_t));
        size_t nref;
        n_cases++;
        if (!sj || sj_stage1(sj, p, n, &sidx, &scount) || s1_ref(p, n, ref, &nref) ||
            scount != nref || memcmp(sidx, ref, nref * sizeof(uint32_t))) {
            fprintf(stderr, "FAIL %s: simdjson's index differs from the reference\n", argv[i]);
            n_bad++;
        }
        free(ref);
        if (sj) sj_free(sj);
#endif
        free(p);
    }
    printf("selftest: %ld cases, %d routes (", n_cases, n_routes);
    for (int r = 0; r < n_routes; r++) printf("%s%s", r ? ", " : "", routes[r].name);
    printf("), %ld mismatches\n", n_bad);
    return n_bad ? 1 : 0;
}

/* ---- bench -------------------------------------------------------------------------------- */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { M_REF, M_PORTABLE, M_AVX2, M_NEON, M_SJ_STAGE1, M_SJ_PARSE, M_SHA256, M_MEMCHR, M_STRLEN,
       M_UTF8_AVX2, M_COUNT };
static const char *mnames[M_COUNT] = {"own stage 1: scalar reference", "own stage 1: portable",
    "own stage 1: AVX2", "own stage 1: NEON", "simdjson stage 1", "simdjson full DOM parse",
    "OpenSSL SHA-256 (EVP)", "memchr (no match)", "strlen", "nuif_utf8.h AVX2 (UTF-8 only)"};

static volatile size_t sink;

/* 1 when method m ran, its result in sink (noinline, and the result stored to a volatile: no
 * call of a pure function such as memchr can be hoisted out of the repetition loop) */
__attribute__((noinline)) static int run_method(int m, const uint8_t *p, size_t n, uint32_t *idx,
                                                void *sj) {
    size_t cnt = 0;
    (void)sj;
    switch (m) {
    case M_REF: s1_ref(p, n, idx, &cnt); break;
    case M_PORTABLE: s1_portable(p, n, idx, &cnt); break;
#if defined(__x86_64__)
    case M_AVX2: if (!s1_have_avx2()) return 0; s1_avx2(p, n, idx, &cnt); break;
    case M_UTF8_AVX2: cnt = (size_t)nuif_utf8_valid(p, n, NUIF_UTF8_AVX2); break;
#endif
#if defined(__aarch64__)
    case M_NEON: s1_neon(p, n, idx, &cnt); break;
#endif
#ifdef HAVE_SIMDJSON
    case M_SJ_STAGE1: { const uint32_t *si; sj_stage1(sj, p, n, &si, &cnt); break; }
    case M_SJ_PARSE: cnt = (size_t)sj_parse(sj, p, n); break;
#endif
#ifdef HAVE_OPENSSL
    case M_SHA256: {
        unsigned char md[32];
        unsigned int mdlen;
        EVP_Digest(p, n, md, &mdlen, EVP_sha256(), NULL);
        cnt = md[0];
        break;
    }
#endif
    case M_MEMCHR: cnt = (size_t)(memchr(p, 0x01, n) != NULL); break;
    case M_STRLEN: cnt = strlen((const char *)p); break; /* the buffer is NUL-terminated */
    default: return 0;
    }
    sink += cnt;
    return 1;
}

static int bench(int runs, int argc, char **argv) {
    int ni = argc;
    uint8_t **bufs = malloc(sizeof(uint8_t *) * (size_t)ni);
    size_t *lens = malloc(sizeof(size_t) * (size_t)ni);
    double *samples = malloc(sizeof(double) * (size_t)(ni * M_COUNT * runs));
    int *ran = calloc((size_t)(ni * M_COUNT), sizeof(int));
    size_t maxn = 0;
    for (int i = 0; i < ni; i++) {
        const char *path = strchr(argv[i], '=') + 1;
        bufs[i] = read_file(path, &lens[i]);
        if (lens[i] > maxn) maxn = lens[i];
    }
    uint32_t *idx = malloc((maxn + 72) * sizeof(uint32_t));
    void *sj = NULL;
#ifdef HAVE_SIMDJSON
    sj = sj_new(maxn + 64);
    printf("# simdjson implementation: %s\n", sj_impl_name());
#endif
    /* interleaved: every run visits every input and every method once, methods rotated */
    for (int r = 0; r < runs; r++) {
        for (int i = 0; i < ni; i++) {
            size_t reps = lens[i] >= (4u << 20) ? 1 : (4u << 20) / lens[i];
            for (int mm = 0; mm < M_COUNT; mm++) {
                int m = (mm + r) % M_COUNT;
                if (!run_method(m, bufs[i], lens[i], idx, sj)) continue; /* also warms up */
                double t0 = now();
                for (size_t k = 0; k < reps; k++) run_method(m, bufs[i], lens[i], idx, sj);
                double dt = now() - t0;
                ran[i * M_COUNT + m] = 1;
                samples[(i * M_COUNT + m) * runs + r] = (double)lens[i] * (double)reps / dt / 1e9;
            }
        }
    }
    for (int i = 0; i < ni; i++) {
        char label[128];
        size_t ll = (size_t)(strchr(argv[i], '=') - argv[i]);
        snprintf(label, sizeof label, "%.*s", (int)ll, argv[i]);
        for (int m = 0; m < M_COUNT; m++) {
            if (!ran[i * M_COUNT + m]) continue;
            double *s = samples + (i * M_COUNT + m) * runs;
            qsort(s, (size_t)runs, sizeof(double), cmp_double);
            printf("%s\t%s\t%.3f\t%.3f\t%.3f\n", label, mnames[m], s[runs / 2], s[0], s[runs - 1]);
        }
    }
#ifdef HAVE_SIMDJSON
    sj_free(sj);
#endif
    return 0;
}

int main(int argc, char **argv) {
    init_routes();
    if (argc >= 2 && !strcmp(argv[1], "selftest")) {
        s1_chunk = 256;
        return selftest(argc - 2, argv + 2);
    }
    if (argc >= 3 && !strcmp(argv[1], "bench")) return bench(atoi(argv[2]), argc - 3, argv + 3);
    fprintf(stderr, "usage: harness selftest [FILE...] | harness bench RUNS LABEL=FILE...\n");
    return 2;
}
