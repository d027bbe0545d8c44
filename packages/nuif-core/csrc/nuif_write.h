/* C helpers of the writer (src/nuif_core/_speedups_write.pxi) that stay out of its loop.
 *
 * nuif_write_literals: an array's elements from token t (its first: t is just past the array's
 * token) that are numbers whose canonical text is their literal (an integer but "-0", or a
 * number marked NUIF_F_LIT), the literals written with commas between them.  It stops at the
 * first other element, at `end`, or when the buffer has no room for the next one; the writer
 * then goes on the usual way from the token returned (t itself when it wrote nothing), and *n is
 * the text's new length.  Not inlined, and called once an array, where its first element is
 * such a number: the same loop in the writer's, run for each element, made GCC allocate the
 * writer's registers worse (`ui` 64 KiB: +4-5 % of the writer's instructions). */
#ifndef NUIF_WRITE_H
#define NUIF_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "nuif_escape.h"
#include "nuif_tape.h"

#if defined(__GNUC__) || defined(__clang__)
#define NUIF_WRITE_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define NUIF_WRITE_NOINLINE __declspec(noinline)
#else
#define NUIF_WRITE_NOINLINE
#endif

/* 1 when token tk is a number whose canonical text is its literal: an integer but "-0", or a
 * number the walk marked NUIF_F_LIT */
static inline int nuif_literal_number(const nuif_tok *tk) {
    return tk->kind == NUIF_T_INT ? !(tk->flags & NUIF_F_NEGZERO)
                                  : tk->kind == NUIF_T_FLT && (tk->flags & NUIF_F_LIT);
}

static NUIF_WRITE_NOINLINE ptrdiff_t nuif_write_literals(const nuif_tok *tape, ptrdiff_t t,
                                                        ptrdiff_t end, const uint8_t *p,
                                                        const uint8_t *lim, char *b, ptrdiff_t *n,
                                                        ptrdiff_t cap) {
    ptrdiff_t o = *n, first = t;
    while (t < end) {
        const nuif_tok *tk = &tape[t];
        ptrdiff_t comma = t != first;
        if (!nuif_literal_number(tk)) {
            break;
        }
        if (o + (ptrdiff_t)tk->len + 17 > cap) { /* a comma, the literal, nuif_copy's 16 */
            break;
        }
        b[o] = ',';
        nuif_copy(b + o + comma, p + tk->at, (ptrdiff_t)tk->len, lim);
        o += (ptrdiff_t)tk->len + comma;
        t++;
    }
    *n = o;
    return t;
}

#endif
