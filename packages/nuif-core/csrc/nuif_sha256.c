/* See nuif_sha256.h. */
#include "nuif_sha256.h"

#if NUIF_HAVE_OPENSSL
#include <openssl/err.h>
#include <openssl/evp.h>

static EVP_MD *nuif_md = NULL;
static EVP_MD_CTX *nuif_ctx = NULL;

int nuif_sha256(const void *p, size_t n, unsigned char *out) {
    unsigned int len = 0;
    if (nuif_ctx == NULL) {
        if (nuif_md == NULL) {
            nuif_md = EVP_MD_fetch(NULL, "SHA2-256", NULL);
            if (nuif_md == NULL) {
                ERR_clear_error();
                return -1;
            }
        }
        nuif_ctx = EVP_MD_CTX_new();
        if (nuif_ctx == NULL) {
            ERR_clear_error();
            return -1;
        }
    }
    if (EVP_DigestInit_ex2(nuif_ctx, nuif_md, NULL) != 1 || EVP_DigestUpdate(nuif_ctx, p, n) != 1 ||
        EVP_DigestFinal_ex(nuif_ctx, out, &len) != 1 || len != 32) {
        ERR_clear_error();
        return -1;
    }
    return 0;
}

int nuif_sha256_backend(void) { return 1; }

#else

int nuif_sha256(const void *p, size_t n, unsigned char *out) {
    (void)p;
    (void)n;
    (void)out;
    return -1;
}

int nuif_sha256_backend(void) { return 0; }

#endif
