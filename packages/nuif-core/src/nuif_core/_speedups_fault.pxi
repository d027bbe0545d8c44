# Part of _speedups.pyx (included there): the error of a text the pipeline refused, raised with
# the pure-Python codec's code, message, pointer, line and column.  The walk stopped at the first
# problem and recorded where (csrc/nuif_walk.h); csrc/nuif_fault.h says what it is (a code, the
# byte offset, a detail, the path of keys and indices), and this part makes the message from
# nuif_core._messages, the templates both codecs use.  Nothing here reads the text again but
# the few bytes a message shows.

# the phrases of the syntax errors that read "<expected>, found <what is there>"
cdef dict _EXPECTED = {
    FAULT_EXPECT_VALUE: EXPECT_VALUE,
    FAULT_EXPECT_ARRAY_NEXT: EXPECT_ARRAY_NEXT,
    FAULT_EXPECT_OBJECT_NEXT: EXPECT_OBJECT_NEXT,
    FAULT_EXPECT_FIRST_KEY: EXPECT_FIRST_KEY,
    FAULT_EXPECT_KEY: EXPECT_KEY,
    FAULT_EXPECT_COLON: EXPECT_COLON,
    FAULT_EXPECT_END: EXPECT_END,
    FAULT_EXPECT_DIGIT: EXPECT_DIGIT,
    FAULT_EXPECT_STRING_END: EXPECT_STRING_END,
    FAULT_EXPECT_ESCAPE: EXPECT_ESCAPE,
    FAULT_EXPECT_HEX: EXPECT_HEX,
}
cdef dict _LITERALS = {0x74: "true", 0x66: "false", 0x6E: "null"}


cdef object _fault_name(const Walk* s, uint32_t tok):
    """The member name of tape token ``tok`` as a str."""
    cdef const Tok* t = &s.tape[tok]
    cdef const uint8_t* base = <const uint8_t*>s.arena if t.flags & F_ESC else s.p
    return PyUnicode_DecodeUTF8(<const char*>(base + t.at), t.len, NULL)


cdef object _fault_pointer(const Walk* s, const Fault* e):
    """The JSON Pointer of the error ``e`` of the walk ``s``'s last refusal."""
    cdef size_t d
    cdef int is_name = 0
    cdef uint32_t v
    parts = []
    for d in range(e.path):
        v = nuif_fault_step(s, d, &is_name)
        parts.append(_fault_name(s, v) if is_name else v)
    if e.code == FAULT_DUPLICATE_KEY:
        parts.append(_fault_name(s, e.name))
    return join_pointer(parts)


cdef int _raise_fault(nuif_doc* st, bytes data, object max_depth) except -1:
    """Raise the error of ``data``, a text the pipeline on ``st`` refused (``max_depth`` as the
    caller gave it, for the depth error's message).  The state is marked busy while the error is
    built: making its strings may run a garbage collection, and so any Python code, which may
    call the codec again (that call then takes a state of its own)."""
    cdef int was_busy = st.busy
    st.busy = 1
    try:
        _raise_fault_on(st, data, max_depth)
    finally:
        st.busy = was_busy


cdef int _raise_fault_on(nuif_doc* st, bytes data, object max_depth) except -1:
    cdef const uint8_t* p = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Fault e
    cdef int code
    if not _utf8_ok(p, n):  # the walk did not run
        raise text_error("NUIF_UTF8", UTF8, data, nuif_utf8_first_bad(p, n))
    if n >= 3 and p[0] == 0xEF and p[1] == 0xBB and p[2] == 0xBF:
        raise text_error("NUIF_PARSE", BOM, data, 0)
    code = nuif_fault_explain(&st.s, &e)
    if code == FAULT_NOMEM:
        raise MemoryError()
    if code == 0:  # the token the walk stopped on is valid: a bug the tests and fuzzers would show
        raise SystemError("nuif: the walk refused a text it cannot explain")
    pointer = _fault_pointer(&st.s, &e) if e.pointer else None
    at = e.at
    phrase = _EXPECTED.get(code)
    if phrase is not None:
        raise text_error("NUIF_PARSE", f"{phrase}, found {describe_found(data, at)}", data, at)
    if code == FAULT_EXPECT_LITERAL:
        phrase = EXPECT_LITERAL.format(_LITERALS[e.aux])
        raise text_error("NUIF_PARSE", f"{phrase}, found {describe_found(data, at)}", data, at)
    if code == FAULT_CONTROL_IN_STRING:
        raise text_error("NUIF_PARSE", CONTROL_IN_STRING.format(e.aux), data, at)
    if code == FAULT_SURROGATE_ESCAPE:
        raise text_error("NUIF_UNICODE", SURROGATE_ESCAPE.format(e.aux), data, at, pointer)
    if code == FAULT_NONCHARACTER:
        raise text_error("NUIF_UNICODE", NONCHARACTER.format(e.aux), data, at, pointer)
    if code == FAULT_DUPLICATE_KEY:
        message = DUPLICATE_KEY.format(quote(_fault_name(&st.s, e.name)))
        raise text_error("NUIF_DUPLICATE_KEY", message, data, at, pointer)
    if code == FAULT_DEPTH:
        raise text_error("NUIF_DEPTH", DEPTH.format(max_depth), data, at, pointer)
    literal = data[at:at + e.aux].decode("ascii")
    if code == FAULT_NUMBER_OVERFLOW:
        message = NUMBER_OVERFLOW.format(short(literal))
    else:  # FAULT_BIG_INTEGER
        message = big_integer_problem(literal, float(literal))
    if message is None:
        raise SystemError(f"nuif: the walk refused the number {literal}, which reads back")
    raise text_error("NUIF_NUMBER", message, data, at, pointer)
