/* The plain C host of csrc/ (csrc/nuif_host.h), for builds without Python: the WebAssembly build
 * (wasm/) and C tests.  Memory is malloc's; an output text is one malloc'd block, a
 * nuif_libc_text, whose bytes follow its length; failures are the status the call returns (no
 * error is recorded).  The float fallback is the C library's strtod, correctly rounded in glibc,
 * musl and wasi-libc, and its printf's %.*e, exact there too, searched for the shortest
 * precision that reads back. */
#ifndef NUIF_HOST_LIBC_H
#define NUIF_HOST_LIBC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUIF_HOST 1

typedef struct {
    size_t n; /* the text's length, set by nuif_host_text_end */
    char b[];
} nuif_libc_text;

static void *nuif_host_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
static void *nuif_host_calloc(size_t n, size_t size) { return calloc(n ? n : 1, size ? size : 1); }
static void nuif_host_free(void *p) { free(p); }
static void nuif_host_nomem(void) {}

static void *nuif_host_text_new(size_t cap, char **b) {
    nuif_libc_text *t;
    if (cap > SIZE_MAX - sizeof(nuif_libc_text)) return NULL;
    t = (nuif_libc_text *)malloc(sizeof(nuif_libc_text) + cap);
    if (t != NULL) {
        t->n = 0;
        *b = t->b;
    }
    return t;
}

static int nuif_host_text_grow(void **text, size_t cap, char **b) {
    nuif_libc_text *t = NULL;
    if (cap <= SIZE_MAX - sizeof(nuif_libc_text)) {
        t = (nuif_libc_text *)realloc(*text, sizeof(nuif_libc_text) + cap);
    }
    if (t == NULL) {
        free(*text);
        *text = NULL;
        return -1;
    }
    *text = t;
    *b = t->b;
    return 0;
}

static void *nuif_host_text_end(void *text, size_t n) {
    ((nuif_libc_text *)text)->n = n;
    return text;
}

static void *nuif_host_text_copy(const char *b, size_t n) {
    char *q;
    nuif_libc_text *t = (nuif_libc_text *)nuif_host_text_new(n, &q);
    if (t == NULL) return NULL;
    if (n) memcpy(q, b, n);
    t->n = n;
    return t;
}

static void nuif_host_text_drop(void *text) { free(text); }

static int nuif_host_strtod(const uint8_t *s, size_t L, double *x) {
    char *end = NULL;
    double v = strtod((const char *)s, &end);
    if (end != (const char *)s + L) return -1;
    *x = v;
    return 0;
}

/* Add one unit in the last digit of the d.ddd mantissa of o ("d.ddde+x" or "de+x"), carrying;
 * a carry out of the first digit gives "10.00...", which strtod reads as well. */
static void nuif_libc_digit_up(char *o) {
    char *e = strchr(o, 'e');
    char *q = e - 1;
    for (;;) {
        if (*q == '.') q--;
        if (*q != '9') {
            (*q)++;
            return;
        }
        *q = '0';
        if (q == o || q[-1] == '-') {
            memmove(q + 1, q, strlen(q) + 1);
            *q = '1';
            return;
        }
        q--;
    }
}

/* The shortest precision whose correctly rounded digits read back as x; where x is a power of
 * two its round-trip interval is narrower below than above, so the next digit string up is
 * tried too (the nearest may fall outside on the narrow side while the one above is inside). */
static ptrdiff_t nuif_host_repr(double x, char *o) {
    int prec, len;
    char up[40];
    for (prec = 1; prec <= 17; prec++) {
        len = snprintf(o, 32, "%.*e", prec - 1, x);
        if (len <= 0 || len >= 32) return -1;
        if (strtod(o, NULL) == x) return len;
        memcpy(up, o, (size_t)len + 1);
        nuif_libc_digit_up(up);
        if (strtod(up, NULL) == x && strlen(up) < 32) {
            memcpy(o, up, strlen(up) + 1);
            return (ptrdiff_t)strlen(o);
        }
    }
    return -1;
}

#endif
