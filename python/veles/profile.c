/* _veles.Profile: a loaded profile, its parts, columns, queries, stacks. */
#include "pyveles.h"

PyObject *profile_wrap(veles_profile *p)
{
	ProfileObject *o = PyObject_New(ProfileObject, &Profile_Type);

	if (!o) {
		veles_profile_free(p);
		return NULL;
	}
	o->p = p;
	o->resources = NULL;
	return (PyObject *)o;
}

static void profile_dealloc(ProfileObject *self)
{
	Py_XDECREF(self->resources);
	veles_profile_free(self->p);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *text_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_FromString(s);
}

static PyObject *profile_get(ProfileObject *self, PyObject *arg)
{
	const char *field = PyUnicode_AsUTF8(arg);

	return field ? text_or_none(veles_profile_get(self->p, field)) : NULL;
}

static PyObject *profile_json(ProfileObject *self, PyObject *arg)
{
	const char *part = PyUnicode_AsUTF8(arg), *json;

	if (!part)
		return NULL;
	json = veles_profile_json(self->p, part);
	return json ? PyUnicode_FromString(json) : pyveles_raise(VELES_ERR_INVALID);
}

static PyObject *profile_resources(ProfileObject *self, PyObject *unused)
{
	(void)unused;
	if (!self->resources) {
		/* The profile owns the table; the Table keeps the profile. */
		self->resources = table_wrap((veles_table *)veles_profile_resources(self->p), 0,
					     (PyObject *)self);
		if (!self->resources)
			return NULL;
	}
	Py_INCREF(self->resources);
	return self->resources;
}

static PyObject *profile_folded(ProfileObject *self, PyObject *args)
{
	const char *of = NULL;
	char *text;
	size_t len;
	PyObject *s;
	int ret;

	if (!PyArg_ParseTuple(args, "|z:folded", &of))
		return NULL;
	ret = veles_profile_folded(self->p, of, &text, &len);
	if (ret < 0)
		return pyveles_raise(ret);
	s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
	veles_free(text);
	return s;
}

/* Adds each condition of @where (a str or a sequence of them) to @q. */
static int add_conditions(veles_query *q, PyObject *where)
{
	PyObject *seq;
	int ret = 0;

	if (where == Py_None)
		return 0;
	if (PyUnicode_Check(where)) {
		ret = veles_query_where(q, PyUnicode_AsUTF8(where));
		return ret < 0 ? (pyveles_raise(ret), -1) : 0;
	}
	seq = PySequence_Fast(where, "where wants a condition or a list of them");
	if (!seq)
		return -1;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && ret == 0; i++) {
		const char *cond = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));

		if (!cond) {
			ret = -1;
			break;
		}
		ret = veles_query_where(q, cond);
		if (ret < 0)
			pyveles_raise(ret);
	}
	Py_DECREF(seq);
	return ret < 0 ? -1 : 0;
}

static PyObject *profile_query(ProfileObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"where", "any", "group_by", "agg", "of", NULL};
	PyObject *where = Py_None;
	int any = 0, ret;
	const char *group_by = NULL, *agg = "sum", *of = NULL;
	veles_query *q;
	veles_table *t;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|Opzsz:query", kwlist, &where, &any, &group_by,
					 &agg, &of))
		return NULL;
	veles_query_new(&q);
	veles_query_any(q, any);
	if (add_conditions(q, where) < 0) {
		veles_query_free(q);
		return NULL;
	}
	ret = group_by ? veles_query_group_by(q, group_by, agg, of) : 0;
	if (ret == 0)
		ret = veles_query_run(q, self->p, &t);
	veles_query_free(q);
	if (ret < 0)
		return pyveles_raise(ret);
	/* Its text may be the profile's: the Table keeps the profile. */
	return table_wrap(t, 1, (PyObject *)self);
}

static PyObject *profile_name(ProfileObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(veles_profile_name(self->p));
}

static PyObject *profile_id(ProfileObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(veles_profile_id(self->p));
}

static PyObject *profile_version(ProfileObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(veles_profile_version(self->p));
}

static Py_ssize_t profile_len(ProfileObject *self)
{
	return (Py_ssize_t)veles_profile_nresources(self->p);
}

static PySequenceMethods profile_seq = {.sq_length = (lenfunc)profile_len};

static PyMethodDef profile_methods[] = {
	{"get", (PyCFunction)profile_get, METH_O,
	 "get(field) -> str or None: type, cmd, args, workload, collector, origin"},
	{"json", (PyCFunction)profile_json, METH_O,
	 "json(part) -> str: header, collector_info, postprocessors, models or meta"},
	{"resources", (PyCFunction)profile_resources, METH_NOARGS,
	 "resources() -> Table: one row per resource"},
	{"folded", (PyCFunction)profile_folded, METH_VARARGS,
	 "folded(of=None) -> str: the call stacks in the collapsed flame-graph format"},
	{"query", (PyCFunction)(void (*)(void))profile_query, METH_VARARGS | METH_KEYWORDS,
	 "query(where=None, any=False, group_by=None, agg='sum', of=None) -> Table"},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef profile_getset[] = {
	{"name", (getter)profile_name, NULL, "the file or entry name", NULL},
	{"id", (getter)profile_id, NULL, "a registered profile's id, else ''", NULL},
	{"version", (getter)profile_version, NULL, "a registered profile's version, else ''", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject Profile_Type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "veles._veles.Profile",
	.tp_doc = "A loaded profile (veles.load).",
	.tp_basicsize = sizeof(ProfileObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)profile_dealloc,
	.tp_methods = profile_methods,
	.tp_getset = profile_getset,
	.tp_as_sequence = &profile_seq,
};
