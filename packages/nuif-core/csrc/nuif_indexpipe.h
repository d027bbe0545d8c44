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

/* A helper thread for the parser's split walk (csrc/nuif_stage2.h): fn(arg) runs on a new thread
 * (every signal blocked there, so they keep going to the interpreter's threads); join waits for
 * it to return and frees the handle.  NULL: no thread here (not built with threads, or none could
 * start): the caller does without.  yield gives the CPU up once (a thread that waits on the
 * other, spinning). */
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
