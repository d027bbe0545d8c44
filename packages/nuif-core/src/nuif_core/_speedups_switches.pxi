# Part of _speedups.pyx (included there): the codec's settings for tests, through one function
# (``_settings``), and what tests read back (``_counters``, ``_utf8_check``, ``_doc_reset``).
# None is part of the API; every default is what a build runs with.

cdef tuple _SETTINGS = ("utf8_route", "float_libs", "sha256_route", "scratch_keep",
                        "id_generation")


# the route nuif_sha256_setup picked at import
cdef str _SHA_BEST = nuif_sha256_route().decode("ascii")


cdef dict _settings_now():
    return {
        # the whole input's UTF-8 check: "scalar", or a vector route this CPU and build run
        "utf8_route": _UTF8_ROUTES[_utf8_route],
        # doubles by the vendored libraries (when built with them), else CPython's dtoa
        "float_libs": bool(_float_libs),
        # SHA-256's block function: "sha-ni" where the CPU has it, or "portable" (the C that the
        # WebAssembly build runs)
        "sha256_route": nuif_sha256_route().decode("ascii"),
        # the largest output scratch kept between calls, the pipeline's and dumps' (0: none;
        # every text goes straight into its bytes object); setting it drops the buffers kept
        "scratch_keep": <Py_ssize_t>_doc.scratch_keep,
        # the check's id set's last generation (the next call takes one more; past
        # NUIF_CK_GEN_MAX the kept table is zeroed)
        "id_generation": _doc.ids_gen,
    }


def _settings(**changes):
    """The codec's settings (tests): with no argument, all of them; with some, sets those and
    returns their previous values, so that ``_settings(**old)`` restores them.  Unknown names
    and values this CPU or build cannot take are refused (ValueError) before anything is set."""
    global _utf8_route, _float_libs, SCRATCH_KEEP, _spare, _spare_cap
    cdef dict now = _settings_now()
    unknown = set(changes) - set(_SETTINGS)
    if unknown:
        raise ValueError(f"no such setting: {', '.join(sorted(unknown))}")
    if "sha256_route" in changes and changes["sha256_route"] not in ("portable", _SHA_BEST):
        raise ValueError(f"this CPU or build cannot hash with {changes['sha256_route']}")
    if "utf8_route" in changes:
        route = changes["utf8_route"]
        if route not in _UTF8_ROUTES or not nuif_utf8_route_runs(_UTF8_ROUTES.index(route)):
            raise ValueError(f"this CPU or build cannot check UTF-8 with {route}")
        _utf8_route = _UTF8_ROUTES.index(route)
    if "float_libs" in changes:
        _float_libs = bool(changes["float_libs"]) and nuif_float_backend() == 1
    if "sha256_route" in changes:
        nuif_sha256_setup(changes["sha256_route"] == "portable")
    if "scratch_keep" in changes:
        keep = changes["scratch_keep"]
        SCRATCH_KEEP = keep
        _doc.scratch_keep = <size_t>keep
        PyMem_Free(_spare)
        _spare, _spare_cap = NULL, 0
        PyMem_Free(_doc.scratch)
        _doc.scratch, _doc.scratch_cap = NULL, 0
    if "id_generation" in changes:
        # on a cleared id set: entries stamped with the generations to come would otherwise read
        # as ids already seen (the real wrap clears it too: nuif_doc_check)
        _doc.ids_gen = <uint64_t>changes["id_generation"]
        if _doc.ids != NULL:
            memset(_doc.ids, 0, _doc.ids_alloc * sizeof(uint64_t))
    return {name: now[name] for name in changes} if changes else now


def _counters():
    """What tests read back: texts the writer hashed while writing them since the module loaded,
    and the bytes of output scratch the pipeline keeps for the next call."""
    return {"hashed_while_writing": _doc_hashed, "scratch_kept": <Py_ssize_t>_doc.scratch_cap}


def _utf8_check(bytes data not None):
    """The whole-input verdict (``_utf8_ok``) of the current UTF-8 route."""
    return _utf8_ok(<const uint8_t*>PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))


def _doc_reset():
    """Free the pipeline's kept buffers (the next call grows them from nothing, its text moving
    while it is written and hashed); the settings and the id set's generation stay."""
    cdef nuif_doc kept = _doc
    nuif_doc_free(&_doc)
    _doc.ids_gen = kept.ids_gen
    _doc.scratch_keep = kept.scratch_keep
