/* libveles: the project's job matrix, run as `veles run matrix` runs it
 * (run/jobs.h). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "collect/collector.h"
#include "project/settings.h"
#include "run/jobs.h"
#include "run/run.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

enum {
	C_VERSION,
	C_CMD,
	C_ARGS,
	C_WORKLOAD,
	C_COLLECTOR,
	C_OK,
	C_ERROR,
	C_PATH,
	C_NAME,
	C_REGISTERED,
	C_SECONDS,
	C_N
};

static const char *const columns[C_N] = {
	"version", "cmd",  "args", "workload",	 "collector", "ok",
	"error",   "path", "name", "registered", "seconds",
};

static void job_start(void *arg, const struct run_job *job, const struct run_tally *t)
{
	UNUSED(arg);
	api_log(VELES_LOG_PROGRESS, "[%zu/%zu] %s%s%s%s%s (%s)", t->done + 1, t->total, job->cmd,
		*job->args ? " " : "", job->args, *job->workload ? " " : "", job->workload,
		job->collector->name);
}

/* A row per job that ended. */
static void job_done(void *arg, const char *version, const struct run_job *job,
		     const struct run_result *res, const struct run_tally *t)
{
	veles_table *tab = arg;
	size_t row = tab->nrows;
	const char *slash = res->profile ? strrchr(res->profile, '/') : NULL;

	UNUSED(t);
	table_set_str(tab, C_VERSION, row, version);
	table_set_str(tab, C_CMD, row, job->cmd);
	table_set_str(tab, C_ARGS, row, job->args);
	table_set_str(tab, C_WORKLOAD, row, job->workload);
	table_set_str(tab, C_COLLECTOR, row, job->collector->name);
	table_set_i64(tab, C_OK, row, res->ok);
	table_set_str(tab, C_ERROR, row, res->error);
	table_set_str(tab, C_PATH, row, res->profile);
	table_set_str(tab, C_NAME, row, slash ? slash + 1 : res->profile);
	table_set_i64(tab, C_REGISTERED, row, res->registered);
	table_set_f64(tab, C_SECONDS, row, res->seconds);
	if (!res->ok)
		api_log(VELES_LOG_WARNING, "job %s (%s) failed: %s", job->cmd, job->collector->name,
			res->error ? res->error : "no profile");
}

/* The versions @revs name (none: HEAD's working tree, *@nids 0). */
static int resolve(veles_project *h, const char *const *revs, char ***ids, size_t *nids)
{
	size_t n = 0;
	int ret;

	while (revs && revs[n])
		n++;
	*ids = NULL;
	*nids = 0;
	if (n == 0)
		return 0;
	if ((ret = project_open_store(&h->pr)) < 0)
		return ret;
	return run_versions_resolve(h->pr.vcs, (char *const *)revs, n, false, 0, ids, nids);
}

static int run_all(veles_project *h, const struct run_matrix *m, char **ids, size_t nids,
		   const char *tmpl, veles_table *t)
{
	struct run_jobs_opts o = {
		.jobs_dir = h->pr.jobs_dir,
		.logs_dir = h->pr.logs_dir,
		.project_root = h->pr.root,
		.name_template = tmpl,
		.message = api_collect_message,
		.start = job_start,
		.done = job_done,
		.arg = t,
	};
	struct run_tally tally = {0};
	int ret = m->register_after_run || nids ? project_open_store(&h->pr) : 0;

	if (ret < 0)
		return ret;
	o.store = m->register_after_run ? h->pr.store : NULL;
	if (nids && vcs_kind(h->pr.vcs) == VCS_GIT)
		o.repo = vcs_store_repo(h->pr.vcs);
	spawn_signals_install();
	ret = nids ? run_jobs_all(m, ids, nids, NULL, &o, &tally)
		   : run_jobs_head(m, &h->pr, &o, &tally);
	spawn_signals_restore();
	return ret;
}

int veles_run_matrix(veles_project *h, const char *const *revs, veles_table **out)
{
	struct run_matrix *m = NULL;
	char **ids = NULL, *tmpl = NULL;
	size_t nids = 0;
	veles_table *t = table_new(NULL);
	int ret;

	*out = NULL;
	for (size_t i = 0; i < C_N; i++)
		table_add(t, columns[i],
			  i == C_OK || i == C_REGISTERED ? VELES_I64
			  : i == C_SECONDS		 ? VELES_F64
							 : VELES_STR);
	tmpl = project_setting(&h->pr, "format.output_profile_template");
	ret = tmpl ? collect_template_check(tmpl) : 0;
	if (ret == 0)
		ret = run_matrix_load_project(h->pr.root, &m);
	if (ret == 0)
		ret = resolve(h, revs, &ids, &nids);
	if (ret == 0)
		ret = run_all(h, m, ids, nids, tmpl, t);
	run_strv_free(ids);
	run_matrix_free(m);
	free(tmpl);
	if (ret < 0) {
		veles_table_free(t);
		return ret;
	}
	table_finish(t);
	*out = t;
	return 0;
}
