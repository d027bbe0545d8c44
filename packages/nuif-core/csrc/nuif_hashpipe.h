/* SHA-256 of a canonical text on a second thread while the text is being written.
 *
 * Canonicalizing a large document is: parse, check, write the canonical text, hash it.  SHA-256
 * is serial and costs ~10-20 % of the whole at 1-16 MiB (1.1-1.3 GB/s with the CPU's SHA
 * instructions), so the writer hands finished parts of its output to a worker thread, which feeds
 * them to OpenSSL's SHA-256 (libcrypto's functions as nuif_crypto.h binds them: nothing here
 * implements SHA-256) while the writer goes on.
 * When the writer is done, only the last part (at most one feed step) is left to hash.
 *
 * The protocol, all calls from the one writing thread:
 *
 *   hp = nuif_hashpipe_start();           NULL: no pipe here (hash the text yourself)
 *   nuif_hashpipe_feed(hp, base, n);      bytes [0, n) at base are final and may be read
 *   nuif_hashpipe_hold(hp);               base is about to move: returns once the worker is not
 *                                         reading it; feed again (with the new base) to go on
 *   nuif_hashpipe_finish(hp, base, n, d); all n bytes final: the writer takes over, hashes what
 *                                         the worker has not, digest into d (0) or -1; hp is gone
 *   nuif_hashpipe_abort(hp);              error path: stop; hp is gone
 *
 * After finish or abort the worker no longer reads the buffer; its thread goes back to the
 * codec's pool (nuif_thread_spawn, csrc/nuif_indexpipe.h).
 * The worker never touches Python objects and needs no GIL.  Built only with POSIX threads, and
 * only while libcrypto's functions are bound; elsewhere start() returns NULL and the caller
 * hashes as before.
 */
#ifndef NUIF_HASHPIPE_H
#define NUIF_HASHPIPE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nuif_hashpipe nuif_hashpipe;

nuif_hashpipe *nuif_hashpipe_start(void);
void nuif_hashpipe_feed(nuif_hashpipe *hp, const unsigned char *base, size_t n);
void nuif_hashpipe_hold(nuif_hashpipe *hp);
int nuif_hashpipe_finish(nuif_hashpipe *hp, const unsigned char *base, size_t n,
                         unsigned char *digest);
void nuif_hashpipe_abort(nuif_hashpipe *hp);

/* 1 when start() can return a pipe (threads built in, libcrypto's functions bound), else 0. */
int nuif_hashpipe_available(void);

/* The follower: SHA-256 of a text on a pooled thread (for a mid-size text, the one that spins
 * now: the split walk's helper just gave it back), reading right behind the writer.  The hashing pipe above hands
 * over slices under a lock, each on a copied context, which costs more than it saves below a few
 * hundred KiB; the follower shares one context and two counters, and only while a pooled thread
 * is spinning, so that it starts within a microsecond.  One follower at a time, driven by the
 * thread that writes (callers hold the GIL):
 *
 *   nuif_hashfollow_start(base, hot)  0: a follower hashes base[0, n) as n is fed; -1: none
 *                                     (hot and no spinning thread, no such build: hash the text
 *                                     yourself); without hot, a sleeping or new pooled thread
 *                                     may take the job (for large texts, which outlast its wake)
 *   nuif_hashfollow_feed(n)           bytes [0, n) of base are final (n never decreases)
 *   h = nuif_hashfollow_stop(n)       all of [0, n) is fed and the follower is over: it reads base
 *                                     no more, and [0, h) is hashed (h <= n; h = 0 when it never
 *                                     started: then it never will); call once per start, before
 *                                     base moves or is freed
 *   nuif_hashfollow_end(base, h, n, digest)
 *                                     after stop: hash base[h, n) and write the digest (0), or -1
 *
 * stop waits while the follower hashes the rest of what was fed (at most one piece past what it
 * had reached), so a follower descheduled in the middle of a piece holds the writer up until the
 * kernel runs it again.  The codec therefore uses it only where it is measured to pay: below
 * 512 KiB the mid-size split's record (which times the whole call, hash included) turns sharing
 * off where that happens often, and from 512 KiB a record of the writer's time with the
 * follower and with the pipe picks one (_speedups_hash.pxi). */
int nuif_hashfollow_start(const unsigned char *base, int hot_only);
/* the same, the follower calling idle(idle_arg) whenever it has hashed all that was fed (the
 * schema check's steps, nuif_check.h): a nonzero return means it did some work and is called
 * again after the next look at the text; a follower that never starts never calls it */
int nuif_hashfollow_start_idle(const unsigned char *base, int hot_only, int (*idle)(void *),
                               void *idle_arg);
void nuif_hashfollow_feed(size_t n);
size_t nuif_hashfollow_stop(size_t n);
int nuif_hashfollow_end(const unsigned char *base, size_t h, size_t n, unsigned char *digest);
/* Tests: of the last stopped follower, the bytes it hashed itself (0 when it never started);
 * *started: followers started since the process did. */
size_t nuif_hashfollow_last(size_t *started);

#ifdef __cplusplus
}
#endif

#endif
