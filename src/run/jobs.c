/* Every job of a matrix on each version (jobs.h). */
#include <stdlib.h>
#include <string.h>

#include "run/batch.h"
#include "run/jobs.h"
#include "run/run.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/spawn.h"

struct jobs_run {
	const struct run_matrix *m;
	const struct run_jobs_opts *o;
	struct run_tally *t;
	const struct run_job *jobs;
};

static void job_done(struct jobs_run *r, const char *version, const struct run_job *job,
		     const struct run_result *res)
{
	if (r->o->done)
		r->o->done(r->o->arg, version, job, res, r->t);
	if (res->ok)
		r->t->ok++;
	else
		r->t->failed++;
	r->t->done++;
}

/* Every job of @version fails with the current error (pre_run failed). */
static void fail_all(struct jobs_run *r, const char *version)
{
	for (size_t i = 0; i < r->t->njobs; i++) {
		struct run_result res = {.error = xstrdup(err_msg())};

		job_done(r, version, &r->jobs[i], &res);
		run_result_release(&res);
	}
	err_clear();
}

static int run_each(struct jobs_run *r, const struct run_env *env)
{
	for (size_t i = 0; i < r->t->njobs; i++) {
		struct run_result res;
		int ret;

		if (spawn_interrupted())
			return err_set(ERR_INTERRUPTED, "interrupted before job %zu/%zu",
				       r->t->done + 1, r->t->total);
		if (r->o->start)
			r->o->start(r->o->arg, &r->jobs[i], r->t);
		ret = run_job_run(env, r->m, &r->jobs[i], &res);
		if (ret == ERR_INTERRUPTED) {
			run_result_release(&res);
			return err_set(ret, "interrupted in job %zu/%zu", r->t->done + 1,
				       r->t->total);
		}
		job_done(r, env->origin, &r->jobs[i], &res);
		run_result_release(&res);
	}
	return 0;
}

/* The jobs on @version in @cwd (NULL: the current directory); pre_run
 * first. */
static int run_here(struct jobs_run *r, const char *version, const char *cwd)
{
	struct run_env env = {
		.cwd = cwd,
		.jobs_dir = r->o->jobs_dir,
		.logs_dir = r->o->logs_dir,
		.origin = version,
		.store = r->o->store,
		.quiet_collectors = true,
		.name_template = r->o->name_template,
		.message = r->o->message,
		.message_arg = r->o->message_arg,
	};
	int ret = run_pre_run(r->m, cwd), done;

	if (ret == ERR_INTERRUPTED)
		return ret;
	if (ret < 0) {
		fail_all(r, version);
		return 0;
	}
	ret = mkdir_p(r->o->jobs_dir);
	if (ret < 0)
		return ret;
	env.batch = run_batch_new(r->o->jobs_dir);
	ret = run_each(r, &env);
	/* What finished is kept, also after Ctrl-C. */
	done = run_batch_commit(env.batch);
	run_batch_free(env.batch);
	return ret < 0 ? ret : done;
}

static int in_checkout(const struct run_checkout *co, void *arg)
{
	return run_here(arg, co->id, co->root);
}

int run_jobs_any(const struct run_matrix *m)
{
	struct run_job *jobs;
	size_t n = run_matrix_expand(m, &jobs);

	free(jobs);
	if (n == 0)
		return err_set(ERR_INVALID, "no jobs: the matrix needs cmds and collectors "
					    "(.veles/config.yml or veles.yml, see docs/config.md)");
	return 0;
}

int run_jobs_all(const struct run_matrix *m, char *const *ids, size_t nids, const char *head,
		 const struct run_jobs_opts *o, struct run_tally *t)
{
	struct run_job *jobs;
	struct jobs_run r = {m, o, t, NULL};
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->njobs = run_matrix_expand(m, &jobs);
	t->total = t->njobs * (nids ? nids : 1);
	r.jobs = jobs;
	if (t->njobs == 0) {
		free(jobs);
		return run_jobs_any(m);
	}
	/* What a run killed before left: its worktrees and their branches. */
	if (o->repo)
		run_worktree_sweep(o->repo);
	/* pre_run is run_here's own: a failing build fails the jobs, not the run. */
	for (size_t v = 0; v < nids && ret == 0; v++)
		ret = run_in_checkout(o->repo, o->project_root, ids[v], NULL, in_checkout, &r);
	if (!nids)
		ret = run_here(&r, head, o->project_root);
	free(jobs);
	return ret;
}
