/* The token tape the walk makes of a text (csrc/nuif_walk.h), which the §3 check, the writer, the
 * inspect summary and loads read.
 *
 * One 16-byte token per value or member name, in document order.  What its three words hold
 * depends on its kind; each meaning has its own name (the words are anonymous unions, so the
 * names cost nothing):
 *
 *   kind                 at / end              len / members        quote / order_at / dbl
 *   STR (value or name)  at: first byte        len: byte count      quote: the name's opening
 *                                                                     quote in the input (names)
 *   INT, FLT             at: literal's start   len: literal's bytes  dbl: index into the walk's
 *                                                                     doubles (FLT with F_DBL)
 *   ARR                  end: token index just past its subtree
 *   OBJ                  end: as ARR           members: count        order_at: first of its
 *                                                                     member-name tokens in the
 *                                                                     `order` array (sorted)
 *   NULL, FALSE, TRUE    -
 *
 * A string's bytes are in the input, or in the arena when F_ESC is set.  A member name's bytes are
 * decoded (its text had escapes: F_ESC); a string value's are its canonical text, escapes
 * included: in the arena when its text had an escape spelled otherwise than the writer spells it
 * (F_ESC), else in the input, even with escapes (nuif_canon_esc_len in nuif_escape.h).  On the
 * tape of nuif_walk_parse_values (loads), a string value with escapes is decoded as a member
 * name is, into the arena (F_ESC), and a string of plain ASCII is marked F_ASCII.  Offsets
 * and counts are 32-bit: inputs of LIMIT_TAPE bytes and more go to the pure-Python twin
 * (_speedups.pyx).
 */
#ifndef NUIF_TAPE_H
#define NUIF_TAPE_H

#include <stdint.h>

/* token kinds */
enum {
    NUIF_T_NULL = 0,
    NUIF_T_FALSE = 1,
    NUIF_T_TRUE = 2,
    NUIF_T_INT = 3,
    NUIF_T_FLT = 4,
    NUIF_T_STR = 5,
    NUIF_T_ARR = 6,
    NUIF_T_OBJ = 7
};

/* token flags (NUIF_F_DBL: the double is in the walk's doubles, for the pipeline when no faster
 * route gives the text, and for every non-integer on the tape of nuif_walk_parse_values) */
enum {
    NUIF_F_ESC = 1,       /* string bytes live in the arena (see above) */
    NUIF_F_NEEDS_ESC = 2, /* decoded string holds '"', '\\' or a control character */
    NUIF_F_DBL = 4,       /* number: its double is in the walk's doubles (above) */
    NUIF_F_NEGZERO = 8,   /* integer literal "-0" */
    NUIF_F_SKIP = 16,     /* member name: the writer omits this member (NUIF §3 normalization) */
    NUIF_F_LIT = 32,      /* number: its canonical text is the first `len` bytes of the literal */
    NUIF_F_ASCII = 64     /* string of nuif_walk_parse_values: the input's bytes, plain ASCII */
};

typedef struct {
    uint8_t kind;
    uint8_t flags;
    union {
        uint32_t at;  /* STR, INT, FLT */
        uint32_t end; /* ARR, OBJ */
    };
    union {
        uint32_t len;     /* STR, INT, FLT */
        uint32_t members; /* OBJ */
    };
    union {
        uint32_t quote;    /* STR (member names) */
        uint32_t dbl;      /* FLT with NUIF_F_DBL */
        uint32_t order_at; /* OBJ */
    };
} nuif_tok;

#endif
