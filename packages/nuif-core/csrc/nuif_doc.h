/* The codec's one pipeline: a strict I-JSON text to its RFC 8785 text in a new bytes object,
 * with, for a NUIF document, the NUIF-0 §3 check before the text is written and the SHA-256 of
 * the text made while it is written (driven by src/nuif_core/_speedups_doc.pxi).
 *
 *     walk (nuif_walk.h) -> §3 check (nuif_check.h, documents) -> writer (nuif_write.h)
 *                                                                  + SHA-256 (nuif_sha256.h)
 *
 * Every call runs the same steps, whatever the input's size; only a document's check and hash
 * are the caller's choice (`mode`).  The answer is the text (in mode DIGEST, where only the hash
 * is wanted, the empty bytes object once the digest is made: no text is copied out of the
 * scratch), or NULL with `*status`:
 *
 *   NUIF_DOC_TEXT    the input is not strict I-JSON, or nests deeper than max_depth: the walk
 *                    recorded where it stopped, and nuif_fault.h says why (errors are the slow
 *                    path, and have one reporter);
 *   NUIF_DOC_SCHEMA  a valid text, not a valid document (or one of more than max_nodes nodes):
 *                    the Python checker reports every problem;
 *   NUIF_DOC_ERROR   a Python exception is set (memory ran out).
 *
 * What lasts from one call to the next is in nuif_doc and nowhere else: the walk's buffers (its
 * tape, arena, names, doubles), the check's id set, the stacks of the check and the writer, and
 * an output scratch buffer of up to NUIF_DOC_SCRATCH_KEEP bytes.  Buffers grow to the largest
 * input seen and stay (the scratch only up to its limit): fresh pages cost ~2 us per 4 KiB here,
 * so reusing them is most of what a small call saves.  A text longer than the scratch's limit is
 * written straight into its bytes object, resized as it grows (no copy, no double peak memory),
 * with the huge-page hint from 4 MiB.  The tape stays in the state after the call, for the
 * inspect summary to read.
 *
 * The caller holds the GIL throughout, and nothing here runs Python code (allocating bytes
 * objects and CPython's float conversions run none), so no other call can reach the state while
 * one runs; a caller that keeps reading the tape while it runs Python code marks the state busy
 * (the next call then uses a state of its own). */
#ifndef NUIF_DOC_H
#define NUIF_DOC_H

/* the writer's header first: it includes Python.h (through nuif_check.h) */
#include "nuif_write.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_pyfloat.h"
#include "nuif_scan.h"
#include "nuif_sha256.h"
#include "nuif_walk.h"

enum { NUIF_DOC_OK = 0, NUIF_DOC_TEXT = 1, NUIF_DOC_SCHEMA = 2, NUIF_DOC_ERROR = 3 };

/* what the caller asks for: the canonical text of any JSON value; of a valid document; of a
 * valid document, with its SHA-256 */
/* the modes: a JSON text; a document (the §3 check); a document and its digest; a document's
 * digest alone (the text is returned only when no digest could be made) */
enum { NUIF_DOC_JSON = 0, NUIF_DOC_CHECK = 1, NUIF_DOC_HASH = 2, NUIF_DOC_DIGEST = 3 };

/* the largest output scratch kept between calls by default (scratch_keep); longer texts go
 * straight into their bytes object */
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
    unsigned char digest[32];
    int has_digest; /* NUIF_DOC_HASH: the writer hashed the text (else hash it afterwards) */
    int busy;       /* the tape is being read (inspect): the next call takes another state */
    int hash_off;   /* tests: the writer does not hash (as in a build without libcrypto) */
    int hash_fault; /* tests: the writer's first update fails */
} nuif_doc;

/* the output: the scratch, or a bytes object of its own */
typedef struct {
    nuif_doc *st;
    PyObject *ob; /* the bytes object written into, or NULL while in the scratch */
    char *b;
    size_t cap;
} nuif_doc_out;

static int nuif_doc_update_fails(nuif_sha256_ctx *c, const void *p, size_t n) {
    (void)c;
    (void)p;
    (void)n;
    return 0;
}

/* Room for `need` bytes past the first n: 0, or -1 with a Python exception set.  The scratch
 * grows up to its limit; past it the text moves into a bytes object, which then grows in place
 * (realloc). */
static int nuif_doc_room(nuif_doc_out *out, size_t n, size_t need) {
    size_t cap = out->cap * 2;
    char *q;
    if (cap < n + need) cap = n + need;
    if (cap > (size_t)PY_SSIZE_T_MAX) {
        PyErr_NoMemory();
        return -1;
    }
    if (out->ob != NULL) {
        if (_PyBytes_Resize(&out->ob, (Py_ssize_t)cap) < 0) return -1;
        out->b = PyBytes_AS_STRING(out->ob);
    } else if (cap <= out->st->scratch_keep) {
        q = (char *)PyMem_Realloc(out->st->scratch, cap);
        if (q == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        out->b = out->st->scratch = q;
        out->st->scratch_cap = cap;
    } else {
        out->ob = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
        if (out->ob == NULL) return -1;
        if (n) memcpy(PyBytes_AS_STRING(out->ob), out->b, n);
        out->b = PyBytes_AS_STRING(out->ob);
    }
    if (out->ob != NULL && cap >= ((size_t)4 << 20)) nuif_hint_huge(out->b, cap);
    out->cap = cap;
    return 0;
}

/* The text b[0:n) as a bytes object of its size (the output's own, shrunk, or a copy of the
 * scratch); NULL with a Python exception set. */
static PyObject *nuif_doc_finish(nuif_doc_out *out, size_t n) {
    PyObject *ob = out->ob;
    out->ob = NULL;
    if (ob == NULL) return PyBytes_FromStringAndSize(out->b, (Py_ssize_t)n);
    if (_PyBytes_Resize(&ob, (Py_ssize_t)n) < 0) return NULL;
    return ob;
}

/* Room for `words` words of stack: 0, or -1 with a Python exception set. */
static int nuif_doc_stack(nuif_doc *st, size_t words) {
    size_t *q;
    if (words <= st->stack_cap) return 0;
    q = (size_t *)PyMem_Realloc(st->stack, words * sizeof(size_t));
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    st->stack = q;
    st->stack_cap = words;
    return 0;
}

/* The §3 check of the tape (nuif_check.h): 1 valid, 0 not, -1 with a Python exception set.  The
 * id set has room for every node the tape can hold (a node takes at least five tokens), so the
 * check never allocates; a new generation a call, so the kept table needs no zeroing. */
static int nuif_doc_check(nuif_doc *st, const uint8_t *p, size_t n, size_t max_nodes) {
    nuif_walk *s = &st->s;
    nuif_check ck;
    size_t most = 16;
    while (most < 2 * (s->ntok / 5 + 1)) most *= 2;
    if (st->ids_alloc < most) {
        uint64_t *t = (uint64_t *)PyMem_Calloc(most, sizeof(uint64_t));
        if (t == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        PyMem_Free(st->ids);
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

/* The writer over the tape into a new bytes object (hashing it when `hash` and libcrypto is
 * linked: st->has_digest); with `digest_only`, the empty bytes object instead once the digest is
 * made; NULL with a Python exception set. */
static PyObject *nuif_doc_write(nuif_doc *st, const uint8_t *p, size_t n, int float_libs, int hash,
                                int digest_only) {
    nuif_walk *s = &st->s;
    nuif_writer w;
    nuif_doc_out out;
    nuif_sha256_ctx *sha = NULL;
    ptrdiff_t on = 0, k;
    size_t levels = s->deepest + 1;
    int rc;
    st->has_digest = 0;
    if (nuif_doc_stack(st, 3 * levels)) return NULL;
    out.st = st;
    out.ob = NULL;
    out.b = st->scratch;
    out.cap = st->scratch_cap;
    if (out.cap < n + 64 && nuif_doc_room(&out, 0, n + 64)) return NULL;
    nuif_write_start(&w, s->tape, s->order, p, n, s->arena, s->arena_cap, s->doubles, float_libs,
                     st->stack, levels);
    if (hash && !st->hash_off && (sha = nuif_sha256_begin()) != NULL) {
        w.sha_ctx = sha;
        w.sha_update = st->hash_fault ? nuif_doc_update_fails : nuif_sha256_update;
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
        k = nuif_py_fmt_double(out.b + on, s->doubles[s->tape[w.t].dbl], 0);
        if (k < 0) goto fail;
        on += k;
        w.after = 1;
    }
    if (w.sha_update != NULL) { /* the last blocks, then the digest */
        st->has_digest = w.sha_update(sha, out.b + w.hashed, (size_t)on - w.hashed) == 1 &&
                         nuif_sha256_final(sha, st->digest) == 1;
    }
    if (digest_only && st->has_digest) {
        Py_XDECREF(out.ob);
        return PyBytes_FromStringAndSize(NULL, 0);
    }
    return nuif_doc_finish(&out, (size_t)on);
fail:
    Py_XDECREF(out.ob);
    return NULL;
}

/* The canonical text of p[0:n) (valid UTF-8 and NUL-terminated: the caller checked the first, a
 * bytes object holds the second), nesting at most max_depth deep; a document (mode CHECK or
 * HASH) with at most max_nodes nodes.  See the top of this file for the answer. */
static PyObject *nuif_doc_run(nuif_doc *st, const uint8_t *p, size_t n, size_t max_depth,
                              size_t max_nodes, int float_libs, int mode, int *status) {
    nuif_walk *s = &st->s;
    PyObject *text;
    int rc;
    s->p = p;
    s->n = n;
    s->max_depth = max_depth;
    s->float_libs = float_libs;
    rc = nuif_walk_parse(s);
    if (rc != NUIF_WALK_OK) {
        if (rc == NUIF_WALK_REFUSE) {
            *status = NUIF_DOC_TEXT;
        } else {
            if (!PyErr_Occurred()) PyErr_NoMemory();
            *status = NUIF_DOC_ERROR;
        }
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
    PyMem_Free(s->tape);
    PyMem_Free(s->arena);
    PyMem_Free(s->names);
    PyMem_Free(s->order);
    PyMem_Free(s->sort_buf);
    PyMem_Free(s->doubles);
    PyMem_Free(s->frames);
    PyMem_Free(st->ids);
    PyMem_Free(st->stack);
    PyMem_Free(st->scratch);
    memset(st, 0, sizeof(*st));
}

#endif
