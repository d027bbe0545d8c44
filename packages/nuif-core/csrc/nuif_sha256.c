/* See nuif_sha256.h. */
#include "nuif_sha256.h"

#include "nuif_crypto.h"

/* The block functions SHA256_Init/_Update/_Final (csrc/nuif_crypto.h: linked, or the ones of the
 * libcrypto the interpreter loaded) skip EVP's per-call provider dispatch: about 0.1 us less per
 * digest (a third of the cost of hashing 55 bytes, an eighth at 820), measured here side by side.
 * EVP is the fallback of builds that linked an OpenSSL 3 built without those functions. */
static int nuif_lowlevel = 1;

static int nuif_sha256_blocks(const void *p, size_t n, unsigned char *out) {
    nuif_sha256_ctx c;
    return nuif_lowlevel && nuif_crypto.update != NULL && nuif_crypto.init(&c) == 1 &&
                   nuif_crypto.update(&c, p, n) == 1 && nuif_crypto.final(out, &c) == 1
               ? 0
               : -1;
}

#if NUIF_HAVE_OPENSSL
#include <openssl/err.h>
#include <openssl/evp.h>

static EVP_MD *nuif_md = NULL;
static EVP_MD_CTX *nuif_ctx = NULL;

int nuif_sha256(const void *p, size_t n, unsigned char *out) {
    unsigned int len = 0;
    if (nuif_sha256_blocks(p, n, out) == 0) {
        return 0;
    }
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

int nuif_sha256(const void *p, size_t n, unsigned char *out) { return nuif_sha256_blocks(p, n, out); }

int nuif_sha256_backend(void) { return nuif_crypto.update != NULL; }

#endif

int nuif_sha256_lowlevel(int on) {
    int old = nuif_lowlevel; /* the choice, bound or not: restoring it must not change it */
    if (on >= 0) {
        nuif_lowlevel = on;
    }
    return old;
}
