# Part of _speedups.pyx (included there): SHA-256 of canonical texts, as ``"sha256:"`` + hex.

# One SHA-256 (csrc/nuif_sha256.h), in every build: the canonical writer hashes its text while it
# writes it (csrc/nuif_write.h), so a document's hash comes here only as a digest to write in hex;
# other texts are hashed here, without the GIL from SHA_NOGIL bytes (a bytes object cannot
# change meanwhile), so threads that hash large texts run at once.
nuif_sha256_setup(0)
cdef Py_ssize_t SHA_NOGIL = 64 * 1024


cdef object _hash_text(object canonical, const unsigned char* known=NULL):
    """``"sha256:"`` + lowercase hex SHA-256 of ``canonical`` (a bytes-like object), or of the
    text whose digest ``known`` is (made while it was written)."""
    cdef unsigned char raw[32]
    cdef const uint8_t* d = raw
    cdef const char* p
    cdef Py_ssize_t n
    cdef char* o
    if known != NULL:
        d = known
    else:
        if type(canonical) is not bytes:
            canonical = bytes(memoryview(canonical))  # TypeError for what is not bytes-like
        p = PyBytes_AS_STRING(canonical)
        n = PyBytes_GET_SIZE(canonical)
        if n >= SHA_NOGIL:
            with nogil:
                nuif_sha256(p, <size_t>n, raw)
        else:
            nuif_sha256(p, <size_t>n, raw)
    s = PyUnicode_New(71, 127)
    o = <char*>PyUnicode_DATA(s)
    memcpy(o, b"sha256:", 7)
    nuif_hex32(o + 7, d)
    return s
