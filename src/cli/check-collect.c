/*
 * check --collect-missing: when a parent version has no profile of a
 * configuration, measure it there first. The parent is checked out in a
 * temporary worktree and built with execute.pre_run; then the job of the
 * user's own job matrix (config.yml) that makes that configuration runs,
 * and the new profile is registered with the parent, so the next check
 * finds it.
 *
 * A profile's own recipe (its command, arguments, collector parameters and
 * postprocessors) is data that may have come from anyone (`veles pull`):
 * it is replayed only when the user says so, with --yes or by answering
 * the question asked on a terminal.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "vcs/git_lazy.h"

#include "analyze/postproc.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "collect/collector.h"
#include "profile/profile.h"
#include "run/run.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/spawn.h"
#include "util/tmpdir.h"
#include "vcs/vcs.h"

/* A JSON scalar as an option value; false when it gives no option. */
/*
 * How the collections' commands write: nowhere, or with
 * degradation.log_collect (Perun's) to .veles/logs/ (and, as capture
 * echoes, to stderr, where check_collect_missing sends stdout meanwhile).
 * Set per check_collect_missing call.
 */
static const char *output_handling = "--output-handling=suppress";

static bool option_value(yajl_val v, struct buf *out)
{
	if (YAJL_IS_STRING(v))
		buf_adds(out, YAJL_GET_STRING(v));
	else if (YAJL_IS_NUMBER(v))
		buf_adds(out, v->u.number.r);
	else
		return YAJL_IS_TRUE(v);
	return true;
}

/* {"repeat": 20, "list": [1, 2], "flag": true} -> --repeat=20 --list=1
 * --list=2 --flag, the matrix's convention (docs/config.md). A false value
 * is left out, or with @negate given as --no-KEY: a postprocessor's record
 * holds its flags whatever their default (moving-average's center is on
 * unless --no-center), and each has that form. */
static void params_argv(yajl_val params, bool negate, char ***argv, size_t *n)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; YAJL_IS_OBJECT(params) && i < params->u.object.len; i++) {
		const char *key = params->u.object.keys[i];
		yajl_val v = params->u.object.values[i];
		size_t count = YAJL_IS_ARRAY(v) ? v->u.array.len : 1;

		for (size_t k = 0; k < count; k++) {
			yajl_val item = YAJL_IS_ARRAY(v) ? v->u.array.values[k] : v;
			bool off = YAJL_IS_FALSE(item);

			if (off && !negate)
				continue;
			buf_reset(&b);
			buf_addf(&b, "--%s%s", off ? "no-" : "", key);
			for (char *c = b.data; *c; c++)
				*c = *c == '_' ? '-' : *c;
			if (YAJL_IS_TRUE(item) || off) {
				run_strv_add(argv, n, buf_str(&b));
				continue;
			}
			buf_addc(&b, '=');
			if (option_value(item, &b))
				run_strv_add(argv, n, buf_str(&b));
		}
	}
	buf_release(&b);
}

static yajl_val parse_json(const char *text)
{
	char err[128];

	return text ? yajl_tree_parse(text, err, sizeof(err)) : NULL;
}

/* Applies the target's postprocessors, in order, to the new profile. */
static int replay_postprocessors(struct collect_ctx *c, void *arg)
{
	yajl_val list = parse_json(arg);
	int ret = 0;

	for (size_t i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len && ret == 0; i++) {
		yajl_val rec = list->u.array.values[i];
		const char *name_path[] = {"name", NULL}, *params_path[] = {"params", NULL};
		const char *name = YAJL_GET_STRING(yajl_tree_get(rec, name_path, yajl_t_string));
		char **argv = NULL;
		size_t argc = 0;

		if (!name)
			continue;
		run_strv_add(&argv, &argc, name);
		params_argv(yajl_tree_get(rec, params_path, yajl_t_object), true, &argv, &argc);
		ret = postproc_run_argv(c->profile, (int)argc, argv);
		run_strv_free(argv);
	}
	yajl_tree_free(list);
	return ret;
}

/* The collector's argv that makes a profile like @p. */
static int recipe_argv(const struct profile *p, char ***argv, size_t *n)
{
	yajl_val params = parse_json(p->collector_params);
	char **words = NULL;
	int nwords = 0, ret;

	if (!p->collector || !p->cmd)
		return err_set(ERR_INVALID, "the profile does not say how it was collected");
	run_strv_add(argv, n, p->collector);
	/* The command's output would mix with the report. */
	run_strv_add(argv, n, output_handling);
	params_argv(params, false, argv, n);
	yajl_tree_free(params);
	if (p->workload && *p->workload && (!p->args || strcmp(p->workload, p->args) != 0)) {
		char *opt = xasprintf("--workload=%s", p->workload);

		run_strv_add(argv, n, opt);
		free(opt);
	}
	run_strv_add(argv, n, "--");
	run_strv_add(argv, n, p->cmd);
	ret = run_split_words(p->args ? p->args : "", &words, &nwords);
	for (int i = 0; ret == 0 && i < nwords; i++)
		run_strv_add(argv, n, words[i]);
	run_strv_free(words);
	return ret;
}

/* Collects with the profile's own recipe, in the current directory, into
 * @jobs, and registers the result. */
static int collect_recipe(struct cli_ctx *ctx, const struct profile *target, const char *parent,
			  const char *jobs)
{
	char *written = NULL;
	struct collect_env ce = {
		.jobs_dir = jobs,
		.logs_dir = ctx->logs_dir,
		.origin = parent,
		.quiet = true,
		.transform = replay_postprocessors,
		.transform_arg = target->postprocessors,
		.out_path = &written,
		.message = cli_collect_message,
	};
	char **argv = NULL;
	size_t argc = 0;
	struct buf raw = BUF_INIT;
	int ret = recipe_argv(target, &argv, &argc);

	if (ret == 0)
		ret = collect_main(&ce, (int)argc, argv);
	if (ret == 0 && written)
		ret = file_read_all(written, &raw);
	if (ret == 0 && written) {
		struct store_item item = {target->type, strrchr(written, '/') + 1, raw.data,
					  raw.len, profile_is_compact(raw.data, raw.len)};

		ret = store_add(ctx->store, parent, &item, 1, NULL, NULL);
	}
	if (written)
		unlink(written);
	free(written);
	buf_release(&raw);
	run_strv_free(argv);
	return ret;
}

/* Runs matrix job @job in the current directory and registers its profile
 * with @parent, as `veles run matrix` would there. */
static int collect_job(struct cli_ctx *ctx, const struct run_matrix *m, const struct run_job *job,
		       const char *parent, const char *jobs)
{
	struct run_env env = {
		.jobs_dir = jobs,
		.logs_dir = ctx->logs_dir,
		.origin = parent,
		.store = ctx->store,
		.quiet_collectors = true,
		.message = cli_collect_message,
	};
	struct run_step col = *job->collector;
	struct run_job j = *job;
	struct run_result r;
	char **argv = NULL;
	size_t argc = 0;
	int ret;

	/* The command's output would mix with the report. */
	for (int i = 0; i < job->collector->argc; i++)
		run_strv_add(&argv, &argc, job->collector->argv[i]);
	run_strv_add(&argv, &argc, output_handling);
	col.argv = argv;
	col.argc = (int)argc;
	j.collector = &col;
	ret = run_job_run(&env, m, &j, &r);
	if (ret == 0 && !r.ok)
		ret = err_set(ERR_CHILD, "%s", r.error ? r.error : "the job failed");
	run_result_release(&r);
	run_strv_free(argv);
	return ret;
}

/* The names in a profile's "postprocessors" records, in order. */
static size_t postproc_names(const struct profile *p, const char ***names)
{
	yajl_val list = parse_json(p->postprocessors);
	const char *name_path[] = {"name", NULL};
	size_t n = 0;

	*names = NULL;
	for (size_t i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len; i++) {
		yajl_val v = yajl_tree_get(list->u.array.values[i], name_path, yajl_t_string);

		*names = xrealloc(*names, (n + 1) * sizeof(**names));
		(*names)[n++] = YAJL_IS_STRING(v) ? xstrdup(YAJL_GET_STRING(v)) : xstrdup("");
	}
	yajl_tree_free(list);
	return n;
}

/* Would matrix job @j make a profile of @p's configuration? Its command,
 * arguments, workload, collector and the matrix's postprocessors (by
 * name, in order) must be the profile's. */
static bool job_makes(const struct run_matrix *m, const struct run_job *j, const struct profile *p)
{
	const char *label = j->gen ? j->gen->id : j->workload;
	const char *args = p->args ? p->args : "", *workload = p->workload ? p->workload : "";
	const char **names;
	size_t n = postproc_names(p, &names);
	bool same = p->cmd && p->collector && strcmp(j->cmd, p->cmd) == 0 &&
		    strcmp(j->args, args) == 0 && strcmp(j->collector->name, p->collector) == 0 &&
		    n == m->npostprocs;

	/* Without a workload of its own, a job's workload is its arguments. */
	if (same && *label)
		same = strcmp(label, workload) == 0;
	else if (same)
		same = !*workload || strcmp(workload, args) == 0;
	for (size_t i = 0; i < n; i++) {
		same = same && m->postprocs[i].pp &&
		       strcmp(names[i], m->postprocs[i].pp->name) == 0;
		free((char *)names[i]);
	}
	free(names);
	return same;
}

/* The user's job matrix, read once. */
static int matrix(struct cli_ctx *ctx, struct check_collect *cc, const struct run_matrix **m)
{
	if (!cc->matrix) {
		int ret = cli_matrix_load(ctx, &cc->matrix);

		if (ret < 0)
			return ret;
	}
	*m = cc->matrix;
	return 0;
}

/* @s for the terminal: bytes that are not printable ASCII as \xNN, so a
 * name from a profile cannot move the cursor or hide text (and with
 * @quoted a ' too, which would end the quotes around it). */
static void add_shown(struct buf *b, const char *s, bool quoted)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\' && !(quoted && *p == '\''))
			buf_addc(b, (char)*p);
		else
			buf_addf(b, "\\x%02x", *p);
	}
}

/* The recipe's command line as it would run, each word shown safely and
 * quoted when it holds more than letters, digits and -_./=:,+@%. */
static char *recipe_shown(const struct profile *p)
{
	char **argv = NULL;
	size_t argc = 0;
	struct buf b = BUF_INIT;

	if (recipe_argv(p, &argv, &argc) < 0) {
		err_clear();
		run_strv_free(argv);
		argv = NULL;
		argc = 0;
		run_strv_add(&argv, &argc, p->collector ? p->collector : "?");
		run_strv_add(&argv, &argc, "--");
		run_strv_add(&argv, &argc, p->cmd ? p->cmd : "?");
		if (p->args)
			run_strv_add(&argv, &argc, p->args);
	}
	buf_adds(&b, "veles collect");
	for (size_t i = 0; i < argc; i++) {
		bool plain = *argv[i] != '\0';

		for (const char *c = argv[i]; *c; c++)
			plain = plain && (isalnum((unsigned char)*c) || strchr("-_./=:,+@%", *c));
		buf_adds(&b, plain ? " " : " '");
		add_shown(&b, argv[i], !plain);
		if (!plain)
			buf_addc(&b, '\'');
	}
	run_strv_free(argv);
	return buf_detach(&b, NULL);
}

/* May the profile's own recipe run? --yes says so; on a terminal the user
 * is asked; otherwise one line says why nothing ran. */
static bool recipe_allowed(const struct check_collect *cc, const struct profile *target,
			   const char *name, const char *parent)
{
	struct buf shown_name = BUF_INIT;
	char *cmd, *line = NULL;
	size_t cap = 0;
	bool yes;

	if (cc->yes)
		return true;
	add_shown(&shown_name, name, false);
	if (!cc->ask) {
		cli_warn("not collecting %s on %.7s: config.yml has no job that makes its "
			 "configuration, and its own recipe comes from the profile (add the job "
			 "to the matrix, or pass --yes to run the recipe)",
			 buf_str(&shown_name), parent);
		buf_release(&shown_name);
		return false;
	}
	cmd = recipe_shown(target);
	fflush(stdout);
	fprintf(stderr,
		"check: %s has no baseline on %.7s, and config.yml has no job that makes\n"
		"its configuration. Its own recipe, from the profile (which may not be\n"
		"yours), would run there:\n  %s\nRun it? [y/N] ",
		buf_str(&shown_name), parent, cmd);
	fflush(stderr);
	yes = getline(&line, &cap, stdin) > 0 &&
	      (strcmp(line, "y\n") == 0 || strcmp(line, "yes\n") == 0 || strcmp(line, "Y\n") == 0 ||
	       strcmp(line, "y") == 0);
	free(line);
	free(cmd);
	buf_release(&shown_name);
	return yes;
}

/* What to collect in the parent's checkout. */
struct collect_args {
	struct cli_ctx *ctx;
	const struct run_matrix *m;
	const struct run_job *job; /* or NULL: the profile's own recipe */
	const struct profile *target;
	const char *jobs;
};

static int collect_in(const struct run_checkout *co, void *arg)
{
	const struct collect_args *a = arg;

	return a->job ? collect_job(a->ctx, a->m, a->job, co->id, a->jobs)
		      : collect_recipe(a->ctx, a->target, co->id, a->jobs);
}

/* In a checkout of @parent built with execute.pre_run, the collection. */
static int collect_worktree(struct cli_ctx *ctx, const struct run_matrix *m,
			    const struct run_job *job, const struct profile *target,
			    const char *parent)
{
	struct tmpdir jobs;
	struct run_build build = {m->pre_run, m->npre_run, "pre_run", true};
	struct collect_args a = {ctx, m, job, target, NULL};
	int ret;

	if ((ret = tmpdir_make("collect", &jobs)) < 0)
		return ret;
	a.jobs = jobs.path;
	ret = run_in_checkout(vcs_store_repo(ctx->vcs), ctx->root, parent, &build, collect_in, &a);
	tmpdir_remove(&jobs);
	return ret;
}

/* With degradation.log_collect the captured output also echoes: onto
 * stderr, so that stdout holds the report alone. */
static int collect_logged(struct cli_ctx *ctx, const struct check_collect *cc,
			  const struct run_matrix *m, const struct run_job *job,
			  const struct profile *target, const char *parent)
{
	int saved = -1, ret;

	if (cc->log) {
		fflush(stdout);
		saved = dup(STDOUT_FILENO);
		if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			if (saved >= 0)
				close(saved);
			return err_set(ERR_IO, "cannot redirect the collection's output: %s",
				       strerror(errno));
		}
	}
	ret = collect_worktree(ctx, m, job, target, parent);
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return ret;
}

int check_collect_missing(struct cli_ctx *ctx, struct check_collect *cc,
			  const struct profile *target, const char *target_name, const char *parent)
{
	const struct run_matrix *m = NULL;
	struct run_job *jobs = NULL;
	const struct run_job *job = NULL;
	size_t n;
	int ret;

	if (vcs_kind(ctx->vcs) != VCS_GIT)
		return err_set(ERR_INVALID, "--collect-missing needs a git project");
	/* Its collectors log to .veles/logs/, which a fresh clone lacks. */
	if ((ret = cli_local_state(ctx)) < 0 || (ret = matrix(ctx, cc, &m)) < 0)
		return ret;
	n = run_matrix_expand(m, &jobs);
	for (size_t i = 0; i < n && !job; i++)
		if (job_makes(m, &jobs[i], target))
			job = &jobs[i];
	if (!job && !recipe_allowed(cc, target, target_name, parent)) {
		free(jobs);
		return 1;
	}
	if (!cc->quiet) {
		struct buf shown = BUF_INIT;

		add_shown(&shown, target_name, false);
		fprintf(stderr, "check: collecting %s on %.7s\n", buf_str(&shown), parent);
		buf_release(&shown);
	}
	output_handling = cc->log ? "--output-handling=capture" : "--output-handling=suppress";
	ret = collect_logged(ctx, cc, m, job, target, parent);
	free(jobs);
	return ret;
}

void check_collect_release(struct check_collect *cc)
{
	run_matrix_free(cc->matrix);
	cc->matrix = NULL;
}
