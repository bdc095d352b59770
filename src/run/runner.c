/*
 * Running one job of the matrix: the collector's argv, the postprocessors
 * applied before the profile is written, the per-size runs of a generator
 * merged into one profile, and registering the result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/postproc.h"
#include "collect/collector.h"
#include "profile/profile.h"
#include "run/batch.h"
#include "run/merge.h"
#include "run/run.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"
#include "util/tmpdir.h"

/* What the transform callback needs to know about the run in progress. */
struct job_state {
	const struct run_env *env;
	struct run_result *r;
	const struct run_matrix *m;
	const struct run_job *job;
	bool generated; /* one of several per-size runs */
	bool last;	/* the last of them (or the only run) */
	long size;
	struct profile *acc; /* earlier sizes' resources, merged */
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void run_note(void *notes, const char *text)
{
	const struct run_notes *n = notes;

	n->message(n->message_arg, COLLECT_MSG_WARN, text);
}

int run_postprocess(const struct run_matrix *m, struct profile *p, const struct run_notes *n)
{
	const struct postproc_env env = {n && n->message ? run_note : NULL, (void *)n};

	for (size_t i = 0; i < m->npostprocs; i++) {
		int ret = postproc_run(m->postprocs[i].pp, m->postprocs[i].opts, p, &env);

		if (ret < 0)
			return err_prefix(ret, "postprocessor %s", m->postprocs[i].name);
	}
	return 0;
}

/* Registers @p with env->origin straight from memory. */
static int register_profile(const struct run_env *env, const char *name, const struct profile *p)
{
	struct buf data = BUF_INIT;
	char *file = xasprintf("%s.perf", name);
	int ret = profile_encode(p, &data);
	struct store_item item = {p->type, file, data.data, data.len, true};

	if (ret == 0)
		ret = store_add(env->store, env->origin, &item, 1, NULL, NULL);
	buf_release(&data);
	free(file);
	return ret;
}

/*
 * The finished profile: postprocessed, then taken by the caller, registered
 * or handed to the batch writer. Then the collector writes nothing itself.
 */
static int job_keep(struct job_state *st, struct collect_ctx *c)
{
	const struct run_notes notes = {st->env->message, st->env->message_arg};
	int ret = run_postprocess(st->m, c->profile, &notes);
	char *name = NULL;

	if (ret == 0 && st->env->take) {
		ret = st->env->take(c->profile, st->env->take_arg);
		c->profile = NULL;
		return ret;
	}
	/* Named once postprocessed, as Perun names it: a template may say
	 * which postprocessors ran. */
	if (ret == 0 && (st->env->store || st->env->batch))
		ret = st->env->name_template
			      ? collect_template_name(st->env->name_template, c->profile, &name)
			      : (name = xstrdup(c->name), 0);
	if (ret == 0 && st->env->store) {
		ret = register_profile(st->env, name, c->profile);
		st->r->registered = ret == 0;
	} else if (ret == 0 && st->env->batch) {
		ret = run_batch_add(st->env->batch, name, c->profile, &st->r->profile);
	} else {
		return ret; /* the collector writes it */
	}
	free(name);
	profile_free(c->profile);
	c->profile = NULL;
	return ret;
}

/* A literal workload that is a whole number ("100000"): its size. */
static bool literal_size(const char *workload, long *size)
{
	char *end;

	errno = 0;
	*size = strtol(workload, &end, 10);
	return *workload && !*end && errno == 0 && workload[0] != ' ';
}

/* Before the write: a failed command fails the job; sizes are merged. */
static int job_transform(struct collect_ctx *c, void *arg)
{
	struct job_state *st = arg;
	struct profile *p = c->profile;
	char status[96];
	long size;

	if (!WIFEXITED(c->last_status) || WEXITSTATUS(c->last_status) != 0)
		return err_set(ERR_CHILD, "'%s' %s", c->argv[0],
			       spawn_status_str(c->last_status, status, sizeof(status)));
	/* Perun's header keeps the arguments apart from the workload. */
	free(p->args);
	p->args = xstrdup(st->job->args);
	/* So regression analysis works on a matrix of literal sizes too. */
	if (!st->generated && !st->job->gen && literal_size(st->job->workload, &size))
		run_profile_set_size(p, size);
	if (st->generated) {
		if (!st->job->gen->unsized)
			run_profile_set_size(p, st->size);
		if (!st->acc)
			st->acc = p;
		else
			run_profile_append(st->acc, p);
		/* Merged (or kept as the base): nothing is written for this size. */
		if (p != st->acc)
			profile_free(p);
		c->profile = NULL;
		if (!st->last)
			return 0;
		c->profile = st->acc;
		st->acc = NULL;
	}
	return job_keep(st, c);
}

/* Appends the words of @text (one word when @whole) to @v. */
static int add_words(char ***v, size_t *n, const char *text, bool whole)
{
	char **words;
	int nw, ret;

	if (whole) {
		run_strv_add(v, n, text);
		return 0;
	}
	ret = run_split_words(text, &words, &nw);
	for (int i = 0; ret == 0 && i < nw; i++)
		run_strv_add(v, n, words[i]);
	run_strv_free(words);
	return ret;
}

/* NAME [params] [--workload=LABEL] -- CMD ARGS... WORKLOAD... */
static int job_argv(const struct run_job *job, const char *label, const char *workload, char ***out,
		    size_t *n)
{
	int ret;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < job->collector->argc; i++)
		run_strv_add(out, n, job->collector->argv[i]);
	if (*label) {
		char *opt = xasprintf("--workload=%s", label);

		run_strv_add(out, n, opt);
		free(opt);
	}
	run_strv_add(out, n, "--");
	run_strv_add(out, n, job->cmd);
	ret = add_words(out, n, job->args, false);
	/* A generated workload is one argument, whatever it holds. */
	if (ret == 0)
		ret = add_words(out, n, workload, job->gen != NULL);
	if (ret < 0) {
		run_strv_free(*out);
		*out = NULL;
	}
	return ret;
}

/* One collection: the collector runs @workload; @st says what to keep. */
static int collect_once(const struct run_env *env, const struct run_job *job, const char *workload,
			struct job_state *st)
{
	char *written = NULL;
	struct collect_env ce = {
		.jobs_dir = env->jobs_dir,
		.logs_dir = env->logs_dir,
		.origin = env->origin,
		.quiet = env->quiet_collectors,
		.transform = job_transform,
		.transform_arg = st,
		.out_path = &written,
		.name_template = env->name_template,
		.message = env->message,
		.message_arg = env->message_arg,
	};
	char **argv;
	size_t argc;
	int ret = job_argv(job, job->gen ? job->gen->id : job->workload, workload, &argv, &argc);

	if (ret == 0)
		ret = collect_main(&ce, (int)argc, argv);
	/* Without a batch (or a store) the collector wrote the profile. */
	if (written) {
		free(st->r->profile);
		st->r->profile = written;
	}
	run_strv_free(argv);
	return ret;
}

/* Each size of the generator in turn; the last write holds them all. */
static int collect_generated(const struct run_env *env, const struct run_job *job,
			     struct job_state *st)
{
	struct tmpdir tmp;
	long *sizes;
	size_t n;
	int ret = tmpdir_make("workload", &tmp);

	if (ret < 0)
		return err_prefix(ret, "workloads");
	n = run_generator_sizes(job->gen, &sizes);
	st->generated = true;
	for (size_t i = 0; i < n && ret == 0; i++) {
		char *workload;

		st->size = sizes[i];
		st->last = i + 1 == n;
		/* The collector's own handler forgets a Ctrl-C from between runs. */
		if (spawn_interrupted()) {
			ret = err_set(ERR_INTERRUPTED, "interrupted");
			break;
		}
		ret = run_generator_workload(job->gen, sizes[i], tmp.path, &workload);
		if (ret == 0)
			ret = collect_once(env, job, workload, st);
		free(workload);
	}
	profile_free(st->acc);
	st->acc = NULL;
	tmpdir_remove(&tmp);
	free(sizes);
	return ret;
}

int run_job_run(const struct run_env *env, const struct run_matrix *m, const struct run_job *job,
		struct run_result *r)
{
	struct job_state st = {.env = env, .r = r, .m = m, .job = job, .last = true};
	double start = now_seconds();
	int ret;

	memset(r, 0, sizeof(*r));
	err_clear();
	ret = job->gen ? collect_generated(env, job, &st)
		       : collect_once(env, job, job->workload, &st);
	if (ret == 0 && env->batch && run_batch_due(env->batch))
		ret = run_batch_commit(env->batch);
	r->seconds = now_seconds() - start;
	r->ok = ret == 0;
	if (ret < 0)
		r->error = xstrdup(err_msg()[0] ? err_msg() : "failed");
	return ret == ERR_INTERRUPTED || spawn_interrupted() ? ERR_INTERRUPTED : 0;
}

void run_result_release(struct run_result *r)
{
	free(r->profile);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

int run_pre_run(const struct run_matrix *m)
{
	for (size_t i = 0; i < m->npre_run; i++) {
		int ret = spawn_shell(m->pre_run[i], "pre_run", SPAWN_INHERIT);

		if (ret < 0)
			return ret;
	}
	return 0;
}
