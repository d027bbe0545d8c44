# The token tape's types (csrc/nuif_tape.h says what each field holds for each kind).
from libc.stdint cimport uint8_t, uint32_t

cdef extern from "nuif_tape.h":
    enum:
        T_NULL "NUIF_T_NULL"
        T_FALSE "NUIF_T_FALSE"
        T_TRUE "NUIF_T_TRUE"
        T_INT "NUIF_T_INT"
        T_FLT "NUIF_T_FLT"
        T_STR "NUIF_T_STR"
        T_ARR "NUIF_T_ARR"
        T_OBJ "NUIF_T_OBJ"
    enum:
        F_ESC "NUIF_F_ESC"
        F_NEEDS_ESC "NUIF_F_NEEDS_ESC"
        F_DBL "NUIF_F_DBL"
        F_NEGZERO "NUIF_F_NEGZERO"
        F_SKIP "NUIF_F_SKIP"
        F_LIT "NUIF_F_LIT"
        F_ASCII "NUIF_F_ASCII"
    ctypedef struct Tok "nuif_tok":
        uint8_t kind
        uint8_t flags
        uint32_t at         # STR, INT, FLT: first byte (input, or arena when F_ESC)
        uint32_t end        # ARR, OBJ: token index just past the subtree
        uint32_t len        # STR, INT, FLT: byte count
        uint32_t members    # OBJ: member count
        uint32_t quote      # STR (member names): offset of the opening quote in the input
        uint32_t dbl        # FLT with F_DBL: index into the walk's doubles
        uint32_t order_at   # OBJ: first of its sorted member-name tokens in the order array
