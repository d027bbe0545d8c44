# Why the walk refused a text (csrc/nuif_fault.h).
from libc.stdint cimport uint32_t
from nuif_walk cimport Walk

cdef extern from "nuif_fault.h":
    enum:
        FAULT_NOMEM "NUIF_FAULT_NOMEM"
        FAULT_EXPECT_VALUE "NUIF_FAULT_EXPECT_VALUE"
        FAULT_EXPECT_ARRAY_NEXT "NUIF_FAULT_EXPECT_ARRAY_NEXT"
        FAULT_EXPECT_OBJECT_NEXT "NUIF_FAULT_EXPECT_OBJECT_NEXT"
        FAULT_EXPECT_FIRST_KEY "NUIF_FAULT_EXPECT_FIRST_KEY"
        FAULT_EXPECT_KEY "NUIF_FAULT_EXPECT_KEY"
        FAULT_EXPECT_COLON "NUIF_FAULT_EXPECT_COLON"
        FAULT_EXPECT_END "NUIF_FAULT_EXPECT_END"
        FAULT_EXPECT_DIGIT "NUIF_FAULT_EXPECT_DIGIT"
        FAULT_EXPECT_LITERAL "NUIF_FAULT_EXPECT_LITERAL"
        FAULT_EXPECT_STRING_END "NUIF_FAULT_EXPECT_STRING_END"
        FAULT_EXPECT_ESCAPE "NUIF_FAULT_EXPECT_ESCAPE"
        FAULT_EXPECT_HEX "NUIF_FAULT_EXPECT_HEX"
        FAULT_CONTROL_IN_STRING "NUIF_FAULT_CONTROL_IN_STRING"
        FAULT_SURROGATE_ESCAPE "NUIF_FAULT_SURROGATE_ESCAPE"
        FAULT_NONCHARACTER "NUIF_FAULT_NONCHARACTER"
        FAULT_DUPLICATE_KEY "NUIF_FAULT_DUPLICATE_KEY"
        FAULT_NUMBER_OVERFLOW "NUIF_FAULT_NUMBER_OVERFLOW"
        FAULT_BIG_INTEGER "NUIF_FAULT_BIG_INTEGER"
        FAULT_DEPTH "NUIF_FAULT_DEPTH"
    ctypedef struct Fault "nuif_fault":
        int code
        size_t at
        uint32_t aux
        size_t path
        uint32_t name
        int pointer
    uint32_t nuif_fault_step(const Walk* s, size_t d, int* is_name) noexcept
    int nuif_fault_explain(Walk* s, Fault* e) noexcept
