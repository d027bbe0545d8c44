/* Stage 1 of the structural-index parser on a second thread, ahead of stage 2.
 *
 * Stage 2 (csrc/nuif_stage2.h) reads the index chunk by chunk.  For a large input a worker thread
 * indexes the chunks ahead of it (nuif_s1_chunk, csrc/nuif_stage1.h) into a ring of chunk
 * buffers, so the parsing thread spends its time in stage 2 only.  The protocol, all calls from
 * the one parsing thread:
 *
 *   ip = nuif_ipipe_start(route, p, n, chunk);   NULL: no pipe (index the chunks yourself)
 *   idx = nuif_ipipe_next(ip, c, &count);        the entries of chunk c (c = 0, 1, 2, ... in
 *                                                order; the entries of chunk c - 1 are no
 *                                                longer read); NULL: out of memory
 *   ok = nuif_ipipe_ok(ip);                      after the last chunk: stage 1's verdict
 *   nuif_ipipe_stop(ip);                         done (at any point): ip is gone, and the
 *                                                worker no longer reads p
 *
 * The parsing thread never waits for the worker: a chunk the worker has not indexed yet (it
 * has not started, is descheduled, or is behind) the parsing thread indexes itself, and the
 * worker goes on from whichever side got further.  The worker sleeps while it is a ring's length
 * ahead and is woken when half of the ring is free, so the threads meet a few times per MiB, not
 * once per chunk.  Only stop() waits for a worker in the middle of a chunk (it must not read the
 * input afterwards).  The ring (and the structure) are
 * kept for the next pipe.  Built with POSIX threads; elsewhere start() returns NULL.
 */
#ifndef NUIF_INDEXPIPE_H
#define NUIF_INDEXPIPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nuif_ipipe nuif_ipipe;

nuif_ipipe *nuif_ipipe_start(int route, const uint8_t *p, size_t n, size_t chunk);
const uint32_t *nuif_ipipe_next(nuif_ipipe *ip, size_t c, size_t *count);
int nuif_ipipe_ok(nuif_ipipe *ip);
void nuif_ipipe_stop(nuif_ipipe *ip);

/* 1 when start() can return a pipe (built with threads), else 0. */
int nuif_ipipe_available(void);

/* The codec's second threads, kept.  fn(arg) runs on a thread of a small process-wide pool: an idle
 * pooled thread when there is one, else a new one (which the kernel may start only after tens or
 * hundreds of microseconds when the caller keeps its CPU busy), which joins the pool when fn
 * returns.  A thread that joins the pool spins for a while (nuif_thread_set_spin, 200 us by
 * default), so that a job given to it then starts within a microsecond; then it sleeps (a job given
 * to it then starts once the kernel wakes it: ~20 us here), and after NUIF_POOL_KEEP_S seconds
 * without a job it exits.  One thread spins at a time, and a job goes to it first; on Linux a
 * pooled thread that finds itself on the CPU its caller gave work from moves to another.  At most
 * NUIF_POOL_IDLE threads wait in the pool; a forked child starts with an empty pool.  Every signal
 * is blocked on pooled threads, so signals keep going to the interpreter's threads.  0: fn(arg)
 * runs (the caller's synchronisation says when it is done); -1: no thread (not built with threads,
 * or none could start): the caller does without. */
int nuif_thread_spawn(void *(*fn)(void *), void *arg);
/* 1 when a pooled thread is spinning now: a job given to it starts at once (so work too small
 * to be worth waking a thread for may be shared). */
int nuif_thread_hot(void);
/* A monotonic clock in nanoseconds, for timing the work shared with a spinning thread; 0
 * always where the build has no threads (and so shares nothing). */
long long nuif_clock_ns(void);
/* Unless a pooled thread is spinning already, give one nothing to do, so that it spins after it
 * (a caller about to be called again soon, with work worth sharing only with a spinning thread). */
void nuif_thread_warm(void);
/* How long a thread that joins the pool spins first, in microseconds (0: it sleeps at once). */
void nuif_thread_set_spin(long us);
long nuif_thread_spin(void);
/* Tests: threads the pool created and jobs an idle pooled thread took, since the process (or
 * the fork) started; *idle: threads waiting in the pool now. */
void nuif_thread_counts(size_t *created, size_t *reused, size_t *idle);
/* Tests: 0 empties the pool and keeps it empty (every job gets a new thread, as before the pool
 * was there); 1 keeps idle threads again.  Returns the old setting. */
int nuif_thread_set_pool(int on);

/* A helper thread for the parser's split walk (csrc/nuif_stage2.h): fn(arg) runs on a pooled
 * thread (nuif_thread_spawn); join waits for it to return and frees the handle.  NULL: no thread
 * here: the caller does without.  yield gives the CPU up once (a thread that waits on the other,
 * spinning). */
typedef struct nuif_helper nuif_helper;
nuif_helper *nuif_helper_start(void (*fn)(void *), void *arg);
void nuif_helper_join(nuif_helper *h);
void nuif_helper_yield(void);

/* Tests: 1 makes the worker index nothing (the parsing thread indexes every chunk itself). */
void nuif_ipipe_set_lazy_worker(int on);
/* Tests: of the chunks the last stopped pipe had indexed, how many the worker indexed. */
void nuif_ipipe_last_counts(size_t *by_worker, size_t *chunks);

#ifdef __cplusplus
}
#endif

#endif
