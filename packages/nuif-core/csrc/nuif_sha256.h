/* SHA-256 of canonical texts from OpenSSL's libcrypto, linked at build time: SHA256_Init/_Update/
 * _Final with the SHA256_CTX of OpenSSL's own headers, or, where OpenSSL was built without those
 * deprecated functions, its EVP interface.  No library is looked up at run time.
 *
 * A build that finds OpenSSL 3 and its headers links libcrypto (NUIF_HAVE_OPENSSL=1); every
 * other build (release wheels among them: they bundle no OpenSSL) has these functions return
 * failure, and the codec hashes with hashlib instead.  The digests are the same either way.
 *
 * One digest context is kept for the process (and, with EVP, one fetched SHA2-256): a digest
 * re-initialises it instead of allocating one.  Callers hold the GIL, so no two calls use the
 * context at once.  Nothing here implements SHA-256.
 */
#ifndef NUIF_SHA256_H
#define NUIF_SHA256_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The context: OpenSSL's SHA256_CTX or EVP_MD_CTX, opaque here. */
typedef struct nuif_sha256_ctx nuif_sha256_ctx;

/* 1 when the build linked libcrypto, else 0. */
int nuif_sha256_linked(void);

/* The kept context, initialised for a new digest; NULL when there is none (not linked, or an
 * OpenSSL failure). */
nuif_sha256_ctx *nuif_sha256_begin(void);

/* Hash [p, p + n) into c: 1, or 0 on failure. */
int nuif_sha256_update(nuif_sha256_ctx *c, const void *p, size_t n);

/* The 32-byte digest of what c has hashed into out: 1, or 0 on failure. */
int nuif_sha256_final(nuif_sha256_ctx *c, unsigned char *out);

/* The 32-byte digest of [p, p + n) into out: 0, or -1 (hash with hashlib). */
int nuif_sha256(const void *p, size_t n, unsigned char *out);

#ifdef __cplusplus
}
#endif

#endif
