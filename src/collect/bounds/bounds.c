/*
 * veles collect bounds -s FILE.c [-d DIR] [-- [NAME] CFLAGS...]: parses each C
 * file with libclang and bounds every loop of every function it defines
 * (bound.h), with no program run. The profile is the seed's bounds
 * profile (bprofile.h); header.cmd names the analysed program (--cmd,
 * else the first file's name) and header.args holds the compiler flags.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "collect/bounds/bound.h"
#include "collect/bounds/bounds.h"
#include "collect/bounds/bprofile.h"
#include "collect/bounds/front.h"
#include "collect/collector.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"
#include "util/spawn.h"

struct strv {
	char **v;
	int n;
	size_t cap;
};

struct bounds_state {
	struct strv source, dir, files; /* -s, -d, and every file they name */
	char *cmd;			/* --cmd */
	char **argv;			/* CMD, then the compiler flags */
	int nfuncs, nloops;
	double seconds;
	struct buf summary;
	bool drawn; /* a progress line is on the screen */
};

static void strv_add(struct strv *s, const char *v)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->v[i], v) == 0)
			return;
	XGROW(s->v, (size_t)s->n + 2, s->cap);
	s->v[s->n++] = xstrdup(v);
	s->v[s->n] = NULL;
}

static void strv_free(struct strv *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* Every .c file under @dir (relative to @cwd, NULL: ours), in name order;
 * named as relative to @cwd, as the user gave @dir. */
static int add_dir(struct bounds_state *st, const char *cwd, const char *dir)
{
	struct dirent **ents;
	char *at = spawn_path_at(cwd, dir);
	int n = scandir(at, &ents, NULL, alphasort), ret = 0;

	free(at);
	if (n < 0)
		return err_set(ERR_NOTFOUND, "collect bounds: cannot read directory %s: %s", dir,
			       strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name);
		char *path = xasprintf("%s/%s", dir, name);
		struct stat sb;

		at = spawn_path_at(cwd, path);
		if (name[0] != '.' && stat(at, &sb) == 0) {
			if (S_ISDIR(sb.st_mode) && ret == 0)
				ret = add_dir(st, cwd, path);
			else if (S_ISREG(sb.st_mode) && len > 2 &&
				 strcmp(name + len - 2, ".c") == 0)
				strv_add(&st->files, path);
		}
		free(at);
		free(path);
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/* header.cmd: --cmd, else the first file's name without directory and .c. */
static char *default_cmd(const char *path)
{
	const char *base = strrchr(path, '/');
	char *cmd = xstrdup(base ? base + 1 : path), *dot = strrchr(cmd, '.');

	if (dot && dot != cmd)
		*dot = 0;
	return cmd;
}

/* The words after the options: an optional NAME, then the compiler flags. */
static int bounds_setup(struct collect_ctx *c, struct bounds_state *st, int nwords, char **words)
{
	int ret = 0;

	for (int i = 0; i < st->dir.n && ret == 0; i++)
		ret = add_dir(st, c->env->cwd, st->dir.v[i]);
	if (ret < 0)
		return ret;
	if (st->files.n == 0)
		return err_set(ERR_INVALID,
			       st->dir.n ? "collect bounds: no .c file under %s"
					 : "collect bounds: no source to analyse "
					   "(-s FILE.c or -d DIR)%s",
			       st->dir.n ? st->dir.v[0] : "");
	/* After --, a first word that is no flag names the program: the shape
	 * `-- CMD ARGS` in which check --collect-missing and the job matrix
	 * replay a collector. */
	if (nwords > 0 && words[0][0] != '-') {
		if (!st->cmd)
			st->cmd = xstrdup(words[0]);
		words++;
		nwords--;
	}
	st->argv = xcalloc((size_t)nwords + 2, sizeof(*st->argv));
	st->argv[0] = st->cmd ? xstrdup(st->cmd) : default_cmd(st->files.v[0]);
	for (int i = 0; i < nwords; i++)
		st->argv[i + 1] = xstrdup(words[i]);
	c->argv = st->argv;
	c->argc = nwords + 1;
	return 0;
}

/* -s FILE (--source, --src, and --sources, which collector_info.params
 * lists: how check --collect-missing replays a collection). */
static int source_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct bounds_state *st = ctx;

	UNUSED(o);
	strv_add(&st->source, arg);
	strv_add(&st->files, arg);
	return 0;
}

static int dir_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct bounds_state *st = ctx;

	UNUSED(o);
	strv_add(&st->dir, arg);
	return 0;
}

static int cmd_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct bounds_state *st = ctx;

	UNUSED(o);
	free(st->cmd);
	st->cmd = xstrdup(arg);
	return 0;
}

static int bounds_parse(struct collect_ctx *c, int argc, char **argv)
{
	struct bounds_state *st = xcalloc(1, sizeof(*st));
	const struct opt opts[] = {
		OPT_CALLBACK('s', "source", "FILE", source_opt,
			     "a C file to analyse (repeatable; --src is the same)"),
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "src",
		 .argh = "FILE",
		 .cb = source_opt,
		 .flags = OPT_HIDDEN},
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "sources",
		 .argh = "FILE",
		 .cb = source_opt,
		 .flags = OPT_HIDDEN},
		OPT_CALLBACK('d', "source-dir", "DIR", dir_opt,
			     "every .c file under DIR (repeatable)"),
		OPT_CALLBACK(0, "cmd", "NAME", cmd_opt,
			     "header.cmd, the program's name (default: the first\n"
			     "file's name without .c)"),
		OPT_END(),
	};
	const struct collect_options o = {
		.usage = "veles collect bounds -s FILE.c [-s ...] [-d DIR] [--cmd NAME] [OPTIONS]\n"
			 "                     [-- [NAME] CFLAGS...]",
		.about = "Bounds every loop of the C functions in the files, from the source alone "
			 "(no\n"
			 "run): for each loop a local bound, how many times it can iterate in one "
			 "call\n"
			 "as an expression of the function's parameters and globals (a loop at the "
			 "top\n"
			 "level also counts the arrival at its header), and for each function the "
			 "total\n"
			 "of its loops; each with its class, O(1), O(n^k), O(log n) or O(∞) (no "
			 "bound\n"
			 "found, and why). Nested loops fed by an outer loop's work are counted "
			 "once\n"
			 "(amortised). CFLAGS (-I, -D, -std=...) go to the parser, libclang; a "
			 "first\n"
			 "word after -- that is no flag names the program, as --cmd does.",
		.opts = opts,
		.ctx = st,
		.command_optional = true,
	};
	int ret;

	c->state = st;
	ret = collect_parse_options(c, "bounds", &o, argc, argv);
	if (ret < 0 || c->help)
		return ret;
	return bounds_setup(c, st, c->argc, c->argv);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The terminal's account of one function: its total, then each loop. */
static void summarise(struct buf *b, const char *path, const struct func_bounds *fb)
{
	struct buf t = BUF_INIT;

	sym_class_print(sym_class_of(fb->sx, fb->total), &t);
	buf_addf(b, "%s:%d %s: %s  ", path, fb->line, fb->name, buf_str(&t));
	buf_reset(&t);
	sym_print(fb->sx, fb->total, &t);
	buf_addf(b, "%s\n", buf_str(&t));
	for (int i = 0; i < fb->nloops; i++) {
		const struct loop_bound *l = &fb->loops[i];

		buf_reset(&t);
		sym_class_print(sym_class_of(fb->sx, l->bound), &t);
		buf_addf(b, "  %sline %-4d %-8s ", l->nested ? "  " : "", l->src.line, buf_str(&t));
		buf_reset(&t);
		sym_print(fb->sx, l->bound, &t);
		buf_addf(b, "%s%s%s\n", buf_str(&t), l->reason ? ": " : "",
			 l->reason ? l->reason : "");
	}
	buf_release(&t);
}

/* The compiler flags, with the directory their relative paths (-I) are
 * relative to when that is not ours; caller frees the array only. */
static char **clang_flags(const struct collect_ctx *c, int *n, char **wd)
{
	char **flags = xcalloc((size_t)c->argc + 1, sizeof(*flags));

	*n = 0;
	*wd = c->env->cwd ? xasprintf("-working-directory=%s", c->env->cwd) : NULL;
	if (*wd)
		flags[(*n)++] = *wd;
	for (int i = 1; i < c->argc; i++)
		flags[(*n)++] = c->argv[i];
	return flags;
}

static int analyse_file(struct collect_ctx *c, struct bounds_state *st, const char *path)
{
	struct ir_func **fs;
	char *at = spawn_path_at(c->env->cwd, path), *wd;
	int nf, nflags, ret;
	char **flags = clang_flags(c, &nflags, &wd);

	ret = front_parse(at, flags, nflags, &fs, &nf);
	free(flags);
	free(wd);
	free(at);
	if (ret < 0)
		return err_prefix(ret, "collect bounds");
	for (int i = 0; i < nf; i++) {
		struct func_bounds fb;

		ret = bound_function(fs[i], &fb);
		if (ret == 0) {
			bprofile_add(c->profile, path, &fb);
			summarise(&st->summary, path, &fb);
			st->nfuncs++;
			st->nloops += fb.nloops;
		}
		func_bounds_release(&fb);
	}
	front_funcs_free(fs, nf);
	return 0;
}

/* collector_info.params, in the order of the seed's profile. */
static char *params_json(const struct bounds_state *st, const char *workload)
{
	const struct strv *lists[] = {&st->files, NULL, &st->dir, &st->source};
	static const char *const names[] = {"sources", "workload", "source_dir", "source"};
	struct buf b = BUF_INIT;

	buf_addc(&b, '{');
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		buf_addf(&b, "%s\"%s\":", k ? "," : "", names[k]);
		if (!lists[k]) {
			buf_add_json_str(&b, workload, strlen(workload));
			continue;
		}
		buf_addc(&b, '[');
		for (int i = 0; i < lists[k]->n; i++) {
			if (i)
				buf_addc(&b, ',');
			buf_add_json_str(&b, lists[k]->v[i], strlen(lists[k]->v[i]));
		}
		buf_addc(&b, ']');
	}
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* "Analysing 12/70 files ..." on a terminal, once a collection runs long. */
static void progress(struct collect_ctx *c, struct bounds_state *st, int i, double t0)
{
	if (!c->env->progress || c->quiet || now() - t0 < 1.0)
		return;
	collect_say(c, COLLECT_MSG_PROGRESS, "Analysing %d/%d files ...", i + 1, st->files.n);
	st->drawn = true;
}

static int bounds_collect(struct collect_ctx *c)
{
	struct bounds_state *st = c->state;
	double t0 = now();
	int ret = 0;

	c->profile = bprofile_new();
	for (int i = 0; i < st->files.n && ret == 0; i++) {
		progress(c, st, i, t0);
		ret = analyse_file(c, st, st->files.v[i]);
	}
	if (st->drawn)
		collect_say(c, COLLECT_MSG_PROGRESS, "%s", "");
	st->seconds = now() - t0;
	c->profile->collector_params = params_json(st, c->workload ? c->workload : "");
	if (ret < 0) {
		profile_free(c->profile);
		c->profile = NULL;
	}
	return ret;
}

static int bounds_after(struct collect_ctx *c)
{
	struct bounds_state *st = c->state;

	if (c->quiet)
		return 0;
	collect_say(c, COLLECT_MSG_OUT, "%s%d file%s, %d function%s, %d loop%s in %.1f ms\n",
		    buf_str(&st->summary), st->files.n, st->files.n == 1 ? "" : "s", st->nfuncs,
		    st->nfuncs == 1 ? "" : "s", st->nloops, st->nloops == 1 ? "" : "s",
		    st->seconds * 1e3);
	return 0;
}

static void bounds_release(struct collect_ctx *c)
{
	struct bounds_state *st = c->state;

	if (!st)
		return;
	strv_free(&st->source);
	strv_free(&st->dir);
	strv_free(&st->files);
	for (int i = 0; st->argv && st->argv[i]; i++)
		free(st->argv[i]);
	free(st->argv);
	free(st->cmd);
	buf_release(&st->summary);
	free(st);
	c->state = NULL;
}

const struct collector bounds_collector = {
	.name = "bounds",
	.summary = "how many times each loop of C source can run, with no run",
	.parse = bounds_parse,
	.collect = bounds_collect,
	.after = bounds_after,
	.release = bounds_release,
};
