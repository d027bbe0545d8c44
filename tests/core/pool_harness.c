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
 *      must have been hashed by the follower itself.
 *
 * The pipes and followers hash with libcrypto's functions as csrc/nuif_crypto.c binds them: at
 * link time, or (built with NUIF_HAVE_OPENSSL=0 and NUIF_HARNESS_LOADED) found at run time in
 * the libcrypto this program loaded, as a release wheel finds the interpreter's.
 *
 * Every job checks its own result; a data race or a wrong count makes the run fail (TSan exits
 * with 66 on a report).  The last line: "pool harness: <jobs> jobs, <failures> failures".
 */
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
