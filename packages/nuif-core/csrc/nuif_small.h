/* The one-call path of small documents: canonicalize and validate of a valid NUIF document of
 * fewer than 16 KiB, in one C function on one state kept between calls (set up and called by
 * src/nuif_core/_speedups_small.pxi; docs/parser-design.md, "The one-call path of small
 * documents").
 *
 * It runs what the general path runs for such a document -- the walk (nuif_walk.h),
 * the §3 check (nuif_check.h), the canonical writer with SHA-256 beside it (nuif_write.h) -- on
 * the same C functions, with none of the general path's per-call objects: its buffers (the
 * walk's tape, arena, name stacks, doubles and frames, the id set, the text) belong to the state
 * and grow, never shrink; its stacks are the caller's (documents nesting deeper than
 * NUIF_SMALL_LEVELS are not its own).  It says yes (NUIF_SMALL_OK: the canonical text in
 * out[0:out_len), its SHA-256 in digest) or passes (NUIF_SMALL_PASS): for anything that is not
 * a valid document, for a double only Python prints, for a hash that failed, and when memory
 * runs out.  The general path then does the whole call again and owns every answer other than
 * yes: errors and diagnostics, with their codes and locations, come from there only.
 *
 * It calls no Python code and takes memory with PyMem_*: the caller holds the GIL throughout,
 * so no other call can reach the state while it runs. */
#ifndef NUIF_SMALL_H
#define NUIF_SMALL_H

/* the writer's header first: it includes Python.h (through nuif_check.h) */
#include "nuif_write.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_walk.h"

enum { NUIF_SMALL_OK = 0, NUIF_SMALL_PASS = 1 };

/* the deepest nesting the path takes (its writer's and check's stacks are on the C stack) */
#define NUIF_SMALL_LEVELS 32

typedef struct {
    nuif_s2 s;          /* the walk, with its buffers */
    uint64_t *ids;      /* the check's id set (nuif_check.h: entries stamped by generation) */
    size_t ids_alloc;
    uint64_t ids_gen;
    char *out;          /* the canonical text */
    size_t out_cap, out_len;
    unsigned char digest[32];
    size_t answered;    /* calls answered (tests) */
} nuif_small;

/* Room for `need` bytes of text: 0, or -1 when memory ran out. */
static int nuif_small_room(nuif_small *st, size_t need) {
    size_t cap = st->out_cap * 2;
    char *q;
    if (cap < need) cap = need;
    q = (char *)PyMem_Realloc(st->out, cap);
    if (q == NULL) return -1;
    st->out = q;
    st->out_cap = cap;
    return 0;
}

/* Canonicalize and hash p[0:n) (valid UTF-8, NUL at p[n]: the caller checked the first, the
 * bytes object holds the second), nesting at most max_depth deep, with at most max_nodes nodes,
 * doubles printed by the libraries when float_libs.  NUIF_SMALL_OK or NUIF_SMALL_PASS (above). */
static int nuif_small_run(nuif_small *st, const uint8_t *p, size_t n, size_t max_depth,
                          size_t max_nodes, int float_libs) {
    nuif_s2 *s = &st->s;
    nuif_check ck;
    nuif_writer w;
    nuif_sha256_ctx *sha;
    size_t ck_stack[2 * NUIF_SMALL_LEVELS];
    size_t open_stack[3 * NUIF_SMALL_LEVELS];
    size_t most = 16;
    ptrdiff_t on = 0;
    int rc;
    s->p = p;
    s->n = n;
    s->max_depth = max_depth;
    s->float_libs = float_libs;
    if (nuif_s2_parse(s) != NUIF_S2_OK || s->deepest + 2 > NUIF_SMALL_LEVELS) {
        return NUIF_SMALL_PASS;
    }
    /* the check, whole, before anything is written (it marks what normalization omits); the id
     * set as _speedups_schema.pxi's _check_prepare sizes it, a new generation a call */
    while (most < 2 * (s->ntok / 5 + 1)) most *= 2;
    if (st->ids_alloc < most) {
        uint64_t *t = (uint64_t *)PyMem_Calloc(most, sizeof(uint64_t));
        if (t == NULL) return NUIF_SMALL_PASS;
        PyMem_Free(st->ids);
        st->ids = t;
        st->ids_alloc = most;
        st->ids_gen = 0;
    }
    if (++st->ids_gen > NUIF_CK_GEN_MAX) {
        memset(st->ids, 0, st->ids_alloc * sizeof(uint64_t));
        st->ids_gen = 1;
    }
    nuif_check_start(&ck, s->tape, p, n, s->arena, s->arena_cap, s->doubles, max_nodes, ck_stack,
                     s->deepest + 2, st->ids, most, st->ids_gen);
    if (nuif_check_finish(&ck) != 1) return NUIF_SMALL_PASS;
    /* the writer, hashing each 64-byte block once it is written */
    if (st->out_cap < n + 64 && nuif_small_room(st, n + 64)) return NUIF_SMALL_PASS;
    if ((sha = nuif_sha256_begin()) == NULL) return NUIF_SMALL_PASS;
    nuif_write_start(&w, s->tape, s->order, p, n, s->arena, s->arena_cap, s->doubles, float_libs,
                     open_stack, NUIF_SMALL_LEVELS);
    w.feed_at = 64;
    w.sha_update = nuif_sha256_update;
    w.sha_ctx = sha;
    for (;;) {
        rc = nuif_write_run(&w, st->out, &on, (ptrdiff_t)st->out_cap);
        if (rc == NUIF_W_DONE) break;
        if (rc != NUIF_W_ROOM || nuif_small_room(st, (size_t)on + w.need)) {
            return NUIF_SMALL_PASS; /* a double only Python prints, or no memory */
        }
    }
    if (w.sha_update == NULL ||
        w.sha_update(sha, st->out + w.hashed, (size_t)on - w.hashed) != 1 ||
        nuif_sha256_final(sha, st->digest) != 1) {
        return NUIF_SMALL_PASS;
    }
    st->out_len = (size_t)on;
    st->answered++;
    return NUIF_SMALL_OK;
}

/* Free the state's buffers (they grow again on the next call). */
static void nuif_small_free(nuif_small *st) {
    nuif_s2 *s = &st->s;
    PyMem_Free(s->tape);
    PyMem_Free(s->arena);
    PyMem_Free(s->names);
    PyMem_Free(s->order);
    PyMem_Free(s->sort_buf);
    PyMem_Free(s->doubles);
    PyMem_Free(s->frames);
    PyMem_Free(st->ids);
    PyMem_Free(st->out);
    memset(st, 0, sizeof(*st));
}

#endif
