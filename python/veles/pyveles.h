/* What the files of the _veles extension share. */
#ifndef PYVELES_H
#define PYVELES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <veles.h>

/* A read-only buffer over cells a table or profile keeps (owner holds
 * them alive) or over a copy this object frees. */
typedef struct {
	PyObject_HEAD PyObject *owner;
	void *data;
	Py_ssize_t n;
	char format[2];
	Py_ssize_t itemsize;
	int owns;
} BufferObject;

typedef struct {
	PyObject_HEAD veles_profile *p;
	PyObject *resources; /* the Table of its resources, made once */
} ProfileObject;

typedef struct {
	PyObject_HEAD veles_table *t;
	int owns;	 /* veles_table_free() on dealloc */
	PyObject *owner; /* what keeps a borrowed table, or a table's strings, alive */
} TableObject;

typedef struct {
	PyObject_HEAD veles_project *pr;
} ProjectObject;

extern PyTypeObject Buffer_Type, Profile_Type, Table_Type, Project_Type;

/* Raises the exception for VELES_ERR_* @code with veles_last_error(). */
PyObject *pyveles_raise(int code);
/* A buffer of @n cells of @format over @data; with @owns it frees @data. */
PyObject *buffer_new(PyObject *owner, void *data, Py_ssize_t n, char format, int owns);
/* Wraps @t; @owner (may be NULL) is kept alive with it. */
PyObject *table_wrap(veles_table *t, int owns, PyObject *owner);
PyObject *profile_wrap(veles_profile *p);
/* Runs a check; @pr may be NULL (no project settings). */
PyObject *pyveles_check(veles_project *pr, PyObject *owner, PyObject *base, PyObject *target,
			PyObject *opts);

/* Sets each of @opts (a dict, str -> str) with @set(@h, key, value); -1
 * with the exception for the first that fails. */
int pyveles_set_options(PyObject *opts, int (*set)(void *h, const char *key, const char *value),
			void *h);
/* 1 when the project is open, else 0 with veles.Error raised. */
int pyveles_project_ready(ProjectObject *self);
/* Project.collect, .run_matrix and .bisect (run.c). */
PyObject *project_collect(ProjectObject *self, PyObject *args);
PyObject *project_run_matrix(ProjectObject *self, PyObject *args);
PyObject *project_bisect(ProjectObject *self, PyObject *args);

#endif
