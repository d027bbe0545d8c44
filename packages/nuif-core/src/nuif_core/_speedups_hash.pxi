# Part of _speedups.pyx (included there): SHA-256 of canonical texts, as ``"sha256:"`` + hex.

# libcrypto directly (csrc/nuif_sha256.h: one kept context), for texts up to SHA_DIRECT_MAX
# bytes, where the build linked it; larger texts, and every text of a build that did not (release
# wheels), go through hashlib, which releases the GIL while it hashes.  The canonical writer
# hashes its text with libcrypto while it writes it (csrc/nuif_write.h), so a document's hash
# comes here only as a digest to write in hex.  ``_settings(openssl=False)`` switches to hashlib so
# the tests can compare the two.
cdef bint _openssl = nuif_sha256_linked() == 1
cdef Py_ssize_t SHA_DIRECT_MAX = 64 * 1024


cdef object _hash_text(object canonical, const unsigned char* known=NULL):
    """``"sha256:"`` + lowercase hex SHA-256: libcrypto's or hashlib's digest (or ``known``, the
    digest already computed while writing), hex written here."""
    cdef unsigned char raw[32]
    cdef const uint8_t* d = raw
    cdef char* o
    cdef bytes dg = None
    if known != NULL:
        d = known
    elif not (
        _openssl and type(canonical) is bytes
        and PyBytes_GET_SIZE(canonical) <= SHA_DIRECT_MAX
        and nuif_sha256(PyBytes_AS_STRING(canonical), PyBytes_GET_SIZE(canonical), raw) == 0
    ):
        dg = _sha256(canonical).digest()
        if PyBytes_GET_SIZE(dg) != 32:  # pragma: no cover - hashlib's sha256 is SHA-256
            raise ValueError("hashlib.sha256 did not return 32 bytes")
        d = <const uint8_t*>PyBytes_AS_STRING(dg)
    s = PyUnicode_New(71, 127)
    o = <char*>PyUnicode_DATA(s)
    memcpy(o, b"sha256:", 7)
    nuif_hex32(o + 7, d)
    return s
