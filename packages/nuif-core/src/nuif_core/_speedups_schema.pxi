# Part of _speedups.pyx (included there): the NUIF-0 §3 check on the token tape
# (canonical_document and what builds on it), whose loop is C (csrc/nuif_check.h).  It only says yes or no: at the first problem of any
# kind the caller runs the Python checker (``_document``), which owns every schema diagnostic.
# The node walk and the string set here serve the inspect summary (_speedups_inspect.pxi); the
# set's kept table serves the check's ids.

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
    uint64_t gen      # the check's stamp for this call's entries (uncounted sets)


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
# slots through six fresh, zeroed tables per call (~1 MiB: ~250 page faults at ~2 us each here).
# The check (csrc/nuif_check.h) stamps each entry with the table's generation, one more per call,
# so a kept table is not zeroed for the next call (a 512 KiB memset at 16 MiB, 32 KiB at 64 KiB
# of `ui`), only when the 16-bit generation wraps.
cdef uint64_t* _spare_slots = NULL
cdef Py_ssize_t _spare_slots_cap = 0
cdef uint64_t _spare_gen = 0


cdef int _strset_start(StrSet* strs, Py_ssize_t cap, bint counted) except -1:
    """A set of ``cap`` slots (a power of 2); an uncounted set (the check's ids, stamped with
    ``strs.gen``) takes the kept table when it has that many."""
    global _spare_slots, _spare_slots_cap
    strs.counts = NULL
    strs.gen = 1
    if not counted and _spare_slots != NULL and _spare_slots_cap >= cap:
        strs.slots, strs.alloc = _spare_slots, _spare_slots_cap
        _spare_slots, _spare_slots_cap = NULL, 0
        strs.gen = _spare_gen + 1
        if strs.gen > NUIF_CK_GEN_MAX:  # every stamp used: start again from a zeroed table
            memset(strs.slots, 0, strs.alloc * sizeof(uint64_t))
            strs.gen = 1
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
    """Free the set (an uncounted set's table is kept, with its generation, when it is the
    largest seen, up to CACHE_MAX bytes; the kept table may be larger than the part of it a set
    used)."""
    global _spare_slots, _spare_slots_cap, _spare_gen
    if (strs.counts == NULL and strs.slots != NULL and strs.alloc > _spare_slots_cap
            and strs.alloc * <Py_ssize_t>sizeof(uint64_t) <= CACHE_MAX):
        PyMem_Free(_spare_slots)
        _spare_slots, _spare_slots_cap, _spare_gen = strs.slots, strs.alloc, strs.gen
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


# the check's walk stack (2 words a level) of a document this shallow is the caller's array
cdef enum:
    CHECK_STACK_LEVELS = 32


cdef int _check_prepare(_Parser parser, Py_ssize_t max_nodes, Check* ck, StrSet* ids,
                        size_t* stack) except -1:
    """Set ``ck`` up for the tape of ``parser`` (csrc/nuif_check.h): the walk's stack and, in
    ``ids``, an id set with room for every node the tape can hold (a node takes at least five
    tokens; the kept table when it is large enough), so that the check never allocates.
    ``_check_release`` frees them.  ``stack``: the caller's array of
    ``2 * CHECK_STACK_LEVELS`` words, the walk's stack when the document is that shallow."""
    cdef Py_ssize_t most = 16
    cdef size_t walk_cap = parser.deepest + 2
    cdef size_t* walk = stack
    while most < 2 * (parser.ntok // 5 + 1):
        most *= 2
    ids.slots = ids.counts = NULL
    if walk_cap > CHECK_STACK_LEVELS:
        walk = <size_t*>PyMem_Malloc(2 * walk_cap * sizeof(size_t))
        if walk == NULL:
            raise MemoryError()
    try:
        _strset_start(ids, most, False)
    except MemoryError:
        if walk_cap > CHECK_STACK_LEVELS:
            PyMem_Free(walk)
        raise
    nuif_check_start(ck, parser.tape, parser.p, parser.n, <const uint8_t*>parser.arena,
                     parser.arena_cap, parser.doubles, max_nodes, walk, walk_cap, ids.slots,
                     ids.cap, ids.gen)
    return 0


cdef void _check_release(Check* ck, StrSet* ids) noexcept:
    """Free what ``_check_prepare`` took."""
    if ck.walk_cap > CHECK_STACK_LEVELS:
        PyMem_Free(ck.walk_next)
    ck.walk_next = NULL
    _strset_free(ids)
