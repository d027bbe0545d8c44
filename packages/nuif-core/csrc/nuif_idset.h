/* A set of strings by hash, for the schema check's unique ids and the inspect summary's kind
 * counts (src/nuif_core/_speedups_schema.pxi, _speedups_inspect.pxi).
 *
 * Open addressing with linear probing: a slot holds a nonzero entry (32-bit hash << 32) |
 * payload, 0 = empty; the caller's payload is a token index + 1, so probes and growth never
 * touch the tape or the text unless two hashes match (at 16 MiB those are cache misses).  The
 * caller keeps the load at or below 1/2.
 */
#ifndef NUIF_IDSET_H
#define NUIF_IDSET_H

#include "nuif_host.h"

#include <stddef.h>
#include <stdint.h>

#include "nuif_scan.h"

#define NUIF_HASH_MASK 0xFFFFFFFF00000000ULL
#define NUIF_PAYLOAD_MASK 0x00000000FFFFFFFFULL

/* A 64-bit hash of s[0:L), 8 bytes per multiply: words at 0, 8, ... and the last 8 bytes
 * (overlapping the one before), or for L < 8 two overlapping 4-byte reads (L >= 4) or the first,
 * middle and last bytes; the length is mixed in first, and the result goes through MurmurHash3's
 * 64-bit finalizer.  Never reads outside s[0:L).  A byte-at-a-time hash (FNV-1a) costs a third
 * of the schema check on documents of many ids; this one a few percent.  Only slot positions
 * depend on it (every
 * probe compares the text before it answers), so it is internal and may change. */
static inline uint64_t nuif_strhash(const uint8_t *s, ptrdiff_t L) {
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    uint64_t h = ((uint64_t)L + 1) * k, w;
    ptrdiff_t i = 0;
    if (L >= 8) {
        for (; i + 8 < L; i += 8) {
            h = (h ^ nuif_load64_(s + i)) * k;
            h ^= h >> 32;
        }
        w = nuif_load64_(s + L - 8);
    } else if (L >= 4) {
        w = nuif_load32_(s) | ((uint64_t)nuif_load32_(s + L - 4) << 32);
    } else if (L > 0) {
        w = (uint64_t)s[0] | ((uint64_t)s[L >> 1] << 8) | ((uint64_t)s[L - 1] << 16);
    } else {
        w = 0;
    }
    h = (h ^ w) * k;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 33);
}

/* the entry of s[0:L) with no payload yet, and its first slot in a table of cap slots */
static inline uint64_t nuif_hset_entry(const uint8_t *s, ptrdiff_t L) {
    return (nuif_strhash(s, L) & NUIF_PAYLOAD_MASK) << 32;
}

static inline ptrdiff_t nuif_hset_home(uint64_t entry, ptrdiff_t cap) {
    return (ptrdiff_t)((entry >> 32) & (uint64_t)(cap - 1));
}

/* Double a table of cap slots and free the old one; *vals, when vals is not NULL, is a parallel
 * array of per-slot values moved along (and replaced the same way).  NULL when memory runs out
 * (nuif_host_nomem called) (the old table is then left as it was). */
static uint64_t *nuif_hset_grow(uint64_t *tab, ptrdiff_t cap, ptrdiff_t **vals) {
    ptrdiff_t ncap = 2 * cap, j, slot;
    uint64_t x;
    uint64_t *ntab = (uint64_t *)nuif_host_calloc((size_t)ncap, sizeof(uint64_t));
    ptrdiff_t *nvals = NULL;
    if (ntab != NULL && vals != NULL) {
        nvals = (ptrdiff_t *)nuif_host_realloc(NULL, (size_t)ncap * sizeof(ptrdiff_t));
    }
    if (ntab == NULL || (vals != NULL && nvals == NULL)) {
        nuif_host_free(ntab);
        nuif_host_nomem();
        return NULL;
    }
    for (j = 0; j < cap; j++) {
        x = tab[j];
        if (x) {
            slot = (ptrdiff_t)((x >> 32) & (uint64_t)(ncap - 1));
            while (ntab[slot]) {
                slot = (slot + 1) & (ncap - 1);
            }
            ntab[slot] = x;
            if (vals != NULL) {
                nvals[slot] = (*vals)[j];
            }
        }
    }
    nuif_host_free(tab);
    if (vals != NULL) {
        nuif_host_free(*vals);
        *vals = nvals;
    }
    return ntab;
}

#endif
