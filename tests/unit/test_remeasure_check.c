/*
 * run/remeasure_check: a remeasured job (two pending profiles and the
 * changes of its rounds, made here by hand) as a compared pair of a check
 * report, named and titled as `check head` names stored pairs; the
 * environments' check before it (analyze/envinfo.h's env_guard), which may
 * refuse the pair; and what the user is told of the rounds.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/check_report.h"
#include "analyze/envinfo.h"
#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "run/remeasure_check.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/strmap.h"

#define BASE "1111111111111111111111111111111111111111"
#define TARGET "2222222222222222222222222222222222222222"

/* A time profile of ./prog, measured under @kernel, written to @path. */
static void write_profile(const char *path, const char *kernel, double amount)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f,
		"{\"header\": {\"type\": \"time\", \"cmd\": \"./prog\", \"params\": \"\","
		" \"workload\": \"\", \"units\": {\"time\": \"s\"},"
		" \"environment\": {\"host\": \"h\", \"kernel\": \"%s\"}},"
		" \"collector_info\": {\"name\": \"time\", \"params\": {}},"
		" \"postprocessors\": [], \"global\": {\"timestamp\": 1.0, \"resources\":"
		" [{\"uid\": \"./prog\", \"type\": \"time\", \"subtype\": \"real\","
		" \"order\": 1, \"amount\": %g}]}}",
		kernel, amount);
	assert_int_equal(fclose(f), 0);
}

/* A remeasured job (@res zeroed): base and target profiles in
 * DIR/.veles/jobs/, one change, 12 rounds that ran out. */
static void make_result(struct remeasure_result *res, const char *kernel_b, const char *kernel_t)
{
	char *dir = tmp_fresh_dir(), *jobs = xasprintf("%s/.veles/jobs", dir);
	struct change *c;

	assert_int_equal(mkdir_p(jobs), 0);
	res->profile[0] = xasprintf("%s/prog-time-a.perf", jobs);
	res->profile[1] = xasprintf("%s/prog-time-b.perf", jobs);
	write_profile(res->profile[0], kernel_b, 1.0);
	write_profile(res->profile[1], kernel_t, 2.0);
	res->metric = "real";
	res->rounds = 12;
	res->why = RMIT_ROUNDS;
	XGROW(res->changes.v, 1, res->changes.cap);
	c = &res->changes.v[res->changes.n++];
	memset(c, 0, sizeof(*c));
	c->location = xstrdup("./prog [real]");
	c->method = "rmit";
	c->cls = CH_DEGRADATION;
	c->rel_change = 1;
	free(jobs);
	free(dir);
}

/* What the callbacks heard. */
struct heard {
	struct buf lines; /* c->say's and the guard's warnings, one a line */
	char *names[2];	  /* what env_check was given */
	bool guarded;	  /* held to @g, else any environment passes */
	struct env_guard g;
	struct strmap said;
	struct remeasure_check c;
};

static int env_check(void *arg, const struct profile *a, const char *an, const struct profile *b,
		     const char *bn)
{
	struct heard *h = arg;

	free(h->names[0]);
	free(h->names[1]);
	h->names[0] = xstrdup(an);
	h->names[1] = xstrdup(bn);
	return h->guarded ? env_guard_profiles(&h->g, a, an, b, bn) : 0;
}

static void say(void *arg, const char *line)
{
	struct heard *h = arg;

	buf_addf(&h->lines, "%s\n", line);
}

static void warn(void *arg, const char *msg)
{
	say(arg, msg);
}

/* The callbacks of a remeasure check (h->c), environments held to one
 * when @guarded (under --strict-env when @strict). */
static void heard_init(struct heard *h, bool guarded, bool strict)
{
	memset(h, 0, sizeof(*h));
	h->guarded = guarded;
	h->g = (struct env_guard){strict, "--strict-env", &h->said, warn, h};
	h->c = (struct remeasure_check){.env_check = env_check, .say = say, .arg = h};
}

static void heard_release(struct heard *h)
{
	buf_release(&h->lines);
	free(h->names[0]);
	free(h->names[1]);
	strmap_free(&h->said);
}

static void test_pair(void **state)
{
	struct remeasure_result *res = xcalloc(1, sizeof(*res));
	struct heard h;
	struct check_report r = {0};
	struct profile *t;
	char *title;
	const struct check_pair *p;

	UNUSED(state);
	heard_init(&h, false, false);
	make_result(res, "6.1", "6.1");
	assert_int_equal(remeasure_check_pair(&h.c, BASE, TARGET, res, &r), 0);
	assert_int_equal(r.n, 1);
	p = &r.pairs[0];
	assert_string_equal(p->baseline_name, "prog-time-a.perf");
	assert_string_equal(p->target_name, "prog-time-b.perf");
	assert_string_equal(p->baseline_version, BASE);
	assert_string_equal(p->target_version, TARGET);
	/* Titled and keyed as check_run_pair() titles a stored pair. */
	assert_int_equal(profile_load(res->profile[1], &t), 0);
	title = profile_config_title(t);
	assert_string_equal(p->config, title);
	assert_non_null(strstr(p->config, "./prog"));
	assert_non_null(p->config_key);
	/* The rounds' changes moved into the pair. */
	assert_int_equal(p->changes.n, 1);
	assert_string_equal(p->changes.v[0].location, "./prog [real]");
	assert_int_equal(p->changes.v[0].cls, CH_DEGRADATION);
	assert_null(res->changes.v);
	assert_int_equal(res->changes.n, 0);
	/* The environments are named as the user finds the files. */
	assert_string_equal(h.names[0], ".veles/jobs/prog-time-a.perf");
	assert_string_equal(h.names[1], ".veles/jobs/prog-time-b.perf");
	{
		char *want =
			xasprintf("%s on real: 12 rounds, both versions once a round in random "
				  "order; stopped: --max-rounds reached\n"
				  "pending profiles .veles/jobs/prog-time-a.perf (1111111) and "
				  ".veles/jobs/prog-time-b.perf (2222222): `veles add` keeps "
				  "them\n",
				  title);

		assert_string_equal(buf_str(&h.lines), want);
		free(want);
	}
	free(title);
	profile_free(t);
	check_report_free(&r);
	remeasure_free(res, 1);
	heard_release(&h);
}

/* Under --strict-env another kernel refuses the pair: none is made and
 * nothing is said of the rounds. */
static void test_strict_refuses(void **state)
{
	struct remeasure_result *res = xcalloc(1, sizeof(*res));
	struct heard h;
	struct check_report r = {0};

	UNUSED(state);
	heard_init(&h, true, true);
	make_result(res, "6.1", "6.18");
	assert_int_equal(remeasure_check_pair(&h.c, BASE, TARGET, res, &r), ERR_INVALID);
	assert_string_equal(err_msg(), ".veles/jobs/prog-time-a.perf and "
				       ".veles/jobs/prog-time-b.perf were measured in different "
				       "environments (kernel 6.1 vs 6.18): --strict-env refuses to "
				       "compare them");
	assert_int_equal(r.n, 0);
	assert_int_equal(h.lines.len, 0);
	assert_int_equal(res->changes.n, 1); /* still the result's */
	check_report_free(&r);
	remeasure_free(res, 1);
	heard_release(&h);
}

/* Without strict, a difference is a warning, each distinct one once. */
static void test_warns_once(void **state)
{
	struct remeasure_result *res = xcalloc(2, sizeof(*res));
	struct heard h;
	struct check_report r = {0};

	UNUSED(state);
	heard_init(&h, true, false);
	h.c.say = NULL; /* the warnings alone */
	for (int i = 0; i < 2; i++) {
		make_result(&res[i], "6.1", "6.18");
		assert_int_equal(remeasure_check_pair(&h.c, BASE, TARGET, &res[i], &r), 0);
	}
	assert_int_equal(r.n, 2);
	assert_string_equal(buf_str(&h.lines),
			    ".veles/jobs/prog-time-a.perf and .veles/jobs/prog-time-b.perf were "
			    "measured in different environments: kernel 6.1 vs 6.18\n");
	check_report_free(&r);
	remeasure_free(res, 2);
	heard_release(&h);
}

/* A side whose profile is gone is the error; no pair is made. */
static void test_missing_profile(void **state)
{
	struct remeasure_result *res = xcalloc(1, sizeof(*res));
	struct remeasure_check c = {0};
	struct check_report r = {0};

	UNUSED(state);
	make_result(res, "6.1", "6.1");
	assert_int_equal(unlink(res->profile[1]), 0);
	assert_true(remeasure_check_pair(&c, BASE, TARGET, res, &r) < 0);
	assert_int_equal(r.n, 0);
	check_report_free(&r);
	remeasure_free(res, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_strict_refuses),
		cmocka_unit_test(test_warns_once),
		cmocka_unit_test(test_missing_profile),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
