/* See nuif_indexpipe.h.
 *
 * Design.  `produced` chunks are indexed, and `st` is stage 1's state after them; both sides
 * index, and whichever finishes a chunk first commits it.  The worker takes chunk `produced`
 * while it is fewer than NUIF_IPIPE_RING chunks ahead of the chunk the parsing thread reads
 * (`reading`), indexes it without the lock into ring slot produced % RING from a copy of `st`,
 * and commits the copy, the count and `produced` + 1 unless the chunk was committed meanwhile.
 * The parsing thread, needing chunk c: when it is committed by the worker, reads its ring slot;
 * when it is not (the worker has not started, is descheduled, or is behind), indexes it itself
 * from `st` into its own buffer (`own`) and commits it the same way -- so it never waits for the
 * worker, and a worker that fell behind starts again from the parsing thread's progress.  Only
 * stop() waits for a busy worker (which must not read the input after that), and a running
 * worker finishes a 16 KiB chunk in a few microseconds.  The structure, ring included, is freed
 * (or kept for the next pipe) by whichever side lets go of it last.
 */
#if NUIF_HAVE_PTHREADS && !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#include "nuif_indexpipe.h"

#include "nuif_stage1.h"

#if NUIF_HAVE_PTHREADS
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* chunks the worker may run ahead; it is woken again when half of them are free */
#define NUIF_IPIPE_RING 16

struct nuif_ipipe {
    pthread_mutex_t mu;
    pthread_cond_t wake_worker;
    pthread_cond_t wake_reader;
    /* fixed at start */
    const uint8_t *p;
    size_t n, chunk, nchunks, slot_entries;
    int route;
    uint32_t *ring; /* NUIF_IPIPE_RING slots of slot_entries entries, then `own`'s */
    uint32_t *own;  /* the parsing thread's chunk buffer, for the chunks it indexes itself */
    size_t ring_entries;
    /* shared, under mu */
    nuif_s1_state st;
    size_t counts[NUIF_IPIPE_RING];
    size_t produced;
    size_t reading;
    int taken;          /* stop() was called: the worker exits */
    int busy;           /* the worker is indexing a chunk without the lock */
    int worker_waiting; /* the worker sleeps on wake_worker (the ring is full) */
    int reader_waiting; /* the parsing thread sleeps on wake_reader */
    int refs;           /* 2: the parsing thread and the worker; the last to let go frees */
    size_t by_worker;   /* chunks committed by the worker (the rest by the parsing thread) */
};

static int nuif_ipipe_lazy = 0;
static size_t nuif_ipipe_last[2]; /* the last pipe's chunks: by the worker, in all (tests) */
/* one structure (with its ring) kept for the next pipe: its pages are already mapped */
static nuif_ipipe *nuif_ipipe_spare = NULL;

void nuif_ipipe_set_lazy_worker(int on) { nuif_ipipe_lazy = on; }

void nuif_ipipe_last_counts(size_t *by_worker, size_t *chunks) {
    *by_worker = nuif_ipipe_last[0];
    *chunks = nuif_ipipe_last[1];
}

static void nuif_ipipe_free(nuif_ipipe *ip) {
    nuif_ipipe *prev;
    pthread_cond_destroy(&ip->wake_reader);
    pthread_cond_destroy(&ip->wake_worker);
    pthread_mutex_destroy(&ip->mu);
    /* keep it for the next pipe, unless one is kept already (the last owner may be the worker:
     * the exchange is atomic) */
    prev = __atomic_exchange_n(&nuif_ipipe_spare, ip, __ATOMIC_ACQ_REL);
    if (prev != NULL) {
        free(prev->ring);
        free(prev);
    }
}

/* Let go of ip (the lock held); frees it when the other side already did. */
static void nuif_ipipe_release(nuif_ipipe *ip) {
    int last = --ip->refs == 0;
    pthread_mutex_unlock(&ip->mu);
    if (last) {
        nuif_ipipe_free(ip);
    }
}

static size_t nuif_ipipe_index(nuif_ipipe *ip, nuif_s1_state *st, size_t c, uint32_t *out) {
    size_t from = c * ip->chunk;
    size_t to = ip->n - from > ip->chunk ? from + ip->chunk : ip->n;
    return nuif_s1_chunk(ip->route, st, ip->p, ip->n, from, to, out);
}

static void *nuif_ipipe_run(void *arg) {
    nuif_ipipe *ip = (nuif_ipipe *)arg;
    nuif_s1_state st;
    size_t c, count;
    pthread_mutex_lock(&ip->mu);
    for (;;) {
        if (ip->taken || ip->produced == ip->nchunks || nuif_ipipe_lazy) {
            break;
        }
        if (ip->produced >= ip->reading + NUIF_IPIPE_RING) { /* the ring is full */
            ip->worker_waiting = 1;
            pthread_cond_wait(&ip->wake_worker, &ip->mu);
            ip->worker_waiting = 0;
            continue;
        }
        c = ip->produced;
        st = ip->st;
        ip->busy = 1;
        pthread_mutex_unlock(&ip->mu);
        count = nuif_ipipe_index(ip, &st, c, ip->ring + (c % NUIF_IPIPE_RING) * ip->slot_entries);
        pthread_mutex_lock(&ip->mu);
        ip->busy = 0;
        if (!ip->taken && ip->produced == c) { /* not committed by the parsing thread meanwhile */
            ip->st = st;
            ip->counts[c % NUIF_IPIPE_RING] = count;
            ip->produced = c + 1;
            ip->by_worker++;
        }
        if (ip->reader_waiting) {
            pthread_cond_signal(&ip->wake_reader);
        }
    }
    nuif_ipipe_release(ip);
    return NULL;
}

nuif_ipipe *nuif_ipipe_start(int route, const uint8_t *p, size_t n, size_t chunk) {
    nuif_ipipe *ip;
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, old;
    size_t slot = chunk + NUIF_S1_SLACK, need = slot * (NUIF_IPIPE_RING + 1);
    int rc;
    if (chunk == 0 || chunk % 64 != 0 || n == 0) {
        return NULL;
    }
    ip = __atomic_exchange_n(&nuif_ipipe_spare, NULL, __ATOMIC_ACQ_REL);
    if (ip != NULL && ip->ring_entries < need) {
        free(ip->ring);
        ip->ring = NULL;
        ip->ring_entries = 0;
    }
    if (ip == NULL) {
        ip = (nuif_ipipe *)calloc(1, sizeof(*ip));
        if (ip == NULL) {
            return NULL;
        }
    }
    if (ip->ring == NULL) {
        ip->ring = (uint32_t *)malloc(need * sizeof(uint32_t));
        if (ip->ring == NULL) {
            free(ip);
            return NULL;
        }
        ip->ring_entries = need;
    }
    ip->p = p;
    ip->n = n;
    ip->chunk = chunk;
    ip->nchunks = (n + chunk - 1) / chunk;
    ip->slot_entries = slot;
    ip->own = ip->ring + slot * NUIF_IPIPE_RING;
    ip->route = route;
    nuif_s1_start(&ip->st);
    ip->produced = ip->reading = ip->by_worker = 0;
    ip->taken = ip->busy = ip->worker_waiting = ip->reader_waiting = 0;
    ip->refs = 2;
    if (pthread_mutex_init(&ip->mu, NULL) != 0) {
        free(ip->ring);
        free(ip);
        return NULL;
    }
    pthread_cond_init(&ip->wake_worker, NULL); /* cannot fail with default attributes */
    pthread_cond_init(&ip->wake_reader, NULL);
    if (pthread_attr_init(&attr) != 0) {
        ip->refs = 1;
        pthread_mutex_lock(&ip->mu);
        nuif_ipipe_release(ip);
        return NULL;
    }
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* the worker starts with every signal blocked: signals keep going to the interpreter */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&thread, &attr, nuif_ipipe_run, ip);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        ip->refs = 1;
        pthread_mutex_lock(&ip->mu);
        nuif_ipipe_release(ip);
        return NULL;
    }
    return ip;
}

const uint32_t *nuif_ipipe_next(nuif_ipipe *ip, size_t c, size_t *count) {
    nuif_s1_state st;
    size_t got;
    pthread_mutex_lock(&ip->mu);
    ip->reading = c;
    /* half of the ring is free again: the worker may go on */
    if (ip->worker_waiting && ip->produced <= c + NUIF_IPIPE_RING / 2) {
        pthread_cond_signal(&ip->wake_worker);
    }
    if (ip->produced > c) { /* the worker's */
        *count = ip->counts[c % NUIF_IPIPE_RING];
        pthread_mutex_unlock(&ip->mu);
        return ip->ring + (c % NUIF_IPIPE_RING) * ip->slot_entries;
    }
    st = ip->st; /* produced == c: the chunks are read in order */
    pthread_mutex_unlock(&ip->mu);
    got = nuif_ipipe_index(ip, &st, c, ip->own);
    pthread_mutex_lock(&ip->mu);
    if (ip->produced == c) {
        ip->st = st;
        ip->produced = c + 1;
    }
    pthread_mutex_unlock(&ip->mu);
    *count = got;
    return ip->own;
}

int nuif_ipipe_ok(nuif_ipipe *ip) {
    int ok;
    pthread_mutex_lock(&ip->mu);
    ok = ip->produced == ip->nchunks && nuif_s1_ok(&ip->st);
    pthread_mutex_unlock(&ip->mu);
    return ok;
}

void nuif_ipipe_stop(nuif_ipipe *ip) {
    pthread_mutex_lock(&ip->mu);
    nuif_ipipe_last[0] = ip->by_worker;
    nuif_ipipe_last[1] = ip->produced;
    ip->taken = 1;
    pthread_cond_signal(&ip->wake_worker);
    /* the caller may free the input next: the worker must not be reading it */
    while (ip->busy) {
        ip->reader_waiting = 1;
        pthread_cond_wait(&ip->wake_reader, &ip->mu);
        ip->reader_waiting = 0;
    }
    nuif_ipipe_release(ip);
}

int nuif_ipipe_available(void) { return 1; }

struct nuif_helper {
    pthread_t thread;
    void (*fn)(void *);
    void *arg;
};

static void *nuif_helper_run(void *h) {
    ((nuif_helper *)h)->fn(((nuif_helper *)h)->arg);
    return NULL;
}

nuif_helper *nuif_helper_start(void (*fn)(void *), void *arg) {
    nuif_helper *h = (nuif_helper *)malloc(sizeof(*h));
    sigset_t all, old;
    int rc;
    if (h == NULL) return NULL;
    h->fn = fn;
    h->arg = arg;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&h->thread, NULL, nuif_helper_run, h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(h);
        return NULL;
    }
    return h;
}

void nuif_helper_join(nuif_helper *h) {
    pthread_join(h->thread, NULL);
    free(h);
}

void nuif_helper_yield(void) { sched_yield(); }

#else

nuif_ipipe *nuif_ipipe_start(int route, const uint8_t *p, size_t n, size_t chunk) {
    (void)route;
    (void)p;
    (void)n;
    (void)chunk;
    return NULL;
}
const uint32_t *nuif_ipipe_next(nuif_ipipe *ip, size_t c, size_t *count) {
    (void)ip;
    (void)c;
    *count = 0;
    return NULL;
}
int nuif_ipipe_ok(nuif_ipipe *ip) {
    (void)ip;
    return 0;
}
void nuif_ipipe_stop(nuif_ipipe *ip) { (void)ip; }
int nuif_ipipe_available(void) { return 0; }
void nuif_ipipe_set_lazy_worker(int on) { (void)on; }
void nuif_ipipe_last_counts(size_t *by_worker, size_t *chunks) {
    *by_worker = 0;
    *chunks = 0;
}
nuif_helper *nuif_helper_start(void (*fn)(void *), void *arg) {
    (void)fn;
    (void)arg;
    return NULL;
}
void nuif_helper_join(nuif_helper *h) { (void)h; }
void nuif_helper_yield(void) {}

#endif
