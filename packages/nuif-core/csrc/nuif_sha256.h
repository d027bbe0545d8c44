/* SHA-256 (FIPS 180-4), the one way every build hashes canonical texts: the extension, release
 * wheels and the WebAssembly build alike.  Three block functions, picked when the process sets
 * up (nuif_sha256_setup): the x86 SHA extensions (SHA-NI: Intel since Goldmont and Ice Lake, AMD
 * since Zen) or the ARMv8 SHA-2 instructions (Apple silicon, Graviton, Ampere, Cortex-A53 and
 * later with the Cryptographic Extension) where the CPU has them, else portable C.  docs/parser-design.md ("The hash") says
 * why it is written here rather than taken from hashlib or libcrypto.
 *
 * A context is the caller's (the pipeline keeps one in its state), so calls on different
 * threads share nothing but the block function, which is chosen once before any of them. */
#ifndef NUIF_SHA256_H
#define NUIF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t h[8];
    uint64_t len;    /* bytes hashed so far */
    uint8_t buf[64]; /* a partial block */
    size_t fill;     /* its bytes */
} nuif_sha256_ctx;

/* Pick the block function from what the CPU has; `portable` forces portable C (the tests run
 * both).  Call before the first digest, from one thread; calling it again is harmless.
 * Without it, digests use portable C. */
void nuif_sha256_setup(int portable);

/* "sha-ni", "armv8" or "portable": the block function digests use now. */
const char *nuif_sha256_route(void);

void nuif_sha256_init(nuif_sha256_ctx *c);
void nuif_sha256_update(nuif_sha256_ctx *c, const void *p, size_t n);
void nuif_sha256_final(nuif_sha256_ctx *c, uint8_t out[32]);

/* The digest of p[0:n) into out. */
void nuif_sha256(const void *p, size_t n, uint8_t out[32]);

#ifdef __cplusplus
}
#endif

#endif
