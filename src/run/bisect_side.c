/* veles bisect: a version checked out, built and measured (bisect.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "analyze/stats.h"
#include "collect/machine.h"
#include "perf/runcount.h"
#include "run/bisect.h"
#include "run/bisect_job.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"

void bisect_say(const struct bisect *b, enum bisect_say kind, const char *fmt, ...)
{
	va_list ap;
	struct buf text = BUF_INIT;

	if (!b->say || (kind == BISECT_PROGRESS && b->quiet))
		return;
	va_start(ap, fmt);
	buf_vaddf(&text, fmt, ap);
	va_end(ap);
	b->say(b->arg, kind, buf_str(&text));
	buf_release(&text);
}

const char *bisect_on_name(enum on_time on)
{
	return on == ON_CPU ? "cpu" : on == ON_USER ? "user" : on == ON_SYS ? "sys" : "real";
}

/* The environment @s was built and is measured in, held to good's. */
static int check_env(struct bisect *b, struct side *s)
{
	struct buf json = BUF_INIT;
	struct env_info e;
	char name[16];
	int ret;

	machine_env_json(&json, s->co.root, b->job ? bisect_job_cmd(b->job) : b->cmd[0], -1, -1);
	env_info_parse(buf_str(&json), &e);
	buf_release(&json);
	if (strcmp(s->id, b->good_id) == 0) {
		b->good_env = e;
		return 0;
	}
	snprintf(name, sizeof(name), "%.7s", s->id);
	ret = b->env_check ? b->env_check(b->arg, &b->good_env, &e, name) : 0;
	env_info_release(&e);
	return ret;
}

int side_open(struct bisect *b, struct side *s)
{
	const char *cmd = b->build ? b->build : b->build_from_config;
	struct run_build build = {(char *const *)&cmd, cmd ? 1 : 0, "the build", true};
	int ret;

	if (s->open)
		return 0;
	ret = run_checkout_open(b->repo, b->root, s->id, &build, &s->co);
	if (ret < 0)
		return ret;
	s->open = true;
	return check_env(b, s);
}

void side_close(struct bisect *b, struct side *s)
{
	if (s->open)
		run_checkout_close(b->repo, &s->co);
	s->open = false;
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* One run of the command in @s's checkout: the metric asked for. */
static int run_command(struct bisect *b, const struct side *s, double *value)
{
	struct spawn_opts o = {.output = SPAWN_SUPPRESS, .cwd = s->co.root};
	struct perf_runcount *rc = &b->rc;
	struct spawner sp;
	struct spawn_result r;
	double cnt[RC_N];
	char status[96];
	int ret = spawner_init(&sp, b->cmd, &o);

	if (ret < 0)
		return ret;
	perf_runcount_begin(rc);
	ret = spawner_run(&sp, &r);
	perf_runcount_end(rc, cnt);
	spawner_release(&sp);
	if (ret == 0 && spawn_interrupted())
		ret = err_set(ERR_INTERRUPTED, "interrupted");
	if (ret == 0 && (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0))
		ret = err_set(ERR_CHILD, "'%s' %s at %.7s", b->cmd[0],
			      spawn_status_str(r.status, status, sizeof(status)), s->id);
	if (ret == 0)
		*value = b->on == ON_CPU    ? cnt[RC_CPU]
			 : b->on == ON_USER ? r.user
			 : b->on == ON_SYS  ? r.sys
					    : r.real;
	return ret;
}

/* One value in @s's checkout: a run of the command, or the median of one
 * run of the job's values. */
static int measure_in(struct bisect *b, const struct side *s, double *value)
{
	double *v = NULL;
	size_t n = 0;
	int ret;

	if (!b->job)
		return run_command(b, s, value);
	ret = bisect_job_measure(b->job, b->logs_dir, s->co.root, s->id, 1, &v, &n);
	if (ret == 0)
		*value = stats_median_sort(v, n);
	free(v);
	return ret;
}

int side_measure_once(struct bisect *b, struct side *s, double *value)
{
	int ret = side_open(b, s);

	return ret < 0 ? ret : measure_in(b, s, value);
}

int side_measure_block(struct bisect *b, struct side *s, size_t n)
{
	int ret = side_open(b, s);
	double scratch;

	if (ret < 0)
		return ret;
	/* The warm-up, not kept. */
	if (!s->n && !b->job)
		ret = measure_in(b, s, &scratch);
	if (b->job) {
		if (ret == 0)
			ret = bisect_job_measure(b->job, b->logs_dir, s->co.root, s->id, n, &s->v,
						 &s->n);
	} else {
		s->v = xrealloc(s->v, (s->n + n) * sizeof(*s->v));
		for (size_t i = 0; i < n && ret == 0; i++)
			ret = measure_in(b, s, &s->v[s->n++]);
		if (ret < 0)
			s->n--;
	}
	return ret;
}
