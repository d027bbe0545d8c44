/* libcrypto's SHA-256 block functions (SHA256_Init, SHA256_Update, SHA256_Final), bound once per
 * process, for the direct small-text route (nuif_sha256.c), the hashing pipe and the follower
 * (nuif_hashpipe.c).  Nothing here implements SHA-256.  The functions come from one of:
 *
 *   linked  the build linked libcrypto (NUIF_HAVE_OPENSSL: source builds that find OpenSSL 3 and
 *           its headers); bound when the module loads, nothing to look up;
 *   loaded  the build did not (release wheels: NUIF_OPENSSL=OFF; source builds without the
 *           headers): at import the codec takes the libcrypto the interpreter has *already*
 *           loaded for hashlib: the one its _hashlib module depends on (dlsym through it,
 *           dladdr), else the first among the process's shared objects (dl_iterate_phdr) named
 *           libcrypto*; it takes a reference to it with RTLD_NOLOAD and looks the three
 *           functions up.  No second OpenSSL is ever loaded, and a wheel bundles none;
 *   none    neither (Windows and macOS builds without libcrypto, an interpreter with OpenSSL
 *           linked statically into _hashlib, an OpenSSL built without these functions): every
 *           text is hashed through hashlib, as before.  Same digests either way.
 *
 * A library found by loading is used only when it is OpenSSL's API (it exports
 * OpenSSL_version_num) and after it hashed two known-answer vectors (FIPS 180-2's "abc" and its
 * two-block message) to the known digests.  The context is OpenSSL's SHA256_CTX
 * (the same layout in OpenSSL 1.1 and 3, LibreSSL and BoringSSL: 112 bytes), kept with spare
 * room after it.  Binding is not thread-safe: it happens at import (and in tests), never while a
 * call hashes.
 */
#ifndef NUIF_CRYPTO_H
#define NUIF_CRYPTO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nuif_sha256_ctx {
    unsigned int h[8];
    unsigned int Nl, Nh;
    unsigned int data[16];
    unsigned int num, md_len;
    unsigned int spare[16]; /* a larger context than OpenSSL's would still fit */
} nuif_sha256_ctx;

typedef struct nuif_crypto_api {
    int (*init)(nuif_sha256_ctx *c);
    int (*update)(nuif_sha256_ctx *c, const void *p, size_t n);
    int (*final)(unsigned char *digest, nuif_sha256_ctx *c);
} nuif_crypto_api;

/* The bound functions: all three set, or all three NULL (unbound). */
extern nuif_crypto_api nuif_crypto;

enum { NUIF_CRYPTO_NONE = 0, NUIF_CRYPTO_LINKED = 1, NUIF_CRYPTO_LOADED = 2 };

/* Bind: NUIF_CRYPTO_LINKED (only where the build linked libcrypto), NUIF_CRYPTO_LOADED, or
 * NUIF_CRYPTO_NONE (unbind).  NUIF_CRYPTO_LOADED (only where the build can look: ELF platforms
 * with dl_iterate_phdr) takes first the libcrypto that the loaded object `via` uses (the path of
 * hashlib's _hashlib module, found with dlsym through it and dladdr; NULL or "": skipped), else
 * the first loaded shared object whose file name starts with `prefix` ("libcrypto" when NULL or
 * "") that passes the checks above: another libcrypto loaded earlier (one a wheel bundles, say)
 * is not the interpreter's.  Returns how the functions are bound afterwards: `how` when it
 * worked, else NUIF_CRYPTO_NONE (unbound). */
int nuif_crypto_bind(int how, const char *via, const char *prefix);

/* How the functions are bound now (NUIF_CRYPTO_*), and the path of the loaded library ("" unless
 * NUIF_CRYPTO_LOADED). */
int nuif_crypto_binding(const char **path);

/* 1 when this build can bind at all by NUIF_CRYPTO_LINKED / NUIF_CRYPTO_LOADED, else 0. */
int nuif_crypto_can(int how);

#ifdef __cplusplus
}
#endif

#endif
