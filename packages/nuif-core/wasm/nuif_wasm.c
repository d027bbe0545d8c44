/* csrc/ as a WebAssembly module, built with no Python: the codec's pipeline on the plain C host
 * (csrc/nuif_host_libc.h), behind five exported functions.  packages/nuif-web/src/core.mjs is
 * its JavaScript caller, tests/core/test_wasm_build.py calls it from Python (wasmtime), and
 * packages/nuif-core/wasm/build.py builds it (docs/web.md: "The WebAssembly core").
 *
 *     nuif_input(n)   room for an input of n bytes (and its NUL), keeping the bytes written
 *                     there before: its address, or 0
 *     nuif_run(n, mode, max_depth, max_nodes, max_diagnostics, float_libs)  the status
 *     nuif_answer()   the answer's address        nuif_answer_len()  its length in bytes
 *     nuif_digest()   the 32 bytes of the SHA-256 of the canonical text (mode 2)
 *     nuif_same(n)    1 when the canonical text (status 0) is the input, byte for byte
 *     nuif_utf16()    the canonical text (status 0) as UTF-16 code units, for a JavaScript
 *                     string: their address (nuif_utf16_len() of them), or 0 when the text is
 *                     ASCII (its bytes are then the string's characters) or memory ran out
 *
 * The input is written at nuif_input's address; nuif_run reads n bytes there (a call after
 * nuif_input(m) with m >= n).  mode: 0 any
 * I-JSON text, 1 a NUIF document (the §3 check), 2 a document and its hash.  The status and
 * the answer:
 *
 *   0  the RFC 8785 text;
 *   1  a text error: u32 what (a NUIF_FAULT_* of csrc/nuif_fault.h, or 100 invalid UTF-8, 101 a
 *      byte-order mark), u32 offset, u32 detail, u32 line, u32 column, u32 has_pointer, then
 *      two strings: the JSON Pointer, and the repeated member name of a duplicate key;
 *   2  the §3 problems (csrc/nuif_report.h): u32 count, u32 truncated, then for each u32 code
 *      (NUIF_RC_*), u32 message (NUIF_RP_*), u32 line, u32 column, u32 the JSON type of its
 *      token (NUIF_T_*), and three strings: its JSON Pointer, its token's bytes (a string's
 *      text, a member name decoded, a string value as its canonical text; a number's literal),
 *      and the JSON Pointer of the first use of a duplicate id;
 *   3  memory ran out (nothing else is kept: the caller starts a fresh instance).
 *
 * A u32 is little-endian; a string is a u32 length and its UTF-8 bytes.  The messages are
 * worded by the caller, from nuif_core's templates.  Line and column are 1-based, the column
 * counting characters, as nuif_core's line_column. */
#include "nuif_host_libc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nuif_doc.h"
#include "nuif_escape.h"
#include "nuif_fault.h"
#include "nuif_names.h"
#include "nuif_report.h"
#include "nuif_tables.h"
#include "nuif_utf8.h"

#define NUIF_WASM_EXPORT(name) __attribute__((export_name(name), visibility("default")))

enum { NUIF_WASM_UTF8 = 100, NUIF_WASM_BOM = 101 };

static nuif_doc nuif_wasm_st;
static uint8_t *nuif_wasm_in;
static size_t nuif_wasm_in_cap;
static nuif_libc_text *nuif_wasm_text; /* status 0: the canonical text */
static uint8_t *nuif_wasm_out;         /* statuses 1 and 2: the answer being built */
static size_t nuif_wasm_out_len, nuif_wasm_out_cap;
static int nuif_wasm_ready, nuif_wasm_nomem;
static uint16_t *nuif_wasm_u16; /* nuif_utf16's code units */
static size_t nuif_wasm_u16_len;

/* n more bytes at the answer's end: their address, or NULL (the answer is then given up) */
static uint8_t *nuif_wasm_room(size_t n) {
    uint8_t *q;
    size_t cap = nuif_wasm_out_cap ? nuif_wasm_out_cap : 256;
    if (nuif_wasm_nomem) return NULL;
    while (cap < nuif_wasm_out_len + n) cap *= 2;
    if (cap != nuif_wasm_out_cap) {
        q = (uint8_t *)realloc(nuif_wasm_out, cap);
        if (q == NULL) {
            nuif_wasm_nomem = 1;
            return NULL;
        }
        nuif_wasm_out = q;
        nuif_wasm_out_cap = cap;
    }
    q = nuif_wasm_out + nuif_wasm_out_len;
    nuif_wasm_out_len += n;
    return q;
}

static void nuif_wasm_u32(size_t v) {
    uint8_t *q = nuif_wasm_room(4);
    if (q == NULL) return;
    q[0] = (uint8_t)v;
    q[1] = (uint8_t)(v >> 8);
    q[2] = (uint8_t)(v >> 16);
    q[3] = (uint8_t)(v >> 24);
}

static void nuif_wasm_bytes(const void *b, size_t n) {
    uint8_t *q;
    nuif_wasm_u32(n);
    q = nuif_wasm_room(n);
    if (q != NULL && n) memcpy(q, b, n);
}

/* A member name's bytes as a JSON Pointer step (RFC 6901: ~ as ~0, / as ~1), unprefixed. */
static void nuif_wasm_step(const uint8_t *b, size_t n) {
    size_t k;
    uint8_t *q;
    for (k = 0; k < n; k++) {
        if (b[k] == '~' || b[k] == '/') {
            q = nuif_wasm_room(2);
            if (q == NULL) return;
            q[0] = '~';
            q[1] = b[k] == '~' ? '0' : '1';
        } else {
            q = nuif_wasm_room(1);
            if (q == NULL) return;
            *q = b[k];
        }
    }
}

/* the bytes of a string token: a name's decoded, a value's canonical text */
static const uint8_t *nuif_wasm_tok(const nuif_walk *s, uint32_t tok) {
    const nuif_tok *t = &s->tape[tok];
    return (t->flags & NUIF_F_ESC ? s->arena : s->p) + t->at;
}

/* The answer of a text the walk refused (status 1), located as nuif_core's line_column. */
static int nuif_wasm_fault(const uint8_t *p, size_t n) {
    nuif_walk *s = &nuif_wasm_st.s;
    nuif_fault e;
    size_t d, k, line = 1, column = 1, at_len;
    uint8_t *len_at;
    int is_name, code;
    ptrdiff_t bad = nuif_utf8_first_bad(p, (ptrdiff_t)n);
    memset(&e, 0, sizeof(e));
    if (bad >= 0) {
        code = NUIF_WASM_UTF8;
        e.at = (size_t)bad;
    } else if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        code = NUIF_WASM_BOM;
    } else {
        code = nuif_fault_explain(s, &e);
        if (code == NUIF_FAULT_NOMEM) return 3;
    }
    for (k = 0; k < e.at && k < n; k++) {
        if (p[k] == '\n') {
            line++;
            column = 1;
        } else if ((p[k] & 0xC0) != 0x80) {
            column++;
        }
    }
    nuif_wasm_u32((size_t)code);
    nuif_wasm_u32(e.at);
    nuif_wasm_u32(e.aux);
    nuif_wasm_u32(line);
    nuif_wasm_u32(column);
    nuif_wasm_u32((size_t)e.pointer);
    nuif_wasm_u32(0); /* the pointer's length, set below */
    at_len = nuif_wasm_out_len;
    for (d = 0; d < e.path + (code == NUIF_FAULT_DUPLICATE_KEY); d++) {
        uint32_t v = d < e.path ? nuif_fault_step(s, d, &is_name) : e.name;
        uint8_t *q = nuif_wasm_room(1);
        char digits[16];
        int len;
        if (q == NULL) break;
        *q = '/';
        if (d == e.path || is_name) {
            nuif_wasm_step(nuif_wasm_tok(s, v), s->tape[v].len);
            continue;
        }
        len = 0;
        do {
            digits[len++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        while (len > 0 && (q = nuif_wasm_room(1)) != NULL) *q = (uint8_t)digits[--len];
    }
    if (!nuif_wasm_nomem) {
        len_at = nuif_wasm_out + at_len - 4;
        k = nuif_wasm_out_len - at_len;
        len_at[0] = (uint8_t)k;
        len_at[1] = (uint8_t)(k >> 8);
        len_at[2] = (uint8_t)(k >> 16);
        len_at[3] = (uint8_t)(k >> 24);
    }
    if (code == NUIF_FAULT_DUPLICATE_KEY) {
        nuif_wasm_bytes(nuif_wasm_tok(s, e.name), s->tape[e.name].len);
    } else {
        nuif_wasm_bytes(NULL, 0);
    }
    return nuif_wasm_nomem ? 3 : 1;
}

/* a JSON Pointer (nuif_report_pointer) as an answer's string */
static void nuif_wasm_pointer(const nuif_walk *s, size_t tok) {
    size_t n = nuif_report_pointer(s, tok, NULL, 0);
    uint8_t *q;
    nuif_wasm_u32(n);
    q = nuif_wasm_room(n);
    if (q != NULL) nuif_report_pointer(s, tok, (char *)q, n);
}

/* The answer of a valid text that is not a valid document (status 2). */
static int nuif_wasm_schema(size_t max_nodes, size_t max_diagnostics) {
    const nuif_walk *s = &nuif_wasm_st.s;
    nuif_report r;
    size_t k;
    if (nuif_report_run(&r, s, max_nodes, max_diagnostics) != 0) return 3;
    nuif_report_locate(&r);
    nuif_wasm_u32(r.count);
    nuif_wasm_u32((size_t)r.truncated);
    for (k = 0; k < r.count; k++) {
        const nuif_finding *f = &r.found[k];
        const nuif_tok *t = &s->tape[f->arg];
        nuif_wasm_u32((size_t)f->code);
        nuif_wasm_u32((size_t)f->msg);
        nuif_wasm_u32(f->line);
        nuif_wasm_u32(f->column);
        nuif_wasm_u32(t->kind);
        nuif_wasm_pointer(s, f->ptr);
        if (t->kind == NUIF_T_STR) {
            nuif_wasm_bytes(nuif_wasm_tok(s, f->arg), t->len);
        } else if (t->kind == NUIF_T_INT || t->kind == NUIF_T_FLT) {
            nuif_wasm_bytes(s->p + t->at, t->len);
        } else {
            nuif_wasm_bytes(NULL, 0);
        }
        if (f->msg == NUIF_RP_DUPLICATE_ID) {
            nuif_wasm_pointer(s, f->arg2);
        } else {
            nuif_wasm_bytes(NULL, 0);
        }
    }
    free(r.found);
    return nuif_wasm_nomem ? 3 : 2;
}

NUIF_WASM_EXPORT("nuif_input") uint8_t *nuif_input(size_t n) {
    uint8_t *q;
    if (n >= SIZE_MAX / 2) return NULL;
    if (n + 1 > nuif_wasm_in_cap) {
        q = (uint8_t *)realloc(nuif_wasm_in, n + 1);
        if (q == NULL) return NULL; /* (the room there was stays) */
        nuif_wasm_in = q;
        nuif_wasm_in_cap = n + 1;
    }
    return nuif_wasm_in;
}

NUIF_WASM_EXPORT("nuif_run")
int nuif_run(size_t n, int mode, size_t max_depth, size_t max_nodes, size_t max_diagnostics,
             int float_libs) {
    nuif_doc *st = &nuif_wasm_st;
    uint8_t *p = nuif_wasm_in;
    int status = NUIF_DOC_TEXT;
    if (!nuif_wasm_ready) {
        nuif_tables_init();
        nuif_escape_init();
        nuif_names_init();
        nuif_utf8_init();
        nuif_sha256_setup(0);
        st->scratch_keep = NUIF_DOC_SCRATCH_KEEP;
        nuif_wasm_ready = 1;
    }
    free(nuif_wasm_text);
    nuif_wasm_text = NULL;
    free(nuif_wasm_u16);
    nuif_wasm_u16 = NULL;
    nuif_wasm_u16_len = 0;
    nuif_wasm_out_len = 0;
    nuif_wasm_nomem = 0;
    if (p == NULL || n + 1 > nuif_wasm_in_cap || mode < 0 || mode > 2) return 3;
    p[n] = 0;
    if (nuif_utf8_valid(p, n, nuif_utf8_route())) { /* else nuif_wasm_fault finds where */
        nuif_wasm_text = (nuif_libc_text *)nuif_doc_run(
            st, p, n, max_depth, max_nodes, float_libs && nuif_float_backend(), mode, &status);
    }
    if (nuif_wasm_text != NULL) return 0;
    if (status == NUIF_DOC_SCHEMA) return nuif_wasm_schema(max_nodes, max_diagnostics);
    if (status == NUIF_DOC_TEXT) return nuif_wasm_fault(p, n);
    return 3;
}

NUIF_WASM_EXPORT("nuif_answer") const uint8_t *nuif_answer(void) {
    return nuif_wasm_text != NULL ? (const uint8_t *)nuif_wasm_text->b : nuif_wasm_out;
}

NUIF_WASM_EXPORT("nuif_answer_len") size_t nuif_answer_len(void) {
    return nuif_wasm_text != NULL ? nuif_wasm_text->n : nuif_wasm_out_len;
}

NUIF_WASM_EXPORT("nuif_digest") const unsigned char *nuif_digest(void) {
    return nuif_wasm_st.digest;
}

NUIF_WASM_EXPORT("nuif_same") int nuif_same(size_t n) {
    return nuif_wasm_text != NULL && nuif_wasm_text->n == n &&
           memcmp(nuif_wasm_text->b, nuif_wasm_in, n) == 0;
}

/* The code units of valid UTF-8 p[0:n) at w (at most n of them): ASCII 16 bytes at a time where
 * 16 are, the ASCII bytes before the next other character one at a time, the other characters
 * one at a time (a 4-byte one as a surrogate pair). */
static size_t nuif_wasm_widen(const uint8_t *p, size_t n, uint16_t *w) {
    size_t i = 0, k = 0;
    uint32_t c;
    while (i < n) {
        c = p[i];
        if (c < 0x80) {
#ifdef __wasm_simd128__
            if (i + 16 <= n) {
                v128_t v = wasm_v128_load(p + i);
                uint32_t high = wasm_i8x16_bitmask(v);
                if (high == 0) {
                    wasm_v128_store(w + k, wasm_u16x8_extend_low_u8x16(v));
                    wasm_v128_store(w + k + 8, wasm_u16x8_extend_high_u8x16(v));
                    i += 16;
                    k += 16;
                    continue;
                }
                for (uint32_t j = (uint32_t)__builtin_ctz(high); j > 0; j--) {
                    w[k++] = p[i++];
                }
                continue;
            }
#endif
            w[k++] = (uint16_t)c;
            i += 1;
        } else if (c < 0xE0) {
            w[k++] = (uint16_t)(((c & 0x1F) << 6) | (p[i + 1] & 0x3F));
            i += 2;
        } else if (c < 0xF0) {
            w[k++] = (uint16_t)(((c & 0x0F) << 12) | ((uint32_t)(p[i + 1] & 0x3F) << 6) |
                                (p[i + 2] & 0x3F));
            i += 3;
        } else {
            c = ((c & 0x07) << 18) | ((uint32_t)(p[i + 1] & 0x3F) << 12) |
                ((uint32_t)(p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F);
            c -= 0x10000;
            w[k++] = (uint16_t)(0xD800 | (c >> 10));
            w[k++] = (uint16_t)(0xDC00 | (c & 0x3FF));
            i += 4;
        }
    }
    return k;
}

NUIF_WASM_EXPORT("nuif_utf16") const uint16_t *nuif_utf16(void) {
    const uint8_t *p;
    size_t n;
    if (nuif_wasm_text == NULL) return NULL;
    p = (const uint8_t *)nuif_wasm_text->b;
    n = nuif_wasm_text->n;
    if ((size_t)nuif_ascii_run(p, 0, (ptrdiff_t)n) == n) return NULL;
    if (nuif_wasm_u16 == NULL) {
        nuif_wasm_u16 = (uint16_t *)malloc(n * sizeof(uint16_t));
        if (nuif_wasm_u16 == NULL) return NULL;
        nuif_wasm_u16_len = nuif_wasm_widen(p, n, nuif_wasm_u16);
    }
    return nuif_wasm_u16;
}

NUIF_WASM_EXPORT("nuif_utf16_len") size_t nuif_utf16_len(void) { return nuif_wasm_u16_len; }
