/* The canonical writer's loop (csrc/nuif_doc.h sets it up and owns the text's buffer), and C
 * helpers it calls.
 *
 * nuif_write_run writes the RFC 8785 text of the value on the tape from where the writer
 * stands (nuif_writer: the open containers, the next value or "find the next one") until the
 * text is done or it needs its caller: for more room in the buffer (NUIF_W_ROOM, `need` bytes)
 * or for a double
 * that only the host prints (NUIF_W_VALUE: the libraries are off or declined it; the caller
 * writes token `t` and resumes with `after` set).  Each step tests its room before it writes
 * or moves anything, so a return leaves the writer where it can resume.  It is C, not Cython:
 * in Cython every byte written through the buffer object's pointer makes the compiler load the
 * object's length and pointers again, token after token; here they stay in registers.
 *
 * nuif_write_literals: an array's elements from token t (its first: t is just past the array's
 * token) that are numbers whose canonical text is their literal (an integer but "-0", or a
 * number marked NUIF_F_LIT), the literals written with commas between them.  It stops at the
 * first other element, at `end`, or when the buffer has no room for the next one; the writer
 * then goes on the usual way from the token returned (t itself when it wrote nothing), and *n is
 * the text's new length.  Not inlined, and called once an array, where its first element is
 * such a number. */
#ifndef NUIF_WRITE_H
#define NUIF_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_check.h"
#include "nuif_sha256.h"

#include "nuif_escape.h"
#include "nuif_float.h"
#include "nuif_number.h"
#include "nuif_tape.h"

#if defined(__GNUC__) || defined(__clang__)
#define NUIF_WRITE_NOINLINE __attribute__((noinline))
#define NUIF_WRITE_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define NUIF_WRITE_NOINLINE __declspec(noinline)
#define NUIF_WRITE_INLINE static __forceinline
#else
#define NUIF_WRITE_NOINLINE
#define NUIF_WRITE_INLINE static inline
#endif

/* 1 when token tk is a number whose canonical text is its literal: an integer but "-0", or a
 * number the walk marked NUIF_F_LIT */
static inline int nuif_literal_number(const nuif_tok *tk) {
    return tk->kind == NUIF_T_INT ? !(tk->flags & NUIF_F_NEGZERO)
                                  : tk->kind == NUIF_T_FLT && (tk->flags & NUIF_F_LIT);
}

static NUIF_WRITE_NOINLINE ptrdiff_t nuif_write_literals(const nuif_tok *tape, ptrdiff_t t,
                                                         ptrdiff_t end, const uint8_t *p,
                                                         const uint8_t *lim, char *b, ptrdiff_t *n,
                                                         ptrdiff_t cap) {
    ptrdiff_t o = *n, first = t;
    while (t < end) {
        const nuif_tok *tk = &tape[t];
        ptrdiff_t comma = t != first;
        if (!nuif_literal_number(tk)) {
            break;
        }
        if (o + (ptrdiff_t)tk->len + 17 > cap) { /* a comma, the literal, nuif_copy's 16 */
            break;
        }
        b[o] = ',';
        nuif_copy(b + o + comma, p + tk->at, (ptrdiff_t)tk->len, lim);
        o += (ptrdiff_t)tk->len + comma;
        t++;
    }
    *n = o;
    return t;
}

/* what nuif_write_run returns */
enum { NUIF_W_DONE = 0, NUIF_W_ROOM = 1, NUIF_W_VALUE = 3 };

/* the text is hashed in steps of whole 64-byte blocks: every block as soon as it is written in
 * the first 16 KiB (the SHA rounds of one run beside the writing of the next), then every
 * 2 KiB, still in the L1 cache, and few enough calls that their cost does not show on large
 * texts */
#define NUIF_W_FEED_NEAR 16384
#define NUIF_W_FEED_STEP 2048

typedef struct {
    /* the tape and where its strings' bytes and doubles are (the walk's) */
    const nuif_tok *tape;
    const uint32_t *order;
    const uint8_t *p, *p_lim;         /* the input and its end */
    const uint8_t *arena, *arena_lim; /* the arena and the end of its allocation */
    const double *doubles;
    int float_libs; /* doubles printed here (else NUIF_W_VALUE: the caller prints them) */
    /* the open containers, innermost at top - 1: the next member (an index into order) or
     * element (a token index) to write, where that run ends, whether it is an object, and
     * whether nothing has been written in it yet */
    size_t *open_next, *open_end;
    uint8_t *open_is_obj, *open_first;
    size_t top;
    /* where it stands: the value at token t comes next (after == 0), or a value was just
     * written and the next one is to be found (after == 1) */
    size_t t;
    int after;
    size_t need; /* NUIF_W_ROOM: the room the next step needs */
    /* SHA-256 as the text is written (NULL: not here, feed_at SIZE_MAX): once the text passes
     * feed_at, its whole 64-byte blocks from `hashed` on go to sha_ctx, and feed_at moves
     * NUIF_W_FEED_STEP bytes past them, so that the text is hashed while it is in the cache */
    size_t feed_at;
    nuif_sha256_ctx *sha_ctx;
    size_t hashed;
} nuif_writer;

/* Set w up to write the value at token 0 of `tape` from its start: the input p[0:n), the arena
 * of arena_cap bytes, the doubles; the stack of open containers in `stack` (3 * cap words, cap
 * at least the tape's deepest nesting + 1).  No check beside it, no hashing, no feeds: the
 * caller sets those after. */
static void nuif_write_start(nuif_writer *w, const nuif_tok *tape, const uint32_t *order,
                             const uint8_t *p, size_t n, const uint8_t *arena, size_t arena_cap,
                             const double *doubles, int float_libs, size_t *stack, size_t cap) {
    w->tape = tape;
    w->order = order;
    w->p = p;
    w->p_lim = p + n;
    w->arena = arena;
    w->arena_lim = arena + arena_cap;
    w->doubles = doubles;
    w->float_libs = float_libs;
    w->open_next = stack;
    w->open_end = stack + cap;
    w->open_is_obj = (uint8_t *)(stack + 2 * cap);
    w->open_first = w->open_is_obj + cap;
    w->top = 0;
    w->t = 0;
    w->after = 0;
    w->need = 0;
    w->feed_at = SIZE_MAX;
    w->sha_ctx = NULL;
    w->hashed = 0;
}

/* the whole blocks of the text written so far that are not hashed yet, hashed */
#define NUIF_W_HASH()                                                                              \
    do {                                                                                           \
        size_t upto_ = (size_t)(o - b) & ~(size_t)63;                                              \
        nuif_sha256_update(w->sha_ctx, b + w->hashed, upto_ - w->hashed);                          \
        w->hashed = upto_;                                                                         \
        feed_at = upto_ + (upto_ < NUIF_W_FEED_NEAR ? 64 : NUIF_W_FEED_STEP);                      \
    } while (0)

/* a string token's bytes, and the end of the buffer they are in */
#define NUIF_W_STR(tk) (((tk)->flags & NUIF_F_ESC ? w->arena : w->p) + (tk)->at)
#define NUIF_W_LIM(tk) ((tk)->flags & NUIF_F_ESC ? w->arena_lim : w->p_lim)

/* a string whose text needs no escapes, written at o (its room, L + 18, tested by the caller) */
#define NUIF_W_PLAIN(tk, L)                                                                        \
    do {                                                                                           \
        o[0] = '"';                                                                                \
        nuif_copy(o + 1, NUIF_W_STR(tk), (ptrdiff_t)(L), NUIF_W_LIM(tk));                          \
        o[(L) + 1] = '"';                                                                          \
        o += (L) + 2;                                                                              \
    } while (0)

/* A number token at o (its room, the literal's length + NUIF_NUMBER_TEXT_MAX, tested by the
 * caller): where its text ends, or NULL for a double the libraries do not print. */
NUIF_WRITE_INLINE char *nuif_w_number(const nuif_writer *w, const nuif_tok *tk, char *o) {
    if (nuif_literal_number(tk)) {
        nuif_copy(o, w->p + tk->at, (ptrdiff_t)tk->len, w->p_lim);
        return o + tk->len;
    }
    if (tk->kind == NUIF_T_INT) { /* -0 */
        *o = '0';
        return o + 1;
    }
    if (tk->flags & NUIF_F_DBL) {
        double x = w->doubles[tk->dbl];
        char d[32];
        int point, k;
        if (x == 0.0) {
            *o = '0';
            return o + 1;
        }
        if (!w->float_libs || (k = nuif_shortest_digits(x, d, &point)) <= 0) return NULL;
        return o + nuif_fmt_es(o, x < 0.0, d, k, point);
    } else {
        nuif_numinfo r;
        nuif_analyze(w->p + tk->at, (ptrdiff_t)tk->len, &r);
        if (r.k == 0) {
            *o = '0';
            return o + 1;
        }
        return o + nuif_fmt_es(o, r.neg, r.d, r.k, r.n);
    }
}

/* An array's opening (array token tk at t) at o, with room for one byte: the container pushed,
 * and, when its first element is a number written as it is, its run of such numbers written
 * (nuif_write_literals).  Returns where the text ends. */
NUIF_WRITE_INLINE char *nuif_w_open_array(nuif_writer *w, const nuif_tok *tk, size_t t, char *b,
                                          char *o, ptrdiff_t cap, size_t top) {
    const nuif_tok *tape = w->tape;
    size_t kt;
    *o++ = '[';
    w->open_next[top] = t + 1;
    w->open_end[top] = tk->end;
    w->open_is_obj[top] = 0;
    w->open_first[top] = 1;
    if (tk->end > t + 1 && nuif_literal_number(&tape[t + 1])) {
        ptrdiff_t n = o - b;
        kt = (size_t)nuif_write_literals(tape, (ptrdiff_t)t + 1, (ptrdiff_t)tk->end, w->p, w->p_lim,
                                         b, &n, cap);
        o = b + n;
        if (kt != t + 1) {
            w->open_next[top] = kt;
            w->open_first[top] = 0;
        }
    }
    return o;
}

/* A member's name (token tk) with the comma before it (unless it is the first) and the colon
 * after it, at o, when the room (o to end) holds it; NULL, with *need set, when not. */
NUIF_WRITE_INLINE char *nuif_w_name(const nuif_writer *w, const nuif_tok *tk, int first, char *o,
                                    const char *end, size_t *need) {
    size_t L = tk->len;
    if (tk->flags & NUIF_F_NEEDS_ESC) {
        *need = 6 * L + 5;
        if ((size_t)(end - o) < *need) return NULL;
        o[0] = ',';
        o += !first;
        o[0] = '"';
        o += 1 + nuif_escape_into(o + 1, NUIF_W_STR(tk), (ptrdiff_t)L);
        o[0] = '"';
        o[1] = ':';
        return o + 2;
    }
    *need = L + 20; /* a comma, quotes, colon, and nuif_copy's 16 bytes */
    if ((size_t)(end - o) < *need) return NULL;
    o[0] = ',';
    o += !first;
    o[0] = '"';
    nuif_copy(o + 1, NUIF_W_STR(tk), (ptrdiff_t)L, NUIF_W_LIM(tk));
    o[L + 1] = '"';
    o[L + 2] = ':';
    return o + L + 3;
}

/* The value at token t at *op: NUIF_W_DONE with *op past its text (a container: opened, pushed
 * on the writer's stack at *top), NUIF_W_ROOM (*need set), or NUIF_W_VALUE (a double the
 * libraries do not print). */
NUIF_WRITE_INLINE int nuif_w_value(nuif_writer *w, size_t t, char *b, char **op, const char *end,
                                   ptrdiff_t cap, size_t *top, size_t *need) {
    const nuif_tok *tk = &w->tape[t];
    char *o = *op, *kp;
    size_t L;
    switch (tk->kind) {
    case NUIF_T_STR:
        L = tk->len;
        if (tk->flags & NUIF_F_NEEDS_ESC) {
            *need = 6 * L + 3;
            if ((size_t)(end - o) < *need) return NUIF_W_ROOM;
            o[0] = '"';
            o += 1 + nuif_escape_into(o + 1, NUIF_W_STR(tk), (ptrdiff_t)L);
            *o++ = '"';
        } else {
            *need = L + 18; /* 16 bytes of room past the text for nuif_copy's blocks */
            if ((size_t)(end - o) < *need) return NUIF_W_ROOM;
            NUIF_W_PLAIN(tk, L);
        }
        break;
    case NUIF_T_ARR:
    case NUIF_T_OBJ:
        if (o == end) {
            *need = 1;
            return NUIF_W_ROOM;
        }
        if (tk->kind == NUIF_T_ARR) {
            o = nuif_w_open_array(w, tk, t, b, o, cap, (*top)++);
        } else {
            *o++ = '{';
            w->open_next[*top] = tk->order_at;
            w->open_end[*top] = (size_t)tk->order_at + tk->members;
            w->open_is_obj[*top] = 1;
            w->open_first[*top] = 1;
            (*top)++;
        }
        break;
    case NUIF_T_INT:
    case NUIF_T_FLT:
        /* one test covers every case: the literal and nuif_copy's 16 bytes, or a spelling */
        *need = (size_t)tk->len + NUIF_NUMBER_TEXT_MAX;
        if ((size_t)(end - o) < *need) return NUIF_W_ROOM;
        if ((kp = nuif_w_number(w, tk, o)) == NULL) return NUIF_W_VALUE;
        o = kp;
        break;
    default: { /* null, false, true: kinds 0, 1, 2 */
        static const char words[3][8] = {"null", "false", "true"};
        L = 4 + (tk->kind == NUIF_T_FALSE);
        if ((size_t)(end - o) < L) {
            *need = L;
            return NUIF_W_ROOM;
        }
        memcpy(o, words[tk->kind], L);
        o += L;
        break;
    }
    }
    *op = o;
    return NUIF_W_DONE;
}

static NUIF_WRITE_NOINLINE int nuif_write_run(nuif_writer *w, char *b, ptrdiff_t *np,
                                              ptrdiff_t cap) {
    const nuif_tok *const tape = w->tape;
    const uint32_t *const order = w->order;
    size_t *const open_next = w->open_next, *const open_end = w->open_end;
    uint8_t *const open_is_obj = w->open_is_obj, *const open_first = w->open_first;
    const char *const end = b + cap;
    size_t feed_at = w->feed_at;
    char *o = b + *np, *kp;
    size_t t = w->t, top = w->top, kt, L, need;
    const nuif_tok *tk;
    int rc;
    if (w->after) {
        goto after;
    }
    for (;;) {
        /* ---- the value at token t ---- */
        rc = nuif_w_value(w, t, b, &o, end, cap, &top, &need);
        if (rc == NUIF_W_ROOM) goto room_value;
        if (rc == NUIF_W_VALUE) { /* the caller prints it (the host's digits) */
            w->after = 0;
            goto leave;
        }
        if ((size_t)(o - b) >= feed_at) { /* another step of the text is final: hash it */
            NUIF_W_HASH();
        }
    after:
        /* ---- the next value: close finished containers, then a member's name or a comma ---- */
        for (;;) {
            if (top == 0) {
                rc = NUIF_W_DONE;
                goto leave;
            }
            if (open_next[top - 1] == open_end[top - 1]) {
                if (o == end) {
                    need = 1;
                    goto room_after;
                }
                *o++ = open_is_obj[top - 1] ? '}' : ']';
                top--;
                continue;
            }
            if (open_is_obj[top - 1]) {
                kt = order[open_next[top - 1]];
                tk = &tape[kt];
                if (tk->flags & NUIF_F_SKIP) { /* only canonical_document sets it */
                    open_next[top - 1]++;
                    continue;
                }
                if ((kp = nuif_w_name(w, tk, open_first[top - 1], o, end, &need)) == NULL) {
                    goto room_after;
                }
                o = kp;
                open_next[top - 1]++;
                open_first[top - 1] = 0;
                t = kt + 1;
                /* the commonest value, a string, written here rather than through the switch: a
                 * branch here is predicted from what came before in its own context (a member's
                 * name just written), where the switch's branches see every value of the text */
                tk = &tape[t];
                L = tk->len;
                if (tk->kind == NUIF_T_STR && !(tk->flags & NUIF_F_NEEDS_ESC) &&
                    (size_t)(end - o) >= L + 18) {
                    NUIF_W_PLAIN(tk, L);
                    if ((size_t)(o - b) >= feed_at) NUIF_W_HASH();
                    continue; /* the next member */
                }
            } else {
                if (o == end) {
                    need = 1;
                    goto room_after;
                }
                o[0] = ',';
                o += !open_first[top - 1];
                open_first[top - 1] = 0;
                t = open_next[top - 1];
                open_next[top - 1] = tape[t].kind >= NUIF_T_ARR ? tape[t].end : t + 1;
            }
            break;
        }
    }
room_value:
    w->after = 0;
    w->need = need;
    rc = NUIF_W_ROOM;
    goto leave;
room_after:
    w->after = 1;
    w->need = need;
    rc = NUIF_W_ROOM;
leave:
    w->feed_at = feed_at;
    w->t = t;
    w->top = top;
    *np = o - b;
    return rc;
}

#undef NUIF_W_STR
#undef NUIF_W_LIM
#undef NUIF_W_PLAIN
#undef NUIF_W_HASH

#endif
