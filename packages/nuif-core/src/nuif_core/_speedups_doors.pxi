# The front doors of canonicalize and validate (included by _speedups.pyx).
#
# nuif_core._document writes canonicalize and validate in Python, then binds them here
# (bind_front_doors) and exports the two functions below in their place.  A door takes the common
# call itself -- bytes within the default limits, and this module the codec in use -- and runs the
# compiled pipeline (_canonical_result or _valid_report) with no Python frame and no second
# argument parse before it (docs/format.md, after "canonicalize makes one call").  Every other
# call (str input, limits given, a codec bound in nuif_core._codec by a test or fuzzer) is the
# Python function's, and so is whatever follows a schema problem; the answers are the same
# either way (tests/core/test_front_doors.py).

cdef dict _door_codec = None           # nuif_core._codec's namespace: which codec is in use
cdef object _door_own_result = None    # this module's canonical_result and valid_report, as
cdef object _door_own_report = None    # _codec binds them when this module is the codec
cdef object _door_canonicalize = None  # the Python canonicalize, for every other call
cdef object _door_canonical_rest = None  # (data, limits): its path after a schema problem
cdef object _door_validate = None      # the Python validate, for every other call
cdef object _door_validate_rest = None   # (data, limits, max_diagnostics): as above
cdef object _door_error_report = None  # NuifError -> validate's report of it
cdef object _door_result_cls = None    # CanonicalResult
cdef object _door_report_cls = None    # ValidationReport
cdef object _door_limits = None        # Limits.DEFAULT
cdef Py_ssize_t _door_max_bytes = -1   # its max_document_bytes (-1: nothing bound yet)
cdef object _door_depth = None         # its max_depth and max_nodes
cdef object _door_nodes = None
cdef Py_ssize_t _door_cdepth = 0       # ... as the pipeline's C integers (for inputs shorter
cdef size_t _door_cnodes = 0           # than the depth limit, which every nesting fits)


def bind_front_doors(codec, canonicalize_py, canonical_rest, validate_py, validate_rest,
                     error_report, result_cls, report_cls, limits):
    """Bind the Python side of the doors (called once, by ``nuif_core._document`` through
    ``_codec.front_doors``, which then gives the doors the Python functions' names, docstrings
    and signatures) and return the doors ``(canonicalize, validate)``."""
    global _door_codec, _door_own_result, _door_own_report, _door_canonicalize
    global _door_canonical_rest, _door_validate, _door_validate_rest, _door_error_report
    global _door_result_cls, _door_report_cls, _door_limits, _door_max_bytes
    global _door_depth, _door_nodes, _door_cdepth, _door_cnodes
    if type(limits.max_document_bytes) is not int or type(limits.max_depth) is not int \
            or type(limits.max_nodes) is not int:
        raise TypeError("the default limits are ints")
    _door_codec = vars(codec)
    _door_own_result = canonical_result
    _door_own_report = valid_report
    _door_canonicalize = canonicalize_py
    _door_canonical_rest = canonical_rest
    _door_validate = validate_py
    _door_validate_rest = validate_rest
    _door_error_report = error_report
    _door_result_cls = result_cls
    _door_report_cls = report_cls
    _door_limits = limits
    _door_depth = limits.max_depth
    _door_nodes = limits.max_nodes
    _door_cdepth = _clamp_depth(limits.max_depth, LIMIT_TAPE)
    _door_cnodes = _c_nodes(limits.max_nodes)
    # the text limit, clamped below the tape's (longer texts are the Python function's)
    _door_max_bytes = min(limits.max_document_bytes, LIMIT_TAPE - 1)
    return canonicalize, validate


cdef inline bint _door_takes(object text, object limits, str route, object own) except -1:
    """Whether a door takes this call itself: bytes within the default limits, no limits
    given, and ``own`` (this module's function) what ``nuif_core._codec`` binds to ``route``."""
    if _door_max_bytes < 0:
        raise RuntimeError("nuif_core._document binds the front doors (bind_front_doors)")
    return (limits is None and type(text) is bytes
            and PyBytes_GET_SIZE(text) <= _door_max_bytes
            and _door_codec.get(route) is own)


cdef inline size_t _door_depth_for(object text) noexcept:
    """The default depth limit for ``text`` as ``_c_depth`` gives it (no deeper than its
    length + 1)."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(text) + 1
    cdef Py_ssize_t d = _door_cdepth if _door_cdepth < n else n
    return <size_t>d if d > 0 else 0


def canonicalize(text, *, limits=None):
    if not _door_takes(text, limits, "canonical_result", _door_own_result):
        return _door_canonicalize(text, limits=limits)
    result = _canonical_result(<bytes>text, _door_depth, _door_depth_for(text), _door_cnodes,
                               _door_result_cls)
    if result is None:  # a schema problem: the Python path raises it
        return _door_canonical_rest(text, _door_limits)
    return result


def validate(text, *, limits=None, max_diagnostics=100):
    if type(max_diagnostics) is not int or max_diagnostics < 1 \
            or not _door_takes(text, limits, "valid_report", _door_own_report):
        return _door_validate(text, limits=limits, max_diagnostics=max_diagnostics)
    try:
        report = _valid_report(<bytes>text, _door_depth, _door_depth_for(text), _door_cnodes,
                               _door_report_cls)
    except NuifError as err:
        return _door_error_report(err)
    if report is None:  # schema problems: the Python path finds them all
        return _door_validate_rest(text, _door_limits, max_diagnostics)
    return report
