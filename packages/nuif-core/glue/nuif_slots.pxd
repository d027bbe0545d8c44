cdef extern from "nuif_slots.h":
    object nuif_type_alloc(object cls)
    Py_ssize_t nuif_slot_offset(object descr)
    void nuif_slot_put(object descr, object obj, object value)
