# Part of _speedups.pyx (included there): the result objects of the one-call entry points: a
# frozen slots dataclass's instance is allocated and its slots set here (glue/nuif_slots.h), else
# the class is called.

# Result classes whose instances are filled here: class -> tuple of the member descriptors of its
# fields (in order), or None when the class must be called instead; and the last class looked up
# with its plan (most calls make the same class as the call before).
cdef dict _slot_plans = {}
cdef object _last_plan_cls = None
cdef object _last_plan = None


cdef inline object _slot_plan(object cls, tuple names):
    """The member descriptors of ``names`` when ``cls`` is a frozen slots dataclass whose fields
    are exactly ``names``, each a plain slot (``nuif_slot_offset``), and whose generated
    ``__init__`` only sets them (no ``__post_init__``, no custom ``__new__``); else None.
    Decided once per class (``_new_slot_plan``)."""
    global _last_plan_cls, _last_plan
    cdef PyObject* hit
    if cls is _last_plan_cls:
        return _last_plan
    hit = _dict_get(_slot_plans, cls)
    plan = <object>hit if hit != NULL else _new_slot_plan(cls, names)
    _last_plan_cls = cls
    _last_plan = plan
    return plan


cdef object _new_slot_plan(object cls, tuple names):
    # apart from _slot_plan: the generator below makes Cython allocate a closure scope on
    # every call of the function that holds it
    import dataclasses
    plan = None
    if (isinstance(cls, type) and dataclasses.is_dataclass(cls)
            and tuple(f.name for f in dataclasses.fields(cls)) == names
            and not hasattr(cls, "__post_init__") and cls.__dataclass_params__.init
            and (<type>cls).__new__ is object.__new__):
        attrs = (<type>cls).__dict__
        if all(attrs.get(name) is not None and nuif_slot_offset(attrs[name]) > 0
               for name in names):
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
        nuif_slot_put((<tuple>plan)[i], r, values[i])
    return r


cdef object _made3(object cls, tuple names, object a, object b, object c):
    """``_filled(cls, names, (a, b, c))`` without the tuple (the results of three fields)."""
    plan = _slot_plan(cls, names)
    if plan is None:
        return cls(a, b, c)
    r = nuif_type_alloc(cls)
    nuif_slot_put((<tuple>plan)[0], r, a)
    nuif_slot_put((<tuple>plan)[1], r, b)
    nuif_slot_put((<tuple>plan)[2], r, c)
    return r


cdef object _made4(object cls, tuple names, object a, object b, object c, object d):
    """``_filled(cls, names, (a, b, c, d))`` without the tuple (a valid report's four fields)."""
    plan = _slot_plan(cls, names)
    if plan is None:
        return cls(a, b, c, d)
    r = nuif_type_alloc(cls)
    nuif_slot_put((<tuple>plan)[0], r, a)
    nuif_slot_put((<tuple>plan)[1], r, b)
    nuif_slot_put((<tuple>plan)[2], r, c)
    nuif_slot_put((<tuple>plan)[3], r, d)
    return r


cdef tuple _RESULT_FIELDS = ("canonical", "hash", "changed")
cdef tuple _REPORT_FIELDS = ("valid", "hash", "diagnostics", "truncated")
cdef tuple _INSPECTION_FIELDS = ("hash", "is_canonical", "input_bytes", "canonical_bytes",
                                 "node_count", "max_depth", "kinds", "root", "outline",
                                 "truncated")
cdef tuple _ENTRY_FIELDS = ("id", "kind", "depth", "children")
cdef tuple _REF_FIELDS = ("id", "kind")


cdef inline Py_ssize_t _clamp_count(object v) except? -1:
    """An int limit as a C integer, at most 2**40 (``min(v, 1 << 40)`` without comparing Python
    ints; below the C range, the conversion raises OverflowError as it would)."""
    cdef int overflow = 0
    cdef long long x = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow > 0 or (overflow == 0 and x >= (1 << 40)):
        return 1 << 40
    if overflow == 0:
        return <Py_ssize_t>x
    return v


cdef bint _same_bytes(object a, bytes b):
    """Whether the bytes objects ``a`` and ``b`` are equal (``changed`` and ``is_canonical``)."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(a)
    return n == PyBytes_GET_SIZE(b) and memcmp(PyBytes_AS_STRING(a), PyBytes_AS_STRING(b), n) == 0
