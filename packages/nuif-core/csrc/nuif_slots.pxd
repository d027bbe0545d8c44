cdef extern from "nuif_slots.h":
    object nuif_type_alloc(object cls)
    int nuif_descr_set(object descr, object obj, object value) except -1
