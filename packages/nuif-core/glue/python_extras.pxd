# The CPython C API the codec uses beyond what Cython's cpython.* declarations offer.
from cpython.object cimport PyObject

cdef extern from "Python.h":
    double PyOS_string_to_double(const char* s, char** endptr,
                                 PyObject* overflow_exception) except? -1.0
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int* ptype) except NULL
    PyObject* _bytes_new "PyBytes_FromStringAndSize"(const char* v, Py_ssize_t n) except NULL
    int _PyBytes_Resize(PyObject** b, Py_ssize_t n) except -1
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    const char* PyUnicode_AsUTF8AndSize(object o, Py_ssize_t* size) except NULL
    bint PyUnicode_IS_ASCII(object o)
    Py_ssize_t PyDict_GET_SIZE(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    double PyFloat_AS_DOUBLE(object o)
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1
    int Py_EnterRecursiveCall(const char* where) except -1
    void Py_LeaveRecursiveCall()
    int PyGC_Disable()
    int PyGC_Enable()
    const Py_ssize_t PY_SSIZE_T_MAX
    # a borrowed reference, NULL when absent (or on an error: unhashable key)
    PyObject* _dict_get "PyDict_GetItemWithError"(object d, object key) except? NULL
