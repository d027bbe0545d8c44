/* Digests of csrc/nuif_sha256.c for tests/core/test_sha256_routes.py: the route it runs on (any
 * argument forces portable C), then for each length 0..299 and a few past it, the hex digest of
 * the first `length` bytes of a fixed pseudo-random buffer and the length, the bytes fed in
 * pieces of changing sizes (1 to 97 bytes) so that every way of filling a block is crossed. */
#include <stdio.h>
#include <stdlib.h>

#include "nuif_sha256.h"

#define NUIF_CHECK_MAX 70000

int main(int argc, char **argv) {
    static unsigned char buf[NUIF_CHECK_MAX];
    static const size_t longer[] = {447, 448, 511, 512, 4096, 65535, 65536, NUIF_CHECK_MAX};
    unsigned char d[32];
    size_t i, n, k, off, step, piece;
    uint32_t x = 2463534242u;
    nuif_sha256_ctx c;
    (void)argv;
    nuif_sha256_setup(argc > 1);
    for (i = 0; i < NUIF_CHECK_MAX; i++) { /* xorshift32 */
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)(x >> 24);
    }
    printf("%s\n", nuif_sha256_route());
    for (k = 0; k < 300 + sizeof(longer) / sizeof(longer[0]); k++) {
        n = k < 300 ? k : longer[k - 300];
        nuif_sha256_init(&c);
        for (off = 0, step = k % 13 + 1; off < n; off += piece, step = step * 7 % 97 + 1) {
            piece = step < n - off ? step : n - off;
            nuif_sha256_update(&c, buf + off, piece);
        }
        nuif_sha256_final(&c, d);
        for (i = 0; i < 32; i++) printf("%02x", d[i]);
        printf(" %zu\n", n);
        nuif_sha256(buf, n, d); /* the one-call form agrees */
        for (i = 0; i < 32; i++) printf("%02x", d[i]);
        printf(" %zu\n", n);
    }
    return 0;
}
