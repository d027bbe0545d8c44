/* The codec's thread pool under ThreadSanitizer (tests/core/test_pool_harness.py).
 *
 * Built with -fsanitize=thread from packages/nuif-core/csrc/nuif_indexpipe.c (the pool, the
 * split walk's helper, the index pipe) and nuif_hashpipe.c (the hashing thread), it drives every
 * user of the pool the way the codec does, and some ways it does not (several callers at once,
 * the spin and the pool switched while jobs run):
 *
 *   1. helpers, one after another, with the spin on: one thread serves them all;
 *   2. helpers with the spin off, then with the pool off (a thread per job);
 *   3. two callers starting and joining helpers at once while a third thread turns the spin and
 *      the pool on and off and warms the pool;
 *   4. hashing pipes: texts of 0 bytes to 1 MiB fed in steps, moved (hold, then a new buffer)
 *      and finished, or aborted, each digest compared with libcrypto's one-shot SHA-256;
 *   5. index pipes: the index of 256 KiB of JSON-like bytes read chunk by chunk, compared with the
 *      index stage 1 builds on this thread;
 *   6. followers: texts of 0 bytes to 1 MiB fed in steps, ended half-way and moved (the writer
 *      hashing the rest), finished (compared) or stopped as after an error; at least one of them
 *      must have been hashed by the follower itself;
 *   7. the §3 check shared between a follower and a writer (csrc/nuif_check.h) on hand-built
 *      tapes of 1 to 3,000 nodes, empty attrs and children here and there, a bad kind early, late
 *      or nowhere: the writer asks for each omissible member's mark as it goes, the follower
 *      checks nodes while it waits for text, and the marks and the verdict must be the ones the
 *      tape calls for; at least one node must have been checked by a follower.
 *
 * The pipes and followers hash with libcrypto's functions as csrc/nuif_crypto.c binds them: at
 * link time, or (built with NUIF_HAVE_OPENSSL=0 and NUIF_HARNESS_LOADED) found at run time in
 * the libcrypto this program loaded, as a release wheel finds the interpreter's.
 *
 * Every job checks its own result; a data race or a wrong count makes the run fail (TSan exits
 * with 66 on a report).  The last line: "pool harness: <jobs> jobs, <failures> failures".
 */
/* first: it includes Python.h (through nuif_idset.h), which must come before system headers */
#include "nuif_check.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nuif_crypto.h"
#include "nuif_hashpipe.h"
#include "nuif_indexpipe.h"
#include "nuif_stage1.h"

static long jobs, failures;

static void fail(const char *what, long i) {
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    fprintf(stderr, "pool harness: %s (%ld)\n", what, i);
}

static void bump(void *arg) {
    int *slot = (int *)arg;
    *slot += 1; /* read by the joiner after join: join must order it */
    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
}

/* n helpers, one after another, each run and joined (or run here when none starts). */
static void *helpers(void *arg) {
    long n = (long)(intptr_t)arg, i;
    for (i = 0; i < n; i++) {
        int slot = 0;
        nuif_helper *h = nuif_helper_start(bump, &slot);
        if (h == NULL) {
            fail("no helper", i);
            bump(&slot);
        } else {
            nuif_helper_join(h);
        }
        if (slot != 1) fail("a helper's job ran not exactly once", i);
    }
    return NULL;
}

static int stop_switching;

static void *switcher(void *arg) {
    long k = 0;
    (void)arg;
    while (!__atomic_load_n(&stop_switching, __ATOMIC_ACQUIRE)) {
        nuif_thread_set_spin(k % 3 == 0 ? 0 : 50);
        nuif_thread_set_pool(k % 5 != 0);
        nuif_thread_warm();
        (void)nuif_thread_hot();
        k++;
    }
    nuif_thread_set_pool(1);
    nuif_thread_set_spin(200);
    return NULL;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void sha256(const unsigned char *p, size_t n, unsigned char *d) {
    unsigned int len = 32;
    EVP_Digest(p, n, d, &len, EVP_sha256(), NULL);
}

/* One text through a hashing pipe: fed every `step` bytes, moved to a new buffer half-way when
 * `move`, finished (compared) or, when `abort_it`, aborted. */
static void hash_one(size_t n, size_t step, int move, int abort_it) {
    unsigned char *text = (unsigned char *)malloc(n ? n : 1), *moved, want[32], got[32];
    size_t at, i;
    nuif_hashpipe *hp;
    for (i = 0; i < n; i++) text[i] = (unsigned char)next_random();
    hp = nuif_hashpipe_start();
    if (hp == NULL) {
        fail("no hashing pipe", (long)n);
        free(text);
        return;
    }
    for (at = step; at < n; at += step) {
        nuif_hashpipe_feed(hp, text, at);
        if (move && at >= n / 2 && at - step < n / 2) {
            nuif_hashpipe_hold(hp); /* the worker is not reading text now */
            moved = (unsigned char *)malloc(n);
            memcpy(moved, text, n);
            memset(text, 0xA5, n); /* a worker still reading the old buffer would hash this */
            free(text);
            text = moved;
            nuif_hashpipe_feed(hp, text, at);
        }
    }
    if (abort_it) {
        nuif_hashpipe_abort(hp);
    } else {
        if (nuif_hashpipe_finish(hp, text, n, got) != 0) fail("hashing pipe failed", (long)n);
        sha256(text, n, want);
        if (memcmp(want, got, 32) != 0) fail("hashing pipe's digest differs", (long)n);
    }
    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
    free(text);
}

/* One text through a follower: fed every `step` bytes, ended and moved to a new buffer
 * half-way when `move` (the writer hashes the rest), then finished (compared) or, when
 * `abort_it`, only stopped (the writer's error path).  Returns the bytes the follower hashed. */
static size_t follow_one(size_t n, size_t step, int move, int abort_it) {
    unsigned char *text = (unsigned char *)malloc(n ? n : 1), *moved, want[32], got[32];
    size_t at, i, from = 0, by_follower = 0;
    int on = 1;
    for (i = 0; i < n; i++) text[i] = (unsigned char)next_random();
    if (nuif_hashfollow_start(text, 0) != 0) {
        fail("no follower", (long)n);
        free(text);
        return 0;
    }
    for (at = step; at < n; at += step) {
        if (on) nuif_hashfollow_feed(at);
        if (on && move && at >= n / 2 && at - step < n / 2) {
            from = by_follower = nuif_hashfollow_stop(at); /* the follower reads text no more */
            on = 0;
            moved = (unsigned char *)malloc(n);
            memcpy(moved, text, n);
            memset(text, 0xA5, n); /* a follower still reading the old buffer would hash this */
            free(text);
            text = moved;
        }
    }
    if (on) from = by_follower = nuif_hashfollow_stop(n);
    if (from > n || from % 64 != 0) fail("follower stopped off a block", (long)from);
    if (!abort_it) {
        if (nuif_hashfollow_end(text, from, n, got) != 0) fail("follower failed", (long)n);
        sha256(text, n, want);
        if (memcmp(want, got, 32) != 0) fail("follower's digest differs", (long)n);
    }
    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
    free(text);
    return by_follower;
}

/* The index of p through an index pipe, chunk by chunk, against stage 1 on this thread. */
static void index_one(const uint8_t *p, size_t n, size_t chunk) {
    int route = nuif_s1_route();
    nuif_s1_state st;
    uint32_t *mine = (uint32_t *)malloc((chunk + NUIF_S1_SLACK) * sizeof(uint32_t));
    const uint32_t *theirs;
    size_t c, count, own, from;
    nuif_ipipe *ip = nuif_ipipe_start(route, p, n, chunk);
    if (ip == NULL) {
        fail("no index pipe", (long)n);
        free(mine);
        return;
    }
    nuif_s1_start(&st);
    for (c = 0, from = 0; from < n; c++, from += chunk) {
        size_t to = from + chunk < n ? from + chunk : n;
        theirs = nuif_ipipe_next(ip, c, &count);
        own = nuif_s1_chunk(route, &st, p, n, from, to, mine);
        if (theirs == NULL || count != own ||
            (own > 0 && memcmp(theirs, mine, own * sizeof(uint32_t)) != 0)) {
            fail("index pipe's chunk differs", (long)c);
            break;
        }
    }
    if (from >= n && nuif_ipipe_ok(ip) != nuif_s1_ok(&st)) fail("index pipe's verdict", (long)n);
    nuif_ipipe_stop(ip);
    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
    free(mine);
}

/* 7. Hand-built tapes for the shared check: {"nuif":0,"root":node 0}, node i's children the
 * nodes 8i+1..8i+8 below `count`, members in the order children, attrs, id, kind (the writer's
 * attrs, children, id, kind); every `empty`-th node's attrs is {} (else {"w":1,"children":[]}:
 * an attribute called children, empty, that stays), a leaf's children is []. */
static nuif_tok ck_tape[80000];
static char ck_text[200000];
static size_t ck_ntok, ck_len;
static uint8_t ck_want[80000]; /* the F_SKIP marks the tape calls for */

static void ck_str(const char *s, int skip) {
    nuif_tok *t = &ck_tape[ck_ntok];
    size_t L = strlen(s);
    memset(t, 0, sizeof *t);
    t->kind = NUIF_T_STR;
    t->at = (uint32_t)ck_len;
    t->len = (uint32_t)L;
    memcpy(ck_text + ck_len, s, L);
    ck_len += L;
    ck_want[ck_ntok++] = skip ? NUIF_F_SKIP : 0;
}

static size_t ck_open(uint8_t kind) {
    memset(&ck_tape[ck_ntok], 0, sizeof ck_tape[0]);
    ck_tape[ck_ntok].kind = kind;
    ck_want[ck_ntok] = 0;
    return ck_ntok++;
}

static void ck_node(size_t i, size_t count, size_t empty, size_t bad) {
    size_t me = ck_open(NUIF_T_OBJ), arr, obj, c, leaf = 8 * i + 1 >= count;
    char id[24];
    ck_str("children", (int)leaf);
    arr = ck_open(NUIF_T_ARR);
    for (c = 8 * i + 1; c <= 8 * i + 8 && c < count; c++) ck_node(c, count, empty, bad);
    ck_tape[arr].end = (uint32_t)ck_ntok;
    ck_str("attrs", empty && i % empty == 0);
    obj = ck_open(NUIF_T_OBJ);
    if (!(empty && i % empty == 0)) {
        ck_str("w", 0);
        ck_open(NUIF_T_TRUE);
        ck_str("children", 0);
        c = ck_open(NUIF_T_ARR);
        ck_tape[c].end = (uint32_t)(c + 1);
        ck_tape[obj].members = 2;
    }
    ck_tape[obj].end = (uint32_t)ck_ntok;
    snprintf(id, sizeof id, "n%zu", i);
    ck_str("id", 0);
    ck_str(id, 0);
    ck_str("kind", 0);
    ck_str(i == bad ? "K" : "k", 0);
    ck_tape[me].members = 4;
    ck_tape[me].end = (uint32_t)ck_ntok;
}

static size_t ck_build(size_t count, size_t empty, size_t bad) {
    size_t root;
    ck_ntok = ck_len = 0;
    root = ck_open(NUIF_T_OBJ);
    ck_str("nuif", 0);
    ck_str("0", 0);
    ck_tape[ck_ntok - 1].kind = NUIF_T_INT;
    ck_str("root", 0);
    ck_node(0, count, empty, bad);
    ck_tape[root].members = 2;
    ck_tape[root].end = (uint32_t)ck_ntok;
    return ck_ntok;
}

/* One shared check: a follower with nuif_check_step as its idle work, the writer going through
 * the member names in tape order, asking for the mark of each member whose value is an empty
 * object or array, then finishing; compared with what the tape calls for. */
static size_t check_one(size_t count, size_t empty, size_t bad, int late, unsigned char *text) {
    nuif_check c;
    size_t ntok = ck_build(count, empty, bad), k, cap = 16, checked = 0, before, fed = 0;
    const nuif_tok *v;
    int ok;
    while (cap < 2 * (ntok / 5 + 1)) cap *= 2;
    memset(&c, 0, sizeof c);
    c.tape = ck_tape;
    c.p = (const uint8_t *)ck_text;
    c.n = ck_len;
    c.max_nodes = (size_t)-1;
    c.walk_cap = 16;
    c.walk_next = (size_t *)calloc(2 * c.walk_cap, sizeof(size_t));
    c.walk_end = c.walk_next + c.walk_cap;
    c.ids = (uint64_t *)calloc(cap, sizeof(uint64_t));
    c.ids_cap = cap;
    c.ids_gen = 1;
    nuif_check_plant_late = late;
    before = nuif_check_by_job;
    if (nuif_hashfollow_start_idle(text, 0, nuif_check_step, &c) != 0) fail("no follower", 0);
    for (k = 0; k < ntok; k++) {
        if (k % 64 == 0 && fed + 64 <= 65536) nuif_hashfollow_feed(fed += 64); /* text to hash */
        if (ck_tape[k].kind != NUIF_T_STR || k + 1 >= ntok) continue;
        v = &ck_tape[k + 1];
        if (k >= checked && ((v->kind == NUIF_T_OBJ && v->members == 0 && v->end == k + 2) ||
                             (v->kind == NUIF_T_ARR && v->end == k + 2))) {
            checked = nuif_check_until(&c, k);
            if ((ck_tape[k].flags & NUIF_F_SKIP) != ck_want[k] && bad == (size_t)-1) {
                fail("a mark the writer read differs", (long)k);
            }
        }
    }
    ok = nuif_check_finish(&c);
    nuif_hashfollow_end(text, nuif_hashfollow_stop(fed), fed, (unsigned char[32]){0});
    if (ok != (bad == (size_t)-1)) fail("the check's verdict differs", (long)count);
    for (k = 0; ok && k < ntok; k++) {
        if ((ck_tape[k].flags & NUIF_F_SKIP) != ck_want[k]) fail("a mark differs", (long)k);
    }
    if (late && nuif_check_by_job != before) fail("a late follower checked nodes", (long)count);
    free(c.walk_next);
    free(c.ids);
    nuif_check_plant_late = 0;
    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
    return nuif_check_by_job - before;
}

int main(void) {
    pthread_t a, b, s;
    size_t created, reused, idle, k, n;
    static const size_t sizes[] = {0, 1, 63, 64, 1000, 65536, 100003, 1 << 20};
    const char *alphabet = "{}[]:, \"ab\\1e-.\n";
    uint8_t *json;

#ifdef NUIF_HARNESS_LOADED
    if (nuif_crypto_bind(NUIF_CRYPTO_LOADED, NULL, NULL) != NUIF_CRYPTO_LOADED) {
        fail("libcrypto's functions were not found at run time", 0);
    }
#endif
    if (nuif_crypto.update == NULL) fail("libcrypto's functions are not bound", 0);

    /* 1. one after another, spinning: one thread serves (nearly) all */
    nuif_thread_set_spin(200);
    helpers((void *)(intptr_t)2000);
    nuif_thread_counts(&created, &reused, &idle);
    if (created < 1 || created > 20 || reused < 1980) {
        fail("the pool was not reused", (long)created);
    }

    /* 2. not spinning, then no pool at all */
    nuif_thread_set_spin(0);
    helpers((void *)(intptr_t)300);
    nuif_thread_set_pool(0);
    helpers((void *)(intptr_t)100);
    nuif_thread_set_pool(1);
    nuif_thread_set_spin(200);

    /* 3. two callers at once, the switches turning meanwhile */
    pthread_create(&s, NULL, switcher, NULL);
    pthread_create(&a, NULL, helpers, (void *)(intptr_t)1500);
    pthread_create(&b, NULL, helpers, (void *)(intptr_t)1500);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    __atomic_store_n(&stop_switching, 1, __ATOMIC_RELEASE);
    pthread_join(s, NULL);

    /* 4. hashing pipes */
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        n = sizes[k];
        hash_one(n, 4096, 0, 0);
        hash_one(n, 1, 0, n > 5000); /* one-byte feeds (small texts), or aborted */
        hash_one(n, 65536, 1, 0);
        hash_one(n, 997, 1, k % 2);
    }

    /* 6. followers (one at a time, as under the GIL); the pool's thread spins between them */
    for (k = 0, n = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        n += follow_one(sizes[k], 2048, 0, 0);
        n += follow_one(sizes[k], 1, 0, sizes[k] > 5000); /* one-byte feeds, or stopped */
        n += follow_one(sizes[k], 65536, 1, 0);
        n += follow_one(sizes[k], 997, 1, k % 2);
    }
    if (n == 0) fail("no follower hashed anything itself", 0);

    /* 7. the shared check */
    nuif_names_init();
    {
        static const size_t counts[] = {1, 2, 9, 73, 500, 3000};
        static unsigned char text[65536];
        size_t i, by_followers = 0;
        for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
            n = counts[k];
            for (i = 0; i < 4; i++) {
                by_followers += check_one(n, (size_t[]){0, 1, 3, 7}[i], (size_t)-1, 0, text);
                by_followers += check_one(n, 3, i == 0 ? 0 : i == 1 ? n / 2 : n - 1, (int)(i & 1),
                                          text);
            }
        }
        if (by_followers == 0) fail("no follower checked a node", 0);
    }

    /* 5. index pipes over JSON-like bytes (strings, escapes, structure) */
    n = 256 << 10;
    json = (uint8_t *)malloc(n + 64);
    for (k = 0; k < n; k++) json[k] = (uint8_t)alphabet[next_random() % 16];
    memset(json + n, 0, 64);
    for (k = 0; k < 20; k++) index_one(json, n - k * 997, k % 2 ? 64 : 16384);
    free(json);

    nuif_thread_counts(&created, &reused, &idle);
    printf("pool harness: %ld jobs, %ld failures (threads created %zu, reused %zu, idle %zu)\n",
           jobs, failures, created, reused, idle);
    return failures != 0;
}
