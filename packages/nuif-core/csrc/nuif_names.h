/* NUIF-0 §3 name rules as byte classes (ASCII only), for the schema check on the token tape
 * (src/nuif_core/_speedups_schema.pxi); the same rules as _document.ID_RE, KIND_RE and ATTR_RE.
 * nuif_names_init() fills the table once when the module is imported. */
#ifndef NUIF_NAMES_H
#define NUIF_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "nuif_scan.h"

enum {
    NUIF_N_ID_FIRST = 1,    /* [A-Za-z0-9_] */
    NUIF_N_ID_REST = 2,     /* [A-Za-z0-9_.:-] */
    NUIF_N_ATTR_FIRST = 4,  /* [A-Za-z_$@] */
    NUIF_N_ATTR_REST = 8,   /* [A-Za-z0-9_$@.:-] */
    NUIF_N_KIND_ALPHA = 16, /* [a-z] */
    NUIF_N_KIND_REST = 32,  /* [a-z0-9-] */
    NUIF_N_KIND_SEP = 64    /* [.:/] */
};

/* the longest id or attribute name, and the longest kind, in bytes */
#define NUIF_NAME_MAX 128
#define NUIF_KIND_MAX 64

static uint8_t nuif_name_cls[256];

static void nuif_names_init(void) {
    const uint8_t id_attr = NUIF_N_ID_FIRST | NUIF_N_ID_REST | NUIF_N_ATTR_FIRST | NUIF_N_ATTR_REST;
    int c;
    for (c = 0; c < 256; c++) {
        nuif_name_cls[c] = 0;
    }
    for (c = 'A'; c <= 'Z'; c++) {
        nuif_name_cls[c] |= id_attr;
    }
    for (c = 'a'; c <= 'z'; c++) {
        nuif_name_cls[c] |= id_attr | NUIF_N_KIND_ALPHA | NUIF_N_KIND_REST;
    }
    for (c = '0'; c <= '9'; c++) {
        nuif_name_cls[c] |= NUIF_N_ID_FIRST | NUIF_N_ID_REST | NUIF_N_ATTR_REST | NUIF_N_KIND_REST;
    }
    nuif_name_cls['_'] |= id_attr;
    nuif_name_cls['$'] |= NUIF_N_ATTR_FIRST | NUIF_N_ATTR_REST;
    nuif_name_cls['@'] |= NUIF_N_ATTR_FIRST | NUIF_N_ATTR_REST;
    nuif_name_cls['.'] |= NUIF_N_ID_REST | NUIF_N_ATTR_REST | NUIF_N_KIND_SEP;
    nuif_name_cls[':'] |= NUIF_N_ID_REST | NUIF_N_ATTR_REST | NUIF_N_KIND_SEP;
    nuif_name_cls['-'] |= NUIF_N_ID_REST | NUIF_N_ATTR_REST | NUIF_N_KIND_REST;
    nuif_name_cls['/'] |= NUIF_N_KIND_SEP;
}

/* ^[first][rest]*$ over s[0:L), 1 <= L <= NUIF_NAME_MAX (checked by the caller) */
static inline int nuif_name_loop(const uint8_t *s, ptrdiff_t L, uint8_t first, uint8_t rest) {
    ptrdiff_t i;
    if (!(nuif_name_cls[s[0]] & first)) {
        return 0;
    }
    for (i = 1; i < L; i++) {
        if (!(nuif_name_cls[s[i]] & rest)) {
            return 0;
        }
    }
    return 1;
}

/* 1 when s[0:L) is an id (attr 0) or an attribute name (attr 1) of at most NUIF_NAME_MAX bytes;
 * names of up to 16 bytes that can be read 16 bytes wide (s + 16 <= lim) are checked without a
 * loop. */
static inline int nuif_name_ok(const uint8_t *s, ptrdiff_t L, const uint8_t *lim, int attr) {
    int r;
    if (L < 1 || L > NUIF_NAME_MAX ||
        !(nuif_name_cls[s[0]] & (attr ? NUIF_N_ATTR_FIRST : NUIF_N_ID_FIRST))) {
        return 0;
    }
    if (L <= 16 && s + 16 <= lim) {
        r = nuif_name16(s, L, attr);
        if (r >= 0) {
            return r;
        }
    } else if (L <= 32 && s + 32 <= lim) {
        /* (ids like "s3.ui:rich-text-3" are often a little over 16 bytes) */
        r = nuif_name16(s, 16, attr);
        if (r >= 0) {
            return r && nuif_name16(s + 16, L - 16, attr);
        }
    }
    if (attr) {
        return nuif_name_loop(s, L, NUIF_N_ATTR_FIRST, NUIF_N_ATTR_REST);
    }
    return nuif_name_loop(s, L, NUIF_N_ID_FIRST, NUIF_N_ID_REST);
}

/* 1 when s[0:L) is a kind: ^[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*$ over 1..NUIF_KIND_MAX bytes;
 * kinds of up to 16 bytes that can be read 16 bytes wide (s + 16 <= lim) are checked without a
 * loop. */
static inline int nuif_kind_ok(const uint8_t *s, ptrdiff_t L, const uint8_t *lim) {
    ptrdiff_t i;
    int need_alpha = 1, r;
    uint8_t k;
    if (L < 1 || L > NUIF_KIND_MAX) {
        return 0;
    }
    if (L <= 16 && s + 16 <= lim) {
        r = nuif_kind16(s, L);
        if (r >= 0) {
            return r;
        }
    }
    for (i = 0; i < L; i++) {
        k = nuif_name_cls[s[i]];
        if (need_alpha) {
            if (!(k & NUIF_N_KIND_ALPHA)) {
                return 0;
            }
            need_alpha = 0;
        } else if (k & NUIF_N_KIND_SEP) {
            need_alpha = 1;
        } else if (!(k & NUIF_N_KIND_REST)) {
            return 0;
        }
    }
    return !need_alpha;
}

#endif
