/* analyze/history and analyze/profile_config: the series of a metric across
 * versions, their change points and JSON, and the names of a configuration. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include <cmocka.h>

#include "analyze/history.h"
#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* A time profile of ./prog with @n values of @base (+- a little) in
 * [real], and the postprocessors record @pp (JSON, or NULL). */
static struct profile *timed(double base, size_t n, const char *pp)
{
	struct buf j = BUF_INIT;
	struct profile *p;

	buf_adds(&j, "{\"header\":{\"type\":\"time\",\"cmd\":\"./prog\",\"args\":\"100\","
		     "\"workload\":\"100\",\"units\":{\"time\":\"s\"}},"
		     "\"collector_info\":{\"name\":\"time\",\"params\":{\"repeat\":5}},");
	if (pp)
		buf_addf(&j, "\"postprocessors\":%s,", pp);
	buf_adds(&j, "\"global\":{\"resources\":[");
	for (size_t i = 0; i < n; i++)
		buf_addf(&j,
			 "%s{\"uid\":\"./prog\",\"type\":\"time\",\"subtype\":\"real\","
			 "\"amount\":%.9f}",
			 i ? "," : "", base * (1 + 0.001 * (double)(i % 3)));
	buf_adds(&j, "]}}");
	assert_int_equal(profile_load_mem(j.data, j.len, "t.perf", &p), 0);
	buf_release(&j);
	return p;
}

#define NORM_A "[{\"name\":\"normalizer\",\"params\":{\"of_key\":\"amount\"}}]"
#define NORM_B "[{\"name\":\"normalizer\",\"params\":{\"of_key\":\"order\",\"flag\":true}}]"

static void test_titles(void **state)
{
	struct profile *a = timed(1, 3, NORM_A), *none = timed(1, 3, "[]");
	char *t, *k1, *k2;
	char **names;
	size_t n;

	UNUSED(state);
	t = profile_config_title(a);
	assert_string_equal(t, "./prog 100 · time + normalizer");
	free(t);
	t = profile_config_title_full(a);
	assert_string_equal(t, "./prog 100 · time + normalizer(of_key=amount)");
	free(t);
	t = profile_config_title(none);
	assert_string_equal(t, "./prog 100 · time");
	free(t);
	names = profile_config_postprocessors(a, &n);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "normalizer");
	assert_null(names[1]);
	free(names[0]);
	free(names);
	/* Parameters pair profiles, though the brief titles agree. */
	profile_free(none);
	none = timed(1, 3, NORM_B);
	k1 = profile_config_key(a);
	k2 = profile_config_key(none);
	assert_string_not_equal(k1, k2);
	t = profile_config_title_full(none);
	assert_string_equal(t, "./prog 100 · time + normalizer(of_key=order, flag=true)");
	free(t);
	free(k1);
	free(k2);
	profile_free(a);
	profile_free(none);
}

static void test_series_and_change_point(void **state)
{
	struct history h = {0};
	struct buf json = BUF_INIT;
	char err[128];
	yajl_val v;

	UNUSED(state);
	for (size_t i = 0; i < 10; i++) {
		char id[41];
		struct profile *p = timed(i < 6 ? 0.010 : 0.015, 9, NORM_A);

		snprintf(id, sizeof(id), "%040zx", i + 1);
		assert_int_equal(history_add_version(&h, id, NULL, (int64_t)i, "msg <b>"), i);
		assert_int_equal(history_add_profile(&h, i, p, "[real]", NULL, NULL), 0);
		/* Another configuration, in the first versions only. */
		if (i < 3) {
			struct profile *q = timed(1.0, 4, NORM_B);

			assert_int_equal(history_add_profile(&h, i, q, "", NULL, NULL), 0);
			profile_free(q);
		}
		profile_free(p);
	}
	/* The newest profile of a configuration in a version replaces one. */
	{
		struct profile *p = timed(0.015, 9, NORM_A);

		assert_int_equal(history_add_profile(&h, 9, p, "[real]", NULL, NULL), 0);
		profile_free(p);
	}
	history_finish(&h);
	assert_int_equal(h.ns, 2);
	assert_string_equal(h.s[0].title, "./prog 100 · time + normalizer");
	assert_string_equal(h.s[0].location, "./prog [real]");
	assert_string_equal(h.s[0].unit, "s");
	assert_int_equal(h.s[0].n, 10);
	assert_int_equal(h.s[1].n, 3);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(h.s[0].pts[i].change, i == 6);
	assert_true(fabs(h.s[0].pts[6].shift - 0.5) < 0.01);
	assert_true(isnan(h.s[0].pts[5].shift));

	history_series_json(&h, &json);
	v = yajl_tree_parse(json.data, err, sizeof(err));
	assert_non_null(v);
	assert_true(YAJL_IS_ARRAY(v) && v->u.array.len == 2);
	{
		const char *cfg[] = {"config_full", NULL}, *pts[] = {"points", NULL};
		yajl_val s0 = v->u.array.values[0];

		assert_string_equal(YAJL_GET_STRING(yajl_tree_get(s0, cfg, yajl_t_string)),
				    "./prog 100 · time + normalizer(of_key=amount)");
		assert_int_equal(yajl_tree_get(s0, pts, yajl_t_array)->u.array.len, 10);
	}
	yajl_tree_free(v);
	buf_reset(&json);
	history_versions_json(&h, &json);
	v = yajl_tree_parse(json.data, err, sizeof(err));
	assert_non_null(v);
	assert_int_equal(v->u.array.len, 10);
	yajl_tree_free(v);
	buf_release(&json);
	history_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_titles),
		cmocka_unit_test(test_series_and_change_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
