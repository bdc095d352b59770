/*
 * veles script: user Python over a tracepoint recording (docs/cli/script.md).
 * Everything but running a script stays here; running one dlopens
 * veles-script-python.so, so veles loads libpython only then.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "perf/pygen.h"
#include "perf/tpstream.h"
#include "script/script-locate.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "util/xalloc.h"

static const char script_usage[] =
	"veles script [-i FILE] -s SCRIPT.py [ARGS...]\n"
	"veles script [-i FILE] -g python\n"
	"veles script -l\n"
	"veles script [-i FILE] record NAME [RECORD-OPTIONS] [--] [CMD...]\n"
	"veles script [-i FILE] report NAME [ARGS...]";

static const char script_about[] =
	"Runs a Python script's handlers over a tracepoint recording of veles\n"
	"record: trace_begin(), one SUBSYSTEM__EVENT(event_name, context,\n"
	"common_cpu, common_secs, common_nsecs, common_pid, common_comm, FIELDS...)\n"
	"per sample in time order, trace_unhandled() for events without one, and\n"
	"trace_end(). The modules Core, Util and perf_trace_context are there to\n"
	"import. Python (libpython3) is loaded only for -s and report.";

struct script_opts {
	const char *input, *script, *gen;
	bool list;
	char **rest; /* after the options: script args, or record/report NAME ... */
	int nrest;
};

static int script_parse(struct script_opts *o, int argc, char **argv)
{
	struct opt opts[] = {
		OPT_STRING('i', "input", &o->input, "FILE", "the recording (default veles.data)"),
		OPT_STRING('s', "script", &o->script, "FILE",
			   "run this script; ARGS become its sys.argv[1:]"),
		OPT_STRING('g', "gen-script", &o->gen, "python",
			   "write veles-script.py, a starter script with a\n"
			   "handler printing every field of each recorded event"),
		OPT_BOOL('l', "list", &o->list, "list the bundled scripts"),
		OPT_HELP_LINE(),
		OPT_GROUP(
			"  record NAME         record what bundled script NAME needs (veles "
			"record\n"
			"                      with its events, -o FILE and the arguments given)\n"
			"  report NAME         run bundled script NAME on the recording"),
		OPT_END(),
	};
	struct optparse p = {"script", script_usage, script_about, opts, o, OPTP_STOP_AT_OPERAND};
	int ret;

	o->input = "veles.data";
	if ((ret = cli_parse_options(&p, argc, argv, &o->nrest)))
		return ret;
	o->rest = argv + 1;
	if (o->gen && strcmp(o->gen, "python") != 0)
		return cli_usage_error("script", "-g knows only python, not '%s'", o->gen);
	if (!o->script && !o->gen && !o->list && o->nrest == 0)
		return cli_usage_error("script", "nothing to do: give -s SCRIPT, -g python, -l, "
						 "record NAME or report NAME");
	return 0;
}

static int run_script(const char *input, const char *script, char **args, int nargs)
{
	unsigned long long lost;

	fflush(stdout); /* the script prints too */
	if (script_run(input, script, args, nargs, &lost) < 0)
		return cli_fail();
	if (lost)
		cli_warn("script: the kernel dropped %llu samples while recording", lost);
	return 0;
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

static int only_py(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 3 && strcmp(d->d_name + n - 3, ".py") == 0;
}

static int list_scripts(void)
{
	char *dir = script_bundled_dir();
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

/* `veles record RECORD-LINE -o INPUT ARGS...`, in this process: ARGS are
 * more record options (-a) and the command. */
static int record_for(struct cli_ctx *ctx, const char *input, const char *name, char **cmd,
		      int ncmd)
{
	char *path = script_bundled(name), *line, *save = NULL;
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
	ret = cmd_record(ctx, argc, argv);
	free(argv);
	free(line);
	return ret;
}

static int report_for(const char *input, const char *name, char **args, int nargs)
{
	char *path = script_bundled(name);
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
