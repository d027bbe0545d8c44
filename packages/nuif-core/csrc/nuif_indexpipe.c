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
#if NUIF_HAVE_PTHREADS && defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getcpu, sched_setaffinity: the pool's threads step aside */
#endif
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
#include <time.h>

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
    size_t slot = chunk + NUIF_S1_SLACK, need = slot * (NUIF_IPIPE_RING + 1);
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
    /* the worker: a pooled thread (nuif_thread_spawn) */
    if (nuif_thread_spawn(nuif_ipipe_run, ip) != 0) {
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

/* The pool (nuif_thread_spawn).  Each pooled thread has a slot.  A thread that has run its job
 * puts its slot on the idle list; unless another one is spinning already (nuif_pool_spinner), it
 * then spins for up to nuif_pool_spin_ns, watching its slot for a next job (a job handed to it
 * now starts within a microsecond, and spawn hands the next job to it first); then it waits on
 * its slot's condition variable (a job handed to it now starts once the kernel wakes it: ~20 us
 * on the 2-CPU VM this was measured on, where an idle CPU is halted), for NUIF_POOL_KEEP_S
 * seconds at most. */
#define NUIF_POOL_IDLE 4
#define NUIF_POOL_KEEP_S 30
#ifndef NUIF_POOL_SPIN_US
#define NUIF_POOL_SPIN_US 200
#endif

/* Linux: a pooled thread found on the CPU its caller last ran on moves to another one.  The
 * kernel tends to wake a thread on the CPU of the thread that wakes it, and on this VM the idle
 * CPU is not quick to pull it away: a spinning thread there took turns with its caller for
 * milliseconds (64 KiB calls ~40 % slower), where it was meant to run beside it. */
#if defined(__linux__) && defined(CPU_SET)
#define NUIF_POOL_ASIDE 1
#else
#define NUIF_POOL_ASIDE 0
#endif

/* The keep-alive wait is timed on the monotonic clock (immune to the clock being set) where
 * condition variables can use it; macOS's cannot, so there it is the wall clock. */
#if defined(__APPLE__)
#define NUIF_POOL_WAIT_CLOCK CLOCK_REALTIME
#else
#define NUIF_POOL_WAIT_CLOCK CLOCK_MONOTONIC
#endif

#if defined(__x86_64__) || defined(__i386__)
#define NUIF_POOL_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define NUIF_POOL_RELAX() __asm__ __volatile__("yield")
#else
#define NUIF_POOL_RELAX() ((void)0)
#endif

typedef struct nuif_slot {
    pthread_cond_t wake;
    void *(*fn)(void *); /* the job (set under nuif_pool_mu; NULL: none yet) */
    void *arg;
    struct nuif_slot *next;
#if NUIF_POOL_ASIDE
    cpu_set_t allowed; /* the CPUs the thread was started with */
#endif
} nuif_slot;

static pthread_mutex_t nuif_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t nuif_pool_once = PTHREAD_ONCE_INIT;
static nuif_slot *nuif_pool_idle; /* the idle slots */
static size_t nuif_pool_nidle, nuif_pool_created, nuif_pool_reused;
static size_t nuif_pool_nbusy; /* threads running a job (written under the lock) */
static size_t nuif_pool_max = NUIF_POOL_IDLE; /* nuif_thread_set_pool */
static long nuif_pool_spin_ns = NUIF_POOL_SPIN_US * 1000L; /* nuif_thread_set_spin */
static nuif_slot *nuif_pool_spinner; /* the idle slot whose thread spins, or NULL (atomic) */

static pthread_mutex_t nuif_helper_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nuif_helper_cv = PTHREAD_COND_INITIALIZER;

/* fork: the pool's locks are held across it, so that the child gets them in a known state; in
 * the child only the forking thread exists, so the pool starts again empty (the slots of the
 * parent's threads are abandoned, a few bytes each). */
static void nuif_pool_prepare(void) {
    pthread_mutex_lock(&nuif_pool_mu);
    pthread_mutex_lock(&nuif_helper_mu);
}

static void nuif_pool_parent(void) {
    pthread_mutex_unlock(&nuif_helper_mu);
    pthread_mutex_unlock(&nuif_pool_mu);
}

static void nuif_pool_child(void) {
    pthread_mutex_unlock(&nuif_helper_mu);
    pthread_cond_init(&nuif_helper_cv, NULL); /* its waiters, if any, are not in the child */
    nuif_pool_idle = NULL;
    nuif_pool_nidle = nuif_pool_created = nuif_pool_reused = nuif_pool_nbusy = 0;
    nuif_pool_spinner = NULL;
    pthread_mutex_unlock(&nuif_pool_mu);
}

static void nuif_pool_init(void) {
    pthread_atfork(nuif_pool_prepare, nuif_pool_parent, nuif_pool_child);
}

static void nuif_slot_free(nuif_slot *w) {
    pthread_cond_destroy(&w->wake);
    free(w);
}

#if NUIF_POOL_ASIDE
static int nuif_pool_caller_cpu = -1; /* the CPU the last caller gave a job from (atomic) */

static void nuif_pool_note_caller(void) {
    __atomic_store_n(&nuif_pool_caller_cpu, sched_getcpu(), __ATOMIC_RELAXED);
}

/* When w's thread runs on the caller's CPU, move it to one of its other allowed CPUs. */
static void nuif_pool_step_aside(nuif_slot *w) {
    int c = __atomic_load_n(&nuif_pool_caller_cpu, __ATOMIC_RELAXED);
    cpu_set_t m;
    if (c < 0 || c >= CPU_SETSIZE || sched_getcpu() != c) return;
    m = w->allowed;
    CPU_CLR(c, &m);
    if (CPU_COUNT(&m) > 0) sched_setaffinity(0, sizeof(m), &m);
}
#else
#define nuif_pool_note_caller() ((void)0)
#define nuif_pool_step_aside(w) ((void)(w))
#endif

static long nuif_pool_ns_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (long)(t1.tv_sec - t0->tv_sec) * 1000000000L + (t1.tv_nsec - t0->tv_nsec);
}

/* Spin (the lock not held) until w has a job or the spin (read again as it goes: lowering it
 * cuts a spin short) has passed since t0. */
static void nuif_pool_spin(nuif_slot *w, const struct timespec *t0) {
    unsigned k;
    for (k = 1; __atomic_load_n(&w->fn, __ATOMIC_ACQUIRE) == NULL; k++) {
        NUIF_POOL_RELAX();
        if (k % 64 == 0) {
            if (nuif_pool_ns_since(t0) > __atomic_load_n(&nuif_pool_spin_ns, __ATOMIC_RELAXED)) {
                break;
            }
            nuif_pool_step_aside(w);
        }
    }
}

static void *nuif_pool_run(void *arg) {
    nuif_slot *w = (nuif_slot *)arg, **q;
    struct timespec spun, until;
    void *(*fn)(void *);
    int rc, spin;
#if NUIF_POOL_ASIDE
    if (sched_getaffinity(0, sizeof(w->allowed), &w->allowed) != 0) CPU_ZERO(&w->allowed);
#endif
    for (;;) {
        fn = w->fn;
        nuif_pool_step_aside(w);
        fn(w->arg);
        pthread_mutex_lock(&nuif_pool_mu);
        __atomic_store_n(&nuif_pool_nbusy, nuif_pool_nbusy - 1, __ATOMIC_RELAXED);
        if (nuif_pool_nidle >= nuif_pool_max) break;
        __atomic_store_n(&w->fn, NULL, __ATOMIC_RELAXED);
        w->next = nuif_pool_idle;
        nuif_pool_idle = w;
        nuif_pool_nidle++;
        /* one thread spins at a time: each call shares its work with one thread, and on a
         * 2-CPU machine a second spinner would take the CPU from the caller */
        spin = __atomic_load_n(&nuif_pool_spin_ns, __ATOMIC_RELAXED) > 0 &&
               nuif_pool_spinner == NULL;
        if (spin) {
            __atomic_store_n(&nuif_pool_spinner, w, __ATOMIC_RELEASE);
            clock_gettime(CLOCK_MONOTONIC, &spun);
            pthread_mutex_unlock(&nuif_pool_mu);
            nuif_pool_spin(w, &spun);
            pthread_mutex_lock(&nuif_pool_mu);
            if (nuif_pool_spinner == w) {
                __atomic_store_n(&nuif_pool_spinner, NULL, __ATOMIC_RELEASE);
            }
        }
        clock_gettime(NUIF_POOL_WAIT_CLOCK, &until);
        until.tv_sec += NUIF_POOL_KEEP_S;
        rc = 0;
        while (w->fn == NULL) {
            if (rc != 0 || nuif_pool_max == 0) {
                /* kept long enough (or the pool was turned off, or the wait failed): leave the
                 * idle list and exit */
                for (q = &nuif_pool_idle; *q != w; q = &(*q)->next) {
                }
                *q = w->next;
                nuif_pool_nidle--;
                goto out;
            }
            rc = pthread_cond_timedwait(&w->wake, &nuif_pool_mu, &until);
        }
        pthread_mutex_unlock(&nuif_pool_mu);
    }
out:
    pthread_mutex_unlock(&nuif_pool_mu);
    nuif_slot_free(w);
    return NULL;
}

int nuif_thread_hot(void) { return __atomic_load_n(&nuif_pool_spinner, __ATOMIC_ACQUIRE) != NULL; }

long long nuif_clock_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *nuif_pool_nothing(void *arg) { return arg; }

void nuif_thread_warm(void) {
    /* a thread still running a job spins after it: no other is needed */
    if (__atomic_load_n(&nuif_pool_spin_ns, __ATOMIC_RELAXED) > 0 && !nuif_thread_hot() &&
        __atomic_load_n(&nuif_pool_nbusy, __ATOMIC_RELAXED) == 0) {
        nuif_thread_spawn(nuif_pool_nothing, NULL);
    }
}

void nuif_thread_set_spin(long us) {
    __atomic_store_n(&nuif_pool_spin_ns, us > 0 ? us * 1000L : 0, __ATOMIC_RELAXED);
}

long nuif_thread_spin(void) {
    return __atomic_load_n(&nuif_pool_spin_ns, __ATOMIC_RELAXED) / 1000L;
}

/* w's condition variable and thread (0), or -1 with nothing left to undo but w itself. */
static int nuif_pool_start(nuif_slot *w) {
    pthread_condattr_t ca;
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, old;
    int rc;
    if (pthread_condattr_init(&ca) != 0) return -1;
#if !defined(__APPLE__)
    pthread_condattr_setclock(&ca, NUIF_POOL_WAIT_CLOCK);
#endif
    rc = pthread_cond_init(&w->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0) return -1;
    if (pthread_attr_init(&attr) != 0) {
        pthread_cond_destroy(&w->wake);
        return -1;
    }
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* the thread starts with every signal blocked: signals keep going to the interpreter */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&thread, &attr, nuif_pool_run, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) pthread_cond_destroy(&w->wake);
    return rc != 0 ? -1 : 0;
}

int nuif_thread_spawn(void *(*fn)(void *), void *arg) {
    nuif_slot *w, **q;
    int rc = -1;
    pthread_once(&nuif_pool_once, nuif_pool_init);
    nuif_pool_note_caller();
    pthread_mutex_lock(&nuif_pool_mu);
    /* the spinning thread first (it starts at once), else the last one to become idle */
    w = nuif_pool_spinner != NULL ? nuif_pool_spinner : nuif_pool_idle;
    if (w != NULL) {
        for (q = &nuif_pool_idle; *q != w; q = &(*q)->next) {
        }
        *q = w->next;
        if (w == nuif_pool_spinner) __atomic_store_n(&nuif_pool_spinner, NULL, __ATOMIC_RELEASE);
        nuif_pool_nidle--;
        nuif_pool_reused++;
        __atomic_store_n(&nuif_pool_nbusy, nuif_pool_nbusy + 1, __ATOMIC_RELAXED);
        w->arg = arg;
        __atomic_store_n(&w->fn, fn, __ATOMIC_RELEASE); /* a spinning thread starts here */
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&nuif_pool_mu);
        return 0;
    }
    /* none idle: a new thread, counted busy from here (undone below if it cannot start) */
    __atomic_store_n(&nuif_pool_nbusy, nuif_pool_nbusy + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&nuif_pool_mu);
    w = (nuif_slot *)malloc(sizeof(*w));
    if (w != NULL) {
        w->fn = fn;
        w->arg = arg;
        w->next = NULL;
        rc = nuif_pool_start(w);
    }
    pthread_mutex_lock(&nuif_pool_mu);
    if (w == NULL || rc != 0) {
        __atomic_store_n(&nuif_pool_nbusy, nuif_pool_nbusy - 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&nuif_pool_mu);
        free(w);
        return -1;
    }
    nuif_pool_created++;
    pthread_mutex_unlock(&nuif_pool_mu);
    return 0;
}


int nuif_thread_set_pool(int on) {
    nuif_slot *w;
    int old;
    pthread_once(&nuif_pool_once, nuif_pool_init);
    pthread_mutex_lock(&nuif_pool_mu);
    old = nuif_pool_max != 0;
    nuif_pool_max = on ? NUIF_POOL_IDLE : 0;
    if (!on) { /* wake the idle threads with nothing to do: they exit */
        for (w = nuif_pool_idle; w != NULL; w = w->next) pthread_cond_signal(&w->wake);
    }
    pthread_mutex_unlock(&nuif_pool_mu);
    return old;
}

void nuif_thread_counts(size_t *created, size_t *reused, size_t *idle) {
    pthread_mutex_lock(&nuif_pool_mu);
    *created = nuif_pool_created;
    *reused = nuif_pool_reused;
    *idle = nuif_pool_nidle;
    pthread_mutex_unlock(&nuif_pool_mu);
}

/* A helper's handle: `done` (under nuif_helper_mu) is set when fn has returned. */
struct nuif_helper {
    void (*fn)(void *);
    void *arg;
    int done;
};

static void *nuif_helper_run(void *arg) {
    nuif_helper *h = (nuif_helper *)arg;
    h->fn(h->arg);
    pthread_mutex_lock(&nuif_helper_mu);
    h->done = 1; /* from here on the joiner may free h */
    pthread_cond_broadcast(&nuif_helper_cv);
    pthread_mutex_unlock(&nuif_helper_mu);
    return NULL;
}

nuif_helper *nuif_helper_start(void (*fn)(void *), void *arg) {
    nuif_helper *h = (nuif_helper *)malloc(sizeof(*h));
    if (h == NULL) return NULL;
    h->fn = fn;
    h->arg = arg;
    h->done = 0;
    if (nuif_thread_spawn(nuif_helper_run, h) != 0) {
        free(h);
        return NULL;
    }
    return h;
}

void nuif_helper_join(nuif_helper *h) {
#ifndef NUIF_PLANT_JOIN_EARLY /* tests/core/pool_harness.c: a planted bug it must catch */
    pthread_mutex_lock(&nuif_helper_mu);
    while (!h->done) pthread_cond_wait(&nuif_helper_cv, &nuif_helper_mu);
    pthread_mutex_unlock(&nuif_helper_mu);
    free(h);
#else
    (void)h; /* returns before the helper is done (and leaks h, which it may still use) */
#endif
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
int nuif_thread_spawn(void *(*fn)(void *), void *arg) {
    (void)fn;
    (void)arg;
    return -1;
}
int nuif_thread_set_pool(int on) {
    (void)on;
    return 1;
}
int nuif_thread_hot(void) { return 0; }
long long nuif_clock_ns(void) { return 0; }
void nuif_thread_warm(void) {}
void nuif_thread_set_spin(long us) { (void)us; }
long nuif_thread_spin(void) { return 0; }
void nuif_thread_counts(size_t *created, size_t *reused, size_t *idle) {
    *created = 0;
    *reused = 0;
    *idle = 0;
}
nuif_helper *nuif_helper_start(void (*fn)(void *), void *arg) {
    (void)fn;
    (void)arg;
    return NULL;
}
void nuif_helper_join(nuif_helper *h) { (void)h; }
void nuif_helper_yield(void) {}

#endif
