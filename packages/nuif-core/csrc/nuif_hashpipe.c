/* See nuif_hashpipe.h. */
#include "nuif_hashpipe.h"

#if NUIF_HAVE_OPENSSL && NUIF_HAVE_PTHREADS
#include <openssl/err.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The worker hashes at most this much between looks at the shared state, so a hold() (the
 * writer's buffer is about to move) never waits long. */
#define NUIF_HASHPIPE_SLICE ((size_t)256 << 10)

struct nuif_hashpipe {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t more; /* writer -> worker: new bytes, release, final or stop */
    pthread_cond_t idle; /* worker -> writer: not reading the buffer any more */
    EVP_MD_CTX *ctx;
    /* shared, under mu */
    const unsigned char *base;
    size_t avail;  /* bytes [0, avail) of base are final */
    size_t hashed; /* bytes [0, hashed) went into ctx */
    int held;      /* the writer is moving base: do not start reading */
    int busy;      /* the worker is reading base without the lock */
    int final;     /* avail is the whole text */
    int stop;      /* abort: exit without a digest */
    int failed;    /* an OpenSSL call failed */
    unsigned char digest[32];
};

static void *nuif_hashpipe_run(void *arg) {
    nuif_hashpipe *hp = (nuif_hashpipe *)arg;
    const unsigned char *base;
    size_t from, to;
    unsigned int len = 0;
    int ok;
    pthread_mutex_lock(&hp->mu);
    for (;;) {
        while (!hp->stop && (hp->held || (hp->hashed == hp->avail && !hp->final))) {
            pthread_cond_wait(&hp->more, &hp->mu);
        }
        if (hp->stop) {
            break;
        }
        if (hp->hashed == hp->avail) { /* final (see the wait), and everything is in */
            if (!hp->failed && (EVP_DigestFinal_ex(hp->ctx, hp->digest, &len) != 1 || len != 32)) {
                hp->failed = 1;
            }
            break;
        }
        base = hp->base;
        from = hp->hashed;
        to = hp->avail;
        if (to - from > NUIF_HASHPIPE_SLICE) {
            to = from + NUIF_HASHPIPE_SLICE;
        }
        hp->busy = 1;
        pthread_mutex_unlock(&hp->mu);
        ok = hp->failed || EVP_DigestUpdate(hp->ctx, base + from, to - from) == 1;
        pthread_mutex_lock(&hp->mu);
        if (!ok) {
            hp->failed = 1;
        }
        hp->hashed = to;
        hp->busy = 0;
        pthread_cond_signal(&hp->idle);
    }
    pthread_mutex_unlock(&hp->mu);
    return NULL;
}

static EVP_MD *nuif_hashpipe_md = NULL;

nuif_hashpipe *nuif_hashpipe_start(void) {
    nuif_hashpipe *hp;
    sigset_t all, old;
    int rc;
    if (nuif_hashpipe_md == NULL) { /* first use, under the caller's GIL */
        nuif_hashpipe_md = EVP_MD_fetch(NULL, "SHA2-256", NULL);
        if (nuif_hashpipe_md == NULL) {
            ERR_clear_error();
            return NULL;
        }
    }
    hp = (nuif_hashpipe *)calloc(1, sizeof(*hp));
    if (hp == NULL) {
        return NULL;
    }
    hp->ctx = EVP_MD_CTX_new();
    if (hp->ctx == NULL || EVP_DigestInit_ex2(hp->ctx, nuif_hashpipe_md, NULL) != 1) {
        ERR_clear_error();
        EVP_MD_CTX_free(hp->ctx);
        free(hp);
        return NULL;
    }
    if (pthread_mutex_init(&hp->mu, NULL) != 0) {
        EVP_MD_CTX_free(hp->ctx);
        free(hp);
        return NULL;
    }
    if (pthread_cond_init(&hp->more, NULL) != 0) {
        pthread_mutex_destroy(&hp->mu);
        EVP_MD_CTX_free(hp->ctx);
        free(hp);
        return NULL;
    }
    if (pthread_cond_init(&hp->idle, NULL) != 0) {
        pthread_cond_destroy(&hp->more);
        pthread_mutex_destroy(&hp->mu);
        EVP_MD_CTX_free(hp->ctx);
        free(hp);
        return NULL;
    }
    /* the worker starts with every signal blocked, so signals (Ctrl-C) keep going to the
     * interpreter's threads */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&hp->thread, NULL, nuif_hashpipe_run, hp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&hp->idle);
        pthread_cond_destroy(&hp->more);
        pthread_mutex_destroy(&hp->mu);
        EVP_MD_CTX_free(hp->ctx);
        free(hp);
        return NULL;
    }
    return hp;
}

void nuif_hashpipe_feed(nuif_hashpipe *hp, const unsigned char *base, size_t n) {
    pthread_mutex_lock(&hp->mu);
    hp->base = base;
    hp->avail = n;
    hp->held = 0;
    pthread_cond_signal(&hp->more);
    pthread_mutex_unlock(&hp->mu);
}

void nuif_hashpipe_hold(nuif_hashpipe *hp) {
    pthread_mutex_lock(&hp->mu);
    hp->held = 1;
    while (hp->busy) {
        pthread_cond_wait(&hp->idle, &hp->mu);
    }
    pthread_mutex_unlock(&hp->mu);
}

static void nuif_hashpipe_free(nuif_hashpipe *hp) {
    ERR_clear_error();
    pthread_cond_destroy(&hp->idle);
    pthread_cond_destroy(&hp->more);
    pthread_mutex_destroy(&hp->mu);
    EVP_MD_CTX_free(hp->ctx);
    free(hp);
}

int nuif_hashpipe_finish(nuif_hashpipe *hp, const unsigned char *base, size_t n,
                         unsigned char *digest) {
    int rc;
    pthread_mutex_lock(&hp->mu);
    hp->base = base;
    hp->avail = n;
    hp->held = 0;
    hp->final = 1;
    pthread_cond_signal(&hp->more);
    pthread_mutex_unlock(&hp->mu);
    pthread_join(hp->thread, NULL);
    rc = hp->failed ? -1 : 0;
    if (rc == 0) {
        memcpy(digest, hp->digest, 32);
    }
    nuif_hashpipe_free(hp);
    return rc;
}

void nuif_hashpipe_abort(nuif_hashpipe *hp) {
    pthread_mutex_lock(&hp->mu);
    hp->stop = 1;
    pthread_cond_signal(&hp->more);
    pthread_mutex_unlock(&hp->mu);
    pthread_join(hp->thread, NULL);
    nuif_hashpipe_free(hp);
}

int nuif_hashpipe_available(void) { return 1; }

#else

nuif_hashpipe *nuif_hashpipe_start(void) { return NULL; }
void nuif_hashpipe_feed(nuif_hashpipe *hp, const unsigned char *base, size_t n) {
    (void)hp;
    (void)base;
    (void)n;
}
void nuif_hashpipe_hold(nuif_hashpipe *hp) { (void)hp; }
int nuif_hashpipe_finish(nuif_hashpipe *hp, const unsigned char *base, size_t n,
                         unsigned char *digest) {
    (void)hp;
    (void)base;
    (void)n;
    (void)digest;
    return -1;
}
void nuif_hashpipe_abort(nuif_hashpipe *hp) { (void)hp; }
int nuif_hashpipe_available(void) { return 0; }

#endif
