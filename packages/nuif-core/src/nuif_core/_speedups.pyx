# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The compiled codec: strict I-JSON parser and RFC 8785 writer.  Not a public API: nuif_core
reaches it through ``_codec``, which picks it or its pure-Python twin ``_codec_py``.

Behaviour (bytes and errors) is defined by the twin.  Every text of canonical_json and the
document entry points goes through one pipeline in C (csrc/nuif_doc.h, driven by
_speedups_doc.pxi): the whole input's UTF-8 check, the walk that builds the token tape
(csrc/nuif_walk.h), the NUIF-0 §3 check for documents (csrc/nuif_check.h), and the writer, which
hashes its text while it writes it (csrc/nuif_write.h).  A text the walk refuses is explained
from where it stopped (csrc/nuif_fault.h, _speedups_fault.pxi), with the twin's message, pointer,
line and column; ``loads`` builds its values from the walk's tape, so one parser reads every
text.  Every call runs on the
caller's thread: the module starts no thread.

The tape holds one 16-byte token per value or member name (csrc/nuif_tape.h): scalars keep
offsets into the input (or into an arena of decoded strings when a string has escapes);
containers keep the index just past their subtree; objects also point at a run of an ``order``
array holding their member-name tokens sorted by UTF-16 code units (sorted when the object
closes, which is also where duplicate names are found).  The writer walks the tape with an
explicit stack.

This file holds the entry points and the argument guard they share; the work is in the parts it
includes, one job each (docs/architecture.md, "The compiled codec", has the map):

    _speedups_buffer.pxi    the growing output of dumps
    _speedups_strings.pxi   the whole input's UTF-8 check
    _speedups_numbers.pxi   doubles to and from text
    _speedups_schema.pxi    the node walk and string set of the inspect summary
    _speedups_hash.pxi      SHA-256 and the hash text
    _speedups_results.pxi   result objects
    _speedups_fault.pxi     the error of a text the walk refused (csrc/nuif_fault.h)
    _speedups_doc.pxi       the pipeline's glue (csrc/nuif_doc.h) and its kept state
    _speedups_loads.pxi     loads: Python values built from the walk's tape
    _speedups_report.pxi    every §3 problem of a document (csrc/nuif_report.h), worded
    _speedups_inspect.pxi   the inspect summary read off the tape
    _speedups_dump.pxi      Python values to RFC 8785 bytes (dumps)
    _speedups_spans.pxi     node spans of a canonical document
    _speedups_switches.pxi  test switches
    _speedups_doors.pxi     the front doors of canonicalize and validate

C-only helpers are headers in csrc/, each declared for Cython by the .pxd of the same name there;
they need no Python, only the host interface (csrc/nuif_host.h), which glue/nuif_host_python.h
implements with CPython (glue/ also holds the other C that needs Python.h).
"""

cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t
from libc.string cimport memcpy, memcmp, memset, strlen
from libc.math cimport isinf, isfinite
from cpython.object cimport PyObject
from cpython.ref cimport Py_XDECREF, Py_DECREF, Py_INCREF
from cpython.mem cimport PyMem_Malloc, PyMem_Calloc, PyMem_Realloc, PyMem_Free
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.list cimport PyList_Append
from cpython.dict cimport PyDict_SetItem
from cpython.exc cimport PyErr_Occurred

from nuif_host_python cimport *
from python_extras cimport *
from nuif_tape cimport *
from nuif_tables cimport *
from nuif_scan cimport *
from nuif_utf8 cimport *
from nuif_number cimport *
from nuif_float cimport *
from nuif_escape cimport *
from nuif_keysort cimport *
from nuif_names cimport *
from nuif_idset cimport *
from nuif_sha256 cimport *
from nuif_slots cimport *
from nuif_walk cimport *
from nuif_doc cimport *
from nuif_fault cimport *
from nuif_report cimport *

from nuif_core._errors import NuifError, join_pointer, text_error
from nuif_core._messages import describe_found, quote, short, big_integer_message, int_shown
from nuif_core._messages import big_integer_problem
from nuif_core._messages import BOM, UTF8, DEPTH, KEY_NOT_STR, NOT_A_NUMBER, NO_JSON_VALUE
from nuif_core._messages import CONTROL_IN_STRING, DUPLICATE_KEY, NUMBER_OVERFLOW, EXPECT_LITERAL
from nuif_core._messages import (
    EXPECT_ARRAY_NEXT,
    EXPECT_COLON,
    EXPECT_DIGIT,
    EXPECT_END,
    EXPECT_ESCAPE,
    EXPECT_FIRST_KEY,
    EXPECT_HEX,
    EXPECT_KEY,
    EXPECT_OBJECT_NEXT,
    EXPECT_STRING_END,
    EXPECT_VALUE,
)
from nuif_core._messages import LONE_SURROGATE, NONCHARACTER, SURROGATE_ESCAPE
from nuif_core._rfc8785 import utf16_key
# A call this module does not take (see _compiled_args: not bytes, limits not ints, a text too
# long for the tape) is answered by the twin, with its own checks and errors.  Imported on the
# first such call only (lazily, on purpose), so that importing the compiled codec stays cheap.
cdef object _twin_mod = None


cdef object _tw():
    global _twin_mod
    if _twin_mod is None:
        from nuif_core import _codec_py
        _twin_mod = _codec_py
    return _twin_mod

__all__ = [
    "canonical_document", "canonical_json", "canonical_result", "dumps", "float_backend",
    "hash_backend", "hash_bytes", "inspect_summary", "loads", "scan_backend", "schema_report",
    "utf8_backend", "valid_report",
]

# the C tables, filled once
nuif_tables_init()
nuif_escape_init()
nuif_names_init()
nuif_utf8_init()

# Inputs of LIMIT_TAPE bytes and more go to the twin: the tape keeps offsets and token indexes in
# 32 bits (csrc/nuif_tape.h), and the margin below 2**32 covers the few bytes past the end that
# the parser and the writer compute offsets for.
cdef Py_ssize_t LIMIT_TAPE = 0xFFFFFF00

include "_speedups_buffer.pxi"
include "_speedups_strings.pxi"
include "_speedups_numbers.pxi"
include "_speedups_schema.pxi"
include "_speedups_hash.pxi"
include "_speedups_results.pxi"
include "_speedups_fault.pxi"
include "_speedups_doc.pxi"
include "_speedups_loads.pxi"
include "_speedups_report.pxi"
include "_speedups_inspect.pxi"
include "_speedups_dump.pxi"
include "_speedups_spans.pxi"
include "_speedups_switches.pxi"
include "_speedups_doors.pxi"


cdef inline bint _compiled_args(object data, object max_depth, object max_nodes=0,
                                object max_outline=0, bint tape=True):
    """The argument guard of the entry points: True when this module takes the call (``data`` is
    bytes, the limits are ints and, for the token tape, ``data`` is shorter than LIMIT_TAPE);
    else the twin answers it, with its own checks and errors."""
    return (type(data) is bytes and type(max_depth) is int and type(max_nodes) is int
            and type(max_outline) is int
            and (not tape or PyBytes_GET_SIZE(data) < LIMIT_TAPE))


def loads(data, max_depth):
    """Parse strict I-JSON ``data`` into Python values (see ``_codec_py.loads``)."""
    if not _compiled_args(data, max_depth):
        return _tw().loads(data, max_depth)
    return _loads(<bytes>data, max_depth)


def canonical_json(data, max_depth):
    """RFC 8785 bytes of strict I-JSON text ``data`` (see ``_codec_py.canonical_json``)."""
    if not _compiled_args(data, max_depth):
        return _tw().canonical_json(data, max_depth)
    return _run(<bytes>data, max_depth, _c_depth(max_depth, PyBytes_GET_SIZE(data)), 0,
                NUIF_DOC_JSON)


def canonical_document(data, max_depth, max_nodes):
    """The canonical text of a valid NUIF document, or None when it has any schema problem.

    Text errors are raised exactly as ``canonical_json`` raises them.  The schema (NUIF-0 §3:
    members, types, id/kind/attribute-name rules, unique ids, at most ``max_nodes`` nodes,
    ``"nuif"`` equal to 0) is checked on the token tape; the result is the RFC 8785 text of the
    normalized document (no empty ``attrs``, ``children`` or ``meta``).  None means: a schema
    problem, which ``schema_report`` reports.
    """
    if not _compiled_args(data, max_depth, max_nodes):
        return _tw().canonical_document(data, max_depth, max_nodes)
    return _run(<bytes>data, max_depth, _c_depth(max_depth, PyBytes_GET_SIZE(data)),
                _c_nodes(max_nodes), NUIF_DOC_CHECK)


def schema_report(data, max_depth, max_nodes, max_diagnostics):
    """Every NUIF-0 §3 problem of ``data`` (see ``_codec_py.schema_report``), found and located
    in C (csrc/nuif_report.h) and worded with the twin's templates."""
    if not _compiled_args(data, max_depth, max_nodes) or type(max_diagnostics) is not int:
        return _tw().schema_report(data, max_depth, max_nodes, max_diagnostics)
    cdef Py_ssize_t most = 0 if max_diagnostics < 0 else min(max_diagnostics, 1 << 40)
    cdef nuif_doc spare
    if _doc.busy:  # a call made while another reads the kept tape (a finalizer)
        memset(&spare, 0, sizeof(nuif_doc))
        try:
            return _schema_report(&spare, <bytes>data, max_depth, max_nodes, most)
        finally:
            nuif_doc_free(&spare)
    return _schema_report(&_doc, <bytes>data, max_depth, max_nodes, most)


def canonical_result(data, max_depth, max_nodes, make):
    """``make(canonical, hash, changed)`` for a valid NUIF document, or None when it has a schema
    problem (see ``_codec_py.canonical_result``).  When ``make`` is the frozen slots dataclass
    ``CanonicalResult``, its instance is allocated and its three slots set here (``_filled``)."""
    if not _compiled_args(data, max_depth, max_nodes):
        return _tw().canonical_result(data, max_depth, max_nodes, make)
    return _canonical_result(<bytes>data, max_depth, _c_depth(max_depth, PyBytes_GET_SIZE(data)),
                             _c_nodes(max_nodes), make)


cdef object _canonical_result(bytes data, object max_depth, size_t depth, size_t nodes,
                              object make):
    cdef unsigned char digest[32]
    canonical = _run(data, max_depth, depth, nodes, NUIF_DOC_HASH, digest)
    if canonical is None:
        return None
    h = _hash_text(canonical, digest)
    return _made3(make, _RESULT_FIELDS, canonical, h, not _same_bytes(canonical, data))


def valid_report(data, max_depth, max_nodes, make):
    """``make(True, hash, (), False)`` for a valid NUIF document, or None when it has a schema
    problem (see ``_codec_py.valid_report``); ``ValidationReport``'s slots are set here."""
    if not _compiled_args(data, max_depth, max_nodes):
        return _tw().valid_report(data, max_depth, max_nodes, make)
    return _valid_report(<bytes>data, max_depth, _c_depth(max_depth, PyBytes_GET_SIZE(data)),
                         _c_nodes(max_nodes), make)


cdef object _valid_report(bytes data, object max_depth, size_t depth, size_t nodes,
                          object make):
    cdef unsigned char digest[32]
    # only the hash is wanted: the text stays in the writer's scratch once it is hashed
    if _run(data, max_depth, depth, nodes, NUIF_DOC_DIGEST, digest) is None:
        return None
    return _made4(make, _REPORT_FIELDS, True, _hash_text(None, digest), (), False)


def inspect_summary(data, max_depth, max_nodes, max_outline, make, entry, ref):
    """``make(hash, is_canonical, input_bytes, canonical_bytes, node_count, max_depth, kinds,
    ref(root_id, root_kind), outline, truncated)`` for a valid NUIF document, or None when it has
    a schema problem (exactly when ``canonical_document`` returns None; text errors raise as
    there).  ``outline`` is a tuple of ``entry(id, kind, depth, children)`` for the first
    ``max_outline`` nodes in document pre-order (see ``_codec_py.inspect_summary``).

    The text is parsed, checked and written by the pipeline (``_run``); the node tree is then
    read off the same checked tape (``_tree_summary``), so no Python model is built.  When ``make``,
    ``entry`` and ``ref`` are the frozen slots dataclasses ``Inspection``, ``OutlineEntry`` and
    ``NodeRef``, their slots are set here (``_filled``)."""
    if not _compiled_args(data, max_depth, max_nodes, max_outline):
        return _tw().inspect_summary(data, max_depth, max_nodes, max_outline, make, entry, ref)
    cdef bytes b = <bytes>data
    cdef Py_ssize_t outline_limit = 0
    cdef nuif_doc spare
    cdef nuif_doc* st = &_doc
    cdef unsigned char digest[32]
    if max_outline > 0:
        outline_limit = max_outline if max_outline < (1 << 40) else (1 << 40)
    if _doc.busy:  # a call made while an inspect summary reads the kept tape (a finalizer)
        memset(&spare, 0, sizeof(nuif_doc))
        st = &spare
    try:
        canonical = _run_on(st, b, max_depth, _c_depth(max_depth, PyBytes_GET_SIZE(b)),
                            _c_nodes(max_nodes), NUIF_DOC_HASH, digest)
        if canonical is None:
            return None
        h = _hash_text(canonical, digest)
        # the tape is read while Python objects are made: a call that runs meanwhile (a
        # finalizer) takes a state of its own
        st.busy = 1
        try:
            count, deepest, kinds, root, outline, truncated = _tree_summary(
                &st.s, outline_limit, entry, ref)
        finally:
            st.busy = 0
    finally:
        if st == &spare:
            nuif_doc_free(st)
    return _filled(make, _INSPECTION_FIELDS, (h, _same_bytes(canonical, b), PyBytes_GET_SIZE(b),
                                              PyBytes_GET_SIZE(canonical), count, deepest, kinds,
                                              root, outline, truncated))


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


def hash_bytes(canonical):
    """``"sha256:"`` + lowercase hex SHA-256 of ``canonical`` (NUIF-0 §3)."""
    return _hash_text(canonical)


# -- which routes this build and process use ---------------------------------------------------

def utf8_backend():
    """``"avx2"``, ``"ssse3"``, ``"neon"`` or ``"scalar"``: which route checks that a whole input is
    UTF-8."""
    return _UTF8_ROUTES[_utf8_route]


def scan_backend():
    """``"sse2"`` or ``"portable"``: which byte-run scanners (csrc/nuif_scan.h) were compiled in."""
    return "sse2" if nuif_scan_sse2() else "portable"


def float_backend():
    """``"fast_float+dragonbox"`` (the vendored libraries, csrc/nuif_float.h) or ``"dtoa"``
    (CPython's): what converts doubles."""
    return "fast_float+dragonbox" if _float_libs else "dtoa"


def hash_backend():
    """``"sha-ni"`` (the CPU's SHA extensions) or ``"portable"``: which block function
    SHA-256 (csrc/nuif_sha256.h) runs."""
    return nuif_sha256_route().decode("ascii")
