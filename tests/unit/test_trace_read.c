/* The trace reader: records into calls (nesting, exclusive time, long
 * deltas, returns without entries, longjmp), .meta files, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/trace-format.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "testutil.h"

/* A thread's file: the header, then the words given. */
static size_t make_file(uint8_t *out, const uint32_t *w, size_t n)
{
	struct vtr_header h = {VTR_MAGIC, VTR_VERSION, 42, 43, 1000};

	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), w, n * sizeof(*w));
	return sizeof(h) + n * sizeof(*w);
}

#define DEF(addr) VTR_DEFINE, 0, (uint32_t)(addr), 0
/* One-word records: function @f entered or returned from @d cycles later. */
#define IN(f, d) (VTR_SHORT | (f) << VTR_SHORT_SHIFT | (d))
#define OUT(f, d) (VTR_SHORT | VTR_SHORT_EXIT | (f) << VTR_SHORT_SHIFT | (d))

static void read_words(const uint32_t *w, size_t n, struct trace_data *d, int want)
{
	uint8_t file[4096];
	size_t len = make_file(file, w, n);

	assert_int_equal(trace_read_records(file, len, "t.vtr", d), want);
}

static void test_nested(void **state)
{
	/* f0 { f1 {} }: f1 takes 20 cycles, f0 32 of which 12 are its own. */
	const uint32_t w[] = {DEF(0x1000), IN(0, 10), DEF(0x2000), IN(1, 5), OUT(1, 20), OUT(0, 7)};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 2);
	assert_int_equal(d.calls[0].addr, 0x2000);
	assert_int_equal(d.calls[0].incl, 20);
	assert_int_equal(d.calls[0].excl, 20);
	assert_int_equal(d.calls[0].order, 1);
	assert_int_equal(d.calls[0].depth, 1);
	assert_int_equal(d.calls[1].addr, 0x1000);
	assert_int_equal(d.calls[1].incl, 32);
	assert_int_equal(d.calls[1].excl, 12);
	assert_int_equal(d.calls[1].order, 0);
	assert_int_equal(d.calls[1].pid, 42);
	assert_int_equal(d.calls[1].tid, 43);
	trace_data_free(&d);
}

static void test_sizes(void **state)
{
	/* --size: a size record gives the next entry its size, a negative one
	 * too; an entry without one has none. */
	const uint32_t w[] = {DEF(0x1000), VTR_SIZE,  0,	 37,	   0,
			      IN(0, 1),	   OUT(0, 2), VTR_SIZE,	 0,	   (uint32_t)-5,
			      0xffffffffu, IN(0, 1),  OUT(0, 2), IN(0, 1), OUT(0, 2)};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 3);
	assert_true(d.calls[0].has_size);
	assert_int_equal(d.calls[0].size, 37);
	assert_true(d.calls[1].has_size);
	assert_int_equal(d.calls[1].size, -5);
	assert_false(d.calls[2].has_size);
	trace_data_free(&d);
}

static void test_long_delta(void **state)
{
	/* Two-word records: a delta past 32 bits, and one past a short's 20. */
	const uint32_t w[] = {DEF(0x1000), 0, 1,	VTR_HIGH, 2,
			      VTR_EXIT,	   3, IN(0, 1), VTR_EXIT, 0x100000};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 2);
	assert_int_equal(d.calls[0].incl, (2ull << 32) + 3);
	assert_int_equal(d.calls[1].incl, 0x100000);
	trace_data_free(&d);
}

static void test_unmatched(void **state)
{
	/* A return from before the records began (a fork) is not timed; a
	 * longjmp out of f1 back into f0 drops f1's open call. */
	const uint32_t w[] = {DEF(0x1000), OUT(0, 4), DEF(0x2000), IN(0, 1), IN(1, 2), OUT(0, 3)};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.calls[0].addr, 0x1000);
	assert_int_equal(d.calls[0].incl, 5);
	assert_int_equal(d.calls[0].excl, 5);
	assert_int_equal(d.calls[0].depth, 0);
	trace_data_free(&d);
}

static void test_cut_short(void **state)
{
	/* A define whose address record is missing: the file ends there. */
	const uint32_t w[] = {DEF(0x1000), IN(0, 1), OUT(0, 1), VTR_DEFINE, 0};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 1);
	trace_data_free(&d);
}

static void test_bad_records(void **state)
{
	const uint32_t undefined[] = {IN(0, 1)};
	struct trace_data d = {0};
	uint8_t file[64] = {0};

	UNUSED(state);
	read_words(undefined, ARRAY_SIZE(undefined), &d, ERR_PARSE);
	assert_int_equal(trace_read_records(file, 8, "t.vtr", &d), ERR_PARSE);
	assert_int_equal(trace_read_records(file, sizeof(file), "t.vtr", &d), ERR_PARSE);
	trace_data_free(&d);
}

static void test_meta(void **state)
{
	struct trace_proc p = {0};
	const char *text = "veles-trace 1\npid 7\nmode records\n"
			   "clock 1000 10.000000000 3001000 11.000000000\nlost 12\n"
			   "object 0x5000 0x6000 0x7000 /bin/prog with space\n";

	UNUSED(state);
	assert_int_equal(trace_read_meta(text, "m", &p), 0);
	assert_int_equal(p.pid, 7);
	assert_int_equal(p.lost, 12);
	assert_true(p.ns_per_tick > 333.33 && p.ns_per_tick < 333.34);
	assert_int_equal(p.nobjs, 1);
	assert_int_equal(p.objs[0].bias, 0x5000);
	assert_int_equal(p.objs[0].hi, 0x7000);
	assert_string_equal(p.objs[0].path, "/bin/prog with space");
	free(p.objs[0].path);
	free(p.objs);
	memset(&p, 0, sizeof(p));
	assert_int_equal(trace_read_meta("pid 7\n", "m", &p), ERR_PARSE);
	assert_int_equal(trace_read_meta("clock 5 2.0 5 3.0\n", "m", &p), ERR_PARSE);
	assert_int_equal(trace_read_meta("object zz\n", "m", &p), ERR_PARSE);
	free(p.objs);
}

/* --aggregate's sums: min, max and the K:N buckets, which must count the
 * calls; a function not called leaves nothing. */
static void test_aggregate(void **state)
{
	struct trace_data d = {0};
	const char *text = "0x1000 5 500 300 40 260 21:2 24:1 33:2\n"
			   "0x2000 0 0 0 18446744073709551615 0\n"
			   "0x3000 1 7 7 7 7 7:1\n";

	UNUSED(state);
	assert_int_equal(trace_read_aggregate(text, "a", 3, 4, &d), 0);
	assert_int_equal(d.ncalls, 2);
	assert_true(d.aggregate);
	assert_int_equal(d.calls[0].order, 5);
	assert_int_equal(d.calls[0].tid, 4);
	assert_int_equal(d.aggs[0].min, 40);
	assert_int_equal(d.aggs[0].max, 260);
	assert_int_equal(d.aggs[0].nhist, 3);
	assert_int_equal(d.hist[d.aggs[0].hist_at + 2].k, 33);
	assert_int_equal(d.hist[d.aggs[0].hist_at + 2].n, 2);
	assert_int_equal(d.calls[1].addr, 0x3000);
	assert_int_equal(d.aggs[1].nhist, 1);
	assert_int_equal(d.hist[d.aggs[1].hist_at].k, 7);
	/* Buckets that miss a call, out of order, past the last, or a line cut. */
	assert_int_equal(trace_read_aggregate("0x1 3 9 9 1 5 4:2\n", "a", 3, 4, &d), ERR_PARSE);
	assert_int_equal(trace_read_aggregate("0x1 2 9 9 1 5 9:1 4:1\n", "a", 3, 4, &d), ERR_PARSE);
	assert_int_equal(trace_read_aggregate("0x1 1 9 9 1 5 252:1\n", "a", 3, 4, &d), ERR_PARSE);
	assert_int_equal(trace_read_aggregate("0x1 1 9 9\n0x2 1 9 9 1 5 4:1\n", "a", 3, 4, &d),
			 ERR_PARSE);
	assert_int_equal(d.ncalls, 2);
	trace_data_free(&d);
}

/* -f names a C++ function mangled, demangled, or without its parameters. */
static void test_name_matches(void **state)
{
	const char *m = "_ZNK3geo4Poly4areaEi", *d = "geo::Poly::area(int) const";

	UNUSED(state);
	assert_true(trace_name_matches("main", "main", NULL));
	assert_false(trace_name_matches("mai", "main", NULL));
	assert_true(trace_name_matches(m, m, d));
	assert_true(trace_name_matches(d, m, d));
	assert_true(trace_name_matches("geo::Poly::area", m, d));
	assert_false(trace_name_matches("geo::Poly::are", m, d));
	assert_false(trace_name_matches("geo::Poly::area()", m, d));
	assert_false(trace_name_matches("geo::Poly", m, d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested),	   cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_long_delta), cmocka_unit_test(test_unmatched),
		cmocka_unit_test(test_cut_short),  cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_meta),	   cmocka_unit_test(test_name_matches),
		cmocka_unit_test(test_aggregate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
