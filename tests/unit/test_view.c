/* view: aggregation, the model formulas and parser, axis ticks, and the bars
 * data step on a profile built in memory; values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/view_priv.h"

#define assert_near(a, b) near_check((a), (b), __FILE__, __LINE__)

static void near_check(double a, double b, const char *file, int line)
{
	if (!(fabs(a - b) <= 1e-9 * (1 + fabs(b))))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

static void test_aggregate(void **state)
{
	const double v[] = {4, 9, 2, 5};
	double w[4];
	static const struct {
		enum view_agg a;
		double want;
	} cases[] = {{AGG_SUM, 20}, {AGG_MEAN, 5}, {AGG_MEDIAN, 4.5},
		     {AGG_MIN, 2},  {AGG_MAX, 9},  {AGG_COUNT, 4}};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memcpy(w, v, sizeof(w));
		assert_near(view_aggregate(cases[i].a, w, 4), cases[i].want);
	}
	memcpy(w, v, sizeof(w));
	assert_near(view_aggregate(AGG_MEDIAN, w, 3), 4);
	assert_true(isnan(view_aggregate(AGG_MEAN, w, 0)));
	assert_near(view_aggregate(AGG_COUNT, w, 0), 0);
}

static const char models_json[] =
	"[{\"uid\":\"f\",\"model\":\"quadratic\",\"method\":\"full\",\"r_square\":0.9,"
	"\"x_start\":0,\"x_end\":10,\"coeffs\":[{\"name\":\"b0\",\"value\":1},"
	"{\"name\":\"b1\",\"value\":2},{\"name\":\"b2\",\"value\":0.5}]},"
	"{\"uid\":\"f\",\"model\":\"power\",\"coeffs\":[{\"name\":\"b0\",\"value\":3},"
	"{\"name\":\"b1\",\"value\":2}]},"
	"{\"uid\":\"f\",\"model\":\"exponential\",\"coeffs\":[{\"name\":\"b0\",\"value\":2},"
	"{\"name\":\"b1\",\"value\":3}]},"
	"{\"uid\":\"f\",\"model\":\"logarithmic\",\"coeffs\":[{\"name\":\"b0\",\"value\":1},"
	"{\"name\":\"b1\",\"value\":2}]},"
	"{\"uid\":\"g\",\"model\":\"regressogram\",\"x_start\":0,\"x_end\":30,"
	"\"x_values\":[0,10,20],\"bucket_stats\":[5,7,9],\"extra\":{\"a\":[1]}}]";

static void test_models(void **state)
{
	struct model_rec *m;
	struct vcurve c;
	size_t n;

	assert_int_equal(model_recs_read(models_json, 0, &m, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(m[0].kind, "quadratic");
	assert_near(m[0].r_square, 0.9);
	assert_near(view_model_eval(&m[0], 2), 1 + 4 + 2);
	assert_near(view_model_eval(&m[1], 2), 12);
	assert_near(view_model_eval(&m[2], 2), 18);
	assert_near(view_model_eval(&m[3], M_E), 3);
	assert_true(isnan(view_model_eval(&m[3], 0)));
	assert_false(view_model_parametric(&m[4]));
	assert_int_equal(m[4].n, 3);

	view_model_curve(&m[0], 0, 10, &c);
	assert_near(c.x[0], 0);
	assert_near(c.x[c.n - 1], 10);
	assert_near(c.y[c.n - 1], 1 + 20 + 50);
	free(c.label);
	free(c.x);
	free(c.y);

	/* a regressogram is a staircase: (0,5) (10,5) (10,7) (20,7) (20,9) (30,9) */
	view_model_curve(&m[4], 0, 30, &c);
	assert_int_equal(c.n, 6);
	assert_near(c.x[1], 10);
	assert_near(c.y[1], 5);
	assert_near(c.y[2], 7);
	assert_near(c.x[5], 30);
	free(c.label);
	free(c.x);
	free(c.y);
	model_recs_free(m, n);

	assert_true(model_recs_read("[{\"model\":\"linear\"}]", 0, &m, &n) < 0);
	assert_true(model_recs_read("{}", 0, &m, &n) < 0);
	assert_int_equal(model_recs_read(NULL, 0, &m, &n), 0);
	assert_int_equal(n, 0);
}

static void test_ticks(void **state)
{
	double t[16], lo = 3, hi = 97;
	size_t n = axis_ticks(0, 100, 5, t, ARRAY_SIZE(t));

	assert_int_equal(n, 6);
	assert_near(t[1], 20);
	assert_near(t[5], 100);
	axis_nice(&lo, &hi, 5);
	assert_near(lo, 0);
	assert_near(hi, 100);
}

static void expect_time(double v, const char *unit, const char *want)
{
	struct buf b = BUF_INIT;

	axis_time(v, axis_time_unit(unit), &b);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

/* Durations as a person writes them: the largest unit with a count of at
 * least 1, four digits. */
static void test_durations(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	expect_time(8.035e4, "us", "80.35 ms");
	expect_time(0.123078, "us", "123.1 ns");
	expect_time(999.96, "us", "1 ms"); /* not "1000 µs" */
	expect_time(999.94, "us", "999.9 \xc2\xb5s");
	expect_time(2.5, "\xc2\xb5s", "2.5 \xc2\xb5s");
	expect_time(1500, "ms", "1.5 s");
	expect_time(123456, "s", "123456 s");
	expect_time(0, "ns", "0 ns");
	assert_true(axis_time_unit("B") == 0 && axis_time_unit(NULL) == 0);
	/* A range in the unit of its larger end. */
	axis_time_range(80350, 100437.5, axis_time_unit("us"), &b);
	assert_string_equal(buf_str(&b), "80.35 \xe2\x80\x93 100.4 ms");
	buf_reset(&b);
	axis_time_range(0.79999, 0.99996, axis_time_unit("us"), &b);
	assert_string_equal(buf_str(&b), "0.8 \xe2\x80\x93 1 \xc2\xb5s");
	buf_release(&b);
}

/* uid a: sizes 1, 1, 2 with amounts 10, 20, 5; uid b: size 1 amount 7 */
static struct profile *small_profile(void)
{
	struct profile *p = profile_new();
	const char *uids[] = {"a", "a", "a", "b"};
	const int64_t size[] = {1, 1, 2, 1}, amount[] = {10, 20, 5, 7};
	size_t i;

	p->type = xstrdup("time");
	for (i = 0; i < 4; i++) {
		struct attr u = {.name = "uid", .kind = COL_STR, .s = uids[i]};
		size_t row = profile_res_add(p, profile_type_add(p, &u, 1));
		struct column *c = table_col_get(p, &p->res, "amount", COL_I64);

		col_set_i64(&p->res, c, row, amount[i]);
		c = table_col_get(p, &p->res, "structure-unit-size", COL_I64);
		col_set_i64(&p->res, c, row, size[i]);
	}
	return p;
}

static void test_bars(void **state)
{
	struct profile *p = small_profile();
	struct view_opts o;
	struct vfigure f = {0};
	struct vplot *pl;

	view_opts_init(&o, VIEW_BARS);
	o.per = "structure-unit-size";
	o.by = "uid";
	o.agg = AGG_MEAN;
	assert_int_equal(view_build_bars(p, &o, &f), 0);
	pl = &f.plots[0];
	assert_int_equal(pl->nx, 2);
	assert_string_equal(pl->xcat[0], "1");
	assert_int_equal(pl->ns, 2);
	assert_string_equal(pl->s[0].label, "a");
	assert_near(pl->s[0].y[0], 15);
	assert_near(pl->s[0].y[1], 5);
	assert_near(pl->s[1].y[0], 7);
	assert_true(isnan(pl->s[1].y[1]));
	vfigure_release(&f);

	o.filters[0] = (struct view_filter){"uid", "b"};
	o.nfilters = 1;
	o.agg = AGG_COUNT;
	assert_int_equal(view_build_bars(p, &o, &f), 0);
	assert_int_equal(f.plots[0].ns, 1);
	assert_near(f.plots[0].s[0].y[0], 1);
	vfigure_release(&f);

	o.nfilters = 0;
	o.per = "nope";
	assert_true(view_build_bars(p, &o, &f) < 0);
	vfigure_release(&f);
	profile_free(p);
}

static void test_flow_accumulates(void **state)
{
	struct profile *p = small_profile();
	struct view_opts o;
	struct vfigure f = {0};

	view_opts_init(&o, VIEW_FLOW);
	assert_int_equal(view_build_flow(p, &o, &f), 0);
	/* a: sum 30 at size 1, 5 at size 2 -> running 30, 35 */
	assert_near(f.plots[0].s[0].y[0], 30);
	assert_near(f.plots[0].s[0].y[1], 35);
	assert_near(f.plots[0].s[1].y[1], 7);
	vfigure_release(&f);
	profile_free(p);
}

/* 5000 uids at 5000 sizes would be a grid of 25M cells: refused, in one
 * line, before any of it is allocated. */
static void test_too_many_cells(void **state)
{
	struct profile *p = profile_new();
	struct view_opts o;
	struct vfigure f = {0};
	char uid[16];
	size_t i;

	p->type = xstrdup("time");
	for (i = 0; i < 5000; i++) {
		struct attr u = {.name = "uid", .kind = COL_STR, .s = uid};
		size_t row;

		snprintf(uid, sizeof(uid), "f%zu", i);
		row = profile_res_add(p, profile_type_add(p, &u, 1));
		col_set_i64(&p->res, table_col_get(p, &p->res, "amount", COL_I64), row, 1);
		col_set_i64(&p->res, table_col_get(p, &p->res, "structure-unit-size", COL_I64), row,
			    (int64_t)i);
	}
	view_opts_init(&o, VIEW_FLOW);
	assert_int_equal(view_build_flow(p, &o, &f), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "more than a view can draw"));
	vfigure_release(&f);
	o.filters[0] = (struct view_filter){"uid", "f7"};
	o.nfilters = 1;
	assert_int_equal(view_build_flow(p, &o, &f), 0);
	vfigure_release(&f);
	profile_free(p);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_flow_accumulates),
		cmocka_unit_test(test_too_many_cells),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
