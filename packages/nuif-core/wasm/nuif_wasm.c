/* csrc/ as a WebAssembly (WASI) program, built with no Python: the codec's pipeline on the plain
 * C host (csrc/nuif_host_libc.h).  tests/core/test_wasm_build.py compiles it for wasm32-wasi and
 * runs it on the conformance files against the extension.
 *
 *     nuif_wasm.wasm MODE [MAX_DEPTH [MAX_NODES [FLOAT_LIBS]]] < input
 *
 * MODE: json (the RFC 8785 text of any I-JSON text), document (of a valid NUIF document), or
 * hash (a valid document's canonical text, then its "sha256:" hash on a line of its own).  The
 * answer goes to standard output, exit status 0.  A text error is one line, exit status 1:
 *
 *     CODE OFFSET POINTER        e.g.  NUIF_PARSE 14 -   or   NUIF_DUPLICATE_KEY 9 /a/0/b
 *
 * (the byte offset the error is located at; "-" when it has no JSON Pointer).  A valid text that
 * is not a valid document prints its §3 problems (nuif_report.h), one a line, exit status 2:
 *
 *     CODE LINE COLUMN POINTER    e.g.  NUIF_KIND 3 14 /root/children/0/kind
 *
 * (at most 100; the messages are worded by the host's templates, which a C program has not).
 * Out of memory prints "NUIF_NOMEM", exit status 3.  FLOAT_LIBS 0 converts
 * every double with the host's fallback (the C library) instead of the vendored libraries. */
#include "nuif_host_libc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nuif_doc.h"
#include "nuif_escape.h"
#include "nuif_fault.h"
#include "nuif_names.h"
#include "nuif_report.h"
#include "nuif_tables.h"
#include "nuif_utf8.h"

/* the NUIF_* code of each NUIF_FAULT_* (nuif_fault.h) */
static const char *nuif_wasm_code(int fault) {
    switch (fault) {
    case NUIF_FAULT_SURROGATE_ESCAPE:
    case NUIF_FAULT_NONCHARACTER:
        return "NUIF_UNICODE";
    case NUIF_FAULT_DUPLICATE_KEY:
        return "NUIF_DUPLICATE_KEY";
    case NUIF_FAULT_NUMBER_OVERFLOW:
    case NUIF_FAULT_BIG_INTEGER:
        return "NUIF_NUMBER";
    case NUIF_FAULT_DEPTH:
        return "NUIF_DEPTH";
    default:
        return "NUIF_PARSE";
    }
}

static const char *const nuif_wasm_codes[] = {
    "NUIF_SCHEMA",       "NUIF_VERSION", "NUIF_LIMIT_NODES", "NUIF_ID",
    "NUIF_DUPLICATE_ID", "NUIF_KIND",    "NUIF_ATTR"};

/* The §3 problems of the document on the walk's tape, one a line. */
static int nuif_wasm_schema(nuif_doc *st, size_t max_nodes) {
    nuif_report r;
    size_t k, n;
    char *pointer;
    if (nuif_report_run(&r, &st->s, max_nodes, 100) != 0) {
        puts("NUIF_NOMEM");
        return 3;
    }
    nuif_report_locate(&r);
    for (k = 0; k < r.count; k++) {
        n = nuif_report_pointer(&st->s, r.found[k].ptr, NULL, 0);
        pointer = (char *)malloc(n + 1);
        if (pointer == NULL) {
            puts("NUIF_NOMEM");
            return 3;
        }
        nuif_report_pointer(&st->s, r.found[k].ptr, pointer, n);
        printf("%s %zu %zu %.*s\n", nuif_wasm_codes[r.found[k].code], r.found[k].line,
               r.found[k].column, (int)n, pointer);
        free(pointer);
    }
    free(r.found);
    return 2;
}

/* A member name's bytes as a JSON Pointer step (RFC 6901: ~ as ~0, / as ~1). */
static void nuif_wasm_name(const nuif_walk *s, uint32_t tok) {
    const nuif_tok *t = &s->tape[tok];
    const uint8_t *b = (t->flags & NUIF_F_ESC ? s->arena : s->p) + t->at;
    uint32_t k;
    putchar('/');
    for (k = 0; k < t->len; k++) {
        if (b[k] == '~') {
            fputs("~0", stdout);
        } else if (b[k] == '/') {
            fputs("~1", stdout);
        } else {
            putchar(b[k]);
        }
    }
}

static int nuif_wasm_fault(nuif_doc *st, const uint8_t *p, size_t n) {
    nuif_fault e;
    size_t d;
    int is_name, code;
    ptrdiff_t bad = nuif_utf8_first_bad(p, (ptrdiff_t)n);
    if (bad >= 0) {
        printf("NUIF_UTF8 %td -\n", bad);
        return 1;
    }
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        puts("NUIF_PARSE 0 -");
        return 1;
    }
    code = nuif_fault_explain(&st->s, &e);
    if (code == NUIF_FAULT_NOMEM) {
        puts("NUIF_NOMEM");
        return 3;
    }
    printf("%s %zu ", nuif_wasm_code(code), e.at);
    if (!e.pointer) {
        puts("-");
        return 1;
    }
    for (d = 0; d < e.path; d++) {
        uint32_t v = nuif_fault_step(&st->s, d, &is_name);
        if (is_name) {
            nuif_wasm_name(&st->s, v);
        } else {
            printf("/%u", v);
        }
    }
    if (code == NUIF_FAULT_DUPLICATE_KEY) nuif_wasm_name(&st->s, e.name);
    putchar('\n');
    return 1;
}

/* All of standard input, NUL-terminated (the walk reads p[n]). */
static uint8_t *nuif_wasm_read(size_t *n) {
    size_t cap = 1 << 16, len = 0, got;
    uint8_t *b = (uint8_t *)malloc(cap), *q;
    while (b != NULL && (got = fread(b + len, 1, cap - len - 1, stdin)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            q = (uint8_t *)realloc(b, cap * 2);
            if (q == NULL) free(b);
            b = q;
            cap *= 2;
        }
    }
    if (b != NULL) b[len] = 0;
    *n = len;
    return b;
}

int main(int argc, char **argv) {
    static nuif_doc st;
    const char *how = argc > 1 ? argv[1] : "json";
    int mode = strcmp(how, "hash") == 0       ? NUIF_DOC_HASH
               : strcmp(how, "document") == 0 ? NUIF_DOC_CHECK
                                              : NUIF_DOC_JSON;
    size_t max_depth = argc > 2 ? strtoul(argv[2], NULL, 10) : 128;
    size_t max_nodes = argc > 3 ? strtoul(argv[3], NULL, 10) : 100000;
    int float_libs = argc > 4 ? atoi(argv[4]) != 0 && nuif_float_backend() : nuif_float_backend();
    size_t n, k;
    int status = NUIF_DOC_TEXT;
    nuif_libc_text *text = NULL;
    uint8_t *p;
    nuif_tables_init();
    nuif_escape_init();
    nuif_names_init();
    nuif_utf8_init();
    nuif_sha256_setup(0);
    st.scratch_keep = NUIF_DOC_SCRATCH_KEEP;
    p = nuif_wasm_read(&n);
    if (p == NULL) {
        puts("NUIF_NOMEM");
        return 3;
    }
    if (nuif_utf8_first_bad(p, (ptrdiff_t)n) < 0) {
        text = (nuif_libc_text *)nuif_doc_run(&st, p, n, max_depth, max_nodes, float_libs, mode,
                                              &status);
    }
    if (text == NULL) {
        if (status == NUIF_DOC_SCHEMA) return nuif_wasm_schema(&st, max_nodes);
        if (status == NUIF_DOC_ERROR) {
            puts("NUIF_NOMEM");
            return 3;
        }
        return nuif_wasm_fault(&st, p, n);
    }
    fwrite(text->b, 1, text->n, stdout);
    if (mode == NUIF_DOC_HASH) {
        fputs("\nsha256:", stdout);
        for (k = 0; k < 32; k++) printf("%02x", st.digest[k]);
        putchar('\n');
    }
    return 0;
}
