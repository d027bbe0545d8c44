# Part of _speedups.pyx (included there): the NUIF-0 §3 check on the token tape
# (canonical_document and what builds on it).  It only says yes or no: at the first problem of any
# kind the caller runs the Python checker (``_document``), which owns every schema diagnostic.
# The walk over the node tree and the string set here are shared with the inspect summary
# (_speedups_inspect.pxi).

ctypedef struct NodeWalk:
    # the pre-order walk's stack of open ``children`` arrays: each one's next element token and
    # its end token
    Py_ssize_t* next
    Py_ssize_t* end
    Py_ssize_t top
    Py_ssize_t cap


ctypedef struct StrSet:
    # a set of the tape's string tokens by value (csrc/nuif_idset.h): slots of (32-bit hash << 32)
    # | (token index + 1), and optionally a count per slot
    uint64_t* slots
    Py_ssize_t* counts
    Py_ssize_t cap
    Py_ssize_t used
    Py_ssize_t alloc  # slots allocated (a kept table may be larger than the cap in use)


cdef int _walk_start(NodeWalk* walk, Py_ssize_t cap) except -1:
    """A walk of at most ``cap`` nested arrays (the parser's deepest nesting + 2 covers every
    node, as nodes nest at most half as deep as the tape)."""
    walk.next = <Py_ssize_t*>PyMem_Malloc(2 * cap * sizeof(Py_ssize_t))
    if walk.next == NULL:
        raise MemoryError()
    walk.end = walk.next + cap
    walk.top = 0
    walk.cap = cap
    return 0


cdef inline Py_ssize_t _next_node(const Tok* tape, NodeWalk* walk, Py_ssize_t children) noexcept:
    """One step of the pre-order walk over the node tree on the tape: push ``children`` (the
    token of the current node's non-empty ``children`` array, or -1), drop finished arrays, and
    return the next node's token, moving its array's cursor past it.  -1: the walk is done; -2:
    the stack is full."""
    cdef Py_ssize_t node
    if children >= 0:
        if walk.top >= walk.cap:
            return -2
        walk.next[walk.top] = children + 1
        walk.end[walk.top] = tape[children].end
        walk.top += 1
    while walk.top > 0 and walk.next[walk.top - 1] == walk.end[walk.top - 1]:
        walk.top -= 1
    if walk.top == 0:
        return -1
    node = walk.next[walk.top - 1]
    walk.next[walk.top - 1] = tape[node].end  # the element after it (a node is an object)
    return node


# The table of the id set (not counted), kept between calls as the parser keeps its buffers (up
# to CACHE_MAX bytes): for the 29,457 nodes of 16 MiB of `ui` the set grew from 1,024 to 65,536
# slots through six fresh, zeroed tables per call (~1 MiB: ~250 page faults at ~2 us each here),
# where zeroing the kept 512 KiB table takes tens of microseconds.
cdef uint64_t* _spare_slots = NULL
cdef Py_ssize_t _spare_slots_cap = 0


cdef int _strset_start(StrSet* strs, Py_ssize_t cap, bint counted, Py_ssize_t most=0) except -1:
    """A set of ``cap`` slots (a power of 2); an uncounted set takes the kept table when it has
    that many, and then uses as much of it as ``most`` (a power of 2 >= cap) allows."""
    global _spare_slots, _spare_slots_cap
    strs.counts = NULL
    if not counted and _spare_slots != NULL and _spare_slots_cap >= cap:
        while cap < most and cap < _spare_slots_cap:
            cap *= 2
        strs.slots, strs.alloc = _spare_slots, _spare_slots_cap
        _spare_slots, _spare_slots_cap = NULL, 0
        memset(strs.slots, 0, cap * sizeof(uint64_t))
        strs.cap = cap
        strs.used = 0
        return 0
    strs.slots = <uint64_t*>PyMem_Calloc(cap, sizeof(uint64_t))
    if strs.slots != NULL and counted:
        strs.counts = <Py_ssize_t*>PyMem_Malloc(cap * sizeof(Py_ssize_t))
    if strs.slots == NULL or (counted and strs.counts == NULL):
        PyMem_Free(strs.slots)
        strs.slots = NULL
        raise MemoryError()
    strs.cap = strs.alloc = cap
    strs.used = 0
    return 0


cdef void _strset_free(StrSet* strs) noexcept:
    """Free the set (an uncounted set's table is kept when it is the largest seen, up to
    CACHE_MAX bytes; the kept table may be larger than the part of it a set used)."""
    global _spare_slots, _spare_slots_cap
    if (strs.counts == NULL and strs.slots != NULL and strs.alloc > _spare_slots_cap
            and strs.alloc * <Py_ssize_t>sizeof(uint64_t) <= CACHE_MAX):
        PyMem_Free(_spare_slots)
        _spare_slots, _spare_slots_cap = strs.slots, strs.alloc
        strs.slots = NULL
    PyMem_Free(strs.slots)
    PyMem_Free(strs.counts)
    strs.slots = NULL
    strs.counts = NULL


cdef inline Py_ssize_t _strset_find(_Parser parser, StrSet* strs, Py_ssize_t tok,
                                    uint64_t* entry) noexcept:
    """The slot of the string token ``tok``'s value: the slot of an equal string (nonzero
    there), or the empty slot where it goes (zero there), with ``*entry`` its new entry.
    Probes compare hashes first and touch the text only when they match."""
    cdef const Tok* t = &parser.tape[tok]
    cdef const uint8_t* s = parser.tstr(t)
    cdef uint64_t h = nuif_hset_entry(s, t.len), x
    cdef Py_ssize_t slot = nuif_hset_home(h, strs.cap)
    cdef const Tok* other
    while True:
        x = strs.slots[slot]
        if x == 0:
            break
        if (x & NUIF_HASH_MASK) == h:
            other = &parser.tape[<Py_ssize_t>(x & NUIF_PAYLOAD_MASK) - 1]
            if other.len == t.len and memcmp(parser.tstr(other), s, t.len) == 0:
                break
        slot = (slot + 1) & (strs.cap - 1)
    entry[0] = h | <uint64_t>(tok + 1)
    return slot


cdef int _strset_grow(StrSet* strs) except -1:
    """Double the set (the caller keeps its load at or below 1/2)."""
    strs.slots = nuif_hset_grow(strs.slots, strs.cap, &strs.counts if strs.counts != NULL else NULL)
    strs.cap *= 2
    strs.alloc = strs.cap
    return 0


cdef bint _check_document(_Parser parser, Py_ssize_t max_nodes) except -1:
    """True when the tape is a valid NUIF document (NUIF-0 §3), after marking the members
    that normalization omits (F_SKIP); False at the first problem of any kind."""
    cdef Tok* tape = parser.tape
    cdef Tok* t
    cdef Tok* v
    cdef Py_ssize_t k, end, vi, root = -1, nuif = -1
    cdef const uint8_t* s
    cdef NumInfo r
    if tape[0].kind != T_OBJ:
        return False
    k = 1
    end = tape[0].end
    while k < end:
        t = &tape[k]
        vi = k + 1
        v = &tape[vi]
        s = parser.tstr(t)
        if t.len != 4:
            return False
        if memcmp(s, b"nuif", 4) == 0:
            nuif = vi
        elif memcmp(s, b"root", 4) == 0:
            root = vi
        elif memcmp(s, b"meta", 4) == 0:
            if v.kind != T_OBJ:
                return False
            if v.members == 0:
                t.flags |= F_SKIP
        else:
            return False
        k = parser.vend(vi)
    if nuif < 0 or root < 0:
        return False
    # "nuif" must be a number equal to 0 (0, -0, 0.0, 0e5, 1e-400 all are)
    v = &tape[nuif]
    if v.kind == T_INT:
        if not ((v.len == 1 and parser.p[v.at] == 0x30) or (v.flags & F_NEGZERO)):
            return False
    elif v.kind == T_FLT:
        if v.flags & F_DBL:
            if parser.doubles[v.dbl] != 0.0:
                return False
        else:
            nuif_analyze(parser.p + v.at, v.len, &r)
            if r.k != 0:
                return False
    else:
        return False
    return _check_nodes(parser, root, max_nodes)


cdef bint _check_nodes(_Parser parser, Py_ssize_t node, Py_ssize_t max_nodes) except -1:
    """The node tree from ``node`` (document pre-order, an explicit stack): every node valid,
    every id unique, at most ``max_nodes`` nodes."""
    cdef Py_ssize_t count = 0, children, cap = 16, most = 16
    cdef NodeWalk walk
    # the set of ids
    cdef StrSet ids
    # a node takes at least 5 tokens: size the id set for every node the tape can hold (no
    # growth), up to 1024 slots (small documents then zero a few hundred bytes, not 8 KiB)
    while cap < 1024 and cap < 2 * (parser.ntok // 5 + 1):
        cap *= 2
    # with a kept table (_strset_start), as many slots of it as that bound asks for
    while most < 2 * (parser.ntok // 5 + 1):
        most *= 2
    walk.next = NULL
    ids.slots = ids.counts = NULL
    try:
        _walk_start(&walk, parser.deepest + 2)
        _strset_start(&ids, cap, False, most)
        while True:
            count += 1
            if count > max_nodes:
                return False
            if not _node_ok(parser, node, &ids, &children):
                return False
            # a child that is not an object is refused by _node_ok, before the cursor moved
            # past it is used
            node = _next_node(parser.tape, &walk, children)
            if node < 0:
                return node == -1  # -2, a full stack, cannot happen: see _walk_start
    finally:
        PyMem_Free(walk.next)
        _strset_free(&ids)


cdef inline bint _node_ok(_Parser parser, Py_ssize_t node, StrSet* ids,
                          Py_ssize_t* children) except -1:
    """One node: an object of id, kind and optional attrs and children, of the right types and
    spellings, its id not in ``ids`` (then added); ``*children`` is its non-empty children
    array's token, or -1.  Marks empty attrs and children F_SKIP."""
    cdef Tok* tape = parser.tape
    cdef Tok* kt
    cdef Tok* v
    cdef Py_ssize_t k, end, vi, L, slot
    cdef const uint8_t* s
    cdef bint has_id = False, has_kind = False
    cdef uint64_t entry
    if tape[node].kind != T_OBJ:
        return False
    children[0] = -1
    k = node + 1
    end = tape[node].end
    while k < end:
        kt = &tape[k]
        vi = k + 1
        v = &tape[vi]
        s = parser.tstr(kt)
        L = kt.len
        if L == 2 and s[0] == 0x69 and s[1] == 0x64:  # id
            if v.kind != T_STR or not nuif_name_ok(parser.tstr(v), v.len, parser.tlim(v), False):
                return False
            if 2 * (ids.used + 1) > ids.cap:
                _strset_grow(ids)
            slot = _strset_find(parser, ids, vi, &entry)
            if ids.slots[slot]:
                return False  # a duplicate id
            ids.slots[slot] = entry
            ids.used += 1
            has_id = True
        elif L == 4 and memcmp(s, b"kind", 4) == 0:
            if v.kind != T_STR or not nuif_kind_ok(parser.tstr(v), v.len, parser.tlim(v)):
                return False
            has_kind = True
        elif L == 5 and memcmp(s, b"attrs", 5) == 0:
            if v.kind != T_OBJ:
                return False
            if v.members == 0:
                kt.flags |= F_SKIP
            elif not _attr_names_ok(parser, vi):
                return False
        elif L == 8 and memcmp(s, b"children", 8) == 0:
            if v.kind != T_ARR:
                return False
            if v.end == vi + 1:
                kt.flags |= F_SKIP
            else:
                children[0] = vi
        else:
            return False
        k = parser.vend(vi)
    return has_id and has_kind


cdef inline bint _attr_names_ok(_Parser parser, Py_ssize_t attrs) noexcept:
    """Every member name of the ``attrs`` object at token ``attrs`` is an attribute name."""
    cdef Tok* tape = parser.tape
    cdef Py_ssize_t a = attrs + 1
    while a < tape[attrs].end:
        if not nuif_name_ok(parser.tstr(&tape[a]), tape[a].len, parser.tlim(&tape[a]), True):
            return False
        a = parser.vend(a + 1)
    return True
