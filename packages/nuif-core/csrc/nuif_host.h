/* The host interface: everything csrc/ needs from the program it is built into, so that no file
 * here includes Python.h.  Two hosts implement it:
 *
 *   glue/nuif_host_python.h  the extension: CPython's allocator, bytes objects as output texts,
 *                            CPython's dtoa as the float fallback, MemoryError on failure;
 *   csrc/nuif_host_libc.h    plain C (the WebAssembly build, C tests): malloc, a malloc'd text,
 *                            the C library's strtod and printf.
 *
 * A program includes its host's header before any other csrc/ header; the declarations below
 * then check that the host's definitions match them.  Every function may be called only by the
 * thread that runs the call it serves (the extension: the thread holding the GIL).
 *
 * Failures: an allocation returns NULL and records nothing, and the caller that gives up calls
 * nuif_host_nomem(); a text or float function that fails has recorded its failure itself. */
#ifndef NUIF_HOST_H
#define NUIF_HOST_H

#ifndef NUIF_HOST
#error "include a host (glue/nuif_host_python.h or csrc/nuif_host_libc.h) before csrc/ headers"
#endif

#include <stddef.h>
#include <stdint.h>

/* Memory, like realloc, calloc and free. */
static void *nuif_host_realloc(void *p, size_t n);
static void *nuif_host_calloc(size_t n, size_t size);
static void nuif_host_free(void *p);
/* Record that memory ran out (the extension: MemoryError). */
static void nuif_host_nomem(void);

/* An output text: a handle the host owns (the extension: a bytes object) with room for cap
 * bytes at *b.  new: NULL on failure.  grow: the text keeps its first bytes and gets room for cap
 * (*b updated), 0; or -1, and the text is gone.  end: the text cut to its first n bytes, returned
 * as the call's answer (NULL on failure: the text is gone).  copy: a new text of b[0:n).  drop: a
 * text given up (NULL: nothing). */
static void *nuif_host_text_new(size_t cap, char **b);
static int nuif_host_text_grow(void **text, size_t cap, char **b);
static void *nuif_host_text_end(void *text, size_t n);
static void *nuif_host_text_copy(const char *b, size_t n);
static void nuif_host_text_drop(void *text);

/* The float fallback, for what the vendored libraries (nuif_float.h) do not convert.  strtod: the
 * double nearest the number literal s[0:L) (strict JSON grammar, followed by a byte that cannot
 * continue it; out of range: +-inf or 0), 0, or -1.  repr: the shortest round-trip digits of the
 * finite, non-zero double x as a decimal literal (e.g. "1e+22", "-0.1"; digits and exponent are
 * what nuif_analyze reads) into o (at least 32 bytes), its length, or -1. */
static int nuif_host_strtod(const uint8_t *s, size_t L, double *x);
static ptrdiff_t nuif_host_repr(double x, char *o);

#endif
