# Part of _speedups.pyx (included there): the byte spans of the nodes of a canonical document
# (the splice session's index), ``node_spans``: the twin of ``_codec_py.node_spans``.

cdef Py_ssize_t _ns_skip_string(const char* c, Py_ssize_t pos, Py_ssize_t n) except -1:
    # pos at an opening quote; returns the index just past the closing quote
    pos += 1
    while pos < n:
        if c[pos] == b'\\':
            pos += 2
        elif c[pos] == b'"':
            return pos + 1
        else:
            pos += 1
    raise ValueError("unterminated string")


cdef Py_ssize_t _ns_skip_value(const char* c, Py_ssize_t pos, Py_ssize_t n) except -1:
    cdef Py_ssize_t depth = 0
    cdef char ch
    if pos >= n:
        raise ValueError("expected a value")
    ch = c[pos]
    if ch == b'"':
        return _ns_skip_string(c, pos, n)
    if ch == b'{' or ch == b'[':
        while pos < n:
            ch = c[pos]
            if ch == b'"':
                pos = _ns_skip_string(c, pos, n)
                continue
            if ch == b'{' or ch == b'[':
                depth += 1
            elif ch == b'}' or ch == b']':
                depth -= 1
                if depth == 0:
                    return pos + 1
            pos += 1
        raise ValueError("unterminated container")
    while pos < n:
        ch = c[pos]
        if ch == b',' or ch == b'}' or ch == b']':
            return pos
        pos += 1
    raise ValueError("unterminated scalar")


cdef inline bint _ns_at(const char* c, Py_ssize_t pos, Py_ssize_t n, const char* tok, Py_ssize_t k):
    return pos + k <= n and memcmp(c + pos, tok, k) == 0


cdef Py_ssize_t _ns_expect(const char* c, Py_ssize_t pos, Py_ssize_t n, const char* tok) except -1:
    cdef Py_ssize_t k = strlen(tok)
    if not _ns_at(c, pos, n, tok, k):
        raise ValueError(f"not a canonical NUIF document: expected {tok!r} at {pos}")
    return pos + k


def node_spans(bytes data):
    """Compiled twin of ``_codec_py.node_spans`` (same result, same ValueError on bad layout)."""
    cdef const char* c = PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t pos, root_start, start, head_end, q, kind_start
    cdef Py_ssize_t depth = 1
    cdef list stack = []
    cdef dict spans = {}
    if _ns_at(c, 0, n, b'{"meta":', 8):
        pos = _ns_expect(c, _ns_skip_value(c, 8, n), n, b',"nuif":0,"root":')
    else:
        pos = _ns_expect(c, 0, n, b'{"nuif":0,"root":')
    root_start = pos
    while True:
        start = pos
        pos = _ns_expect(c, pos, n, b'{')
        if _ns_at(c, pos, n, b'"attrs":{', 9):
            pos = _ns_expect(c, _ns_skip_value(c, pos + 8, n), n, b',')
        head_end = pos
        if _ns_at(c, pos, n, b'"children":[', 12):
            stack.append((start, head_end))
            pos += 12
            depth += 1
            continue
        while True:
            pos = _ns_expect(c, pos, n, b'"id":"')
            q = pos
            while q < n and c[q] != b'"':
                q += 1
            if q >= n:
                raise ValueError("unterminated id")
            nid = data[pos:q].decode("ascii")
            pos = _ns_expect(c, q + 1, n, b',"kind":')
            kind_start = pos
            if pos >= n or c[pos] != b'"':
                raise ValueError("kind is not a string")
            pos = _ns_expect(c, _ns_skip_string(c, pos, n), n, b'}')
            spans[nid] = (start, head_end, kind_start, pos - 1, depth)
            if not stack:
                if pos != n - 1 or c[pos] != b'}':
                    raise ValueError("trailing bytes after the root node")
                return root_start, spans
            if c[pos] == b',':
                pos += 1
                break
            pos = _ns_expect(c, pos, n, b'],')
            start, head_end = stack.pop()
            depth -= 1
