/*
 * analyze/check_report and view/check_view: the check's decision (what
 * fails it under each --fail-on), its counts and summary line, the pair
 * titles, and the rendering of a report made by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/check_report.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/check_view.h"

static void add_change(struct check_pair *p, const char *loc, enum change_class cls, double rel,
		       const char *note)
{
	struct change *c;

	if (p->changes.n == p->changes.cap) {
		p->changes.cap = p->changes.cap ? 2 * p->changes.cap : 4;
		p->changes.v = xrealloc(p->changes.v, p->changes.cap * sizeof(*p->changes.v));
	}
	c = &p->changes.v[p->changes.n++];
	memset(c, 0, sizeof(*c));
	c->location = xstrdup(loc);
	c->method = "stat";
	c->cls = cls;
	c->rel_change = rel;
	c->ci_low = c->ci_high = NAN;
	c->confidence = 0.001;
	c->confidence_kind = "p-value";
	c->baseline = 100;
	c->target = 100 * (1 + rel);
	c->n_baseline = c->n_target = 10;
	c->note = note;
}

static struct check_pair *add_pair(struct check_report *r, const char *config, const char *full,
				   const char *key)
{
	struct check_pair *p = check_report_add(r);

	p->baseline_name = xstrdup("base.perf");
	p->target_name = xstrdup("target.perf");
	p->config = xstrdup(config);
	p->config_full = xstrdup(full);
	p->config_key = xstrdup(key);
	return p;
}

/* One pair: a severe degradation, a maybe degradation, an optimization
 * and an unjudged result. */
static void make_report(struct check_report *r)
{
	struct check_pair *p;

	memset(r, 0, sizeof(*r));
	r->fail_from = CH_DEGRADATION;
	p = add_pair(r, "./app (time)", "./app (time) + normalizer{}", "k1");
	add_change(p, "main", CH_SEVERE_DEGRADATION, 0.5, NULL);
	add_change(p, "parse", CH_MAYBE_DEGRADATION, 0.03, NULL);
	add_change(p, "draw", CH_OPTIMIZATION, -0.2, NULL);
	add_change(p, "idle", CH_UNKNOWN, NAN, "too few values");
	check_report_unmatched(r, "lone.perf", "./other (time)", "abc");
}

static void test_fail_levels(void **state)
{
	struct check_report r;
	struct check_counts n;
	enum change_class from;

	UNUSED(state);
	make_report(&r);
	assert_int_equal(check_report_failing(&r), 1);
	r.fail_from = CH_MAYBE_DEGRADATION;
	assert_int_equal(check_report_failing(&r), 2);
	r.fail_from = CH_SEVERE_DEGRADATION;
	assert_int_equal(check_report_failing(&r), 1);
	assert_true(check_fails(&r, CH_TOTAL_DEGRADATION));
	assert_false(check_fails(&r, CH_DEGRADATION));
	assert_false(check_fails(&r, CH_OPTIMIZATION));
	check_report_counts(&r, &n);
	assert_int_equal(n.degradations, 1);
	assert_int_equal(n.maybe, 1);
	assert_int_equal(n.optimizations, 1);
	assert_int_equal(n.other, 1);
	assert_int_equal(n.failing, 1);
	assert_int_equal(check_parse_fail_on("maybe", &from), 0);
	assert_int_equal(from, CH_MAYBE_DEGRADATION);
	assert_string_equal(check_fail_on_name(from), "maybe");
	assert_true(check_parse_fail_on("never", &from) < 0);
	check_report_free(&r);
}

static void test_summary(void **state)
{
	struct check_report r;
	struct buf b = BUF_INIT;
	const char *note;

	UNUSED(state);
	make_report(&r);
	check_summary(&b, &r);
	assert_string_equal(buf_str(&b),
			    "1 degradation, 1 maybe degradation, 1 optimization, 1 other result; "
			    "1 profile had no baseline; 1 fails the check (--fail-on degradation)");
	assert_int_equal(check_report_unjudged(&r, &note), 1);
	assert_string_equal(note, "too few values");
	check_report_free(&r);
	buf_release(&b);
}

static void test_disjoint_and_titles(void **state)
{
	struct check_report r = {0};
	struct check_pair *p;
	struct buf b = BUF_INIT;
	const char **t;

	UNUSED(state);
	p = add_pair(&r, "./app (time) + filter", "./app (time) + filter{a: 1}", "k1");
	add_change(p, "old", CH_NOT_IN_TARGET, NAN, NULL);
	add_change(p, "new", CH_NOT_IN_BASELINE, NAN, NULL);
	assert_true(check_pair_disjoint(p, &b));
	assert_string_equal(buf_str(&b), "base.perf and target.perf share no location: the "
					 "baseline has old, the target new");
	p = add_pair(&r, "./app (time) + filter", "./app (time) + filter{a: 2}", "k2");
	add_change(p, "old", CH_NO_CHANGE, 0, NULL);
	assert_false(check_pair_disjoint(p, &b));
	/* Two configurations that read alike are both named in full. */
	t = check_pair_titles(&r);
	assert_string_equal(t[0], "./app (time) + filter{a: 1}");
	assert_string_equal(t[1], "./app (time) + filter{a: 2}");
	free((void *)t);
	check_report_free(&r);
	buf_release(&b);
}

static void test_render(void **state)
{
	struct check_report r;
	struct buf b = BUF_INIT;
	enum check_format f;

	UNUSED(state);
	make_report(&r);
	check_render(&b, &r, CHECK_TEXT, false);
	assert_non_null(strstr(buf_str(&b), "./app (time)\n  base.perf -> target.perf\n"));
	assert_non_null(strstr(buf_str(&b), "SevereDegradation  +50.0%"));
	buf_reset(&b);
	check_render(&b, &r, CHECK_JSON, false);
	assert_non_null(strstr(buf_str(&b), "\"failing\":1,\"fail_on\":\"degradation\""));
	buf_reset(&b);
	check_render(&b, &r, CHECK_JUNIT, false);
	assert_non_null(strstr(buf_str(&b), "tests=\"5\" failures=\"1\" skipped=\"2\""));
	buf_reset(&b);
	r.max_chars = CHECK_MARKDOWN_MAX;
	check_render(&b, &r, CHECK_MARKDOWN, false);
	assert_true(strncmp(buf_str(&b), "**1 degradation", 15) == 0);
	assert_int_equal(check_parse_format("junit", &f), 0);
	assert_int_equal(f, CHECK_JUNIT);
	assert_true(check_parse_format("xml", &f) < 0);
	check_report_free(&r);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_levels),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_disjoint_and_titles),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
