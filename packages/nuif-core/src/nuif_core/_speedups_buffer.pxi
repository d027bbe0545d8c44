# Part of _speedups.pyx (included there): the growing output of the writer and the dumper, a
# bytes object resized in place.

# Output buffers of 4 MiB and more ask for transparent huge pages (csrc/nuif_scan.h): canonicalizing
# 16 MiB of ``ui`` took ~1,340 page faults per call for its fresh result, 5 with the hint (~4 %).
cdef bint _huge = True


@cython.final
@cython.freelist(4)  # one per call of the codec: reuse the object's memory
cdef class _Buf:
    cdef PyObject* ob           # the bytes object being filled (owned)
    cdef char* b                # its bytes
    cdef Py_ssize_t n           # bytes written
    cdef Py_ssize_t cap         # bytes allocated
    cdef nuif_hashpipe* pipe  # hashing b[0:n) on another thread (write), or NULL

    cdef int init(self, Py_ssize_t cap) except -1:
        """Set up a buffer made by ``_new_buf``."""
        if cap < 64:
            cap = 64
        self.ob = _bytes_new(NULL, cap)
        self.b = PyBytes_AS_STRING(<object>self.ob)
        self.n = 0
        self.cap = cap
        self.pipe = NULL
        if cap >= (4 << 20) and _huge:
            nuif_hint_huge(self.b, cap)
        return 0

    def __dealloc__(self):
        Py_XDECREF(self.ob)
        self.ob = NULL

    cdef int grow(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t need = self.n + extra
        cdef Py_ssize_t newcap = self.cap * 2
        if newcap < need:
            newcap = need
        if self.pipe != NULL:
            # the buffer may move: the hashing thread must not be reading it (it waits for the
            # feed below; on a MemoryError, write() stops it)
            nuif_hashpipe_hold(self.pipe)
        _PyBytes_Resize(&self.ob, newcap)
        self.b = PyBytes_AS_STRING(<object>self.ob)
        self.cap = newcap
        if self.pipe != NULL:
            nuif_hashpipe_feed(self.pipe, <const unsigned char*>self.b, self.n)
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

    cdef object finish(self):
        _PyBytes_Resize(&self.ob, self.n)
        r = <object>self.ob
        Py_DECREF(r)  # drop the buffer's own reference; r holds one
        self.ob = NULL
        return r


cdef _Buf _new_buf(Py_ssize_t cap):
    """A ``_Buf`` of ``cap`` bytes: the type's allocation (and freelist) without a Python-level
    call and argument parsing (~1,000 instructions less per codec call)."""
    cdef _Buf b = _Buf.__new__(_Buf)
    b.init(cap)
    return b
