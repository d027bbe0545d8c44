/* The walk: strict I-JSON text to the token tape (csrc/nuif_tape.h), in one left-to-right pass
 * over the input that finds each next token by skipping whitespace itself.
 *
 * It checks everything strict I-JSON asks (grammar, escapes, surrogates, noncharacters, number
 * grammar and range, duplicate names, depth), takes every valid input and refuses every other:
 * NUIF_WALK_REFUSE, with the site where it stopped, the position and the depth of the stack
 * recorded in the state.  It builds no error text: nuif_fault.h turns that record into the
 * error (code, offset, the path of keys and indices), reading the state and at most the one
 * token it stopped on, so errors cost nothing on the fast path and no second read of the input.
 * Numbers the vendored libraries do not convert (no C++17 compiler, an exponent beyond their
 * range) are converted by the host (nuif_fallback.h); NUIF_WALK_NOMEM means the host recorded
 * why the call failed (memory ran out, or its conversion failed).
 *
 * Buffers are the caller's (so the writer, the schema check and the inspect summary read the
 * result unchanged) and grow with the host's realloc (nuif_host.h).  The input is NUL-terminated
 * (a bytes object is): p[n] is a NUL, nothing past it is read.
 */
#ifndef NUIF_WALK_H
#define NUIF_WALK_H

#include "nuif_host.h"

#include <stdint.h>
#include <string.h>

#include "nuif_escape.h"
#include "nuif_float.h"
#include "nuif_keysort.h"
#include "nuif_number.h"
#include "nuif_fallback.h"
#include "nuif_scan.h"
#include "nuif_tables.h"
#include "nuif_tape.h"
#include "nuif_utf8.h"

#define NUIF_WALK_OK 0
#define NUIF_WALK_REFUSE 1
#define NUIF_WALK_NOMEM 2

/* inlined into the walk always (the hot path), or never (what most tokens never need) */
#if defined(__GNUC__) || defined(__clang__)
#define NUIF_WALK_INLINE static inline __attribute__((always_inline))
/* v's value unknown to the compiler from here on (no instruction) */
#define NUIF_WALK_OPAQUE(v) __asm__("" : "+r"(v))
#define NUIF_WALK_NOINLINE static __attribute__((noinline))
#elif defined(_MSC_VER)
#define NUIF_WALK_INLINE static __forceinline
#define NUIF_WALK_OPAQUE(v) ((void)0)
#define NUIF_WALK_NOINLINE static __declspec(noinline)
#else
#define NUIF_WALK_INLINE static inline
#define NUIF_WALK_OPAQUE(v) ((void)0)
#define NUIF_WALK_NOINLINE static
#endif

typedef struct {
    uint32_t tok;        /* the container's token */
    uint32_t names_base; /* objects: where its names start on the name stack */
    int is_obj;
} nuif_walk_frame;

/* The walk's buffers and counters, kept in the pipeline's state (csrc/nuif_doc.h). */
typedef struct {
    const uint8_t *p;
    size_t n;
    size_t max_depth;
    int float_libs;   /* 1: nuif_parse_double may be used, else numbers needing it refuse */
    int want_doubles; /* nuif_walk_parse_values: every non-integer's double to doubles */
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
    nuif_walk_frame *frames;
    size_t frames_cap;
    size_t deepest;
    /* a refusal: where the walk stopped and in what state (nuif_fault.h says why from these) */
    int fault_site; /* NUIF_SITE_* */
    size_t fault_at, fault_depth, fault_names_top;
} nuif_walk;

/* Where the walk refused: what it was reading at s->fault_at. */
enum {
    NUIF_SITE_STRING = 1, /* a string value */
    NUIF_SITE_DEPTH,      /* an array or object one level beyond max_depth */
    NUIF_SITE_FIRST_KEY,  /* what follows '{' */
    NUIF_SITE_NUMBER,     /* a number literal */
    NUIF_SITE_LITERAL,    /* true, false or null */
    NUIF_SITE_VALUE,      /* a byte that starts no value */
    NUIF_SITE_KEY,        /* what follows ',' in an object */
    NUIF_SITE_DUPLICATE,  /* the object of the top frame, closing, repeats a member name */
    NUIF_SITE_NEXT,       /* what follows a value in the top frame's array or object */
    NUIF_SITE_NAME,       /* a member name's string */
    NUIF_SITE_COLON,      /* what follows a member name */
    NUIF_SITE_END         /* what follows the root value */
};

static int nuif_walk_grow(nuif_walk *s, void **ptr, size_t *cap, size_t need, size_t item) {
    size_t newcap = *cap * 2;
    void *q;
    if (newcap < need) newcap = need;
    if (newcap < 16) newcap = 16;
    (void)s;
    q = newcap <= (size_t)PTRDIFF_MAX / item ? nuif_host_realloc(*ptr, newcap * item) : NULL;
    if (q == NULL) {
        nuif_host_nomem();
        return -1;
    }
    *ptr = q;
    *cap = newcap;
    return 0;
}

#define NUIF_WALK_ROOM(s, field, capf, need, type)                                                 \
    ((need) <= (s)->capf                                                                           \
         ? 0                                                                                       \
         : nuif_walk_grow((s), (void **)&(s)->field, &(s)->capf, (need), sizeof(type)))

/* The end of a run of string body from j: the index of its first quote or backslash, or 0
 * (refuse) when a noncharacter or a control byte comes first or the input ends.  The scanner
 * (csrc/nuif_scan.h) stops at the lead bytes that may start a noncharacter, checked here
 * exactly.  *hi |= 0x80 when the run has a byte >= 0x80 (where *hi is never read, the compiler
 * drops its computation). */
NUIF_WALK_INLINE size_t nuif_walk_body(const uint8_t *p, size_t j, size_t n, int *hi) {
    uint8_t c;
    for (;;) {
        j = (size_t)nuif_str_run(p, (ptrdiff_t)j, (ptrdiff_t)n, hi);
        if (j >= n) return 0;
        c = p[j];
        if (c == '"' || c == '\\') return j;
        if (c < 0x20 || nuif_nonchar_at(p, (ptrdiff_t)j) >= 0) return 0;
        *hi = 0x80; /* a lead byte >= 0xEF */
        j += (size_t)nuif_seq_len(c);
    }
}

static inline int nuif_walk_hex4(const uint8_t *p, size_t i, size_t n) {
    uint8_t h0, h1, h2, h3;
    if (i + 4 > n) return -1;
    h0 = nuif_hexval[p[i]];
    h1 = nuif_hexval[p[i + 1]];
    h2 = nuif_hexval[p[i + 2]];
    h3 = nuif_hexval[p[i + 3]];
    if ((h0 | h1 | h2 | h3) & 0xF0) return -1;
    return (h0 << 12) | (h1 << 8) | (h2 << 4) | h3;
}

static size_t nuif_walk_string_esc(nuif_walk *s, size_t i, size_t j, int is_key, int *nomem);

/* The token of a string whose bytes are the input's, quotes at i and j (the closing one);
 * returns the index after it. */
NUIF_WALK_INLINE size_t nuif_walk_input_string(nuif_walk *s, size_t i, size_t j, int is_key) {
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
NUIF_WALK_INLINE size_t nuif_walk_string(nuif_walk *s, size_t i, int is_key, int *nomem,
                                         const int values) {
    int hi = 0;
    size_t start = i + 1, j = nuif_walk_body(s->p, start, s->n, &hi);
    if (!j) return 0;
    /* for values (loads), a string value's escapes are decoded as a member name's are */
    if (s->p[j] != '"') return nuif_walk_string_esc(s, i, j, is_key || values, nomem);
    j = nuif_walk_input_string(s, i, j, is_key);
    if (values && !hi) s->tape[s->ntok - 1].flags = NUIF_F_ASCII;
    return j;
}

/* nuif_walk_string from the first backslash at j on (out of line: the plain case is inlined) */
static size_t nuif_walk_string_esc(nuif_walk *s, size_t i, size_t j, int is_key, int *nomem) {
    const uint8_t *p = s->p;
    size_t n = s->n, start = i + 1, d0, k;
    int cp, low, hi = 0; /* (hi: not read here) */
    uint8_t *w, e, flags = NUIF_F_ESC;
    nuif_tok *t;
    if (!is_key) {
        /* a value whose escapes are all spelled as the writer spells them is its own canonical
         * text: the token points at the input and nothing is copied, up to the first escape
         * that is not (j there); the arena then gets the text before it, as it is */
        ptrdiff_t el;
        while (p[j] == '\\' && (el = nuif_canon_esc_len(p, (ptrdiff_t)j)) != 0) {
            j += (size_t)el;
            if (p[j] != '\\' && p[j] != '"') {
                k = nuif_walk_body(p, j, n, &hi);
                if (!k) return 0;
                j = k;
            }
        }
        if (p[j] == '"') return nuif_walk_input_string(s, i, j, 0);
    }
    /* escapes: into the arena (never longer than the rest of the input; 16 bytes more for
     * nuif_copy's block copies of the runs between them) */
    if (NUIF_WALK_ROOM(s, arena, arena_cap, s->arena_len + (n - start) + 24, uint8_t)) {
        *nomem = 1;
        return 0;
    }
    d0 = s->arena_len;
    w = s->arena + d0;
    nuif_copy((char *)w, p + start, (ptrdiff_t)(j - start), p + n + 1);
    w += j - start;
    for (;;) {
        /* p[j] is a backslash or the closing quote */
        if (p[j] == '"') break;
        e = p[j + 1];
        if (e == 'u') { /* \uXXXX, a surrogate pair counting as one */
            cp = nuif_walk_hex4(p, j + 2, n);
            if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return 0;
            j += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (j + 1 >= n || p[j] != '\\' || p[j + 1] != 'u') return 0;
                low = nuif_walk_hex4(p, j + 2, n);
                if (low < 0xDC00 || low > 0xDFFF) return 0;
                j += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return 0;
            if (cp < 0x20 || cp == '"' || cp == '\\') {
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
            if (e == '/') {
                *w++ = '/';
            } else if (!is_key) { /* the canonical form of these escapes is the escape itself */
                w[0] = '\\';
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
        if (j < n && (p[j] == '\\' || p[j] == '"')) continue;
        k = nuif_walk_body(p, j, n, &hi);
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

#define NUIF_WALK_DIGIT(c) ((uint8_t)((c) - '0') < 10)

/* Where the canonical text of a plain decimal
 * literal with at most 15 significant digits ends, or 0 when the literal is not of that kind. */
static inline size_t nuif_walk_plain_decimal(const uint8_t *p, size_t int_s, size_t int_e,
                                             size_t mant_e) {
    size_t fe = mant_e, z;
    while (p[fe - 1] == '0') fe--; /* stops at the point */
    if (p[int_s] != '0') {
        if (fe == int_e + 1) {
            if (int_e - int_s <= 15) return int_e;
        } else if ((int_e - int_s) + (fe - int_e - 1) <= 15) {
            return fe;
        }
    } else if (fe > int_e + 1) {
        z = int_e + 1;
        while (p[z] == '0') z++; /* stops at a nonzero digit before fe */
        if (z - (int_e + 1) <= 5 && fe - z <= 15) return fe;
    }
    return 0;
}

/* The double of the literal p[start:start+L): the vendored libraries', else the host's (no C++17
 * compiler, or an exponent beyond the libraries' range).  0, or -1 with *nomem set. */
static int nuif_walk_double(nuif_walk *s, size_t start, size_t L, double *x, int *nomem) {
    if (s->float_libs && nuif_parse_double((const char *)s->p + start, L, x) == 0) return 0;
    if (nuif_host_strtod(s->p + start, L, x) == 0) return 0;
    *nomem = 1;
    return -1;
}

/* nuif_walk_number's literal p[start:start+L) of token t, a float that is not a short plain
 * decimal: its digits are taken as they are (fast digits), it is its double's canonical text
 * already (F_LIT, nuif_long_decimal: 16-17 digits as ECMAScript prints them), or its double goes
 * to s->doubles.  Out of line, so the common literals cost no call.  Returns 1, or 0 (refuse). */
NUIF_WALK_NOINLINE int nuif_walk_float(nuif_walk *s, nuif_tok *t, size_t start, size_t L,
                                       size_t int_s, size_t int_e, size_t mant_e, int *nomem) {
    const uint8_t *p = s->p;
    nuif_numinfo r;
    double x;
    int rc;
    t->len = (uint32_t)L;
    if (nuif_many_digits(p, int_s, int_e, mant_e)) {
        /* more than 15 significant digits: the double itself, and maybe the literal's own text */
        rc = s->float_libs && !s->want_doubles ? nuif_long_decimal(p, p[start] == '-', int_s, int_e,
                                                                   mant_e, mant_e < start + L, &x)
                                               : -1;
        if (rc == 1 && !s->want_doubles) {
            t->flags = NUIF_F_LIT; /* already its double's shortest ES text */
            return 1;
        }
        if (rc < 0 && nuif_walk_double(s, start, L, &x, nomem) != 0) return 0;
    } else {
        nuif_analyze(p + start, (ptrdiff_t)L, &r);
        if (!s->want_doubles && (r.k == 0 || nuif_fast_digits(&r))) {
            t->flags = 0;
            return 1;
        }
        if (r.k == 0) {
            x = 0.0;
        } else if (!nuif_small_decimal(&r, &x) && nuif_walk_double(s, start, L, &x, nomem) != 0) {
            return 0;
        }
    }
    if (x - x != 0.0) return 0; /* infinite: NUIF_NUMBER (nuif_fault.h) */
    if (x == 0.0) x = 0.0;
    if (s->doubles_len >= s->doubles_cap && nuif_walk_grow(s, (void **)&s->doubles, &s->doubles_cap,
                                                           s->doubles_len + 1, sizeof(double))) {
        *nomem = 1;
        return 0;
    }
    t->flags = NUIF_F_DBL;
    t->dbl = (uint32_t)s->doubles_len;
    s->doubles[s->doubles_len++] = x;
    return 1;
}

/* nuif_walk_number's integer literal p[start:start+L) of token t, beyond ±(2^53 - 1): accepted (a
 * literal token) only when it is exactly the RFC 8785 text of its double (NUIF-0.1
 * §1).  Returns 1, or 0 (refuse: NUIF_NUMBER, or
 * *nomem).  Out of line: such literals are rare. */
NUIF_WALK_NOINLINE int nuif_walk_big_integer(nuif_walk *s, nuif_tok *t, size_t start, size_t L,
                                             int *nomem) {
    const uint8_t *p = s->p;
    char text[NUIF_NUMBER_TEXT_MAX];
    double x;
    ptrdiff_t k;
    if (nuif_walk_double(s, start, L, &x, nomem) != 0 || x - x != 0.0) return 0;
    k = nuif_fmt_double(text, x, s->float_libs);
    if (k < 0) {
        *nomem = 1;
        return 0;
    }
    if ((size_t)k != L || memcmp(text, p + start, L) != 0) return 0;
    t->kind = NUIF_T_FLT;
    t->flags = NUIF_F_LIT;
    t->len = (uint32_t)L;
    return 1;
}

/* The number literal at i, as a token on the tape.  Returns the index after it, or 0 (refuse: a
 * bad literal, an overflow, an integer beyond 2^53 - 1 that is not its double's text, or memory
 * running out in the host's conversion).  Integers and short plain decimals are done here,
 * inline in the walk; the rest in nuif_walk_big_integer and nuif_walk_float. */
NUIF_WALK_INLINE size_t nuif_walk_number(nuif_walk *s, size_t i, int *nomem) {
    const uint8_t *p = s->p;
    size_t n = s->n, start = i, L, nd, int_s, int_e, mant_e, z;
    int neg = 0, integer = 1, has_exp = 0;
    nuif_tok *t = &s->tape[s->ntok];
    if (p[i] == '-') {
        neg = 1;
        i++;
    }
    int_s = i;
    if (!NUIF_WALK_DIGIT(p[i])) return 0;
    i = p[i] == '0' ? i + 1 : (size_t)nuif_digits_end(p, (ptrdiff_t)i, (ptrdiff_t)n);
    int_e = i;
    if (p[i] == '.') {
        integer = 0;
        i++;
        if (!NUIF_WALK_DIGIT(p[i])) return 0;
        i = (size_t)nuif_digits_end(p, (ptrdiff_t)i, (ptrdiff_t)n);
    }
    mant_e = i;
    if (p[i] == 'e' || p[i] == 'E') {
        integer = 0;
        has_exp = 1;
        i++;
        if (p[i] == '+' || p[i] == '-') i++;
        if (!NUIF_WALK_DIGIT(p[i])) return 0;
        while (NUIF_WALK_DIGIT(p[i])) i++;
    }
    L = i - start;
    t->at = (uint32_t)start;
    t->quote = 0;
    if (integer) {
        nd = L - (size_t)neg;
        if (nd > 16 || (nd == 16 && memcmp(p + start + neg, "9007199254740991", 16) > 0)) {
            /* beyond ±(2^53 - 1) (NUIF-0.1 §1) */
            if (!nuif_walk_big_integer(s, t, start, L, nomem)) return 0;
            s->ntok++;
            return i;
        }
        t->kind = NUIF_T_INT;
        t->flags = (neg && nd == 1 && p[start + 1] == '0') ? NUIF_F_NEGZERO : 0;
        t->len = (uint32_t)L;
        s->ntok++;
        return i;
    }
    t->kind = NUIF_T_FLT;
    if (!has_exp && !s->want_doubles) {
        z = nuif_walk_plain_decimal(p, int_s, int_e, mant_e);
        if (z) {
            t->flags = NUIF_F_LIT;
            t->len = (uint32_t)(z - start);
            s->ntok++;
            return i;
        }
    }
    if (!nuif_walk_float(s, t, start, L, int_s, int_e, mant_e, nomem)) return 0;
    s->ntok++;
    return i;
}

/* Close the object of frame f: its member count and sorted names (duplicates refuse). */
static int nuif_walk_close_obj(nuif_walk *s, const nuif_walk_frame *f, size_t *names_top,
                               int *nomem) {
    size_t count = *names_top - f->names_base, m;
    nuif_tok *t = &s->tape[f->tok];
    nuif_key_entry *e;
    t->end = (uint32_t)s->ntok;
    t->members = (uint32_t)count;
    t->order_at = (uint32_t)s->order_len;
    if (NUIF_WALK_ROOM(s, order, order_cap, s->order_len + count, uint32_t)) {
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
        if (NUIF_WALK_ROOM(s, sort_buf, sort_cap, 2 * count, nuif_key_entry)) {
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
            if (m > 0 && e[m].len == e[m - 1].len &&
                memcmp(e[m].ptr, e[m - 1].ptr, e[m].len) == 0) {
                return -1; /* a duplicate name: NUIF_DUPLICATE_KEY */
            }
            s->order[s->order_len + m] = e[m].tok;
        }
    }
    s->order_len += count;
    *names_top = f->names_base;
    return 0;
}

/* Room on the tape for the direct walk's next token at i (as a refill makes room for a chunk's
 * entries), and a guess at what the rest of the input needs; the name stack gets as much (it
 * never holds more names than the tape holds tokens, so one test covers both).  Returns the new
 * limit below which s->ntok leaves room for one more token, or 0 when memory ran out. */
NUIF_WALK_NOINLINE size_t nuif_walk_direct_room(nuif_walk *s, size_t i) {
    size_t need = s->ntok + 2 + (s->n - i) / 16;
    if (NUIF_WALK_ROOM(s, tape, tape_cap, need, nuif_tok) ||
        NUIF_WALK_ROOM(s, names, names_cap, s->tape_cap, uint32_t)) {
        return 0;
    }
    return s->tape_cap - 1;
}

/* The next token's position in the direct walk: the first byte from i that is not whitespace
 * (": " and ", " cost no call; a newline and an indentation
 * of up to 32 spaces, pretty-printed text's, cost no loop), with room for the token that
 * may start there (*lim: nuif_walk_direct_room's limit); n when memory ran out (*nomem set),
 * where no rule accepts anything. */
NUIF_WALK_INLINE size_t nuif_walk_direct_next(nuif_walk *s, size_t i, uint8_t *guess, size_t *lim,
                                              int *nomem) {
    const uint8_t *p = s->p;
    if (p[i] <= ' ') {
        if (p[i] == ' ' && p[i + 1] > 0x20) {
            i++;
        } else {
            if (p[i] == '\n' && i + 33 <= s->n) { /* a newline and its indentation */
                unsigned k = nuif_indent32(p + i + 1), g = *guess;
                if (NUIF_LIKELY(k == g)) {
                    /* the guess: the next position does not wait for the count (see above) */
                    NUIF_WALK_OPAQUE(g);
                    i += 1 + g;
                } else {
                    *guess = (uint8_t)k;
                    i += 1 + k;
                }
            }
            if (p[i] <= ' ') {
                i = (size_t)nuif_skip_ws(p, (ptrdiff_t)i, (ptrdiff_t)s->n);
            }
        }
    }
    if (s->ntok >= *lim) {
        *lim = nuif_walk_direct_room(s, i);
        if (*lim == 0) {
            *nomem = 1;
            return s->n;
        }
    }
    return i;
}

/* The literal true, false or null whose first letter is at pos: its token, and the index after
 * it; 0 (refuse) when the text spells something else (the && chains stop at the first mismatch,
 * at the latest at the NUL p[n]). */
NUIF_WALK_INLINE size_t nuif_walk_literal(nuif_walk *s, size_t pos) {
    const uint8_t *p = s->p;
    uint8_t c = p[pos];
    nuif_tok *t;
    size_t e;
    int ok;
    if (c == 't') {
        ok = p[pos + 1] == 'r' && p[pos + 2] == 'u' && p[pos + 3] == 'e';
        e = pos + 4;
    } else if (c == 'f') {
        ok = p[pos + 1] == 'a' && p[pos + 2] == 'l' && p[pos + 3] == 's' && p[pos + 4] == 'e';
        e = pos + 5;
    } else {
        ok = p[pos + 1] == 'u' && p[pos + 2] == 'l' && p[pos + 3] == 'l';
        e = pos + 4;
    }
    if (!ok) return 0;
    t = &s->tape[s->ntok++];
    t->kind = c == 't' ? NUIF_T_TRUE : c == 'f' ? NUIF_T_FALSE : NUIF_T_NULL;
    t->flags = 0;
    t->at = t->len = t->quote = 0;
    return e;
}

/* Open an array or object at depth (its frame there, its token next on the tape); the frame,
 * or NULL when memory ran out. */
NUIF_WALK_INLINE nuif_walk_frame *nuif_walk_open(nuif_walk *s, size_t depth, size_t names_top,
                                                 int is_obj) {
    nuif_walk_frame *f;
    nuif_tok *t;
    if (NUIF_WALK_ROOM(s, frames, frames_cap, depth + 1, nuif_walk_frame)) return NULL;
    f = &s->frames[depth];
    if (depth + 1 > s->deepest) s->deepest = depth + 1;
    f->tok = (uint32_t)s->ntok;
    f->names_base = (uint32_t)names_top;
    f->is_obj = is_obj;
    t = &s->tape[s->ntok++];
    t->kind = is_obj ? NUIF_T_OBJ : NUIF_T_ARR;
    t->flags = 0;
    t->end = t->members = t->order_at = 0;
    return f;
}

/* Parse p[0:n) (valid UTF-8: the caller checked) into the tape.  NUIF_WALK_OK, NUIF_WALK_REFUSE
 * (the fault_* fields say where: nuif_fault.h) or NUIF_WALK_NOMEM.  `values` (a constant in
 * each of the two callers below, which the compiler specializes): the tape is for building
 * values (loads): every non-integer gets its double, string values are decoded as member names
 * are, and plain ASCII strings are marked. */
NUIF_WALK_INLINE int nuif_walk_run(nuif_walk *s, const int values) {
    const uint8_t *p = s->p;
    size_t n = s->n, pos, depth = 0, names_top = 0, e;
    size_t lim = 0;        /* the direct walk's room (nuif_walk_direct_room) */
    uint8_t ind[64] = {0}; /* the direct walk's guesses of indentations, by depth */
    int nomem = 0, site = 0;
    uint8_t c;
    nuif_walk_frame *f;
#define NUIF_WALK_NEXT(after, d) nuif_walk_direct_next(s, (after), &ind[(d)&63], &lim, &nomem)
#define NUIF_WALK_REFUSE_AT(where)                                                                 \
    do {                                                                                           \
        site = (where);                                                                            \
        goto refuse;                                                                               \
    } while (0)
    s->want_doubles = values;
    s->ntok = s->arena_len = s->order_len = s->doubles_len = 0;
    s->deepest = 0;
    pos = NUIF_WALK_NEXT(0, 0);
    for (;;) {
    value: /* a value starts at pos */
        c = p[pos];
        if (c == '"') {
            e = nuif_walk_string(s, pos, 0, &nomem, values);
            if (!e) NUIF_WALK_REFUSE_AT(NUIF_SITE_STRING);
        } else if (c == '{' || c == '[') {
            if (depth + 1 > s->max_depth) NUIF_WALK_REFUSE_AT(NUIF_SITE_DEPTH);
            f = nuif_walk_open(s, depth++, names_top, c == '{');
            if (f == NULL) goto no_memory;
            pos = NUIF_WALK_NEXT(pos + 1, depth);
            if (c == '[') {
                if (p[pos] != ']') goto value;
                s->tape[f->tok].end = (uint32_t)s->ntok;
                depth--;
            } else {
                if (p[pos] == '"') goto key;
                if (p[pos] != '}') NUIF_WALK_REFUSE_AT(NUIF_SITE_FIRST_KEY);
                /* no names, so no duplicate: only memory can fail */
                if (nuif_walk_close_obj(s, f, &names_top, &nomem)) goto no_memory;
                depth--;
            }
            e = pos + 1;
        } else if (c == '-' || NUIF_WALK_DIGIT(c)) {
            e = nuif_walk_number(s, pos, &nomem);
            if (!e) NUIF_WALK_REFUSE_AT(NUIF_SITE_NUMBER);
            /* (no test of what follows: it must be whitespace, a comma or a closing bracket,
             * or the end, which is what the walk reads next) */
        } else if (c == 't' || c == 'f' || c == 'n') {
            e = nuif_walk_literal(s, pos);
            if (!e) NUIF_WALK_REFUSE_AT(NUIF_SITE_LITERAL);
        } else {
            NUIF_WALK_REFUSE_AT(NUIF_SITE_VALUE);
        }
        for (;;) { /* after a value, which ended at e */
            pos = NUIF_WALK_NEXT(e, depth - 1);
            if (depth == 0) goto finish;
            f = &s->frames[depth - 1];
            c = p[pos];
            if (c == ',') {
                pos = NUIF_WALK_NEXT(pos + 1, depth);
                if (!f->is_obj) goto value;
                if (p[pos] != '"') NUIF_WALK_REFUSE_AT(NUIF_SITE_KEY);
                goto key;
            }
            if (c == ']' && !f->is_obj) {
                s->tape[f->tok].end = (uint32_t)s->ntok;
                depth--;
            } else if (c == '}' && f->is_obj) {
                if (nuif_walk_close_obj(s, f, &names_top, &nomem)) {
                    NUIF_WALK_REFUSE_AT(NUIF_SITE_DUPLICATE);
                }
                depth--;
            } else {
                NUIF_WALK_REFUSE_AT(NUIF_SITE_NEXT);
            }
            e = pos + 1;
        }
    key: /* a member name starts at pos (a quote) */
        e = nuif_walk_string(s, pos, 1, &nomem, values);
        if (!e) NUIF_WALK_REFUSE_AT(NUIF_SITE_NAME);
        s->names[names_top++] = (uint32_t)(s->ntok - 1);
        pos = NUIF_WALK_NEXT(e, depth);
        if (p[pos] != ':') NUIF_WALK_REFUSE_AT(NUIF_SITE_COLON);
        pos = NUIF_WALK_NEXT(pos + 1, depth);
    }
finish:
    /* the root value must be all there is */
    if (nomem) goto no_memory;
    if (pos != n) NUIF_WALK_REFUSE_AT(NUIF_SITE_END);
    return NUIF_WALK_OK;
refuse:
    if (nomem) goto no_memory;
    s->fault_site = site;
    s->fault_at = pos;
    s->fault_depth = depth;
    s->fault_names_top = names_top;
    return NUIF_WALK_REFUSE;
no_memory:
    return NUIF_WALK_NOMEM;
#undef NUIF_WALK_NEXT
#undef NUIF_WALK_REFUSE_AT
}

/* The tape of a text for the pipeline (canonical text, §3 check, inspect).  Each of the two is a
 * function of its own, out of line (inlined into its caller, the walk ran ~5% slower). */
NUIF_WALK_NOINLINE int nuif_walk_parse(nuif_walk *s) { return nuif_walk_run(s, 0); }

/* The tape of a text for building its values (loads): every non-integer's double on it
 * (NUIF_F_DBL), every string with escapes decoded into the arena (NUIF_F_ESC), and strings of
 * plain ASCII marked NUIF_F_ASCII. */
NUIF_WALK_NOINLINE int nuif_walk_parse_values(nuif_walk *s) { return nuif_walk_run(s, 1); }

#endif
