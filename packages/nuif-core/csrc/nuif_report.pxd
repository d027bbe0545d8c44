# Every NUIF-0 §3 problem of a document on the walk's tape (csrc/nuif_report.h).
from libc.stdint cimport uint32_t
from nuif_walk cimport Walk

cdef extern from "nuif_report.h":
    enum:
        RC_SCHEMA "NUIF_RC_SCHEMA"
        RC_VERSION "NUIF_RC_VERSION"
        RC_LIMIT_NODES "NUIF_RC_LIMIT_NODES"
        RC_ID "NUIF_RC_ID"
        RC_DUPLICATE_ID "NUIF_RC_DUPLICATE_ID"
        RC_KIND "NUIF_RC_KIND"
        RC_ATTR "NUIF_RC_ATTR"
        RP_DOC_TYPE "NUIF_RP_DOC_TYPE"
        RP_NO_NUIF "NUIF_RP_NO_NUIF"
        RP_NUIF_TYPE "NUIF_RP_NUIF_TYPE"
        RP_VERSION "NUIF_RP_VERSION"
        RP_NO_ROOT "NUIF_RP_NO_ROOT"
        RP_META_TYPE "NUIF_RP_META_TYPE"
        RP_DOC_MEMBER "NUIF_RP_DOC_MEMBER"
        RP_LIMIT_NODES "NUIF_RP_LIMIT_NODES"
        RP_NODE_TYPE "NUIF_RP_NODE_TYPE"
        RP_NO_ID "NUIF_RP_NO_ID"
        RP_NO_KIND "NUIF_RP_NO_KIND"
        RP_ID_TYPE "NUIF_RP_ID_TYPE"
        RP_KIND_TYPE "NUIF_RP_KIND_TYPE"
        RP_ID_LENGTH "NUIF_RP_ID_LENGTH"
        RP_ID_PATTERN "NUIF_RP_ID_PATTERN"
        RP_DUPLICATE_ID "NUIF_RP_DUPLICATE_ID"
        RP_KIND "NUIF_RP_KIND"
        RP_ATTRS_TYPE "NUIF_RP_ATTRS_TYPE"
        RP_ATTR "NUIF_RP_ATTR"
        RP_CHILDREN_TYPE "NUIF_RP_CHILDREN_TYPE"
        RP_NODE_MEMBER "NUIF_RP_NODE_MEMBER"
    ctypedef struct Finding "nuif_finding":
        int code
        int msg
        uint32_t ptr, loc, arg, arg2
        size_t line, column
    ctypedef struct Report "nuif_report":
        Finding* found
        size_t count
        int truncated
    int nuif_report_run(Report* r, const Walk* s, size_t max_nodes, size_t max) noexcept
    size_t nuif_report_pointer(const Walk* s, size_t target, char* out, size_t cap) noexcept
    void nuif_report_locate(Report* r) noexcept
