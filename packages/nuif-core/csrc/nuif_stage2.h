/* Stage 2 of the structural-index parser (docs/parser-design.md): walks stage 1's index
 * (csrc/nuif_stage1.h), or with `direct` the input itself (finding each next token by skipping
 * whitespace, which pays better than an index below 1 MiB), and builds the same token tape
 * (csrc/nuif_tape.h) as the one-pass parser of src/nuif_core/_speedups_parser.pxi, byte for
 * byte: the same tokens, arena, member-name order and doubles.  tests/core/test_indexed.py holds
 * the two equal on the corpus, the conformance suites and generated documents, and
 * fuzz/fuzz_indexed.py does on mutated ones, for every stage-1 route and the direct walk.
 *
 * It checks everything the one-pass parser checks (grammar, escapes, surrogates, noncharacters,
 * number grammar and range, duplicate names, depth) but reports nothing: any problem, and the
 * rare valid inputs it leaves to the one-pass parser (number conversions without the float
 * libraries, or out of their range), return NUIF_S2_REFUSE, and the codec re-reads the
 * input with the one-pass parser, which raises the NUIF_* error with its pointer, line and
 * column.  Errors are the slow path; the fast path has no error text at all.
 *
 * Buffers are the parser's own (so the writer, the schema check and the inspect summary read the
 * result unchanged) and grow with PyMem_Realloc.  Per index chunk, the tape and the member-name
 * stack are made room for once (each index entry starts at most one token), so the hot loop has
 * no capacity checks; the arena, the doubles and the sorted names grow where they are written.
 * The input is a bytes object: p[n] is a NUL, nothing past it is read.
 *
 * For large inputs the direct walk runs split over two threads (nuif_s2_split_parse, at the end
 * of this file): a helper thread parses segments of the input's second half into buffers of its
 * own (raw memory: it holds no GIL), and the walk copies on those it arrives at.
 */
#ifndef NUIF_STAGE2_H
#define NUIF_STAGE2_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "nuif_escape.h"
#include "nuif_float.h"
#include "nuif_indexpipe.h"
#include "nuif_keysort.h"
#include "nuif_number.h"
#include "nuif_scan.h"
#include "nuif_stage1.h"
#include "nuif_tables.h"
#include "nuif_tape.h"
#include "nuif_utf8.h"

#define NUIF_S2_OK 0
#define NUIF_S2_REFUSE 1
#define NUIF_S2_NOMEM 2

/* inlined into the walk always (the hot path), or never (what most tokens never need) */
#if defined(__GNUC__) || defined(__clang__)
#define NUIF_S2_INLINE static inline __attribute__((always_inline))
/* v's value unknown to the compiler from here on (no instruction) */
#define NUIF_S2_OPAQUE(v) __asm__("" : "+r"(v))
#define NUIF_S2_NOINLINE static __attribute__((noinline))
#elif defined(_MSC_VER)
#define NUIF_S2_INLINE static __forceinline
#define NUIF_S2_OPAQUE(v) ((void)0)
#define NUIF_S2_NOINLINE static __declspec(noinline)
#else
#define NUIF_S2_INLINE static inline
#define NUIF_S2_OPAQUE(v) ((void)0)
#define NUIF_S2_NOINLINE static
#endif

/* the split walk's shared counters (nuif_s2_split_parse): acquire loads and release stores, and
 * a pause while one thread waits for the other; without the GNU builtins there is no split walk
 * (NUIF_S2_CAN_SPLIT 0), and the plain accesses below are never reached */
#if defined(__GNUC__) || defined(__clang__)
#define NUIF_S2_CAN_SPLIT 1
#define NUIF_S2_LOAD(ptr) __atomic_load_n((ptr), __ATOMIC_ACQUIRE)
#define NUIF_S2_STORE(ptr, v) __atomic_store_n((ptr), (v), __ATOMIC_RELEASE)
#if defined(__x86_64__) || defined(__i386__)
#define NUIF_S2_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define NUIF_S2_RELAX() __asm__ __volatile__("yield")
#else
#define NUIF_S2_RELAX() ((void)0)
#endif
#else
#define NUIF_S2_CAN_SPLIT 0
#define NUIF_S2_LOAD(ptr) (*(ptr))
#define NUIF_S2_STORE(ptr, v) (*(ptr) = (v))
#define NUIF_S2_RELAX() ((void)0)
#endif

/* a segment walk looks at its stop flag at least every this many tokens */
#define NUIF_S2_SEG_POLL 2048
/* segments the helper of one split walk may publish */
#define NUIF_S2_SEGS 256

/* input bytes per index chunk: the index (4 bytes an entry) stays in the L2 cache */
#define NUIF_S2_CHUNK (16 * 1024)

typedef struct {
    uint32_t tok;        /* the container's token */
    uint32_t names_base; /* objects: where its names start on the name stack */
    int is_obj;
} nuif_s2_frame;

/* The parser's buffers and counters, handed in and back by _speedups_parser.pxi. */
typedef struct {
    const uint8_t *p;
    size_t n;
    size_t max_depth;
    int s1_route;
    int float_libs;          /* 1: nuif_parse_double may be used, else numbers needing it refuse */
    size_t chunk;            /* input bytes per index chunk: a multiple of 64, at most
                                NUIF_S2_CHUNK (tests make it small to cross chunk boundaries) */
    nuif_tok *tape;
    size_t tape_cap, ntok;
    uint8_t *arena;
    size_t arena_cap, arena_len;
    uint32_t *names;
    size_t names_cap;
    uint32_t *order;
    size_t order_cap, order_len;
    nuif_key_entry *sort_buf;
    size_t sort_cap;
    double *doubles;
    size_t doubles_cap, doubles_len;
    nuif_s2_frame *frames;
    size_t frames_cap;
    size_t deepest;
    size_t pipe_min;         /* inputs of this many bytes and more: stage 1 on a second
                                thread (csrc/nuif_indexpipe.h); 0: never */
    int direct;              /* 1: no index; the walk finds each next token itself (skipping
                                whitespace as the one-pass parser does): for small inputs, where
                                the index costs more than it saves */
    int raw_mem;             /* 1: the buffers grow with PyMem_RawRealloc (the split walk's
                                helper thread, which holds no GIL) */
    struct nuif_s2_split *split; /* the direct walk's helper (nuif_s2_split_parse), or NULL */
    size_t seg_at;           /* split walk: at an array element from here on, ask the helper */
    size_t seg_next;         /* split walk: the helper's segments taken or passed so far */
    size_t seg_end;          /* a segment's start, then where its array closes */
    size_t spliced;          /* split walk: the segments taken (tests) */
    int *stop;               /* segment walk: nonzero once the split walk needs no more */
    int *lock;               /* segment walk: held while its buffers move (nuif_s2_grow) or the
                                split walk copies from them (nuif_s2_splice) */
    /* stage 1 */
    nuif_s1_state s1;
    uint32_t *idx_buf;       /* NUIF_S2_CHUNK + NUIF_S1_SLACK entries (without a pipe) */
    const uint32_t *idx;     /* the current chunk's entries */
    size_t idx_k, idx_count, next_block, next_chunk;
    nuif_ipipe *pipe;
} nuif_s2;

static void nuif_s2_lock(int *l) {
#if NUIF_S2_CAN_SPLIT
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) NUIF_S2_RELAX();
    }
#else
    (void)l;
#endif
}

static void nuif_s2_unlock(int *l) { NUIF_S2_STORE(l, 0); }

static int nuif_s2_grow(nuif_s2 *s, void **ptr, size_t *cap, size_t need, size_t item) {
    size_t newcap = *cap * 2;
    void *q;
    if (newcap < need) newcap = need;
    if (newcap < 16) newcap = 16;
    if (newcap > (size_t)PY_SSIZE_T_MAX / item) return -1;
    if (s->raw_mem) { /* the helper thread: no GIL, and the split walk may be reading */
        nuif_s2_lock(s->lock);
        q = PyMem_RawRealloc(*ptr, newcap * item);
        if (q != NULL) *ptr = q;
        nuif_s2_unlock(s->lock);
    } else {
        q = PyMem_Realloc(*ptr, newcap * item);
        if (q != NULL) *ptr = q;
    }
    if (q == NULL) return -1;
    *cap = newcap;
    return 0;
}

#define NUIF_S2_ROOM(s, field, capf, need, type)                                                 \
    ((need) <= (s)->capf ? 0                                                                     \
                         : nuif_s2_grow((s), (void **)&(s)->field, &(s)->capf, (need), sizeof(type)))

/* Index the next chunk; 0 when there is no more input.  Makes room for one token per entry. */
static int nuif_s2_refill(nuif_s2 *s, size_t names_top, int *nomem) {
    size_t from = s->next_block, to;
    if (from >= s->n) return 0;
    to = s->n - from > s->chunk ? from + s->chunk : s->n;
    if (s->pipe != NULL) {
        s->idx = nuif_ipipe_next(s->pipe, s->next_chunk, &s->idx_count);
        if (s->idx == NULL) {
            *nomem = 1;
            return 0;
        }
    } else {
        s->idx_count = nuif_s1_chunk(s->s1_route, &s->s1, s->p, s->n, from, to, s->idx_buf);
        s->idx = s->idx_buf;
    }
    s->next_chunk++;
    s->idx_k = 0;
    s->next_block = to;
    if (NUIF_S2_ROOM(s, tape, tape_cap, s->ntok + s->idx_count + 1, nuif_tok) ||
        NUIF_S2_ROOM(s, names, names_cap, names_top + s->idx_count + 1, uint32_t)) {
        *nomem = 1;
        return 0;
    }
    return 1;
}

/* The end of a run of string body from j: the index of its first quote or backslash, or 0
 * (refuse) when a noncharacter or a control byte comes first or the input ends.  The scanner is
 * the one-pass parser's (csrc/nuif_scan.h), which stops at the lead bytes that may start a
 * noncharacter, checked here exactly. */
NUIF_S2_INLINE size_t nuif_s2_body(const uint8_t *p, size_t j, size_t n) {
    int hi = 0;
    uint8_t c;
    for (;;) {
        j = (size_t)nuif_str_run(p, (ptrdiff_t)j, (ptrdiff_t)n, &hi);
        if (j >= n) return 0;
        c = p[j];
        if (c == 0x22 || c == 0x5C) return j;
        if (c < 0x20 || nuif_nonchar_at(p, (ptrdiff_t)j) >= 0) return 0;
        j += (size_t)nuif_seq_len(c);
    }
}

static inline int nuif_s2_hex4(const uint8_t *p, size_t i, size_t n) {
    uint8_t h0, h1, h2, h3;
    if (i + 4 > n) return -1;
    h0 = nuif_hexval[p[i]];
    h1 = nuif_hexval[p[i + 1]];
    h2 = nuif_hexval[p[i + 2]];
    h3 = nuif_hexval[p[i + 3]];
    if ((h0 | h1 | h2 | h3) & 0xF0) return -1;
    return (h0 << 12) | (h1 << 8) | (h2 << 4) | h3;
}

static size_t nuif_s2_string_esc(nuif_s2 *s, size_t i, size_t j, int is_key, int *nomem);

/* The token of a string whose bytes are the input's, quotes at i and j (the closing one);
 * returns the index after it. */
NUIF_S2_INLINE size_t nuif_s2_input_string(nuif_s2 *s, size_t i, size_t j, int is_key) {
    nuif_tok *t = &s->tape[s->ntok++];
    t->kind = NUIF_T_STR;
    t->flags = 0;
    t->at = (uint32_t)(i + 1);
    t->len = (uint32_t)(j - i - 1);
    t->quote = is_key ? (uint32_t)i : 0;
    return j + 1;
}

/* The string whose opening quote is at i: a token (member name: decoded, `quote` = i; value:
 * canonical escapes).  Returns the index after the closing quote, or 0 (refuse). */
NUIF_S2_INLINE size_t nuif_s2_string(nuif_s2 *s, size_t i, int is_key, int *nomem) {
    size_t start = i + 1, j = nuif_s2_body(s->p, start, s->n);
    if (!j) return 0;
    if (s->p[j] != 0x22) return nuif_s2_string_esc(s, i, j, is_key, nomem);
    return nuif_s2_input_string(s, i, j, is_key);
}

/* nuif_s2_string from the first backslash at j on (out of line: the plain case is inlined) */
static size_t nuif_s2_string_esc(nuif_s2 *s, size_t i, size_t j, int is_key, int *nomem) {
    const uint8_t *p = s->p;
    size_t n = s->n, start = i + 1, d0, k;
    int cp, low;
    uint8_t *w, e, flags = NUIF_F_ESC;
    nuif_tok *t;
    if (!is_key) {
        /* a value whose escapes are all spelled as the writer spells them is its own canonical
         * text: the token points at the input and nothing is copied, up to the first escape
         * that is not (j there); the arena then gets the text before it, as it is */
        ptrdiff_t el;
        while (p[j] == 0x5C && (el = nuif_canon_esc_len(p, (ptrdiff_t)j)) != 0) {
            j += (size_t)el;
            if (p[j] != 0x5C && p[j] != 0x22) {
                k = nuif_s2_body(p, j, n);
                if (!k) return 0;
                j = k;
            }
        }
        if (p[j] == 0x22) return nuif_s2_input_string(s, i, j, 0);
    }
    /* escapes: into the arena (never longer than the rest of the input; 16 bytes more for
     * nuif_copy's block copies of the runs between them) */
    if (NUIF_S2_ROOM(s, arena, arena_cap, s->arena_len + (n - start) + 24, uint8_t)) {
        *nomem = 1;
        return 0;
    }
    d0 = s->arena_len;
    w = s->arena + d0;
    nuif_copy((char *)w, p + start, (ptrdiff_t)(j - start), p + n + 1);
    w += j - start;
    for (;;) {
        /* p[j] is a backslash or the closing quote */
        if (p[j] == 0x22) break;
        e = p[j + 1];
        if (e == 0x75) { /* \uXXXX, a surrogate pair counting as one */
            cp = nuif_s2_hex4(p, j + 2, n);
            if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return 0;
            j += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (j + 1 >= n || p[j] != 0x5C || p[j + 1] != 0x75) return 0;
                low = nuif_s2_hex4(p, j + 2, n);
                if (low < 0xDC00 || low > 0xDFFF) return 0;
                j += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return 0;
            if (cp < 0x20 || cp == 0x22 || cp == 0x5C) {
                if (is_key) {
                    *w++ = (uint8_t)cp;
                    flags |= NUIF_F_NEEDS_ESC;
                } else {
                    w += nuif_escape_byte((char *)w, (uint8_t)cp);
                }
            } else {
                w += nuif_utf8_put(w, (uint32_t)cp);
            }
        } else {
            uint8_t c = nuif_unescape[e];
            if (c == 0) return 0;
            if (e == 0x2F) {
                *w++ = 0x2F;
            } else if (!is_key) { /* the canonical form of these escapes is the escape itself */
                w[0] = 0x5C;
                w[1] = e;
                w += 2;
            } else {
                *w++ = c;
                flags |= NUIF_F_NEEDS_ESC;
            }
            j += 2;
        }
        /* an escape or the closing quote right after this escape (escapes in a row, as in runs of
         * surrogate pairs) needs no scan and no copy */
        if (j < n && (p[j] == 0x5C || p[j] == 0x22)) continue;
        k = nuif_s2_body(p, j, n);
        if (!k) return 0;
        nuif_copy((char *)w, p + j, (ptrdiff_t)(k - j), p + n + 1);
        w += k - j;
        j = k;
    }
    t = &s->tape[s->ntok++];
    t->kind = NUIF_T_STR;
    t->flags = flags;
    t->at = (uint32_t)d0;
    t->len = (uint32_t)((size_t)(w - s->arena) - d0);
    t->quote = is_key ? (uint32_t)i : 0;
    s->arena_len = (size_t)(w - s->arena);
    return j + 1;
}

#define NUIF_S2_DIGIT(c) ((uint8_t)((c) - 0x30) < 10)

/* _speedups_numbers.pxi's _plain_decimal_text: where the canonical text of a plain decimal
 * literal with at most 15 significant digits ends, or 0 when the literal is not of that kind. */
static inline size_t nuif_s2_plain_decimal(const uint8_t *p, size_t int_s, size_t int_e,
                                           size_t mant_e) {
    size_t fe = mant_e, z;
    while (p[fe - 1] == 0x30) fe--; /* stops at the point */
    if (p[int_s] != 0x30) {
        if (fe == int_e + 1) {
            if (int_e - int_s <= 15) return int_e;
        } else if ((int_e - int_s) + (fe - int_e - 1) <= 15) {
            return fe;
        }
    } else if (fe > int_e + 1) {
        z = int_e + 1;
        while (p[z] == 0x30) z++; /* stops at a nonzero digit before fe */
        if (z - (int_e + 1) <= 5 && fe - z <= 15) return fe;
    }
    return 0;
}

/* nuif_s2_number's literal p[start:start+L) of token t, a float that is not a short plain
 * decimal: its digits are taken as they are (fast digits), it is its double's canonical text
 * already (F_LIT, nuif_long_decimal: 16-17 digits as ECMAScript prints them), or its double goes
 * to s->doubles.  Out of line, so the common literals cost no call.  Returns 1, or 0 (refuse). */
NUIF_S2_NOINLINE int nuif_s2_float(nuif_s2 *s, nuif_tok *t, size_t start, size_t L,
                                   size_t int_s, size_t int_e, size_t mant_e, int *nomem) {
    const uint8_t *p = s->p;
    nuif_numinfo r;
    double x;
    int rc;
    t->len = (uint32_t)L;
    if (nuif_many_digits(p, int_s, int_e, mant_e)) {
        /* more than 15 significant digits: the double itself, and maybe the literal's own text */
        rc = s->float_libs ? nuif_long_decimal(p, p[start] == 0x2D, int_s, int_e, mant_e,
                                               mant_e < start + L, &x)
                           : -1;
        if (rc == 1) {
            t->flags = NUIF_F_LIT; /* already its double's shortest ES text */
            return 1;
        }
        if (rc < 0 && (!s->float_libs || nuif_parse_double((const char *)p + start, L, &x) != 0)) {
            return 0;
        }
    } else {
        nuif_analyze(p + start, (ptrdiff_t)L, &r);
        if (r.k == 0 || nuif_fast_digits(&r)) {
            t->flags = 0;
            return 1;
        }
        if (!nuif_small_decimal(&r, &x)) {
            if (!s->float_libs || nuif_parse_double((const char *)p + start, L, &x) != 0) return 0;
        }
    }
    if (x - x != 0.0) return 0; /* infinite: NUIF_NUMBER, located by the one-pass parser */
    if (x == 0.0) x = 0.0;
    if (s->doubles_len >= s->doubles_cap &&
        nuif_s2_grow(s, (void **)&s->doubles, &s->doubles_cap, s->doubles_len + 1, sizeof(double))) {
        *nomem = 1;
        return 0;
    }
    t->flags = NUIF_F_DBL;
    t->dbl = (uint32_t)s->doubles_len;
    s->doubles[s->doubles_len++] = x;
    return 1;
}

/* nuif_s2_number's integer literal p[start:start+L) of token t, beyond ±(2^53 - 1): accepted (a
 * literal token) only when it is exactly the RFC 8785 text of its double, as the one-pass
 * parser's _scan_big_integer rules (NUIF-0.1 §1).  Returns 1, or 0 (refuse: NUIF_NUMBER, or no
 * float libraries).  Out of line: such literals are rare. */
NUIF_S2_NOINLINE int nuif_s2_big_integer(nuif_s2 *s, nuif_tok *t, size_t start, size_t L) {
    const uint8_t *p = s->p;
    nuif_numinfo r;
    char text[NUIF_NUMBER_TEXT_MAX];
    double x;
    int k, point;
    if (!s->float_libs || nuif_parse_double((const char *)p + start, L, &x) != 0) return 0;
    if (x - x != 0.0) return 0;
    k = nuif_shortest_digits(x, r.d, &point);
    if (k <= 0 || (size_t)nuif_fmt_es(text, x < 0.0, r.d, k, point) != L ||
        memcmp(text, p + start, L) != 0) {
        return 0;
    }
    t->kind = NUIF_T_FLT;
    t->flags = NUIF_F_LIT;
    t->len = (uint32_t)L;
    return 1;
}

/* The number literal at i, as _speedups_numbers.pxi's _scan_number puts it on the tape.  Returns
 * the index after it, or 0 (refuse: a bad literal, an overflow, an integer beyond 2^53 - 1 that
 * is not its double's text, or a conversion that needs CPython's dtoa).  Integers and short
 * plain decimals are done here, inline in the walk; the rest in nuif_s2_big_integer and
 * nuif_s2_float. */
NUIF_S2_INLINE size_t nuif_s2_number(nuif_s2 *s, size_t i, int *nomem) {
    const uint8_t *p = s->p;
    size_t n = s->n, start = i, L, nd, int_s, int_e, mant_e, z;
    int neg = 0, integer = 1, has_exp = 0;
    nuif_tok *t = &s->tape[s->ntok];
    if (p[i] == 0x2D) {
        neg = 1;
        i++;
    }
    int_s = i;
    if (!NUIF_S2_DIGIT(p[i])) return 0;
    i = p[i] == 0x30 ? i + 1 : (size_t)nuif_digits_end(p, (ptrdiff_t)i, (ptrdiff_t)n);
    int_e = i;
    if (p[i] == 0x2E) {
        integer = 0;
        i++;
        if (!NUIF_S2_DIGIT(p[i])) return 0;
        i = (size_t)nuif_digits_end(p, (ptrdiff_t)i, (ptrdiff_t)n);
    }
    mant_e = i;
    if (p[i] == 0x65 || p[i] == 0x45) {
        integer = 0;
        has_exp = 1;
        i++;
        if (p[i] == 0x2B || p[i] == 0x2D) i++;
        if (!NUIF_S2_DIGIT(p[i])) return 0;
        while (NUIF_S2_DIGIT(p[i])) i++;
    }
    L = i - start;
    t->at = (uint32_t)start;
    t->quote = 0;
    if (integer) {
        nd = L - (size_t)neg;
        if (nd > 16 || (nd == 16 && memcmp(p + start + neg, "9007199254740991", 16) > 0)) {
            /* beyond ±(2^53 - 1) (NUIF-0.1 §1) */
            if (!nuif_s2_big_integer(s, t, start, L)) return 0;
            s->ntok++;
            return i;
        }
        t->kind = NUIF_T_INT;
        t->flags = (neg && nd == 1 && p[start + 1] == 0x30) ? NUIF_F_NEGZERO : 0;
        t->len = (uint32_t)L;
        s->ntok++;
        return i;
    }
    t->kind = NUIF_T_FLT;
    if (!has_exp) {
        z = nuif_s2_plain_decimal(p, int_s, int_e, mant_e);
        if (z) {
            t->flags = NUIF_F_LIT;
            t->len = (uint32_t)(z - start);
            s->ntok++;
            return i;
        }
    }
    if (!nuif_s2_float(s, t, start, L, int_s, int_e, mant_e, nomem)) return 0;
    s->ntok++;
    return i;
}

/* 1 when c may follow a number or a literal: whitespace, an operator, or the NUL at p[n] */
static inline int nuif_s2_scalar_end(uint8_t c) {
    return c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x2C || c == 0x5D ||
           c == 0x7D || c == 0x3A || c == 0x5B || c == 0x7B || c == 0x00;
}

/* Close the object of frame f: its member count and sorted names (duplicates refuse). */
static int nuif_s2_close_obj(nuif_s2 *s, const nuif_s2_frame *f, size_t *names_top, int *nomem) {
    size_t count = *names_top - f->names_base, m;
    nuif_tok *t = &s->tape[f->tok];
    nuif_key_entry *e;
    t->end = (uint32_t)s->ntok;
    t->members = (uint32_t)count;
    t->order_at = (uint32_t)s->order_len;
    if (NUIF_S2_ROOM(s, order, order_cap, s->order_len + count, uint32_t)) {
        *nomem = 1;
        return -1;
    }
    if (count == 1) {
        s->order[s->order_len] = s->names[f->names_base];
    } else if (count > 1 && count <= 8) {
        /* most objects: an insertion sort of entries on the stack, whose comparisons meet every
         * two names that end up side by side, so a duplicate is an equal comparison */
        nuif_key_entry a[8], v;
        size_t j;
        int c;
        for (m = 0; m < count; m++) {
            const nuif_tok *k = &s->tape[s->names[f->names_base + m]];
            a[m].ptr = (k->flags & NUIF_F_ESC ? s->arena : s->p) + k->at;
            a[m].len = k->len;
            a[m].tok = s->names[f->names_base + m];
        }
        for (m = 1; m < count; m++) {
            v = a[m];
            for (j = m; j > 0; j--) {
                c = nuif_keycmp(a[j - 1].ptr, a[j - 1].len, v.ptr, v.len);
                if (c == 0) return -1; /* a duplicate name: NUIF_DUPLICATE_KEY */
                if (c < 0) break;
                a[j] = a[j - 1];
            }
            a[j] = v;
        }
        for (m = 0; m < count; m++) {
            s->order[s->order_len + m] = a[m].tok;
        }
    } else if (count > 8) {
        if (NUIF_S2_ROOM(s, sort_buf, sort_cap, 2 * count, nuif_key_entry)) {
            *nomem = 1;
            return -1;
        }
        e = s->sort_buf;
        for (m = 0; m < count; m++) {
            const nuif_tok *k = &s->tape[s->names[f->names_base + m]];
            e[m].ptr = (k->flags & NUIF_F_ESC ? s->arena : s->p) + k->at;
            e[m].len = k->len;
            e[m].tok = s->names[f->names_base + m];
        }
        nuif_sort_keys(e, e + count, (ptrdiff_t)count);
        for (m = 0; m < count; m++) {
            if (m > 0 && e[m].len == e[m - 1].len && memcmp(e[m].ptr, e[m - 1].ptr, e[m].len) == 0) {
                return -1; /* a duplicate name: NUIF_DUPLICATE_KEY */
            }
            s->order[s->order_len + m] = e[m].tok;
        }
    }
    s->order_len += count;
    *names_top = f->names_base;
    return 0;
}

/* The next index entry, indexing more input when the chunk is used up; n at the end of the
 * input (p[n] is the NUL, which no rule accepts) or when memory ran out (*nomem set). */
static size_t nuif_s2_next_slow(nuif_s2 *s, size_t names_top, int *nomem) {
    while (nuif_s2_refill(s, names_top, nomem)) {
        if (s->idx_count) return s->idx[s->idx_k++];
    }
    return s->n;
}

static inline size_t nuif_s2_next(nuif_s2 *s, size_t names_top, int *nomem) {
    if (s->idx_k < s->idx_count) return s->idx[s->idx_k++];
    return nuif_s2_next_slow(s, names_top, nomem);
}

static int nuif_s2_walk_index(nuif_s2 *s);
static int nuif_s2_walk_direct(nuif_s2 *s);
static int nuif_s2_split_parse(nuif_s2 *s);

/* Parse p[0:n) (valid UTF-8: the caller checked) into the tape.  NUIF_S2_OK, NUIF_S2_REFUSE
 * (re-read it with the one-pass parser) or NUIF_S2_NOMEM.  With s->direct, without an index;
 * else inputs of pipe_min bytes and more are indexed on a second thread where one can start. */
static int nuif_s2_parse(nuif_s2 *s) {
    const uint8_t *p = s->p;
    size_t n = s->n;
    int rc;
    s->idx_k = s->idx_count = 0;
    s->next_block = s->next_chunk = 0;
    s->pipe = NULL;
    if (s->direct) {
        /* (one call of the direct walk here, so that it is inlined: the split walk returns -1
         * where it cannot start its helper) */
        if (s->split != NULL && (rc = nuif_s2_split_parse(s)) >= 0) return rc;
        return nuif_s2_walk_direct(s);
    }
    nuif_s1_start(&s->s1);
    s->pipe = s->pipe_min && n >= s->pipe_min ? nuif_ipipe_start(s->s1_route, p, n, s->chunk) : NULL;
    rc = nuif_s2_walk_index(s);
    if (s->pipe != NULL) {
        if (rc == NUIF_S2_OK && !nuif_ipipe_ok(s->pipe)) rc = NUIF_S2_REFUSE;
        nuif_ipipe_stop(s->pipe);
        s->pipe = NULL;
    }
    return rc;
}

/* Room on the tape for the direct walk's next token at i (as a refill makes room for a chunk's
 * entries), and a guess at what the rest of the input needs; the name stack gets as much (it
 * never holds more names than the tape holds tokens, so one test covers both).  Returns the new
 * limit below which s->ntok leaves room for one more token, or 0 when memory ran out. */
NUIF_S2_NOINLINE size_t nuif_s2_direct_room(nuif_s2 *s, size_t i) {
    size_t need = s->ntok + 2 + (s->n - i) / 16;
    if (s->stop != NULL && NUIF_S2_LOAD(s->stop)) return 0; /* a segment no longer needed */
    if (NUIF_S2_ROOM(s, tape, tape_cap, need, nuif_tok) ||
        NUIF_S2_ROOM(s, names, names_cap, s->tape_cap, uint32_t)) {
        return 0;
    }
    /* a segment walk comes back here every NUIF_S2_SEG_POLL tokens to see whether to stop */
    if (s->stop != NULL && s->tape_cap - 1 > s->ntok + NUIF_S2_SEG_POLL) {
        return s->ntok + NUIF_S2_SEG_POLL;
    }
    return s->tape_cap - 1;
}

/* The next token's position in the direct walk: the first byte from i that is not whitespace
 * (as the one-pass parser's skip_ws: ": " and ", " cost no call; a newline and an indentation
 * of up to 32 spaces, pretty-printed text's, cost no loop), with room for the token that
 * may start there (*lim: nuif_s2_direct_room's limit); n when memory ran out (*nomem set),
 * where no rule accepts anything. */
NUIF_S2_INLINE size_t nuif_s2_direct_next(nuif_s2 *s, size_t i, uint8_t *guess, size_t *lim,
                                          int *nomem) {
    const uint8_t *p = s->p;
    if (p[i] <= 0x20) {
        if (p[i] == 0x20 && p[i + 1] > 0x20) {
            i++;
        } else {
            if (p[i] == 0x0A && i + 33 <= s->n) { /* a newline and its indentation */
                unsigned k = nuif_indent32(p + i + 1), g = *guess;
                if (NUIF_LIKELY(k == g)) {
                    /* the guess: the next position does not wait for the count (see above) */
                    NUIF_S2_OPAQUE(g);
                    i += 1 + g;
                } else {
                    *guess = (uint8_t)k;
                    i += 1 + k;
                }
            }
            if (p[i] <= 0x20) {
                i = (size_t)nuif_skip_ws(p, (ptrdiff_t)i, (ptrdiff_t)s->n);
            }
        }
    }
    if (s->ntok >= *lim) {
        *lim = nuif_s2_direct_room(s, i);
        if (*lim == 0) {
            *nomem = 1;
            return s->n;
        }
    }
    return i;
}

NUIF_S2_NOINLINE int nuif_s2_splice(nuif_s2 *s, size_t pos, size_t depth);

/* The walks' modes (a constant in each specialization of nuif_s2_walk) */
#define NUIF_S2_WHOLE 0 /* the whole input */
#define NUIF_S2_SPLIT 1 /* the whole input, taking the helper's segments (nuif_s2_split_parse) */
#define NUIF_S2_SEG 2   /* the helper's: array elements from s->seg_end to their closing bracket */

/* nuif_s2_parse's walk: over the index (stage 1's state set up), or with `direct`, over the
 * input itself.  `after` is where the last token ended, which only the direct walk reads.  A
 * segment walk (direct only) starts inside an array whose opening it never saw, at the element
 * at s->seg_end, on the tape, arena, order and doubles as they are, and stops where that array
 * closes (s->seg_end); its frames count that array (s->deepest is at least 1). */
NUIF_S2_INLINE int nuif_s2_walk(nuif_s2 *s, const int direct, const int mode) {
    const uint8_t *p = s->p;
    size_t n = s->n, pos, depth = 0, names_top = 0, e;
    size_t lim = 0; /* the direct walk's room (nuif_s2_direct_room) */
    uint8_t ind[64] = {0}; /* the direct walk's guesses of indentations, by depth */
    int nomem = 0, bad, r;
    uint8_t c;
    nuif_s2_frame *f;
    nuif_tok *t;
#define NUIF_S2_NEXT(after, d)                                                                    \
    (direct ? nuif_s2_direct_next(s, (after), &ind[(d) & 63], &lim, &nomem)                       \
            : nuif_s2_next(s, names_top, &nomem))
    if (mode == NUIF_S2_SEG) {
        /* the array around the segment: a frame with no token, which only the end closes */
        if (NUIF_S2_ROOM(s, frames, frames_cap, 1, nuif_s2_frame)) goto no_memory;
        s->frames[0].tok = 0;
        s->frames[0].names_base = 0;
        s->frames[0].is_obj = 0;
        depth = s->deepest = 1;
        pos = s->seg_end;
        lim = nuif_s2_direct_room(s, pos);
        if (lim == 0) goto no_memory;
    } else {
        s->ntok = s->arena_len = s->order_len = s->doubles_len = 0;
        s->deepest = 0;
        pos = NUIF_S2_NEXT(0, 0);
    }
    for (;;) {
    value: /* a value starts at pos */
        c = p[pos];
        if (c == 0x22) {
            e = nuif_s2_string(s, pos, 0, &nomem);
            if (!e) goto refuse;
        } else if (c == 0x7B || c == 0x5B) {
            if (depth + 1 > s->max_depth) goto refuse;
            if (NUIF_S2_ROOM(s, frames, frames_cap, depth + 1, nuif_s2_frame)) goto no_memory;
            f = &s->frames[depth++];
            if (depth > s->deepest) s->deepest = depth;
            f->tok = (uint32_t)s->ntok;
            f->names_base = (uint32_t)names_top;
            f->is_obj = c == 0x7B;
            t = &s->tape[s->ntok++];
            t->kind = c == 0x7B ? NUIF_T_OBJ : NUIF_T_ARR;
            t->flags = 0;
            t->end = t->members = t->order_at = 0;
            pos = NUIF_S2_NEXT(pos + 1, depth);
            if (c == 0x5B) {
                if (p[pos] != 0x5D) goto value;
                s->tape[f->tok].end = (uint32_t)s->ntok;
                depth--;
            } else {
                if (p[pos] == 0x22) goto key;
                if (p[pos] != 0x7D || nuif_s2_close_obj(s, f, &names_top, &nomem)) goto refuse;
                depth--;
            }
            e = pos + 1;
        } else if (c == 0x2D || NUIF_S2_DIGIT(c)) {
            e = nuif_s2_number(s, pos, &nomem);
            if (!e) goto refuse;
            /* (the direct walk needs no such test: what follows a scalar must be whitespace, a
             * comma or a closing bracket, or the end, which is what it reads next) */
            if (!direct && (!nuif_s2_scalar_end(p[e]) || (p[e] == 0 && e != n))) goto refuse;
        } else if (c == 0x74 || c == 0x66 || c == 0x6E) {
            if (c == 0x74) {
                bad = !(p[pos + 1] == 0x72 && p[pos + 2] == 0x75 && p[pos + 3] == 0x65);
                e = pos + 4;
            } else if (c == 0x66) {
                bad = !(p[pos + 1] == 0x61 && p[pos + 2] == 0x6C && p[pos + 3] == 0x73 &&
                        p[pos + 4] == 0x65);
                e = pos + 5;
            } else {
                bad = !(p[pos + 1] == 0x75 && p[pos + 2] == 0x6C && p[pos + 3] == 0x6C);
                e = pos + 4;
            }
            /* (the && chains stop at the first mismatch, at the latest at the NUL p[n]) */
            if (bad || (!direct && (!nuif_s2_scalar_end(p[e]) || (p[e] == 0 && e != n)))) {
                goto refuse;
            }
            t = &s->tape[s->ntok++];
            t->kind = c == 0x74 ? NUIF_T_TRUE : c == 0x66 ? NUIF_T_FALSE : NUIF_T_NULL;
            t->flags = 0;
            t->at = t->len = t->quote = 0;
        } else {
            goto refuse;
        }
        for (;;) { /* after a value, which ended at e */
            pos = NUIF_S2_NEXT(e, depth - 1);
            if (depth == 0) goto finish;
            f = &s->frames[depth - 1];
            c = p[pos];
            if (c == 0x2C) {
                pos = NUIF_S2_NEXT(pos + 1, depth);
                if (!f->is_obj) {
                    if (mode == NUIF_S2_SPLIT && pos >= s->seg_at) {
                        /* an element where the helper may have begun a segment */
                        r = nuif_s2_splice(s, pos, depth);
                        if (r < 0) goto no_memory;
                        if (r > 0) { /* taken: the array's elements are all on the tape */
                            e = s->seg_end;
                            continue;
                        }
                    }
                    goto value;
                }
                if (p[pos] != 0x22) goto refuse;
                goto key;
            }
            if (c == 0x5D && !f->is_obj) {
                if (mode == NUIF_S2_SEG && depth == 1) {
                    s->seg_end = pos;
                    if (nomem) goto no_memory;
                    return NUIF_S2_OK;
                }
                s->tape[f->tok].end = (uint32_t)s->ntok;
                depth--;
            } else if (c == 0x7D && f->is_obj) {
                if (nuif_s2_close_obj(s, f, &names_top, &nomem)) goto refuse;
                depth--;
            } else {
                goto refuse;
            }
            e = pos + 1;
        }
    key: /* a member name starts at pos (a quote) */
        e = nuif_s2_string(s, pos, 1, &nomem);
        if (!e) goto refuse;
        s->names[names_top++] = (uint32_t)(s->ntok - 1);
        pos = NUIF_S2_NEXT(e, depth);
        if (p[pos] != 0x3A) goto refuse;
        pos = NUIF_S2_NEXT(pos + 1, depth);
    }
finish:
    /* the root value must be all there is; stage 1 must have accepted the whole input */
    if (nomem) goto no_memory;
    if (pos != n) goto refuse;
    if (!direct && (s->next_block < n || s->idx_k < s->idx_count ||
                    (s->pipe == NULL && !nuif_s1_ok(&s->s1)))) {
        goto refuse;
    }
    return NUIF_S2_OK;
refuse:
    if (nomem) goto no_memory;
    return NUIF_S2_REFUSE;
no_memory:
    return NUIF_S2_NOMEM;
#undef NUIF_S2_NEXT
}

static int nuif_s2_walk_index(nuif_s2 *s) { return nuif_s2_walk(s, 0, NUIF_S2_WHOLE); }
static int nuif_s2_walk_direct(nuif_s2 *s) { return nuif_s2_walk(s, 1, NUIF_S2_WHOLE); }
static int nuif_s2_walk_split(nuif_s2 *s) { return nuif_s2_walk(s, 1, NUIF_S2_SPLIT); }
static int nuif_s2_walk_segment(nuif_s2 *s) { return nuif_s2_walk(s, 1, NUIF_S2_SEG); }

/* ---- the split walk: the direct walk on two CPUs ------------------------------------------
 *
 * A helper thread parses the input from s->split->from on while the calling thread parses it
 * from the start.  Where the helper starts it cannot know the context (inside a string or not,
 * at what depth), so it guesses: a comma followed by the start of a value other than a string
 * can only separate two elements of an array, if it is not inside a string.  From such a guess
 * it parses the elements up to the bracket that closes their array (a segment walk, its tokens
 * on its own tape), publishes the segment, and looks for the next guess after it.  The calling
 * thread (the split walk) takes a segment only where its own walk arrives at the segment's start
 * as an array element after a comma: there the guess is a fact, and the segment's tokens are
 * exactly those the walk would have made from there (the walk is deterministic and what it does
 * inside an array's elements depends on nothing before them), only numbered from 0.  So they are
 * copied on with their token, arena, order and doubles indices shifted (nuif_s2_splice), and the
 * walk goes on at the closing bracket.  A wrong guess (inside a string, say) is never arrived at
 * and costs the helper its time only; a segment the helper refused (an error, or a wrong guess)
 * the walk parses itself, and refuses it in turn if it is an error.  So the tape is the one the
 * direct walk builds, token for token, whatever the helper did or when; tests/core/test_indexed.py
 * and fuzz/fuzz_indexed.py hold it to the one-pass parser's with the helper starting anywhere. */

typedef struct {
    size_t start, end;            /* the first element's position; the closing bracket's */
    size_t tok0, tok1, arena0, arena1, order0, order1, dbl0, dbl1;  /* on the helper's buffers */
    size_t deepest;               /* frames, counting the array around the segment */
    int rc;                       /* NUIF_S2_OK, or the segment is not to be taken */
} nuif_s2_seg;

typedef struct nuif_s2_split {
    nuif_s2 w;                    /* the helper's walk and buffers (raw memory, kept) */
    nuif_s2_seg segs[NUIF_S2_SEGS];
    size_t from;                  /* where the helper starts guessing */
    size_t started, done;         /* segments the helper began / finished (shared) */
    int finished;                 /* the helper returned (shared) */
    int stop;                     /* the split walk needs no more segments (shared) */
    int lock;                     /* the helper's buffers: see nuif_s2.lock */
    int wait;                     /* tests: the split walk starts once the helper is done, so
                                     it meets every segment the helper made, small inputs too */
} nuif_s2_split;

/* The next guess at or after `at`: the first value after a comma that is not a string; n when
 * there is none. */
static size_t nuif_s2_seg_start(const uint8_t *p, size_t at, size_t n) {
    const uint8_t *q;
    uint8_t c;
    while (at < n) {
        q = (const uint8_t *)memchr(p + at, 0x2C, n - at);
        if (q == NULL) return n;
        at = (size_t)nuif_skip_ws(p, (ptrdiff_t)(q - p) + 1, (ptrdiff_t)n);
        c = p[at]; /* at n: the NUL, none of these */
        if (c == 0x7B || c == 0x5B || c == 0x2D || NUIF_S2_DIGIT(c) || c == 0x74 || c == 0x66 ||
            c == 0x6E) {
            return at;
        }
    }
    return n;
}

/* The helper thread (nuif_helper_start's fn). */
static void nuif_s2_split_run(void *arg) {
    nuif_s2_split *sp = (nuif_s2_split *)arg;
    nuif_s2 *w = &sp->w;
    nuif_s2_seg *g;
    size_t at = sp->from, k;
    w->ntok = w->arena_len = w->order_len = w->doubles_len = 0;
    for (k = 0; k < NUIF_S2_SEGS; k++) {
        if (NUIF_S2_LOAD(&sp->stop)) break;
        at = nuif_s2_seg_start(w->p, at, w->n);
        if (at >= w->n) break;
        g = &sp->segs[k];
        g->start = at;
        g->tok0 = w->ntok;
        g->arena0 = w->arena_len;
        g->order0 = w->order_len;
        g->dbl0 = w->doubles_len;
        NUIF_S2_STORE(&sp->started, k + 1);
        w->seg_end = at;
        g->rc = nuif_s2_walk_segment(w);
        g->end = w->seg_end;
        g->tok1 = w->ntok;
        g->arena1 = w->arena_len;
        g->order1 = w->order_len;
        g->dbl1 = w->doubles_len;
        g->deepest = w->deepest;
        if (g->rc == NUIF_S2_OK) {
            at = g->end + 1;
        } else { /* drop what it left, and guess again after its start */
            w->ntok = g->tok0;
            w->arena_len = g->arena0;
            w->order_len = g->order0;
            w->doubles_len = g->dbl0;
            at = g->start;
        }
        NUIF_S2_STORE(&sp->done, k + 1);
        if (g->rc == NUIF_S2_NOMEM) break; /* out of memory, or told to stop */
    }
    NUIF_S2_STORE(&sp->finished, 1);
}

/* A token's place in nuif_s2_splice's tables: its kind, then its F_DBL and F_ESC flags. */
static inline unsigned nuif_s2_shift_at(const nuif_tok *t) {
    return ((unsigned)t->kind << 2) | ((t->flags & NUIF_F_DBL) ? 2u : 0u) |
           ((t->flags & NUIF_F_ESC) ? 1u : 0u);
}

/* The split walk at pos, an array element after a comma, at depth `depth`: takes the helper's
 * segment that starts there, if there is one (waiting for the helper to finish it).  1: taken
 * (its closing bracket at s->seg_end), 0: parse on, -1: out of memory.  Also moves s->seg_at to
 * where to ask next. */
NUIF_S2_NOINLINE int nuif_s2_splice(nuif_s2 *s, size_t pos, size_t depth) {
    nuif_s2_split *sp = s->split;
    const nuif_s2 *w = &sp->w;
    const nuif_s2_seg *g;
    size_t k, m, nt, dt, da, dord, dd, spins;
    uint32_t add0[32], add2[32];
    unsigned x;
    nuif_tok *t;
    for (;;) {
        k = s->seg_next;
        if (k >= NUIF_S2_LOAD(&sp->started)) {
            /* none begun yet: ask again at the next element, unless the helper is done */
            s->seg_at = NUIF_S2_LOAD(&sp->finished) && k >= NUIF_S2_LOAD(&sp->started)
                            ? (size_t)-1
                            : pos + 1;
            return 0;
        }
        g = &sp->segs[k];
        if (pos < g->start) {
            s->seg_at = g->start;
            return 0;
        }
        s->seg_next = k + 1;
        if (pos > g->start) continue; /* passed: a wrong guess */
        for (spins = 1; NUIF_S2_LOAD(&sp->done) <= k; spins++) {
            NUIF_S2_RELAX();
            if (spins % 1024 == 0) nuif_helper_yield();
        }
        if (g->rc != NUIF_S2_OK || depth - 1 + g->deepest > s->max_depth) {
            s->seg_at = pos + 1; /* parse it here (and refuse it here, if it is an error) */
            return 0;
        }
        break;
    }
    nt = g->tok1 - g->tok0;
    if (NUIF_S2_ROOM(s, tape, tape_cap, s->ntok + nt + 2, nuif_tok) ||
        NUIF_S2_ROOM(s, names, names_cap, s->tape_cap, uint32_t) ||
        NUIF_S2_ROOM(s, arena, arena_cap, s->arena_len + (g->arena1 - g->arena0) + 24, uint8_t) ||
        NUIF_S2_ROOM(s, order, order_cap, s->order_len + (g->order1 - g->order0), uint32_t) ||
        NUIF_S2_ROOM(s, doubles, doubles_cap, s->doubles_len + (g->dbl1 - g->dbl0), double)) {
        return -1;
    }
    /* the helper's indices, numbered from its buffers' starts, shifted onto ours */
    dt = s->ntok - g->tok0;
    da = s->arena_len - g->arena0;
    dord = s->order_len - g->order0;
    dd = s->doubles_len - g->dbl0;
    t = s->tape + s->ntok;
    /* what each token's first and third words gain, by its kind and its F_ESC and F_DBL flags
     * (nuif_s2_shift_at): a container's end, an object's order_at, an escaped string's at, a
     * double's dbl; nothing else moves (a member name's quote is a place in the shared input).
     * A table, not a branch per token: kinds alternate from one token to the next. */
    memset(add0, 0, sizeof add0);
    memset(add2, 0, sizeof add2);
    for (m = 0; m < 4; m++) {
        add0[(NUIF_T_ARR << 2) | m] = add0[(NUIF_T_OBJ << 2) | m] = (uint32_t)dt;
        add2[(NUIF_T_OBJ << 2) | m] = (uint32_t)dord;
    }
    add0[(NUIF_T_STR << 2) | 1] = add0[(NUIF_T_STR << 2) | 3] = (uint32_t)da;
    add2[(NUIF_T_FLT << 2) | 2] = add2[(NUIF_T_FLT << 2) | 3] = (uint32_t)dd;
    nuif_s2_lock(&sp->lock); /* the helper, parsing on, must not move its buffers meanwhile */
    if (nt > 0) memcpy(t, w->tape + g->tok0, nt * sizeof(nuif_tok));
    for (m = 0; m < nt; m++, t++) {
        x = nuif_s2_shift_at(t);
        t->end += add0[x];      /* the word of at and end */
        t->order_at += add2[x]; /* the word of quote, dbl and order_at */
    }
    if (g->arena1 > g->arena0) {
        memcpy(s->arena + s->arena_len, w->arena + g->arena0, g->arena1 - g->arena0);
    }
    for (m = 0; m < g->order1 - g->order0; m++) {
        s->order[s->order_len + m] = w->order[g->order0 + m] + (uint32_t)dt;
    }
    if (g->dbl1 > g->dbl0) {
        memcpy(s->doubles + s->doubles_len, w->doubles + g->dbl0,
               (g->dbl1 - g->dbl0) * sizeof(double));
    }
    nuif_s2_unlock(&sp->lock);
    s->ntok += nt;
    s->arena_len += g->arena1 - g->arena0;
    s->order_len += g->order1 - g->order0;
    s->doubles_len += g->dbl1 - g->dbl0;
    if (depth - 1 + g->deepest > s->deepest) s->deepest = depth - 1 + g->deepest;
    s->seg_end = g->end;
    s->seg_at = g->end + 1;
    s->spliced++;
    return 1;
}

/* nuif_s2_parse's direct walk with a helper thread (s->split's buffers, from s->split->from);
 * -1 where no helper can start (the caller then walks alone). */
static int nuif_s2_split_parse(nuif_s2 *s) {
    nuif_s2_split *sp = s->split;
    nuif_s2 *w = &sp->w;
    nuif_helper *h;
    int rc;
    s->seg_at = 0;
    s->seg_next = 0;
    s->spliced = 0;
    if (!NUIF_S2_CAN_SPLIT) return -1;
    w->p = s->p;
    w->n = s->n;
    w->max_depth = s->max_depth;
    w->float_libs = s->float_libs;
    w->direct = 1;
    w->raw_mem = 1;
    w->split = NULL;
    w->stop = &sp->stop;
    w->lock = &sp->lock;
    sp->started = sp->done = 0;
    sp->finished = sp->stop = sp->lock = 0;
    h = nuif_helper_start(nuif_s2_split_run, sp);
    if (h == NULL) return -1;
    while (sp->wait && !NUIF_S2_LOAD(&sp->finished)) nuif_helper_yield();
    rc = nuif_s2_walk_split(s);
    NUIF_S2_STORE(&sp->stop, 1);
    nuif_helper_join(h); /* the helper no longer reads the input */
    return rc;
}

/* Free the helper's buffers that are larger than max_bytes, and its arena when larger than
 * max_arena (after a split walk). */
static void nuif_s2_split_trim(nuif_s2_split *sp, size_t max_bytes, size_t max_arena) {
    nuif_s2 *w = &sp->w;
#define NUIF_S2_TRIM(field, capf, type, max)                                                     \
    if (w->capf * sizeof(type) > (max)) {                                                        \
        PyMem_RawFree(w->field);                                                                 \
        w->field = NULL;                                                                         \
        w->capf = 0;                                                                             \
    }
    NUIF_S2_TRIM(tape, tape_cap, nuif_tok, max_bytes)
    NUIF_S2_TRIM(arena, arena_cap, uint8_t, max_arena)
    NUIF_S2_TRIM(names, names_cap, uint32_t, max_bytes)
    NUIF_S2_TRIM(order, order_cap, uint32_t, max_bytes)
    NUIF_S2_TRIM(sort_buf, sort_cap, nuif_key_entry, max_bytes)
    NUIF_S2_TRIM(doubles, doubles_cap, double, max_bytes)
    NUIF_S2_TRIM(frames, frames_cap, nuif_s2_frame, max_bytes)
#undef NUIF_S2_TRIM
}

#endif
