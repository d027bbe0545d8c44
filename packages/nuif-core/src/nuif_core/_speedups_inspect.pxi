# Part of _speedups.pyx (included there): the inspect summary of a checked document, read off its
# token tape (no Python model): node count, depth, kind counts, the root, and an outline.  It
# walks the node tree as the schema check does (_speedups_schema.pxi).


cdef inline object _ascii_str(const uint8_t* s, Py_ssize_t L):
    """A str of L ASCII bytes (ids and kinds: the §3 check admitted only ASCII)."""
    o = PyUnicode_New(L, 127)
    memcpy(PyUnicode_DATA(o), s, L)
    return o


cdef inline const uint8_t* _tstr(const Walk* s, const Tok* t) noexcept:
    """A string token's bytes: in the input, or (F_ESC) in the arena."""
    return (<const uint8_t*>s.arena if t.flags & F_ESC else s.p) + t.at


cdef inline Py_ssize_t _vend(const Walk* s, Py_ssize_t v) noexcept:
    """The token index just past value v (its whole subtree)."""
    cdef const Tok* t = &s.tape[v]
    if t.kind == T_ARR or t.kind == T_OBJ:
        return t.end
    return v + 1


cdef inline object _token_str(const Walk* s, Py_ssize_t tok):
    return _ascii_str(_tstr(s, &s.tape[tok]), s.tape[tok].len)


cdef Py_ssize_t _root_node(const Walk* s) except -1:
    """The token of the document's "root" member's value."""
    cdef Tok* tape = s.tape
    cdef Py_ssize_t k = 1, node = -1
    while k < tape[0].end:
        if tape[k].len == 4 and memcmp(_tstr(s, &tape[k]), b"root", 4) == 0:
            node = k + 1
        k = _vend(s, k + 1)
    if node < 0:  # pragma: no cover - the §3 check found it
        raise AssertionError("no root on a checked tape")
    return node


cdef void _node_parts(const Walk* s, Py_ssize_t node, Py_ssize_t* id_tok, Py_ssize_t* kind_tok,
                      Py_ssize_t* children) noexcept:
    """The value tokens of a checked node's id and kind, and of its children array when it is
    not empty (else -1).  The check let four member names through, told apart here by their
    (decoded) lengths: id 2, kind 4, attrs 5, children 8."""
    cdef Tok* tape = s.tape
    cdef Py_ssize_t k = node + 1
    children[0] = -1
    while k < tape[node].end:
        if tape[k].len == 2:
            id_tok[0] = k + 1
        elif tape[k].len == 4:
            kind_tok[0] = k + 1
        elif tape[k].len == 8 and not (tape[k].flags & F_SKIP):
            children[0] = k + 1
        k = _vend(s, k + 1)


cdef int _count_kind(const Walk* s, StrSet* kinds, Py_ssize_t kind_tok) except -1:
    """One more node of the kind at token ``kind_tok``."""
    cdef uint64_t entry
    cdef Py_ssize_t slot = _strset_find(s, kinds, kind_tok, &entry)
    if kinds.slots[slot]:
        kinds.counts[slot] += 1
        return 0
    kinds.slots[slot] = entry
    kinds.counts[slot] = 1
    kinds.used += 1
    if 2 * kinds.used > kinds.cap:
        _strset_grow(kinds)
    return 0


cdef Py_ssize_t _child_count(const Walk* s, Py_ssize_t children):
    cdef Py_ssize_t count = 0, e
    if children >= 0:
        e = children + 1
        while e < s.tape[children].end:
            count += 1
            e = _vend(s, e)
    return count


cdef dict _kind_counts(const Walk* s, StrSet* kinds):
    """The kinds and their counts, in sorted order."""
    cdef Py_ssize_t j
    result = []
    for j in range(kinds.cap):
        if kinds.slots[j]:
            result.append((_token_str(s, <Py_ssize_t>(kinds.slots[j] & NUIF_PAYLOAD_MASK) - 1),
                           kinds.counts[j]))
    result.sort()
    return dict(result)


cdef object _tree_summary(const Walk* s, Py_ssize_t outline_limit, object entry, object ref):
    """``(node_count, max_depth, kinds, root, outline, truncated)`` of the document on the tape
    of the walk ``s``, which the §3 check accepted (every node valid, F_SKIP set on the members
    normalization omits).  Nodes are visited in document pre-order, as the check visits them."""
    cdef Py_ssize_t node = _root_node(s), root_node, children, id_tok = -1, kind_tok = -1
    cdef Py_ssize_t count = 0, deepest = 0
    cdef NodeWalk walk
    cdef StrSet kinds
    entry_plan = _slot_plan(entry, _ENTRY_FIELDS)
    outline = []
    root_node = node
    walk.next = NULL
    kinds.slots = kinds.counts = NULL
    try:
        _walk_start(&walk, s.deepest + 2)
        _strset_start(&kinds, 64)
        while True:
            count += 1
            if walk.top + 1 > deepest:
                deepest = walk.top + 1
            _node_parts(s, node, &id_tok, &kind_tok, &children)
            _count_kind(s, &kinds, kind_tok)
            if count <= outline_limit:
                PyList_Append(outline, _made(entry, entry_plan, (
                    _token_str(s, id_tok), _token_str(s, kind_tok), walk.top + 1,
                    _child_count(s, children))))
            if node == root_node:
                root = _filled(ref, _REF_FIELDS, (_token_str(s, id_tok),
                                                  _token_str(s, kind_tok)))
            node = _next_node(s.tape, &walk, children)
            if node == -1:
                break
            if node == -2:  # pragma: no cover - see _walk_start
                raise AssertionError("the node stack overflowed on a checked tape")
        kind_counts = _kind_counts(s, &kinds)
    finally:
        PyMem_Free(walk.next)
        _strset_free(&kinds)
    return count, deepest, kind_counts, root, tuple(outline), count > len(outline)
