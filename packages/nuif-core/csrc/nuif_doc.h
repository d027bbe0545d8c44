/* The codec's one pipeline: a strict I-JSON text to its RFC 8785 text, with, for a NUIF
 * document, the NUIF-0 §3 check before the text is written and the SHA-256 of the text made
 * while it is written (driven by src/nuif_core/_speedups_doc.pxi in the extension, by
 * wasm/nuif_wasm.c in the WebAssembly build).
 *
 *     walk (nuif_walk.h) -> §3 check (nuif_check.h, documents) -> writer (nuif_write.h)
 *                                                                  + SHA-256 (nuif_sha256.h)
 *
 * The text goes into an output text of the host's (nuif_host.h: a bytes object in the
 * extension).  Every call runs the same steps, whatever the input's size; only a document's
 * check and hash are the caller's choice (`mode`).  The answer is the text (in mode DIGEST,
 * where only the hash is wanted, an empty text: no text is copied out of the scratch), or NULL
 * with `*status`:
 *
 *   NUIF_DOC_TEXT    the input is not strict I-JSON, or nests deeper than max_depth: the walk
 *                    recorded where it stopped, and nuif_fault.h says why (errors are the slow
 *                    path, and have one reporter);
 *   NUIF_DOC_SCHEMA  a valid text, not a valid document (or one of more than max_nodes nodes):
 *                    nuif_report.h reports every problem (src/nuif_core/_speedups_report.pxi);
 *   NUIF_DOC_ERROR   memory ran out, or the host's float fallback failed (the host recorded it).
 *
 * What lasts from one call to the next is in nuif_doc and nowhere else: the walk's buffers (its
 * tape, arena, names, doubles), the check's id set, the stacks of the check and the writer, the
 * digest's context, and an output scratch buffer of up to NUIF_DOC_SCRATCH_KEEP bytes.  Buffers
 * grow to the largest input seen and stay (the scratch only up to its limit): fresh pages cost
 * ~2 us per 4 KiB here, so reusing them is most of what a small call saves.  A text longer than
 * the scratch's limit is written straight into its output text, resized as it grows (no copy, no
 * double peak memory), with the huge-page hint from 4 MiB.  The tape stays in the state after
 * the call, for the inspect summary to read.
 *
 * A state serves one call at a time: the extension's callers hold the GIL throughout and no host
 * function runs Python code, so no other call can reach the state while one runs; a caller that
 * keeps reading the tape while it runs Python code marks the state busy (the next call then uses
 * a state of its own). */
#ifndef NUIF_DOC_H
#define NUIF_DOC_H

#include "nuif_host.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_fallback.h"
#include "nuif_scan.h"
#include "nuif_sha256.h"
#include "nuif_walk.h"
#include "nuif_write.h"

enum { NUIF_DOC_OK = 0, NUIF_DOC_TEXT = 1, NUIF_DOC_SCHEMA = 2, NUIF_DOC_ERROR = 3 };

/* the modes: a JSON text; a document (the §3 check); a document and its digest; a document's
 * digest alone (an empty text is returned) */
enum { NUIF_DOC_JSON = 0, NUIF_DOC_CHECK = 1, NUIF_DOC_HASH = 2, NUIF_DOC_DIGEST = 3 };

/* the largest output scratch kept between calls by default (scratch_keep); longer texts go
 * straight into their output text */
#define NUIF_DOC_SCRATCH_KEEP ((size_t)4 << 20)

typedef struct {
    nuif_walk s;   /* the walk and its buffers (the tape of the last call) */
    uint64_t *ids; /* the check's id set (nuif_check.h: entries stamped by generation) */
    size_t ids_alloc;
    uint64_t ids_gen;
    size_t *stack;    /* the check's walk (2 words a level), then the writer's (3 a level) */
    size_t stack_cap; /* in words */
    char *scratch;    /* the output scratch */
    size_t scratch_cap;
    size_t scratch_keep; /* the scratch's limit (NUIF_DOC_SCRATCH_KEEP; 0: no scratch) */
    nuif_sha256_ctx sha;
    unsigned char digest[32]; /* modes HASH and DIGEST: the text's SHA-256 */
    int busy; /* the tape is being read (inspect): the next call takes another state */
} nuif_doc;

/* the output: the scratch, or an output text of its own */
typedef struct {
    nuif_doc *st;
    void *text; /* the host's text written into, or NULL while in the scratch */
    char *b;
    size_t cap;
} nuif_doc_out;

/* Room for `need` bytes past the first n: 0, or -1 (the host recorded why).  The scratch grows
 * up to its limit; past it the text moves into an output text, which then grows in place. */
static int nuif_doc_room(nuif_doc_out *out, size_t n, size_t need) {
    size_t cap = out->cap * 2;
    char *q = NULL;
    if (cap < n + need) cap = n + need;
    if (out->text != NULL) {
        if (nuif_host_text_grow(&out->text, cap, &out->b)) return -1;
    } else if (cap <= out->st->scratch_keep) {
        q = (char *)nuif_host_realloc(out->st->scratch, cap);
        if (q == NULL) {
            nuif_host_nomem();
            return -1;
        }
        out->b = out->st->scratch = q;
        out->st->scratch_cap = cap;
    } else {
        out->text = nuif_host_text_new(cap, &q);
        if (out->text == NULL) return -1;
        if (n) memcpy(q, out->b, n);
        out->b = q;
    }
    if (out->text != NULL && cap >= ((size_t)4 << 20)) nuif_hint_huge(out->b, cap);
    out->cap = cap;
    return 0;
}

/* The text b[0:n) as an output text of its size (the output's own, cut, or a copy of the
 * scratch); NULL (the host recorded why). */
static void *nuif_doc_finish(nuif_doc_out *out, size_t n) {
    void *text = out->text;
    out->text = NULL;
    if (text == NULL) return nuif_host_text_copy(out->b, n);
    return nuif_host_text_end(text, n);
}

/* Room for `words` words of stack: 0, or -1 (memory ran out: recorded). */
static int nuif_doc_stack(nuif_doc *st, size_t words) {
    size_t *q;
    if (words <= st->stack_cap) return 0;
    q = (size_t *)nuif_host_realloc(st->stack, words * sizeof(size_t));
    if (q == NULL) {
        nuif_host_nomem();
        return -1;
    }
    st->stack = q;
    st->stack_cap = words;
    return 0;
}

/* The §3 check of the tape (nuif_check.h): 1 valid, 0 not, -1 (memory ran out: recorded).  The
 * id set has room for every node the tape can hold (a node takes at least five tokens), so the
 * check never allocates; a new generation a call, so the kept table needs no zeroing. */
static int nuif_doc_check(nuif_doc *st, const uint8_t *p, size_t n, size_t max_nodes) {
    nuif_walk *s = &st->s;
    nuif_check ck;
    size_t most = 16;
    while (most < 2 * (s->ntok / 5 + 1)) most *= 2;
    if (st->ids_alloc < most) {
        uint64_t *t = (uint64_t *)nuif_host_calloc(most, sizeof(uint64_t));
        if (t == NULL) {
            nuif_host_nomem();
            return -1;
        }
        nuif_host_free(st->ids);
        st->ids = t;
        st->ids_alloc = most;
        st->ids_gen = 0;
    }
    if (++st->ids_gen > NUIF_CK_GEN_MAX) {
        memset(st->ids, 0, st->ids_alloc * sizeof(uint64_t));
        st->ids_gen = 1;
    }
    if (nuif_doc_stack(st, 2 * (s->deepest + 2))) return -1;
    nuif_check_start(&ck, s->tape, p, n, s->arena, s->arena_cap, s->doubles, max_nodes, st->stack,
                     s->deepest + 2, st->ids, most, st->ids_gen);
    return nuif_check_finish(&ck);
}

/* The writer over the tape into a new output text, hashing the text into st->digest when `hash`;
 * with `digest_only`, an empty text instead; NULL (the host recorded why). */
static void *nuif_doc_write(nuif_doc *st, const uint8_t *p, size_t n, int float_libs, int hash,
                            int digest_only) {
    nuif_walk *s = &st->s;
    nuif_writer w;
    nuif_doc_out out;
    ptrdiff_t on = 0, k;
    size_t levels = s->deepest + 1;
    int rc;
    if (nuif_doc_stack(st, 3 * levels)) return NULL;
    out.st = st;
    out.text = NULL;
    out.b = st->scratch;
    out.cap = st->scratch_cap;
    if (out.cap < n + 64 && nuif_doc_room(&out, 0, n + 64)) return NULL;
    nuif_write_start(&w, s->tape, s->order, p, n, s->arena, s->arena_cap, s->doubles, float_libs,
                     st->stack, levels);
    if (hash) {
        nuif_sha256_init(&st->sha);
        w.sha_ctx = &st->sha;
        w.feed_at = 64;
    }
    for (;;) {
        rc = nuif_write_run(&w, out.b, &on, (ptrdiff_t)out.cap);
        if (rc == NUIF_W_DONE) break;
        if (rc == NUIF_W_ROOM) {
            if (nuif_doc_room(&out, (size_t)on, w.need)) goto fail;
            continue;
        }
        /* NUIF_W_VALUE: a double the libraries do not print */
        if ((size_t)on + NUIF_NUMBER_TEXT_MAX > out.cap &&
            nuif_doc_room(&out, (size_t)on, NUIF_NUMBER_TEXT_MAX)) {
            goto fail;
        }
        k = nuif_fmt_double(out.b + on, s->doubles[s->tape[w.t].dbl], 0);
        if (k < 0) goto fail;
        on += k;
        w.after = 1;
    }
    if (hash) { /* the last blocks, then the digest */
        nuif_sha256_update(&st->sha, out.b + w.hashed, (size_t)on - w.hashed);
        nuif_sha256_final(&st->sha, st->digest);
    }
    if (digest_only) {
        nuif_host_text_drop(out.text);
        return nuif_host_text_copy(NULL, 0);
    }
    return nuif_doc_finish(&out, (size_t)on);
fail:
    nuif_host_text_drop(out.text);
    return NULL;
}

/* The canonical text of p[0:n) (valid UTF-8 and NUL-terminated: the caller checked the first, a
 * bytes object holds the second), nesting at most max_depth deep; a document (mode CHECK or
 * HASH) with at most max_nodes nodes.  See the top of this file for the answer. */
static void *nuif_doc_run(nuif_doc *st, const uint8_t *p, size_t n, size_t max_depth,
                          size_t max_nodes, int float_libs, int mode, int *status) {
    nuif_walk *s = &st->s;
    void *text;
    int rc;
    s->p = p;
    s->n = n;
    s->max_depth = max_depth;
    s->float_libs = float_libs;
    rc = nuif_walk_parse(s);
    if (rc != NUIF_WALK_OK) {
        *status = rc == NUIF_WALK_REFUSE ? NUIF_DOC_TEXT : NUIF_DOC_ERROR;
        return NULL;
    }
    if (mode != NUIF_DOC_JSON) {
        rc = nuif_doc_check(st, p, n, max_nodes);
        if (rc != 1) {
            *status = rc == 0 ? NUIF_DOC_SCHEMA : NUIF_DOC_ERROR;
            return NULL;
        }
    }
    text = nuif_doc_write(st, p, n, float_libs, mode >= NUIF_DOC_HASH, mode == NUIF_DOC_DIGEST);
    *status = text != NULL ? NUIF_DOC_OK : NUIF_DOC_ERROR;
    return text;
}

/* Free the state's buffers (a state of a call that found the kept one busy; tests). */
static void nuif_doc_free(nuif_doc *st) {
    nuif_walk *s = &st->s;
    nuif_host_free(s->tape);
    nuif_host_free(s->arena);
    nuif_host_free(s->names);
    nuif_host_free(s->order);
    nuif_host_free(s->sort_buf);
    nuif_host_free(s->doubles);
    nuif_host_free(s->frames);
    nuif_host_free(st->ids);
    nuif_host_free(st->stack);
    nuif_host_free(st->scratch);
    memset(st, 0, sizeof(*st));
}

#endif
