# The codec's one pipeline (csrc/nuif_doc.h).
from cpython.object cimport PyObject
from libc.stdint cimport uint8_t, uint64_t
from nuif_walk cimport Walk

cdef extern from "nuif_doc.h":
    enum:
        NUIF_DOC_OK
        NUIF_DOC_TEXT
        NUIF_DOC_SCHEMA
        NUIF_DOC_ERROR
        NUIF_DOC_JSON
        NUIF_DOC_CHECK
        NUIF_DOC_HASH
        NUIF_DOC_DIGEST
    ctypedef struct nuif_doc:
        Walk s
        uint64_t* ids
        size_t ids_alloc
        uint64_t ids_gen
        char* scratch
        size_t scratch_cap
        size_t scratch_keep
        unsigned char digest[32]
        int busy
    size_t NUIF_DOC_SCRATCH_KEEP
    void* nuif_doc_run(nuif_doc* st, const uint8_t* p, size_t n, size_t max_depth,
                       size_t max_nodes, int float_libs, int mode, int* status)
    void nuif_doc_free(nuif_doc* st) noexcept
