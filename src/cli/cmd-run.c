/* veles run matrix | veles run job: the job matrix from config.yml, or one
 * ad hoc, on the current version or others (in temporary worktrees). */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/postproc.h"
#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "collect/collector.h"
#include "config/config.h"
#include "run/batch.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

static const char run_usage[] =
	"usage: veles run matrix [-m REV]... [--crawl-parents] [--depth N] [--format FMT]\n"
	"       veles run job --cmd CMD [--args ARGS] [--workload W] --collector NAME\n"
	"                     [--collector-params P] [--postprocessor NAME\n"
	"                     [--postprocessor-params P]] [-m REV]... [--format FMT]\n"
	"\n"
	"`run matrix` runs every job of the job matrix (cmds x args x workloads x\n"
	"collectors, from .veles/config.yml, the tracked veles.yml or the user's\n"
	"config.yml; see docs/config.md), applies the postprocessors\n"
	"in order and leaves each profile pending in .veles/jobs/ (or registers it\n"
	"when profiles.register_after_run is set). `run job` runs the jobs its\n"
	"options describe; --cmd, --args, --workload, --collector and\n"
	"--postprocessor may be repeated, and each -params option (a YAML map,\n"
	"\"repeat: 3, warmup: 0\") belongs to the collector or postprocessor before it.\n"
	"A failing job is reported and the others still run.\n"
	"\n"
	"  -m, --minor REV      run on version REV, checked out in a temporary git\n"
	"                       worktree (repeatable; default: the working tree, HEAD);\n"
	"                       A..B: every version B has and A has not, as git log A..B\n"
	"  -c, --crawl-parents  also run on every ancestor of each REV\n"
	"      --depth N        at most N ancestors of each REV (with --crawl-parents),\n"
	"                       at most N + 1 versions of each A..B\n"
	"      --format FMT     text (default) or json (a summary of every job)\n"
	"  -q, --quiet          no line per job\n"
	"  -ot, --output-filename-template T\n"
	"                       name the profiles by T (default: the setting\n"
	"                       format.output_profile_template; see veles collect)\n"
	"\n"
	"Exit status: 0 when every job made a profile, 1 when any job failed,\n"
	"2 on bad usage or a bad config.yml, 130 on Ctrl-C.\n";

struct run_cli {
	struct cli_ctx *ctx;
	struct run_matrix *m;
	char **revs;
	size_t nrevs;
	unsigned long depth; /* --depth: ancestors per REV; 0 = all */
	bool crawl, quiet;
	enum out_format format;
	struct buf json; /* results, for --format json */
	size_t njobs, nok, nfailed, done, total;
	double start;
	int real_stdout;     /* --format json: the JSON goes here, the rest to stderr */
	char *name_template; /* -ot, or format.output_profile_template */
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- reporting ---- */

static void job_text(const struct run_job *job, struct buf *b)
{
	buf_adds(b, job->cmd);
	if (*job->args)
		buf_addf(b, " %s", job->args);
	if (*job->workload)
		buf_addf(b, " %s", job->workload);
	buf_addf(b, " (%s)", job->collector->name);
}

/*
 * The progress line, redrawn a few times a second by a thread while a job
 * runs, so its elapsed time moves. The lock keeps it from drawing in the
 * middle of another line Veles writes (a postprocessor's warning).
 */
struct progress {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop, shown;
	char *text; /* "[i/N] cmd args workload (collector)" */
	double job_start;
};

static struct progress progress = {.lock = PTHREAD_MUTEX_INITIALIZER,
				   .wake = PTHREAD_COND_INITIALIZER};

#define PROGRESS_TICK_MS 250

static void progress_paint(void)
{
	fprintf(stderr, "\r%.72s  %.1f s\033[K", progress.text, now_seconds() - progress.job_start);
	fflush(stderr);
	progress.shown = true;
}

static void *progress_loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&progress.lock);
	while (!progress.stop) {
		struct timespec until;

		progress_paint();
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PROGRESS_TICK_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!progress.stop &&
		       pthread_cond_timedwait(&progress.wake, &progress.lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&progress.lock);
	return NULL;
}

static void progress_draw(struct run_cli *r, const struct run_job *job)
{
	struct buf b = BUF_INIT;
	sigset_t all, old;

	if (!r->ctx->stderr_tty)
		return;
	buf_addf(&b, "[%zu/%zu] ", r->done + 1, r->total);
	job_text(job, &b);
	free(progress.text);
	progress.text = buf_detach(&b, NULL);
	progress.job_start = now_seconds();
	progress.stop = false;
	/* Signals stay with the main thread, which forwards Ctrl-C to the job. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	progress.running = pthread_create(&progress.thread, NULL, progress_loop, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!progress.running) {
		pthread_mutex_lock(&progress.lock);
		progress_paint();
		pthread_mutex_unlock(&progress.lock);
	}
}

static void progress_clear(struct run_cli *r)
{
	if (!r->ctx->stderr_tty)
		return;
	if (progress.running) {
		pthread_mutex_lock(&progress.lock);
		progress.stop = true;
		pthread_cond_signal(&progress.wake);
		pthread_mutex_unlock(&progress.lock);
		pthread_join(progress.thread, NULL);
		progress.running = false;
	}
	if (progress.shown)
		fputs("\r\033[K", stderr);
	progress.shown = false;
	free(progress.text);
	progress.text = NULL;
}

/* A postprocessor's warning on a line of its own, not after the
 * progress line; the next tick draws that again. */
static void run_warn(const char *msg)
{
	pthread_mutex_lock(&progress.lock);
	if (progress.shown)
		fputs("\r\033[K", stderr);
	progress.shown = false;
	cli_warn("%s", msg);
	pthread_mutex_unlock(&progress.lock);
}

static const char *shown_path(const char *path)
{
	const char *at = path ? strstr(path, ".veles/jobs/") : NULL;

	return at ? at : path ? path : "";
}

static void json_str(struct buf *b, const char *key, const char *s, bool comma)
{
	buf_addf(b, "%s\"%s\":", comma ? "," : "", key);
	if (s)
		buf_add_json_str(b, s, strlen(s));
	else
		buf_adds(b, "null");
}

static void report_job(struct run_cli *r, const char *version, const struct run_job *job,
		       const struct run_result *res)
{
	struct buf b = BUF_INIT;

	if (r->format == FORMAT_JSON) {
		buf_adds(&r->json, r->json.len ? ",{" : "{");
		json_str(&r->json, "version", version, false);
		json_str(&r->json, "cmd", job->cmd, true);
		json_str(&r->json, "args", job->args, true);
		json_str(&r->json, "workload", job->workload, true);
		json_str(&r->json, "collector", job->collector->name, true);
		buf_addf(&r->json, ",\"ok\":%s,\"seconds\":%.6f,\"registered\":%s",
			 res->ok ? "true" : "false", res->seconds,
			 res->registered ? "true" : "false");
		json_str(&r->json, "profile", res->ok && !res->registered ? res->profile : NULL,
			 true);
		json_str(&r->json, "error", res->error, true);
		buf_addc(&r->json, '}');
		return;
	}
	job_text(job, &b);
	if (res->ok && !r->quiet)
		printf("ok    %zu/%zu  %s  %.2f s  %s\n", r->done + 1, r->total, buf_str(&b),
		       res->seconds, res->registered ? "registered" : shown_path(res->profile));
	else if (!res->ok)
		cli_error("job %zu/%zu %s failed: %s", r->done + 1, r->total, buf_str(&b),
			  res->error);
	fflush(stdout);
	buf_release(&b);
}

/* ---- running ---- */

/* Every job of @version fails with the current error (pre_run failed). */
static void fail_all(struct run_cli *r, const char *version, const struct run_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct run_result res = {.error = xstrdup(err_msg())};

		report_job(r, version, &jobs[i], &res);
		run_result_release(&res);
		r->nfailed++;
		r->done++;
	}
}

static int run_each(struct run_cli *r, const struct run_env *env, const struct run_job *jobs,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct run_result res;
		int ret;

		if (spawn_interrupted())
			return err_set(ERR_INTERRUPTED, "interrupted before job %zu/%zu",
				       r->done + 1, r->total);
		progress_draw(r, &jobs[i]);
		ret = run_job_run(env, r->m, &jobs[i], &res);
		progress_clear(r);
		if (ret == ERR_INTERRUPTED) {
			run_result_release(&res);
			return err_set(ret, "interrupted in job %zu/%zu", r->done + 1, r->total);
		}
		report_job(r, env->origin, &jobs[i], &res);
		if (res.ok)
			r->nok++;
		else
			r->nfailed++;
		r->done++;
		run_result_release(&res);
	}
	return 0;
}

static int run_jobs(struct run_cli *r, const char *version, const struct run_job *jobs, size_t n)
{
	struct run_env env = {
		.jobs_dir = r->ctx->jobs_dir,
		.logs_dir = r->ctx->logs_dir,
		.origin = version,
		.store = r->m->register_after_run ? r->ctx->store : NULL,
		.quiet_collectors = true,
		.name_template = r->name_template,
		.message = cli_collect_message,
	};
	int ret = run_pre_run(r->m), done;

	if (ret == ERR_INTERRUPTED)
		return ret;
	if (ret < 0) {
		fail_all(r, version, jobs, n);
		return 0;
	}
	ret = mkdir_p(r->ctx->jobs_dir);
	if (ret < 0)
		return ret;
	env.batch = run_batch_new(r->ctx->jobs_dir);
	ret = run_each(r, &env, jobs, n);
	/* What finished is kept, also after Ctrl-C. */
	done = run_batch_commit(env.batch);
	run_batch_free(env.batch);
	return ret < 0 ? ret : done;
}

/* What the jobs in a checkout need. */
struct in_checkout {
	struct run_cli *r;
	const struct run_job *jobs;
	size_t n;
};

static int jobs_in_checkout(const struct run_checkout *co, void *arg)
{
	struct in_checkout *in = arg;

	return run_jobs(in->r, co->id, in->jobs, in->n);
}

/* Runs the jobs in a temporary worktree at @version; always removes it.
 * pre_run is run_jobs' own: a failing build fails the jobs, not the run. */
static int run_in_worktree(struct run_cli *r, const char *version, const struct run_job *jobs,
			   size_t n)
{
	struct in_checkout in = {r, jobs, n};

	return run_in_checkout(vcs_store_repo(r->ctx->vcs), r->ctx->root, version, NULL,
			       jobs_in_checkout, &in);
}

/* Each version once, in the order first named. */
static void add_id(struct run_cli *r, const char *id)
{
	for (size_t i = 0; i < r->nrevs; i++)
		if (strcmp(r->revs[i], id) == 0)
			return;
	run_strv_add(&r->revs, &r->nrevs, id);
}

static int add_version(const struct vcs_version *ver, void *arg)
{
	add_id(arg, ver->id);
	return 0;
}

/* -m A..B: the versions B has and A has not (an empty side is HEAD). */
static int add_range(struct run_cli *r, const char *spec, const char *dots)
{
	char *a = xstrndup(spec, (size_t)(dots - spec)), from[41], hide[41];
	const char *b = dots + 2;
	size_t before = r->nrevs;
	int ret = vcs_resolve(r->ctx->vcs, *a ? a : "HEAD", hide);

	if (ret == 0)
		ret = vcs_resolve(r->ctx->vcs, *b ? b : "HEAD", from);
	if (ret == 0)
		ret = vcs_walk_range(r->ctx->vcs, hide, from, r->depth ? r->depth + 1 : 0,
				     add_version, r);
	if (ret == 0 && r->nrevs == before)
		ret = err_set(ERR_INVALID, "-m %s names no version: %s has all of %s", spec,
			      *a ? a : "HEAD", *b ? b : "HEAD");
	free(a);
	return ret;
}

/* -m REVs as full ids, with their ancestors under --crawl-parents (at most
 * --depth of them), and A..B ranges. */
static int resolve_versions(struct run_cli *r, char **revs, size_t n)
{
	int ret = 0;

	if (n && vcs_kind(r->ctx->vcs) != VCS_GIT)
		return err_set(ERR_INVALID, "-m needs a git project (this one is plain)");
	for (size_t i = 0; i < n && ret == 0; i++) {
		const char *dots = strstr(revs[i], "..");
		char id[41];

		if (dots) {
			ret = add_range(r, revs[i], dots);
			continue;
		}
		ret = vcs_resolve(r->ctx->vcs, revs[i], id);
		if (ret == 0 && r->crawl)
			ret = vcs_walk(r->ctx->vcs, id, r->depth ? r->depth + 1 : 0, add_version,
				       r);
		else if (ret == 0)
			add_id(r, id);
	}
	return ret;
}

/* The jobs on each version, or on the working tree (HEAD) when none. */
static int run_all(struct run_cli *r)
{
	struct run_job *jobs;
	size_t n = run_matrix_expand(r->m, &jobs);
	char head[41];
	bool dirty = false;
	int ret = 0;

	r->njobs = n;
	r->total = n * (r->nrevs ? r->nrevs : 1);
	r->start = now_seconds();
	if (n == 0) {
		free(jobs);
		return err_set(ERR_INVALID, "no jobs: the matrix needs cmds and collectors "
					    "(.veles/config.yml or veles.yml, see docs/config.md)");
	}
	/* What a run killed before left: its worktrees and their branches. */
	if (vcs_kind(r->ctx->vcs) == VCS_GIT)
		run_worktree_sweep(vcs_store_repo(r->ctx->vcs));
	spawn_signals_install();
	for (size_t v = 0; v < r->nrevs && ret == 0; v++)
		ret = run_in_worktree(r, r->revs[v], jobs, n);
	if (!r->nrevs) {
		bool have_head = cli_head(r->ctx, head);

		if (!have_head && r->m->register_after_run)
			ret = err_set(ERR_INVALID, "no version yet to register the profiles with");
		else if (!have_head)
			cli_warn("no version yet: the profiles will have no origin");
		if (ret == 0 && have_head && cli_config_bool(r->ctx, "collect.warn_dirty", true) &&
		    vcs_is_dirty(r->ctx->vcs, &dirty) == 0 && dirty)
			cli_warn("uncommitted changes may skew the profiles: they are filed under "
				 "%.7s, which does not contain them",
				 head);
		if (ret == 0 && chdir(r->ctx->root) < 0)
			ret = err_set(ERR_IO, "cannot change to %s: %s", r->ctx->root,
				      strerror(errno));
		if (ret == 0)
			ret = run_jobs(r, have_head ? head : NULL, jobs, n);
	}
	spawn_signals_restore();
	free(jobs);
	return ret;
}

static void print_summary(struct run_cli *r)
{
	if (r->format == FORMAT_JSON) {
		fflush(stdout);
		dup2(r->real_stdout, 1);
		close(r->real_stdout);
		printf("{\"jobs\":%zu,\"ok\":%zu,\"failed\":%zu,\"results\":[%s]}\n", r->done,
		       r->nok, r->nfailed, buf_str(&r->json));
		return;
	}
	if (r->quiet && !r->nfailed)
		return;
	printf("%zu job%s: %zu ok, %zu failed", r->done, r->done == 1 ? "" : "s", r->nok,
	       r->nfailed);
	if (r->nok)
		printf("; %s", r->m->register_after_run ? "profiles registered"
							: "profiles pending in .veles/jobs/");
	printf("\n");
}

/* Runs everything and reports; the exit status. */
static int run_and_report(struct run_cli *r, char **revs, size_t nrevs)
{
	int ret = resolve_versions(r, revs, nrevs);

	if (ret < 0)
		return cli_fail();
	postproc_set_notify(run_warn);
	/* JSON alone on stdout: the profiled commands write to stderr. */
	if (r->format == FORMAT_JSON) {
		fflush(stdout);
		r->real_stdout = dup(1);
		dup2(2, 1);
	}
	ret = run_all(r);
	progress_clear(r);
	if (ret < 0)
		cli_fail();
	print_summary(r);
	if (ret == ERR_INTERRUPTED)
		return 128 + (spawn_interrupted() ? spawn_interrupted() : SIGINT);
	if (ret == ERR_INVALID)
		return 2;
	return ret < 0 || r->nfailed ? 1 : 0;
}

/* ---- options ---- */

/* What `run job` was given, in order. */
struct job_opts {
	char **cmds, **args, **loads, **cols, **pps;
	size_t ncmds, nargs, nloads, ncols, npps;
	char **col_params, **pp_params; /* per collector / postprocessor, or "" */
	size_t ncol_params, npp_params;
};

static void job_opts_free(struct job_opts *o)
{
	run_strv_free(o->cmds), run_strv_free(o->args), run_strv_free(o->loads);
	run_strv_free(o->cols), run_strv_free(o->pps);
	run_strv_free(o->col_params), run_strv_free(o->pp_params);
}

/* A -params value ("repeat: 3" or "{repeat: 3}") as options after *@argv. */
static int params_to_argv(const char *opt, const char *text, char ***argv, int *argc)
{
	char *doc =
		xasprintf("p: %s%s%s", text[0] == '{' ? "" : "{", text, text[0] == '{' ? "" : "}");
	struct config *c;
	int ret = config_load_text(opt, doc, strlen(doc), &c);

	if (ret == 0) {
		ret = run_params_argv(c, "p", argv, argc);
		config_free(c);
	}
	free(doc);
	return ret;
}

/* The params for the step just named (the last one), once. */
static int set_params(char ***params, size_t *n, size_t nsteps, const char *opt, const char *value)
{
	if (nsteps == 0 || *n >= nsteps)
		return cli_usage_error("run", "%s belongs after the %s it sets", opt,
				       strstr(opt, "collector") ? "--collector"
								: "--postprocessor"),
		       -1;
	while (*n + 1 < nsteps)
		run_strv_add(params, n, "");
	run_strv_add(params, n, value);
	return 0;
}

static int build_steps(struct run_matrix *m, const struct job_opts *o)
{
	int ret = 0;

	for (size_t i = 0; i < o->ncols && ret == 0; i++) {
		char **argv = xcalloc(2, sizeof(*argv));
		int argc = 1;

		argv[0] = xstrdup(o->cols[i]);
		if (i < o->ncol_params && *o->col_params[i])
			ret = params_to_argv("--collector-params", o->col_params[i], &argv, &argc);
		if (ret == 0)
			run_matrix_add_collector(m, argc, argv);
		run_strv_free(argv);
	}
	for (size_t i = 0; i < o->npps && ret == 0; i++) {
		char **argv = xcalloc(2, sizeof(*argv));
		int argc = 1;

		argv[0] = xstrdup(o->pps[i]);
		if (i < o->npp_params && *o->pp_params[i])
			ret = params_to_argv("--postprocessor-params", o->pp_params[i], &argv,
					     &argc);
		if (ret == 0)
			ret = run_matrix_add_postproc(m, argc, argv);
		run_strv_free(argv);
	}
	return ret;
}

/* `run job`: a matrix from the options; generators and pre_run come from
 * config.yml, so a workload may name a generator. */
static int job_matrix(struct run_matrix *cfg, const struct job_opts *o, struct run_matrix **out)
{
	struct run_matrix *m = run_matrix_new();
	int ret;

	if (!o->ncmds || !o->ncols) {
		run_matrix_free(m);
		return err_set(ERR_INVALID, "run job needs --cmd and --collector");
	}
	for (size_t i = 0; i < o->ncmds; i++)
		run_strv_add(&m->cmds, &m->ncmds, o->cmds[i]);
	for (size_t i = 0; i < o->nargs; i++)
		run_strv_add(&m->args, &m->nargs, o->args[i]);
	for (size_t i = 0; i < o->nloads; i++)
		run_strv_add(&m->workloads, &m->nworkloads, o->loads[i]);
	m->gens = cfg->gens, m->ngens = cfg->ngens;
	cfg->gens = NULL, cfg->ngens = 0;
	m->pre_run = cfg->pre_run, m->npre_run = cfg->npre_run;
	cfg->pre_run = NULL, cfg->npre_run = 0;
	m->register_after_run = cfg->register_after_run;
	ret = build_steps(m, o);
	if (ret < 0) {
		run_matrix_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

enum {
	OPT_FORMAT = 0x100,
	OPT_CMD,
	OPT_ARGS,
	OPT_WORKLOAD,
	OPT_COLLECTOR,
	OPT_COLLECTOR_PARAMS,
	OPT_PP,
	OPT_PP_PARAMS,
	OPT_DEPTH,
};

/* One option of `run job` into @o; -1 on a usage error. */
static int job_option(struct job_opts *o, int c)
{
	switch (c) {
	case OPT_CMD:
		run_strv_add(&o->cmds, &o->ncmds, optarg);
		return 0;
	case OPT_ARGS:
		run_strv_add(&o->args, &o->nargs, optarg);
		return 0;
	case OPT_WORKLOAD:
		run_strv_add(&o->loads, &o->nloads, optarg);
		return 0;
	case OPT_COLLECTOR:
		run_strv_add(&o->cols, &o->ncols, optarg);
		return 0;
	case OPT_PP:
		run_strv_add(&o->pps, &o->npps, optarg);
		return 0;
	case OPT_COLLECTOR_PARAMS:
		return set_params(&o->col_params, &o->ncol_params, o->ncols, "--collector-params",
				  optarg);
	case OPT_PP_PARAMS:
		return set_params(&o->pp_params, &o->npp_params, o->npps, "--postprocessor-params",
				  optarg);
	}
	return -1;
}

static int parse_options(struct run_cli *r, struct job_opts *o, char ***revs, size_t *nrevs,
			 int argc, char **argv, bool is_job)
{
	static const struct option opts[] = {
		{"minor", required_argument, NULL, 'm'},
		{"crawl-parents", no_argument, NULL, 'c'},
		{"depth", required_argument, NULL, OPT_DEPTH},
		{"quiet", no_argument, NULL, 'q'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"help", no_argument, NULL, 'h'},
		{"cmd", required_argument, NULL, OPT_CMD},
		{"args", required_argument, NULL, OPT_ARGS},
		{"workload", required_argument, NULL, OPT_WORKLOAD},
		{"collector", required_argument, NULL, OPT_COLLECTOR},
		{"collector-params", required_argument, NULL, OPT_COLLECTOR_PARAMS},
		{"postprocessor", required_argument, NULL, OPT_PP},
		{"postprocessor-params", required_argument, NULL, OPT_PP_PARAMS},
		{"output-filename-template", required_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	int c;

	/* Perun's spellings; its -c is --crawl-parents before `job` and
	 * --collector after it, and stays ours: --crawl-parents. */
	cli_perun_short_opts(argc, argv,
			     (const char *const[]){"-ot", "--output-filename-template", "-b",
						   "--cmd", "-a", "--args", "-w", "--workload",
						   "-cp", "--collector-params", "-p",
						   "--postprocessor", "-pp",
						   "--postprocessor-params", NULL});
	while ((c = getopt_long(argc, argv, "m:cqh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			run_strv_add(revs, nrevs, optarg);
			break;
		case 'c':
			r->crawl = true;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'T':
			free(r->name_template);
			r->name_template = xstrdup(optarg);
			if (collect_template_check(optarg) < 0)
				return cli_fail(), -1;
			break;
		case OPT_FORMAT:
			if (cli_parse_format("run", optarg, &r->format) < 0)
				return -1;
			break;
		case OPT_DEPTH:
			if (cli_parse_uint("run", "--depth", optarg, &r->depth) < 0)
				return -1;
			if (r->depth == 0)
				return cli_usage_error("run", "--depth wants 1 or more"), -1;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return 1;
		default:
			if (c < OPT_CMD || c > OPT_PP_PARAMS)
				return cli_bad_option("run", argv), -1;
			if (!is_job)
				return cli_usage_error("run", "%s is for `run job`",
						       argv[optind - 1]),
				       -1;
			if (job_option(o, c) < 0)
				return -1;
		}
	}
	if (optind < argc)
		return cli_usage_error("run", "unexpected argument '%s'", argv[optind]), -1;
	if (r->crawl && !*nrevs)
		return cli_usage_error("run", "--crawl-parents needs -m REV"), -1;
	if (r->depth && !r->crawl) {
		bool range = false;

		for (size_t i = 0; i < *nrevs; i++)
			range |= strstr((*revs)[i], "..") != NULL;
		if (!range)
			return cli_usage_error("run",
					       "--depth goes with --crawl-parents or -m A..B"),
			       -1;
	}
	return 0;
}

int cmd_run(struct cli_ctx *ctx, int argc, char **argv)
{
	struct run_cli r = {.ctx = ctx, .json = BUF_INIT, .real_stdout = -1};
	struct job_opts o = {0};
	struct run_matrix *cfg = NULL;
	char **revs = NULL;
	size_t nrevs = 0;
	bool is_job;
	int ret;

	if (argc < 2)
		return cli_usage_error("run", "say matrix or job");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(run_usage, stdout);
		return 0;
	}
	is_job = strcmp(argv[1], "job") == 0;
	if (!is_job && strcmp(argv[1], "matrix") != 0)
		return cli_usage_error("run", "say matrix or job, not '%s'", argv[1]);
	ret = parse_options(&r, &o, &revs, &nrevs, argc - 1, argv + 1, is_job);
	if (ret == 0 && !r.name_template &&
	    (r.name_template = cli_config_string(ctx, "format.output_profile_template")) &&
	    collect_template_check(r.name_template) < 0)
		ret = cli_fail() + 1;
	if (ret != 0) {
		ret = ret > 0 ? 0 : 2;
	} else if (cli_matrix_load(ctx, &cfg) < 0 || (is_job && job_matrix(cfg, &o, &r.m) < 0)) {
		ret = cli_fail() + 1;
	} else {
		if (!is_job)
			r.m = cfg, cfg = NULL;
		ret = run_and_report(&r, revs, nrevs);
	}
	run_matrix_free(cfg);
	run_matrix_free(r.m);
	run_strv_free(revs);
	run_strv_free(r.revs);
	job_opts_free(&o);
	buf_release(&r.json);
	free(r.name_template);
	return ret;
}
