# The CPython host of csrc/ (glue/nuif_host_python.h): cimported before every csrc/ declaration,
# so that its header comes first in the generated C.
cdef extern from "nuif_host_python.h":
    pass
