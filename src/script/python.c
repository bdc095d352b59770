/*
 * veles-script-python.so: runs a Python script's handlers over a tracepoint
 * recording (docs/cli/script.md). Each event gets its handler looked up once;
 * each sample becomes one vectorcall with the common arguments and the
 * tracepoint's fields, decoded with libtraceevent's parse of the format.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <event-parse.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "script/script-module.h"

enum { NCOMMON = 7 };

/* One tracepoint of the recording. */
struct ev {
	struct tep_event *te;
	PyObject *name;	   /* "subsystem__event_name" */
	PyObject *handler; /* the script's function, or NULL */
	struct tep_format_field **fields;
	int nfields;
	struct tep_format_field *pid, *flags, *preempt, *lock_depth;
};

struct state {
	struct tep_handle *tep;
	struct ev *evs;
	size_t nevs;
	struct ev **by_id; /* common_type (u16) -> event */
	PyObject *main, *unhandled, *context, **comms;
	PyObject **args; /* a handler call's arguments: room for the most fields */
	size_t nargs;
	size_t ncomms;
	/* the sample being handled, for perf_trace_context's functions */
	const struct ev *cur;
	const unsigned char *cur_raw;
	char *error;
};

static void fail(struct state *st, const char *what, const char *arg)
{
	snprintf(st->error, sizeof(((struct veles_script_run *)0)->error), "%s %s", what, arg);
}

/* ---- perf_trace_context: the common fields not passed to handlers ---- */

static PyObject *common_field(PyObject *ctx, size_t which)
{
	struct state *st = PyCapsule_GetPointer(ctx, "veles.context");
	struct tep_format_field *f;

	if (!st)
		return NULL;
	if (!st->cur)
		return PyLong_FromLong(-1);
	f = which == 0 ? st->cur->preempt : which == 1 ? st->cur->flags : st->cur->lock_depth;
	if (!f)
		return PyLong_FromLong(-1); /* the kernel's format has no such field */
	return PyLong_FromUnsignedLongLong(
		tep_read_number(st->tep, st->cur_raw + f->offset, f->size));
}

static PyObject *ctx_pc(PyObject *self, PyObject *ctx)
{
	(void)self;
	return common_field(ctx, 0);
}

static PyObject *ctx_flags(PyObject *self, PyObject *ctx)
{
	(void)self;
	return common_field(ctx, 1);
}

static PyObject *ctx_lock_depth(PyObject *self, PyObject *ctx)
{
	(void)self;
	return common_field(ctx, 2);
}

static PyMethodDef ctx_methods[] = {
	{"common_pc", ctx_pc, METH_O, "the event's common_preempt_count"},
	{"common_flags", ctx_flags, METH_O, "the event's common_flags"},
	{"common_lock_depth", ctx_lock_depth, METH_O,
	 "the event's common_lock_depth (-1: the kernel has none)"},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef ctx_module = {
	PyModuleDef_HEAD_INIT,
	"perf_trace_context",
	"Fields of the event being handled.",
	-1,
	ctx_methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

static PyObject *ctx_init(void)
{
	return PyModule_Create(&ctx_module);
}

/* ---- decoding one field ---- */

static long long read_signed(const unsigned char *p, int size)
{
	int8_t a;
	int16_t b;
	int32_t c;
	int64_t d = 0;

	switch (size) {
	case 1:
		memcpy(&a, p, 1);
		return a;
	case 2:
		memcpy(&b, p, 2);
		return b;
	case 4:
		memcpy(&c, p, 4);
		return c;
	default:
		memcpy(&d, p, size == 8 ? 8 : 0);
		return d;
	}
}

static PyObject *number(struct state *st, const struct tep_format_field *f, const unsigned char *p,
			int size)
{
	if (f->flags & TEP_FIELD_IS_SIGNED)
		return PyLong_FromLongLong(read_signed(p, size));
	return PyLong_FromUnsignedLongLong(tep_read_number(st->tep, p, size));
}

static PyObject *text(const unsigned char *p, size_t max)
{
	return PyUnicode_DecodeUTF8((const char *)p, (Py_ssize_t)strnlen((const char *)p, max),
				    "surrogateescape");
}

/* __data_loc fields: a u32 with the data's offset (low half) and length. */
static PyObject *dynamic(const struct tep_format_field *f, const unsigned char *raw, uint32_t size)
{
	uint32_t loc, off, len;

	memcpy(&loc, raw + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint32_t)(f->offset + f->size);
	if (off > size || len > size - off)
		len = 0, off = 0;
	if (f->flags & TEP_FIELD_IS_STRING)
		return text(raw + off, len);
	return PyByteArray_FromStringAndSize((const char *)raw + off, len);
}

static PyObject *field_value(struct state *st, const struct tep_format_field *f,
			     const unsigned char *raw, uint32_t size)
{
	PyObject *list;
	int n;

	if ((uint32_t)(f->offset + f->size) > size)
		Py_RETURN_NONE;
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return dynamic(f, raw, size);
	if (f->flags & TEP_FIELD_IS_STRING)
		return text(raw + f->offset, (size_t)f->size);
	if (!(f->flags & TEP_FIELD_IS_ARRAY) || !f->elementsize)
		return number(st, f, raw + f->offset, f->size);
	n = f->size / (int)f->elementsize;
	list = PyList_New(n);
	for (int i = 0; list && i < n; i++)
		PyList_SET_ITEM(list, i,
				number(st, f, raw + f->offset + i * (int)f->elementsize,
				       (int)f->elementsize));
	return list;
}

/* ---- the events: handlers looked up once ---- */

static int setup_event(struct state *st, struct ev *e, struct tep_event *te)
{
	char *name = NULL;
	size_t len = strlen(te->system) + strlen(te->name) + 3;
	int i = 0;

	e->te = te;
	name = malloc(len);
	if (!name)
		return -1;
	snprintf(name, len, "%s__%s", te->system, te->name);
	e->name = PyUnicode_InternFromString(name);
	free(name);
	e->handler = e->name ? PyDict_GetItemWithError(st->main, e->name) : NULL;
	if (PyErr_Occurred())
		return -1;
	Py_XINCREF(e->handler);
	if (e->handler && !PyCallable_Check(e->handler))
		Py_CLEAR(e->handler);
	e->nfields = te->format.nr_fields;
	if ((size_t)e->nfields + NCOMMON > st->nargs) {
		st->nargs = (size_t)e->nfields + NCOMMON;
		free(st->args);
		if (!(st->args = calloc(st->nargs, sizeof(*st->args))))
			return -1;
	}
	e->fields = calloc((size_t)e->nfields + 1, sizeof(*e->fields));
	for (struct tep_format_field *f = te->format.fields; f && i < e->nfields; f = f->next)
		e->fields[i++] = f;
	e->pid = tep_find_common_field(te, "common_pid");
	e->flags = tep_find_common_field(te, "common_flags");
	e->preempt = tep_find_common_field(te, "common_preempt_count");
	e->lock_depth = tep_find_common_field(te, "common_lock_depth");
	if (te->id >= 0 && te->id <= 0xffff)
		st->by_id[te->id] = e;
	return e->name && e->fields ? 0 : -1;
}

static int parse_formats(struct state *st, const struct tp_stream *s)
{
	st->tep = tep_alloc();
	if (!st->tep)
		return -1;
	tep_set_long_size(st->tep, (int)sizeof(long));
	for (size_t i = 0; i < s->nformats; i++) {
		const char *text = s->formats[i].text;

		if (tep_parse_event(st->tep, text, strlen(text), s->formats[i].system) != 0) {
			fail(st, "cannot parse the format of a tracepoint of",
			     s->formats[i].system);
			return -1;
		}
	}
	return 0;
}

static int setup_events(struct state *st)
{
	int n = tep_get_events_count(st->tep);

	st->by_id = calloc(0x10000, sizeof(*st->by_id));
	st->evs = calloc((size_t)n + 1, sizeof(*st->evs));
	if (!st->by_id || !st->evs)
		return -1;
	for (int i = 0; i < n; i++)
		if (setup_event(st, &st->evs[st->nevs++], tep_get_event(st->tep, i)) < 0)
			return -1;
	st->unhandled = PyDict_GetItemString(st->main, "trace_unhandled");
	Py_XINCREF(st->unhandled);
	return 0;
}

/* ---- Core's tables for flag_str and symbol_str, from each print fmt ---- */

static int call_core(PyObject *core, const char *fn, const char *fmt, ...)
{
	PyObject *f = PyObject_GetAttrString(core, fn), *args, *r;
	va_list ap;

	if (!f)
		return -1;
	va_start(ap, fmt);
	args = Py_VaBuildValue(fmt, ap);
	va_end(ap);
	r = args ? PyObject_CallObject(f, args) : NULL;
	Py_DECREF(f);
	Py_XDECREF(args);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

/* The field a flags or symbolic argument names: "prev_state" even inside
 * an expression such as (prev_state & MASK). */
static const char *field_name(const struct tep_print_arg *arg)
{
	const char *name = NULL;

	if (!arg)
		return NULL;
	if (arg->type == TEP_PRINT_FIELD)
		return arg->field.name;
	if (arg->type == TEP_PRINT_OP && !(name = field_name(arg->op.left)))
		name = field_name(arg->op.right);
	if (arg->type == TEP_PRINT_TYPE)
		name = field_name(arg->typecast.item);
	return name;
}

static int define_values(PyObject *core, const char *ev, const struct tep_print_arg *arg)
{
	bool flags = arg->type == TEP_PRINT_FLAGS;
	const struct tep_print_arg *field = flags ? arg->flags.field : arg->symbol.field;
	const struct tep_print_flag_sym *sym = flags ? arg->flags.flags : arg->symbol.symbols;
	const char *name;

	if (!(name = field_name(field)))
		return 0;
	if (flags ? call_core(core, "define_flag_field", "(sss)", ev, name,
			      arg->flags.delim ? arg->flags.delim : "|")
		  : call_core(core, "define_symbolic_field", "(ss)", ev, name))
		return -1;
	for (; sym; sym = sym->next)
		if (call_core(core, flags ? "define_flag_value" : "define_symbolic_value", "(ssKs)",
			      ev, name, strtoull(sym->value, NULL, 0), sym->str) < 0)
			return -1;
	return 0;
}

/* Walks a print argument's tree for __print_flags and __print_symbolic. */
static int define_arg(PyObject *core, const char *ev, const struct tep_print_arg *arg)
{
	for (; arg; arg = arg->next) {
		int ret = 0;

		if (arg->type == TEP_PRINT_FLAGS || arg->type == TEP_PRINT_SYMBOL)
			ret = define_values(core, ev, arg);
		else if (arg->type == TEP_PRINT_OP)
			ret = define_arg(core, ev, arg->op.left) ||
					      define_arg(core, ev, arg->op.right)
				      ? -1
				      : 0;
		else if (arg->type == TEP_PRINT_TYPE)
			ret = define_arg(core, ev, arg->typecast.item);
		else if (arg->type == TEP_PRINT_FUNC)
			ret = define_arg(core, ev, arg->func.args);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static int define_flags(struct state *st)
{
	PyObject *core = PyImport_ImportModule("Core");
	int ret = 0;

	if (!core)
		return -1;
	for (size_t i = 0; i < st->nevs && ret == 0; i++)
		ret = define_arg(core, PyUnicode_AsUTF8(st->evs[i].name),
				 st->evs[i].te->print_fmt.args);
	Py_DECREF(core);
	return ret;
}

/* ---- the run ---- */

static PyObject *comm_of(struct state *st, const struct tp_stream *s, uint32_t i)
{
	if (i >= st->ncomms)
		i = 0;
	if (!st->comms[i])
		st->comms[i] = PyUnicode_FromString(s->comms[i]);
	return st->comms[i];
}

static bool nonnull(PyObject *const *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!v[i])
			return false;
	return true;
}

/* One sample: its handler (or trace_unhandled) with the common arguments,
 * then the tracepoint's fields. False when the call raised. */
static bool handle(struct state *st, const struct tp_stream *s, const struct tp_sample *smp,
		   unsigned long long *calls)
{
	PyObject **args = st->args, *r = NULL, *fn;
	const struct ev *e;
	uint16_t type;
	int n = NCOMMON, pid;

	memcpy(&type, smp->raw, 2);
	e = st->by_id[type];
	if (!e || !(fn = e->handler ? e->handler : st->unhandled))
		return true;
	st->cur = e;
	st->cur_raw = smp->raw;
	pid = e->pid && (uint32_t)(e->pid->offset + 4) <= smp->raw_size
		      ? (int)read_signed(smp->raw + e->pid->offset, 4)
		      : (int)smp->tid;
	args[0] = e->name;
	args[1] = st->context;
	args[2] = PyLong_FromUnsignedLong(smp->cpu);
	args[3] = PyLong_FromUnsignedLongLong(smp->time / 1000000000u);
	args[4] = PyLong_FromUnsignedLongLong(smp->time % 1000000000u);
	args[5] = PyLong_FromLong(pid);
	args[6] = comm_of(st, s, smp->comm);
	if (e->handler)
		for (int i = 0; i < e->nfields; i++)
			args[n++] = field_value(st, e->fields[i], smp->raw, smp->raw_size);
	if (args[2] && args[3] && args[4] && args[5] && args[6] &&
	    nonnull(args + NCOMMON, n - NCOMMON))
		r = PyObject_Vectorcall(fn, args, (size_t)n, NULL);
	for (int i = 2; i < n; i++)
		if (i != 6)
			Py_XDECREF(args[i]);
	(*calls)++;
	Py_XDECREF(r);
	return r != NULL;
}

/* Calls trace_begin or trace_end when the script defines it. */
static bool call_optional(struct state *st, const char *name)
{
	PyObject *fn = PyDict_GetItemString(st->main, name), *r;

	if (!fn)
		return true;
	r = PyObject_CallNoArgs(fn);
	Py_XDECREF(r);
	return r != NULL;
}

static int load_script(struct state *st, struct veles_script_run *run)
{
	FILE *f = fopen(run->script, "re");
	PyObject *file, *r;

	if (!f) {
		fail(st, "cannot read the script", run->script);
		return -1;
	}
	st->main = PyModule_GetDict(PyImport_AddModule("__main__"));
	file = PyUnicode_DecodeFSDefault(run->script);
	PyDict_SetItemString(st->main, "__file__", file);
	Py_XDECREF(file);
	r = PyRun_FileExFlags(f, run->script, Py_file_input, st->main, st->main, 1, NULL);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

/* sys.path: the helper modules first, then the script's own directory. */
static int set_path(struct veles_script_run *run)
{
	PyObject *path = PySys_GetObject("path"), *lib, *dir;
	const char *slash = strrchr(run->script, '/');
	int ret;

	if (!path)
		return -1;
	lib = PyUnicode_DecodeFSDefault(run->libdir);
	dir = slash ? PyUnicode_DecodeFSDefaultAndSize(run->script, slash - run->script)
		    : PyUnicode_FromString(".");
	ret = lib && dir && PyList_Insert(path, 0, dir) == 0 && PyList_Insert(path, 0, lib) == 0
		      ? 0
		      : -1;
	Py_XDECREF(lib);
	Py_XDECREF(dir);
	return ret;
}

/*
 * $PERF_EXEC_PATH, which scripts written for perf append to sys.path, in the
 * interpreter's os.environ when it is not set there: in its mapping alone,
 * as os.environ's own item assignment would putenv() into the process that
 * embeds us, whose environment is not ours to change.
 */
static int set_exec_path(const struct veles_script_run *run)
{
	PyObject *os = PyImport_ImportModule("os");
	PyObject *env = os ? PyObject_GetAttrString(os, "environ") : NULL;
	PyObject *data = env ? PyObject_GetAttrString(env, "_data") : NULL;
	PyObject *key = env ? PyObject_CallMethod(env, "encodekey", "s", "PERF_EXEC_PATH") : NULL;
	PyObject *val = PyUnicode_DecodeFSDefault(run->exec_path);
	PyObject *enc = env && val ? PyObject_CallMethod(env, "encodevalue", "O", val) : NULL;
	int ret = data && key && enc ? PyDict_Contains(data, key) : -1;

	if (ret == 0)
		ret = PyDict_SetItem(data, key, enc);
	Py_XDECREF(enc);
	Py_XDECREF(val);
	Py_XDECREF(key);
	Py_XDECREF(data);
	Py_XDECREF(env);
	Py_XDECREF(os);
	return ret < 0 ? -1 : 0;
}

static int start_python(struct veles_script_run *run)
{
	PyConfig config;
	PyStatus status;

	PyConfig_InitPythonConfig(&config);
	config.parse_argv = 0;
	config.install_signal_handlers = 1;
	status = PyConfig_SetBytesArgv(&config, run->argc, run->argv);
	if (!PyStatus_Exception(status))
		status = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(status)) {
		snprintf(run->error, sizeof(run->error), "cannot start Python: %s",
			 status.err_msg ? status.err_msg : "unknown error");
		return -1;
	}
	return set_path(run) < 0 || set_exec_path(run) < 0 ? -1 : 0;
}

static int run_samples(struct state *st, struct veles_script_run *run)
{
	const struct tp_stream *s = run->stream;

	if (!call_optional(st, "trace_begin"))
		return -1;
	for (size_t i = 0; i < s->nsamples; i++)
		if (!handle(st, s, &s->samples[i], &run->handled))
			return -1;
	st->cur = NULL;
	return call_optional(st, "trace_end") ? 0 : -1;
}

static int run_all(struct state *st, struct veles_script_run *run)
{
	st->context = PyCapsule_New(st, "veles.context", NULL);
	st->ncomms = run->stream->ncomms;
	st->comms = calloc(st->ncomms + 1, sizeof(*st->comms));
	if (!st->context || !st->comms || load_script(st, run) < 0)
		return -1;
	if (parse_formats(st, run->stream) < 0 || setup_events(st) < 0 || define_flags(st) < 0)
		return -1;
	return run_samples(st, run);
}

static void release(struct state *st)
{
	for (size_t i = 0; i < st->nevs; i++) {
		Py_XDECREF(st->evs[i].name);
		Py_XDECREF(st->evs[i].handler);
		free(st->evs[i].fields);
	}
	for (size_t i = 0; st->comms && i < st->ncomms; i++)
		Py_XDECREF(st->comms[i]);
	Py_XDECREF(st->unhandled);
	Py_XDECREF(st->context);
	free(st->comms);
	free(st->args);
	free(st->evs);
	free(st->by_id);
	if (st->tep)
		tep_free(st->tep);
}

__attribute__((visibility("default"))) int veles_script_python_run(struct veles_script_run *run);

int veles_script_python_run(struct veles_script_run *run)
{
	struct state st = {.error = run->error};
	int ret;

	if (run->abi != VELES_SCRIPT_ABI) {
		snprintf(run->error, sizeof(run->error), "the Python module is from another veles");
		return -1;
	}
	if (PyImport_AppendInittab("perf_trace_context", ctx_init) < 0 || start_python(run) < 0) {
		if (!run->error[0])
			snprintf(run->error, sizeof(run->error), "cannot start Python");
		return -1;
	}
	ret = run_all(&st, run);
	if (ret < 0 && PyErr_ExceptionMatches(PyExc_SystemExit)) {
		PyErr_Clear(); /* sys.exit() in a handler ends the run early */
		ret = 0;
	} else if (ret < 0 && PyErr_ExceptionMatches(PyExc_BrokenPipeError)) {
		/* the reader went away (| head): the end, quietly, without
		 * Python failing again to flush what is left at exit */
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		PyErr_Clear();
		if (fd >= 0 && dup2(fd, STDOUT_FILENO) >= 0)
			ret = 0;
		if (fd >= 0)
			close(fd);
	} else if (ret < 0 && PyErr_Occurred()) {
		PyErr_Print();
		if (!run->error[0])
			snprintf(run->error, sizeof(run->error), "%s failed (the error is above)",
				 run->script);
	}
	release(&st);
	if (Py_FinalizeEx() < 0 && ret == 0) {
		snprintf(run->error, sizeof(run->error), "%s: could not flush its output",
			 run->script);
		ret = -1;
	}
	return ret;
}
