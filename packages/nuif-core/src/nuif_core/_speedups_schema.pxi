# Part of _speedups.pyx (included there): the node walk and the string set of the inspect
# summary (_speedups_inspect.pxi), over a tape the NUIF-0 §3 check (csrc/nuif_check.h) accepted.

ctypedef struct NodeWalk:
    # the pre-order walk's stack of open ``children`` arrays: each one's next element token and
    # its end token
    Py_ssize_t* next
    Py_ssize_t* end
    Py_ssize_t top
    Py_ssize_t cap


ctypedef struct StrSet:
    # a set of the tape's string tokens by value (csrc/nuif_idset.h): slots of (32-bit hash << 32)
    # | (token index + 1), and a count per slot
    uint64_t* slots
    Py_ssize_t* counts
    Py_ssize_t cap
    Py_ssize_t used


cdef int _walk_start(NodeWalk* walk, Py_ssize_t cap) except -1:
    """A walk of at most ``cap`` nested arrays (the walk's deepest nesting + 2 covers every
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


cdef int _strset_start(StrSet* strs, Py_ssize_t cap) except -1:
    """A counted set of ``cap`` slots (a power of 2)."""
    strs.counts = NULL
    strs.slots = <uint64_t*>PyMem_Calloc(cap, sizeof(uint64_t))
    if strs.slots != NULL:
        strs.counts = <Py_ssize_t*>PyMem_Malloc(cap * sizeof(Py_ssize_t))
    if strs.slots == NULL or strs.counts == NULL:
        PyMem_Free(strs.slots)
        strs.slots = NULL
        raise MemoryError()
    strs.cap = cap
    strs.used = 0
    return 0


cdef void _strset_free(StrSet* strs) noexcept:
    PyMem_Free(strs.slots)
    PyMem_Free(strs.counts)
    strs.slots = NULL
    strs.counts = NULL


cdef inline Py_ssize_t _strset_find(const Walk* s, StrSet* strs, Py_ssize_t tok,
                                    uint64_t* entry) noexcept:
    """The slot of the string token ``tok``'s value: the slot of an equal string (nonzero
    there), or the empty slot where it goes (zero there), with ``*entry`` its new entry.
    Probes compare hashes first and touch the text only when they match."""
    cdef const Tok* t = &s.tape[tok]
    cdef const uint8_t* b = _tstr(s, t)
    cdef uint64_t h = nuif_hset_entry(b, t.len), x
    cdef Py_ssize_t slot = nuif_hset_home(h, strs.cap)
    cdef const Tok* other
    while True:
        x = strs.slots[slot]
        if x == 0:
            break
        if (x & NUIF_HASH_MASK) == h:
            other = &s.tape[<Py_ssize_t>(x & NUIF_PAYLOAD_MASK) - 1]
            if other.len == t.len and memcmp(_tstr(s, other), b, t.len) == 0:
                break
        slot = (slot + 1) & (strs.cap - 1)
    entry[0] = h | <uint64_t>(tok + 1)
    return slot


cdef int _strset_grow(StrSet* strs) except -1:
    """Double the set (the caller keeps its load at or below 1/2)."""
    strs.slots = nuif_hset_grow(strs.slots, strs.cap, &strs.counts)
    strs.cap *= 2
    return 0
