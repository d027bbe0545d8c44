/* Filling a frozen slots dataclass without calling it (src/nuif_core/_speedups_results.pxi):
 * allocate the instance, then store each field in its slot, which is what the dataclass's
 * generated __init__ does with object.__setattr__ through each field's member descriptor, minus
 * the calls and the descriptor's checks (made once per class, by nuif_slot_offset). */
#ifndef NUIF_SLOTS_H
#define NUIF_SLOTS_H

#include "Python.h"

#if PY_VERSION_HEX >= 0x030C0000
#define NUIF_SLOT_OBJECT_EX Py_T_OBJECT_EX
#define NUIF_SLOT_READONLY Py_READONLY
#else
#include "structmember.h"
#define NUIF_SLOT_OBJECT_EX T_OBJECT_EX
#define NUIF_SLOT_READONLY READONLY
#endif

static PyObject *nuif_type_alloc(PyObject *cls) {
    PyTypeObject *t = (PyTypeObject *)cls;
    return t->tp_alloc(t, 0);
}

/* The offset of the slot that the member descriptor `descr` sets when setting it is storing an
 * object reference there (a __slots__ member: an object that must not be missing, writable),
 * else -1. */
static Py_ssize_t nuif_slot_offset(PyObject *descr) {
    PyMemberDef *m;
    if (Py_TYPE(descr) != &PyMemberDescr_Type) {
        return -1;
    }
    m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != NUIF_SLOT_OBJECT_EX || (m->flags & NUIF_SLOT_READONLY) || m->offset <= 0) {
        return -1;
    }
    return m->offset;
}

/* Set the slot of descriptor `descr` (one nuif_slot_offset accepted) of `obj` to `value`. */
static inline void nuif_slot_put(PyObject *descr, PyObject *obj, PyObject *value) {
    PyObject **slot = (PyObject **)((char *)obj + ((PyMemberDescrObject *)descr)->d_member->offset);
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(old);
}

#endif
