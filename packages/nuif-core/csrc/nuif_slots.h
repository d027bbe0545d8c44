/* Filling a frozen slots dataclass without calling it (src/nuif_core/_speedups_results.pxi):
 * allocate the instance, then set each field through its member descriptor, which is what the
 * dataclass's generated __init__ does with object.__setattr__, minus the calls. */
#ifndef NUIF_SLOTS_H
#define NUIF_SLOTS_H

#include "Python.h"

static PyObject *nuif_type_alloc(PyObject *cls) {
    PyTypeObject *t = (PyTypeObject *)cls;
    return t->tp_alloc(t, 0);
}

static int nuif_descr_set(PyObject *descr, PyObject *obj, PyObject *value) {
    return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
}

#endif
