/* Doubles to and from text with CPython's correctly rounded conversions (dtoa), for what the
 * vendored libraries (nuif_float.h) do not do: builds without a C++17 compiler, and literals
 * whose exponent is beyond their range.  Same results, slower; the caller holds the GIL.  These
 * call no Python code: PyOS_string_to_double and PyOS_double_to_string only allocate. */
#ifndef NUIF_PYFLOAT_H
#define NUIF_PYFLOAT_H

#include <Python.h>
#include <stdint.h>

#include "nuif_float.h"
#include "nuif_number.h"

/* The double of the number literal s[0:L) (strict JSON grammar, followed by a byte that cannot
 * continue it): 0, or -1 with a Python exception set (no memory).  Out of range: +-inf or 0. */
static int nuif_py_double(const uint8_t *s, size_t L, double *x) {
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

/* The ECMAScript text of the finite double x into o (NUIF_NUMBER_TEXT_MAX bytes), with the
 * vendored libraries when float_libs, else CPython's repr digits: its length, or -1 with a
 * Python exception set (no memory). */
static ptrdiff_t nuif_py_fmt_double(char *o, double x, int float_libs) {
    nuif_numinfo r;
    char *s;
    int k, point;
    if (x == 0.0) {
        o[0] = '0';
        return 1;
    }
    if (float_libs && (k = nuif_shortest_digits(x, r.d, &point)) > 0) {
        return nuif_fmt_es(o, x < 0.0, r.d, k, point);
    }
    s = PyOS_double_to_string(x, 'r', 0, 0, NULL);
    if (s == NULL) return -1;
    nuif_analyze((const uint8_t *)s, (ptrdiff_t)strlen(s), &r);
    PyMem_Free(s);
    return nuif_fmt_es(o, r.neg, r.d, r.k, r.n);
}

#endif
