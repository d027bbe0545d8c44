# Part of _speedups.pyx (included there): ``schema_report``, every NUIF-0 §3 problem of a
# document, found by csrc/nuif_report.h on the walk's tape, located there (line and column), and
# worded here from the templates of nuif_core._messages, the ones the pure-Python checker
# (nuif_core._schema) uses.  Nothing here parses or scans the text.

from nuif_core._messages import SCHEMA_ATTR, SCHEMA_ATTRS_TYPE, SCHEMA_CHILDREN_TYPE
from nuif_core._messages import SCHEMA_DOC_MEMBER, SCHEMA_DOC_TYPE, SCHEMA_DUPLICATE_ID
from nuif_core._messages import SCHEMA_ID_LENGTH, SCHEMA_ID_PATTERN, SCHEMA_ID_TYPE, SCHEMA_KIND
from nuif_core._messages import SCHEMA_KIND_TYPE, SCHEMA_LIMIT_NODES, SCHEMA_META_TYPE
from nuif_core._messages import SCHEMA_NODE_MEMBER, SCHEMA_NODE_TYPE, SCHEMA_NO_ID, SCHEMA_NO_KIND
from nuif_core._messages import SCHEMA_NO_NUIF, SCHEMA_NO_ROOT, SCHEMA_NUIF_TYPE, SCHEMA_VERSION
from nuif_core._rfc8785 import number_text as _number_text

cdef dict _REPORT_CODES = {
    RC_SCHEMA: "NUIF_SCHEMA", RC_VERSION: "NUIF_VERSION", RC_LIMIT_NODES: "NUIF_LIMIT_NODES",
    RC_ID: "NUIF_ID", RC_DUPLICATE_ID: "NUIF_DUPLICATE_ID", RC_KIND: "NUIF_KIND",
    RC_ATTR: "NUIF_ATTR",
}
# the messages that show nothing, and those that show the JSON type of their token
cdef dict _REPORT_PLAIN = {
    RP_NO_NUIF: SCHEMA_NO_NUIF, RP_NO_ROOT: SCHEMA_NO_ROOT, RP_NO_ID: SCHEMA_NO_ID,
    RP_NO_KIND: SCHEMA_NO_KIND,
}
cdef dict _REPORT_TYPED = {
    RP_DOC_TYPE: SCHEMA_DOC_TYPE, RP_NUIF_TYPE: SCHEMA_NUIF_TYPE, RP_META_TYPE: SCHEMA_META_TYPE,
    RP_NODE_TYPE: SCHEMA_NODE_TYPE, RP_ID_TYPE: SCHEMA_ID_TYPE, RP_KIND_TYPE: SCHEMA_KIND_TYPE,
    RP_ATTRS_TYPE: SCHEMA_ATTRS_TYPE, RP_CHILDREN_TYPE: SCHEMA_CHILDREN_TYPE,
}
# a token kind's JSON type as messages name it (_schema.json_type), by NUIF_T_*
cdef tuple _JSON_TYPES = ("null", "a boolean", "a boolean", "a number", "a number", "a string",
                          "an array", "an object")
cdef dict _UNESCAPE = {'"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                       "t": "\t"}


cdef str _report_string(const Walk* s, uint32_t tok, bint value):
    """The str of a string token: a member name's bytes are decoded already; a string value's
    (``value``) are its canonical text, whose only escapes are RFC 8785's (\\" \\\\ \\b \\f \\n
    \\r \\t \\u00XX)."""
    cdef const Tok* t = &s.tape[tok]
    cdef const uint8_t* b = (<const uint8_t*>s.arena if t.flags & F_ESC else s.p) + t.at
    cdef str text = PyUnicode_DecodeUTF8(<const char*>b, t.len, NULL)
    cdef Py_ssize_t i = 0, j
    if not value or "\\" not in text:
        return text
    out = []
    while True:
        j = text.find("\\", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        if text[j + 1] == "u":
            out.append(chr(int(text[j + 2:j + 6], 16)))
            i = j + 6
        else:
            out.append(_UNESCAPE[text[j + 1]])
            i = j + 2


cdef str _report_pointer(const Walk* s, uint32_t tok):
    """The JSON Pointer of the value at token ``tok``."""
    cdef size_t n = nuif_report_pointer(s, tok, NULL, 0)
    cdef char* b = <char*>PyMem_Malloc(n + 1)
    if b == NULL:
        raise MemoryError()
    try:
        nuif_report_pointer(s, tok, b, n)
        return PyUnicode_DecodeUTF8(b, <Py_ssize_t>n, NULL)
    finally:
        PyMem_Free(b)


cdef str _report_message(const Walk* s, const Finding* f, object max_nodes):
    """The message of finding ``f``: its template (nuif_core._messages) or name rule
    (nuif_core._schema) filled from its tokens."""
    cdef const Tok* t = &s.tape[f.arg]
    template = _REPORT_PLAIN.get(f.msg)
    if template is not None:
        return template
    template = _REPORT_TYPED.get(f.msg)
    if template is not None:
        return template.format(_JSON_TYPES[t.kind])
    if f.msg == RP_VERSION:
        literal = (<const char*>s.p + t.at)[:t.len].decode("ascii")
        return SCHEMA_VERSION.format(
            _number_text(int(literal) if t.kind == T_INT else float(literal)))
    if f.msg == RP_LIMIT_NODES:
        return SCHEMA_LIMIT_NODES.format(max_nodes)
    if f.msg == RP_DOC_MEMBER:
        return SCHEMA_DOC_MEMBER.format(quote(_report_string(s, f.arg, False)))
    if f.msg == RP_NODE_MEMBER:
        return SCHEMA_NODE_MEMBER.format(quote(_report_string(s, f.arg, False)))
    if f.msg == RP_DUPLICATE_ID:
        return SCHEMA_DUPLICATE_ID.format(quote(_report_string(s, f.arg, True)),
                                          _report_pointer(s, f.arg2))
    if f.msg == RP_ATTR:
        return SCHEMA_ATTR.format(quote(_report_string(s, f.arg, False)))
    template = {RP_KIND: SCHEMA_KIND, RP_ID_LENGTH: SCHEMA_ID_LENGTH}.get(f.msg, SCHEMA_ID_PATTERN)
    return template.format(quote(_report_string(s, f.arg, True)))


cdef tuple _schema_report(nuif_doc* st, bytes data, object max_depth, object max_nodes,
                          Py_ssize_t max_diagnostics):
    """``schema_report`` on the state ``st``: the walk, the reporter, then the findings'
    words."""
    cdef Walk* s = &st.s
    cdef const uint8_t* p = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Report r
    cdef const Finding* f
    cdef size_t k
    cdef int rc, was_busy = st.busy
    if not _utf8_ok(p, n):
        _raise_fault(st, data, max_depth)
    s.p = p
    s.n = <size_t>n
    s.max_depth = _c_depth(max_depth, n)
    s.float_libs = _float_libs
    rc = nuif_walk_parse(s)
    if rc == WALK_NOMEM:
        _raise_set()
    if rc == WALK_REFUSE:
        _raise_fault(st, data, max_depth)
    # the findings' words are Python objects (and a collection may run Python code that calls
    # the codec): the tape is this call's until they are made
    st.busy = 1
    r.found = NULL
    try:
        if nuif_report_run(&r, s, _c_nodes(max_nodes), <size_t>max_diagnostics) != 0:
            _raise_set()
        nuif_report_locate(&r)
        found = []
        for k in range(r.count):
            f = &r.found[k]
            found.append((_REPORT_CODES[f.code], _report_message(s, f, max_nodes),
                          _report_pointer(s, f.ptr), f.line, f.column))
        return tuple(found), bool(r.truncated)
    finally:
        PyMem_Free(r.found)
        st.busy = was_busy
