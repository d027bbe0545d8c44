/* See nuif_hashpipe.h.
 *
 * Design.  The SHA-256 state after the bytes [0, hashed) is `done`.  The worker takes the next
 * slice [hashed, to), copies `done` into its own context `work`, hashes the slice there without
 * the lock, and then, unless the writer has taken over meanwhile, swaps `work` and `done` and
 * moves `hashed` to `to`.  At the end the writer takes over: it takes `done` and hashes whatever
 * is left itself.  So the writer never waits for the worker to be *scheduled* (on a busy machine
 * a new thread may not run for milliseconds): if the worker never ran, the writer hashes
 * everything, as it would without a pipe.  The worker is a pooled thread (nuif_thread_spawn).
 * The writer only waits while the worker is in the middle of a slice (`busy`), and only where
 * the buffer is about to move or go away (hold, the end of finish, abort): slices are short
 * (64 KiB, ~50 us).  The structure is freed by whichever side lets go of it last.  After the
 * writer let go, the worker makes no OpenSSL call (both contexts are plain SHA256_CTX structs in
 * the structure: nothing of libcrypto's is allocated or freed): a worker finishing when the
 * process ends cannot race libcrypto's own clean-up at exit.
 */
/* pthreads: POSIX, which a strict -std=c11 hides unless asked for */
#if NUIF_HAVE_PTHREADS && !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#include "nuif_hashpipe.h"
#include "nuif_crypto.h"
#include "nuif_indexpipe.h"

#if NUIF_HAVE_PTHREADS
/* libcrypto's SHA256_Init/_Update/_Final, as bound by csrc/nuif_crypto.h; without them neither the
 * pipe nor the follower starts */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) || defined(__clang__)
#define NUIF_HF 1
#else
#define NUIF_HF 0
#endif

#define NUIF_HASHPIPE_SLICE ((size_t)64 << 10)

struct nuif_hashpipe {
    pthread_mutex_t mu;
    pthread_cond_t more; /* writer -> worker: new bytes, release, or stop */
    pthread_cond_t idle; /* worker -> writer: the slice in progress is over */
    /* everything below is shared, under mu */
    nuif_sha256_ctx done; /* the state after [0, hashed); the writer's once it took over */
    nuif_sha256_ctx work; /* the worker's scratch copy of it */
    const unsigned char *base;
    size_t avail;  /* bytes [0, avail) of base are final */
    size_t hashed;
    int held;      /* the writer is moving base: do not start a slice */
    int busy;      /* the worker is reading base without the lock */
    int stop;      /* the writer took over (or aborted): the worker exits */
    int failed;    /* an OpenSSL call failed */
    int refs;      /* 2: writer and worker; the last to let go frees */
};

static void nuif_hashpipe_free(nuif_hashpipe *hp) {
    pthread_cond_destroy(&hp->idle);
    pthread_cond_destroy(&hp->more);
    pthread_mutex_destroy(&hp->mu);
    free(hp);
}

/* Let go of hp (the lock held); frees it when the other side already did. */
static void nuif_hashpipe_release(nuif_hashpipe *hp) {
    int last = --hp->refs == 0;
    pthread_mutex_unlock(&hp->mu);
    if (last) {
        nuif_hashpipe_free(hp);
    }
}

static void *nuif_hashpipe_run(void *arg) {
    nuif_hashpipe *hp = (nuif_hashpipe *)arg;
    const unsigned char *base;
    size_t from, to;
    int ok;
    pthread_mutex_lock(&hp->mu);
    for (;;) {
        while (!hp->stop && (hp->held || hp->hashed == hp->avail)) {
            pthread_cond_wait(&hp->more, &hp->mu);
        }
        if (hp->stop) {
            break;
        }
        base = hp->base;
        from = hp->hashed;
        to = hp->avail;
        if (to - from > NUIF_HASHPIPE_SLICE) {
            to = from + NUIF_HASHPIPE_SLICE;
        }
        ok = !hp->failed;
        hp->work = hp->done;
        hp->busy = 1;
        pthread_mutex_unlock(&hp->mu);
        ok = ok && nuif_crypto.update(&hp->work, base + from, to - from) == 1;
        pthread_mutex_lock(&hp->mu);
        hp->busy = 0;
        pthread_cond_signal(&hp->idle);
        if (!ok) {
            hp->failed = 1;
            break;
        }
        if (!hp->stop) { /* commit the slice */
            hp->done = hp->work;
            hp->hashed = to;
        }
    }
    nuif_hashpipe_release(hp);
    return NULL;
}

nuif_hashpipe *nuif_hashpipe_start(void) {
    nuif_hashpipe *hp;
    if (nuif_crypto.update == NULL) {
        return NULL;
    }
    hp = (nuif_hashpipe *)calloc(1, sizeof(*hp));
    if (hp == NULL) {
        return NULL;
    }
    if (nuif_crypto.init(&hp->done) != 1 || pthread_mutex_init(&hp->mu, NULL) != 0) {
        free(hp);
        return NULL;
    }
    pthread_cond_init(&hp->more, NULL); /* cannot fail with default attributes on Linux */
    pthread_cond_init(&hp->idle, NULL);
    hp->refs = 2;
    /* the worker: a pooled thread (csrc/nuif_indexpipe.h) */
    if (nuif_thread_spawn(nuif_hashpipe_run, hp) != 0) {
        nuif_hashpipe_free(hp);
        return NULL;
    }
    return hp;
}

void nuif_hashpipe_feed(nuif_hashpipe *hp, const unsigned char *base, size_t n) {
    pthread_mutex_lock(&hp->mu);
    hp->base = base;
    hp->avail = n;
    hp->held = 0;
    pthread_cond_signal(&hp->more);
    pthread_mutex_unlock(&hp->mu);
}

/* Wait (the lock held) until the worker is not inside a slice. */
static void nuif_hashpipe_wait_idle(nuif_hashpipe *hp) {
    while (hp->busy) {
        pthread_cond_wait(&hp->idle, &hp->mu);
    }
}

void nuif_hashpipe_hold(nuif_hashpipe *hp) {
    pthread_mutex_lock(&hp->mu);
    hp->held = 1;
    nuif_hashpipe_wait_idle(hp);
    pthread_mutex_unlock(&hp->mu);
}

int nuif_hashpipe_finish(nuif_hashpipe *hp, const unsigned char *base, size_t n,
                         unsigned char *digest) {
    nuif_sha256_ctx ctx;
    size_t from;
    int ok;
    /* take over: the state so far is ours; the worker stops after its slice, if any */
    pthread_mutex_lock(&hp->mu);
    hp->stop = 1;
    pthread_cond_signal(&hp->more);
    ctx = hp->done;
    from = hp->hashed;
    ok = !hp->failed;
    pthread_mutex_unlock(&hp->mu);
    ok = ok && from <= n && nuif_crypto.update(&ctx, base + from, n - from) == 1 &&
         nuif_crypto.final(digest, &ctx) == 1;
    /* the caller may move or free the buffer next: no slice of the worker may still read it */
    pthread_mutex_lock(&hp->mu);
    nuif_hashpipe_wait_idle(hp);
    nuif_hashpipe_release(hp);
    return ok ? 0 : -1;
}

void nuif_hashpipe_abort(nuif_hashpipe *hp) {
    pthread_mutex_lock(&hp->mu);
    hp->stop = 1;
    pthread_cond_signal(&hp->more);
    nuif_hashpipe_wait_idle(hp);
    nuif_hashpipe_release(hp);
}

int nuif_hashpipe_available(void) { return nuif_crypto.update != NULL; }

#if NUIF_HF
/* The follower (see nuif_hashpipe.h).  `state` is the generation of the follower (counting
 * starts) times 8 plus one of the states below; the job and the writer move it by compare and
 * swap, so a job that starts late finds a newer generation, or the writer's TAKEN, and returns
 * without touching anything else. */
#if defined(__x86_64__) || defined(__i386__)
#define NUIF_HF_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define NUIF_HF_RELAX() __asm__ __volatile__("yield")
#else
#define NUIF_HF_RELAX() ((void)0)
#endif
/* bytes hashed between two looks at what the writer has fed (~2.5 us with SHA instructions) */
#define NUIF_HF_PIECE ((size_t)4096)
enum { NUIF_HF_WAITING = 1, NUIF_HF_RUNNING = 2, NUIF_HF_TAKEN = 3, NUIF_HF_DONE = 4 };

static struct {
    nuif_sha256_ctx ctx; /* the follower's while it runs; the writer's before and after */
    const unsigned char *base;
    int (*idle)(void *); /* called when caught up (nuif_hashfollow_start_idle), or NULL */
    void *idle_arg;
    size_t hashed; /* [0, hashed) is in ctx: written by the follower before DONE */
    unsigned long gen;
    /* the writer's side (atomic), on its own cache line: the follower polls it */
    _Alignas(64) size_t avail;
    int ending;
    /* the handshake (atomic) */
    _Alignas(64) unsigned long state;
    size_t last; /* tests: what the last follower hashed */
} nuif_hf;

static void *nuif_hashfollow_run(void *arg) {
    unsigned long gen = (unsigned long)(uintptr_t)arg;
    unsigned long want = gen << 3 | NUIF_HF_WAITING;
    const unsigned char *base;
    size_t h = 0, a, take;
    if (!__atomic_compare_exchange_n(&nuif_hf.state, &want, gen << 3 | NUIF_HF_RUNNING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return NULL; /* taken over, or a later follower's time: nothing here is ours */
    }
    base = nuif_hf.base;
    for (;;) {
        a = __atomic_load_n(&nuif_hf.avail, __ATOMIC_ACQUIRE) & ~(size_t)63;
        if (a > h) {
            take = a - h < NUIF_HF_PIECE ? a - h : NUIF_HF_PIECE;
            nuif_crypto.update(&nuif_hf.ctx, base + h, take); /* 1 for any input */
            h += take;
            continue;
        }
        if (nuif_hf.idle != NULL && nuif_hf.idle(nuif_hf.idle_arg)) {
            continue; /* it did some of the writer's other work: look at the text again */
        }
        if (__atomic_load_n(&nuif_hf.ending, __ATOMIC_ACQUIRE)) {
            /* the last feed came before `ending`: one more look, then done */
            if ((__atomic_load_n(&nuif_hf.avail, __ATOMIC_ACQUIRE) & ~(size_t)63) > h) {
                continue;
            }
            break;
        }
        NUIF_HF_RELAX();
    }
    nuif_hf.hashed = h;
    __atomic_store_n(&nuif_hf.state, gen << 3 | NUIF_HF_DONE, __ATOMIC_RELEASE);
    return NULL; /* the pooled thread spins again for the next call */
}

int nuif_hashfollow_start(const unsigned char *base, int hot_only) {
    return nuif_hashfollow_start_idle(base, hot_only, NULL, NULL);
}

int nuif_hashfollow_start_idle(const unsigned char *base, int hot_only, int (*idle)(void *),
                               void *idle_arg) {
    unsigned long gen;
    if (nuif_crypto.update == NULL || (hot_only && !nuif_thread_hot()) ||
        nuif_crypto.init(&nuif_hf.ctx) != 1) {
        return -1;
    }
    gen = ++nuif_hf.gen;
    nuif_hf.base = base;
    nuif_hf.idle = idle;
    nuif_hf.idle_arg = idle_arg;
    nuif_hf.hashed = 0;
    __atomic_store_n(&nuif_hf.avail, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&nuif_hf.ending, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&nuif_hf.state, gen << 3 | NUIF_HF_WAITING, __ATOMIC_RELEASE);
    if (nuif_thread_spawn(nuif_hashfollow_run, (void *)(uintptr_t)gen) != 0) {
        __atomic_store_n(&nuif_hf.state, gen << 3 | NUIF_HF_TAKEN, __ATOMIC_RELEASE);
        return -1;
    }
    return 0;
}

void nuif_hashfollow_feed(size_t n) { __atomic_store_n(&nuif_hf.avail, n, __ATOMIC_RELEASE); }

size_t nuif_hashfollow_stop(size_t n) {
    unsigned long gen = nuif_hf.gen;
    unsigned long want = gen << 3 | NUIF_HF_WAITING;
    unsigned k;
    __atomic_store_n(&nuif_hf.avail, n, __ATOMIC_RELEASE);
    __atomic_store_n(&nuif_hf.ending, 1, __ATOMIC_RELEASE);
    if (__atomic_compare_exchange_n(&nuif_hf.state, &want, gen << 3 | NUIF_HF_TAKEN, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        nuif_hf.last = 0;
        return 0; /* it never started, and now never will: all of it is the writer's */
    }
    /* it runs: it hashes what is left of [0, n & ~63) and stops */
#ifndef NUIF_PLANT_FOLLOW_EARLY /* tests/core/pool_harness.c: a planted bug it must catch */
    for (k = 1; __atomic_load_n(&nuif_hf.state, __ATOMIC_ACQUIRE) != (gen << 3 | NUIF_HF_DONE);
         k++) {
        if (k < 4096) {
            NUIF_HF_RELAX();
        } else {
            sched_yield(); /* descheduled, most likely: let it run */
        }
    }
#else
    (void)k; /* returns while the follower may still hash (and read base) */
#endif
    nuif_hf.last = nuif_hf.hashed;
    return nuif_hf.hashed;
}

int nuif_hashfollow_end(const unsigned char *base, size_t h, size_t n, unsigned char *digest) {
    if (h > n || nuif_crypto.update(&nuif_hf.ctx, base + h, n - h) != 1 ||
        nuif_crypto.final(digest, &nuif_hf.ctx) != 1) {
        return -1;
    }
    return 0;
}

size_t nuif_hashfollow_last(size_t *started) {
    *started = (size_t)nuif_hf.gen;
    return nuif_hf.last;
}
#endif

#else

nuif_hashpipe *nuif_hashpipe_start(void) { return NULL; }
void nuif_hashpipe_feed(nuif_hashpipe *hp, const unsigned char *base, size_t n) {
    (void)hp;
    (void)base;
    (void)n;
}
void nuif_hashpipe_hold(nuif_hashpipe *hp) { (void)hp; }
int nuif_hashpipe_finish(nuif_hashpipe *hp, const unsigned char *base, size_t n,
                         unsigned char *digest) {
    (void)hp;
    (void)base;
    (void)n;
    (void)digest;
    return -1;
}
void nuif_hashpipe_abort(nuif_hashpipe *hp) { (void)hp; }
int nuif_hashpipe_available(void) { return 0; }

#endif

#if !NUIF_HF
int nuif_hashfollow_start(const unsigned char *base, int hot_only) {
    (void)base;
    (void)hot_only;
    return -1;
}
int nuif_hashfollow_start_idle(const unsigned char *base, int hot_only, int (*idle)(void *),
                               void *idle_arg) {
    (void)base;
    (void)hot_only;
    (void)idle;
    (void)idle_arg;
    return -1;
}
void nuif_hashfollow_feed(size_t n) { (void)n; }
size_t nuif_hashfollow_stop(size_t n) {
    (void)n;
    return 0;
}
int nuif_hashfollow_end(const unsigned char *base, size_t h, size_t n, unsigned char *digest) {
    (void)base;
    (void)h;
    (void)n;
    (void)digest;
    return -1;
}
size_t nuif_hashfollow_last(size_t *started) {
    *started = 0;
    return 0;
}
#endif
