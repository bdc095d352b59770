/* veles run matrix | veles run job: the job matrix from config.yml, or one
 * ad hoc, on the current version or others (in temporary worktrees); the
 * running is run/jobs.h's, the output run-report.c's. */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "cli/run.h"
#include "collect/collector.h"
#include "project/settings.h"
#include "run/run.h"
#include "util/common.h"
#include "util/optparse.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

/* The HEAD case: the jobs in the project root. */
static int run_on_head(struct run_cli *r, struct run_jobs_opts *o)
{
	/* The commands run in the project (run_jobs_opts.project_root). */
	return run_jobs_head(r->m, &r->ctx->project, o, &r->t);
}

/* Runs everything and reports; the exit status. */
static int run_and_report(struct run_cli *r, char **revs, size_t nrevs)
{
	struct run_jobs_opts o = {
		.jobs_dir = r->ctx->jobs_dir,
		.logs_dir = r->ctx->logs_dir,
		.project_root = r->ctx->root,
		.store = r->m->register_after_run ? r->ctx->store : NULL,
		.name_template = r->name_template,
		.message = run_message,
		.start = run_job_start,
		.done = run_job_done,
		.arg = r,
	};
	char **ids = NULL;
	size_t nids = 0;
	int ret = run_versions_resolve(r->ctx->vcs, revs, nrevs, r->crawl, r->depth, &ids, &nids);

	if (ret < 0) {
		run_strv_free(ids);
		return cli_fail();
	}
	if (vcs_kind(r->ctx->vcs) == VCS_GIT)
		o.repo = vcs_store_repo(r->ctx->vcs);
	/* JSON alone on stdout: the profiled commands write to stderr. */
	if (r->format == FORMAT_JSON) {
		fflush(stdout);
		r->real_stdout = dup(1);
		dup2(2, 1);
	}
	spawn_signals_install();
	ret = nids ? run_jobs_all(r->m, ids, nids, NULL, &o, &r->t) : run_on_head(r, &o);
	spawn_signals_restore();
	run_progress_clear(r);
	run_strv_free(ids);
	if (ret < 0)
		cli_fail();
	run_print_summary(r);
	if (ret == ERR_INTERRUPTED)
		return 128 + (spawn_interrupted() ? spawn_interrupted() : SIGINT);
	if (ret == ERR_INVALID)
		return 2;
	return ret < 0 || r->t.failed ? 1 : 0;
}

/* ---- options ---- */

struct run_args {
	struct run_cli *r;
	struct run_job_spec spec;
	char **revs;
	size_t nrevs;
	const char *format, *template;
	long depth;
	bool is_job;
};

/* --cmd, --args, ...: only `run job` takes them, each repeatable. */
static int add_job_value(void *ctx, const struct opt *o, const char *arg)
{
	struct run_args *a = ctx;
	struct run_job_spec *s = &a->spec;
	const char *name = o->long_name;

	if (!a->is_job)
		return err_set(ERR_INVALID, "run: --%s is for `run job`", name);
	if (strcmp(name, "cmd") == 0)
		run_strv_add(&s->cmds, &s->ncmds, arg);
	else if (strcmp(name, "args") == 0)
		run_strv_add(&s->args, &s->nargs, arg);
	else if (strcmp(name, "workload") == 0)
		run_strv_add(&s->loads, &s->nloads, arg);
	else if (strcmp(name, "collector") == 0)
		run_strv_add(&s->cols, &s->ncols, arg);
	else
		run_strv_add(&s->pps, &s->npps, arg);
	return 0;
}

/* The params for the step just named (the last one), once. */
static int add_params(void *ctx, const struct opt *o, const char *arg)
{
	struct run_args *a = ctx;
	bool col = strcmp(o->long_name, "collector-params") == 0;
	char ***params = col ? &a->spec.col_params : &a->spec.pp_params;
	size_t *n = col ? &a->spec.ncol_params : &a->spec.npp_params;
	size_t nsteps = col ? a->spec.ncols : a->spec.npps;

	if (!a->is_job)
		return err_set(ERR_INVALID, "run: --%s is for `run job`", o->long_name);
	if (nsteps == 0 || *n >= nsteps)
		return err_set(ERR_INVALID, "run: --%s belongs after the %s it sets", o->long_name,
			       col ? "--collector" : "--postprocessor");
	while (*n + 1 < nsteps)
		run_strv_add(params, n, "");
	run_strv_add(params, n, arg);
	return 0;
}

static int add_rev(void *ctx, const struct opt *o, const char *arg)
{
	struct run_args *a = ctx;

	UNUSED(o);
	run_strv_add(&a->revs, &a->nrevs, arg);
	return 0;
}

static int check_args(struct run_args *a, int nop, char **ops)
{
	struct run_cli *r = a->r;
	bool range = false;

	if (nop)
		return cli_usage_error("run", "unexpected argument '%s'", ops[0]);
	if (a->format && cli_parse_format("run", a->format, &r->format) < 0)
		return 2;
	if (a->template) {
		r->name_template = xstrdup(a->template);
		if (collect_template_check(a->template) < 0)
			return cli_fail() + 1;
	}
	if (r->crawl && !a->nrevs)
		return cli_usage_error("run", "--crawl-parents needs -m REV");
	r->depth = (unsigned long)a->depth;
	for (size_t i = 0; i < a->nrevs; i++)
		range |= strstr(a->revs[i], "..") != NULL;
	if (r->depth && !r->crawl && !range)
		return cli_usage_error("run", "--depth goes with --crawl-parents or -m A..B");
	return 0;
}

/* Returns -1 after --help, 0 to go on, or an exit status. */
static int parse_options(struct run_args *a, int argc, char **argv)
{
	struct run_cli *r = a->r;
	const struct opt opts[] = {
		OPT_CALLBACK('m', "minor", "REV", add_rev,
			     "run on version REV, checked out in a temporary git\n"
			     "worktree (repeatable; default: the working tree, HEAD);\n"
			     "A..B: every version B has and A has not, as git log A..B"),
		OPT_BOOL('c', "crawl-parents", &r->crawl, "also run on every ancestor of each REV"),
		OPT_LONG(0, "depth", &a->depth, "N", 1,
			 "at most N ancestors of each REV (with --crawl-parents),\n"
			 "at most N + 1 versions of each A..B"),
		OPT_STRING(0, "format", &a->format, "FMT",
			   "text (default) or json (a summary of every job)"),
		OPT_BOOL('q', "quiet", &r->quiet, "no line per job"),
		OPT_STRING(0, "output-filename-template", &a->template, "T",
			   "name the profiles by T (default: the setting\n"
			   "format.output_profile_template; see veles collect);\n"
			   "-ot is Perun's spelling"),
		OPT_GROUP("run job (Perun's -b, -a, -w, -cp, -p and -pp spell them too):"),
		OPT_CALLBACK(0, "cmd", "CMD", add_job_value, "the command (repeatable)"),
		OPT_CALLBACK(0, "args", "ARGS", add_job_value, "its arguments (repeatable)"),
		OPT_CALLBACK(0, "workload", "W", add_job_value,
			     "a workload, or a generator's id (repeatable)"),
		OPT_CALLBACK(0, "collector", "NAME", add_job_value, "a collector (repeatable)"),
		OPT_CALLBACK(0, "collector-params", "P", add_params,
			     "the options of the collector before it, a YAML map\n"
			     "(\"repeat: 3, warmup: 0\")"),
		OPT_CALLBACK(0, "postprocessor", "NAME", add_job_value,
			     "a postprocessor, applied in order (repeatable)"),
		OPT_CALLBACK(0, "postprocessor-params", "P", add_params,
			     "the options of the postprocessor before it"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "run",
		.usage = "veles run matrix [-m REV]... [--crawl-parents] [--depth N] [--format "
			 "FMT]\n"
			 "veles run job --cmd CMD [--args ARGS] [--workload W] --collector NAME\n"
			 "              [--collector-params P] [--postprocessor NAME\n"
			 "              [--postprocessor-params P]] [-m REV]... [--format FMT]",
		.about =
			"`run matrix` runs every job of the job matrix (cmds x args x workloads x\n"
			"collectors, from .veles/config.yml, the tracked veles.yml or the user's\n"
			"config.yml; see docs/config.md), applies the postprocessors\n"
			"in order and leaves each profile pending in .veles/jobs/ (or registers "
			"it\n"
			"when profiles.register_after_run is set). `run job` runs the jobs its\n"
			"options describe. A failing job is reported and the others still run.\n"
			"Exit status: 0 when every job made a profile, 1 when any job failed,\n"
			"2 on bad usage or a bad config.yml, 130 on Ctrl-C.",
		.opts = opts,
		.ctx = a,
	};
	int nop, ret;

	/* Perun's spellings; its -c is --crawl-parents before `job` and
	 * --collector after it, and stays ours: --crawl-parents. */
	cli_perun_short_opts(argc, argv,
			     (const char *const[]){"-ot", "--output-filename-template", "-b",
						   "--cmd", "-a", "--args", "-w", "--workload",
						   "-cp", "--collector-params", "-p",
						   "--postprocessor", "-pp",
						   "--postprocessor-params", NULL});
	if ((ret = cli_parse_options(&p, argc, argv, &nop)) != 0)
		return ret;
	return check_args(a, nop, argv + 1);
}

int cmd_run(struct cli_ctx *ctx, int argc, char **argv)
{
	struct run_cli r = {.ctx = ctx, .json = BUF_INIT, .real_stdout = -1};
	struct run_args a = {.r = &r};
	struct run_matrix *cfg = NULL;
	int ret;

	if (argc < 2)
		return cli_usage_error("run", "say matrix or job");
	a.is_job = strcmp(argv[1], "job") == 0;
	if (!a.is_job && strcmp(argv[1], "matrix") != 0 && argv[1][0] != '-')
		return cli_usage_error("run", "say matrix or job, not '%s'", argv[1]);
	ret = parse_options(&a, argc - (argv[1][0] != '-'), argv + (argv[1][0] != '-'));
	if (ret == 0 && argv[1][0] == '-')
		ret = cli_usage_error("run", "say matrix or job");
	if (ret == 0 && !r.name_template &&
	    (r.name_template = project_setting(&ctx->project, "format.output_profile_template")) &&
	    collect_template_check(r.name_template) < 0)
		ret = cli_fail() + 1;
	if (ret != 0) {
		ret = ret < 0 ? 0 : ret;
	} else if (run_matrix_load_project(ctx->root, &cfg) < 0 ||
		   (a.is_job && run_matrix_from_spec(cfg, &a.spec, &r.m) < 0)) {
		ret = cli_fail() + 1;
	} else {
		if (!a.is_job)
			r.m = cfg, cfg = NULL;
		ret = run_and_report(&r, a.revs, a.nrevs);
	}
	run_matrix_free(cfg);
	run_matrix_free(r.m);
	run_strv_free(a.revs);
	run_job_spec_release(&a.spec);
	buf_release(&r.json);
	free(r.name_template);
	return ret;
}
