/*
 * The collector table and the driver every collector runs under: common
 * options, the before/collect/after phases, the profile header, and the
 * atomic write to .veles/jobs/.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/bounds/bounds.h"
#include "collect/collector.h"
#include "collect/machine.h"
#include "collect/memory/memory.h"
#include "collect/monitor/monitor.h"
#include "collect/regex/regex.h"
#include "collect/time/time.h"
#include "collect/trace/trace.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "util/spawn.h"
#include "util/tmpdir.h"

/* Longest workload part of a profile name: names must stay under NAME_MAX. */
#define NAME_WORKLOAD_MAX 64

/* One entry a line, so collectors land without touching each other. */
/* clang-format off */
static const struct collector *const collectors[] = {
	&time_collector,
	&trace_collector,
	&memory_collector,
	&monitor_collector,
	&regex_collector,
	&bounds_collector,
	NULL,
};
/* clang-format on */

const struct collector *const *collector_list(void)
{
	return collectors;
}

const struct collector *collector_find(const char *name)
{
	for (const struct collector *const *c = collectors; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

/* ---- options ---- */

int collect_parse_count(const char *name, const char *opt, const char *arg, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min)
		return err_set(ERR_INVALID, "collect %s: %s needs a whole number >= %ld, not '%s'",
			       name, opt, min, arg);
	*out = v;
	return 0;
}

static int parse_output(const char *name, const char *arg, enum output_handling *out)
{
	if (strcmp(arg, "default") == 0)
		*out = OUTPUT_DEFAULT;
	else if (strcmp(arg, "capture") == 0)
		*out = OUTPUT_CAPTURE;
	else if (strcmp(arg, "suppress") == 0)
		*out = OUTPUT_SUPPRESS;
	else
		return err_set(
			ERR_INVALID,
			"collect %s: --output-handling is default, capture or suppress, not '%s'",
			name, arg);
	return 0;
}

static int check_timeout(const char *name, const char *arg, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || *end || !(*out > 0) || !isfinite(*out))
		return err_set(ERR_INVALID,
			       "collect %s: --timeout needs a positive number of seconds, not '%s'",
			       name, arg);
	return 0;
}

static void make_help(struct collect_ctx *c, const struct optparse *p)
{
	struct buf b = BUF_INIT;

	opt_help(p, &b);
	free(c->help_text);
	c->help_text = buf_detach(&b, NULL);
	c->help = true;
}

int collect_parse_options(struct collect_ctx *c, const char *name, const struct collect_options *o,
			  int argc, char **argv)
{
	const struct opt common[] = {
		OPT_INCLUDE(o->opts),
		OPT_GROUP("Common options:"),
		OPT_STRING('o', "output-handling", &c->output_arg, "MODE",
			   "default: the command writes to the terminal;\n"
			   "capture: also to .veles/logs/NAME.log;\n"
			   "suppress: to /dev/null"),
		OPT_STRING(0, "timeout", &c->timeout_arg, "S",
			   "stop a run after S seconds (SIGTERM, then SIGKILL)"),
		OPT_STRING(0, "workload", &c->workload, "TEXT",
			   "header.workload (default: the command's arguments)"),
		OPT_BOOL('q', "quiet", &c->quiet, "no summary and no \"profile written\" line"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	char *prefix = xasprintf("collect %s", name);
	struct optparse p = {.name = prefix,
			     .usage = o->usage,
			     .about = o->about,
			     .opts = common,
			     .ctx = o->ctx,
			     .flags = OPTP_STOP_AT_OPERAND};
	int nop = 0, ret = opt_parse(&p, argc, argv, &nop);

	if (ret == OPT_HELP) {
		make_help(c, &p);
		ret = 0;
	} else if (ret == 0 && c->output_arg) {
		ret = parse_output(name, c->output_arg, &c->output);
	}
	if (ret == 0 && !c->help && c->timeout_arg)
		ret = check_timeout(name, c->timeout_arg, &c->timeout);
	free(prefix);
	if (ret < 0 || c->help)
		return ret;
	if (nop == 0 && !o->command_optional)
		return err_set(ERR_INVALID,
			       "collect %s: no command to profile (veles collect %s -- CMD...)",
			       name, name);
	/* opt_parse() put the options after the command: a copy ends it. */
	c->argv_copy = xcalloc((size_t)nop + 1, sizeof(*c->argv_copy));
	memcpy(c->argv_copy, argv + 1, (size_t)nop * sizeof(*argv));
	c->argv = c->argv_copy;
	c->argc = nop;
	return 0;
}

void collect_say(const struct collect_ctx *c, enum collect_msg kind, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!c->env || !c->env->message)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	c->env->message(c->env->message_arg, kind, buf_str(&b));
	buf_release(&b);
}

void collect_spawn_opts(const struct collect_ctx *c, struct spawn_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->output = c->output == OUTPUT_CAPTURE	   ? SPAWN_CAPTURE
		    : c->output == OUTPUT_SUPPRESS ? SPAWN_SUPPRESS
						   : SPAWN_INHERIT;
	o->log_path = c->log_path;
	o->timeout = c->timeout;
	o->cwd = c->env->cwd;
}

char *collect_preload_var(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");

	return old && *old ? xasprintf("LD_PRELOAD=%s:%s", lib, old)
			   : xasprintf("LD_PRELOAD=%s", lib);
}

/* ---- the profile's name and header ---- */

static char *join_args(char **argv, int argc)
{
	struct buf b = BUF_INIT;

	for (int i = 0; i < argc; i++) {
		if (i)
			buf_addc(&b, ' ');
		buf_adds(&b, argv[i]);
	}
	return buf_detach(&b, NULL);
}

/* Characters that are safe in a file name on every system and in a shell. */
static void add_sanitised(struct buf *b, const char *s, size_t max)
{
	size_t start = b->len;

	for (; *s && b->len - start < max; s++) {
		unsigned char ch = (unsigned char)*s;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || strchr("._+,=@%-", ch);

		buf_addc(b, ok ? (char)ch : '_');
	}
	/* An empty part would make "a--b" names; say so instead. */
	if (b->len == start)
		buf_adds(b, "none");
}

char *collect_profile_name(const char *cmd, const char *tool, const char *workload)
{
	const char *bin = strrchr(cmd, '/');
	struct buf b = BUF_INIT;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	bin = bin ? bin + 1 : cmd;
	add_sanitised(&b, bin, NAME_WORKLOAD_MAX);
	/* A name starting with '.' would be hidden from `status` (which skips
	 * dot files, the temporary ones), one with '-' read as an option. */
	if (b.data[0] == '.' || b.data[0] == '-')
		b.data[0] = '_';
	buf_addc(&b, '-');
	add_sanitised(&b, tool, NAME_WORKLOAD_MAX);
	buf_addc(&b, '-');
	add_sanitised(&b, workload, NAME_WORKLOAD_MAX);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d-%H-%M-%S", &tm);
	buf_addf(&b, "-%s", stamp);
	return buf_detach(&b, NULL);
}

void collect_header_set(struct profile *p, const char *key, char *json)
{
	for (size_t i = 0; i < p->nheader_extra; i++) {
		if (strcmp(p->header_extra[i].key, key) == 0) {
			free(p->header_extra[i].value);
			p->header_extra[i].value = json;
			return;
		}
	}
	p->header_extra =
		xrealloc(p->header_extra, (p->nheader_extra + 1) * sizeof(*p->header_extra));
	p->header_extra[p->nheader_extra++] = (struct kv){xstrdup(key), json};
}

static void collect_fill_header(struct collect_ctx *c, const struct collector *col)
{
	struct profile *p = c->profile;
	struct buf env = BUF_INIT;

	if (!p->type)
		p->type = xstrdup(col->name);
	free(p->cmd);
	p->cmd = xstrdup(c->argv[0]);
	free(p->args);
	p->args = join_args(c->argv + 1, c->argc - 1);
	p->args_is_params = false;
	free(p->workload);
	p->workload = xstrdup(c->workload);
	free(p->collector);
	p->collector = xstrdup(col->name);
	if (!p->collector_params)
		p->collector_params = xstrdup("{}");
	free(p->origin);
	p->origin = c->env->origin ? xstrdup(c->env->origin) : NULL;
	/* Where it was measured, so profiles of two machines are not compared
	 * without a word (issue 14). */
	machine_env_json(&env, c->env->cwd, c->argv[0], c->load_before, c->load_after);
	collect_header_set(p, "environment", buf_detach(&env, NULL));
}

int collect_claim_path(const char *dir, const char *name, char **path)
{
	for (int n = 1; n < 1000; n++) {
		char *p = n == 1 ? xasprintf("%s/%s.perf", dir, name)
				 : xasprintf("%s/%s-%d.perf", dir, name, n);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		if (fd >= 0) {
			close(fd);
			*path = p;
			return 0;
		}
		free(p);
		if (errno != EEXIST)
			return err_set(ERR_IO, "cannot write a profile in %s: %s", dir,
				       strerror(errno));
	}
	return err_set(ERR_EXISTS, "too many profiles named %s in %s", name, dir);
}

/* How the path reads to the user: relative to the project when we can. */
static const char *display_path(const char *path)
{
	const char *at = strstr(path, ".veles/jobs/");

	return at ? at : path;
}

/*
 * The temporary directories that killed collections (and runs) left, once
 * per process: a matrix collects many times. Worktrees are left to `veles
 * run`, which prunes git's record of them too.
 */
static void sweep_once(void)
{
	static const char *const keep[] = {"run", NULL};
	static bool swept;

	if (!swept)
		tmpdir_sweep(NULL, keep);
	swept = true;
}

static int check_interrupted(void)
{
	int sig = spawn_interrupted();

	if (!sig)
		return 0;
	return err_set(ERR_INTERRUPTED, "interrupted by %s: no profile written",
		       sig == SIGINT	? "SIGINT"
		       : sig == SIGTERM ? "SIGTERM"
					: "a signal");
}

/*
 * The main profile's name: the one asked for (a trailing .perf dropped, as
 * the claim adds it), the template's, or BIN-COLLECTOR-WORKLOAD-TIMESTAMP.
 * Named once the header is filled, for the template's tokens.
 */
static int main_name(const struct collect_ctx *c, char **name)
{
	const char *want = c->env->profile_name;
	size_t n;

	if (want) {
		n = strlen(want);
		if (n > 5 && strcmp(want + n - 5, ".perf") == 0)
			n -= 5;
		*name = xstrndup(want, n);
		return 0;
	}
	if (c->env->name_template)
		return collect_template_name(c->env->name_template, c->profile, name);
	*name = xstrdup(c->name);
	return 0;
}

/* Writes c->profile as *@name(.perf) into the jobs directory (a NULL
 * *@name is chosen by main_name); *@path is the file written, NULL when
 * the transform took the profile. */
static int write_one(struct collect_ctx *c, const struct collector *col, char **name,
		     bool transform, char **path)
{
	int ret = 0;

	*path = NULL;
	collect_fill_header(c, col);
	if (transform && c->env->transform) {
		ret = c->env->transform(c, c->env->transform_arg);
		if (ret < 0 || !c->profile)
			return ret;
	}
	if (!*name && (ret = main_name(c, name)) < 0)
		return ret;
	ret = collect_claim_path(c->env->jobs_dir, *name, path);
	if (ret < 0)
		return ret;
	ret = profile_save_compact(c->profile, *path);
	/* Our handler is still in place, so Ctrl-C here cannot leave the empty
	 * claim behind; it is honoured all the same. */
	if (ret == 0)
		ret = check_interrupted();
	if (ret < 0) {
		unlink(*path);
		free(*path);
		*path = NULL;
		return ret;
	}
	if (!c->quiet)
		collect_say(c, COLLECT_MSG_ERR, "profile written to %s", display_path(*path));
	return 0;
}

/*
 * c->profile, through the transform, then the run's other profiles as they
 * are: a transform may merge what it is given (the job runner's sizes), and
 * another process's profile is no part of that.
 */
static int collect_write(struct collect_ctx *c, const struct collector *col)
{
	struct profile *main_profile;
	char *base = NULL;
	int ret;

	/* The collector's after() may drop the profile (trace --no-profile). */
	if (!c->profile)
		return 0;
	ret = mkdir_p(c->env->jobs_dir);
	if (ret == 0)
		ret = write_one(c, col, &base, true, &c->profile_path);
	main_profile = c->profile;
	for (size_t i = 0; ret == 0 && i < c->nextra; i++) {
		char *name = xasprintf("%s-%s", base, c->extra[i].suffix), *path;

		c->profile = c->extra[i].profile;
		ret = write_one(c, col, &name, false, &path);
		free(name);
		free(path);
	}
	c->profile = main_profile;
	free(base);
	return ret;
}

/* ---- the driver ---- */

static int collect_phases(struct collect_ctx *c, const struct collector *col)
{
	int ret = 0;

	c->load_before = machine_loadavg();
	if (col->before)
		ret = col->before(c);
	if (ret == 0)
		ret = check_interrupted();
	if (ret == 0)
		ret = col->collect(c);
	/* A run stopped by our signal may look like any failure: say why. */
	if (spawn_interrupted())
		ret = check_interrupted();
	if (ret == 0 && !c->profile)
		ret = err_set(ERR_GENERIC, "collect %s: the collector made no profile", col->name);
	c->load_after = machine_loadavg();
	if (ret == 0 && col->after)
		ret = col->after(c);
	if (ret == 0)
		ret = check_interrupted();
	return ret;
}

/* The profile's name, and the capture log beside the other logs. */
static int collect_prepare(struct collect_ctx *c, const struct collector *col)
{
	const char *logs = c->env->logs_dir ? c->env->logs_dir : c->env->jobs_dir;
	int ret;

	c->name = collect_profile_name(c->argv[0], col->name, c->workload);
	if (c->output != OUTPUT_CAPTURE)
		return 0;
	ret = mkdir_p(logs);
	if (ret < 0)
		return ret;
	c->log_path = xasprintf("%s/%s.log", logs, c->name);
	return 0;
}

int collect_check_options(int argc, char **argv)
{
	const struct collector *col = argc > 0 ? collector_find(argv[0]) : NULL;
	const struct collect_env env = {.quiet = true};
	struct collect_ctx c;
	char **full;
	int ret;

	if (!col)
		return err_set(ERR_INVALID, "unknown collector '%s'", argc > 0 ? argv[0] : "");
	/* A stand-in command: the parsers want one after the options. */
	full = xcalloc((size_t)argc + 3, sizeof(*full));
	memcpy(full, argv, (size_t)argc * sizeof(*full));
	full[argc] = "--";
	full[argc + 1] = "true";
	memset(&c, 0, sizeof(c));
	c.env = &env;
	ret = col->parse(&c, argc + 2, full);
	if (ret == 0 && c.help)
		ret = err_set(ERR_INVALID, "collect %s: --help is not an option here", col->name);
	if (col->release)
		col->release(&c);
	free(c.help_text);
	free(c.argv_copy);
	free(full);
	return ret;
}

int collect_main(const struct collect_env *env, int argc, char **argv)
{
	const struct collector *col = argc > 0 ? collector_find(argv[0]) : NULL;
	struct collect_ctx c;
	char *joined = NULL;
	int ret;

	if (!col)
		return err_set(ERR_INVALID, "unknown collector '%s'", argc > 0 ? argv[0] : "");
	memset(&c, 0, sizeof(c));
	c.env = env;
	c.quiet = env->quiet;
	ret = col->parse(&c, argc, argv);
	if (ret == 0 && c.help) {
		collect_say(&c, COLLECT_MSG_OUT, "%s", c.help_text);
		goto out;
	}
	if (ret < 0)
		goto out;
	if (!c.workload)
		c.workload = joined = join_args(c.argv + 1, c.argc - 1);
	ret = collect_prepare(&c, col);
	sweep_once();
	/* Until the profile is written or given up, Ctrl-C only sets a flag. */
	spawn_signals_install();
	if (ret == 0)
		ret = collect_phases(&c, col);
	if (ret == 0)
		ret = collect_write(&c, col);
	spawn_signals_restore();
	if (env->out_path)
		*env->out_path = ret == 0 && c.profile_path ? xstrdup(c.profile_path) : NULL;
	if (env->cmd_status)
		*env->cmd_status = c.last_status;
out:
	if (col->release)
		col->release(&c);
	profile_free(c.profile);
	for (size_t i = 0; i < c.nextra; i++) {
		profile_free(c.extra[i].profile);
		free(c.extra[i].suffix);
	}
	free(c.extra);
	free(joined);
	free(c.name);
	free(c.log_path);
	free(c.profile_path);
	free(c.help_text);
	free(c.argv_copy);
	return ret;
}
