/*
 * libveles' views through its public header alone: which views apply to a
 * profile, and each rendered into memory as `veles show` prints it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api_testlib.h"
#include "veles.h"

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Lines of @s, each ended by '\n'. */
static size_t lines(const char *s)
{
	size_t n = 0;

	while ((s = strchr(s, '\n')) && *s++)
		n++;
	return n;
}

/* The names of veles_views(@p), as "summary,table,...". */
static void names(const veles_profile *p, char *out, size_t len)
{
	veles_table *t;
	long col;

	assert_int_equal(veles_views(p, &t), 0);
	col = veles_table_find(t, "name");
	assert_true(col >= 0);
	out[0] = '\0';
	for (size_t r = 0; r < veles_table_nrows(t); r++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", r ? "," : "",
			 veles_table_text(t, (size_t)col, r));
	veles_table_free(t);
}

static void test_list(void **state)
{
	veles_profile *mem = load_data("memory.perf"), *time = load_data("time.perf");
	char all[512], m[512], t[512];

	(void)state;
	names(NULL, all, sizeof(all));
	assert_string_equal(all, "summary,table,raw,memory,heapmap,tableof,bars,flow,scatter,"
				 "flamegraph,histogram,bounds");
	names(mem, m, sizeof(m));
	assert_non_null(strstr(m, "memory,heapmap"));
	assert_non_null(strstr(m, "flamegraph")); /* its allocations have stacks */
	names(time, t, sizeof(t));
	assert_string_equal(t, "summary,table,raw,tableof,bars,flow,scatter");
	veles_profile_free(mem);
	veles_profile_free(time);
}

static void test_render(void **state)
{
	veles_profile *p = load_data("time.perf");
	const char *json[] = {"format=json", NULL};
	const char *two[] = {"limit=2", NULL};
	const char *bars[] = {"per=uid", "aggregation=mean", "title=Means", NULL};
	char *out;
	size_t len;

	(void)state;
	assert_int_equal(veles_render_view(p, NULL, VELES_VIEW_TEXT, NULL, &out, &len), 0);
	assert_true(starts(out, "Profile:        time.perf\nType:           time\n"));
	assert_int_equal(strlen(out), len);
	veles_free(out);
	assert_int_equal(veles_render_view(p, "summary", VELES_VIEW_TEXT, json, &out, &len), 0);
	assert_true(starts(out, "{\"name\":\"time.perf\""));
	veles_free(out);
	assert_int_equal(veles_render_view(p, "table", VELES_VIEW_TEXT, two, &out, &len), 0);
	assert_int_equal(lines(out), 3); /* a heading and two rows */
	veles_free(out);
	assert_int_equal(veles_render_view(p, "bars", VELES_VIEW_SVG, bars, &out, &len), 0);
	assert_non_null(strstr(out, "<svg"));
	assert_non_null(strstr(out, "Means"));
	veles_free(out);
	assert_int_equal(veles_render_view(p, "bars", VELES_VIEW_HTML, bars, &out, &len), 0);
	assert_non_null(strstr(out, "<html"));
	veles_free(out);
	veles_profile_free(p);
}

static void test_errors(void **state)
{
	veles_profile *p = load_data("time.perf");
	const char *bad[] = {"aggregation=average", NULL};
	const char *unknown[] = {"colour=red", NULL};
	char *out = (char *)1;
	size_t len = 1;

	(void)state;
	assert_int_equal(veles_render_view(p, "pie", VELES_VIEW_TEXT, NULL, &out, &len),
			 VELES_ERR_NOTFOUND);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_non_null(strstr(veles_last_error(), "no view 'pie'"));
	assert_int_equal(veles_render_view(p, "memory", VELES_VIEW_TEXT, NULL, &out, &len),
			 VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "needs a memory profile"));
	assert_int_equal(veles_render_view(p, "bars", VELES_VIEW_TEXT, bad, &out, &len),
			 VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "unknown aggregation 'average'"));
	assert_int_equal(veles_render_view(p, "bars", VELES_VIEW_TEXT, unknown, &out, &len),
			 VELES_ERR_INVALID);
	assert_int_equal(veles_render_view(p, "summary", VELES_VIEW_SVG, NULL, &out, &len),
			 VELES_ERR_INVALID);
	assert_int_equal(veles_render_view(p, "bars", 7, NULL, &out, &len), VELES_ERR_INVALID);
	assert_null(out);
	veles_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
