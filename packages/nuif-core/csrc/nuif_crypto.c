/* See nuif_crypto.h. */
#ifndef NUIF_HAVE_DLPHDR
#define NUIF_HAVE_DLPHDR 0
#endif
#if NUIF_HAVE_DLPHDR && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* dl_iterate_phdr and RTLD_NOLOAD, which a strict -std=c11 hides */
#endif
#include "nuif_crypto.h"

#include <string.h>

#if NUIF_HAVE_OPENSSL
/* deprecated since OpenSSL 3.0 in favour of EVP, still built unless OpenSSL was configured with
 * no-deprecated; see nuif_sha256.c for why these rather than EVP */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/opensslv.h>
#include <openssl/sha.h>
#if !defined(OPENSSL_NO_DEPRECATED_3_0) && OPENSSL_VERSION_MAJOR == 3
#define NUIF_CRYPTO_LINKABLE 1
/* our context must hold OpenSSL's */
typedef char nuif_crypto_ctx_fits[sizeof(nuif_sha256_ctx) >= sizeof(SHA256_CTX) ? 1 : -1];
static int nuif_linked_init(nuif_sha256_ctx *c) { return SHA256_Init((SHA256_CTX *)c); }
static int nuif_linked_update(nuif_sha256_ctx *c, const void *p, size_t n) {
    return SHA256_Update((SHA256_CTX *)c, p, n);
}
static int nuif_linked_final(unsigned char *digest, nuif_sha256_ctx *c) {
    return SHA256_Final(digest, (SHA256_CTX *)c);
}
#endif
#endif
#ifndef NUIF_CRYPTO_LINKABLE
#define NUIF_CRYPTO_LINKABLE 0
#endif

#if NUIF_HAVE_DLPHDR
#include <dlfcn.h>
#include <link.h>
#endif

#if NUIF_CRYPTO_LINKABLE
nuif_crypto_api nuif_crypto = {nuif_linked_init, nuif_linked_update, nuif_linked_final};
static int nuif_crypto_how = NUIF_CRYPTO_LINKED;
#else
nuif_crypto_api nuif_crypto = {NULL, NULL, NULL};
static int nuif_crypto_how = NUIF_CRYPTO_NONE;
#endif
static char nuif_crypto_path[1024];

int nuif_crypto_can(int how) {
    if (how == NUIF_CRYPTO_LINKED) {
        return NUIF_CRYPTO_LINKABLE;
    }
    if (how == NUIF_CRYPTO_LOADED) {
        return NUIF_HAVE_DLPHDR ? 1 : 0;
    }
    return how == NUIF_CRYPTO_NONE;
}

int nuif_crypto_binding(const char **path) {
    if (path != NULL) {
        *path = nuif_crypto_how == NUIF_CRYPTO_LOADED ? nuif_crypto_path : "";
    }
    return nuif_crypto_how;
}

#if NUIF_HAVE_DLPHDR
/* FIPS 180-2, appendix B: "abc" (one block) and a 56-byte message (two blocks) */
static const unsigned char nuif_kat_abc[32] = {
    0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
    0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
static const char nuif_kat_long_msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const unsigned char nuif_kat_long[32] = {
    0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26, 0x93, 0x0c, 0x3e, 0x60, 0x39,
    0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff, 0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1};

static int nuif_crypto_answers(const nuif_crypto_api *api, const void *p, size_t n,
                               const unsigned char *want) {
    nuif_sha256_ctx c;
    unsigned char got[32];
    size_t half = n / 2;
    memset(&c, 0, sizeof(c));
    /* in two updates, as the pipe and the follower feed it */
    return api->init(&c) == 1 && api->update(&c, p, half) == 1 &&
           api->update(&c, (const unsigned char *)p + half, n - half) == 1 &&
           api->final(got, &c) == 1 && memcmp(got, want, 32) == 0;
}

/* POSIX lets dlsym's object pointer be converted to a function pointer; ISO C does not say how */
static void nuif_crypto_sym(void *handle, const char *name, void *fn, const void **base) {
    void *p = dlsym(handle, name);
    Dl_info info;
    memcpy(fn, &p, sizeof(p));
    /* the object that defines it (dlsym also searches the handle's dependencies) */
    *base = p != NULL && dladdr(p, &info) != 0 ? info.dli_fbase : NULL;
}

/* The SHA-256 functions that `handle` (an already loaded object) or its dependencies define,
 * when one object defines all three and OpenSSL_version_num (OpenSSL's API: 1.1 and later,
 * LibreSSL, BoringSSL, so its SHA256_CTX; another library exporting these names, libmd's with a
 * larger context, is never called) and they hash the known answers; that object's path into
 * nuif_crypto_path and a reference to it kept.  Returns 1, or 0 (api cleared). */
static int nuif_crypto_take(void *handle, nuif_crypto_api *api) {
    const void *b_init, *b_update, *b_final, *b_version;
    void *version = NULL, *own;
    Dl_info info;
    size_t len;
    nuif_crypto_sym(handle, "SHA256_Init", &api->init, &b_init);
    nuif_crypto_sym(handle, "SHA256_Update", &api->update, &b_update);
    nuif_crypto_sym(handle, "SHA256_Final", &api->final, &b_final);
    nuif_crypto_sym(handle, "OpenSSL_version_num", &version, &b_version);
    if (b_init == NULL || b_init != b_update || b_init != b_final || b_init != b_version ||
        dladdr(version, &info) == 0 || info.dli_fname == NULL ||
        (len = strlen(info.dli_fname)) >= sizeof(nuif_crypto_path) ||
        !nuif_crypto_answers(api, "abc", 3, nuif_kat_abc) ||
        !nuif_crypto_answers(api, nuif_kat_long_msg, sizeof(nuif_kat_long_msg) - 1,
                             nuif_kat_long)) {
        memset(api, 0, sizeof(*api));
        return 0;
    }
    /* already loaded: RTLD_NOLOAD only takes a reference, which is never given back, so the
     * library cannot be unloaded under the bound functions */
    own = dlopen(info.dli_fname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (own == NULL) {
        memset(api, 0, sizeof(*api));
        return 0;
    }
    memcpy(nuif_crypto_path, info.dli_fname, len + 1);
    return 1;
}

/* Through `object` (hashlib's _hashlib module): the libcrypto it uses. */
static int nuif_crypto_open_via(const char *object, nuif_crypto_api *api) {
    void *handle = dlopen(object, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    int ok;
    if (handle == NULL) {
        return 0;
    }
    ok = nuif_crypto_take(handle, api);
    dlclose(handle); /* the reference taken by RTLD_NOLOAD just now; the library keeps its own */
    return ok;
}

#define NUIF_CRYPTO_CANDIDATES 4

struct nuif_crypto_search {
    const char *prefix;
    int n;
    char names[NUIF_CRYPTO_CANDIDATES][sizeof(nuif_crypto_path)];
};

/* Only collects names: the libraries are opened after dl_iterate_phdr returns, outside the
 * dynamic loader's lock. */
static int nuif_crypto_visit(struct dl_phdr_info *info, size_t size, void *arg) {
    struct nuif_crypto_search *s = (struct nuif_crypto_search *)arg;
    const char *name = info->dlpi_name, *base;
    size_t len;
    (void)size;
    if (name == NULL || name[0] == '\0') {
        return 0; /* the program itself */
    }
    base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    len = strlen(name);
    if (strncmp(base, s->prefix, strlen(s->prefix)) != 0 || strstr(base, ".so") == NULL ||
        len >= sizeof(s->names[0])) {
        return 0;
    }
    memcpy(s->names[s->n], name, len + 1);
    return ++s->n == NUIF_CRYPTO_CANDIDATES;
}

/* The first candidate that nuif_crypto_take accepts. */
static int nuif_crypto_open(const struct nuif_crypto_search *s, nuif_crypto_api *api) {
    int i, ok;
    void *handle;
    for (i = 0; i < s->n; i++) {
        handle = dlopen(s->names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (handle == NULL) {
            continue;
        }
        ok = nuif_crypto_take(handle, api);
        dlclose(handle);
        if (ok) {
            return 1;
        }
    }
    return 0;
}
#endif

int nuif_crypto_bind(int how, const char *via, const char *prefix) {
    static const nuif_crypto_api none = {NULL, NULL, NULL};
    (void)how; /* a build that can bind neither way */
    nuif_crypto = none;
    nuif_crypto_how = NUIF_CRYPTO_NONE;
    nuif_crypto_path[0] = '\0';
#if NUIF_CRYPTO_LINKABLE
    if (how == NUIF_CRYPTO_LINKED) {
        nuif_crypto.init = nuif_linked_init;
        nuif_crypto.update = nuif_linked_update;
        nuif_crypto.final = nuif_linked_final;
        nuif_crypto_how = NUIF_CRYPTO_LINKED;
    }
#endif
#if NUIF_HAVE_DLPHDR
    if (how == NUIF_CRYPTO_LOADED) {
        static struct nuif_crypto_search s; /* 4 KiB: not on the stack */
        nuif_crypto_api api;
        int found = via != NULL && via[0] != '\0' && nuif_crypto_open_via(via, &api);
        if (!found) {
            memset(&s, 0, sizeof(s));
            s.prefix = prefix != NULL && prefix[0] != '\0' ? prefix : "libcrypto";
            dl_iterate_phdr(nuif_crypto_visit, &s);
            found = nuif_crypto_open(&s, &api);
        }
        if (found) {
            nuif_crypto = api;
            nuif_crypto_how = NUIF_CRYPTO_LOADED;
        }
    }
#else
    (void)via;
    (void)prefix;
#endif
    return nuif_crypto_how;
}
