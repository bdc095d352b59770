/*
 * _veles: the C side of `import veles` (python/veles/__init__.py), a thin
 * layer over libveles (include/veles.h). Errors become exceptions
 * carrying the library's one line; columns become buffers numpy wraps
 * without a copy.
 */
#include "pyveles.h"

#include <string.h>

static PyObject *Error, *ParseError, *NotFoundError, *InvalidError;
static PyObject *log_callback;

PyObject *pyveles_raise(int code)
{
	PyObject *type = code == VELES_ERR_PARSE      ? ParseError
			 : code == VELES_ERR_NOTFOUND ? NotFoundError
			 : code == VELES_ERR_INVALID  ? InvalidError
						      : Error;

	PyErr_SetString(type, veles_last_error());
	return NULL;
}

/* ---- buffers ---- */

static void buffer_dealloc(BufferObject *self)
{
	if (self->owns)
		PyMem_RawFree(self->data);
	Py_XDECREF(self->owner);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int buffer_get(BufferObject *self, Py_buffer *view, int flags)
{
	if (flags & PyBUF_WRITABLE) {
		PyErr_SetString(PyExc_BufferError, "a profile's columns are read-only");
		view->obj = NULL;
		return -1;
	}
	view->obj = (PyObject *)self;
	Py_INCREF(self);
	view->buf = self->data;
	view->len = self->n * self->itemsize;
	view->readonly = 1;
	view->itemsize = self->itemsize;
	view->format = flags & PyBUF_FORMAT ? self->format : NULL;
	view->ndim = 1;
	view->shape = flags & PyBUF_ND ? &self->n : NULL;
	view->strides = flags & PyBUF_STRIDES ? &view->itemsize : NULL;
	view->suboffsets = NULL;
	view->internal = NULL;
	return 0;
}

static PyBufferProcs buffer_procs = {(getbufferproc)buffer_get, NULL};

static Py_ssize_t buffer_len(BufferObject *self)
{
	return self->n;
}

static PySequenceMethods buffer_seq = {.sq_length = (lenfunc)buffer_len};

PyTypeObject Buffer_Type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "veles._veles.Buffer",
	.tp_doc = "Read-only cells of a column (the buffer protocol; numpy wraps it).",
	.tp_basicsize = sizeof(BufferObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)buffer_dealloc,
	.tp_as_buffer = &buffer_procs,
	.tp_as_sequence = &buffer_seq,
};

PyObject *buffer_new(PyObject *owner, void *data, Py_ssize_t n, char format, int owns)
{
	BufferObject *b = PyObject_New(BufferObject, &Buffer_Type);

	if (!b) {
		if (owns)
			PyMem_RawFree(data);
		return NULL;
	}
	b->owner = owner;
	Py_XINCREF(owner);
	b->data = data;
	b->n = n;
	b->format[0] = format;
	b->format[1] = '\0';
	b->itemsize = format == 'i' || format == 'I' ? 4 : format == 'b' ? 1 : 8;
	b->owns = owns;
	return (PyObject *)b;
}

/* ---- the log ---- */

static void on_log(int level, const char *msg, void *data)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r;

	(void)data;
	if (log_callback) {
		r = PyObject_CallFunction(log_callback, "is", level, msg);
		/* A failing callback cannot stop the library: it is reported. */
		if (!r)
			PyErr_WriteUnraisable(log_callback);
		Py_XDECREF(r);
	}
	PyGILState_Release(g);
}

static PyObject *set_log(PyObject *mod, PyObject *fn)
{
	(void)mod;
	if (fn != Py_None && !PyCallable_Check(fn)) {
		PyErr_SetString(PyExc_TypeError,
				"set_log wants a callable(level, message) or None");
		return NULL;
	}
	Py_XDECREF(log_callback);
	log_callback = fn == Py_None ? NULL : fn;
	Py_XINCREF(log_callback);
	veles_set_log(log_callback ? on_log : NULL, NULL);
	Py_RETURN_NONE;
}

/* ---- loading, checks ---- */

static PyObject *load(PyObject *mod, PyObject *args)
{
	const char *path;
	veles_profile *p;
	PyThreadState *ts;
	int ret;

	(void)mod;
	if (!PyArg_ParseTuple(args, "s:load", &path))
		return NULL;
	ts = PyEval_SaveThread();
	ret = veles_profile_load(path, &p);
	PyEval_RestoreThread(ts);
	if (ret < 0)
		return pyveles_raise(ret);
	return profile_wrap(p);
}

/* check_profiles(base, target, options): two Profiles, no project. */
static PyObject *check_profiles(PyObject *mod, PyObject *args)
{
	PyObject *base, *target, *opts;

	(void)mod;
	if (!PyArg_ParseTuple(args, "O!O!O!:check_profiles", &Profile_Type, &base, &Profile_Type,
			      &target, &PyDict_Type, &opts))
		return NULL;
	return pyveles_check(NULL, NULL, base, target, opts);
}

int pyveles_set_options(PyObject *opts, int (*set)(void *h, const char *key, const char *value),
			void *h)
{
	PyObject *k, *v;
	Py_ssize_t pos = 0;

	while (PyDict_Next(opts, &pos, &k, &v)) {
		const char *key = PyUnicode_AsUTF8(k), *value = PyUnicode_AsUTF8(v);
		int ret;

		if (!key || !value)
			return -1;
		ret = set(h, key, value);
		if (ret < 0) {
			pyveles_raise(ret);
			return -1;
		}
	}
	return 0;
}

static int check_set(void *c, const char *key, const char *value)
{
	return veles_check_set(c, key, value);
}

PyObject *pyveles_check(veles_project *pr, PyObject *owner, PyObject *base, PyObject *target,
			PyObject *opts)
{
	veles_check *c;
	veles_table *t = NULL;
	int ret = veles_check_new(pr, &c);

	(void)owner;
	if (ret < 0)
		return pyveles_raise(ret);
	if (pyveles_set_options(opts, check_set, c) < 0) {
		veles_check_free(c);
		return NULL;
	}
	if (PyUnicode_Check(base) && PyUnicode_Check(target)) {
		const char *b = PyUnicode_AsUTF8(base), *tg = PyUnicode_AsUTF8(target);

		PyThreadState *ts = PyEval_SaveThread();

		ret = veles_check_versions(c, b, tg, &t);
		PyEval_RestoreThread(ts);
	} else {
		veles_profile *b = ((ProfileObject *)base)->p, *tg = ((ProfileObject *)target)->p;

		PyThreadState *ts = PyEval_SaveThread();

		ret = veles_check_profiles(c, b, tg, &t);
		PyEval_RestoreThread(ts);
	}
	veles_check_free(c);
	if (ret < 0)
		return pyveles_raise(ret);
	return table_wrap(t, 1, NULL);
}

/* ---- projects ---- */

static int project_init(ProjectObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", NULL};
	const char *path = NULL;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:Project", kwlist, &path))
		return -1;
	veles_project_free(self->pr);
	self->pr = NULL;
	ret = veles_project_open(path, &self->pr);
	if (ret < 0) {
		pyveles_raise(ret);
		return -1;
	}
	return 0;
}

static void project_dealloc(ProjectObject *self)
{
	veles_project_free(self->pr);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

int pyveles_project_ready(ProjectObject *self)
{
	if (self->pr)
		return 1;
	PyErr_SetString(Error, "the project is not open");
	return 0;
}

static PyObject *project_root(ProjectObject *self, void *closure)
{
	(void)closure;
	if (!pyveles_project_ready(self))
		return NULL;
	return PyUnicode_FromString(veles_project_root(self->pr));
}

static PyObject *project_versions(ProjectObject *self, PyObject *args)
{
	const char *rev = NULL;
	Py_ssize_t limit = 0;
	veles_table *t;
	int ret;

	if (!pyveles_project_ready(self) || !PyArg_ParseTuple(args, "|zn:versions", &rev, &limit))
		return NULL;
	if (limit < 0)
		limit = 0;
	ret = veles_project_versions(self->pr, rev, (size_t)limit, &t);
	return ret < 0 ? pyveles_raise(ret) : table_wrap(t, 1, NULL);
}

static PyObject *project_profiles(ProjectObject *self, PyObject *args)
{
	const char *rev = NULL;
	veles_table *t;
	int ret;

	if (!pyveles_project_ready(self) || !PyArg_ParseTuple(args, "|z:profiles", &rev))
		return NULL;
	ret = veles_project_profiles(self->pr, rev, &t);
	return ret < 0 ? pyveles_raise(ret) : table_wrap(t, 1, NULL);
}

static PyObject *project_pending(ProjectObject *self, PyObject *unused)
{
	veles_table *t;
	int ret;

	(void)unused;
	if (!pyveles_project_ready(self))
		return NULL;
	ret = veles_project_pending(self->pr, &t);
	return ret < 0 ? pyveles_raise(ret) : table_wrap(t, 1, NULL);
}

static PyObject *project_load(ProjectObject *self, PyObject *args)
{
	const char *spec, *rev = NULL;
	veles_profile *p;
	PyThreadState *ts;
	int ret;

	if (!pyveles_project_ready(self) || !PyArg_ParseTuple(args, "s|z:load", &spec, &rev))
		return NULL;
	ts = PyEval_SaveThread();
	ret = veles_project_load(self->pr, spec, rev, &p);
	PyEval_RestoreThread(ts);
	if (ret < 0)
		return pyveles_raise(ret);
	return profile_wrap(p);
}

/* check(base, target, options): two revisions (str) or two Profiles. */
static PyObject *project_check(ProjectObject *self, PyObject *args)
{
	PyObject *base, *target, *opts;

	if (!pyveles_project_ready(self) ||
	    !PyArg_ParseTuple(args, "OOO!:check", &base, &target, &PyDict_Type, &opts))
		return NULL;
	if (!(PyUnicode_Check(base) && PyUnicode_Check(target)) &&
	    !(PyObject_TypeCheck(base, &Profile_Type) &&
	      PyObject_TypeCheck(target, &Profile_Type))) {
		PyErr_SetString(PyExc_TypeError, "check wants two revisions or two profiles");
		return NULL;
	}
	return pyveles_check(self->pr, (PyObject *)self, base, target, opts);
}

static PyMethodDef project_methods[] = {
	{"versions", (PyCFunction)project_versions, METH_VARARGS,
	 "versions(rev=None, limit=0) -> Table: the history from rev, newest first"},
	{"profiles", (PyCFunction)project_profiles, METH_VARARGS,
	 "profiles(rev=None) -> Table: the profiles registered to rev, in N@i order"},
	{"pending", (PyCFunction)project_pending, METH_NOARGS,
	 "pending() -> Table: the pending profiles, in N@p order"},
	{"load", (PyCFunction)project_load, METH_VARARGS,
	 "load(spec, rev=None) -> Profile: by path, N@i, N@p, name or id prefix"},
	{"check", (PyCFunction)project_check, METH_VARARGS,
	 "check(base, target, options) -> Table: two revisions or two Profiles"},
	{"collect", (PyCFunction)project_collect, METH_VARARGS,
	 "collect(collector, cmd, options) -> str: the pending profile written"},
	{"run_matrix", (PyCFunction)project_run_matrix, METH_VARARGS,
	 "run_matrix(revs) -> Table: a row per job of the job matrix"},
	{"bisect", (PyCFunction)project_bisect, METH_VARARGS,
	 "bisect(good, bad, cmd, options) -> Table: the decisions, then the first slow version"},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef project_getset[] = {
	{"root", (getter)project_root, NULL, "the project's directory", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject Project_Type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "veles._veles.Project",
	.tp_doc = "Project(path=None): the Veles project around path (default: here).",
	.tp_basicsize = sizeof(ProjectObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)project_init,
	.tp_dealloc = (destructor)project_dealloc,
	.tp_methods = project_methods,
	.tp_getset = project_getset,
};

/* ---- the module ---- */

static PyObject *abi_version(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return PyLong_FromLong(veles_abi_version());
}

static PyMethodDef module_methods[] = {
	{"load", load, METH_VARARGS, "load(path) -> Profile: a profile file"},
	{"check_profiles", check_profiles, METH_VARARGS,
	 "check_profiles(base, target, options) -> Table"},
	{"set_log", set_log, METH_O, "set_log(fn): fn(level, message) gets warnings and progress"},
	{"abi_version", abi_version, METH_NOARGS, "the ABI of the libveles in use"},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	"_veles",
	"The C side of the veles package (libveles).",
	-1,
	module_methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

static int add_error(PyObject *m, const char *name, PyObject *bases, PyObject **out)
{
	char full[64];

	snprintf(full, sizeof(full), "veles.%s", name);
	*out = PyErr_NewException(full, bases, NULL);
	if (!*out)
		return -1;
	Py_INCREF(*out);
	return PyModule_AddObject(m, name, *out);
}

static int add_errors(PyObject *m)
{
	PyObject *b;
	int ret;

	if (add_error(m, "Error", NULL, &Error) < 0)
		return -1;
	if (add_error(m, "ParseError", Error, &ParseError) < 0)
		return -1;
	b = Py_BuildValue("(OO)", Error, PyExc_LookupError);
	ret = b ? add_error(m, "NotFoundError", b, &NotFoundError) : -1;
	Py_XDECREF(b);
	if (ret < 0)
		return -1;
	b = Py_BuildValue("(OO)", Error, PyExc_ValueError);
	ret = b ? add_error(m, "InvalidError", b, &InvalidError) : -1;
	Py_XDECREF(b);
	return ret;
}

/* The entry CPython calls on `import veles._veles`. */
PyMODINIT_FUNC PyInit__veles(void);
PyMODINIT_FUNC PyInit__veles(void)
{
	PyTypeObject *types[] = {&Buffer_Type, &Profile_Type, &Table_Type, &Project_Type};
	const char *names[] = {"Buffer", "Profile", "Table", "Project"};
	PyObject *m = PyModule_Create(&module);

	if (!m)
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (PyType_Ready(types[i]) < 0)
			return NULL;
		Py_INCREF(types[i]);
		if (PyModule_AddObject(m, names[i], (PyObject *)types[i]) < 0)
			return NULL;
	}
	if (add_errors(m) < 0 || PyModule_AddStringConstant(m, "version", veles_version()) < 0 ||
	    PyModule_AddIntConstant(m, "ABI_VERSION", VELES_ABI_VERSION) < 0)
		return NULL;
	return m;
}
