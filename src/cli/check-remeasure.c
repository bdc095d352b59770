/* check head --remeasure (check-remeasure.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check-remeasure.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "cli/envcheck.h"
#include "profile/profile.h"
#include "run/remeasure.h"
#include "run/run.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

static void progress(void *arg, const char *line)
{
	UNUSED(arg);
	fprintf(stderr, "check: %s\n", line);
}

static const char *shown(const char *path)
{
	const char *at = strstr(path, ".veles/jobs/");

	return at ? at : path;
}

/* One remeasured job as a compared pair; says how its rounds ended. */
static int add_pair(const struct check_remeasure_args *a, const struct vcs_version *ver,
		    struct remeasure_result *res, struct check_report *r)
{
	struct profile *p[2] = {NULL, NULL};
	struct check_pair *pair;
	int ret = 0;

	for (int k = 0; k < 2 && ret == 0; k++)
		ret = profile_load(res->profile[k], &p[k]);
	if (ret < 0) {
		cli_fail();
		goto out;
	}
	/* Measured together, yet the two builds may differ (another compiler). */
	ret = cli_env_check(p[0], shown(res->profile[0]), p[1], shown(res->profile[1]),
			    a->strict_env);
	if (ret < 0) {
		cli_fail();
		goto out;
	}
	pair = check_report_add(r);
	pair->baseline_name = xstrdup(strrchr(res->profile[0], '/') + 1);
	pair->target_name = xstrdup(strrchr(res->profile[1], '/') + 1);
	pair->config = profile_config_title(p[1]);
	pair->config_full = profile_config_title_full(p[1]);
	pair->config_key = profile_config_key(p[1]);
	memcpy(pair->baseline_version, ver->parents[0], 41);
	memcpy(pair->target_version, ver->id, 41);
	pair->changes = res->changes;
	memset(&res->changes, 0, sizeof(res->changes));
	fprintf(stderr,
		"check: %s%s%s: %zu rounds, both versions once a round in random order; "
		"stopped: %s\n",
		pair->config, res->metric ? " on " : "", res->metric ? res->metric : "",
		res->rounds, rmit_stop_text(res->why));
	fprintf(stderr, "check: pending profiles %s (%.7s) and %s (%.7s): `veles add` keeps them\n",
		shown(res->profile[0]), ver->parents[0], shown(res->profile[1]), ver->id);
out:
	profile_free(p[0]);
	profile_free(p[1]);
	return ret;
}

int check_remeasure(struct cli_ctx *ctx, const struct check_remeasure_args *a, const char *id,
		    struct check_report *r)
{
	struct run_matrix *m = NULL;
	struct remeasure_result *res = NULL;
	size_t n = 0;
	struct vcs_version ver;
	int ret;

	if (vcs_kind(ctx->vcs) != VCS_GIT)
		return cli_error("--remeasure needs a git project: plain directories keep no old "
				 "sources"),
		       -1;
	if (vcs_version_info(ctx->vcs, id, &ver) < 0 || run_matrix_load_project(ctx->root, &m) < 0)
		return cli_fail(), -1;
	if (ver.nparents == 0) {
		run_matrix_free(m);
		return cli_error("%.7s has no parent to measure against", id), -1;
	}
	{
		struct run_build build = {m->pre_run, m->npre_run, "pre_run", true};
		struct remeasure_opts o = {
			.budget = {a->max_rounds, a->max_seconds},
			.seed = a->seed,
			.metric = a->on,
			.cp = a->cp,
			.build = &build,
			.project_root = ctx->root,
			.jobs_dir = ctx->jobs_dir,
			.logs_dir = ctx->logs_dir,
			.progress = a->quiet ? NULL : progress,
			.message = cli_collect_message,
		};

		if (!a->quiet)
			fprintf(stderr,
				"check: building %.7s and its parent %.7s in temporary worktrees\n",
				id, ver.parents[0]);
		spawn_signals_install();
		ret = remeasure_run(vcs_store_repo(ctx->vcs), ver.parents[0], id, m, &o, &res, &n);
		spawn_signals_restore();
	}
	if (ret < 0)
		cli_fail();
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = add_pair(a, &ver, &res[i], r);
	remeasure_free(res, n);
	run_matrix_free(m);
	return ret < 0 ? -1 : 0;
}
