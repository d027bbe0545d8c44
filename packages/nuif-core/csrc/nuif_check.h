/* The NUIF-0 §3 check on the token tape (run before the writer: csrc/nuif_doc.h).
 *
 * It only says yes or no: at the first problem of any kind it stops, and nuif_report.h, run on
 * the tape again, reports every one.  On the way it marks the members that
 * normalization omits (empty `attrs` and `children` of a node, an empty `meta`) with
 * NUIF_F_SKIP, which the writer obeys.  It allocates nothing: the caller hands it a stack for
 * its pre-order walk and an id set large enough for every node the tape can hold.
 */
#ifndef NUIF_CHECK_H
#define NUIF_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_idset.h"

#include "nuif_names.h"
#include "nuif_number.h"
#include "nuif_tape.h"

#define NUIF_CK_GEN_MAX 0xFFFFu
#define NUIF_CK_TAG_MASK 0xFFFFFFFF00000000ULL

typedef struct {
    /* the tape and where its strings' bytes are (the walk's) */
    nuif_tok *tape;
    const uint8_t *p;
    size_t n;
    const uint8_t *arena;
    size_t arena_cap;
    const double *doubles;
    size_t max_nodes;
    /* the pre-order walk's stack of open `children` arrays: next[k], end[k] for k < walk_cap */
    size_t *walk_next;
    size_t *walk_end;
    size_t walk_cap;
    /* the id set: ids_cap slots (a power of 2), at least twice as many as the tape can hold
     * nodes (a node takes five tokens at least), so it never grows.  An entry is the set's
     * generation ids_gen (1..NUIF_CK_GEN_MAX) << 48, 16 more bits of the id's hash << 32, and
     * the id's token + 1; a slot holding another generation is empty, so a table kept from
     * earlier calls needs no zeroing as long as each call has a new generation */
    uint64_t *ids;
    size_t ids_cap;
    size_t ids_used;
    uint64_t ids_gen;
    size_t count; /* the nodes checked */
    /* 1: a valid document; 0: not */
    int result;
} nuif_check;

/* Set c up for a check from its start: the tape and where its strings and doubles are, the node
 * limit, the walk's stack (`stack`: 2 * walk_cap words, walk_cap at least the tape's deepest
 * nesting + 2) and the id set (ids_cap slots, a power of 2 with room for every node the tape can
 * hold, stamped with generation `gen`, which no entry in it may have yet). */
static void nuif_check_start(nuif_check *c, nuif_tok *tape, const uint8_t *p, size_t n,
                             const uint8_t *arena, size_t arena_cap, const double *doubles,
                             size_t max_nodes, size_t *stack, size_t walk_cap, uint64_t *ids,
                             size_t ids_cap, uint64_t gen) {
    c->tape = tape;
    c->p = p;
    c->n = n;
    c->arena = arena;
    c->arena_cap = arena_cap;
    c->doubles = doubles;
    c->max_nodes = max_nodes;
    c->walk_cap = walk_cap;
    c->walk_next = stack;
    c->walk_end = stack + walk_cap;
    c->ids = ids;
    c->ids_cap = ids_cap;
    c->ids_used = 0;
    c->ids_gen = gen;
    c->count = 0;
    c->result = 0;
}

static inline const uint8_t *nuif_ck_str(const nuif_check *c, const nuif_tok *t) {
    return (t->flags & NUIF_F_ESC ? c->arena : c->p) + t->at;
}

static inline const uint8_t *nuif_ck_lim(const nuif_check *c, const nuif_tok *t) {
    return t->flags & NUIF_F_ESC ? c->arena + c->arena_cap : c->p + c->n;
}

/* the token just past value v (its whole subtree) */
static inline size_t nuif_ck_vend(const nuif_tok *tape, size_t v) {
    return tape[v].kind >= NUIF_T_ARR ? tape[v].end : v + 1;
}

/* add the id at string token vi: 0 when an equal id is there already */
static inline int nuif_ck_add_id(nuif_check *c, size_t vi) {
    const nuif_tok *t = &c->tape[vi], *o;
    const uint8_t *s = nuif_ck_str(c, t);
    uint64_t h = nuif_strhash(s, t->len), x;
    uint64_t tag = c->ids_gen << 48 | (h >> 16 & 0xFFFF00000000ULL);
    size_t mask = c->ids_cap - 1, slot = (size_t)h & mask;
    if (2 * (c->ids_used + 1) > c->ids_cap) {
        return 0; /* cannot happen with a set sized as above; refusing keeps the loop finite */
    }
    while (((x = c->ids[slot]) >> 48) == c->ids_gen) {
        if ((x & NUIF_CK_TAG_MASK) == tag) {
            o = &c->tape[(size_t)(x & 0xFFFFFFFFu) - 1];
            if (o->len == t->len && memcmp(nuif_ck_str(c, o), s, t->len) == 0) {
                return 0;
            }
        }
        slot = (slot + 1) & mask;
    }
    c->ids[slot] = tag | (uint64_t)(vi + 1);
    c->ids_used++;
    return 1;
}

/* every member name of the object at token `attrs` is an attribute name */
static inline int nuif_ck_attr_names(const nuif_check *c, size_t attrs) {
    const nuif_tok *tape = c->tape;
    size_t a = attrs + 1, end = tape[attrs].end;
    while (a < end) {
        if (!nuif_name_ok(nuif_ck_str(c, &tape[a]), tape[a].len, nuif_ck_lim(c, &tape[a]), 1)) {
            return 0;
        }
        a = nuif_ck_vend(tape, a + 1);
    }
    return 1;
}

/* One node: an object of id, kind and optional attrs and children, of the right types and
 * spellings, its id new (then added); *children is its non-empty children array's token, or 0.
 * Marks empty attrs and children F_SKIP. */
static inline int nuif_ck_node(nuif_check *c, size_t node, size_t *children) {
    nuif_tok *tape = c->tape, *kt;
    const nuif_tok *v;
    const uint8_t *s;
    size_t k, end, vi;
    int has_id = 0, has_kind = 0;
    if (tape[node].kind != NUIF_T_OBJ) {
        return 0;
    }
    *children = 0;
    end = tape[node].end;
    for (k = node + 1; k < end; k = nuif_ck_vend(tape, vi)) {
        kt = &tape[k];
        vi = k + 1;
        v = &tape[vi];
        s = nuif_ck_str(c, kt);
        switch (kt->len) {
        case 2:
            if (s[0] != 'i' || s[1] != 'd' || v->kind != NUIF_T_STR ||
                !nuif_name_ok(nuif_ck_str(c, v), v->len, nuif_ck_lim(c, v), 0) ||
                !nuif_ck_add_id(c, vi)) {
                return 0;
            }
            has_id = 1;
            break;
        case 4:
            if (memcmp(s, "kind", 4) != 0 || v->kind != NUIF_T_STR ||
                !nuif_kind_ok(nuif_ck_str(c, v), v->len, nuif_ck_lim(c, v))) {
                return 0;
            }
            has_kind = 1;
            break;
        case 5:
            if (memcmp(s, "attrs", 5) != 0 || v->kind != NUIF_T_OBJ) {
                return 0;
            }
            if (v->members == 0) {
                kt->flags |= NUIF_F_SKIP;
            } else if (!nuif_ck_attr_names(c, vi)) {
                return 0;
            }
            break;
        case 8:
            if (memcmp(s, "children", 8) != 0 || v->kind != NUIF_T_ARR) {
                return 0;
            }
            if (v->end == vi + 1) {
                kt->flags |= NUIF_F_SKIP;
            } else {
                *children = vi;
            }
            break;
        default:
            return 0;
        }
    }
    return has_id && has_kind;
}

/* The root object's members (nuif equal to 0, root, an optional object meta); the root node's
 * token, or 0 when they are wrong. */
static inline size_t nuif_ck_top(nuif_check *c) {
    nuif_tok *tape = c->tape, *t;
    const nuif_tok *v;
    const uint8_t *s;
    size_t k, end = tape[0].end, vi, root = 0, nuif = 0;
    nuif_numinfo r;
    if (tape[0].kind != NUIF_T_OBJ) {
        return 0;
    }
    for (k = 1; k < end; k = nuif_ck_vend(tape, vi)) {
        t = &tape[k];
        vi = k + 1;
        s = nuif_ck_str(c, t);
        if (t->len != 4) {
            return 0;
        }
        if (memcmp(s, "nuif", 4) == 0) {
            nuif = vi;
        } else if (memcmp(s, "root", 4) == 0) {
            root = vi;
        } else if (memcmp(s, "meta", 4) == 0) {
            if (tape[vi].kind != NUIF_T_OBJ) {
                return 0;
            }
            if (tape[vi].members == 0) {
                t->flags |= NUIF_F_SKIP;
            }
        } else {
            return 0;
        }
    }
    if (nuif == 0 || root == 0) {
        return 0;
    }
    /* "nuif" must be a number equal to 0 (0, -0, 0.0, 0e5, 1e-400 all are) */
    v = &tape[nuif];
    if (v->kind == NUIF_T_INT) {
        if (!((v->len == 1 && c->p[v->at] == '0') || (v->flags & NUIF_F_NEGZERO))) {
            return 0;
        }
    } else if (v->kind == NUIF_T_FLT) {
        if (v->flags & NUIF_F_DBL) {
            if (c->doubles[v->dbl] != 0.0) {
                return 0;
            }
        } else {
            nuif_analyze(c->p + v->at, v->len, &r);
            if (r.k != 0) {
                return 0;
            }
        }
    } else {
        return 0;
    }
    return root;
}

/* The check, from the root object to the last node in pre-order: 1 for a valid document, else
 * 0. */
static int nuif_check_finish(nuif_check *c) {
    const nuif_tok *tape = c->tape;
    size_t node = nuif_ck_top(c), children, top = 0;
    if (node == 0) {
        return c->result = 0;
    }
    for (;;) {
        if (++c->count > c->max_nodes || !nuif_ck_node(c, node, &children)) {
            return c->result = 0;
        }
        if (children != 0) {
            if (top >= c->walk_cap) {
                /* cannot happen: nodes nest at most half as deep as the tape */
                return c->result = 0;
            }
            c->walk_next[top] = children + 1;
            c->walk_end[top] = tape[children].end;
            top++;
        }
        while (top > 0 && c->walk_next[top - 1] == c->walk_end[top - 1]) {
            top--;
        }
        if (top == 0) {
            return c->result = 1;
        }
        node = c->walk_next[top - 1];
        /* the element after it (a node is an object: a child that is not is refused above, on
         * the next round, before this cursor is used) */
        c->walk_next[top - 1] = nuif_ck_vend(tape, node);
    }
}

#endif
