/* Member names in RFC 8785 order: by their UTF-16 code units, compared on their UTF-8 bytes
 * (the walk, csrc/nuif_walk.h, sorts an object's names when it closes, which is also where
 * duplicates are found; src/nuif_core/_speedups_dump.pxi sorts a dict's keys). */
#ifndef NUIF_KEYSORT_H
#define NUIF_KEYSORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* one name to sort: its UTF-8 bytes and who it is (a token index, or a position) */
typedef struct {
    const uint8_t *ptr;
    uint32_t len;
    uint32_t tok;
} nuif_key_entry;

/* <0, 0, >0 as x[0:xl) sorts before, with, after y[0:yl) in UTF-16 order */
static inline int nuif_keycmp(const uint8_t *x, ptrdiff_t xl, const uint8_t *y, ptrdiff_t yl) {
    ptrdiff_t m = xl < yl ? xl : yl;
    ptrdiff_t i = 0;
    uint8_t a, b;
    while (i < m && x[i] == y[i]) {
        i++;
    }
    if (i == m) {
        return (xl > yl) - (xl < yl);
    }
    a = x[i];
    b = y[i];
    /* UTF-16 puts supplementary characters (surrogate pairs) before U+E000..U+FFFF */
    if (a >= 0xEE && b >= 0xEE) {
        if (a >= 0xF0 && b < 0xF0) {
            return -1;
        }
        if (b >= 0xF0 && a < 0xF0) {
            return 1;
        }
    }
    return a < b ? -1 : 1;
}

/* equal names by token: the earlier first (a stable order, so duplicates sit side by side with
 * the first occurrence leading) */
static inline int nuif_entry_cmp(const nuif_key_entry *x, const nuif_key_entry *y) {
    int c = nuif_keycmp(x->ptr, x->len, y->ptr, y->len);
    if (c != 0) {
        return c;
    }
    return (x->tok > y->tok) - (x->tok < y->tok);
}

/* insertion sort of a[lo:hi) */
static inline void nuif_insertion_sort(nuif_key_entry *a, ptrdiff_t lo, ptrdiff_t hi) {
    ptrdiff_t i, j;
    nuif_key_entry v;
    for (i = lo + 1; i < hi; i++) {
        v = a[i];
        j = i;
        while (j > lo && nuif_entry_cmp(&a[j - 1], &v) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* merge the sorted runs src[lo:mid) and src[mid:hi) into dst[lo:hi) */
static inline void nuif_merge(const nuif_key_entry *src, nuif_key_entry *dst, ptrdiff_t lo,
                              ptrdiff_t mid, ptrdiff_t hi) {
    ptrdiff_t p = lo, q = mid, k = lo;
    while (p < mid && q < hi) {
        if (nuif_entry_cmp(&src[q], &src[p]) < 0) {
            dst[k++] = src[q++];
        } else {
            dst[k++] = src[p++];
        }
    }
    while (p < mid) {
        dst[k++] = src[p++];
    }
    while (q < hi) {
        dst[k++] = src[q++];
    }
}

/* Sort a[0:n) with tmp[0:n) as scratch: insertion sort up to 12 entries, else a bottom-up merge
 * sort over insertion-sorted runs of 8. */
static void nuif_sort_keys(nuif_key_entry *a, nuif_key_entry *tmp, ptrdiff_t n) {
    ptrdiff_t width, lo, mid, hi;
    nuif_key_entry *src, *dst, *sw;
    if (n <= 12) {
        nuif_insertion_sort(a, 0, n);
        return;
    }
    for (lo = 0; lo < n; lo = hi) {
        hi = lo + 8 < n ? lo + 8 : n;
        nuif_insertion_sort(a, lo, hi);
    }
    src = a;
    dst = tmp;
    for (width = 8; width < n; width *= 2) {
        for (lo = 0; lo < n; lo = hi) {
            mid = lo + width < n ? lo + width : n;
            hi = lo + 2 * width < n ? lo + 2 * width : n;
            nuif_merge(src, dst, lo, mid, hi);
        }
        sw = src;
        src = dst;
        dst = sw;
    }
    if (src != a) {
        memcpy(a, src, (size_t)n * sizeof(nuif_key_entry));
    }
}

#endif
