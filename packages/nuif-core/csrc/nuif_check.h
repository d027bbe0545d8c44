/* The NUIF-0 §3 check on the token tape (set up by src/nuif_core/_speedups_schema.pxi, run by
 * the writer, _speedups_write.pxi, alone or shared with its follower).
 *
 * It only says yes or no: at the first problem of any kind the codec runs the Python checker
 * (_document), which owns every schema diagnostic.  On the way it marks the members that
 * normalization omits (empty `attrs` and `children` of a node, an empty `meta`) with
 * NUIF_F_SKIP, which the writer obeys.  It needs no GIL and allocates nothing: the caller hands
 * it the walk's stack and an id set large enough for every node the tape can hold, so that it
 * can run on another thread while the calling thread writes the text (below).
 *
 * Running beside the writer.  The writer needs the F_SKIP marks and nothing else from the
 * check, and only a member whose value is an empty object or array can be marked.  Nodes are
 * checked in document pre-order, which is the order of their tokens on the tape, so the check
 * publishes `progress`: the token of the next node it will look at (every token below it that
 * belongs to a node's own members has its final marks), and SIZE_MAX once it is over.  The
 * writer writes a member that may be omitted (name token kt) only once it is marked or progress
 * > kt (nuif_check_until); it reads every other member's marks at once, since they never change.
 *
 * The check can be taken up where it stands by either thread, a claim at a time (`state`, moved
 * by compare-and-swap from IDLE to BUSY and back, or to DONE at the end): the thread that hashes
 * the writer's text (the follower, csrc/nuif_hashpipe.c) checks a few nodes whenever it has
 * caught up with the writer (nuif_check_step), the writer checks on as far as a member needs
 * (nuif_check_until) and, once its text is written, to the end (nuif_check_finish).  So where
 * the writer is slower than SHA-256 (`ui`: many short tokens) the follower's idle time does
 * part of the check, and where the hash is the longer (`strings`) the writer does it while the
 * follower hashes.  Each claim's memory effects are released by its end and acquired by the
 * next claim.  After DONE no thread touches the check.
 */
#ifndef NUIF_CHECK_H
#define NUIF_CHECK_H

/* the string set's header first: it includes Python.h, which must come before system headers */
#include "nuif_idset.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nuif_names.h"
#include "nuif_number.h"
#include "nuif_tape.h"

/* Sharing the check needs the GNU atomic builtins (as the split walk does, nuif_stage2.h);
 * without them it always runs on the calling thread, and the plain accesses below are enough. */
#if defined(__GNUC__) || defined(__clang__)
#define NUIF_CK_CAN_SHARE 1
#define NUIF_CK_COLD __attribute__((noinline, cold))
#define NUIF_CK_LOAD(ptr) __atomic_load_n((ptr), __ATOMIC_ACQUIRE)
#define NUIF_CK_STORE(ptr, v) __atomic_store_n((ptr), (v), __ATOMIC_RELEASE)
#define NUIF_CK_CLAIM(ptr, want, v) \
    __atomic_compare_exchange_n((ptr), (want), (v), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
/* a mark the writer may be reading (nuif_check_until), and its reading: seen, the mark is the
 * writer's to read as it likes */
#define NUIF_CK_MARK(ptr, bit) ((void)__atomic_or_fetch((ptr), (bit), __ATOMIC_RELEASE))
#define NUIF_CK_PEEK(ptr) __atomic_load_n((ptr), __ATOMIC_ACQUIRE)
#if !defined(_WIN32)
#include <sched.h>
#define NUIF_CK_YIELD() sched_yield()
#else
#define NUIF_CK_YIELD() ((void)0)
#endif
#if defined(__x86_64__) || defined(__i386__)
#define NUIF_CK_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define NUIF_CK_RELAX() __asm__ __volatile__("yield")
#else
#define NUIF_CK_RELAX() ((void)0)
#endif
#else
#define NUIF_CK_CAN_SHARE 0
#define NUIF_CK_COLD
#define NUIF_CK_LOAD(ptr) (*(ptr))
#define NUIF_CK_STORE(ptr, v) (*(ptr) = (v))
#define NUIF_CK_CLAIM(ptr, want, v) (*(ptr) == *(want) ? (*(ptr) = (v), 1) : 0)
#define NUIF_CK_MARK(ptr, bit) ((void)(*(ptr) |= (bit)))
#define NUIF_CK_PEEK(ptr) (*(ptr))
#define NUIF_CK_YIELD() ((void)0)
#define NUIF_CK_RELAX() ((void)0)
#endif

enum { NUIF_CK_IDLE = 0, NUIF_CK_BUSY = 1, NUIF_CK_DONE = 2 };

#define NUIF_CK_GEN_MAX 0xFFFFu
#define NUIF_CK_TAG_MASK 0xFFFFFFFF00000000ULL

/* nodes a follower checks per claim (a few microseconds: it must get back to the text) */
#define NUIF_CK_STEP 8

typedef struct {
    /* the tape and where its strings' bytes are (the parser's) */
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
    /* where the check stands (the claim's holder's): `node` the next node (0: the root object's
     * members come first), `top` the walk's depth, `count` the nodes checked */
    size_t node;
    size_t top;
    size_t count;
    /* 1: a valid document; 0: not; -1: abandoned (nuif_check_settle); read after DONE */
    int result;
    /* atomic: see above */
    size_t progress;
    int state;
} nuif_check;

/* tests (_speedups._set_check_ahead): followers leave the check to the writer; and the nodes
 * followers checked (one check at a time: the calling thread holds the GIL throughout, and reads
 * it after DONE) */
static int nuif_check_plant_late = 0;
static size_t nuif_check_by_job = 0;

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
    c->node = c->top = c->count = 0;
    c->result = 0;
    c->progress = 0;
    c->state = NUIF_CK_IDLE;
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
                NUIF_CK_MARK(&kt->flags, NUIF_F_SKIP);
            } else if (!nuif_ck_attr_names(c, vi)) {
                return 0;
            }
            break;
        case 8:
            if (memcmp(s, "children", 8) != 0 || v->kind != NUIF_T_ARR) {
                return 0;
            }
            if (v->end == vi + 1) {
                NUIF_CK_MARK(&kt->flags, NUIF_F_SKIP);
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
                NUIF_CK_MARK(&t->flags, NUIF_F_SKIP);
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

static inline void nuif_ck_publish(nuif_check *c, size_t next) {
    NUIF_CK_STORE(&c->progress, next);
}

static inline void nuif_ck_end(nuif_check *c, int ok) {
    c->result = ok;
    c->node = SIZE_MAX;
    nuif_ck_publish(c, SIZE_MAX);
}

/* Under the claim: check on from where the check stands until progress > until, or for `budget`
 * nodes, or to the end; 1 when it is over (valid or not). */
static int nuif_ck_advance(nuif_check *c, size_t until, size_t budget) {
    const nuif_tok *tape = c->tape;
    size_t node = c->node, children, top = c->top;
    if (node == SIZE_MAX) {
        return 1;
    }
    if (node == 0) {
        node = nuif_ck_top(c);
        if (node == 0) {
            nuif_ck_end(c, 0);
            return 1;
        }
        nuif_ck_publish(c, node);
    }
    for (; budget > 0 && node <= until; budget--) {
        if (++c->count > c->max_nodes || !nuif_ck_node(c, node, &children)) {
            nuif_ck_end(c, 0);
            return 1;
        }
        if (children != 0) {
            if (top >= c->walk_cap) {
                nuif_ck_end(c, 0); /* cannot happen: nodes nest at most half as deep as the tape */
                return 1;
            }
            c->walk_next[top] = children + 1;
            c->walk_end[top] = tape[children].end;
            top++;
        }
        while (top > 0 && c->walk_next[top - 1] == c->walk_end[top - 1]) {
            top--;
        }
        if (top == 0) {
            nuif_ck_end(c, 1);
            return 1;
        }
        node = c->walk_next[top - 1];
        /* the element after it (a node is an object: a child that is not is refused above, on
         * the next round, before this cursor is used) */
        c->walk_next[top - 1] = nuif_ck_vend(tape, node);
        nuif_ck_publish(c, node); /* every node before it is checked */
    }
    c->node = node;
    c->top = top;
    return 0;
}

static inline int nuif_ck_claim(nuif_check *c) {
    int want = NUIF_CK_IDLE;
    return NUIF_CK_CLAIM(&c->state, &want, NUIF_CK_BUSY);
}

static inline void nuif_ck_release(nuif_check *c, int over) {
    NUIF_CK_STORE(&c->state, over ? NUIF_CK_DONE : NUIF_CK_IDLE);
}

static inline void nuif_ck_relax(unsigned k) {
    if (k < 4096) {
        NUIF_CK_RELAX();
    } else {
        NUIF_CK_YIELD(); /* the claim's holder was descheduled, most likely: let it run */
    }
}

/* The follower, caught up with the writer (nuif_hashfollow_start_idle's idle work): check a few
 * nodes; 1 when it did, 0 when the check is over or the writer holds it. */
static int nuif_check_step(void *arg) {
    nuif_check *c = (nuif_check *)arg;
    size_t before;
    int over;
    if (nuif_check_plant_late || !nuif_ck_claim(c)) {
        return 0;
    }
    before = c->count;
    over = nuif_ck_advance(c, SIZE_MAX, NUIF_CK_STEP);
    nuif_check_by_job += c->count - before;
    nuif_ck_release(c, over);
    return 1;
}

/* The writer, about to write a member that may be omitted (name token kt): returns once its
 * mark is final, checking on itself, a node at a time, while the follower does not.  A node's
 * empty attrs or children is marked as soon as the node is checked; a member of any other object
 * is final once the check has passed it (progress > kt).  Returns the progress seen last. */
NUIF_CK_COLD static size_t nuif_check_until(nuif_check *c, size_t kt) {
    size_t got;
    unsigned k = 0;
    while ((got = NUIF_CK_LOAD(&c->progress)) <= kt &&
           !(NUIF_CK_PEEK(&c->tape[kt].flags) & NUIF_F_SKIP)) {
        if (nuif_ck_claim(c)) {
            nuif_ck_release(c, nuif_ck_advance(c, kt, 1));
        } else {
            nuif_ck_relax(++k);
        }
    }
    return got;
}

/* The writer, its text written: the check's result (1 or 0), checking to the end itself. */
static int nuif_check_finish(nuif_check *c) {
    unsigned k = 0;
    int st;
    while ((st = NUIF_CK_LOAD(&c->state)) != NUIF_CK_DONE) {
        if (st == NUIF_CK_IDLE && nuif_ck_claim(c)) {
            nuif_ck_advance(c, SIZE_MAX, SIZE_MAX);
            nuif_ck_release(c, 1);
        } else {
            nuif_ck_relax(++k);
        }
    }
    return c->result;
}

/* An error while writing: returns once no other thread will touch c (the check left where it
 * stands, result -1). */
NUIF_CK_COLD static void nuif_check_settle(nuif_check *c) {
    unsigned k = 0;
    int st;
    while ((st = NUIF_CK_LOAD(&c->state)) != NUIF_CK_DONE) {
        if (st == NUIF_CK_IDLE && nuif_ck_claim(c)) {
            nuif_ck_end(c, -1);
            nuif_ck_release(c, 1);
        } else {
            nuif_ck_relax(++k);
        }
    }
}

#endif
