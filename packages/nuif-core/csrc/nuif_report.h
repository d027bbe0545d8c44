/* Every NUIF-0 §3 problem of a valid JSON text on the walk's tape, in document order: the
 * reporter that runs once the check (nuif_check.h) has said no.  Its findings are those of the
 * pure-Python checker (src/nuif_core/_schema.py, Checker), found in the same order and stopping
 * where it stops: at max_diagnostics findings (one more sets `truncated`), after NUIF_VERSION and
 * after NUIF_LIMIT_NODES.
 *
 * A finding is a code, a message (NUIF_RP_*: src/nuif_core/_messages.py holds each one's text,
 * for both codecs) and tokens: `ptr` is the value its JSON Pointer names (nuif_report_pointer
 * writes it), `loc` the token it is located at (the member name for a finding about a name),
 * `arg` the token its message shows (a type, a quoted name, a number), and for a repeated id
 * `arg2` the first one.  nuif_report_locate then gives each its line and column, in one pass
 * over the text.  The reporter allocates (the host's realloc); nothing here runs on the fast
 * path. */
#ifndef NUIF_REPORT_H
#define NUIF_REPORT_H

#include "nuif_host.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_idset.h"
#include "nuif_names.h"
#include "nuif_number.h"
#include "nuif_tape.h"
#include "nuif_walk.h"

/* codes */
enum {
    NUIF_RC_SCHEMA = 0,
    NUIF_RC_VERSION,
    NUIF_RC_LIMIT_NODES,
    NUIF_RC_ID,
    NUIF_RC_DUPLICATE_ID,
    NUIF_RC_KIND,
    NUIF_RC_ATTR
};

/* messages, each named after its template in _messages.py (SCHEMA_ + the name) */
enum {
    NUIF_RP_DOC_TYPE = 0, /* arg: the document */
    NUIF_RP_NO_NUIF,
    NUIF_RP_NUIF_TYPE, /* arg: the "nuif" value */
    NUIF_RP_VERSION,   /* arg: the "nuif" number */
    NUIF_RP_NO_ROOT,
    NUIF_RP_META_TYPE,  /* arg: the "meta" value */
    NUIF_RP_DOC_MEMBER, /* arg: the member name */
    NUIF_RP_LIMIT_NODES,
    NUIF_RP_NODE_TYPE, /* arg: the node */
    NUIF_RP_NO_ID,
    NUIF_RP_NO_KIND,
    NUIF_RP_ID_TYPE,       /* arg: the "id" value */
    NUIF_RP_KIND_TYPE,     /* arg: the "kind" value */
    NUIF_RP_ID_LENGTH,     /* arg: the id */
    NUIF_RP_ID_PATTERN,    /* arg: the id */
    NUIF_RP_DUPLICATE_ID,  /* arg: the id; arg2: the first one */
    NUIF_RP_KIND,          /* arg: the kind */
    NUIF_RP_ATTRS_TYPE,    /* arg: the "attrs" value */
    NUIF_RP_ATTR,          /* arg: the attribute name */
    NUIF_RP_CHILDREN_TYPE, /* arg: the "children" value */
    NUIF_RP_NODE_MEMBER    /* arg: the member name */
};

typedef struct {
    int code, msg;
    uint32_t ptr, loc, arg, arg2;
    size_t line, column; /* 1-based (nuif_report_locate) */
} nuif_finding;

/* a node whose members are being read: the next member's name token and the object's end; the
 * next child and the end of its `children` array while those are being read */
typedef struct {
    size_t k, end, child, child_end;
} nuif_rp_frame;

typedef struct {
    const nuif_walk *s;
    size_t max_nodes, max, nodes;
    nuif_finding *found;
    size_t count, cap;
    int truncated, stop, nomem;
    uint64_t *ids; /* the ids seen: (hash >> 32) << 32 | (the id's token + 1) */
    size_t ids_cap, ids_used;
    nuif_rp_frame *frames;
} nuif_report;

static const uint8_t *nuif_rp_str(const nuif_walk *s, const nuif_tok *t) {
    return (t->flags & NUIF_F_ESC ? s->arena : s->p) + t->at;
}

static const uint8_t *nuif_rp_lim(const nuif_walk *s, const nuif_tok *t) {
    return t->flags & NUIF_F_ESC ? s->arena + s->arena_cap : s->p + s->n;
}

static size_t nuif_rp_vend(const nuif_tok *tape, size_t v) {
    return tape[v].kind >= NUIF_T_ARR ? tape[v].end : v + 1;
}

/* whether member name token k is `name` */
static int nuif_rp_is(const nuif_walk *s, size_t k, const char *name) {
    size_t L = strlen(name);
    return s->tape[k].len == L && memcmp(nuif_rp_str(s, &s->tape[k]), name, L) == 0;
}

static void nuif_rp_add(nuif_report *r, int code, int msg, size_t ptr, size_t loc, size_t arg) {
    nuif_finding *f;
    if (r->count >= r->max) {
        r->truncated = r->stop = 1;
        return;
    }
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        f = (nuif_finding *)nuif_host_realloc(r->found, cap * sizeof(nuif_finding));
        if (f == NULL) {
            r->nomem = r->stop = 1;
            return;
        }
        r->found = f;
        r->cap = cap;
    }
    f = &r->found[r->count++];
    f->code = code;
    f->msg = msg;
    f->ptr = (uint32_t)ptr;
    f->loc = (uint32_t)loc;
    f->arg = (uint32_t)arg;
    f->arg2 = 0;
    f->line = f->column = 0;
}

/* The characters of a string value's text (its canonical spelling: an escape is one). */
static size_t nuif_rp_chars(const uint8_t *b, size_t L) {
    size_t i = 0, count = 0;
    while (i < L) {
        if (b[i] == '\\') {
            i += b[i + 1] == 'u' ? 6 : 2;
        } else {
            i++;
            while (i < L && (b[i] & 0xC0) == 0x80) i++;
        }
        count++;
    }
    return count;
}

/* The first token of an id equal to the id at token v, or 0 after adding it (or memory ran out:
 * r->nomem). */
static size_t nuif_rp_seen(nuif_report *r, size_t v) {
    const nuif_tok *tape = r->s->tape, *t = &tape[v], *o;
    const uint8_t *b = nuif_rp_str(r->s, t);
    uint64_t h = nuif_strhash(b, t->len) & NUIF_HASH_MASK, x;
    size_t slot;
    if (2 * (r->ids_used + 1) > r->ids_cap) {
        size_t cap = r->ids_cap ? 2 * r->ids_cap : 64, j;
        uint64_t *grown = (uint64_t *)nuif_host_calloc(cap, sizeof(uint64_t));
        if (grown == NULL) {
            r->nomem = r->stop = 1;
            return 0;
        }
        for (j = 0; j < r->ids_cap; j++) {
            if ((x = r->ids[j]) == 0) continue;
            slot = (size_t)(x >> 32) & (cap - 1);
            while (grown[slot]) slot = (slot + 1) & (cap - 1);
            grown[slot] = x;
        }
        nuif_host_free(r->ids);
        r->ids = grown;
        r->ids_cap = cap;
    }
    for (slot = (size_t)(h >> 32) & (r->ids_cap - 1); (x = r->ids[slot]) != 0;
         slot = (slot + 1) & (r->ids_cap - 1)) {
        o = &tape[(x & NUIF_PAYLOAD_MASK) - 1];
        if ((x & NUIF_HASH_MASK) == h && o->len == t->len &&
            memcmp(nuif_rp_str(r->s, o), b, t->len) == 0) {
            return (size_t)(x & NUIF_PAYLOAD_MASK) - 1;
        }
    }
    r->ids[slot] = h | (uint64_t)(v + 1);
    r->ids_used++;
    return 0;
}

/* the number at token v is 0 (0, -0, 0.0, 0e5, 1e-400 all are) */
static int nuif_rp_zero(const nuif_walk *s, const nuif_tok *v) {
    nuif_numinfo n;
    if (v->kind == NUIF_T_INT)
        return (v->len == 1 && s->p[v->at] == '0') || (v->flags & NUIF_F_NEGZERO);
    if (v->flags & NUIF_F_DBL) return s->doubles[v->dbl] == 0.0;
    nuif_analyze(s->p + v->at, v->len, &n);
    return n.k == 0;
}

/* The id member's value v: a string, a valid id, not seen before. */
static void nuif_rp_id(nuif_report *r, size_t v) {
    const nuif_tok *t = &r->s->tape[v];
    const uint8_t *b;
    size_t first, chars;
    if (t->kind != NUIF_T_STR) {
        nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_ID_TYPE, v, v, v);
        return;
    }
    b = nuif_rp_str(r->s, t);
    if (!nuif_name_ok(b, t->len, nuif_rp_lim(r->s, t), 0)) {
        chars = nuif_rp_chars(b, t->len);
        nuif_rp_add(r, NUIF_RC_ID,
                    chars < 1 || chars > NUIF_NAME_MAX ? NUIF_RP_ID_LENGTH : NUIF_RP_ID_PATTERN, v,
                    v, v);
        return;
    }
    first = nuif_rp_seen(r, v);
    if (first != 0) {
        nuif_rp_add(r, NUIF_RC_DUPLICATE_ID, NUIF_RP_DUPLICATE_ID, v, v, v);
        if (!r->stop) r->found[r->count - 1].arg2 = (uint32_t)first;
    }
}

/* A node member: name token k, value v, in the frame of its node. */
static void nuif_rp_member(nuif_report *r, nuif_rp_frame *f, size_t k, size_t v) {
    const nuif_walk *s = r->s;
    const nuif_tok *t = &s->tape[v];
    size_t a;
    if (nuif_rp_is(s, k, "id")) {
        nuif_rp_id(r, v);
    } else if (nuif_rp_is(s, k, "kind")) {
        if (t->kind != NUIF_T_STR) {
            nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_KIND_TYPE, v, v, v);
        } else if (!nuif_kind_ok(nuif_rp_str(s, t), t->len, nuif_rp_lim(s, t))) {
            nuif_rp_add(r, NUIF_RC_KIND, NUIF_RP_KIND, v, v, v);
        }
    } else if (nuif_rp_is(s, k, "attrs")) {
        if (t->kind != NUIF_T_OBJ) {
            nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_ATTRS_TYPE, v, v, v);
            return;
        }
        for (a = v + 1; a < t->end && !r->stop; a = nuif_rp_vend(s->tape, a + 1)) {
            const nuif_tok *n = &s->tape[a];
            if (!nuif_name_ok(nuif_rp_str(s, n), n->len, nuif_rp_lim(s, n), 1)) {
                nuif_rp_add(r, NUIF_RC_ATTR, NUIF_RP_ATTR, a + 1, a, a);
            }
        }
    } else if (nuif_rp_is(s, k, "children")) {
        if (t->kind != NUIF_T_ARR) {
            nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_CHILDREN_TYPE, v, v, v);
            return;
        }
        f->child = v + 1;
        f->child_end = t->end;
    } else {
        nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NODE_MEMBER, v, k, k);
    }
}

/* A node starts: counted, an object with id and kind; 1 when its members are to be read (a
 * frame at f), 0 when not (reported, or the reporter stops). */
static int nuif_rp_node(nuif_report *r, size_t node, nuif_rp_frame *f) {
    const nuif_walk *s = r->s;
    size_t k, end;
    int has_id = 0, has_kind = 0;
    if (++r->nodes > r->max_nodes) {
        nuif_rp_add(r, NUIF_RC_LIMIT_NODES, NUIF_RP_LIMIT_NODES, node, node, node);
        r->stop = 1;
        return 0;
    }
    if (s->tape[node].kind != NUIF_T_OBJ) {
        nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NODE_TYPE, node, node, node);
        return 0;
    }
    end = s->tape[node].end;
    for (k = node + 1; k < end; k = nuif_rp_vend(s->tape, k + 1)) {
        has_id |= nuif_rp_is(s, k, "id");
        has_kind |= nuif_rp_is(s, k, "kind");
    }
    if (!has_id) nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NO_ID, node, node, node);
    if (!has_kind) nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NO_KIND, node, node, node);
    f->k = node + 1;
    f->end = end;
    f->child = f->child_end = 0;
    return !r->stop;
}

/* The node tree from `root`, in pre-order: a node's members in text order, its children where
 * its `children` member is. */
static void nuif_rp_tree(nuif_report *r, size_t root) {
    const nuif_tok *tape = r->s->tape;
    size_t top = 0, k, child;
    nuif_rp_frame *f;
    if (nuif_rp_node(r, root, &r->frames[0])) top = 1;
    while (top > 0 && !r->stop) {
        f = &r->frames[top - 1];
        if (f->child < f->child_end) {
            child = f->child;
            f->child = nuif_rp_vend(tape, child);
            if (nuif_rp_node(r, child, &r->frames[top])) top++;
        } else if (f->k < f->end) {
            k = f->k;
            f->k = nuif_rp_vend(tape, k + 1);
            nuif_rp_member(r, f, k, k + 1);
        } else {
            top--;
        }
    }
}

/* Every finding of the document on the walk's tape, at most `max` (more: r->truncated); 0, or
 * -1 when memory ran out (recorded).  The caller frees r->found with nuif_host_free. */
static int nuif_report_run(nuif_report *r, const nuif_walk *s, size_t max_nodes, size_t max) {
    const nuif_tok *tape = s->tape;
    size_t k, v, nuif = 0, root = 0, end = tape[0].end;
    memset(r, 0, sizeof(*r));
    r->s = s;
    r->max_nodes = max_nodes;
    r->max = max;
    /* a frame a level of nodes: they nest at most half as deep as the tape */
    r->frames = (nuif_rp_frame *)nuif_host_calloc(s->deepest / 2 + 2, sizeof(nuif_rp_frame));
    if (r->frames == NULL) r->nomem = r->stop = 1;
    if (!r->stop && tape[0].kind != NUIF_T_OBJ) {
        nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_DOC_TYPE, 0, 0, 0);
        r->stop = 1;
    }
    for (k = 1; !r->stop && k < end; k = nuif_rp_vend(tape, k + 1)) {
        if (nuif_rp_is(s, k, "nuif")) nuif = k + 1;
        if (nuif_rp_is(s, k, "root")) root = k + 1;
    }
    if (!r->stop && nuif == 0) nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NO_NUIF, 0, 0, 0);
    if (!r->stop && nuif != 0) {
        if (tape[nuif].kind != NUIF_T_INT && tape[nuif].kind != NUIF_T_FLT) {
            nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NUIF_TYPE, nuif, nuif, nuif);
        } else if (!nuif_rp_zero(s, &tape[nuif])) {
            nuif_rp_add(r, NUIF_RC_VERSION, NUIF_RP_VERSION, nuif, nuif, nuif);
            r->stop = 1; /* another version's schema is unknown: nothing more to say */
        }
    }
    if (!r->stop && root == 0) nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_NO_ROOT, 0, 0, 0);
    for (k = 1; !r->stop && k < end; k = nuif_rp_vend(tape, k + 1)) {
        v = k + 1;
        if (v == root) {
            nuif_rp_tree(r, v);
        } else if (nuif_rp_is(s, k, "meta")) {
            if (tape[v].kind != NUIF_T_OBJ)
                nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_META_TYPE, v, v, v);
        } else if (v != nuif) {
            nuif_rp_add(r, NUIF_RC_SCHEMA, NUIF_RP_DOC_MEMBER, v, k, k);
        }
    }
    nuif_host_free(r->frames);
    nuif_host_free(r->ids);
    r->frames = NULL;
    r->ids = NULL;
    if (r->nomem) {
        nuif_host_nomem();
        return -1;
    }
    return 0;
}

/* The JSON Pointer of the value at token `target` (RFC 6901: ~ as ~0, / as ~1) into out[0:cap):
 * its length (written only when it fits). */
static size_t nuif_report_pointer(const nuif_walk *s, size_t target, char *out, size_t cap) {
    const nuif_tok *tape = s->tape;
    size_t at = 0, n = 0, k, v, index, i;
    char digits[24];
    while (at != target) {
        const nuif_tok *c = &tape[at];
        if (c->kind == NUIF_T_OBJ) {
            for (k = at + 1, v = k + 1; nuif_rp_vend(tape, v) <= target;
                 k = nuif_rp_vend(tape, v), v = k + 1) {
            }
            const uint8_t *b = nuif_rp_str(s, &tape[k]);
            if (n < cap) out[n] = '/';
            n++;
            for (i = 0; i < tape[k].len; i++) {
                const char *e = b[i] == '~' ? "~0" : b[i] == '/' ? "~1" : NULL;
                if (e != NULL) {
                    if (n + 2 <= cap) memcpy(out + n, e, 2);
                    n += 2;
                } else {
                    if (n < cap) out[n] = (char)b[i];
                    n++;
                }
            }
            at = v;
        } else { /* an array */
            for (v = at + 1, index = 0; nuif_rp_vend(tape, v) <= target; v = nuif_rp_vend(tape, v))
                index++;
            i = sizeof(digits);
            do {
                digits[--i] = (char)('0' + index % 10);
                index /= 10;
            } while (index);
            if (n < cap) out[n] = '/';
            n++;
            if (n + (sizeof(digits) - i) <= cap) memcpy(out + n, digits + i, sizeof(digits) - i);
            n += sizeof(digits) - i;
            at = v;
        }
    }
    return n;
}

/* The line and column of every finding (1-based; a column counts characters), from where its
 * `loc` token starts in the text: one pass that counts the text's tokens as the walk made them
 * (each string, number, literal, '[' and '{'), and lines and characters up to each. */
static void nuif_report_locate(nuif_report *r) {
    const uint8_t *p = r->s->p;
    size_t n = r->s->n, i = 0, tok = 0, line = 1, col = 0, pos = 0, j, want;
    uint8_t c;
    /* the findings are in document order, so their `loc` tokens ascend, but for a document whose
     * "nuif" member comes after "root": the pass then starts again */
    for (j = 0; j < r->count; j++) {
        want = r->found[j].loc;
        if (want < tok) { /* an earlier token than the last: start again */
            i = tok = pos = col = 0;
            line = 1;
        }
        for (;;) {
            while (i < n && ((c = p[i]) == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' ||
                             c == ':' || c == ']' || c == '}')) {
                i++;
            }
            if (tok == want) break;
            c = p[i];
            if (c == '"') {
                for (i++; p[i] != '"'; i++) {
                    if (p[i] == '\\') i++;
                }
                i++;
            } else if (c == '[' || c == '{') {
                i++;
            } else {
                while (i < n && (c = p[i]) != ' ' && c != '\t' && c != '\n' && c != '\r' &&
                       c != ',' && c != ']' && c != '}') {
                    i++;
                }
            }
            tok++;
        }
        for (; pos < i; pos++) {
            if (p[pos] == '\n') {
                line++;
                col = 0;
            } else if ((p[pos] & 0xC0) != 0x80) {
                col++;
            }
        }
        r->found[j].line = line;
        r->found[j].column = col + 1;
    }
}

#endif
