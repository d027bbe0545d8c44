# Part of _speedups.pyx (included there): the growing output of the dumper (``dumps``); the
# pipeline's writer has its own (csrc/nuif_doc.h).
#
# A text is written into a scratch buffer that the module keeps between calls (up to
# SCRATCH_KEEP bytes), and copied once into a bytes object of its exact size at the end.  Writing
# straight into a bytes object allocated for the largest possible text and shrunk afterwards
# defeats glibc's reuse of freed memory: the shrunk result, once freed, sets malloc's mmap
# threshold just below the next call's allocation, so every call of 128 KiB and more gets fresh
# pages from the kernel, and each first write into one of them faults (docs/format.md, "The two
# codecs", has the figures; ``_settings(scratch_keep=0)`` shows the difference).  Texts larger
# than SCRATCH_KEEP are written straight into their bytes object (a copy would double the peak
# memory of a large call); those of 4 MiB and more ask for transparent huge pages
# (csrc/nuif_scan.h).
#: the largest scratch buffer kept for the next call
cdef Py_ssize_t SCRATCH_KEEP = 4 << 20
# the kept scratch buffer (owned by the module while no _Buf has it), or NULL
cdef char* _spare = NULL
cdef Py_ssize_t _spare_cap = 0


@cython.final
@cython.freelist(4)  # one per call of the codec: reuse the object's memory
cdef class _Buf:
    # Scratch mode (ob == NULL): b is a PyMem buffer of cap bytes, owned by this object.  Direct
    # mode: b is the data of the bytes object ob (owned), resized in place as it grows.
    cdef PyObject* ob           # the bytes object being filled (direct mode), or NULL
    cdef char* b                # the bytes being written
    cdef Py_ssize_t n           # bytes written
    cdef Py_ssize_t cap         # bytes allocated

    cdef int init(self, Py_ssize_t cap) except -1:
        """Set up a buffer made by ``_new_buf``."""
        global _spare, _spare_cap
        if cap < 64:
            cap = 64
        self.ob = NULL
        self.b = NULL
        self.n = 0
        if cap > SCRATCH_KEEP:
            self._direct(cap)
        elif _spare != NULL and _spare_cap >= cap:
            self.b = _spare
            self.cap = _spare_cap
            _spare = NULL
        else:
            self.b = <char*>PyMem_Malloc(cap)
            if self.b == NULL:
                raise MemoryError()
            self.cap = cap
        return 0

    cdef int _direct(self, Py_ssize_t cap) except -1:
        """Move to a bytes object of ``cap`` bytes holding what is written so far."""
        cdef PyObject* ob = _bytes_new(NULL, cap)
        cdef char* d = PyBytes_AS_STRING(<object>ob)
        if cap >= (4 << 20):
            nuif_hint_huge(d, cap)
        if self.n:
            memcpy(d, self.b, self.n)
        self._release()
        self.ob = ob
        self.b = d
        self.cap = cap
        return 0

    cdef void _release(self) noexcept:
        """Give up the scratch buffer (kept for the next call when it is not too large)."""
        global _spare, _spare_cap
        if self.ob != NULL or self.b == NULL:
            return
        if self.cap <= SCRATCH_KEEP and (_spare == NULL or _spare_cap < self.cap):
            PyMem_Free(_spare)
            _spare = self.b
            _spare_cap = self.cap
        else:
            PyMem_Free(self.b)
        self.b = NULL

    def __dealloc__(self):
        self._release()
        Py_XDECREF(self.ob)
        self.ob = NULL

    cdef int grow(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t need = self.n + extra
        cdef Py_ssize_t newcap = self.cap * 2
        cdef char* q
        if newcap < need:
            newcap = need
        if self.ob != NULL:
            _PyBytes_Resize(&self.ob, newcap)
            self.b = PyBytes_AS_STRING(<object>self.ob)
            self.cap = newcap
        elif newcap > SCRATCH_KEEP:
            self._direct(newcap)
        else:
            q = <char*>PyMem_Realloc(self.b, newcap)
            if q == NULL:
                raise MemoryError()
            self.b = q
            self.cap = newcap
        return 0

    cdef inline char* reserve(self, Py_ssize_t extra) except NULL:
        if self.n + extra > self.cap:
            self.grow(extra)
        return self.b + self.n

    cdef inline int put(self, const char* s, Py_ssize_t L) except -1:
        if self.n + L > self.cap:
            self.grow(L)
        memcpy(self.b + self.n, s, L)
        self.n += L
        return 0

    cdef inline int putc(self, char c) except -1:
        if self.n + 1 > self.cap:
            self.grow(1)
        self.b[self.n] = c
        self.n += 1
        return 0

    cdef object copy_out(self):
        """In scratch mode, the text as a new bytes object, the scratch left as it is; None in
        direct mode."""
        cdef PyObject* ob
        if self.ob != NULL:
            return None
        ob = _bytes_new(NULL, self.n)
        if self.n >= (4 << 20):
            nuif_hint_huge(PyBytes_AS_STRING(<object>ob), self.n)
        memcpy(PyBytes_AS_STRING(<object>ob), self.b, self.n)
        r = <object>ob
        Py_DECREF(r)  # drop the reference _bytes_new gave; r holds one
        return r

    cdef object finish(self):
        """The text as a bytes object of its size; the buffer is spent."""
        cdef PyObject* ob
        if self.ob == NULL:
            r = self.copy_out()
            self._release()
            return r
        _PyBytes_Resize(&self.ob, self.n)
        ob = self.ob
        self.ob = NULL
        self.b = NULL
        r = <object>ob
        Py_DECREF(r)  # drop the reference _bytes_new gave; r holds one
        return r


cdef _Buf _new_buf(Py_ssize_t cap):
    """A ``_Buf`` of ``cap`` bytes: the type's allocation (and freelist) without a Python-level
    call and argument parsing (~1,000 instructions less per codec call)."""
    cdef _Buf b = _Buf.__new__(_Buf)
    b.init(cap)
    return b
