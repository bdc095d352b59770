/*
 * veles script: user Python over a tracepoint recording (docs/cli/script.md).
 * Everything but running a script stays here; running one dlopens
 * veles-script-python.so, so veles loads libpython only then.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "perf/pygen.h"
#include "perf/tpstream.h"
#include "script/script-module.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static const char script_usage[] =
	"usage: veles script [-i FILE] -s SCRIPT.py [ARGS...]\n"
	"       veles script [-i FILE] -g python\n"
	"       veles script -l\n"
	"       veles script [-i FILE] record NAME [RECORD-OPTIONS] [--] [CMD...]\n"
	"       veles script [-i FILE] report NAME [ARGS...]\n"
	"\n"
	"Runs a Python script's handlers over a tracepoint recording of veles\n"
	"record: trace_begin(), one SUBSYSTEM__EVENT(event_name, context,\n"
	"common_cpu, common_secs, common_nsecs, common_pid, common_comm, FIELDS...)\n"
	"per sample in time order, trace_unhandled() for events without one, and\n"
	"trace_end(). The modules Core, Util and perf_trace_context are there to\n"
	"import. Python (libpython3) is loaded only for -s and report.\n"
	"\n"
	"  -i, --input FILE    the recording (default veles.data)\n"
	"  -s, --script FILE   run this script; ARGS become its sys.argv[1:]\n"
	"  -g, --gen-script python\n"
	"                      write veles-script.py, a starter script with a\n"
	"                      handler printing every field of each recorded event\n"
	"  -l, --list          list the bundled scripts\n"
	"  record NAME         record what bundled script NAME needs (veles record\n"
	"                      with its events, -o FILE and the arguments given)\n"
	"  report NAME         run bundled script NAME on the recording\n";

struct script_opts {
	const char *input, *script, *gen;
	bool list;
	char **rest; /* after the options: script args, or record/report NAME ... */
	int nrest;
};

static int script_parse(struct script_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{"input", required_argument, NULL, 'i'},
		{"script", required_argument, NULL, 's'},
		{"gen-script", required_argument, NULL, 'g'},
		{"list", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	o->input = "veles.data";
	while ((c = getopt_long(argc, argv, "+hi:s:g:l", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(script_usage, stdout);
			return -1;
		}
		if (c == 'i')
			o->input = optarg;
		else if (c == 's')
			o->script = optarg;
		else if (c == 'g')
			o->gen = optarg;
		else if (c == 'l')
			o->list = true;
		else
			return cli_bad_option("script", argv);
	}
	o->rest = argv + optind;
	o->nrest = argc - optind;
	if (o->gen && strcmp(o->gen, "python") != 0)
		return cli_usage_error("script", "-g knows only python, not '%s'", o->gen);
	if (!o->script && !o->gen && !o->list && o->nrest == 0)
		return cli_usage_error("script", "nothing to do: give -s SCRIPT, -g python, -l, "
						 "record NAME or report NAME");
	return 0;
}

/* ---- where the bundled scripts and the Python module are ---- */

/* The first of @cand (freed) that exists; NULL when none does. */
static char *first_existing(char **cand, size_t n)
{
	char *found = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!found && cand[i] && access(cand[i], R_OK) == 0)
			found = cand[i];
		else
			free(cand[i]);
	}
	return found;
}

/* The bundled scripts: $VELES_SCRIPT_DIR, beside an installed veles, the
 * configured data directory, then the source tree of a build. */
static char *scripts_dir(void)
{
	const char *env = getenv("VELES_SCRIPT_DIR");
	char *cand[] = {
		env && *env ? xstrdup(env) : NULL,
		self_exe_relative("../share/veles/scripts/python"),
		xstrdup(VELES_SCRIPT_INSTALLED),
		xstrdup(VELES_SCRIPT_SOURCE),
	};
	char *dir = first_existing(cand, ARRAY_SIZE(cand));

	if (!dir)
		err_set(ERR_NOTFOUND, "cannot find the bundled scripts (looked in "
				      "VELES_SCRIPT_DIR, " VELES_SCRIPT_INSTALLED ")");
	return dir;
}

static char *module_path(void)
{
	const char *env = getenv("VELES_SCRIPT_MODULE");

	if (env && *env)
		return xstrdup(env);
	char *cand[] = {
		self_exe_relative("../script/" VELES_SCRIPT_MODULE_NAME),
		xstrdup(VELES_SCRIPT_LIBDIR "/" VELES_SCRIPT_MODULE_NAME),
	};
	char *p = first_existing(cand, ARRAY_SIZE(cand));

	return p ? p : xstrdup(VELES_SCRIPT_LIBDIR "/" VELES_SCRIPT_MODULE_NAME);
}

/* ---- -s: running a script through the Python module ---- */

static veles_script_entry load_module(void)
{
	char *path = module_path();
	void *dl = NULL;
	veles_script_entry fn = NULL;

	/* Missing, the module itself is the problem, not the Python it needs. */
	if (access(path, R_OK) != 0) {
		err_set(ERR_NOTFOUND,
			"script: the Python module %s is not there: veles was built without "
			"it (build with python3-dev and libtraceevent-dev installed) or "
			"installed without it; VELES_SCRIPT_MODULE names another",
			path);
		free(path);
		return NULL;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL); /* Python's own C modules need its symbols */
	if (!dl)
		err_set(ERR_NOTFOUND,
			"script: Python is not available: %s (install "
			"libpython" VELES_PYTHON_VERSION
			" and libtraceevent1, e.g. apt-get install libpython" VELES_PYTHON_VERSION
			" libtraceevent1)",
			dlerror());
	else if (!(fn = (veles_script_entry)dlsym(dl, VELES_SCRIPT_ENTRY)))
		err_set(ERR_INVALID, "script: %s is not veles's Python module", path);
	free(path);
	return fn;
}

static int call_module(veles_script_entry fn, const struct tp_stream *s, const char *script,
		       const char *dir, char **args, int nargs)
{
	struct veles_script_run run = {.abi = VELES_SCRIPT_ABI, .script = script, .stream = s};
	char *libdir = xasprintf("%s/lib", dir);
	int ret;

	run.argv = xcalloc((size_t)nargs + 2, sizeof(*run.argv));
	run.argv[0] = (char *)script;
	memcpy(run.argv + 1, args, (size_t)nargs * sizeof(*args));
	run.argc = nargs + 1;
	run.libdir = libdir;
	/* Scripts written for perf append $PERF_EXEC_PATH/... to sys.path. */
	setenv("PERF_EXEC_PATH", dir, 0);
	fflush(stdout);
	ret = fn(&run);
	free(run.argv);
	free(libdir);
	if (ret < 0)
		return err_set(ERR_GENERIC, "script: %s", run.error);
	return 0;
}

static int run_script(const char *input, const char *script, char **args, int nargs)
{
	struct tp_stream s;
	veles_script_entry fn;
	char *dir;
	int ret;

	if (access(script, R_OK) != 0)
		return cli_error("script: cannot read %s: %s", script, strerror(errno));
	if (tp_stream_open(input, &s) < 0)
		return cli_fail();
	dir = scripts_dir();
	fn = dir ? load_module() : NULL;
	ret = fn ? call_module(fn, &s, script, dir, args, nargs) : -1;
	if (ret == 0 && s.lost)
		cli_warn("script: the kernel dropped %llu samples while recording",
			 (unsigned long long)s.lost);
	free(dir);
	tp_stream_free(&s);
	return ret < 0 ? cli_fail() : 0;
}

/* ---- -g python: a starter script (perf/pygen.c) ---- */

static int gen_python(const char *input)
{
	static const char out[] = "veles-script.py";
	struct tp_stream s;
	struct buf b = BUF_INIT;
	int ret;

	if (tp_stream_open(input, &s) < 0)
		return cli_fail();
	pygen_script(s.formats, s.nformats, &b);
	tp_stream_free(&s);
	if (access(out, F_OK) == 0)
		ret = err_set(ERR_EXISTS, "script: %s exists; move it away first", out);
	else
		ret = file_write_atomic(out, b.data, b.len);
	buf_release(&b);
	if (ret < 0)
		return cli_fail();
	printf("generated Python script: %s\n", out);
	return 0;
}

/* ---- the bundled scripts: header lines "# description:", "# args:",
 * "# record:" say what each is and how to record for it ---- */

/* The value of header line "# KEY: " in the script at @path (caller frees). */
static char *script_header(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	char line[512], *val = NULL;
	size_t klen = strlen(key);

	while (f && !val && fgets(line, sizeof(line), f) && line[0] == '#')
		if (strncmp(line + 1, " ", 1) == 0 && strncmp(line + 2, key, klen) == 0 &&
		    line[2 + klen] == ':')
			val = xstrndup(
				line + 3 + klen + strspn(line + 3 + klen, " "),
				strcspn(line + 3 + klen + strspn(line + 3 + klen, " "), "\n"));
	if (f)
		fclose(f);
	return val;
}

static int only_py(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 3 && strcmp(d->d_name + n - 3, ".py") == 0;
}

static int list_scripts(void)
{
	char *dir = scripts_dir();
	struct dirent **ent;
	int n;

	if (!dir)
		return cli_fail();
	n = scandir(dir, &ent, only_py, alphasort);
	printf("List of available trace scripts:\n");
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, ent[i]->d_name);
		char *desc = script_header(path, "description"),
		     *args = script_header(path, "args");
		char *name = xasprintf("%.*s%s%s", (int)(strlen(ent[i]->d_name) - 3),
				       ent[i]->d_name, args ? " " : "", args ? args : "");

		printf("  %-32s %s\n", name, desc ? desc : "");
		free(name);
		free(args);
		free(desc);
		free(path);
		free(ent[i]);
	}
	if (n >= 0)
		free(ent);
	free(dir);
	return 0;
}

/* DIR/NAME.py of bundled script @name, or NULL with the error set. */
static char *bundled(const char *name)
{
	char *dir, *path;

	if (strchr(name, '/') || name[0] == '.' || !name[0]) {
		err_set(ERR_NOTFOUND, "script: '%s' is not a bundled script (see veles script -l)",
			name);
		return NULL;
	}
	if (!(dir = scripts_dir()))
		return NULL;
	path = xasprintf("%s/%s.py", dir, name);
	free(dir);
	if (access(path, R_OK) != 0) {
		err_set(ERR_NOTFOUND, "script: no bundled script '%s' (see veles script -l)", name);
		free(path);
		return NULL;
	}
	return path;
}

/* `veles record RECORD-LINE -o INPUT ARGS...`, in this process: ARGS are
 * more record options (-a) and the command. */
static int record_for(struct cli_ctx *ctx, const char *input, const char *name, char **cmd,
		      int ncmd)
{
	char *path = bundled(name), *line, *save = NULL;
	char **argv;
	int argc = 0, ret;

	if (!path)
		return cli_fail();
	line = script_header(path, "record");
	free(path);
	if (!line)
		return cli_error("script: %s says nothing to record (no '# record:' line)", name);
	argv = xcalloc(strlen(line) + (size_t)ncmd + 6, sizeof(*argv));
	argv[argc++] = "record";
	for (char *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc++] = "-o";
	argv[argc++] = (char *)input;
	for (int i = 0; i < ncmd; i++)
		argv[argc++] = cmd[i];
	optind = 0; /* getopt starts over for the record command's options */
	ret = cmd_record(ctx, argc, argv);
	free(argv);
	free(line);
	return ret;
}

static int report_for(const char *input, const char *name, char **args, int nargs)
{
	char *path = bundled(name);
	int ret;

	if (!path)
		return cli_fail();
	ret = run_script(input, path, args, nargs);
	free(path);
	return ret;
}

int cmd_script(struct cli_ctx *ctx, int argc, char **argv)
{
	struct script_opts o = {0};
	int ret = script_parse(&o, argc, argv);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (o.list)
		return list_scripts();
	if (o.gen)
		return gen_python(o.input);
	if (o.script)
		return run_script(o.input, o.script, o.rest, o.nrest);
	if (o.nrest < 2 || (strcmp(o.rest[0], "record") != 0 && strcmp(o.rest[0], "report") != 0))
		return cli_usage_error("script", "expected record NAME or report NAME, not '%s'",
				       o.rest[0]);
	if (strcmp(o.rest[0], "record") == 0)
		return record_for(ctx, o.input, o.rest[1], o.rest + 2, o.nrest - 2);
	return report_for(o.input, o.rest[1], o.rest + 2, o.nrest - 2);
}
