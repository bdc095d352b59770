/* check --remeasure's pairs (remeasure_check.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/check_report.h"
#include "profile/profile.h"
#include "project/project.h"
#include "run/remeasure_check.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

/* A pending profile as the user knows it: from the project's .veles/. */
static const char *shown(const char *path)
{
	const char *at = strstr(path, ".veles/jobs/");

	return at ? at : path;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void say(const struct remeasure_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct remeasure_check *c, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;

	if (!c->say)
		return;
	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	c->say(c->arg, buf_str(&line));
	buf_release(&line);
}

int remeasure_check_pair(const struct remeasure_check *c, const char *base_id,
			 const char *target_id, struct remeasure_result *res,
			 struct check_report *r)
{
	struct profile *p[2] = {NULL, NULL};
	struct check_pair *pair;
	int ret = 0;

	for (int k = 0; k < 2 && ret == 0; k++)
		ret = profile_load(res->profile[k], &p[k]);
	/* Measured together, yet the two builds may differ (another compiler). */
	if (ret == 0 && c->env_check)
		ret = c->env_check(c->arg, p[0], shown(res->profile[0]), p[1],
				   shown(res->profile[1]));
	if (ret < 0)
		goto out;
	pair = check_report_pair(r, base_name(res->profile[0]), base_name(res->profile[1]), p[1]);
	memcpy(pair->baseline_version, base_id, 41);
	memcpy(pair->target_version, target_id, 41);
	pair->changes = res->changes;
	memset(&res->changes, 0, sizeof(res->changes));
	say(c, "%s%s%s: %zu rounds, both versions once a round in random order; stopped: %s",
	    pair->config, res->metric ? " on " : "", res->metric ? res->metric : "", res->rounds,
	    rmit_stop_text(res->why));
	say(c, "pending profiles %s (%.7s) and %s (%.7s): `veles add` keeps them",
	    shown(res->profile[0]), base_id, shown(res->profile[1]), target_id);
out:
	profile_free(p[0]);
	profile_free(p[1]);
	return ret;
}

/* Both versions built in temporary worktrees, every job remeasured. */
static int remeasure_jobs(struct project *p, const struct vcs_version *ver,
			  const struct run_matrix *m, const struct remeasure_check *c,
			  struct remeasure_result **res, size_t *n)
{
	struct run_build build = {m->pre_run, m->npre_run, "pre_run", true};
	struct remeasure_opts o = c->o;
	char *line;

	o.build = &build;
	o.project_root = p->root;
	o.jobs_dir = p->jobs_dir;
	o.logs_dir = p->logs_dir;
	if (o.progress) {
		line = xasprintf("building %.7s and its parent %.7s in temporary worktrees",
				 ver->id, ver->parents[0]);
		o.progress(o.progress_arg, line);
		free(line);
	}
	return remeasure_run(vcs_store_repo(p->vcs), ver->parents[0], ver->id, m, &o, res, n);
}

int remeasure_check(struct project *p, const char *id, const struct remeasure_check *c,
		    struct check_report *r)
{
	struct run_matrix *m = NULL;
	struct remeasure_result *res = NULL;
	size_t n = 0;
	struct vcs_version ver;
	int ret;

	if (vcs_kind(p->vcs) != VCS_GIT)
		return err_set(ERR_INVALID, "--remeasure needs a git project: plain directories "
					    "keep no old sources");
	if ((ret = vcs_version_info(p->vcs, id, &ver)) < 0 ||
	    (ret = run_matrix_load_project(p->root, &m)) < 0)
		return ret;
	if (ver.nparents == 0)
		ret = err_set(ERR_INVALID, "%.7s has no parent to measure against", id);
	if (ret == 0)
		ret = remeasure_jobs(p, &ver, m, c, &res, &n);
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = remeasure_check_pair(c, ver.parents[0], ver.id, &res[i], r);
	remeasure_free(res, n);
	run_matrix_free(m);
	return ret;
}
