/*
 * analyze/diff_join and view/diff_table: two made-up sample sets joined
 * by name, aggregated, filtered, sorted each way and cut; the table in
 * each format.
 */
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/diff_join.h"
#include "analyze/samples.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/diff_rows.h"

/* A set of groups "name", with values, in name order (as built sets are). */
static void group(struct sample_set *s, const char *name, const double *v, size_t n)
{
	struct sample_group *g;

	s->g = xrealloc(s->g, (s->n + 1) * sizeof(*s->g));
	g = &s->g[s->n++];
	memset(g, 0, sizeof(*g));
	g->location = xstrdup(name);
	g->v = xcalloc(n, sizeof(double));
	memcpy(g->v, v, n * sizeof(double));
	g->n = g->cap = n;
}

static void make_sets(struct sample_set *a, struct sample_set *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	group(a, "alloc", (const double[]){10, 20, 30}, 3);
	group(a, "gone", (const double[]){5}, 1);
	group(a, "parse", (const double[]){100, 100}, 2);
	group(a, "zero", (const double[]){0}, 1);
	group(b, "alloc", (const double[]){10, 40, 40}, 3);
	group(b, "new", (const double[]){7}, 1);
	group(b, "parse", (const double[]){50, 50}, 2);
	group(b, "zero", (const double[]){3}, 1);
}

static const struct diff_row *row(const struct diff_rows *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0)
			return &r->v[i];
	return NULL;
}

static void test_aggregate(void **state)
{
	const double v[] = {4, 1, 3, 2, 10};

	UNUSED(state);
	assert_true(diff_aggregate(v, 5, DIFF_SUM) == 20);
	assert_true(diff_aggregate(v, 5, DIFF_MEAN) == 4);
	assert_true(diff_aggregate(v, 5, DIFF_MEDIAN) == 3);
	assert_true(diff_aggregate(v, 5, DIFF_MIN) == 1);
	assert_true(diff_aggregate(v, 5, DIFF_MAX) == 10);
	assert_true(diff_aggregate(v, 5, DIFF_COUNT) == 5);
}

static void test_join(void **state)
{
	struct sample_set a, b;
	struct diff_join_opts o = {.agg = DIFF_MEDIAN, .sort = DIFF_BY_CHANGE};
	struct diff_rows r;

	UNUSED(state);
	make_sets(&a, &b);
	diff_join_sets(&a, &b, &o, &r);
	assert_int_equal(r.n, 5);
	/* alloc 20 -> 40 (+100%) and parse 100 -> 50 (-50%) are as big a
	 * change: the tie goes by name. A side missing or a zero base has no
	 * relative change and goes last. */
	assert_string_equal(r.v[0].name, "alloc");
	assert_string_equal(r.v[1].name, "parse");
	assert_true(fabs(r.v[0].rel - 1.0) < 1e-12);
	assert_true(fabs(r.v[1].rel + 0.5) < 1e-12);
	assert_true(isnan(row(&r, "gone")->target));
	assert_true(isnan(row(&r, "new")->base));
	assert_true(isnan(row(&r, "zero")->rel));
	diff_rows_free(&r);

	o.sort = DIFF_BY_DECREASE;
	o.top = 1;
	diff_join_sets(&a, &b, &o, &r);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.v[0].name, "parse");
	diff_rows_free(&r);

	o.sort = DIFF_BY_BASELINE;
	o.top = 0;
	o.agg = DIFF_SUM;
	diff_join_sets(&a, &b, &o, &r);
	assert_string_equal(r.v[0].name, "parse"); /* 200 */
	assert_string_equal(r.v[1].name, "alloc"); /* 60 */
	assert_string_equal(r.v[r.n - 1].name, "new");
	diff_rows_free(&r);
	samples_free(&a);
	samples_free(&b);
}

static void test_filter_and_table(void **state)
{
	struct sample_set a, b;
	regex_t re;
	struct diff_join_opts o = {.agg = DIFF_MEDIAN, .sort = DIFF_BY_NAME, .filter = &re};
	struct diff_rows r;
	struct buf out = BUF_INIT;

	UNUSED(state);
	assert_int_equal(regcomp(&re, "^(alloc|new)$", REG_EXTENDED | REG_NOSUB), 0);
	make_sets(&a, &b);
	diff_join_sets(&a, &b, &o, &r);
	assert_int_equal(r.n, 2);
	diff_rows_render(&out, &r, DIFF_CSV, NULL, "a", "b");
	assert_string_equal(buf_str(&out), "name,baseline,target,change\n"
					   "\"alloc\",20,40,1\n"
					   "\"new\",,7,\n");
	buf_reset(&out);
	diff_rows_render(&out, &r, DIFF_TEXT, NULL, "a", "b");
	assert_non_null(strstr(buf_str(&out), "+100.0%\n"));
	assert_non_null(strstr(buf_str(&out), "new\n(a -> b)\n"));
	buf_reset(&out);
	diff_rows_render(&out, &r, DIFF_JSON, NULL, "a", "b");
	assert_non_null(strstr(buf_str(&out), "{\"name\":\"new\",\"baseline\":null,\"target\":7"));
	buf_release(&out);
	diff_rows_free(&r);
	samples_free(&a);
	samples_free(&b);
	regfree(&re);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_filter_and_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
