# Part of _speedups.pyx (included there): SHA-256 of canonical texts, as ``"sha256:"`` + hex.

# libcrypto directly (csrc/nuif_sha256.h), for texts up to SHA_DIRECT_MAX bytes, when its
# functions are bound (csrc/nuif_crypto.h): linked by the build, or else found at import in the
# libcrypto the interpreter loaded for hashlib (release wheels link none); larger texts go
# through hashlib, which releases the GIL while it hashes.  The canonical writer hashes its text
# with the same functions while it writes it (_speedups_write.pxi).  ``_set_openssl(False)`` switches to hashlib so the tests can compare the two.
def _bind_loaded_crypto(prefix=None):
    """Bind libcrypto's SHA-256 functions to the libcrypto the interpreter's hashlib uses (the
    one its ``_hashlib`` module depends on; hashlib has imported it already where it uses
    OpenSSL), else to the first loaded library whose file name starts with ``"libcrypto"``.
    With ``prefix`` (tests), only the latter, by that prefix.  Returns whether they are bound."""
    cdef bytes p = prefix.encode() if prefix is not None else b""
    cdef bytes via = b""
    try:
        import _hashlib
    except ImportError:  # an interpreter without OpenSSL: hashlib hashes
        _hashlib = None
    if prefix is None and isinstance(getattr(_hashlib, "__file__", None), str):
        via = _hashlib.__file__.encode()
    return nuif_crypto_bind(NUIF_CRYPTO_LOADED, via, p) == NUIF_CRYPTO_LOADED


if nuif_crypto_binding(NULL) == NUIF_CRYPTO_NONE and nuif_crypto_can(NUIF_CRYPTO_LOADED):
    _bind_loaded_crypto()
cdef bint _openssl = nuif_sha256_backend() == 1
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
    elif not (_openssl and type(canonical) is bytes
            and PyBytes_GET_SIZE(canonical) <= SHA_DIRECT_MAX
            and nuif_sha256(PyBytes_AS_STRING(canonical), PyBytes_GET_SIZE(canonical), raw) == 0):
        dg = _sha256(canonical).digest()
        if PyBytes_GET_SIZE(dg) != 32:  # pragma: no cover - hashlib's sha256 is SHA-256
            raise ValueError("hashlib.sha256 did not return 32 bytes")
        d = <const uint8_t*>PyBytes_AS_STRING(dg)
    s = PyUnicode_New(71, 127)
    o = <char*>PyUnicode_DATA(s)
    memcpy(o, b"sha256:", 7)
    nuif_hex32(o + 7, d)
    return s
