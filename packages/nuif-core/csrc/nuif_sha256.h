/* SHA-256 of the canonical text straight from OpenSSL's libcrypto.
 *
 * hashlib's sha256(data).digest() costs about 0.35 us more than the digest itself on a 1 KiB
 * text: a Python hash object, an EVP_MD_CTX allocated and initialised per call, and digest()
 * copying that context before finishing.  Here libcrypto's SHA256_Init/_Update/_Final are called
 * on a context on the stack, as bound by nuif_crypto.h (linked, or found at import in the
 * libcrypto the interpreter loaded); a build that linked an OpenSSL 3 without those functions
 * keeps one context and one fetched EVP_MD and re-initialises them (EVP_DigestInit_ex2).  The
 * same OpenSSL code computes the same digest.  Nothing here implements SHA-256.  Callers hold
 * the GIL (the EVP context is shared) and fall back to hashlib when these return -1 (nothing
 * bound, or any OpenSSL failure).
 */
#ifndef NUIF_SHA256_H
#define NUIF_SHA256_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The 32-byte SHA-256 digest of [p, p + n) into out.  Returns 0, or -1 (use hashlib). */
int nuif_sha256(const void *p, size_t n, unsigned char *out);

/* 1 when nuif_sha256 is backed by libcrypto (bound functions, or a linked EVP), else 0. */
int nuif_sha256_backend(void);

/* Which libcrypto API nuif_sha256 calls: 1 = SHA256_Init/_Update/_Final (while they are bound,
 * nuif_crypto.h), 0 = EVP (a linked build; else nothing, and hashlib hashes).  on = 1 or 0
 * selects (testing), on = -1 only asks.  Returns the previous choice, whether or not the
 * functions are bound now (nuif_crypto_binding says that). */
int nuif_sha256_lowlevel(int on);

#ifdef __cplusplus
}
#endif

#endif
