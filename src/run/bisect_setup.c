/* What `veles bisect` and libveles do around the search (bisect.h):
 * defaults, checks, the metric, the two versions. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "project/project.h"
#include "project/settings.h"
#include "run/bisect.h"
#include "run/bisect_job.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

void bisect_defaults(struct bisect *b)
{
	check_params_default(&b->cp);
	b->interleave = true;
	b->runs = 10;
	b->max_runs = 100;
	b->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

int bisect_check(const struct bisect *b, const char *cmd)
{
	if (!b->good_rev || !b->bad_rev)
		return err_set(ERR_INVALID, "name a --good and a --bad version");
	if (b->job_spec && cmd)
		return err_set(ERR_INVALID, "--job names its own command; drop '%s'", cmd);
	if (b->location && !b->job_spec)
		return err_set(ERR_INVALID, "--location is for --job");
	if (!b->job_spec && !cmd)
		return err_set(ERR_INVALID, "name the command to measure after --, or --job");
	if (b->runs < 3 || b->max_runs < b->runs)
		return err_set(ERR_INVALID,
			       "--runs wants at least 3, and --max-runs at least --runs");
	return 0;
}

int bisect_set_on(struct bisect *b, const char *name)
{
	static const char *const names[] = {"cpu", "user", "real", "sys"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(name, names[i]) == 0) {
			b->on = (enum on_time)i;
			b->on_given = true;
			return 0;
		}
	}
	return err_set(ERR_INVALID, "bisect: --on wants cpu, user, real or sys");
}

int bisect_parse_fraction(const char *name, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (!(v > 0) || *end || (strcmp(name, "alpha") == 0 && v >= 0.5))
		return err_set(ERR_INVALID, "bisect: --%s wants a small positive number", name);
	*out = v;
	return 0;
}

/* The location a --job compares by default: the one of the metric. */
static const char *job_fallback(enum on_time on)
{
	return on == ON_CPU    ? "[cpu]"
	       : on == ON_USER ? "[user]"
	       : on == ON_SYS  ? "[sys]"
			       : "[real]";
}

int bisect_metric(struct bisect *b)
{
	perf_runcount_open(&b->rc);
	/* The exact CPU time where the kernel gives it; tick-sampled user time
	 * where not. */
	if (!b->on_given)
		b->on = b->rc.have[RC_CPU] ? ON_CPU : ON_USER;
	if (b->on == ON_CPU && !b->rc.have[RC_CPU])
		return err_set(ERR_INVALID, "--on cpu: perf_event_open refuses task-clock here");
	if (b->job_spec)
		return bisect_job_parse(b->job_spec, b->location, job_fallback(b->on), &b->job);
	return 0;
}

/* execute.pre_run's commands as one shell command, or NULL. */
static char *config_build(const struct project *p)
{
	size_t n;
	char **cmds = project_setting_list(p, "execute.pre_run", &n);
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		buf_addf(&b, "%s(%s)", i ? " && " : "", cmds[i]);
		free(cmds[i]);
	}
	free(cmds);
	return n ? buf_detach(&b, NULL) : NULL;
}

int bisect_prepare(struct bisect *b, struct project *p, char bad[41])
{
	int ret = project_open_store(p);

	if (ret < 0)
		return ret;
	if (vcs_kind(p->vcs) != VCS_GIT)
		return err_set(ERR_GENERIC,
			       "bisect needs a git project: plain directories keep no old sources");
	if ((ret = vcs_resolve(p->vcs, b->good_rev, b->good_id)) < 0 ||
	    (ret = vcs_resolve(p->vcs, b->bad_rev, bad)) < 0)
		return ret;
	/* No version lies after good up to bad: nothing to search. */
	if (strcmp(b->good_id, bad) == 0)
		return err_set(ERR_INVALID, "--good and --bad are the same version %.7s", bad);
	b->vcs = p->vcs;
	b->repo = vcs_store_repo(p->vcs);
	b->root = p->root;
	b->logs_dir = p->logs_dir;
	free(b->build_from_config);
	b->build_from_config = config_build(p);
	return 0;
}

void bisect_release(struct bisect *b)
{
	bisect_job_free(b->job);
	b->job = NULL;
	perf_runcount_close(&b->rc);
	free(b->build_from_config);
	b->build_from_config = NULL;
}
