/*
 * view/views.h: the table of views (names, what applies, options by name)
 * and the views that moved out of the CLI, rendered into a buffer: the
 * memory report's rankings, the summary, the table, the heapmap's text.
 */
#include "profile_testlib.h"
#include "util/error.h"
#include "view/views.h"

/* Sites a (64 B, freed), b (2 x 16 B, leaked) and c (2 x 8 B, freed);
 * by calls b and c tie (2 each) and their uids order them. */
static const char memory_json[] =
	"{\"resources\":{"
	"\"a#0\":{\"amount\":[64],\"address\":[4096],\"order\":[0],\"pid\":[7],\"thread\":[1]},"
	"\"b#0\":{\"amount\":[16,16],\"address\":[8192,8208],\"order\":[1,2],\"pid\":[7,7],"
	"\"thread\":[1,1]},"
	"\"c#0\":{\"amount\":[8,8],\"address\":[12288,12296],\"order\":[3,4],\"pid\":[7,7],"
	"\"thread\":[1,1]},"
	"\"f#0\":{\"amount\":[0,0,0],\"address\":[4096,12288,12296],\"order\":[5,6,7],"
	"\"pid\":[7,7,7],\"thread\":[1,1,1]}},"
	"\"header\":{\"type\":\"memory\",\"cmd\":\"x\",\"units\":{\"memory\":\"B\"}},"
	"\"resource_type_map\":{"
	"\"a#0\":{\"subtype\":\"malloc\",\"uid\":\"a\",\"type\":\"memory\",\"snapshot\":0},"
	"\"b#0\":{\"subtype\":\"malloc\",\"uid\":\"b\",\"type\":\"memory\",\"snapshot\":0},"
	"\"c#0\":{\"subtype\":\"malloc\",\"uid\":\"c\",\"type\":\"memory\",\"snapshot\":1},"
	"\"f#0\":{\"subtype\":\"free\",\"uid\":\"f\",\"type\":\"memory\",\"snapshot\":1}}}";

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The uids of JSON array @key of @json, in order, as "b,c,a". */
static void uids_of(const char *json, const char *key, struct buf *out)
{
	const char *s = strstr(json, key), *end;

	assert_non_null(s);
	end = strchr(s, ']');
	buf_reset(out);
	while ((s = strstr(s, "\"uid\":\"")) && s < end) {
		s += 7;
		buf_addf(out, "%s%.*s", out->len ? "," : "", (int)strcspn(s, "\""), s);
	}
}

static void test_memory_rankings(void **state)
{
	struct profile *p = load_str(memory_json);
	struct buf out = BUF_INIT, u = BUF_INIT;

	UNUSED(state);
	assert_int_equal(view_memory(p, "m.perf", 0, true, &out), 0);
	assert_non_null(strstr(buf_str(&out), "\"allocations\":5,"));
	assert_non_null(strstr(buf_str(&out), "\"peak\":112,"));
	assert_non_null(strstr(buf_str(&out), "\"leaked\":32,\"leaked_blocks\":2,"));
	uids_of(buf_str(&out), "\"by_count\":", &u);
	assert_string_equal(buf_str(&u), "b,c,a");
	uids_of(buf_str(&out), "\"by_bytes\":", &u);
	assert_string_equal(buf_str(&u), "a,b,c");
	uids_of(buf_str(&out), "\"leaks\":", &u);
	assert_string_equal(buf_str(&u), "b");
	/* A limit of 1: the first of each ranking alone. */
	buf_reset(&out);
	assert_int_equal(view_memory(p, "m.perf", 1, true, &out), 0);
	uids_of(buf_str(&out), "\"by_count\":", &u);
	assert_string_equal(buf_str(&u), "b");
	buf_reset(&out);
	assert_int_equal(view_memory(p, "m.perf", 0, false, &out), 0);
	assert_non_null(strstr(buf_str(&out), "Profile:               m.perf\n"));
	assert_non_null(strstr(buf_str(&out), "Temporary allocations: "));
	assert_non_null(strstr(buf_str(&out), "\nLeaks (never freed), by stack, largest first:\n"));
	buf_release(&out);
	buf_release(&u);
	profile_free(p);
}

static void test_wrong_type(void **state)
{
	struct profile *p = load_data("time.perf");
	struct buf out = BUF_INIT;

	UNUSED(state);
	assert_int_equal(view_memory(p, "t", 0, false, &out), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "needs a memory profile, not time"));
	assert_int_equal(out.len, 0);
	assert_int_equal(view_heapmap_text(p, -1, 0, 80, &out), ERR_INVALID);
	assert_false(view_find("memory")->applies_to(p));
	assert_false(view_find("heapmap")->applies_to(p));
	assert_false(view_find("bounds")->applies_to(p));
	assert_true(view_find("scatter")->applies_to(p));
	buf_release(&out);
	profile_free(p);
}

static void test_heapmap_text(void **state)
{
	struct profile *p = load_str(memory_json);
	struct buf out = BUF_INIT;

	UNUSED(state);
	assert_true(view_find("heapmap")->applies_to(p));
	assert_int_equal(view_heapmap_text(p, 9, 0, 80, &out), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "no snapshot 9 (the events are in 0..1)"));
	assert_int_equal(view_heapmap_text(p, 0, 2, 60, &out), 0);
	assert_non_null(strstr(buf_str(&out), "heapmap of pid 7, snapshot 0 (of 0..1)"));
	assert_non_null(strstr(buf_str(&out), "\ncells: ' ' empty"));
	buf_release(&out);
	profile_free(p);
}

static void test_summary_and_table(void **state)
{
	struct profile *p = load_data("time.perf");
	struct buf out = BUF_INIT;

	UNUSED(state);
	view_summary(p, "t.perf", false, false, 0, &out);
	assert_true(starts(buf_str(&out), "Profile:        t.perf\nType:           time\n"));
	assert_non_null(strstr(buf_str(&out), "\nuid "));
	buf_reset(&out);
	view_summary(p, "t.perf", false, true, 0, &out);
	assert_true(starts(buf_str(&out), "{\"name\":\"t.perf\",\"type\":\"time\""));
	buf_reset(&out);
	view_resource_table(p, 2, false, &out); /* a heading and two rows */
	assert_int_equal(strchr(strchr(strchr(buf_str(&out), '\n') + 1, '\n') + 1, '\n') -
				 buf_str(&out) + 1,
			 (long)out.len);
	buf_release(&out);
	profile_free(p);
}

static void test_table_of_views(void **state)
{
	size_t n;
	const struct view_def *v = view_defs(&n);
	struct buf b = BUF_INIT;

	UNUSED(state);
	assert_int_equal(n, 12);
	assert_string_equal(v[0].name, "summary");
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(view_find(v[i].name), &v[i]);
	assert_null(view_find("pie"));
	view_names(&b);
	assert_true(starts(buf_str(&b), "summary, table, raw,"));
	assert_non_null(strstr(buf_str(&b), ", histogram or bounds"));
	buf_reset(&b);
	view_help(&b);
	assert_non_null(strstr(buf_str(&b), "  tableof resources|models\n            the "));
	assert_non_null(strstr(buf_str(&b), "  histogram an aggregate"));
	assert_true(view_find("flamegraph")->flags & VIEW_PICTURE);
	assert_false(view_find("summary")->flags & VIEW_PICTURE);
	buf_release(&b);
}

static void test_args_by_name(void **state)
{
	struct view_args a;

	UNUSED(state);
	view_args_init(&a, view_find("flow"));
	assert_true(a.vo.accumulate);
	assert_int_equal(a.snapshot, -1);
	assert_int_equal(view_args_set(&a, "filter-by", "uid=main"), 0);
	assert_string_equal(a.vo.filters[0].key, "uid");
	assert_string_equal(a.vo.filters[0].value, "main");
	assert_int_equal(view_args_set(&a, "aggregation", "mean"), 0);
	assert_int_equal(a.vo.agg, AGG_MEAN);
	assert_int_equal(a.given, VIEW_GIVEN_AGG);
	assert_int_equal(view_args_set(&a, "stacked", "true"), 0);
	assert_true(a.vo.stacked);
	assert_int_equal(view_args_set(&a, "limit", "3"), 0);
	assert_int_equal(a.limit, 3);
	assert_int_equal(view_args_set(&a, "subject", "models"), 0);
	assert_int_equal(a.vo.kind, VIEW_TABLE_MODELS);
	assert_int_equal(view_args_set(&a, "format", "csv"), 0);
	assert_int_equal(a.vo.tfmt, TFMT_CSV);
	assert_int_equal(view_args_set(&a, "aggregation", "average"), ERR_INVALID);
	assert_int_equal(view_args_set(&a, "limit", "-1"), ERR_INVALID);
	assert_int_equal(view_args_set(&a, "filter-by", "uid"), ERR_INVALID);
	assert_int_equal(view_args_set(&a, "colour", "red"), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "unknown view option 'colour'"));
}

/* A memory profile's flow is the seed's unless an option says otherwise. */
static void test_memory_flow(void **state)
{
	struct profile *p = load_str(memory_json);
	const struct view_def *flow = view_find("flow");
	struct view_args a;
	struct buf seed = BUF_INIT, own = BUF_INIT;

	UNUSED(state);
	view_args_init(&a, flow);
	assert_int_equal(flow->render(p, &a, TARGET_SVG, &seed), 0);
	assert_int_equal(view_args_set(&a, "accumulate", "true"), 0);
	assert_int_equal(flow->render(p, &a, TARGET_SVG, &own), 0);
	assert_true(seed.len != own.len || memcmp(seed.data, own.data, seed.len) != 0);
	buf_release(&seed);
	buf_release(&own);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_rankings), cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_heapmap_text),	cmocka_unit_test(test_summary_and_table),
		cmocka_unit_test(test_table_of_views),	cmocka_unit_test(test_args_by_name),
		cmocka_unit_test(test_memory_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
