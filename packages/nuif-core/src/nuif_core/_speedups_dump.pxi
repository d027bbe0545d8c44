# Part of _speedups.pyx (included there): the value dumper (``dumps``), Python values to canonical
# bytes.  It recurses (guarded by Py_EnterRecursiveCall and the depth limit) and keeps the path to
# the current value as a chain of PathNode on the C stack, for the pointer of an error.

ctypedef struct PathNode:
    PathNode* up
    PyObject* key       # borrowed (kept alive by the caller), or NULL for an index
    Py_ssize_t index


cdef object _path_list(PathNode* node):
    parts = []
    while node != NULL:
        if node.key != NULL:
            parts.append(<object>node.key)
        else:
            parts.append(node.index)
        node = node.up
    parts.reverse()
    return parts


cdef object _path_pointer(PathNode* node):
    return join_pointer(_path_list(node))


@cython.final
cdef class _Dumper:
    cdef _Buf out
    cdef Py_ssize_t max_depth
    cdef object max_depth_obj
    cdef KeyEntry* sort_buf  # scratch of the key sort (reused by nested dicts)
    cdef Py_ssize_t sort_cap

    def __cinit__(self, Py_ssize_t max_depth, object max_depth_obj):
        self.out = _new_buf(256)
        self.max_depth = max_depth
        self.max_depth_obj = max_depth_obj
        self.sort_buf = NULL
        self.sort_cap = 0

    def __dealloc__(self):
        PyMem_Free(self.sort_buf)

    cdef int too_deep(self, PathNode* node) except -1:
        raise NuifError(
            "NUIF_DEPTH",
            DEPTH.format(self.max_depth_obj),
            pointer=_path_pointer(node),
        )

    cdef int check_utf8(self, const char* u, Py_ssize_t L, PathNode* node) except -1:
        """Noncharacter check of a str's UTF-8 (lone surrogates were caught before)."""
        cdef Py_ssize_t cp = nuif_first_nonchar(<const uint8_t*>u, L)
        if cp >= 0:
            raise NuifError(
                "NUIF_UNICODE",
                NONCHARACTER.format(cp),
                pointer=_path_pointer(node),
            )
        return 0

    cdef const char* str_utf8(self, object s, Py_ssize_t* L, PathNode* node) except NULL:
        cdef const char* u
        try:
            u = PyUnicode_AsUTF8AndSize(s, L)
        except UnicodeEncodeError:
            # only a lone surrogate has no UTF-8: name the first one
            for ch in s:
                if 0xD800 <= ord(ch) <= 0xDFFF:
                    raise NuifError("NUIF_UNICODE", LONE_SURROGATE.format(ord(ch)),
                                    pointer=_path_pointer(node)) from None
            raise
        if not PyUnicode_IS_ASCII(s):
            self.check_utf8(u, L[0], node)
        return u

    cdef int write_str(self, const char* u, Py_ssize_t L) except -1:
        cdef char* o
        cdef const uint8_t* s = <const uint8_t*>u
        if nuif_plain_len(s, L) == L:
            o = self.out.reserve(L + 2)
            o[0] = 0x22
            memcpy(o + 1, u, L)
            o[L + 1] = 0x22
            self.out.n += L + 2
        else:
            o = self.out.reserve(6 * L + 2)
            o[0] = 0x22
            L = nuif_escape_into(o + 1, s, L) + 1
            o[L] = 0x22
            self.out.n += L + 1
        return 0

    cdef int write_int(self, object v, PathNode* node) except -1:
        cdef int overflow = 0
        cdef long long x = PyLong_AsLongLongAndOverflow(v, &overflow)
        cdef unsigned long long ux
        cdef char tmp[24]
        cdef int k = 24
        if overflow or x > 9007199254740991 or x < -9007199254740991:
            return self.write_big_int(v, node)
        ux = <unsigned long long>(-x) if x < 0 else <unsigned long long>x
        while True:
            k -= 1
            tmp[k] = <char>(0x30 + ux % 10)
            ux //= 10
            if ux == 0:
                break
        if x < 0:
            k -= 1
            tmp[k] = 0x2D
        self.out.put(tmp + k, 24 - k)
        return 0

    cdef int write_big_int(self, object v, PathNode* node) except -1:
        """An int beyond ±(2^53 - 1): written when its digits are the RFC 8785 text of a double,
        as a text holding them would be read (NUIF-0.1); else NUIF_NUMBER."""
        cdef double x
        cdef char nearest[NUMBER_TEXT_MAX]
        cdef Py_ssize_t n = 0
        v = int.__index__(v)  # the digits it holds: not a subclass's own __int__ or __repr__
        if v.bit_length() <= 1100:  # 2^1100 and beyond overflow a double (and str() refuses
            text = str(v).encode("ascii")  # ints of more than 4300 digits)
            n = _big_integer(<const uint8_t*>PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text),
                             &x, nearest)
            if n < 0:
                self.out.put(PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text))
                return 0
        raise NuifError(
            "NUIF_NUMBER",
            big_integer_message(int_shown(v), nearest[:n].decode("ascii") if n else None),
            pointer=_path_pointer(node),
        )

    cdef int write_float(self, object v, PathNode* node) except -1:
        cdef double x = PyFloat_AS_DOUBLE(v)
        cdef char* o
        if not isfinite(x):
            raise NuifError("NUIF_NUMBER", NOT_A_NUMBER.format(v), pointer=_path_pointer(node))
        o = self.out.reserve(NUMBER_TEXT_MAX)
        self.out.n += _fmt_double(o, x)
        return 0

    cdef int dump(self, object v, Py_ssize_t depth, PathNode* node) except -1:
        cdef type t
        cdef const char* u
        cdef Py_ssize_t L
        if v is None:
            self.out.put(b"null", 4)
            return 0
        if v is True:
            self.out.put(b"true", 4)
            return 0
        if v is False:
            self.out.put(b"false", 5)
            return 0
        t = type(v)
        if t is str:
            u = self.str_utf8(v, &L, node)
            return self.write_str(u, L)
        if t is int:
            return self.write_int(v, node)
        if t is float:
            return self.write_float(v, node)
        if t is dict or t is list or t is tuple:
            return self.container(v, depth, node)
        if isinstance(v, str):
            u = self.str_utf8(v, &L, node)
            return self.write_str(u, L)
        if isinstance(v, int):
            self.write_int(v, node)  # checks the range on the value itself
            return 0
        if isinstance(v, float):
            return self.write_float(v, node)
        if isinstance(v, (dict, list, tuple)):
            return self.container(v, depth, node)
        raise NuifError(
            "NUIF_VALUE",
            NO_JSON_VALUE.format(type(v).__name__),
            pointer=_path_pointer(node),
        )

    cdef int container(self, object v, Py_ssize_t depth, PathNode* node) except -1:
        if depth >= self.max_depth:
            self.too_deep(node)
        Py_EnterRecursiveCall(" while writing canonical JSON")
        try:
            if isinstance(v, dict):
                self.write_dict(v, depth, node)
            else:
                self.write_seq(v, depth, node)
        finally:
            Py_LeaveRecursiveCall()
        return 0

    cdef int write_seq(self, object v, Py_ssize_t depth, PathNode* node) except -1:
        cdef PathNode child
        cdef Py_ssize_t index = 0
        child.up = node
        child.key = NULL
        self.out.putc(0x5B)
        if type(v) is list or type(v) is tuple:
            items = v if type(v) is tuple else list(<list>v)  # a snapshot: values stay alive
        else:
            items = v
        for item in items:
            if index:
                self.out.putc(0x2C)
            child.index = index
            self.dump(item, depth + 1, &child)
            index += 1
        self.out.putc(0x5D)
        return 0

    cdef int write_dict(self, object v, Py_ssize_t depth, PathNode* node) except -1:
        cdef PathNode child
        cdef Py_ssize_t cnt, m, L
        cdef const char* u
        cdef KeyEntry* e
        cdef bint fallback = False
        cdef list keys
        cdef list values = None
        if type(v) is dict:
            keys = list((<dict>v).keys())
            values = list((<dict>v).values())
        else:
            keys = [key for key in v]
        for key in keys:
            if not isinstance(key, str):
                raise NuifError(
                    "NUIF_VALUE",
                    KEY_NOT_STR.format(type(key).__name__),
                    pointer=_path_pointer(node),
                )
        cnt = len(keys)
        child.up = node
        child.index = 0
        self.out.putc(0x7B)
        if cnt > 0:
            if 2 * cnt > self.sort_cap:
                PyMem_Free(self.sort_buf)
                self.sort_buf = NULL
                self.sort_cap = 0
                self.sort_buf = <KeyEntry*>PyMem_Malloc(2 * cnt * sizeof(KeyEntry))
                if self.sort_buf == NULL:
                    raise MemoryError()
                self.sort_cap = 2 * cnt
            e = self.sort_buf
            for m in range(cnt):
                try:
                    u = PyUnicode_AsUTF8AndSize(keys[m], &L)
                except UnicodeEncodeError:
                    fallback = True
                    break
                if L > 0xFFFFFFFF:
                    fallback = True
                    break
                e[m].ptr = <const uint8_t*>u
                e[m].len = <uint32_t>L
                e[m].tok = <uint32_t>m
            if fallback:
                order = sorted(range(cnt), key=[utf16_key(k) for k in keys].__getitem__)
            else:
                # the sort buffer may be reused by nested dicts: copy the order out first
                nuif_sort_keys(e, e + cnt, cnt)
                order = [e[m].tok for m in range(cnt)]
            first = True
            for m in order:
                key = keys[m]
                child.key = <PyObject*>key
                u = self.str_utf8(key, &L, &child)
                if not first:
                    self.out.putc(0x2C)
                first = False
                self.write_str(u, L)
                self.out.putc(0x3A)
                if values is not None:
                    self.dump(values[m], depth + 1, &child)
                else:
                    self.dump(v[key], depth + 1, &child)
        self.out.putc(0x7D)
        return 0
