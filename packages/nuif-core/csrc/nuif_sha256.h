/* SHA-256 of the canonical text straight from OpenSSL's libcrypto (when the build found it).
 *
 * hashlib's sha256(data).digest() costs about 0.35 us more than the digest itself on a 1 KiB
 * text: a Python hash object, an EVP_MD_CTX allocated and initialised per call, and digest()
 * copying that context before finishing.  Here one context and one fetched EVP_MD are kept and
 * re-initialised (EVP_DigestInit_ex2): the same OpenSSL code computes the same digest.  Where
 * OpenSSL 3 still builds its SHA256_Init/_Update/_Final (the default), those are called instead:
 * the same block function without EVP's per-call dispatch, about 0.1 us less.  Nothing here
 * implements SHA-256.  Callers hold the GIL (the context is shared) and fall back to
 * hashlib when these return -1 (built without OpenSSL, or any OpenSSL failure).
 */
#ifndef NUIF_SHA256_H
#define NUIF_SHA256_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The 32-byte SHA-256 digest of [p, p + n) into out.  Returns 0, or -1 (use hashlib). */
int nuif_sha256(const void *p, size_t n, unsigned char *out);

/* 1 when nuif_sha256 is backed by libcrypto, else 0. */
int nuif_sha256_backend(void);

/* Which libcrypto API nuif_sha256 calls: 1 = SHA256_Init/_Update/_Final, 0 = EVP.  on = 1 or 0
 * selects (1 only where the build has that API; testing), on = -1 only asks.  Returns the
 * previous choice (always 0 without it or without OpenSSL). */
int nuif_sha256_lowlevel(int on);

#ifdef __cplusplus
}
#endif

#endif
