/*
 * The model checks on generated profile pairs shaped like Perun's
 * degradation test pairs (tests/profiles/degradation_profiles there): one
 * uid, 1001 sizes from 1 to 1e6, type mixed, subtype "time delta",
 * resources in the typed layout, models in Perun's layout. Each test is a
 * defect the checks had on such pairs, with the verdict they gave then.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/degrade.h"
#include "analyze/models.h"
#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

#define UID "search(list*, int)"
#define NSIZES 1001

/* Deterministic noise: xorshift64, a sum of four uniforms (about normal). */
static uint64_t rng_state = 14;

static double noise(double sigma)
{
	double sum = 0;

	for (int i = 0; i < 4; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		sum += (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
	}
	return 1 + sigma * sum * sqrt(3.0); /* four uniforms: variance 1/3 */
}

static double size_at(size_t i)
{
	return 1 + 1000.0 * (double)i;
}

/* A profile as Perun writes one: @n points, @models the models list. */
static char *perun_text(const double *x, const double *y, size_t n, const char *models)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"header\": {\"type\": \"mixed\", \"cmd\": \"cmd\", \"workload\": \"wl\", "
		     "\"args\": \"\", \"units\": {\"mixed(time delta)\": \"ms\"}},\n"
		     "\"collector_info\": {\"name\": \"complexity\", \"params\": {}},\n"
		     "\"postprocessors\": [], \"origin\": \"ffff\",\n"
		     "\"resources\": {\"" UID "#0\": {\"amount\": [");
	for (size_t i = 0; i < n; i++)
		buf_addf(&b, "%s%.17g", i ? ", " : "", y[i]);
	buf_adds(&b, "], \"structure-unit-size\": [");
	for (size_t i = 0; i < n; i++)
		buf_addf(&b, "%s%.17g", i ? ", " : "", x[i]);
	buf_addf(&b,
		 "]}},\n\"resource_type_map\": {\"" UID "#0\": {\"uid\": \"" UID "\", "
		 "\"type\": \"mixed\", \"subtype\": \"time delta\", \"time\": \"1s\"}},\n"
		 "\"models\": %s}\n",
		 models ? models : "[]");
	return buf_detach(&b, NULL);
}

static struct profile *perun_profile(const double *x, const double *y, size_t n, const char *models)
{
	char *text = perun_text(x, y, n, models);
	struct profile *p = NULL;

	if (profile_load_mem(text, strlen(text), "gen.perf", &p) < 0)
		fail_msg("%s", err_msg());
	free(text);
	return p;
}

/* One parametric model in Perun's layout over the sizes. */
static void param(struct buf *b, const char *kind, double r2, double b0, double b1)
{
	buf_addf(b,
		 "%s{\"uid\": \"" UID "\", \"model\": \"%s\", \"method\": \"full\", "
		 "\"r_square\": %.17g, \"x_start\": 1, \"x_end\": 1000001, \"coeffs\": "
		 "[{\"name\": \"b0\", \"value\": %.17g}, {\"name\": \"b1\", \"value\": %.17g}]}",
		 b->len > 1 ? ", " : "", kind, r2, b0, b1);
}

/* Runs postprocessor @argv (a NULL-terminated list) on @p. */
static void postprocess(struct profile *p, const char *const *argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	if (postproc_run_argv(p, argc, (char **)argv) != 0)
		fail_msg("%s: %s", argv[0], err_msg());
}

static const struct change *judge(struct profile *base, struct profile *target, const char *method,
				  struct change_list *l)
{
	struct check_params cp;

	check_params_default(&cp);
	change_list_free(l);
	assert_int_equal(degrade_compare(base, target, method, &cp, l), 0);
	assert_int_equal(l->n, 1);
	return &l->v[0];
}

static bool sure_degradation(const struct change *c)
{
	return change_is_degradation(c->cls) && c->cls != CH_MAYBE_DEGRADATION;
}

/*
 * fast: the baseline is a line with a small intercept (240 + 0.049x), the
 * target is slower at nearly every size, but was fitted by a line whose
 * intercept is negative (-11415 + 0.1215x; as Perun's lin4). The mean
 * relative gap followed the few points where the baseline is small and
 * said SevereOptimization -33.4%.
 */
static void test_fast_small_baseline(void **state)
{
	double x[NSIZES], yb[NSIZES], yt[NSIZES];
	struct buf mb = BUF_INIT, mt = BUF_INIT;
	struct change_list l = {0};
	struct profile *base, *target;
	const struct change *c;
	size_t slower = 0;

	UNUSED(state);
	for (size_t i = 0; i < NSIZES; i++) {
		x[i] = size_at(i);
		yb[i] = (240 + 0.049 * x[i]) * noise(0.02);
		yt[i] = (1.05 * (240 + 0.049 * x[i]) + 7e-8 * x[i] * x[i]) * noise(0.02);
		slower += yt[i] > yb[i];
	}
	assert_true(slower >= 975);
	buf_addc(&mb, '[');
	param(&mb, "linear", 0.9995, 240, 0.049);
	param(&mb, "constant", 0.0005, 24745, 0);
	buf_adds(&mb, "]");
	buf_addc(&mt, '[');
	param(&mt, "linear", 0.96, -11415, 0.1215);
	param(&mt, "constant", 0.04, 49334, 0);
	buf_adds(&mt, "]");
	base = perun_profile(x, yb, NSIZES, buf_str(&mb));
	target = perun_profile(x, yt, NSIZES, buf_str(&mt));
	c = judge(base, target, "fast", &l);
	if (!sure_degradation(c) || !(c->rel_change > 0.25))
		fail_msg("fast: %s %+.1f%%", change_class_name(c->cls), 100 * c->rel_change);
	change_list_free(&l);
	buf_release(&mb);
	buf_release(&mt);
	profile_free(base);
	profile_free(target);
}

/*
 * lreg and preg: two power curves that meet at the largest size while
 * the target is at least 11% slower at every size (Perun's pow1 -> pow2).
 * Judged at the end of the interval alone, that was NoChange.
 */
static void test_regression_whole_interval(void **state)
{
	double x[NSIZES], yb[NSIZES], yt[NSIZES];
	struct buf mb = BUF_INIT, mt = BUF_INIT;
	struct change_list l = {0};
	struct profile *base, *target;
	static const char *const methods[] = {"lreg", "preg"};

	UNUSED(state);
	for (size_t i = 0; i < NSIZES; i++) {
		x[i] = size_at(i);
		yb[i] = 0.6279 * pow(x[i], 0.8041) * noise(0.02);
		yt[i] = yb[i] + 5000;
		assert_true(yt[i] / yb[i] > 1.11);
	}
	buf_addc(&mb, '[');
	param(&mb, "power", 0.9797, 0.6279, 0.8041);
	param(&mb, "linear", 0.9774, 2309, 0.04283);
	buf_adds(&mb, "]");
	buf_addc(&mt, '[');
	param(&mt, "power", 0.9792, 58.855, 0.47372);
	param(&mt, "linear", 0.9774, 7308, 0.04283);
	buf_adds(&mt, "]");
	base = perun_profile(x, yb, NSIZES, buf_str(&mb));
	target = perun_profile(x, yt, NSIZES, buf_str(&mt));
	for (size_t k = 0; k < ARRAY_SIZE(methods); k++) {
		const struct change *c = judge(base, target, methods[k], &l);

		if (!sure_degradation(c) || !(c->rel_change > 0.1))
			fail_msg("%s: %s %+.1f%%", methods[k], change_class_name(c->cls),
				 100 * c->rel_change);
	}
	change_list_free(&l);
	buf_release(&mb);
	buf_release(&mt);
	profile_free(base);
	profile_free(target);
}

/*
 * Identical data, flat and noisy (a workload generator's 8 sizes, 5 runs
 * each), postprocessed by regression analysis on both sides and by a
 * regressogram on one. The regressogram's r² beat every parametric model's
 * and it became that side's best model: loc said TotalDegradation +128%,
 * int MaybeDegradation +74%.
 */
static void test_regressogram_does_not_compete(void **state)
{
	static const char *const ra[] = {"regression-analysis", NULL};
	static const char *const rg[] = {"regressogram", NULL};
	static const char *const methods[] = {"bmoe", "int", "loc", "fast", "lreg", "preg"};
	double x[40], y[40];
	struct change_list l = {0};
	struct profile *base, *target;

	UNUSED(state);
	for (size_t i = 0; i < 40; i++) {
		x[i] = 10 << (i / 5);
		y[i] = noise(0.3);
	}
	base = perun_profile(x, y, 40, NULL);
	target = perun_profile(x, y, 40, NULL);
	postprocess(base, ra);
	postprocess(base, rg);
	postprocess(target, ra);
	for (size_t k = 0; k < ARRAY_SIZE(methods); k++) {
		const struct change *c = judge(base, target, methods[k], &l);

		if (c->cls != CH_NO_CHANGE)
			fail_msg("%s: %s %+.1f%% on the same data", methods[k],
				 change_class_name(c->cls), 100 * c->rel_change);
		c = judge(target, base, methods[k], &l);
		if (c->cls != CH_NO_CHANGE)
			fail_msg("%s, swapped: %s %+.1f%% on the same data", methods[k],
				 change_class_name(c->cls), 100 * c->rel_change);
	}
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

/*
 * Perun's non-parametric models carry no x_values (a regressogram's
 * buckets split [x_start, x_end] evenly, a moving average and a kernel
 * regression hold one value per point) and Perun's moving average leaves
 * NaN where its window was short. They were ignored ("no models in either
 * profile") or, with a NaN, the profile did not load.
 */
static char *nonparam_models(const char *kind, double scale)
{
	struct buf b = BUF_INIT;
	size_t n = strcmp(kind, "regressogram") == 0 ? 10 : NSIZES;

	buf_addf(&b,
		 "[{\"uid\": \"" UID "\", \"model\": \"%s\", \"r_square\": 0.97, "
		 "\"x_start\": 1.0, \"x_end\": 1000001.0, \"per_key\": \"structure-unit-size\", "
		 "\"bucket_stats\": [",
		 kind);
	for (size_t i = 0; i < n; i++) {
		double mid = n == 10 ? 1 + 100000 * (i + 0.5) : size_at(i);

		if (strcmp(kind, "moving_average") == 0 && i < 4)
			buf_adds(&b, i ? ", NaN" : "NaN");
		else
			buf_addf(&b, "%s%.17g", i ? ", " : "", (100 + 0.01 * mid) * scale);
	}
	buf_adds(&b, "]}]");
	return buf_detach(&b, NULL);
}

static void test_perun_nonparametric(void **state)
{
	static const char *const kinds[] = {"regressogram", "moving_average", "kernel_regression"};
	double x[NSIZES], yb[NSIZES], yt[NSIZES];
	struct change_list l = {0};
	struct model_set s;

	UNUSED(state);
	for (size_t i = 0; i < NSIZES; i++) {
		x[i] = size_at(i);
		yb[i] = 100 + 0.01 * x[i];
		yt[i] = 2 * yb[i];
	}
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		char *mb = nonparam_models(kinds[k], 1), *mt = nonparam_models(kinds[k], 2);
		struct profile *base = perun_profile(x, yb, NSIZES, mb);
		struct profile *target = perun_profile(x, yt, NSIZES, mt);
		const struct change *c;

		assert_int_equal(models_load(base, &s), 0);
		assert_int_equal(s.n, 1);
		/* The points lie evenly over [x_start, x_end]; NaN ones dropped. */
		assert_true(s.v[0].xs[0] == (k == 1 ? size_at(4) : 1));
		models_free(&s);
		c = judge(base, target, "int", &l);
		if (c->cls != CH_TOTAL_DEGRADATION || fabs(c->rel_change - 1) > 0.01)
			fail_msg("int on %s: %s %+.1f%%", kinds[k], change_class_name(c->cls),
				 100 * c->rel_change);
		assert_int_equal(judge(base, base, "int", &l)->cls, CH_NO_CHANGE);
		free(mb);
		free(mt);
		profile_free(base);
		profile_free(target);
	}
	change_list_free(&l);
}

static void add_location(struct profile *p, const char *uid, double amount)
{
	const struct attr a[] = {{.name = "uid", .kind = COL_STR, .s = uid}};
	size_t row = profile_res_add(p, profile_type_add(p, a, 1));
	struct column *c = table_col_get(p, &p->res, "amount", COL_F64);

	col_set_f64(&p->res, c, row, amount);
}

/*
 * eto on the same program measured twice: twelve functions, eleven within
 * 0.1% of their baseline, one 1.6% faster. Alone among the unmoved it was
 * a SevereOptimization (z = -12.9); below the minimum effect it is none.
 */
static void test_eto_minimum_effect(void **state)
{
	struct profile *base = profile_new(), *target = profile_new();
	struct change_list l = {0};
	struct check_params cp;
	char uid[16];

	UNUSED(state);
	check_params_default(&cp);
	for (int k = 0; k < 12; k++) {
		snprintf(uid, sizeof(uid), "f%02d", k);
		for (int i = 0; i < 10; i++) {
			double v = 1000 + 100 * k + i;

			add_location(base, uid, v);
			add_location(target, uid,
				     v * (k == 5 ? 0.984 : 1 + 0.001 * ((k * 7) % 3 - 1)));
		}
	}
	assert_int_equal(degrade_compare(base, target, "eto", &cp, &l), 0);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].cls != CH_NO_CHANGE)
			fail_msg("%s: %s %+.1f%%", l.v[i].location, change_class_name(l.v[i].cls),
				 100 * l.v[i].rel_change);
	change_list_free(&l);
	/* Still an outlier when it moved by more: -16%. */
	profile_free(target);
	target = profile_new();
	for (int k = 0; k < 12; k++) {
		snprintf(uid, sizeof(uid), "f%02d", k);
		for (int i = 0; i < 10; i++)
			add_location(target, uid,
				     (1000 + 100 * k + i) *
					     (k == 5 ? 0.84 : 1 + 0.001 * ((k * 7) % 3 - 1)));
	}
	assert_int_equal(degrade_compare(base, target, "eto", &cp, &l), 0);
	assert_int_equal(l.v[5].cls, CH_SEVERE_OPTIMIZATION);
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

/* The best parametric model of @p's uid at x = @at, by the checks' rule. */
static enum model_kind best_kind(const struct profile *p, double at, bool by_ours)
{
	struct model_set s;
	const struct model *best = NULL;
	enum model_kind kind;

	assert_int_equal(models_load(p, &s), 0);
	if (by_ours) {
		for (size_t i = 0; i < s.n; i++)
			if (!best || s.v[i].r_square > best->r_square)
				best = &s.v[i];
	} else {
		best = models_best_at(&s, 0, at, MODELS_PARAMETRIC);
	}
	assert_non_null(best);
	kind = best->kind;
	models_free(&s);
	return kind;
}

/*
 * Regression analysis against Perun on the same data. A noisy power law
 * (y = x^1.5, 20% multiplicative noise): by r² on the original y the
 * quadratic wins by a hair, by Perun's (power in log space) the power
 * model, which is what Perun picks and what the checks now pick. And
 * y = 3x³ at x = 0..5: the power model was dropped for the x = 0, where
 * Perun leaves that point out and fits b0 = 3, b1 = 3, r² = 1.
 */
static void test_best_model_as_perun(void **state)
{
	static const char *const ra[] = {"regression-analysis", NULL};
	double x[200], y[200];
	struct profile *p;
	struct model_set s;

	UNUSED(state);
	rng_state = 1;
	for (size_t i = 0; i < 200; i++) {
		x[i] = (double)i + 1;
		y[i] = pow(x[i], 1.5) * noise(0.2);
	}
	p = perun_profile(x, y, 200, NULL);
	postprocess(p, ra);
	assert_int_equal(best_kind(p, 100, true), MODEL_QUADRATIC);
	assert_int_equal(best_kind(p, 100, false), MODEL_POWER);
	profile_free(p);
	for (size_t i = 0; i < 6; i++) {
		x[i] = (double)i;
		y[i] = 3 * x[i] * x[i] * x[i];
	}
	p = perun_profile(x, y, 6, NULL);
	postprocess(p, ra);
	assert_int_equal(best_kind(p, 3, false), MODEL_POWER);
	assert_int_equal(models_load(p, &s), 0);
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].kind != MODEL_POWER)
			continue;
		assert_true(fabs(s.v[i].b[0] - 3) < 1e-9 && fabs(s.v[i].b[1] - 3) < 1e-9);
		assert_true(s.v[i].r_square == 1 && s.v[i].rank == 1);
	}
	models_free(&s);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_small_baseline),
		cmocka_unit_test(test_regression_whole_interval),
		cmocka_unit_test(test_regressogram_does_not_compete),
		cmocka_unit_test(test_perun_nonparametric),
		cmocka_unit_test(test_eto_minimum_effect),
		cmocka_unit_test(test_best_model_as_perun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
