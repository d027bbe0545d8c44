/* See nuif_sha256.h. */
#include "nuif_sha256.h"

#if NUIF_HAVE_OPENSSL
/* SHA256_Init/_Update/_Final are deprecated in OpenSSL 3 (in favour of EVP) but built unless
 * OpenSSL is configured without deprecated APIs; they skip EVP's per-call provider dispatch,
 * which costs ~3 % of canonicalizing a 1 KiB document (docs/format.md, "The hash").  Their
 * context is OpenSSL's SHA256_CTX, from its own headers. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

int nuif_sha256_linked(void) { return 1; }

#if !defined(OPENSSL_NO_DEPRECATED_3_0)

static SHA256_CTX nuif_ctx;

nuif_sha256_ctx *nuif_sha256_begin(void) {
    return SHA256_Init(&nuif_ctx) == 1 ? (nuif_sha256_ctx *)&nuif_ctx : NULL;
}

int nuif_sha256_update(nuif_sha256_ctx *c, const void *p, size_t n) {
    return SHA256_Update((SHA256_CTX *)c, p, n) == 1;
}

int nuif_sha256_final(nuif_sha256_ctx *c, unsigned char *out) {
    return SHA256_Final(out, (SHA256_CTX *)c) == 1;
}

#else /* an OpenSSL without its deprecated functions: EVP, with one kept context */

static EVP_MD *nuif_md = NULL;
static EVP_MD_CTX *nuif_ctx = NULL;

nuif_sha256_ctx *nuif_sha256_begin(void) {
    if (nuif_ctx == NULL) {
        if (nuif_md == NULL && (nuif_md = EVP_MD_fetch(NULL, "SHA2-256", NULL)) == NULL) {
            ERR_clear_error();
            return NULL;
        }
        if ((nuif_ctx = EVP_MD_CTX_new()) == NULL) {
            ERR_clear_error();
            return NULL;
        }
    }
    if (EVP_DigestInit_ex2(nuif_ctx, nuif_md, NULL) != 1) {
        ERR_clear_error();
        return NULL;
    }
    return (nuif_sha256_ctx *)nuif_ctx;
}

int nuif_sha256_update(nuif_sha256_ctx *c, const void *p, size_t n) {
    if (EVP_DigestUpdate((EVP_MD_CTX *)c, p, n) == 1) return 1;
    ERR_clear_error();
    return 0;
}

int nuif_sha256_final(nuif_sha256_ctx *c, unsigned char *out) {
    unsigned int len = 0;
    if (EVP_DigestFinal_ex((EVP_MD_CTX *)c, out, &len) == 1 && len == 32) return 1;
    ERR_clear_error();
    return 0;
}

#endif

#else

int nuif_sha256_linked(void) { return 0; }

nuif_sha256_ctx *nuif_sha256_begin(void) { return NULL; }

int nuif_sha256_update(nuif_sha256_ctx *c, const void *p, size_t n) {
    (void)c;
    (void)p;
    (void)n;
    return 0;
}

int nuif_sha256_final(nuif_sha256_ctx *c, unsigned char *out) {
    (void)c;
    (void)out;
    return 0;
}

#endif

int nuif_sha256(const void *p, size_t n, unsigned char *out) {
    nuif_sha256_ctx *c = nuif_sha256_begin();
    return c != NULL && nuif_sha256_update(c, p, n) && nuif_sha256_final(c, out) ? 0 : -1;
}
