# Part of _speedups.pyx (included there): the results of the one-call entry points.  The
# canonical text of a checked document (``_document_text``, shared by canonical_document,
# canonical_result, valid_report and inspect_summary), and the result objects: a frozen slots
# dataclass's instance is allocated and its slots set here (csrc/nuif_slots.h), else the class is
# called.

# Result classes whose instances are filled here: class -> tuple of the member descriptors of its
# fields (in order), or None when the class must be called instead.
cdef dict _slot_plans = {}


cdef inline object _slot_plan(object cls, tuple names):
    """The member descriptors of ``names`` when ``cls`` is a frozen slots dataclass whose fields
    are exactly ``names`` and whose generated ``__init__`` only sets them (no ``__post_init__``,
    no custom ``__new__``); else None.  Decided once per class (``_new_slot_plan``)."""
    cdef PyObject* hit = _dict_get(_slot_plans, cls)
    if hit != NULL:
        return <object>hit
    return _new_slot_plan(cls, names)


cdef object _new_slot_plan(object cls, tuple names):
    # apart from _slot_plan: the generator below makes Cython allocate a closure scope on
    # every call of the function that holds it
    import dataclasses, types
    plan = None
    if (isinstance(cls, type) and dataclasses.is_dataclass(cls)
            and tuple(f.name for f in dataclasses.fields(cls)) == names
            and not hasattr(cls, "__post_init__") and cls.__dataclass_params__.init
            and (<type>cls).__new__ is object.__new__):
        attrs = (<type>cls).__dict__
        if all(type(attrs.get(name)) is types.MemberDescriptorType for name in names):
            plan = tuple(attrs[name] for name in names)
    _slot_plans[cls] = plan
    return plan


cdef object _filled(object cls, tuple names, tuple values):
    """``cls(*values)``, with the slots set here when ``_slot_plan`` allows it."""
    return _made(cls, _slot_plan(cls, names), values)


cdef object _made(object cls, object plan, tuple values):
    """``cls(*values)``, or with ``plan`` (``_slot_plan``'s answer, looked up once per class per
    call) what the dataclass's generated ``__init__`` does (``object.__setattr__`` per field),
    minus the calls."""
    cdef Py_ssize_t i
    if plan is None:
        return cls(*values)
    r = nuif_type_alloc(cls)
    for i in range(len(<tuple>plan)):
        nuif_descr_set((<tuple>plan)[i], r, values[i])
    return r


cdef tuple _RESULT_FIELDS = ("canonical", "hash", "changed")
cdef tuple _REPORT_FIELDS = ("valid", "hash", "diagnostics", "truncated")
cdef tuple _INSPECTION_FIELDS = ("hash", "is_canonical", "input_bytes", "canonical_bytes",
                                 "node_count", "max_depth", "kinds", "root", "outline",
                                 "truncated")
cdef tuple _ENTRY_FIELDS = ("id", "kind", "depth", "children")
cdef tuple _REF_FIELDS = ("id", "kind")


cdef object _document_text(bytes b, object max_depth, object max_nodes,
                           unsigned char* digest=NULL, bint* got=NULL, list keep=None):
    """canonical_document for arguments ``_compiled_args`` accepted (tape mode).

    With ``digest``, a large text is also hashed while it is written (csrc/nuif_hashpipe.h):
    ``*got`` says whether ``digest`` holds its SHA-256.  With ``keep``, the parser of a valid
    document is appended to it, so its checked tape outlives the call (``inspect_summary``)."""
    cdef _Parser parser = _new_parser(b, _clamp_depth(max_depth, len(b)), max_depth, True)
    cdef Py_ssize_t node_limit = max_nodes if max_nodes < (1 << 40) else (1 << 40)
    cdef Check ck
    cdef StrSet ids
    parser.want_digest = digest != NULL  # before the walk, which may warm the text's follower
    parser.parse_tape()
    _check_prepare(parser, node_limit, &ck, &ids)
    try:
        # the §3 check first, or beside the writer when a follower hashes the text
        canonical = _write_canonical(parser, &ck)
    finally:
        _check_release(&ck, &ids)
    if canonical is None:
        return None
    if keep is not None:
        keep.append(parser)
    if digest != NULL:
        _hot_defer(parser)  # timed to the end of its hash: the caller calls _hot_settle
    else:
        _hot_done(parser)
    if parser.has_digest:
        memcpy(digest, parser.digest, 32)
        got[0] = True
    return canonical


cdef bint _same_bytes(object a, bytes b):
    """Whether the bytes objects ``a`` and ``b`` are equal (``changed`` and ``is_canonical``)."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(a)
    return n == PyBytes_GET_SIZE(b) and memcmp(PyBytes_AS_STRING(a), PyBytes_AS_STRING(b), n) == 0
