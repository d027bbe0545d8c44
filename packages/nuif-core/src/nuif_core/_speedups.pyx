# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The compiled codec: strict I-JSON parser and RFC 8785 writer.

Behaviour (bytes and errors) is defined by the pure-Python twin ``_codec_py``; read its module
docstring for the error procedure.  This module follows the same procedure:

1. UTF-8 validation of the whole text (first bad byte, as Python's decoder reports it);
2. the byte-order mark;
3. one iterative left-to-right scan (an explicit stack, never C recursion) that either builds
   Python objects (``loads``) or a compact token tape (``canonical_json``).

The tape holds one 16-byte token per value or member name: scalars keep offsets into the input
(or into an arena of decoded strings when a string has escapes); containers keep the index just
past their subtree; objects also point at a run of an ``order`` array holding their member-name
tokens sorted by UTF-16 code units (sorted when the object closes, which is also where duplicate
names are found).  The writer walks the tape with an explicit stack and appends canonical bytes
to a growing ``bytes`` object.

Error paths call back into Python (``text_error``, ``describe_found`` and the twin's message
helpers) so messages, pointers, lines and columns are identical to the twin's.
"""

cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t
from libc.string cimport memcpy, memcmp, strlen
from libc.math cimport isinf, isfinite
from cpython.object cimport PyObject
from cpython.ref cimport Py_XDECREF, Py_DECREF, Py_INCREF
from cpython.mem cimport PyMem_Malloc, PyMem_Calloc, PyMem_Realloc, PyMem_Free
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.list cimport PyList_Append
from cpython.dict cimport PyDict_SetItem, PyDict_Next

cdef extern from "Python.h":
    double PyOS_string_to_double(const char* s, char** endptr, PyObject* overflow_exception) except? -1.0
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags, int* ptype) except NULL
    PyObject* _bytes_new "PyBytes_FromStringAndSize"(const char* v, Py_ssize_t n) except NULL
    int _PyBytes_Resize(PyObject** b, Py_ssize_t n) except -1
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    const char* PyUnicode_AsUTF8AndSize(object o, Py_ssize_t* size) except NULL
    bint PyUnicode_IS_ASCII(object o)
    Py_ssize_t PyDict_GET_SIZE(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    double PyFloat_AS_DOUBLE(object o)
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1
    int Py_EnterRecursiveCall(const char* where) except -1
    void Py_LeaveRecursiveCall()
    int PyGC_Disable()
    int PyGC_Enable()
    const Py_ssize_t PY_SSIZE_T_MAX
    # a borrowed reference, NULL when absent (or on an error: unhashable key)
    PyObject* _dict_get "PyDict_GetItemWithError"(object d, object key) except? NULL

cdef extern from "nuif_scan.h":
    void nuif_hint_huge(void* p, size_t n) noexcept nogil
    int nuif_scan_sse2() noexcept nogil
    Py_ssize_t nuif_ascii_run(const uint8_t* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil
    Py_ssize_t nuif_skip_ws(const uint8_t* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil
    Py_ssize_t nuif_str_run(const uint8_t* p, Py_ssize_t j, Py_ssize_t n, int* hi) noexcept nogil
    void nuif_copy16(char* dst, const uint8_t* src, Py_ssize_t L) noexcept nogil
    int nuif_name16(const uint8_t* s, Py_ssize_t L, int attr) noexcept nogil
    # count of trailing zero bits (x != 0): the compiler's builtin, else a portable fallback
    unsigned NUIF_CTZ64(uint64_t x) noexcept nogil

cdef extern from "nuif_hashpipe.h":
    ctypedef struct nuif_hashpipe:
        pass
    nuif_hashpipe* nuif_hashpipe_start() noexcept nogil
    void nuif_hashpipe_feed(nuif_hashpipe* hp, const unsigned char* base, size_t n) noexcept nogil
    void nuif_hashpipe_hold(nuif_hashpipe* hp) noexcept nogil
    int nuif_hashpipe_finish(nuif_hashpipe* hp, const unsigned char* base, size_t n,
                             unsigned char* digest) noexcept nogil
    void nuif_hashpipe_abort(nuif_hashpipe* hp) noexcept nogil
    int nuif_hashpipe_available() noexcept nogil

cdef extern from "nuif_utf8.h":
    int nuif_utf8_route() noexcept nogil
    int nuif_utf8_valid(const uint8_t* p, size_t n, int route) noexcept nogil

cdef extern from "nuif_float.h":
    int nuif_parse_double(const char* s, size_t n, double* out) noexcept nogil
    int nuif_shortest_double(double x, char* buf) noexcept nogil
    int nuif_float_backend() noexcept nogil

from nuif_core._errors import NuifError, join_pointer, text_error
from nuif_core._messages import describe_found
# The twin (``_codec_py``) owns the message texts; it is imported on the first error only, so that
# importing the compiled codec stays cheap.
cdef object _twin_mod = None


cdef object _tw():
    global _twin_mod
    if _twin_mod is None:
        from nuif_core import _codec_py
        _twin_mod = _codec_py
    return _twin_mod


__all__ = [
    "canonical_document", "canonical_json", "canonical_result", "dumps", "float_backend",
    "hash_backend", "hash_bytes", "hashpipe_backend", "inspect_summary", "loads", "scan_backend",
    "utf8_backend", "valid_report",
]

# ---------------------------------------------------------------------------------------------
# constants and tables

cdef enum:
    T_NULL = 0
    T_FALSE = 1
    T_TRUE = 2
    T_INT = 3
    T_FLT = 4
    T_STR = 5
    T_ARR = 6
    T_OBJ = 7

cdef enum:
    F_ESC = 1        # string bytes live in the arena (the text had escapes)
    F_NEEDS_ESC = 2  # decoded string holds '"', '\\' or a control character
    F_DBL = 4        # number: the double is stored in the dbl array (slow path)
    F_NEGZERO = 8    # integer literal "-0"
    F_SKIP = 16      # member name: the writer omits this member (NUIF §3 normalization)
    F_LIT = 32       # number: its canonical text is the first b bytes of the literal

cdef enum:
    C_PLAIN = 0
    C_QUOTE = 1
    C_BSLASH = 2
    C_CTRL = 3
    C_EF = 4
    C_F0 = 5

cdef uint64_t ONES = 0x0101010101010101ULL
cdef uint64_t HIGHS = 0x8080808080808080ULL
cdef uint64_t SPACES = 0x2020202020202020ULL
cdef uint64_t QUOTES = 0x2222222222222222ULL
cdef uint64_t BSLASHES = 0x5C5C5C5C5C5C5C5CULL

# a UTF-8 string's maximum byte count in canonical output
cdef Py_ssize_t LIMIT_TAPE = 0xFFFFFF00

cdef uint8_t STR_CLS[256]
cdef uint8_t OUT_ESC[256]   # 1 when the byte must be escaped in a JSON string
cdef uint8_t HEXVAL[256]    # 0..15, or 255

cdef void _init_tables() noexcept:
    cdef int c
    for c in range(256):
        STR_CLS[c] = C_PLAIN
        OUT_ESC[c] = 0
        HEXVAL[c] = 255
    for c in range(0x20):
        STR_CLS[c] = C_CTRL
        OUT_ESC[c] = 1
    STR_CLS[0x22] = C_QUOTE
    STR_CLS[0x5C] = C_BSLASH
    OUT_ESC[0x22] = 1
    OUT_ESC[0x5C] = 1
    STR_CLS[0xEF] = C_EF
    for c in range(0xF0, 0xF5):
        STR_CLS[c] = C_F0
    for c in range(10):
        HEXVAL[0x30 + c] = c
    for c in range(6):
        HEXVAL[0x41 + c] = 10 + c
        HEXVAL[0x61 + c] = 10 + c

_init_tables()

# NUIF §3 name rules as byte classes (``_document.ID_RE``, ``KIND_RE``, ``ATTR_RE``; ASCII only)
cdef enum:
    N_ID_FIRST = 1     # [A-Za-z0-9_]
    N_ID_REST = 2      # [A-Za-z0-9_.:-]
    N_ATTR_FIRST = 4   # [A-Za-z_$@]
    N_ATTR_REST = 8    # [A-Za-z0-9_$@.:-]
    N_KIND_ALPHA = 16  # [a-z]
    N_KIND_REST = 32   # [a-z0-9-]
    N_KIND_SEP = 64    # [.:/]

cdef uint8_t NAME_CLS[256]

cdef void _init_name_tables() noexcept:
    cdef int c
    for c in range(256):
        NAME_CLS[c] = 0
    for c in range(0x41, 0x5B):  # A-Z
        NAME_CLS[c] |= N_ID_FIRST | N_ID_REST | N_ATTR_FIRST | N_ATTR_REST
    for c in range(0x61, 0x7B):  # a-z
        NAME_CLS[c] |= (N_ID_FIRST | N_ID_REST | N_ATTR_FIRST | N_ATTR_REST | N_KIND_ALPHA
                        | N_KIND_REST)
    for c in range(0x30, 0x3A):  # 0-9
        NAME_CLS[c] |= N_ID_FIRST | N_ID_REST | N_ATTR_REST | N_KIND_REST
    NAME_CLS[0x5F] |= N_ID_FIRST | N_ID_REST | N_ATTR_FIRST | N_ATTR_REST  # _
    NAME_CLS[0x24] |= N_ATTR_FIRST | N_ATTR_REST  # $
    NAME_CLS[0x40] |= N_ATTR_FIRST | N_ATTR_REST  # @
    NAME_CLS[0x2E] |= N_ID_REST | N_ATTR_REST | N_KIND_SEP  # .
    NAME_CLS[0x3A] |= N_ID_REST | N_ATTR_REST | N_KIND_SEP  # :
    NAME_CLS[0x2D] |= N_ID_REST | N_ATTR_REST | N_KIND_REST  # -
    NAME_CLS[0x2F] |= N_KIND_SEP  # /

_init_name_tables()


cdef inline bint _name_ok(const uint8_t* s, Py_ssize_t L, Py_ssize_t max_len, uint8_t first,
                          uint8_t rest) noexcept nogil:
    """``^[first][rest]*$`` over 1..max_len bytes (ids and attribute names)."""
    cdef Py_ssize_t i
    if L < 1 or L > max_len or not (NAME_CLS[s[0]] & first):
        return False
    for i in range(1, L):
        if not (NAME_CLS[s[i]] & rest):
            return False
    return True


cdef inline bint _name_ok_at(const uint8_t* s, Py_ssize_t L, const uint8_t* lim, bint attr) noexcept nogil:
    """``_name_ok`` of an id (attr False) or attribute name of at most 128 bytes; names of up to
    16 bytes that can be read 16 bytes wide (s + 16 <= lim) are checked without a loop."""
    cdef int r
    if L < 1 or L > 128 or not (NAME_CLS[s[0]] & (N_ATTR_FIRST if attr else N_ID_FIRST)):
        return False
    if L <= 16 and s + 16 <= lim:
        r = nuif_name16(s, L, attr)
        if r >= 0:
            return r
    if attr:
        return _name_ok(s, L, 128, N_ATTR_FIRST, N_ATTR_REST)
    return _name_ok(s, L, 128, N_ID_FIRST, N_ID_REST)


cdef inline bint _kind_ok(const uint8_t* s, Py_ssize_t L) noexcept nogil:
    """``^[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*$`` over 1..64 bytes."""
    cdef Py_ssize_t i
    cdef bint need_alpha = True
    cdef uint8_t k
    if L < 1 or L > 64:
        return False
    for i in range(L):
        k = NAME_CLS[s[i]]
        if need_alpha:
            if not (k & N_KIND_ALPHA):
                return False
            need_alpha = False
        elif k & N_KIND_SEP:
            need_alpha = True
        elif not (k & N_KIND_REST):
            return False
    return not need_alpha


cdef inline uint64_t _fnv(const uint8_t* s, Py_ssize_t L) noexcept nogil:
    cdef uint64_t h = 0xcbf29ce484222325ULL
    cdef Py_ssize_t i
    for i in range(L):
        h = (h ^ s[i]) * 0x100000001b3ULL
    return h ^ (h >> 29)


cdef uint64_t* _table_grow(uint64_t* tab, Py_ssize_t cap, Py_ssize_t** vals) except NULL:
    """Double an open-addressing table of nonzero entries ``(32-bit hash << 32) | payload`` (0 =
    empty; linear probing from the hash's low bits) and free the old one; ``*vals``, when not
    NULL, is a parallel array of per-slot values moved along (and replaced the same way)."""
    cdef Py_ssize_t ncap = 2 * cap, j, slot
    cdef uint64_t x
    cdef uint64_t* ntab = <uint64_t*>PyMem_Calloc(ncap, sizeof(uint64_t))
    cdef Py_ssize_t* nvals = NULL
    if ntab != NULL and vals != NULL:
        nvals = <Py_ssize_t*>PyMem_Malloc(ncap * sizeof(Py_ssize_t))
    if ntab == NULL or (vals != NULL and nvals == NULL):
        PyMem_Free(ntab)
        raise MemoryError()
    for j in range(cap):
        x = tab[j]
        if x:
            slot = <Py_ssize_t>((x >> 32) & <uint64_t>(ncap - 1))
            while ntab[slot]:
                slot = (slot + 1) & (ncap - 1)
            ntab[slot] = x
            if vals != NULL:
                nvals[slot] = vals[0][j]
    PyMem_Free(tab)
    if vals != NULL:
        PyMem_Free(vals[0])
        vals[0] = nvals
    return ntab

cdef const char* HEXDIGITS = b"0123456789abcdef"


cdef inline uint64_t _load64(const uint8_t* p) noexcept nogil:
    cdef uint64_t w
    memcpy(&w, p, 8)
    return w


cdef inline uint64_t _haszero(uint64_t v) noexcept nogil:
    return (v - ONES) & ~v & HIGHS


cdef inline uint64_t _str_special(uint64_t w) noexcept nogil:
    """Marks (0x80 per byte) '"', '\\', control characters and bytes >= 0xEF (the lead bytes of
    possible noncharacters).  Bits above the lowest may be false: only use its position."""
    return (((w - 0x2020202020202020ULL) & ~w) | _haszero(w ^ QUOTES) | _haszero(w ^ BSLASHES)
            | (((w & 0x7F7F7F7F7F7F7F7FULL) + 0x1111111111111111ULL) & w)) & HIGHS


cdef inline uint64_t _out_special(uint64_t w) noexcept nogil:
    """Nonzero when a word holds '"', '\\' or a control character (non-ASCII bytes are fine)."""
    return (((w - 0x2020202020202020ULL) & ~w) | _haszero(w ^ QUOTES) | _haszero(w ^ BSLASHES)) & HIGHS


# ---------------------------------------------------------------------------------------------
# UTF-8 validation (same first-bad-byte offset as Python's strict decoder)

cdef Py_ssize_t _utf8_bad(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0, end
    cdef uint8_t c, c1
    cdef uint64_t w
    end = 0
    while i < n:
        if i >= end:
            if i + 16 <= n and ((_load64(p + i) | _load64(p + i + 8)) & HIGHS) == 0:
                i += 16
                continue
            end = i + 32
        if i + 8 <= n:
            w = _load64(p + i)
            # four 2-byte sequences (lead C2..DF, then a continuation byte)
            if ((w & 0xC0E0C0E0C0E0C0E0ULL) == 0x80C080C080C080C0ULL and
                    ((w & 0x001E001E001E001EULL) + 0x7FFF7FFF7FFF7FFFULL) & 0x8000800080008000ULL
                    == 0x8000800080008000ULL):
                i += 8
                continue
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        if c < 0xC2:
            return i
        if c < 0xE0:
            if i + 1 >= n or (p[i + 1] & 0xC0) != 0x80:
                return i
            i += 2
            continue
        if i + 1 >= n:
            return i
        c1 = p[i + 1]
        if c < 0xF0:
            if c == 0xE0:
                if c1 < 0xA0 or c1 > 0xBF:
                    return i
            elif c == 0xED:
                if c1 < 0x80 or c1 > 0x9F:
                    return i
            elif (c1 & 0xC0) != 0x80:
                return i
            if i + 2 >= n or (p[i + 2] & 0xC0) != 0x80:
                return i
            i += 3
            continue
        if c < 0xF5:
            if c == 0xF0:
                if c1 < 0x90 or c1 > 0xBF:
                    return i
            elif c == 0xF4:
                if c1 < 0x80 or c1 > 0x8F:
                    return i
            elif (c1 & 0xC0) != 0x80:
                return i
            if i + 2 >= n or (p[i + 2] & 0xC0) != 0x80:
                return i
            if i + 3 >= n or (p[i + 3] & 0xC0) != 0x80:
                return i
            i += 4
            continue
        return i
    return -1


# the fast check: a lead byte's sequence length (0: never a lead byte), the continuation-byte
# masks of a little-endian 32-bit load at the lead byte, and the lead bytes whose second byte
# has a narrower range (E0: no overlong, ED: no surrogate, F0: no overlong, F4: <= U+10FFFF)
cdef uint8_t U8_LEN[256]
cdef uint8_t U8_NARROW[256]
cdef uint32_t[5] U8_MASK = [0, 0, 0xC000, 0xC0C000, 0xC0C0C000]
cdef uint32_t[5] U8_WANT = [0, 0, 0x8000, 0x808000, 0x80808000]

cdef void _init_utf8_tables() noexcept:
    cdef int c
    for c in range(256):
        U8_LEN[c] = 1 if c < 0x80 else (2 if 0xC2 <= c <= 0xDF else (3 if 0xE0 <= c <= 0xEF else (
            4 if 0xF0 <= c <= 0xF4 else 0)))
        U8_NARROW[c] = 1 if c in (0xE0, 0xED, 0xF0, 0xF4) else 0

_init_utf8_tables()


# The verdict comes from csrc/nuif_utf8.h's vector check (AVX2 or SSSE3, chosen once at import
# from what the CPU has) where the build compiled it, else from the scalar loop below; the two
# always agree.  ``_set_utf8_route`` switches routes so the tests can compare them.
cdef int _utf8_route = nuif_utf8_route()
cdef tuple _UTF8_ROUTES = ("scalar", "ssse3", "avx2")


def utf8_backend():
    """``"avx2"``, ``"ssse3"`` or ``"scalar"``: which route checks that a whole input is UTF-8."""
    return _UTF8_ROUTES[_utf8_route]


def _set_utf8_route(str route):
    """Testing only: check UTF-8 with ``route`` (``"scalar"``, or a vector route that is no better
    than what this CPU and build allow); returns the old route's name."""
    global _utf8_route
    cdef str old = _UTF8_ROUTES[_utf8_route]
    cdef int r = _UTF8_ROUTES.index(route)
    if r > nuif_utf8_route():
        raise ValueError(f"this CPU or build cannot check UTF-8 with {route}")
    _utf8_route = r
    return old


cdef bint _utf8_ok(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """True when p[0:n] is valid UTF-8 (the same verdict as ``_utf8_bad(p, n) < 0``).

    The vector route when there is one; else one pass with few branches per character: ASCII
    runs skip 8 bytes at a time; a multi-byte sequence is checked with one table lookup and one
    masked 32-bit load.  ``_utf8_bad`` then only runs to locate an error.
    """
    if _utf8_route:
        return nuif_utf8_valid(p, <size_t>n, _utf8_route) == 1
    cdef Py_ssize_t i = 0
    cdef uint32_t v
    cdef uint8_t c, L, c1
    while True:
        i = nuif_ascii_run(p, i, n)
        if i + 4 > n:
            break
        c = p[i]
        L = U8_LEN[c]
        if L == 0:
            return False
        memcpy(&v, p + i, 4)
        if (v & U8_MASK[L]) != U8_WANT[L]:
            return False
        if U8_NARROW[c]:
            c1 = p[i + 1]
            if ((c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 > 0x9F)
                    or (c == 0xF0 and c1 < 0x90) or (c == 0xF4 and c1 > 0x8F)):
                return False
        i += L
    # i is at a character boundary: the last few bytes go through the exact check
    return _utf8_bad(p + i, n - i) < 0


def _utf8_check(bytes data not None):
    """Testing only: the whole-input verdict (``_utf8_ok``) of the current route."""
    return _utf8_ok(<const uint8_t*>PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))


cdef inline Py_ssize_t _nonchar_at(const uint8_t* p, Py_ssize_t j) noexcept nogil:
    """The noncharacter code point encoded at p[j] (a valid EF/F0-F4 lead byte), or -1."""
    cdef uint8_t c = p[j]
    cdef uint8_t c1 = p[j + 1]
    cdef uint8_t c2 = p[j + 2]
    if c == 0xEF:
        if c1 == 0xB7:
            if 0x90 <= c2 <= 0xAF:
                return 0xFDD0 + (c2 - 0x90)
        elif c1 == 0xBF and c2 >= 0xBE:
            return 0xFFC0 | (c2 & 0x3F)
        return -1
    if (c1 & 0x0F) == 0x0F and c2 == 0xBF and p[j + 3] >= 0xBE:
        return ((c & 0x07) << 18) | ((c1 & 0x3F) << 12) | 0xFC0 | (p[j + 3] & 0x3F)
    return -1


cdef inline int _seq_len(uint8_t c) noexcept nogil:
    if c < 0x80:
        return 1
    if c < 0xE0:
        return 2
    if c < 0xF0:
        return 3
    return 4


# ---------------------------------------------------------------------------------------------
# numbers

ctypedef struct NumInfo:
    bint neg
    int64_t k        # significant digits without leading and trailing zeros (0: the value is 0)
    int64_t n        # value = 0.d1d2..dk * 10**n
    char d[24]       # the first (up to 24) significant digits


cdef void _analyze(const uint8_t* s, Py_ssize_t L, NumInfo* r) noexcept nogil:
    """Digits and decimal exponent of a JSON number literal or a repr() of a double."""
    cdef Py_ssize_t i = 0
    cdef int64_t pos = 0, int_len = -1, first = -1, sig = 0, last_nz = 0, ex = 0
    cdef bint eneg = False
    cdef uint8_t c
    r.neg = False
    if L > 0 and s[0] == 0x2D:
        r.neg = True
        i = 1
    while i < L:
        c = s[i]
        if c == 0x2E:
            int_len = pos
            i += 1
            continue
        if c == 0x65 or c == 0x45:
            break
        if first < 0:
            if c != 0x30:
                first = pos
                r.d[0] = <char>c
                sig = 1
                last_nz = 1
        else:
            if sig < 24:
                r.d[sig] = <char>c
            sig += 1
            if c != 0x30:
                last_nz = sig
        pos += 1
        i += 1
    if int_len < 0:
        int_len = pos
    if i < L:
        i += 1
        if i < L and (s[i] == 0x2B or s[i] == 0x2D):
            eneg = s[i] == 0x2D
            i += 1
        while i < L:
            if ex < 100000000:
                ex = ex * 10 + (s[i] - 0x30)
            i += 1
        if eneg:
            ex = -ex
    if first < 0:
        r.k = 0
        r.n = 0
        return
    r.k = last_nz
    r.n = int_len - first + ex


cdef Py_ssize_t _fmt_es(char* o, bint neg, const char* d, int64_t k, int64_t n) noexcept nogil:
    """ECMAScript Number.prototype.toString of 0.d * 10**n (k >= 1 digits; o has 48 bytes)."""
    cdef Py_ssize_t w = 0
    cdef int64_t e, z
    cdef char eb[8]
    cdef int ne = 0
    if neg:
        o[0] = 0x2D
        w = 1
    if k <= n <= 21:
        memcpy(o + w, d, k)
        w += k
        for z in range(n - k):
            o[w] = 0x30
            w += 1
    elif 0 < n <= 21:
        memcpy(o + w, d, n)
        w += n
        o[w] = 0x2E
        w += 1
        memcpy(o + w, d + n, k - n)
        w += k - n
    elif -6 < n <= 0:
        o[w] = 0x30
        o[w + 1] = 0x2E
        w += 2
        for z in range(-n):
            o[w] = 0x30
            w += 1
        memcpy(o + w, d, k)
        w += k
    else:
        e = n - 1
        o[w] = d[0]
        w += 1
        if k > 1:
            o[w] = 0x2E
            w += 1
            memcpy(o + w, d + 1, k - 1)
            w += k - 1
        o[w] = 0x65
        o[w + 1] = 0x2B if e >= 0 else 0x2D
        w += 2
        if e < 0:
            e = -e
        while True:
            eb[ne] = <char>(0x30 + e % 10)
            ne += 1
            e //= 10
            if e == 0:
                break
        while ne > 0:
            ne -= 1
            o[w] = eb[ne]
            w += 1
    return w


# The C++ standard library's <charconv> (Ryu printing, Eisel-Lemire parsing; csrc/nuif_float.h)
# when the build found it, else CPython's dtoa.  Both are correctly rounded and give the same
# bytes; ``_set_charconv(False)`` switches to dtoa so the tests can compare the two.
cdef bint _charconv = nuif_float_backend() == 1


def scan_backend():
    """``"sse2"`` or ``"portable"``: which byte-run scanners (csrc/nuif_scan.h) were compiled in."""
    return "sse2" if nuif_scan_sse2() else "portable"


def float_backend():
    """``"charconv"`` (C++17 <charconv>) or ``"dtoa"`` (CPython's): what converts doubles."""
    return "charconv" if _charconv else "dtoa"


def _set_charconv(bint on):
    """Testing only: use <charconv> (when built with it) or CPython's dtoa. Returns the old state."""
    global _charconv
    cdef bint old = _charconv
    _charconv = on and nuif_float_backend() == 1
    return old


cdef inline void _sci_info(const char* s, Py_ssize_t L, NumInfo* r) noexcept nogil:
    """``_analyze`` of shortest scientific text (``-d.ddde+XX``: no leading or trailing zeros)."""
    cdef Py_ssize_t i = 0
    cdef int64_t k = 1, ex = 0
    cdef bint eneg
    r.neg = s[0] == 0x2D
    if r.neg:
        i = 1
    r.d[0] = s[i]
    i += 1
    if s[i] == 0x2E:
        i += 1
        while s[i] != 0x65 and k < 24:
            r.d[k] = s[i]
            k += 1
            i += 1
    i += 1
    eneg = s[i] == 0x2D
    i += 1
    while i < L:
        ex = ex * 10 + (s[i] - 0x30)
        i += 1
    r.k = k
    r.n = (-ex if eneg else ex) + 1


cdef Py_ssize_t _fmt_double(char* o, double x) except -1:
    """ECMAScript Number.prototype.toString of a finite double into o (48 bytes)."""
    cdef NumInfo r
    cdef char* s
    cdef char sb[40]
    cdef int sl
    if x == 0.0:
        o[0] = 0x30
        return 1
    if _charconv:
        sl = nuif_shortest_double(x, sb)
        if sl > 0:
            _sci_info(sb, sl, &r)
            return _fmt_es(o, r.neg, r.d, r.k, r.n)
    s = PyOS_double_to_string(x, b'r', 0, 0, NULL)
    try:
        _analyze(<const uint8_t*>s, <Py_ssize_t>strlen(s), &r)
    finally:
        PyMem_Free(s)
    return _fmt_es(o, r.neg, r.d, r.k, r.n)


cdef inline bint _fast_digits(NumInfo* r) noexcept nogil:
    """True when the literal's digits are its shortest round-trip digits (<= 15, normal range)."""
    return r.k <= 15 and -290 <= r.n <= 300


cdef double[23] POW10
cdef void _init_pow10() noexcept:
    cdef int i
    cdef double x = 1.0
    for i in range(23):
        POW10[i] = x
        x *= 10.0
_init_pow10()


cdef double _literal_double(const uint8_t* s, Py_ssize_t L, NumInfo* r) except? -1.0:
    """The correctly rounded double of a non-integer literal (as float() gives it)."""
    cdef int64_t m = 0, e, i
    cdef double x
    cdef char* end
    if r.k == 0:
        return 0.0
    if r.k <= 15:
        e = r.n - r.k
        if -22 <= e <= 22:
            for i in range(r.k):
                m = m * 10 + (r.d[i] - 0x30)
            if e >= 0:
                x = <double>m * POW10[e]
            else:
                x = <double>m / POW10[-e]
            return -x if r.neg else x
    if _charconv and nuif_parse_double(<const char*>s, <size_t>L, &x) == 0:
        return x
    # the bytes object is NUL-terminated and a literal never continues into what follows it
    x = PyOS_string_to_double(<const char*>s, &end, NULL)
    return x


cdef Py_ssize_t _big_integer(const uint8_t* s, Py_ssize_t L, double* x, char* nearest) except -2:
    """An integer literal beyond ±(2^53 - 1) (NUIF-0 §1 as amended in NUIF-0.1): *x gets its
    correctly rounded double.  Returns -1 when the literal is exactly the RFC 8785 text of *x
    (accepted: it reads back unchanged), 0 when *x overflows, else the length of the nearest
    double's RFC 8785 text, written into nearest (48 bytes)."""
    cdef NumInfo r
    cdef Py_ssize_t n
    _analyze(s, L, &r)
    x[0] = _literal_double(s, L, &r)
    if isinf(x[0]):
        return 0
    n = _fmt_double(nearest, x[0])
    if n == L and memcmp(nearest, s, L) == 0:
        return -1
    return n


# ---------------------------------------------------------------------------------------------
# UTF-16 order of UTF-8 strings

ctypedef struct SEnt:
    const uint8_t* ptr
    uint32_t len
    uint32_t tok


cdef inline int _keycmp(const uint8_t* x, Py_ssize_t xl, const uint8_t* y, Py_ssize_t yl) noexcept nogil:
    cdef Py_ssize_t m = xl if xl < yl else yl
    cdef Py_ssize_t i = 0
    cdef uint8_t a, b
    while i < m and x[i] == y[i]:
        i += 1
    if i == m:
        return (xl > yl) - (xl < yl)
    a = x[i]
    b = y[i]
    # UTF-16 puts supplementary characters (surrogate pairs) before U+E000..U+FFFF
    if a >= 0xEE and b >= 0xEE:
        if a >= 0xF0 and b < 0xF0:
            return -1
        if b >= 0xF0 and a < 0xF0:
            return 1
    return -1 if a < b else 1


cdef inline int _sent_cmp(const SEnt* x, const SEnt* y) noexcept nogil:
    cdef int c = _keycmp(x.ptr, x.len, y.ptr, y.len)
    if c != 0:
        return c
    return (x.tok > y.tok) - (x.tok < y.tok)


cdef void _sort_ents(SEnt* a, SEnt* tmp, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j, width, lo, mid, hi, p, q, k
    cdef SEnt v
    cdef SEnt* src
    cdef SEnt* dst
    cdef SEnt* sw
    if n <= 12:
        for i in range(1, n):
            v = a[i]
            j = i
            while j > 0 and _sent_cmp(&a[j - 1], &v) > 0:
                a[j] = a[j - 1]
                j -= 1
            a[j] = v
        return
    # bottom-up merge sort: insertion-sort runs of 8, then merge
    lo = 0
    while lo < n:
        hi = lo + 8 if lo + 8 < n else n
        for i in range(lo + 1, hi):
            v = a[i]
            j = i
            while j > lo and _sent_cmp(&a[j - 1], &v) > 0:
                a[j] = a[j - 1]
                j -= 1
            a[j] = v
        lo = hi
    src = a
    dst = tmp
    width = 8
    while width < n:
        lo = 0
        while lo < n:
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            p = lo
            q = mid
            k = lo
            while p < mid and q < hi:
                if _sent_cmp(&src[q], &src[p]) < 0:
                    dst[k] = src[q]
                    q += 1
                else:
                    dst[k] = src[p]
                    p += 1
                k += 1
            while p < mid:
                dst[k] = src[p]
                p += 1
                k += 1
            while q < hi:
                dst[k] = src[q]
                q += 1
                k += 1
            lo = hi
        sw = src
        src = dst
        dst = sw
        width *= 2
    if src != a:
        memcpy(a, src, n * sizeof(SEnt))


# ---------------------------------------------------------------------------------------------
# growing output: a bytes object resized in place

# Output buffers of 4 MiB and more ask for transparent huge pages (csrc/nuif_scan.h): canonicalizing
# 16 MiB of ``ui`` took ~1,340 page faults per call for its fresh result, 5 with the hint (~4 %).
cdef bint _huge = True


def _set_huge(bint on):
    """Testing and measuring only: give large output buffers the huge-page hint or not."""
    global _huge
    cdef bint old = _huge
    _huge = on
    return old


@cython.final
@cython.freelist(4)  # one per call of the codec: reuse the object's memory
cdef class _Buf:
    cdef PyObject* ob
    cdef char* b
    cdef Py_ssize_t n
    cdef Py_ssize_t cap
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


cdef inline void _copy(char* o, const uint8_t* src, Py_ssize_t L, const uint8_t* lim) noexcept nogil:
    """memcpy(o, src, L) where o has 16 bytes of room past L: short runs whose source can be read
    16 bytes past L (before lim) are copied in 16-byte blocks, without a call."""
    if L <= 64 and src + L + 16 <= lim:
        nuif_copy16(o, src, L)
    else:
        memcpy(o, src, L)


cdef inline Py_ssize_t _esc1(char* o, uint8_t c) noexcept nogil:
    """Write the JSON.stringify escape of '"', '\\' or a control character; return its length."""
    o[0] = 0x5C
    if c == 0x22 or c == 0x5C:
        o[1] = c
        return 2
    if c == 0x08:
        o[1] = 0x62
    elif c == 0x09:
        o[1] = 0x74
    elif c == 0x0A:
        o[1] = 0x6E
    elif c == 0x0C:
        o[1] = 0x66
    elif c == 0x0D:
        o[1] = 0x72
    else:
        o[1] = 0x75
        o[2] = 0x30
        o[3] = 0x30
        o[4] = HEXDIGITS[c >> 4]
        o[5] = HEXDIGITS[c & 15]
        return 6
    return 2


cdef Py_ssize_t _escape_into(char* o, const uint8_t* s, Py_ssize_t L) noexcept nogil:
    """Write s escaped as JSON.stringify does (o has room for 6 * L bytes)."""
    cdef Py_ssize_t i = 0, w = 0, r
    cdef uint8_t c
    cdef uint64_t m
    while i < L:
        r = i
        while r + 8 <= L:
            m = _out_special(_load64(s + r))
            if m:
                r += NUIF_CTZ64(m) >> 3
                break
            r += 8
        while r < L and OUT_ESC[s[r]] == 0:
            r += 1
        if r > i:
            memcpy(o + w, s + i, r - i)
            w += r - i
            i = r
        if i >= L:
            break
        w += _esc1(o + w, s[i])
        i += 1
    return w


# ---------------------------------------------------------------------------------------------
# the parser

ctypedef struct Tok:
    uint8_t kind
    uint8_t flags
    uint32_t a      # STR/INT/FLT: offset (input, or arena when F_ESC); ARR/OBJ: end token index
    uint32_t b      # STR/INT/FLT: byte length; OBJ: member count
    uint32_t c      # STR: offset of the opening quote; OBJ: start in order; FLT+F_DBL: dbl index

cdef inline Py_ssize_t _next_node(const Tok* tape, Py_ssize_t* cur, Py_ssize_t* cend,
                                  Py_ssize_t* sp, Py_ssize_t cap, Py_ssize_t children) noexcept:
    """One step of the pre-order walk over the node tree on the tape (``check_nodes``, and
    ``inspect_summary`` on a checked tape): push ``children`` (the token of the current node's
    non-empty ``children`` array, or -1), drop finished arrays, and return the next node's token,
    moving its array's cursor past it.  -1: the walk is done; -2: the stack of ``cap`` arrays is
    full (``cur``/``cend``: each open array's next element and end token)."""
    cdef Py_ssize_t node
    if children >= 0:
        if sp[0] >= cap:
            return -2
        cur[sp[0]] = children + 1
        cend[sp[0]] = tape[children].a
        sp[0] += 1
    while sp[0] > 0 and cur[sp[0] - 1] == cend[sp[0] - 1]:
        sp[0] -= 1
    if sp[0] == 0:
        return -1
    node = cur[sp[0] - 1]
    cur[sp[0] - 1] = tape[node].a  # the element after it (a node is an object: .a is its end)
    return node


ctypedef struct Frame:
    bint is_obj
    uint32_t tok        # tape: container token
    Py_ssize_t count    # index of the current element / member
    Py_ssize_t mbase    # tape: base in the member stack
    uint32_t key_tok    # tape: current member name token
    Py_ssize_t key_at   # loads: offset of the current member name
    Py_ssize_t dup_at   # loads: first duplicate member name (-1: none)


# Buffers kept between canonical_json calls (page faults of fresh memory cost ~15% at 16 MiB).
# A parser takes them (leaving NULL, so a re-entrant call allocates its own) and gives them
# back when it is done, unless they grew beyond CACHE_MAX bytes.
cdef Py_ssize_t CACHE_MAX = 64 * 1024 * 1024
# slots of the member-name cache of loads (a power of 2)
cdef enum:
    KCACHE_SIZE = 256
cdef Tok* _c_tape = NULL
cdef Py_ssize_t _c_tape_cap = 0
cdef uint8_t* _c_arena = NULL
cdef Py_ssize_t _c_arena_cap = 0
cdef uint32_t* _c_order = NULL
cdef Py_ssize_t _c_order_cap = 0
cdef uint32_t* _c_mstack = NULL
cdef Py_ssize_t _c_mstack_cap = 0
cdef Frame* _c_st = NULL
cdef Py_ssize_t _c_st_cap = 0
cdef SEnt* _c_sbuf = NULL
cdef Py_ssize_t _c_sbuf_cap = 0


@cython.final
@cython.freelist(4)  # one per call of the codec: reuse the object's memory
@cython.no_gc  # its objects (the input, limits, values being built) never refer back to it
cdef class _Parser:
    cdef bytes data
    cdef const uint8_t* p
    cdef Py_ssize_t n
    cdef Py_ssize_t max_depth
    cdef object max_depth_obj
    cdef bint tape_mode
    # stack
    cdef Frame* st
    cdef Py_ssize_t depth
    cdef Py_ssize_t st_cap
    cdef Py_ssize_t maxd
    # scanned string
    cdef Py_ssize_t s_off
    cdef Py_ssize_t s_len
    cdef uint8_t s_flags
    cdef uint8_t hi
    # arena of decoded strings
    cdef uint8_t* arena
    cdef Py_ssize_t arena_len
    cdef Py_ssize_t arena_cap
    # tape
    cdef Tok* tape
    cdef Py_ssize_t ntok
    cdef Py_ssize_t tape_cap
    cdef uint32_t* mstack
    cdef Py_ssize_t mtop
    cdef Py_ssize_t mcap
    cdef uint32_t* order
    cdef Py_ssize_t olen
    cdef Py_ssize_t ocap
    cdef SEnt* sbuf
    cdef Py_ssize_t scap
    cdef double* dbl
    cdef Py_ssize_t dlen
    cdef Py_ssize_t dcap
    # write: hash the text while writing it (large texts; see _pipe_min) into digest
    cdef bint want_digest
    cdef bint has_digest
    cdef unsigned char digest[32]
    # loads
    cdef PyObject** kcache  # member names seen (ASCII, short): one str object per name
    cdef list conts
    cdef list keys
    cdef list dupkeys
    cdef object result

    cdef int init(self, bytes data, Py_ssize_t max_depth, object max_depth_obj,
                  bint tape_mode) except -1:
        """Set up a parser made by ``_new_parser`` (no argument parsing through ``__cinit__``)."""
        self.data = data
        self.p = <const uint8_t*>PyBytes_AS_STRING(data)
        self.n = PyBytes_GET_SIZE(data)
        self.max_depth = max_depth
        self.max_depth_obj = max_depth_obj
        self.tape_mode = tape_mode
        self.st = NULL
        self.arena = NULL
        self.tape = NULL
        self.mstack = NULL
        self.order = NULL
        self.sbuf = NULL
        self.dbl = NULL
        self.kcache = NULL
        self.want_digest = False
        self.has_digest = False
        if not tape_mode:
            self.conts = []
            self.keys = []
            self.dupkeys = []
        return 0

    cdef void take_cache(self) noexcept:
        global _c_tape, _c_tape_cap, _c_arena, _c_arena_cap, _c_order, _c_order_cap
        global _c_mstack, _c_mstack_cap, _c_st, _c_st_cap, _c_sbuf, _c_sbuf_cap
        self.tape, self.tape_cap, _c_tape, _c_tape_cap = _c_tape, _c_tape_cap, NULL, 0
        self.arena, self.arena_cap, _c_arena, _c_arena_cap = _c_arena, _c_arena_cap, NULL, 0
        self.order, self.ocap, _c_order, _c_order_cap = _c_order, _c_order_cap, NULL, 0
        self.mstack, self.mcap, _c_mstack, _c_mstack_cap = _c_mstack, _c_mstack_cap, NULL, 0
        # the stack and the sort buffer too: small, but a fresh malloc + free per call
        self.st, self.st_cap, _c_st, _c_st_cap = _c_st, _c_st_cap, NULL, 0
        self.sbuf, self.scap, _c_sbuf, _c_sbuf_cap = _c_sbuf, _c_sbuf_cap, NULL, 0

    def __dealloc__(self):
        global _c_tape, _c_tape_cap, _c_arena, _c_arena_cap, _c_order, _c_order_cap
        global _c_mstack, _c_mstack_cap, _c_st, _c_st_cap, _c_sbuf, _c_sbuf_cap
        if self.tape_mode:
            if _c_st == NULL and self.st_cap * <Py_ssize_t>sizeof(Frame) <= CACHE_MAX:
                _c_st, _c_st_cap, self.st = self.st, self.st_cap, NULL
            if _c_sbuf == NULL and self.scap * <Py_ssize_t>sizeof(SEnt) <= CACHE_MAX:
                _c_sbuf, _c_sbuf_cap, self.sbuf = self.sbuf, self.scap, NULL
            if _c_tape == NULL and self.tape_cap * <Py_ssize_t>sizeof(Tok) <= CACHE_MAX:
                _c_tape, _c_tape_cap, self.tape = self.tape, self.tape_cap, NULL
            if _c_arena == NULL and self.arena_cap <= CACHE_MAX:
                _c_arena, _c_arena_cap, self.arena = self.arena, self.arena_cap, NULL
            if _c_order == NULL and self.ocap * 4 <= CACHE_MAX:
                _c_order, _c_order_cap, self.order = self.order, self.ocap, NULL
            if _c_mstack == NULL and self.mcap * 4 <= CACHE_MAX:
                _c_mstack, _c_mstack_cap, self.mstack = self.mstack, self.mcap, NULL
        cdef Py_ssize_t k
        if self.kcache != NULL:
            for k in range(KCACHE_SIZE):
                Py_XDECREF(self.kcache[k])
            PyMem_Free(self.kcache)
        PyMem_Free(self.st)
        PyMem_Free(self.arena)
        PyMem_Free(self.tape)
        PyMem_Free(self.mstack)
        PyMem_Free(self.order)
        PyMem_Free(self.sbuf)
        PyMem_Free(self.dbl)

    # -- memory -------------------------------------------------------------------------------
    cdef void* _grow(self, void* ptr, Py_ssize_t* cap, Py_ssize_t need, size_t item) except NULL:
        cdef Py_ssize_t newcap = cap[0] * 2
        cdef void* q
        if newcap < need:
            newcap = need
        if newcap < 16:
            newcap = 16
        q = PyMem_Realloc(ptr, <size_t>newcap * item)
        if q == NULL:
            raise MemoryError()
        cap[0] = newcap
        return q

    cdef inline Py_ssize_t emit(self, uint8_t kind, uint8_t flags, Py_ssize_t a, Py_ssize_t b,
                                Py_ssize_t c) except -1:
        cdef Tok* t
        if self.ntok >= self.tape_cap:
            self.tape = <Tok*>self._grow(self.tape, &self.tape_cap, self.ntok + 1, sizeof(Tok))
        t = &self.tape[self.ntok]
        t.kind = kind
        t.flags = flags
        t.a = <uint32_t>a
        t.b = <uint32_t>b
        t.c = <uint32_t>c
        self.ntok += 1
        return self.ntok - 1

    # -- errors -------------------------------------------------------------------------------
    cdef object key_str(self, Py_ssize_t d):
        cdef Tok* t
        if not self.tape_mode:
            return self.keys[d]
        t = &self.tape[self.st[d].key_tok]
        if t.flags & F_ESC:
            return (<char*>self.arena)[t.a:t.a + t.b].decode("utf-8")
        return (<char*>self.p)[t.a:t.a + t.b].decode("utf-8")

    cdef object pointer(self, bint omit_top):
        cdef Py_ssize_t d, cnt = self.depth - 1 if omit_top else self.depth
        parts = []
        for d in range(cnt):
            if self.st[d].is_obj:
                parts.append(self.key_str(d))
            else:
                parts.append(self.st[d].count)
        return parts

    cdef int syntax(self, str expected_name, Py_ssize_t off) except -1:
        return self.syntax_text(getattr(_tw(), expected_name), off)

    cdef int syntax_text(self, str expected, Py_ssize_t off) except -1:
        raise text_error("NUIF_PARSE", f"{expected}, found {describe_found(self.data, off)}",
                         self.data, off)

    cdef int fail(self, str code, str message, Py_ssize_t off, bint omit_top) except -1:
        raise text_error(code, message, self.data, off, join_pointer(self.pointer(omit_top)))

    cdef int fail_nonchar(self, Py_ssize_t at, Py_ssize_t cp, bint is_key) except -1:
        return self.fail("NUIF_UNICODE", f"U+{cp:04X} is a Unicode noncharacter (I-JSON forbids it)",
                         at, is_key)

    cdef int fail_surrogate(self, Py_ssize_t at, Py_ssize_t cp, bint is_key) except -1:
        return self.fail("NUIF_UNICODE", f"escape \\u{cp:04x} is a lone surrogate (I-JSON forbids it)",
                         at, is_key)

    # -- scanning -----------------------------------------------------------------------------
    cdef int validate(self) except -1:
        cdef Py_ssize_t bad = -1
        if not _utf8_ok(self.p, self.n):
            bad = _utf8_bad(self.p, self.n)
        if bad >= 0:
            raise text_error("NUIF_UTF8", "the text is not valid UTF-8", self.data, bad)
        if self.n >= 3 and self.p[0] == 0xEF and self.p[1] == 0xBB and self.p[2] == 0xBF:
            raise text_error("NUIF_PARSE", "a byte-order mark is not allowed", self.data, 0)
        return 0

    cdef inline Py_ssize_t ws(self, Py_ssize_t i) noexcept:
        # the bytes object ends with a NUL, which is not whitespace: no bound checks needed
        cdef const uint8_t* p = self.p
        if p[i] > 0x20:
            return i
        if p[i] == 0x20 and p[i + 1] > 0x20:  # ": " and ", "
            return i + 1
        return nuif_skip_ws(p, i, self.n)

    cdef Py_ssize_t plain_run(self, Py_ssize_t j, bint is_key) except -1:
        """Index of the first quote, backslash, control character or the end, from j."""
        cdef const uint8_t* p = self.p
        cdef Py_ssize_t n = self.n
        cdef uint8_t c
        cdef Py_ssize_t cp
        cdef int hi = 0
        while True:
            j = nuif_str_run(p, j, n, &hi)
            if j >= n:
                j = n
                break
            c = p[j]
            if STR_CLS[c] < C_EF:
                break
            hi = 0x80
            cp = _nonchar_at(p, j)
            if cp >= 0:
                self.fail_nonchar(j, cp, is_key)
            j += _seq_len(c)
        if hi:
            self.hi = 0x80
        return j

    cdef int hex4(self, Py_ssize_t i) except -1:
        cdef Py_ssize_t k
        cdef int v = 0
        cdef uint8_t h, h1, h2, h3
        cdef const uint8_t* p = self.p
        if i + 4 <= self.n:
            h = HEXVAL[p[i]]
            h1 = HEXVAL[p[i + 1]]
            h2 = HEXVAL[p[i + 2]]
            h3 = HEXVAL[p[i + 3]]
            if ((h | h1 | h2 | h3) & 0xF0) == 0:
                return (h << 12) | (h1 << 8) | (h2 << 4) | h3
        for k in range(i, i + 4):
            if k >= self.n:
                self.syntax("EXPECT_STRING_END", k)
            h = HEXVAL[self.p[k]]
            if h == 255:
                self.syntax("EXPECT_HEX", k)
            v = (v << 4) | h
        return v

    cdef inline Py_ssize_t scan_str(self, Py_ssize_t i, bint is_key) except -1:
        """Scan the string whose quote is at i; return the index after its closing quote.

        Strings with escapes go to the arena: decoded (loads, and member names on the tape, which
        must compare decoded), or already in canonical escaped form (string values on the tape).
        """
        cdef const uint8_t* p = self.p
        cdef Py_ssize_t start = i + 1
        cdef Py_ssize_t j
        cdef int hi = 0
        # most strings end at the first stop byte of the scanner: this part is inlined
        j = nuif_str_run(p, start, self.n, &hi)
        if j < self.n and p[j] == 0x22:
            self.hi = <uint8_t>hi
            self.s_off = start
            self.s_len = j - start
            self.s_flags = 0
            return j + 1
        return self.scan_str_rest(i, j, hi, is_key)

    cdef Py_ssize_t scan_str_rest(self, Py_ssize_t i, Py_ssize_t j, int hi, bint is_key) except -1:
        """scan_str after its first run stopped at j (not at the closing quote)."""
        cdef const uint8_t* p = self.p
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t start = i + 1
        cdef Py_ssize_t k, esc_at, d0
        cdef uint8_t* w
        cdef uint8_t c, e, h0, h1, h2, h3
        cdef uint8_t flags
        cdef int cp, low
        cdef bint canon = self.tape_mode and not is_key
        self.hi = <uint8_t>hi
        if j < n and p[j] >= 0xEF:
            j = self.plain_run(j, is_key)
        if j >= n:
            self.syntax("EXPECT_STRING_END", n)
        c = p[j]
        if c == 0x22:
            self.s_off = start
            self.s_len = j - start
            self.s_flags = 0
            return j + 1
        if c != 0x5C:
            raise text_error("NUIF_PARSE", _tw().CONTROL_IN_STRING.format(c), self.data, j)
        # escapes: into the arena (the result is never longer than the rest of the input)
        if not self.tape_mode:
            self.arena_len = 0
        if self.arena_len + (n - start) + 8 > self.arena_cap:
            self.arena = <uint8_t*>self._grow(self.arena, &self.arena_cap,
                                              self.arena_len + (n - start) + 8, 1)
        d0 = self.arena_len
        w = self.arena + d0
        flags = F_ESC
        memcpy(w, p + start, j - start)
        w += j - start
        while True:
            # here p[j] is a backslash, a quote, a control character, or j == n
            c = p[j]
            if c == 0x5C and p[j + 1] == 0x75 and j + 6 <= n:
                # fast path: \uXXXX of a BMP character that needs no further thought
                h0 = HEXVAL[p[j + 2]]
                h1 = HEXVAL[p[j + 3]]
                h2 = HEXVAL[p[j + 4]]
                h3 = HEXVAL[p[j + 5]]
                if ((h0 | h1 | h2 | h3) & 0xF0) == 0:
                    cp = (h0 << 12) | (h1 << 8) | (h2 << 4) | h3
                    if 0x80 <= cp < 0xD800 and not (0xFDD0 <= cp <= 0xFDEF):
                        if cp < 0x800:
                            w[0] = <uint8_t>(0xC0 | (cp >> 6))
                            w[1] = <uint8_t>(0x80 | (cp & 0x3F))
                            w += 2
                        else:
                            w[0] = <uint8_t>(0xE0 | (cp >> 12))
                            w[1] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
                            w[2] = <uint8_t>(0x80 | (cp & 0x3F))
                            w += 3
                        self.hi = 0x80
                        j += 6
                        c = p[j]
                        if c != 0x5C and c != 0x22:
                            k = self.plain_run(j, is_key)
                            memcpy(w, p + j, k - j)
                            w += k - j
                            j = k
                        continue
            if j >= n:
                self.syntax("EXPECT_STRING_END", n)
            if c == 0x22:
                break
            if c != 0x5C:
                raise text_error("NUIF_PARSE", _tw().CONTROL_IN_STRING.format(c), self.data, j)
            esc_at = j
            if j + 1 >= n:
                self.syntax("EXPECT_STRING_END", j + 1)
            e = p[j + 1]
            if e == 0x75:  # u
                cp = self.hex4(j + 2)
                j += 6
                if 0xDC00 <= cp <= 0xDFFF:
                    self.fail_surrogate(esc_at, cp, is_key)
                if 0xD800 <= cp <= 0xDBFF:
                    if j >= n:
                        self.syntax("EXPECT_STRING_END", j)
                    if p[j] != 0x5C:
                        self.fail_surrogate(esc_at, cp, is_key)
                    if j + 1 >= n:
                        self.syntax("EXPECT_STRING_END", j + 1)
                    if p[j + 1] != 0x75:
                        self.fail_surrogate(esc_at, cp, is_key)
                    low = self.hex4(j + 2)
                    if not 0xDC00 <= low <= 0xDFFF:
                        self.fail_surrogate(esc_at, cp, is_key)
                    j += 6
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                if (0xFDD0 <= cp <= 0xFDEF) or (cp & 0xFFFE) == 0xFFFE:
                    self.fail_nonchar(esc_at, cp, is_key)
                if cp < 0x80:
                    if cp < 0x20 or cp == 0x22 or cp == 0x5C:
                        if canon:
                            w += _esc1(<char*>w, <uint8_t>cp)
                        else:
                            w[0] = <uint8_t>cp
                            w += 1
                            flags |= F_NEEDS_ESC
                    else:
                        w[0] = <uint8_t>cp
                        w += 1
                elif cp < 0x800:
                    w[0] = <uint8_t>(0xC0 | (cp >> 6))
                    w[1] = <uint8_t>(0x80 | (cp & 0x3F))
                    w += 2
                    self.hi = 0x80
                elif cp < 0x10000:
                    w[0] = <uint8_t>(0xE0 | (cp >> 12))
                    w[1] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
                    w[2] = <uint8_t>(0x80 | (cp & 0x3F))
                    w += 3
                    self.hi = 0x80
                else:
                    w[0] = <uint8_t>(0xF0 | (cp >> 18))
                    w[1] = <uint8_t>(0x80 | ((cp >> 12) & 0x3F))
                    w[2] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
                    w[3] = <uint8_t>(0x80 | (cp & 0x3F))
                    w += 4
                    self.hi = 0x80
            else:
                if e == 0x2F:
                    w[0] = 0x2F
                    w += 1
                elif e == 0x22 or e == 0x5C or e == 0x62 or e == 0x66 or e == 0x6E or e == 0x72 or e == 0x74:
                    if canon:
                        # the canonical form of these escapes is the escape itself
                        w[0] = 0x5C
                        w[1] = e
                        w += 2
                    else:
                        if e == 0x62:
                            e = 0x08
                        elif e == 0x66:
                            e = 0x0C
                        elif e == 0x6E:
                            e = 0x0A
                        elif e == 0x72:
                            e = 0x0D
                        elif e == 0x74:
                            e = 0x09
                        w[0] = e
                        w += 1
                        flags |= F_NEEDS_ESC
                else:
                    self.syntax("EXPECT_ESCAPE", j + 1)
                j += 2
            c = p[j]
            if c != 0x5C and c != 0x22:
                k = self.plain_run(j, is_key)
                memcpy(w, p + j, k - j)
                w += k - j
                j = k
        self.s_off = d0
        self.s_len = (w - self.arena) - d0
        self.s_flags = flags
        if self.tape_mode:
            self.arena_len = w - self.arena
        return j + 1

    cdef object make_str(self):
        cdef const uint8_t* ptr
        if self.s_flags & F_ESC:
            ptr = self.arena + self.s_off
        else:
            ptr = self.p + self.s_off
        if self.hi == 0:
            s = PyUnicode_New(self.s_len, 127)
            memcpy(PyUnicode_DATA(s), ptr, self.s_len)
            return s
        return PyUnicode_DecodeUTF8(<const char*>ptr, self.s_len, NULL)

    cdef object make_key(self):
        """A member name: short ASCII names come from a small cache, so the few names a document
        repeats are one str object each (allocated and hashed once)."""
        cdef const uint8_t* ptr
        cdef Py_ssize_t slot, L = self.s_len
        cdef PyObject* hit
        if self.hi != 0 or L > 32:
            return self.make_str()
        ptr = (<const uint8_t*>self.arena if self.s_flags & F_ESC else self.p) + self.s_off
        if self.kcache == NULL:
            self.kcache = <PyObject**>PyMem_Calloc(KCACHE_SIZE, sizeof(PyObject*))
            if self.kcache == NULL:
                raise MemoryError()
        slot = <Py_ssize_t>(_fnv(ptr, L) & (KCACHE_SIZE - 1))
        hit = self.kcache[slot]
        if hit != NULL and PyUnicode_GET_LENGTH(<object>hit) == L and memcmp(
                PyUnicode_DATA(<object>hit), ptr, L) == 0:
            return <object>hit
        s = PyUnicode_New(L, 127)
        memcpy(PyUnicode_DATA(s), ptr, L)
        Py_INCREF(s)
        Py_XDECREF(hit)
        self.kcache[slot] = <PyObject*>s
        return s

    cdef Py_ssize_t number(self, Py_ssize_t i) except -1:
        cdef const uint8_t* p = self.p
        cdef Py_ssize_t start = i, L, nd, int_s, int_e, mant_e, fe, z
        cdef bint neg = False, integer = True, has_exp = False
        cdef NumInfo r
        cdef double x
        cdef int64_t v
        cdef uint8_t flags = 0
        if p[i] == 0x2D:
            neg = True
            i += 1
        int_s = i
        if not (0x30 <= p[i] <= 0x39):
            self.syntax("EXPECT_DIGIT", i)
        if p[i] == 0x30:
            i += 1
        else:
            while 0x30 <= p[i] <= 0x39:
                i += 1
        int_e = i
        if p[i] == 0x2E:
            integer = False
            i += 1
            if not (0x30 <= p[i] <= 0x39):
                self.syntax("EXPECT_DIGIT", i)
            while 0x30 <= p[i] <= 0x39:
                i += 1
        mant_e = i
        if p[i] == 0x65 or p[i] == 0x45:
            integer = False
            has_exp = True
            i += 1
            if p[i] == 0x2B or p[i] == 0x2D:
                i += 1
            if not (0x30 <= p[i] <= 0x39):
                self.syntax("EXPECT_DIGIT", i)
            while 0x30 <= p[i] <= 0x39:
                i += 1
        L = i - start
        if integer:
            nd = L - neg
            if nd > 16 or (nd == 16 and memcmp(p + start + neg, b"9007199254740991", 16) > 0):
                return self.big_integer(start, i)
            if self.tape_mode:
                if neg and nd == 1 and p[start + 1] == 0x30:
                    flags = F_NEGZERO
                self.emit(T_INT, flags, start, L, 0)
            else:
                v = 0
                for nd in range(start + neg, i):
                    v = v * 10 + (p[nd] - 0x30)
                self.attach(-v if neg else v)
            return i
        if self.tape_mode and not has_exp:
            # A plain decimal with at most 15 significant digits (so they are the shortest
            # round-trip digits) and a nonzero value: its canonical text is the literal without
            # the fraction's trailing zeros (and without the point when nothing is left), or the
            # literal itself for 0.d with at most 5 zeros after the point (below, ES uses e-7).
            fe = mant_e
            while p[fe - 1] == 0x30:  # stops at the point
                fe -= 1
            if p[int_s] != 0x30:
                if fe == int_e + 1:
                    if int_e - int_s <= 15:
                        self.emit(T_FLT, F_LIT, start, int_e - start, 0)
                        return i
                elif (int_e - int_s) + (fe - int_e - 1) <= 15:
                    self.emit(T_FLT, F_LIT, start, fe - start, 0)
                    return i
            elif fe > int_e + 1:
                z = int_e + 1
                while p[z] == 0x30:  # stops at a nonzero digit before fe
                    z += 1
                if z - (int_e + 1) <= 5 and fe - z <= 15:
                    self.emit(T_FLT, F_LIT, start, fe - start, 0)
                    return i
        if p[int_s] != 0x30 and p[mant_e - 1] != 0x30 and (int_e - int_s) + (
                mant_e - int_e - 1 if mant_e > int_e else 0) > 15:
            # more than 15 significant digits (no leading or trailing zeros): the double itself
            r.k = 16
        else:
            _analyze(p + start, L, &r)
            if self.tape_mode and (r.k == 0 or _fast_digits(&r)):
                self.emit(T_FLT, 0, start, L, 0)
                return i
        x = _literal_double(p + start, L, &r)
        if isinf(x):
            literal = (<char*>p)[start:i].decode("ascii")
            self.fail("NUIF_NUMBER", f"number {_tw()._short(literal)} overflows a double", start, False)
        if x == 0.0:
            x = 0.0
        if self.tape_mode:
            if self.dlen >= self.dcap:
                self.dbl = <double*>self._grow(self.dbl, &self.dcap, self.dlen + 1, sizeof(double))
            self.dbl[self.dlen] = x
            self.emit(T_FLT, F_DBL, start, L, self.dlen)
            self.dlen += 1
        else:
            self.attach(x)
        return i

    cdef Py_ssize_t big_integer(self, Py_ssize_t start, Py_ssize_t i) except -1:
        """An integer literal beyond ±(2^53 - 1): accepted, as its double, only when it is that
        double's RFC 8785 text (so the canonical text is the literal itself)."""
        cdef double x
        cdef char nearest[48]
        cdef Py_ssize_t n = _big_integer(self.p + start, i - start, &x, nearest)
        if n >= 0:
            literal = (<char*>self.p)[start:i].decode("ascii")
            self.fail("NUIF_NUMBER", _tw().big_integer_message(
                _tw()._short(literal), nearest[:n].decode("ascii") if n else None), start, False)
        if self.tape_mode:
            self.emit(T_FLT, F_LIT, start, i - start, 0)
        else:
            self.attach(x)
        return i

    cdef Py_ssize_t literal(self, Py_ssize_t i, const char* word, Py_ssize_t L, str name) except -1:
        cdef Py_ssize_t k
        for k in range(1, L):
            if self.p[i + k] != <uint8_t>word[k]:  # the NUL after the text never matches
                self.syntax_text(_tw().EXPECT_LITERAL.format(name), i + k)
        return i + L

    # -- structure ----------------------------------------------------------------------------
    cdef inline int attach(self, object v) except -1:
        cdef Frame* f
        cdef Py_ssize_t before
        if self.depth == 0:
            self.result = v
            return 0
        f = &self.st[self.depth - 1]
        cont = self.conts[self.depth - 1]
        if not f.is_obj:
            PyList_Append(cont, v)
        else:
            key = self.keys[self.depth - 1]
            before = PyDict_GET_SIZE(cont)
            PyDict_SetItem(cont, key, v)
            if PyDict_GET_SIZE(cont) == before and f.dup_at < 0:
                f.dup_at = f.key_at
                self.dupkeys[self.depth - 1] = key
        return 0

    cdef int push(self, bint is_obj, Py_ssize_t i) except -1:
        cdef Frame* f
        if self.depth + 1 > self.max_depth:
            self.fail("NUIF_DEPTH",
                      f"arrays and objects are nested deeper than the limit of {self.max_depth_obj}",
                      i, False)
        if self.depth >= self.st_cap:
            self.st = <Frame*>self._grow(self.st, &self.st_cap, self.depth + 1, sizeof(Frame))
        f = &self.st[self.depth]
        f.is_obj = is_obj
        f.count = 0
        f.dup_at = -1
        if self.tape_mode:
            f.tok = <uint32_t>self.emit(T_OBJ if is_obj else T_ARR, 0, 0, 0, 0)
            f.mbase = self.mtop
        else:
            if len(self.conts) <= self.depth:
                self.conts.append(None)
                self.keys.append(None)
                self.dupkeys.append(None)
            self.conts[self.depth] = {} if is_obj else []
        self.depth += 1
        if self.depth > self.maxd:
            self.maxd = self.depth
        return 0

    cdef Py_ssize_t member_key(self, Py_ssize_t i) except -1:
        cdef Frame* f = &self.st[self.depth - 1]
        cdef Py_ssize_t j = self.scan_str(i, True)
        cdef Py_ssize_t kt
        if self.tape_mode:
            kt = self.emit(T_STR, self.s_flags, self.s_off, self.s_len, i)
            if self.mtop >= self.mcap:
                self.mstack = <uint32_t*>self._grow(self.mstack, &self.mcap, self.mtop + 1,
                                                    sizeof(uint32_t))
            self.mstack[self.mtop] = <uint32_t>kt
            self.mtop += 1
            f.key_tok = <uint32_t>kt
        else:
            self.keys[self.depth - 1] = self.make_key()
            f.key_at = i
        j = self.ws(j)
        if self.p[j] != 0x3A:
            self.syntax("EXPECT_COLON", j)
        return self.ws(j + 1)

    cdef int close_arr(self) except -1:
        cdef Frame* f = &self.st[self.depth - 1]
        if self.tape_mode:
            self.tape[f.tok].a = <uint32_t>self.ntok
            self.depth -= 1
            return 0
        v = self.conts[self.depth - 1]
        self.conts[self.depth - 1] = None
        self.depth -= 1
        return self.attach(v)

    cdef int close_obj(self) except -1:
        cdef Frame* f = &self.st[self.depth - 1]
        cdef Py_ssize_t cnt, m, dup
        cdef Tok* t
        cdef SEnt* e
        cdef const uint8_t* base
        if not self.tape_mode:
            if f.dup_at >= 0:
                key = self.dupkeys[self.depth - 1]
                parts = self.pointer(True)
                parts.append(key)
                raise text_error("NUIF_DUPLICATE_KEY",
                                 f"member name {_tw()._quote(key)} appears twice in one object",
                                 self.data, f.dup_at, join_pointer(parts))
            v = self.conts[self.depth - 1]
            self.conts[self.depth - 1] = None
            self.depth -= 1
            return self.attach(v)
        cnt = self.mtop - f.mbase
        t = &self.tape[f.tok]
        t.a = <uint32_t>self.ntok
        t.b = <uint32_t>cnt
        t.c = <uint32_t>self.olen
        if self.olen + cnt > self.ocap:
            self.order = <uint32_t*>self._grow(self.order, &self.ocap, self.olen + cnt, sizeof(uint32_t))
        if cnt == 1:
            self.order[self.olen] = self.mstack[f.mbase]
        elif cnt > 1:
            if 2 * cnt > self.scap:
                self.sbuf = <SEnt*>self._grow(self.sbuf, &self.scap, 2 * cnt, sizeof(SEnt))
            e = self.sbuf
            for m in range(cnt):
                t = &self.tape[self.mstack[f.mbase + m]]
                base = <const uint8_t*>self.arena if t.flags & F_ESC else self.p
                e[m].ptr = base + t.a
                e[m].len = t.b
                e[m].tok = self.mstack[f.mbase + m]
            _sort_ents(e, e + cnt, cnt)
            dup = -1
            for m in range(cnt):
                if m > 0 and e[m].len == e[m - 1].len and memcmp(e[m].ptr, e[m - 1].ptr, e[m].len) == 0:
                    if dup < 0 or e[m].tok < dup:
                        dup = e[m].tok
                self.order[self.olen + m] = e[m].tok
            if dup >= 0:
                t = &self.tape[dup]
                base = <const uint8_t*>self.arena if t.flags & F_ESC else self.p
                key = (<char*>base)[t.a:t.a + t.b].decode("utf-8")
                parts = self.pointer(True)
                parts.append(key)
                raise text_error("NUIF_DUPLICATE_KEY",
                                 f"member name {_tw()._quote(key)} appears twice in one object",
                                 self.data, t.c, join_pointer(parts))
        self.olen += cnt
        self.mtop = f.mbase
        self.depth -= 1
        return 0

    cdef int run(self) except -1:
        cdef const uint8_t* p = self.p
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t i
        cdef Frame* f
        cdef uint8_t c
        if self.tape_mode:
            self.take_cache()
            if self.tape_cap < n // 24 + 16:
                PyMem_Free(self.tape)
                self.tape = NULL
                self.tape_cap = 0
                self.tape = <Tok*>self._grow(NULL, &self.tape_cap, n // 24 + 16, sizeof(Tok))
        i = self.ws(0)
        while True:
            # ---- a value starts at i ----
            c = p[i]
            if c == 0x22:
                i = self.scan_str(i, False)
                if self.tape_mode:
                    self.emit(T_STR, self.s_flags, self.s_off, self.s_len, i)
                else:
                    self.attach(self.make_str())
            elif c == 0x7B or c == 0x5B:
                self.push(c == 0x7B, i)
                i = self.ws(i + 1)
                if c == 0x5B:
                    if p[i] == 0x5D:
                        i += 1
                        self.close_arr()
                    else:
                        continue
                else:
                    if p[i] == 0x7D:
                        i += 1
                        self.close_obj()
                    else:
                        if p[i] != 0x22 or i >= n:
                            self.syntax("EXPECT_FIRST_KEY", i)
                        i = self.member_key(i)
                        continue
            elif c == 0x2D or 0x30 <= c <= 0x39:
                i = self.number(i)
            elif c == 0x74:
                i = self.literal(i, b"true", 4, "true")
                if self.tape_mode:
                    self.emit(T_TRUE, 0, 0, 0, 0)
                else:
                    self.attach(True)
            elif c == 0x66:
                i = self.literal(i, b"false", 5, "false")
                if self.tape_mode:
                    self.emit(T_FALSE, 0, 0, 0, 0)
                else:
                    self.attach(False)
            elif c == 0x6E:
                i = self.literal(i, b"null", 4, "null")
                if self.tape_mode:
                    self.emit(T_NULL, 0, 0, 0, 0)
                else:
                    self.attach(None)
            else:
                self.syntax("EXPECT_VALUE", i)
            # ---- after a value ----
            while True:
                i = self.ws(i)
                if self.depth == 0:
                    if i != n:
                        self.syntax("EXPECT_END", i)
                    return 0
                f = &self.st[self.depth - 1]
                c = p[i] if i < n else 0
                if f.is_obj:
                    if c == 0x2C:
                        f.count += 1
                        i = self.ws(i + 1)
                        if i >= n or p[i] != 0x22:
                            self.syntax("EXPECT_KEY", i)
                        i = self.member_key(i)
                        break
                    if c == 0x7D:
                        i += 1
                        self.close_obj()
                        continue
                    self.syntax("EXPECT_OBJECT_NEXT", i)
                else:
                    if c == 0x2C:
                        f.count += 1
                        i = self.ws(i + 1)
                        break
                    if c == 0x5D:
                        i += 1
                        self.close_arr()
                        continue
                    self.syntax("EXPECT_ARRAY_NEXT", i)

    # -- NUIF §3 on the tape (canonical_document) ---------------------------------------------
    cdef inline const uint8_t* tstr(self, const Tok* t) noexcept:
        return (<const uint8_t*>self.arena if t.flags & F_ESC else self.p) + t.a

    cdef inline const uint8_t* tlim(self, const Tok* t) noexcept:
        """The end of the buffer that tstr(t) points into."""
        return <const uint8_t*>(self.arena + self.arena_cap) if t.flags & F_ESC else self.p + self.n

    cdef inline Py_ssize_t vend(self, Py_ssize_t v) noexcept:
        """The token index just past value v (its whole subtree)."""
        cdef const Tok* t = &self.tape[v]
        if t.kind == T_ARR or t.kind == T_OBJ:
            return t.a
        return v + 1

    cdef bint check_document(self, Py_ssize_t max_nodes) except -1:
        """True when the tape is a valid NUIF document (NUIF-0 §3), after marking the members
        that normalization omits (F_SKIP); False at the first problem of any kind: the caller
        then runs the Python checker, which owns every schema diagnostic."""
        cdef Tok* tape = self.tape
        cdef Tok* t
        cdef Tok* v
        cdef Py_ssize_t k, end, vi, root = -1, nuif = -1
        cdef const uint8_t* s
        cdef NumInfo r
        if tape[0].kind != T_OBJ:
            return False
        k = 1
        end = tape[0].a
        while k < end:
            t = &tape[k]
            vi = k + 1
            v = &tape[vi]
            s = self.tstr(t)
            if t.b != 4:
                return False
            if memcmp(s, b"nuif", 4) == 0:
                nuif = vi
            elif memcmp(s, b"root", 4) == 0:
                root = vi
            elif memcmp(s, b"meta", 4) == 0:
                if v.kind != T_OBJ:
                    return False
                if v.b == 0:
                    t.flags |= F_SKIP
            else:
                return False
            k = self.vend(vi)
        if nuif < 0 or root < 0:
            return False
        # "nuif" must be a number equal to 0 (0, -0, 0.0, 0e5, 1e-400 all are)
        v = &tape[nuif]
        if v.kind == T_INT:
            if not ((v.b == 1 and self.p[v.a] == 0x30) or (v.flags & F_NEGZERO)):
                return False
        elif v.kind == T_FLT:
            if v.flags & F_DBL:
                if self.dbl[v.c] != 0.0:
                    return False
            else:
                _analyze(self.p + v.a, v.b, &r)
                if r.k != 0:
                    return False
        else:
            return False
        return self.check_nodes(root, max_nodes)

    cdef bint check_nodes(self, Py_ssize_t node, Py_ssize_t max_nodes) except -1:
        cdef Tok* tape = self.tape
        cdef Tok* t
        cdef Tok* kt
        cdef Tok* v
        cdef Tok* other
        cdef Py_ssize_t k, a, end, vi, children, L, count = 0, sp = 0
        cdef Py_ssize_t cap = self.maxd + 2
        cdef const uint8_t* s
        cdef bint has_id, has_kind
        cdef Py_ssize_t* cur = NULL
        cdef Py_ssize_t* cend
        # the set of ids: open addressing, load <= 1/2; a slot holds (32-bit hash << 32) |
        # (token index + 1), 0 = empty, so probes and growth never touch the tape or the text
        # unless the hashes match (at 16 MiB those are cache misses)
        cdef uint64_t* ids = NULL
        cdef Py_ssize_t icap = 16, iused = 0, slot
        cdef uint64_t h, e
        # a node takes at least 5 tokens: size the id set for every node the tape can hold (no
        # growth), up to 1024 slots (small documents then zero a few hundred bytes, not 8 KiB)
        while icap < 1024 and icap < 2 * (self.ntok // 5 + 1):
            icap *= 2
        cur = <Py_ssize_t*>PyMem_Malloc(2 * cap * sizeof(Py_ssize_t))
        ids = <uint64_t*>PyMem_Calloc(icap, sizeof(uint64_t))
        if cur == NULL or ids == NULL:
            PyMem_Free(cur)
            PyMem_Free(ids)
            raise MemoryError()
        cend = cur + cap
        try:
            while True:
                count += 1
                if count > max_nodes:
                    return False
                t = &tape[node]
                if t.kind != T_OBJ:
                    return False
                has_id = has_kind = False
                children = -1
                k = node + 1
                end = t.a
                while k < end:
                    kt = &tape[k]
                    vi = k + 1
                    v = &tape[vi]
                    s = self.tstr(kt)
                    L = kt.b
                    if L == 2 and s[0] == 0x69 and s[1] == 0x64:  # id
                        if v.kind != T_STR:
                            return False
                        s = self.tstr(v)
                        if not _name_ok_at(s, v.b, self.tlim(v), False):
                            return False
                        if 2 * (iused + 1) > icap:
                            ids = _table_grow(ids, icap, NULL)
                            icap *= 2
                        h = _fnv(s, v.b) & 0xFFFFFFFFULL
                        slot = <Py_ssize_t>(h & <uint64_t>(icap - 1))
                        h <<= 32
                        while ids[slot]:
                            e = ids[slot]
                            if (e & 0xFFFFFFFF00000000ULL) == h:
                                other = &tape[(e & 0xFFFFFFFFULL) - 1]
                                if other.b == v.b and memcmp(self.tstr(other), s, v.b) == 0:
                                    return False  # a duplicate id
                            slot = (slot + 1) & (icap - 1)
                        ids[slot] = h | <uint64_t>(vi + 1)
                        iused += 1
                        has_id = True
                    elif L == 4 and memcmp(s, b"kind", 4) == 0:
                        if v.kind != T_STR or not _kind_ok(self.tstr(v), v.b):
                            return False
                        has_kind = True
                    elif L == 5 and memcmp(s, b"attrs", 5) == 0:
                        if v.kind != T_OBJ:
                            return False
                        if v.b == 0:
                            kt.flags |= F_SKIP
                        else:
                            a = vi + 1
                            while a < v.a:
                                if not _name_ok_at(self.tstr(&tape[a]), tape[a].b,
                                                   self.tlim(&tape[a]), True):
                                    return False
                                a = self.vend(a + 1)
                    elif L == 8 and memcmp(s, b"children", 8) == 0:
                        if v.kind != T_ARR:
                            return False
                        if v.a == vi + 1:
                            kt.flags |= F_SKIP
                        else:
                            children = vi
                    else:
                        return False
                    k = self.vend(vi)
                if not (has_id and has_kind):
                    return False
                # a child that is not an object is refused at the top of the loop, before
                # the cursor moved past it is used
                node = _next_node(tape, cur, cend, &sp, cap, children)
                if node < 0:
                    return node == -1  # -2, a full stack, cannot happen: nodes nest maxd / 2 deep
        finally:
            PyMem_Free(cur)
            PyMem_Free(ids)

    # -- the canonical writer -----------------------------------------------------------------
    cdef object write(self):
        cdef _Buf out = _new_buf(self.n + 64)
        cdef Tok* tape = self.tape
        cdef uint32_t* order = self.order
        cdef Tok* tk
        cdef Py_ssize_t t = 0, sp = 0, L
        cdef char* o
        cdef const uint8_t* src
        cdef NumInfo r
        cdef Py_ssize_t* wnext
        cdef Py_ssize_t* wend
        cdef uint8_t* wobj
        cdef uint8_t* wfirst
        cdef Py_ssize_t kt
        cdef Py_ssize_t wcap = self.maxd + 1
        cdef const uint8_t* lim
        cdef const uint8_t* p_lim = self.p + self.n
        cdef nuif_hashpipe* pipe = NULL
        cdef Py_ssize_t feed_at = PY_SSIZE_T_MAX
        cdef int rc
        wnext = <Py_ssize_t*>PyMem_Malloc(wcap * (2 * sizeof(Py_ssize_t) + 2))
        if wnext == NULL:
            raise MemoryError()
        wend = wnext + wcap
        wobj = <uint8_t*>(wend + wcap)
        wfirst = wobj + wcap
        self.has_digest = False
        if self.want_digest and _openssl and self.n >= _pipe_min:
            pipe = nuif_hashpipe_start()  # NULL: hashed afterwards, as for small texts
            if pipe != NULL:
                out.pipe = pipe
                feed_at = _pipe_step
        try:
            while True:
                tk = &tape[t]
                if tk.kind == T_STR:
                    src = self.tstr(tk)
                    lim = self.tlim(tk)
                    L = tk.b
                    if tk.flags & F_NEEDS_ESC:
                        o = out.reserve(6 * L + 2)
                        o[0] = 0x22
                        L = _escape_into(o + 1, src, L) + 1
                        o[L] = 0x22
                        out.n += L + 1
                    else:
                        o = out.reserve(L + 18)
                        o[0] = 0x22
                        _copy(o + 1, src, L, lim)
                        o[L + 1] = 0x22
                        out.n += L + 2
                elif tk.kind == T_ARR or tk.kind == T_OBJ:
                    o = out.reserve(1)
                    if tk.kind == T_ARR:
                        o[0] = 0x5B
                        wnext[sp] = t + 1
                        wend[sp] = tk.a
                        wobj[sp] = 0
                    else:
                        o[0] = 0x7B
                        wnext[sp] = tk.c
                        wend[sp] = tk.c + tk.b
                        wobj[sp] = 1
                    wfirst[sp] = 1
                    out.n += 1
                    sp += 1
                elif tk.kind == T_INT:
                    if tk.flags & F_NEGZERO:
                        out.putc(0x30)
                    else:
                        o = out.reserve(tk.b + 16)
                        _copy(o, self.p + tk.a, tk.b, p_lim)
                        out.n += tk.b
                elif tk.kind == T_FLT:
                    if tk.flags & F_LIT:
                        o = out.reserve(tk.b + 16)
                        _copy(o, self.p + tk.a, tk.b, p_lim)
                        out.n += tk.b
                    elif tk.flags & F_DBL:
                        o = out.reserve(48)
                        out.n += _fmt_double(o, self.dbl[tk.c])
                    else:
                        o = out.reserve(48)
                        _analyze(self.p + tk.a, tk.b, &r)
                        if r.k == 0:
                            o[0] = 0x30
                            out.n += 1
                        else:
                            out.n += _fmt_es(o, r.neg, r.d, r.k, r.n)
                elif tk.kind == T_TRUE:
                    out.put(b"true", 4)
                elif tk.kind == T_FALSE:
                    out.put(b"false", 5)
                else:
                    out.put(b"null", 4)
                if out.n >= feed_at:  # another step of the text is final: hash it meanwhile
                    if _pipe_fault:
                        raise MemoryError("injected by _set_hashpipe (testing)")
                    nuif_hashpipe_feed(pipe, <const unsigned char*>out.b, out.n)
                    feed_at = out.n + _pipe_step
                # the next value to write
                while sp > 0:
                    if wnext[sp - 1] == wend[sp - 1]:
                        out.putc(0x7D if wobj[sp - 1] else 0x5D)
                        sp -= 1
                        continue
                    if wobj[sp - 1]:
                        kt = order[wnext[sp - 1]]
                        wnext[sp - 1] += 1
                        tk = &tape[kt]
                        if tk.flags & F_SKIP:  # only canonical_document sets it
                            continue
                        src = self.tstr(tk)
                        lim = self.tlim(tk)
                        L = tk.b
                        if tk.flags & F_NEEDS_ESC:
                            if not wfirst[sp - 1]:
                                out.putc(0x2C)
                            wfirst[sp - 1] = 0
                            o = out.reserve(6 * L + 3)
                            o[0] = 0x22
                            L = _escape_into(o + 1, src, L) + 1
                            o[L] = 0x22
                            o[L + 1] = 0x3A
                            out.n += L + 2
                        else:
                            o = out.reserve(L + 20)
                            if not wfirst[sp - 1]:
                                o[0] = 0x2C
                                o += 1
                                out.n += 1
                            wfirst[sp - 1] = 0
                            o[0] = 0x22
                            _copy(o + 1, src, L, lim)
                            o[L + 1] = 0x22
                            o[L + 2] = 0x3A
                            out.n += L + 3
                        t = kt + 1
                    else:
                        if not wfirst[sp - 1]:
                            out.putc(0x2C)
                        wfirst[sp - 1] = 0
                        t = wnext[sp - 1]
                        tk = &tape[t]
                        wnext[sp - 1] = tk.a if (tk.kind == T_ARR or tk.kind == T_OBJ) else t + 1
                    break
                else:
                    break
            if pipe != NULL:  # the last part, then the digest (the buffer moves in finish)
                out.pipe = NULL
                with nogil:
                    rc = nuif_hashpipe_finish(pipe, <const unsigned char*>out.b, out.n, self.digest)
                pipe = NULL
                self.has_digest = rc == 0
        finally:
            PyMem_Free(wnext)
            if pipe != NULL:  # an error while writing: stop the hashing thread
                out.pipe = NULL
                nuif_hashpipe_abort(pipe)
        return out.finish()


cdef _Parser _new_parser(bytes data, Py_ssize_t max_depth, object max_depth_obj, bint tape_mode):
    cdef _Parser ps = _Parser.__new__(_Parser)
    ps.init(data, max_depth, max_depth_obj, tape_mode)
    return ps


cdef Py_ssize_t _clamp_depth(object max_depth, Py_ssize_t n) except? -2:
    # no text of n bytes nests deeper than n: clamp so huge limits fit a C integer
    # (max_depth is an int: the callers checked its type)
    cdef int overflow = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(max_depth, &overflow)
    if overflow > 0 or v > n + 1:
        return n + 1
    if overflow < 0 or v < -1:
        return -1
    return <Py_ssize_t>v


def loads(data, max_depth):
    """Parse strict I-JSON ``data`` into Python values (see ``_codec_py.loads``)."""
    if type(data) is not bytes or type(max_depth) is not int:
        return _tw().loads(data, max_depth)
    cdef bytes b = <bytes>data
    cdef _Parser ps = _new_parser(b, _clamp_depth(max_depth, len(b)), max_depth, False)
    cdef int gc_was_on
    ps.validate()
    # the values built here hold no reference cycles: the cyclic collector would only walk the
    # growing tree again and again (about a third of the time on large documents)
    gc_was_on = PyGC_Disable()
    try:
        ps.run()
    finally:
        if gc_was_on:
            PyGC_Enable()
    return ps.result


def canonical_json(data, max_depth):
    """RFC 8785 bytes of strict I-JSON text ``data`` (see ``_codec_py.canonical_json``)."""
    if type(data) is not bytes or type(max_depth) is not int or len(data) >= LIMIT_TAPE:
        return _tw().canonical_json(data, max_depth)
    cdef bytes b = <bytes>data
    cdef _Parser ps = _new_parser(b, _clamp_depth(max_depth, len(b)), max_depth, True)
    ps.validate()
    ps.run()
    return ps.write()


def canonical_document(data, max_depth, max_nodes):
    """The canonical text of a valid NUIF document, or None when it has any schema problem.

    Text errors are raised exactly as ``canonical_json`` raises them.  The schema (NUIF-0 §3:
    members, types, id/kind/attribute-name rules, unique ids, at most ``max_nodes`` nodes,
    ``"nuif"`` equal to 0) is checked on the token tape; the result is the RFC 8785 text of the
    normalized document (no empty ``attrs``, ``children`` or ``meta``).  None means: let the
    Python checker (``_document``) report the problems.
    """
    if (type(data) is not bytes or type(max_depth) is not int or type(max_nodes) is not int
            or len(data) >= LIMIT_TAPE):
        return _tw().canonical_document(data, max_depth, max_nodes)
    return _document_text(<bytes>data, max_depth, max_nodes)


cdef object _document_text(bytes b, object max_depth, object max_nodes,
                           unsigned char* digest=NULL, bint* got=NULL, list keep=None):
    """canonical_document for arguments already checked (bytes below LIMIT_TAPE, two ints).

    With ``digest``, a large text is also hashed while it is written (csrc/nuif_hashpipe.h):
    ``*got`` says whether ``digest`` holds its SHA-256.  With ``keep``, the parser of a valid
    document is appended to it, so its checked tape outlives the call (``inspect_summary``)."""
    cdef _Parser ps = _new_parser(b, _clamp_depth(max_depth, len(b)), max_depth, True)
    cdef Py_ssize_t mn = max_nodes if max_nodes < (1 << 40) else (1 << 40)
    ps.validate()
    ps.run()
    if not ps.check_document(mn):
        return None
    if keep is not None:
        keep.append(ps)
    ps.want_digest = digest != NULL
    canonical = ps.write()
    if ps.has_digest:
        memcpy(digest, ps.digest, 32)
        got[0] = True
    return canonical


# ---------------------------------------------------------------------------------------------
# canonicalize in one call: canonical text, its hash, ``changed``, and the result object

cdef extern from *:
    """
    static PyObject* nuif_type_alloc(PyObject* cls) {
        PyTypeObject* t = (PyTypeObject*)cls;
        return t->tp_alloc(t, 0);
    }
    static int nuif_descr_set(PyObject* descr, PyObject* obj, PyObject* value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    """
    object nuif_type_alloc(object cls)
    int nuif_descr_set(object descr, object obj, object value) except -1

from hashlib import sha256 as _sha256

# the class canonical_result fills directly, and its three slot descriptors (set on first use)


cdef char HEX2[512]  # the two lowercase hex digits of every byte


cdef void _init_hex2() noexcept:
    cdef int k
    for k in range(256):
        HEX2[2 * k] = HEXDIGITS[k >> 4]
        HEX2[2 * k + 1] = HEXDIGITS[k & 15]


_init_hex2()


cdef extern from "nuif_sha256.h":
    int nuif_sha256(const void* p, size_t n, unsigned char* out) noexcept nogil
    int nuif_sha256_backend() noexcept nogil
    int nuif_sha256_lowlevel(int on) noexcept nogil

# libcrypto directly (csrc/nuif_sha256.h) when the build linked it, for texts up to
# SHA_DIRECT_MAX bytes; larger texts go through hashlib, which releases the GIL while it hashes
# (the direct path shares one context and must not).  ``_set_openssl(False)`` switches to
# hashlib so the tests can compare the two.
cdef bint _openssl = nuif_sha256_backend() == 1
cdef Py_ssize_t SHA_DIRECT_MAX = 64 * 1024


# Texts of documents of at least _pipe_min input bytes are hashed on a second thread while they
# are written, fed every _pipe_step output bytes (csrc/nuif_hashpipe.h).  Measured on `ui`: at
# 256 KiB the thread's start and hand-overs (~40 us) cost what overlapping the hash saves, at 1 MiB
# it saves ~7 % (16 MiB: ~10 %).  A process allowed on one CPU only gains nothing from a second
# thread: it never starts one.
cdef Py_ssize_t _pipe_min = PY_SSIZE_T_MAX


def _usable_cpus():
    import os
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


if _usable_cpus() >= 2:
    _pipe_min = 512 * 1024
cdef Py_ssize_t _pipe_step = 128 * 1024
cdef bint _pipe_fault = False


def hash_backend():
    """``"openssl"`` (libcrypto called directly, texts up to 64 KiB) or ``"hashlib"``."""
    return "openssl" if _openssl else "hashlib"


def hashpipe_backend():
    """``"thread"`` when large texts are hashed while they are written; ``"off"`` when the build
    can but this process does not (allowed on one CPU only); ``"none"`` when the build cannot."""
    if not (_openssl and nuif_hashpipe_available()):
        return "none"
    return "off" if _pipe_min == PY_SSIZE_T_MAX else "thread"


def _set_hashpipe(Py_ssize_t min_bytes, Py_ssize_t step, bint fault=False):
    """Testing only: hash texts of inputs of ``min_bytes`` and more while writing, fed every
    ``step`` bytes (``min_bytes`` = PY_SSIZE_T_MAX: never); ``fault``: the first feed raises
    MemoryError (the error path).  Returns the old triple."""
    global _pipe_min, _pipe_step, _pipe_fault
    if step < 1 or min_bytes < 0:
        raise ValueError("step must be positive and min_bytes not negative")
    old = (_pipe_min, _pipe_step, _pipe_fault)
    _pipe_min, _pipe_step, _pipe_fault = min_bytes, step, fault
    return old


def _set_openssl(bint on):
    """Testing only: hash through libcrypto (when built with it) or hashlib. Returns the old state."""
    global _openssl
    cdef bint old = _openssl
    _openssl = on and nuif_sha256_backend() == 1
    return old


def _set_sha_lowlevel(int on):
    """Testing only: libcrypto's SHA256_Init/_Update/_Final (1, where built) or its EVP interface
    (0) for the direct route; -1 only asks.  Returns the old choice as a bool."""
    if on not in (-1, 0, 1):
        raise ValueError("on must be -1, 0 or 1")
    return nuif_sha256_lowlevel(on) == 1


cdef object _hash_text(object canonical, const unsigned char* known=NULL):
    """``"sha256:"`` + lowercase hex SHA-256: libcrypto's or hashlib's digest (or ``known``, the
    digest already computed while writing), hex written here."""
    cdef unsigned char raw[32]
    cdef const uint8_t* d = raw
    cdef char* o
    cdef Py_ssize_t k
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
    for k in range(32):
        memcpy(o + 7 + 2 * k, HEX2 + 2 * d[k], 2)
    return s


def hash_bytes(canonical):
    """``"sha256:"`` + lowercase hex SHA-256 of ``canonical`` (NUIF-0 §3)."""
    return _hash_text(canonical)


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
    """``cls(*values)``, with the slots set here when ``_slot_plan`` allows it: what the
    dataclass's generated ``__init__`` does (``object.__setattr__`` per field), minus the calls."""
    plan = _slot_plan(cls, names)
    if plan is None:
        return cls(*values)
    r = nuif_type_alloc(cls)
    for i in range(len(names)):
        nuif_descr_set((<tuple>plan)[i], r, (<tuple>values)[i])
    return r


cdef tuple _RESULT_FIELDS = ("canonical", "hash", "changed")
cdef tuple _REPORT_FIELDS = ("valid", "hash", "diagnostics", "truncated")


def canonical_result(data, max_depth, max_nodes, make):
    """``make(canonical, hash, changed)`` for a valid NUIF document, or None when it has a schema
    problem (see ``_codec_py.canonical_result``).  When ``make`` is the frozen slots dataclass
    ``CanonicalResult``, its instance is allocated and its three slots set here (``_filled``)."""
    if (type(data) is not bytes or type(max_depth) is not int or type(max_nodes) is not int
            or len(data) >= LIMIT_TAPE):
        return _tw().canonical_result(data, max_depth, max_nodes, make)
    cdef bytes b = <bytes>data
    cdef unsigned char digest[32]
    cdef bint got = False
    canonical = _document_text(b, max_depth, max_nodes, digest, &got)
    if canonical is None:
        return None
    h = _hash_text(canonical, digest if got else NULL)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(canonical)
    changed = not (n == PyBytes_GET_SIZE(b)
                   and memcmp(PyBytes_AS_STRING(canonical), PyBytes_AS_STRING(b), n) == 0)
    return _filled(make, _RESULT_FIELDS, (canonical, h, changed))


def valid_report(data, max_depth, max_nodes, make):
    """``make(True, hash, (), False)`` for a valid NUIF document, or None when it has a schema
    problem (see ``_codec_py.valid_report``); ``ValidationReport``'s slots are set here."""
    if (type(data) is not bytes or type(max_depth) is not int or type(max_nodes) is not int
            or len(data) >= LIMIT_TAPE):
        return _tw().valid_report(data, max_depth, max_nodes, make)
    cdef unsigned char digest[32]
    cdef bint got = False
    canonical = _document_text(<bytes>data, max_depth, max_nodes, digest, &got)
    if canonical is None:
        return None
    return _filled(make, _REPORT_FIELDS, (True, _hash_text(canonical, digest if got else NULL),
                                          (), False))


# ---------------------------------------------------------------------------------------------
# inspect in one call: the canonical text's hash and size, and a summary of the node tree read
# off the checked tape (no Python model)

cdef tuple _INSPECTION_FIELDS = ("hash", "is_canonical", "input_bytes", "canonical_bytes",
                                 "node_count", "max_depth", "kinds", "root", "outline",
                                 "truncated")
cdef tuple _ENTRY_FIELDS = ("id", "kind", "depth", "children")
cdef tuple _REF_FIELDS = ("id", "kind")


cdef inline object _ascii_str(const uint8_t* s, Py_ssize_t L):
    """A str of L ASCII bytes (ids and kinds: the §3 check admitted only ASCII)."""
    o = PyUnicode_New(L, 127)
    memcpy(PyUnicode_DATA(o), s, L)
    return o


cdef object _made(object cls, object plan, tuple values):
    """``_filled`` with the plan already looked up (one per class per call)."""
    cdef Py_ssize_t i
    if plan is None:
        return cls(*values)
    r = nuif_type_alloc(cls)
    for i in range(len(<tuple>plan)):
        nuif_descr_set((<tuple>plan)[i], r, values[i])
    return r


cdef object _tree_summary(_Parser ps, Py_ssize_t max_outline, object entry, object ref):
    """``(node_count, max_depth, kinds, root, outline, truncated)`` of the document on the tape
    of ``ps``, which ``check_document`` accepted (every node valid, F_SKIP set on the members
    normalization omits).  Nodes are visited in document pre-order with an explicit stack, as
    ``check_nodes`` visits them; a node's members are told apart by the length of their
    (decoded) names, the only four names the check let through: id 2, kind 4, attrs 5,
    children 8."""
    cdef Tok* tape = ps.tape
    cdef Tok* t
    cdef Tok* kt
    cdef Tok* kk
    cdef Py_ssize_t k, end, vi, node = -1, children, id_tok, kind_tok, nkids, e
    cdef Py_ssize_t count = 0, deepest = 0, sp = 0, cap = ps.maxd + 2
    cdef Py_ssize_t* cur = NULL
    cdef Py_ssize_t* cend
    # kinds: open addressing over (32-bit hash << 32) | (token of the first such kind + 1), a
    # count per slot; load <= 1/2
    cdef uint64_t* kslot = NULL
    cdef Py_ssize_t* kcount = NULL
    cdef Py_ssize_t kcap = 64, kused = 0, slot, j
    cdef uint64_t h, x
    cdef const uint8_t* s
    entry_plan = _slot_plan(entry, _ENTRY_FIELDS)
    outline = []
    # the root: the document's "root" member
    k = 1
    end = tape[0].a
    while k < end:
        if tape[k].b == 4 and memcmp(ps.tstr(&tape[k]), b"root", 4) == 0:
            node = k + 1
        k = ps.vend(k + 1)
    if node < 0:  # pragma: no cover - check_document found it
        raise AssertionError("no root on a checked tape")
    cur = <Py_ssize_t*>PyMem_Malloc(2 * cap * sizeof(Py_ssize_t))
    kslot = <uint64_t*>PyMem_Calloc(kcap, sizeof(uint64_t))
    kcount = <Py_ssize_t*>PyMem_Malloc(kcap * sizeof(Py_ssize_t))
    if cur == NULL or kslot == NULL or kcount == NULL:
        PyMem_Free(cur)
        PyMem_Free(kslot)
        PyMem_Free(kcount)
        raise MemoryError()
    cend = cur + cap
    try:
        root_node = node
        while True:
            count += 1
            if sp + 1 > deepest:
                deepest = sp + 1
            t = &tape[node]
            id_tok = kind_tok = children = -1
            k = node + 1
            end = t.a
            while k < end:
                kt = &tape[k]
                vi = k + 1
                if kt.b == 2:
                    id_tok = vi
                elif kt.b == 4:
                    kind_tok = vi
                elif kt.b == 8 and not (kt.flags & F_SKIP):
                    children = vi
                k = ps.vend(vi)
            # count the kind
            kk = &tape[kind_tok]
            s = ps.tstr(kk)
            h = _fnv(s, kk.b) & 0xFFFFFFFFULL
            slot = <Py_ssize_t>(h & <uint64_t>(kcap - 1))
            h <<= 32
            while True:
                x = kslot[slot]
                if x == 0:
                    kslot[slot] = h | <uint64_t>(kind_tok + 1)
                    kcount[slot] = 1
                    kused += 1
                    break
                if (x & 0xFFFFFFFF00000000ULL) == h:
                    e = <Py_ssize_t>(x & 0xFFFFFFFFULL) - 1
                    if tape[e].b == kk.b and memcmp(ps.tstr(&tape[e]), s, kk.b) == 0:
                        kcount[slot] += 1
                        break
                slot = (slot + 1) & (kcap - 1)
            if 2 * kused > kcap:
                kslot = _table_grow(kslot, kcap, &kcount)
                kcap *= 2
            # the outline
            if count <= max_outline:
                nkids = 0
                if children >= 0:
                    e = children + 1
                    while e < tape[children].a:
                        nkids += 1
                        e = ps.vend(e)
                PyList_Append(outline, _made(entry, entry_plan, (
                    _ascii_str(ps.tstr(&tape[id_tok]), tape[id_tok].b),
                    _ascii_str(s, kk.b), sp + 1, nkids)))
            if node == root_node:
                root = _made(ref, _slot_plan(ref, _REF_FIELDS), (
                    _ascii_str(ps.tstr(&tape[id_tok]), tape[id_tok].b), _ascii_str(s, kk.b)))
            node = _next_node(tape, cur, cend, &sp, cap, children)
            if node == -1:
                break
            if node == -2:  # pragma: no cover - nodes nest at most maxd / 2 deep
                raise AssertionError("the node stack overflowed on a checked tape")
        kinds = []
        for j in range(kcap):
            x = kslot[j]
            if x:
                kk = &tape[<Py_ssize_t>(x & 0xFFFFFFFFULL) - 1]
                kinds.append((_ascii_str(ps.tstr(kk), kk.b), kcount[j]))
    finally:
        PyMem_Free(cur)
        PyMem_Free(kslot)
        PyMem_Free(kcount)
    kinds.sort()
    return count, deepest, dict(kinds), root, tuple(outline), count > len(outline)


def inspect_summary(data, max_depth, max_nodes, max_outline, make, entry, ref):
    """``make(hash, is_canonical, input_bytes, canonical_bytes, node_count, max_depth, kinds,
    ref(root_id, root_kind), outline, truncated)`` for a valid NUIF document, or None when it has
    a schema problem (exactly when ``canonical_document`` returns None; text errors raise as
    there).  ``outline`` is a tuple of ``entry(id, kind, depth, children)`` for the first
    ``max_outline`` nodes in document pre-order (see ``_codec_py.inspect_summary``).

    The text is parsed, checked and written by ``_document_text``; the node tree is then read
    off the same checked tape (``_tree_summary``), so no Python model is built.  When ``make``,
    ``entry`` and ``ref`` are the frozen slots dataclasses ``Inspection``, ``OutlineEntry`` and
    ``NodeRef``, their slots are set here (``_filled``)."""
    if (type(data) is not bytes or type(max_depth) is not int or type(max_nodes) is not int
            or type(max_outline) is not int or len(data) >= LIMIT_TAPE):
        return _tw().inspect_summary(data, max_depth, max_nodes, max_outline, make, entry, ref)
    cdef bytes b = <bytes>data
    cdef unsigned char digest[32]
    cdef bint got = False
    cdef list keep = []
    cdef Py_ssize_t mo = 0
    if max_outline > 0:
        mo = max_outline if max_outline < (1 << 40) else (1 << 40)
    canonical = _document_text(b, max_depth, max_nodes, digest, &got, keep)
    if canonical is None:
        return None
    h = _hash_text(canonical, digest if got else NULL)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(canonical)
    same = (n == PyBytes_GET_SIZE(b)
            and memcmp(PyBytes_AS_STRING(canonical), PyBytes_AS_STRING(b), n) == 0)
    count, deepest, kinds, root, outline, truncated = _tree_summary(<_Parser>keep[0], mo, entry,
                                                                    ref)
    return _filled(make, _INSPECTION_FIELDS, (h, same, PyBytes_GET_SIZE(b), n, count, deepest,
                                              kinds, root, outline, truncated))


# ---------------------------------------------------------------------------------------------
# dumps: Python values to canonical bytes

ctypedef struct PathNode:
    PathNode* up
    PyObject* key       # borrowed (kept alive by the caller), or NULL for an index
    Py_ssize_t index


cdef object _path_pointer(PathNode* node):
    parts = []
    while node != NULL:
        if node.key != NULL:
            parts.append(<object>node.key)
        else:
            parts.append(node.index)
        node = node.up
    parts.reverse()
    return join_pointer(parts)


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


@cython.final
cdef class _Dumper:
    cdef _Buf out
    cdef Py_ssize_t max_depth
    cdef object max_depth_obj
    cdef SEnt* sbuf
    cdef Py_ssize_t scap

    def __cinit__(self, Py_ssize_t max_depth, object max_depth_obj):
        self.out = _new_buf(256)
        self.max_depth = max_depth
        self.max_depth_obj = max_depth_obj
        self.sbuf = NULL
        self.scap = 0

    def __dealloc__(self):
        PyMem_Free(self.sbuf)

    cdef int too_deep(self, PathNode* node) except -1:
        raise NuifError(
            "NUIF_DEPTH",
            f"arrays and objects are nested deeper than the limit of {self.max_depth_obj}",
            pointer=_path_pointer(node),
        )

    cdef int check_utf8(self, object s, const char* u, Py_ssize_t L, PathNode* node) except -1:
        """Noncharacter check of a str's UTF-8 (lone surrogates were caught before)."""
        cdef const uint8_t* p = <const uint8_t*>u
        cdef Py_ssize_t j = 0, cp
        cdef uint8_t c
        while j < L:
            c = p[j]
            if c < 0xEF:
                j += 1
                continue
            cp = _nonchar_at(p, j)
            if cp >= 0:
                raise NuifError(
                    "NUIF_UNICODE",
                    f"U+{cp:04X} is a Unicode noncharacter (I-JSON forbids it)",
                    pointer=_path_pointer(node),
                )
            j += _seq_len(c)
        return 0

    cdef const char* str_utf8(self, object s, Py_ssize_t* L, PathNode* node) except NULL:
        cdef const char* u
        try:
            u = PyUnicode_AsUTF8AndSize(s, L)
        except UnicodeEncodeError:
            _tw()._check_str(s, _path_list(node))  # raises the twin's lone-surrogate error
            raise
        if not PyUnicode_IS_ASCII(s):
            self.check_utf8(s, u, L[0], node)
        return u

    cdef int write_str(self, const char* u, Py_ssize_t L) except -1:
        cdef char* o
        cdef Py_ssize_t r = 0
        cdef const uint8_t* s = <const uint8_t*>u
        while r + 8 <= L and _out_special(_load64(s + r)) == 0:
            r += 8
        while r < L and OUT_ESC[s[r]] == 0:
            r += 1
        if r == L:
            o = self.out.reserve(L + 2)
            o[0] = 0x22
            memcpy(o + 1, u, L)
            o[L + 1] = 0x22
            self.out.n += L + 2
        else:
            o = self.out.reserve(6 * L + 2)
            o[0] = 0x22
            L = _escape_into(o + 1, s, L) + 1
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
        cdef char nearest[48]
        cdef Py_ssize_t n = 0
        if v.bit_length() <= 1100:  # 2^1100 and beyond overflow a double (and str() refuses
            text = str(int(v)).encode("ascii")  # ints of more than 4300 digits)
            n = _big_integer(<const uint8_t*>PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text),
                             &x, nearest)
            if n < 0:
                self.out.put(PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text))
                return 0
        raise NuifError(
            "NUIF_NUMBER",
            _tw().big_integer_message(_tw().int_shown(v), nearest[:n].decode("ascii") if n else None),
            pointer=_path_pointer(node),
        )

    cdef int write_float(self, object v, PathNode* node) except -1:
        cdef double x = PyFloat_AS_DOUBLE(v)
        cdef char* o
        if not isfinite(x):
            raise NuifError("NUIF_NUMBER", f"{v!r} is not a JSON number", pointer=_path_pointer(node))
        o = self.out.reserve(48)
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
            f"a {type(v).__name__} has no JSON representation",
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
        cdef SEnt* e
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
                    f"object member names must be str, not {type(key).__name__}",
                    pointer=_path_pointer(node),
                )
        cnt = len(keys)
        child.up = node
        child.index = 0
        self.out.putc(0x7B)
        if cnt > 0:
            if 2 * cnt > self.scap:
                PyMem_Free(self.sbuf)
                self.sbuf = NULL
                self.scap = 0
                self.sbuf = <SEnt*>PyMem_Malloc(2 * cnt * sizeof(SEnt))
                if self.sbuf == NULL:
                    raise MemoryError()
                self.scap = 2 * cnt
            e = self.sbuf
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
                order = sorted(range(cnt), key=[_tw()._utf16_key(k) for k in keys].__getitem__)
            else:
                # the sort buffer may be reused by nested dicts: copy the order out first
                _sort_ents(e, e + cnt, cnt)
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


def dumps(value, max_depth):
    """RFC 8785 bytes of a Python value (see ``_codec_py.dumps``)."""
    if type(max_depth) is not int:
        return _tw().dumps(value, max_depth)
    cdef Py_ssize_t md
    if max_depth > (1 << 40):
        md = 1 << 40
    elif max_depth < -1:
        md = -1
    else:
        md = max_depth
    cdef _Dumper d = _Dumper(md, max_depth)
    d.dump(value, 0, NULL)
    return d.out.finish()


# -- node spans of a canonical document (twin: _codec_py.node_spans) ---------------------------

cdef Py_ssize_t _ns_skip_string(const char* c, Py_ssize_t pos, Py_ssize_t n) except -1:
    # pos at an opening quote; returns the index just past the closing quote
    pos += 1
    while pos < n:
        if c[pos] == b'\\':
            pos += 2
        elif c[pos] == b'"':
            return pos + 1
        else:
            pos += 1
    raise ValueError("unterminated string")


cdef Py_ssize_t _ns_skip_value(const char* c, Py_ssize_t pos, Py_ssize_t n) except -1:
    cdef Py_ssize_t depth = 0
    cdef char ch
    if pos >= n:
        raise ValueError("expected a value")
    ch = c[pos]
    if ch == b'"':
        return _ns_skip_string(c, pos, n)
    if ch == b'{' or ch == b'[':
        while pos < n:
            ch = c[pos]
            if ch == b'"':
                pos = _ns_skip_string(c, pos, n)
                continue
            if ch == b'{' or ch == b'[':
                depth += 1
            elif ch == b'}' or ch == b']':
                depth -= 1
                if depth == 0:
                    return pos + 1
            pos += 1
        raise ValueError("unterminated container")
    while pos < n:
        ch = c[pos]
        if ch == b',' or ch == b'}' or ch == b']':
            return pos
        pos += 1
    raise ValueError("unterminated scalar")


cdef inline bint _ns_at(const char* c, Py_ssize_t pos, Py_ssize_t n, const char* tok, Py_ssize_t k):
    return pos + k <= n and memcmp(c + pos, tok, k) == 0


cdef Py_ssize_t _ns_expect(const char* c, Py_ssize_t pos, Py_ssize_t n, const char* tok) except -1:
    cdef Py_ssize_t k = strlen(tok)
    if not _ns_at(c, pos, n, tok, k):
        raise ValueError(f"not a canonical NUIF document: expected {tok!r} at {pos}")
    return pos + k


def node_spans(bytes data):
    """Compiled twin of ``_codec_py.node_spans`` (same result, same ValueError on bad layout)."""
    cdef const char* c = PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t pos, root_start, start, head_end, q, kind_start
    cdef Py_ssize_t depth = 1
    cdef list stack = []
    cdef dict spans = {}
    if _ns_at(c, 0, n, b'{"meta":', 8):
        pos = _ns_expect(c, _ns_skip_value(c, 8, n), n, b',"nuif":0,"root":')
    else:
        pos = _ns_expect(c, 0, n, b'{"nuif":0,"root":')
    root_start = pos
    while True:
        start = pos
        pos = _ns_expect(c, pos, n, b'{')
        if _ns_at(c, pos, n, b'"attrs":{', 9):
            pos = _ns_expect(c, _ns_skip_value(c, pos + 8, n), n, b',')
        head_end = pos
        if _ns_at(c, pos, n, b'"children":[', 12):
            stack.append((start, head_end))
            pos += 12
            depth += 1
            continue
        while True:
            pos = _ns_expect(c, pos, n, b'"id":"')
            q = pos
            while q < n and c[q] != b'"':
                q += 1
            if q >= n:
                raise ValueError("unterminated id")
            nid = data[pos:q].decode("ascii")
            pos = _ns_expect(c, q + 1, n, b',"kind":')
            kind_start = pos
            if pos >= n or c[pos] != b'"':
                raise ValueError("kind is not a string")
            pos = _ns_expect(c, _ns_skip_string(c, pos, n), n, b'}')
            spans[nid] = (start, head_end, kind_start, pos - 1, depth)
            if not stack:
                if pos != n - 1 or c[pos] != b'}':
                    raise ValueError("trailing bytes after the root node")
                return root_start, spans
            if c[pos] == b',':
                pos += 1
                break
            pos = _ns_expect(c, pos, n, b'],')
            start, head_end = stack.pop()
            depth -= 1
