/* Why the walk refused a text: its error as a code, a byte offset, a detail and a path, made
 * from what the walk recorded when it stopped (nuif_walk.h: the site, the position, the depth)
 * and, for a string or a number, from that one token read again.  The codec's glue turns the
 * answer into the NUIF_* error with its message, JSON Pointer, line and column
 * (src/nuif_core/_speedups_fault.pxi), exactly as the pure-Python codec raises it: the first
 * error in the text, reading left to right.
 *
 * The path is the walk's open arrays and objects, outermost first: nuif_fault_step gives, for
 * each, the index of its current element or the tape token of its current member name.
 * Nothing here allocates except nuif_fault_duplicate's sort, in the walk's own sort buffer. */
#ifndef NUIF_FAULT_H
#define NUIF_FAULT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_keysort.h"
#include "nuif_scan.h"
#include "nuif_tables.h"
#include "nuif_tape.h"
#include "nuif_utf8.h"
#include "nuif_walk.h"

/* The errors, each with the message template of src/nuif_core/_messages.py named after it. */
enum {
    NUIF_FAULT_NOMEM = -1,       /* memory ran out while explaining */
    NUIF_FAULT_EXPECT_VALUE = 1, /* NUIF_PARSE: "<expected>, found <what is at `at`>" */
    NUIF_FAULT_EXPECT_ARRAY_NEXT,
    NUIF_FAULT_EXPECT_OBJECT_NEXT,
    NUIF_FAULT_EXPECT_FIRST_KEY,
    NUIF_FAULT_EXPECT_KEY,
    NUIF_FAULT_EXPECT_COLON,
    NUIF_FAULT_EXPECT_END,
    NUIF_FAULT_EXPECT_DIGIT,
    NUIF_FAULT_EXPECT_LITERAL, /* detail: the literal's first letter, 't', 'f' or 'n' */
    NUIF_FAULT_EXPECT_STRING_END,
    NUIF_FAULT_EXPECT_ESCAPE,
    NUIF_FAULT_EXPECT_HEX,
    NUIF_FAULT_CONTROL_IN_STRING, /* NUIF_PARSE; detail: the byte */
    NUIF_FAULT_SURROGATE_ESCAPE,  /* NUIF_UNICODE; detail: the escape's code unit */
    NUIF_FAULT_NONCHARACTER,      /* NUIF_UNICODE; detail: the code point */
    NUIF_FAULT_DUPLICATE_KEY,     /* NUIF_DUPLICATE_KEY; `name`: the repeated name's token */
    NUIF_FAULT_NUMBER_OVERFLOW,   /* NUIF_NUMBER; detail: the literal's length */
    NUIF_FAULT_BIG_INTEGER,       /* NUIF_NUMBER, an integer beyond ±(2^53 - 1); detail: length */
    NUIF_FAULT_DEPTH              /* NUIF_DEPTH */
};

typedef struct {
    int code;      /* NUIF_FAULT_* */
    size_t at;     /* the byte offset the error is located at */
    uint32_t aux;  /* the detail of the code (above) */
    size_t path;   /* how many of the walk's open frames the pointer goes through (0: none) */
    uint32_t name; /* NUIF_FAULT_DUPLICATE_KEY: the name's token, the pointer's last step */
    int pointer;   /* whether the error has a pointer (the path may still be empty: the root) */
} nuif_fault;

/* Step d (< fault->path) of the pointer of the walk's last refusal: *is_name = 1 and the tape
 * token of the current member name of an object, or *is_name = 0 and the index of the current
 * element of an array (its direct children on the tape so far). */
static uint32_t nuif_fault_step(const nuif_walk *s, size_t d, int *is_name) {
    const nuif_walk_frame *f = &s->frames[d];
    size_t k, limit;
    uint32_t count = 0;
    if (f->is_obj) {
        *is_name = 1;
        limit = d + 1 < s->fault_depth ? s->frames[d + 1].names_base : s->fault_names_top;
        return s->names[limit - 1];
    }
    *is_name = 0;
    limit = d + 1 < s->fault_depth ? s->frames[d + 1].tok : s->ntok;
    for (k = f->tok + 1; k < limit; count++) {
        const nuif_tok *t = &s->tape[k];
        k = t->kind == NUIF_T_OBJ || t->kind == NUIF_T_ARR ? t->end : k + 1;
    }
    return count;
}

static void nuif_fault_set(nuif_fault *e, int code, size_t at, uint32_t aux) {
    e->code = code;
    e->at = at;
    e->aux = aux;
}

/* The value of the four hex digits at p[i], or -1 with the error set (the text ends, or a byte
 * that is not a hex digit). */
static int nuif_fault_hex4(const uint8_t *p, size_t n, size_t i, nuif_fault *e) {
    size_t k;
    int v = 0;
    for (k = i; k < i + 4; k++) {
        if (k >= n) {
            nuif_fault_set(e, NUIF_FAULT_EXPECT_STRING_END, n, 0);
            return -1;
        }
        if (nuif_hexval[p[k]] == 255) {
            nuif_fault_set(e, NUIF_FAULT_EXPECT_HEX, k, 0);
            return -1;
        }
        v = (v << 4) | nuif_hexval[p[k]];
    }
    return v;
}

/* The \u escape at p[j] (a backslash): returns the index after it (a surrogate pair counting
 * as one), or 0 with the error set. */
static size_t nuif_fault_unicode(const uint8_t *p, size_t n, size_t j, nuif_fault *e) {
    size_t at = j;
    int cp = nuif_fault_hex4(p, n, j + 2, e), low;
    if (cp < 0) return 0;
    j += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) goto lone;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        /* the twin's order: the end, then the backslash, the end again, then the 'u' */
        if (j >= n || (p[j] == '\\' && j + 1 >= n)) {
            nuif_fault_set(e, NUIF_FAULT_EXPECT_STRING_END, j >= n ? j : j + 1, 0);
            return 0;
        }
        if (p[j] != '\\' || p[j + 1] != 'u') goto lone;
        low = nuif_fault_hex4(p, n, j + 2, e);
        if (low < 0) return 0;
        if (low < 0xDC00 || low > 0xDFFF) goto lone;
        j += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) {
        nuif_fault_set(e, NUIF_FAULT_NONCHARACTER, at, (uint32_t)cp);
        return 0;
    }
    return j;
lone:
    nuif_fault_set(e, NUIF_FAULT_SURROGATE_ESCAPE, at, (uint32_t)cp);
    return 0;
}

/* The first error of the string whose quote is at i (the walk refused it). */
static void nuif_fault_string(const uint8_t *p, size_t n, size_t i, nuif_fault *e) {
    size_t j = i + 1;
    ptrdiff_t cp;
    int hi = 0;
    uint8_t c;
    for (;;) {
        j = (size_t)nuif_str_run(p, (ptrdiff_t)j, (ptrdiff_t)n, &hi);
        if (j >= n) {
            nuif_fault_set(e, NUIF_FAULT_EXPECT_STRING_END, n, 0);
            return;
        }
        c = p[j];
        if (c >= 0xEF) { /* may start a noncharacter */
            cp = nuif_nonchar_at(p, (ptrdiff_t)j);
            if (cp >= 0) {
                nuif_fault_set(e, NUIF_FAULT_NONCHARACTER, j, (uint32_t)cp);
                return;
            }
            j += (size_t)nuif_seq_len(c);
        } else if (c == '"') {
            return; /* not reached: the walk refused the string */
        } else if (c != '\\') {
            nuif_fault_set(e, NUIF_FAULT_CONTROL_IN_STRING, j, c);
            return;
        } else if (j + 1 >= n) {
            nuif_fault_set(e, NUIF_FAULT_EXPECT_STRING_END, j + 1, 0);
            return;
        } else if (p[j + 1] == 'u') {
            j = nuif_fault_unicode(p, n, j, e);
            if (!j) return;
        } else if (nuif_unescape[p[j + 1]] == 0) {
            nuif_fault_set(e, NUIF_FAULT_EXPECT_ESCAPE, j + 1, 0);
            return;
        } else {
            j += 2;
        }
    }
}

/* The first error of the number literal at i (the walk refused it): a digit missing, or a value
 * out of range (an integer beyond ±(2^53 - 1) that is not its double's text, or a float that
 * overflows), located at the literal's start with its length as the detail. */
static void nuif_fault_number(const uint8_t *p, size_t i, nuif_fault *e) {
    size_t start = i;
    int integer = 1;
    if (p[i] == '-') i++;
    if (p[i] < '0' || p[i] > '9') goto digit;
    if (p[i] == '0') {
        i++;
    } else {
        while (p[i] >= '0' && p[i] <= '9') i++;
    }
    if (p[i] == '.') {
        integer = 0;
        i++;
        if (p[i] < '0' || p[i] > '9') goto digit;
        while (p[i] >= '0' && p[i] <= '9') i++;
    }
    if (p[i] == 'e' || p[i] == 'E') {
        integer = 0;
        i++;
        if (p[i] == '+' || p[i] == '-') i++;
        if (p[i] < '0' || p[i] > '9') goto digit;
        while (p[i] >= '0' && p[i] <= '9') i++;
    }
    nuif_fault_set(e, integer ? NUIF_FAULT_BIG_INTEGER : NUIF_FAULT_NUMBER_OVERFLOW, start,
                   (uint32_t)(i - start));
    return;
digit:
    nuif_fault_set(e, NUIF_FAULT_EXPECT_DIGIT, i, 0);
}

/* The repeated name of the object of the walk's top frame, closing: of the names that repeat an
 * earlier one, the first in the text (the names sorted, each run of equal names gives its
 * second in document order, which is its tape order).  0, or -1 when memory ran out. */
static int nuif_fault_duplicate(nuif_walk *s, nuif_fault *e) {
    const nuif_walk_frame *f = &s->frames[s->fault_depth - 1];
    size_t base = f->names_base, count = s->fault_names_top - base, m, r;
    uint32_t best = UINT32_MAX, first, second;
    nuif_key_entry *a;
    if (NUIF_WALK_ROOM(s, sort_buf, sort_cap, 2 * count, nuif_key_entry)) return -1;
    a = s->sort_buf;
    for (m = 0; m < count; m++) {
        const nuif_tok *k = &s->tape[s->names[base + m]];
        a[m].ptr = (k->flags & NUIF_F_ESC ? s->arena : s->p) + k->at;
        a[m].len = k->len;
        a[m].tok = s->names[base + m];
    }
    nuif_sort_keys(a, a + count, (ptrdiff_t)count);
    for (m = 0; m < count; m = r) {
        first = a[m].tok;
        second = UINT32_MAX;
        for (r = m + 1; r < count && a[r].len == a[m].len && !memcmp(a[r].ptr, a[m].ptr, a[m].len);
             r++) {
            if (a[r].tok < first) {
                second = first;
                first = a[r].tok;
            } else if (a[r].tok < second) {
                second = a[r].tok;
            }
        }
        if (second < best) best = second;
    }
    e->name = best;
    nuif_fault_set(e, NUIF_FAULT_DUPLICATE_KEY, s->tape[best].quote, 0);
    e->pointer = 1;
    e->path = s->fault_depth - 1;
    return 0;
}

/* The first mismatch of the literal (true, false, null) at i with what the text holds there. */
static void nuif_fault_literal(const uint8_t *p, size_t i, nuif_fault *e) {
    const char *word = p[i] == 't' ? "true" : p[i] == 'f' ? "false" : "null";
    size_t k = 1;
    while (word[k] != 0 && p[i + k] == (uint8_t)word[k]) k++; /* the NUL p[n] never matches */
    nuif_fault_set(e, NUIF_FAULT_EXPECT_LITERAL, i + k, p[i]);
}

/* The error of the walk's last refusal (NUIF_WALK_REFUSE) into *e: its code, or
 * NUIF_FAULT_NOMEM. */
static int nuif_fault_explain(nuif_walk *s, nuif_fault *e) {
    const uint8_t *p = s->p;
    size_t at = s->fault_at, depth = s->fault_depth;
    int is_name = 0;
    memset(e, 0, sizeof(*e));
    switch (s->fault_site) {
    case NUIF_SITE_NAME:
        is_name = 1;
        nuif_fault_string(p, s->n, at, e);
        break;
    case NUIF_SITE_STRING:
        nuif_fault_string(p, s->n, at, e);
        break;
    case NUIF_SITE_DEPTH:
        nuif_fault_set(e, NUIF_FAULT_DEPTH, at, 0);
        break;
    case NUIF_SITE_FIRST_KEY:
        nuif_fault_set(e, NUIF_FAULT_EXPECT_FIRST_KEY, at, 0);
        break;
    case NUIF_SITE_NUMBER:
        nuif_fault_number(p, at, e);
        break;
    case NUIF_SITE_LITERAL:
        nuif_fault_literal(p, at, e);
        break;
    case NUIF_SITE_KEY:
        nuif_fault_set(e, NUIF_FAULT_EXPECT_KEY, at, 0);
        break;
    case NUIF_SITE_DUPLICATE:
        return nuif_fault_duplicate(s, e) ? NUIF_FAULT_NOMEM : e->code;
    case NUIF_SITE_NEXT:
        nuif_fault_set(e,
                       s->frames[depth - 1].is_obj ? NUIF_FAULT_EXPECT_OBJECT_NEXT
                                                   : NUIF_FAULT_EXPECT_ARRAY_NEXT,
                       at, 0);
        break;
    case NUIF_SITE_COLON:
        nuif_fault_set(e, NUIF_FAULT_EXPECT_COLON, at, 0);
        break;
    case NUIF_SITE_END:
        nuif_fault_set(e, NUIF_FAULT_EXPECT_END, at, 0);
        break;
    default: /* NUIF_SITE_VALUE */
        nuif_fault_set(e, NUIF_FAULT_EXPECT_VALUE, at, 0);
        break;
    }
    switch (e->code) {
    case NUIF_FAULT_SURROGATE_ESCAPE:
    case NUIF_FAULT_NONCHARACTER: /* a member name's error is located at its object */
        e->pointer = 1;
        e->path = depth - (size_t)is_name;
        break;
    case NUIF_FAULT_NUMBER_OVERFLOW:
    case NUIF_FAULT_BIG_INTEGER:
    case NUIF_FAULT_DEPTH:
        e->pointer = 1;
        e->path = depth;
        break;
    default:
        break;
    }
    return e->code;
}

#endif
