/* _veles.Table: a libveles table's columns as buffers, codes and rows. */
#include "pyveles.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

PyObject *table_wrap(veles_table *t, int owns, PyObject *owner)
{
	TableObject *o = PyObject_New(TableObject, &Table_Type);

	if (!o) {
		if (owns)
			veles_table_free(t);
		return NULL;
	}
	o->t = t;
	o->owns = owns;
	o->owner = owner;
	Py_XINCREF(owner);
	return (PyObject *)o;
}

static void table_dealloc(TableObject *self)
{
	if (self->owns)
		veles_table_free(self->t);
	Py_XDECREF(self->owner);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static char kind_format(int kind)
{
	return kind == VELES_I32 ? 'i' : kind == VELES_I64 ? 'q' : kind == VELES_F64 ? 'd' : 'I';
}

static const char *kind_name(int kind)
{
	static const char *const names[] = {"int32", "int64", "float64", "str", "json"};

	return kind >= 0 && kind <= VELES_JSON ? names[kind] : "?";
}

/* Column @i of the table, or NULL with an IndexError. */
static int get_column(TableObject *self, Py_ssize_t i, veles_column *c)
{
	if (i < 0 || veles_table_column(self->t, (size_t)i, c) < 0) {
		PyErr_Format(PyExc_IndexError, "no column %zd: the table has %zu", i,
			     veles_table_ncols(self->t));
		return -1;
	}
	return 0;
}

/* Where row @r's cell is, or SIZE_MAX when it has none. */
static size_t cell_at(const veles_column *c, size_t r)
{
	size_t at = c->index ? c->index[r] : r;

	return at < c->len && !(c->absent && c->absent[at]) ? at : SIZE_MAX;
}

static double cell_num(const veles_column *c, size_t at)
{
	switch (c->kind) {
	case VELES_I32:
		return ((const int32_t *)c->data)[at];
	case VELES_I64:
		return (double)((const int64_t *)c->data)[at];
	default:
		return ((const double *)c->data)[at];
	}
}

/* The nrows cells of a numeric column gathered into a new buffer: of its
 * own kind when every row has a value, else float64 with NaN for none. */
static PyObject *gather(TableObject *self, const veles_column *c, size_t n)
{
	size_t size = c->kind == VELES_I32 ? 4 : 8, r;
	int complete = 1;
	char *out;
	double *nums;

	for (r = 0; r < n && complete; r++)
		complete = cell_at(c, r) != SIZE_MAX;
	out = PyMem_RawMalloc(n ? n * 8 : 1);
	if (!out)
		return PyErr_NoMemory();
	nums = (void *)out;
	for (r = 0; r < n; r++) {
		size_t at = cell_at(c, r);

		if (complete)
			memcpy(out + r * size, (const char *)c->data + at * size, size);
		else
			nums[r] = at == SIZE_MAX ? NAN : cell_num(c, at);
	}
	return buffer_new((PyObject *)self, out, (Py_ssize_t)n,
			  complete ? kind_format(c->kind) : 'd', 1);
}

static PyObject *table_values(TableObject *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);
	size_t n = veles_table_nrows(self->t);
	veles_column c;

	if ((i == -1 && PyErr_Occurred()) || get_column(self, i, &c) < 0)
		return NULL;
	if (c.kind == VELES_STR || c.kind == VELES_JSON) {
		PyErr_Format(PyExc_TypeError, "column %s holds text: use codes()", c.name);
		return NULL;
	}
	/* The cells as the profile keeps them, when they are the rows. */
	if (!c.index && !c.absent && c.len >= n)
		return buffer_new((PyObject *)self, (void *)c.data, (Py_ssize_t)n,
				  kind_format(c.kind), 0);
	return gather(self, &c, n);
}

/* Numbers each distinct string of the column in order of appearance:
 * (codes, categories), codes an int32 buffer (-1: no value). */
static PyObject *table_codes(TableObject *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);
	size_t n = veles_table_nrows(self->t), nstr = veles_table_nstrings(self->t);
	int32_t *codes, *map;
	PyObject *cats, *buf;
	veles_column c;

	if ((i == -1 && PyErr_Occurred()) || get_column(self, i, &c) < 0)
		return NULL;
	if (c.kind != VELES_STR && c.kind != VELES_JSON) {
		PyErr_Format(PyExc_TypeError, "column %s holds numbers: use values()", c.name);
		return NULL;
	}
	codes = PyMem_RawMalloc(n ? n * sizeof(*codes) : 1);
	map = PyMem_RawMalloc(nstr ? nstr * sizeof(*map) : 1);
	cats = PyList_New(0);
	if (!codes || !map || !cats)
		goto fail;
	memset(map, 0xff, nstr * sizeof(*map));
	for (size_t r = 0; r < n; r++) {
		size_t at = cell_at(&c, r);
		uint32_t id = at == SIZE_MAX ? UINT32_MAX : ((const uint32_t *)c.data)[at];

		if (id >= nstr) {
			codes[r] = -1;
			continue;
		}
		if (map[id] < 0) {
			PyObject *s = PyUnicode_FromString(veles_table_string(self->t, id));

			if (!s || PyList_Append(cats, s) < 0) {
				Py_XDECREF(s);
				goto fail;
			}
			Py_DECREF(s);
			map[id] = (int32_t)(PyList_GET_SIZE(cats) - 1);
		}
		codes[r] = map[id];
	}
	PyMem_RawFree(map);
	buf = buffer_new(NULL, codes, (Py_ssize_t)n, 'i', 1);
	if (!buf) {
		Py_DECREF(cats);
		return NULL;
	}
	return Py_BuildValue("(NN)", buf, cats);
fail:
	PyMem_RawFree(codes);
	PyMem_RawFree(map);
	Py_XDECREF(cats);
	return PyErr_Occurred() ? NULL : PyErr_NoMemory();
}

/* A cell as a Python value: int, float, str, or None. */
static PyObject *cell_object(TableObject *self, const veles_column *c, size_t r)
{
	size_t at = cell_at(c, r);

	if (at == SIZE_MAX)
		Py_RETURN_NONE;
	switch (c->kind) {
	case VELES_I32:
		return PyLong_FromLong(((const int32_t *)c->data)[at]);
	case VELES_I64:
		return PyLong_FromLongLong(((const int64_t *)c->data)[at]);
	case VELES_F64:
		return PyFloat_FromDouble(((const double *)c->data)[at]);
	default:
		return PyUnicode_FromString(
			veles_table_string(self->t, ((const uint32_t *)c->data)[at]));
	}
}

static PyObject *table_row(TableObject *self, PyObject *arg)
{
	Py_ssize_t r = PyLong_AsSsize_t(arg);
	PyObject *d;

	if (r == -1 && PyErr_Occurred())
		return NULL;
	if (r < 0 || (size_t)r >= veles_table_nrows(self->t)) {
		PyErr_Format(PyExc_IndexError, "no row %zd: the table has %zu", r,
			     veles_table_nrows(self->t));
		return NULL;
	}
	d = PyDict_New();
	for (size_t i = 0; d && i < veles_table_ncols(self->t); i++) {
		veles_column c;
		PyObject *v;

		veles_table_column(self->t, i, &c);
		v = cell_object(self, &c, (size_t)r);
		if (!v || PyDict_SetItemString(d, c.name, v) < 0) {
			Py_XDECREF(v);
			Py_CLEAR(d);
			break;
		}
		Py_DECREF(v);
	}
	return d;
}

/* column(i) -> (name, kind, data, len, index, absent): the cells as kept,
 * each a Buffer or None, for those who resolve them themselves. */
static PyObject *table_column(TableObject *self, PyObject *arg)
{
	Py_ssize_t i = PyLong_AsSsize_t(arg);
	size_t n = veles_table_nrows(self->t);
	PyObject *data, *index = Py_None, *absent = Py_None;
	veles_column c;

	if ((i == -1 && PyErr_Occurred()) || get_column(self, i, &c) < 0)
		return NULL;
	data = buffer_new((PyObject *)self, (void *)c.data, (Py_ssize_t)c.len, kind_format(c.kind),
			  0);
	if (data && c.index)
		index = buffer_new((PyObject *)self, (void *)c.index, (Py_ssize_t)n, 'I', 0);
	else
		Py_INCREF(index);
	if (data && index && c.absent)
		absent = buffer_new((PyObject *)self, (void *)c.absent, (Py_ssize_t)c.len, 'B', 0);
	else
		Py_INCREF(absent);
	if (!data || !index || !absent) {
		Py_XDECREF(data);
		Py_XDECREF(index);
		Py_XDECREF(absent);
		return NULL;
	}
	return Py_BuildValue("(ssNnNN)", c.name, kind_name(c.kind), data, (Py_ssize_t)c.len, index,
			     absent);
}

static PyObject *table_nrows(TableObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromSize_t(veles_table_nrows(self->t));
}

static PyObject *table_names(TableObject *self, void *closure)
{
	PyObject *l = PyList_New((Py_ssize_t)veles_table_ncols(self->t));

	(void)closure;
	for (size_t i = 0; l && i < veles_table_ncols(self->t); i++) {
		veles_column c;
		PyObject *s;

		veles_table_column(self->t, i, &c);
		s = PyUnicode_FromString(c.name);
		if (!s) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, s);
	}
	return l;
}

static PyObject *table_kinds(TableObject *self, void *closure)
{
	PyObject *l = PyList_New((Py_ssize_t)veles_table_ncols(self->t));

	(void)closure;
	for (size_t i = 0; l && i < veles_table_ncols(self->t); i++) {
		veles_column c;
		PyObject *s;

		veles_table_column(self->t, i, &c);
		s = PyUnicode_FromString(kind_name(c.kind));
		if (!s) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, s);
	}
	return l;
}

static Py_ssize_t table_len(TableObject *self)
{
	return (Py_ssize_t)veles_table_nrows(self->t);
}

static PySequenceMethods table_seq = {.sq_length = (lenfunc)table_len};

static PyMethodDef table_methods[] = {
	{"values", (PyCFunction)table_values, METH_O,
	 "values(i) -> Buffer: a numeric column's rows (no copy where the profile keeps them so)"},
	{"codes", (PyCFunction)table_codes, METH_O,
	 "codes(i) -> (Buffer, list): a text column as int32 codes (-1: none) and categories"},
	{"row", (PyCFunction)table_row, METH_O, "row(r) -> dict"},
	{"column", (PyCFunction)table_column, METH_O,
	 "column(i) -> (name, kind, data, len, index, absent): the cells as kept"},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef table_getset[] = {
	{"nrows", (getter)table_nrows, NULL, "the number of rows", NULL},
	{"names", (getter)table_names, NULL, "the columns' names", NULL},
	{"kinds", (getter)table_kinds, NULL,
	 "the columns' kinds (int32, int64, float64, str, json)", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject Table_Type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "veles._veles.Table",
	.tp_doc = "Typed columns of a libveles table.",
	.tp_basicsize = sizeof(TableObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)table_dealloc,
	.tp_methods = table_methods,
	.tp_getset = table_getset,
	.tp_as_sequence = &table_seq,
};
