/* The CPython host of csrc/ (csrc/nuif_host.h): the extension's allocator is CPython's (PyMem_*),
 * its output texts are bytes objects (a text longer than the output scratch is written straight
 * into the bytes object it is returned in), its float fallback is CPython's dtoa, and a failure
 * is a Python exception.  Every function runs with the GIL held and calls no Python code. */
#ifndef NUIF_HOST_PYTHON_H
#define NUIF_HOST_PYTHON_H

#include "Python.h"
#include <string.h>

#define NUIF_HOST 1

static void *nuif_host_realloc(void *p, size_t n) { return PyMem_Realloc(p, n); }
static void *nuif_host_calloc(size_t n, size_t size) { return PyMem_Calloc(n, size); }
static void nuif_host_free(void *p) { PyMem_Free(p); }
static void nuif_host_nomem(void) { (void)PyErr_NoMemory(); }

static void *nuif_host_text_new(size_t cap, char **b) {
    PyObject *ob;
    if (cap > (size_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    ob = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
    if (ob != NULL) *b = PyBytes_AS_STRING(ob);
    return ob;
}

static int nuif_host_text_grow(void **text, size_t cap, char **b) {
    PyObject *ob = (PyObject *)*text;
    if (cap > (size_t)PY_SSIZE_T_MAX) {
        Py_DECREF(ob);
        *text = NULL;
        PyErr_NoMemory();
        return -1;
    }
    if (_PyBytes_Resize(&ob, (Py_ssize_t)cap) < 0) { /* it freed the object */
        *text = NULL;
        return -1;
    }
    *text = ob;
    *b = PyBytes_AS_STRING(ob);
    return 0;
}

static void *nuif_host_text_end(void *text, size_t n) {
    PyObject *ob = (PyObject *)text;
    if (_PyBytes_Resize(&ob, (Py_ssize_t)n) < 0) return NULL;
    return ob;
}

static void *nuif_host_text_copy(const char *b, size_t n) {
    return PyBytes_FromStringAndSize(b, (Py_ssize_t)n);
}

static void nuif_host_text_drop(void *text) { Py_XDECREF((PyObject *)text); }

static int nuif_host_strtod(const uint8_t *s, size_t L, double *x) {
    char *end = NULL;
    double v = PyOS_string_to_double((const char *)s, &end, NULL);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    if (end != (const char *)s + L) {
        PyErr_SetString(PyExc_SystemError, "nuif: a number literal read past its end");
        return -1;
    }
    *x = v;
    return 0;
}

static ptrdiff_t nuif_host_repr(double x, char *o) {
    char *s = PyOS_double_to_string(x, 'r', 0, 0, NULL);
    size_t k;
    if (s == NULL) return -1;
    k = strlen(s);
    if (k >= 32) { /* never: a double's repr is at most 24 bytes */
        PyMem_Free(s);
        PyErr_SetString(PyExc_SystemError, "nuif: a double's repr is longer than 31 bytes");
        return -1;
    }
    memcpy(o, s, k + 1);
    PyMem_Free(s);
    return (ptrdiff_t)k;
}

#endif
