# The front doors (included by _speedups.pyx): with the compiled codec, ``nuif_core.canonicalize``
# and ``nuif_core.validate`` are the two functions below (``_document`` exports them in place of
# its Python functions).  A door takes the common call itself -- bytes within the default
# limits, and this module the codec in use -- and runs the pipeline (_canonical_result or
# _valid_report) with no Python frame and no argument parsing before it.  Every other call (str
# input, limits given, a codec bound in nuif_core._codec by a test or fuzzer) goes to the Python
# function (``_document.python_canonicalize`` / ``python_validate``), and so does whatever
# follows a schema problem; the answers are the same either way (tests/core/test_front_doors.py).
# The Python side is looked up when a call needs it, never bound here.

from nuif_core._limits import Limits as _Limits
from nuif_core._results import CanonicalResult as _CanonicalResult
from nuif_core._results import ValidationReport as _ValidationReport

# the default limits, as given and as the pipeline's C integers (a text shorter than the depth
# limit nests no deeper than its length); texts longer than the tape takes are the Python path's
cdef object _DEFAULTS = _Limits.DEFAULT
cdef Py_ssize_t _door_max_bytes = min(_DEFAULTS.max_document_bytes, LIMIT_TAPE - 1)
cdef object _door_depth = _DEFAULTS.max_depth
cdef Py_ssize_t _door_cdepth = _clamp_depth(_DEFAULTS.max_depth, LIMIT_TAPE)
cdef size_t _door_cnodes = _c_nodes(_DEFAULTS.max_nodes)
# nuif_core._codec's and _document's namespaces, looked up on the first call that needs them
cdef dict _codec_ns = None
cdef object _python_mod = None


cdef inline bint _door_takes(object text, object limits, str route, object own) except -1:
    """Whether a door takes this call itself: bytes within the default limits, no limits given,
    and ``own`` (this module's function) what ``nuif_core._codec`` binds to ``route``."""
    global _codec_ns
    if limits is not None or type(text) is not bytes or PyBytes_GET_SIZE(text) > _door_max_bytes:
        return False
    if _codec_ns is None:
        import nuif_core._codec
        _codec_ns = vars(nuif_core._codec)
    return _codec_ns.get(route) is own


cdef object _python():
    """nuif_core._document: the Python functions every other call goes to."""
    global _python_mod
    if _python_mod is None:
        import nuif_core._document
        _python_mod = nuif_core._document
    return _python_mod


cdef inline size_t _door_depth_for(object text) noexcept:
    """The default depth limit for ``text`` as ``_c_depth`` gives it (no deeper than its
    length + 1)."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(text) + 1
    cdef Py_ssize_t d = _door_cdepth if _door_cdepth < n else n
    return <size_t>d if d > 0 else 0


def canonicalize(text, *, limits=None):
    """The canonical text of a NUIF document (normalized RFC 8785), its hash, and ``changed``.

    Raises :class:`NuifError` with the first problem when the text is not a valid document.
    """
    if not _door_takes(text, limits, "canonical_result", canonical_result):
        return _python().python_canonicalize(text, limits=limits)
    result = _canonical_result(<bytes>text, _door_depth, _door_depth_for(text), _door_cnodes,
                               _CanonicalResult)
    if result is None:  # a schema problem: the Python path raises it
        return _python().canonicalize_checked(text, _DEFAULTS)
    return result


def validate(text, *, limits=None, max_diagnostics=100, catalog=None):
    """Validate a NUIF document and report every problem found (at most ``max_diagnostics``).

    A text error (size, UTF-8, syntax, I-JSON) stops everything and is the only diagnostic;
    schema problems (§3) are all reported, in document order, each with code, message, JSON
    Pointer, line and column.  Never raises ``NuifError``; ``valid`` says the verdict and
    ``hash`` is the document hash when valid.

    ``catalog`` (a :class:`Catalog`, or a catalog's text or mapping) also checks each node
    against the catalog (NUIF-0 §9): its problems follow the document's, in document order.  A
    catalog that is not valid makes the report's only diagnostic ``NUIF_CATALOG``, located in
    the catalog.
    """
    if catalog is not None or type(max_diagnostics) is not int or max_diagnostics < 1 \
            or not _door_takes(text, limits, "valid_report", valid_report):
        # a catalog is checked in Python (nuif_core._catalog), on every route
        return _python().python_validate(text, limits=limits, max_diagnostics=max_diagnostics,
                                         catalog=catalog)
    try:
        report = _valid_report(<bytes>text, _door_depth, _door_depth_for(text), _door_cnodes,
                               _ValidationReport)
    except NuifError as err:
        return _python().error_report(err)
    if report is None:  # schema problems: the Python path finds them all
        return _python().validate_checked(text, _DEFAULTS, max_diagnostics)
    return report
