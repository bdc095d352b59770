/*
 * _veles.Project's methods that run commands: collect, run_matrix and
 * bisect (veles_collect, veles_run_matrix, veles_bisect_*). The GIL is
 * released while they run; the log callback takes it back for each line.
 */
#include "pyveles.h"

/* A sequence of str as a NULL-terminated array of pointers into @seq's
 * strings (keep @seq alive); None is NULL. -1 with an exception set. */
static int strv(PyObject *seq, const char *what, const char ***out)
{
	Py_ssize_t n;

	*out = NULL;
	if (seq == Py_None)
		return 0;
	if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
		PyErr_Format(PyExc_TypeError, "%s wants a list of str", what);
		return -1;
	}
	n = PySequence_Fast_GET_SIZE(seq);
	*out = PyMem_Calloc((size_t)n + 1, sizeof(**out));
	if (!*out) {
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *s = PySequence_Fast_GET_ITEM(seq, i);

		if (!PyUnicode_Check(s) || !((*out)[i] = PyUnicode_AsUTF8(s))) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_TypeError, "%s wants a list of str", what);
			PyMem_Free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

/* A dict of str -> str as "key=value" strings, NULL-terminated; the
 * strings are in *@keep (a list to drop after). */
static int kv_strv(PyObject *opts, const char ***out, PyObject **keep)
{
	PyObject *k, *v;
	Py_ssize_t pos = 0;

	*out = NULL;
	*keep = PyList_New(0);
	if (!*keep)
		return -1;
	while (PyDict_Next(opts, &pos, &k, &v)) {
		PyObject *s = PyUnicode_FromFormat("%S=%S", k, v);

		if (!s || PyList_Append(*keep, s) < 0) {
			Py_XDECREF(s);
			return -1;
		}
		Py_DECREF(s);
	}
	return strv(*keep, "options", out);
}

/* collect(collector, cmd, options) -> path or None */
PyObject *project_collect(ProjectObject *self, PyObject *args)
{
	PyObject *col, *cmd, *opts, *keep = NULL, *res = NULL;
	const char **colv = NULL, **cmdv = NULL, **optv = NULL;
	char *path = NULL;
	int ret;

	if (!pyveles_project_ready(self) ||
	    !PyArg_ParseTuple(args, "OOO!:collect", &col, &cmd, &PyDict_Type, &opts))
		return NULL;
	if (strv(col, "collector", &colv) == 0 && strv(cmd, "cmd", &cmdv) == 0 &&
	    kv_strv(opts, &optv, &keep) == 0) {
		PyThreadState *ts = PyEval_SaveThread();

		ret = veles_collect(self->pr, colv, cmdv, optv, &path);
		PyEval_RestoreThread(ts);
		if (ret < 0)
			pyveles_raise(ret);
		else
			res = path ? PyUnicode_FromString(path) : Py_NewRef(Py_None);
	}
	veles_free(path);
	PyMem_Free(colv);
	PyMem_Free(cmdv);
	PyMem_Free(optv);
	Py_XDECREF(keep);
	return res;
}

/* run_matrix(revs) -> Table */
PyObject *project_run_matrix(ProjectObject *self, PyObject *args)
{
	PyObject *revs;
	const char **revv = NULL;
	veles_table *t = NULL;
	PyThreadState *ts;
	int ret;

	if (!pyveles_project_ready(self) || !PyArg_ParseTuple(args, "O:run_matrix", &revs) ||
	    strv(revs, "revs", &revv) < 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = veles_run_matrix(self->pr, revv, &t);
	PyEval_RestoreThread(ts);
	PyMem_Free(revv);
	return ret < 0 ? pyveles_raise(ret) : table_wrap(t, 1, NULL);
}

static int bisect_set(void *b, const char *key, const char *value)
{
	return veles_bisect_set(b, key, value);
}

/* bisect(good, bad, cmd, options) -> Table */
PyObject *project_bisect(ProjectObject *self, PyObject *args)
{
	const char *good, *bad, **cmdv = NULL;
	PyObject *cmd, *opts;
	veles_bisect *b = NULL;
	veles_table *t = NULL;
	PyThreadState *ts;
	int ret;

	if (!pyveles_project_ready(self) ||
	    !PyArg_ParseTuple(args, "ssOO!:bisect", &good, &bad, &cmd, &PyDict_Type, &opts) ||
	    strv(cmd, "cmd", &cmdv) < 0)
		return NULL;
	ret = veles_bisect_new(self->pr, &b);
	if (ret < 0 || pyveles_set_options(opts, bisect_set, b) < 0) {
		PyMem_Free(cmdv);
		veles_bisect_free(b);
		return ret < 0 ? pyveles_raise(ret) : NULL;
	}
	ts = PyEval_SaveThread();
	ret = veles_bisect_run(b, good, bad, cmdv, &t);
	PyEval_RestoreThread(ts);
	PyMem_Free(cmdv);
	veles_bisect_free(b);
	return ret < 0 ? pyveles_raise(ret) : table_wrap(t, 1, NULL);
}
