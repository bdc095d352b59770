/*
 * collect regex's parts: units, measurements into one unit, the line
 * scanner and each harness format on captured output (tests/data/regex/).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/meas.h"
#include "collect/regex/formats.h"
#include "collect/regex/scan.h"
#include "collect/units.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static char *data_path(const char *name)
{
	const char *src = getenv("VELES_SRCDIR");

	return xasprintf("%s/tests/data/regex/%s", src ? src : ".", name);
}

static void read_data(const char *name, struct buf *b)
{
	char *path = data_path(name);

	if (file_read_all(path, b) < 0)
		fail_msg("%s", err_msg());
	free(path);
}

/* The amounts, in profile order, of resources with this uid and subtype. */
static size_t amounts(const struct profile *p, const char *uid, const char *subtype, double *out,
		      size_t max)
{
	struct buf scratch = BUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < profile_nres(p) && n < max; i++) {
		const char *sub = profile_subtype(p, i);

		if (strcmp(profile_uid(p, i, &scratch), uid) == 0 &&
		    (subtype ? sub && strcmp(sub, subtype) == 0 : !sub))
			out[n++] = profile_amount(p, i);
	}
	buf_release(&scratch);
	return n;
}

/* A numeric field of the first resource with @uid (NaN when none). */
static double field(const struct profile *p, const char *uid, const char *name)
{
	struct buf scratch = BUF_INIT;
	double v = NAN;

	for (size_t i = 0; i < profile_nres(p) && isnan(v); i++) {
		size_t at;
		const struct column *c;

		if (strcmp(profile_uid(p, i, &scratch), uid) != 0)
			continue;
		c = profile_attr(p, i, name, NULL, &at);
		if (c)
			v = col_num(c, at);
	}
	buf_release(&scratch);
	return v;
}

#define assert_close(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)))

/* ---- units and measurements ---- */

static void test_units(void **state)
{
	struct unit u;

	UNUSED(state);
	unit_parse("ms", 2, &u);
	assert_int_equal(u.dim, UNIT_TIME);
	assert_close(u.scale, 1e-3);
	unit_parse(" \xc2\xb5s ", 5, &u);
	assert_int_equal(u.dim, UNIT_TIME);
	assert_string_equal(u.name, "us");
	unit_parse("KiB", 3, &u);
	assert_int_equal(u.dim, UNIT_MEMORY);
	assert_close(u.scale, 1024);
	unit_parse("kB", 2, &u);
	assert_close(u.scale, 1000);
	unit_parse("items/s", 7, &u);
	assert_int_equal(u.dim, UNIT_OTHER);
	unit_parse("", 0, &u);
	assert_int_equal(u.dim, UNIT_NONE);
}

static int add(struct meas *m, const char *uid, double amount, const char *unit)
{
	struct meas_rec r = {.uid = uid,
			     .uid_len = strlen(uid),
			     .amount = amount,
			     .unit = unit,
			     .unit_len = unit ? strlen(unit) : 0};

	return meas_add(m, &r);
}

static void test_meas_one_unit(void **state)
{
	struct meas *m = meas_new(NULL);
	struct profile *p;
	double v[4];

	UNUSED(state);
	/* The first time decides: seconds, whatever unit each line used. */
	assert_int_equal(add(m, "a", 12.5, "ms"), 0);
	assert_int_equal(add(m, "a", 500, "us"), 0);
	assert_int_equal(add(m, "a", 2, "s"), 0);
	assert_int_equal(add(m, "a", 7, "MB"), ERR_INVALID);
	assert_string_equal(err_msg(), "unit 'MB' does not convert to s");
	assert_string_equal(meas_unit(m), "s");
	p = meas_take(m);
	assert_string_equal(p->type, "time");
	assert_string_equal(profile_units(p, "time"), "s");
	assert_int_equal(amounts(p, "a", NULL, v, 4), 3);
	/* Divided once: 500 us is exactly the double nearest 0.0005. */
	assert_true(v[0] == 0.0125 && v[1] == 0.0005 && v[2] == 2);
	profile_free(p);
	meas_free(m);
}

static void test_meas_decimal_shift(void **state)
{
	struct meas *m = meas_new("s");
	struct meas_rec r = {.uid = "a",
			     .uid_len = 1,
			     .amount = 14.302,
			     .amount_text = "14.302",
			     .amount_len = 6,
			     .unit = "ms",
			     .unit_len = 2};
	struct profile *p;
	double v[2];

	UNUSED(state);
	/* 14.302 / 1000 is an ulp off 0.014302 in binary: the printed text is
	 * shifted and read once instead, as if 14.302e-3 had been written. */
	assert_true(14.302 / 1000 != 0.014302);
	assert_int_equal(meas_add(m, &r), 0);
	r.amount = 2.5e3;
	r.amount_text = "2.5e3";
	r.amount_len = 5;
	r.unit = "us";
	assert_int_equal(meas_add(m, &r), 0);
	p = meas_take(m);
	assert_int_equal(amounts(p, "a", NULL, v, 2), 2);
	assert_true(v[0] == 0.014302);
	assert_true(v[1] == 0.0025);
	profile_free(p);
	meas_free(m);
}

static void test_meas_given_unit(void **state)
{
	struct meas *m = meas_new("KiB");
	struct meas_field f[] = {{.name = "peak", .is_num = true, .num = 2048, .scaled = true},
				 {.name = "run", .text = "warm", .len = 4}};
	struct meas_rec r = {.uid = "x",
			     .uid_len = 1,
			     .subtype = "heap",
			     .subtype_len = 4,
			     .amount = 2,
			     .unit = "MiB",
			     .unit_len = 3,
			     .fields = f,
			     .nfields = 2};
	struct profile *p;
	double v[2];

	UNUSED(state);
	meas_set_order(m, 3);
	assert_int_equal(meas_add(m, &r), 0);
	/* No unit: the amount is in the profile's already. */
	assert_int_equal(add(m, "y", 5, NULL), 0);
	assert_int_equal(add(m, "y", 5, "ms"), ERR_INVALID);
	p = meas_take(m);
	assert_string_equal(p->type, "memory");
	assert_string_equal(profile_units(p, "memory"), "KiB");
	assert_int_equal(amounts(p, "x", "heap", v, 2), 1);
	assert_true(v[0] == 2048);
	assert_true(field(p, "x", "peak") == 2048 * 1024);
	assert_true(field(p, "x", "order") == 3);
	profile_free(p);
	meas_free(m);
}

static void test_meas_other_units(void **state)
{
	struct meas *m = meas_new(NULL);
	struct profile *p;

	UNUSED(state);
	/* A unit we do not know is kept as written, and must stay the same. */
	assert_int_equal(add(m, "tp", 120, "items/s"), 0);
	assert_int_equal(add(m, "tp", 125, "items/s"), 0);
	assert_int_equal(add(m, "tp", 1, "ops/s"), ERR_INVALID);
	assert_int_equal(add(m, "tp", NAN, "items/s"), ERR_INVALID);
	p = meas_take(m);
	assert_string_equal(p->type, "mixed");
	assert_string_equal(profile_units(p, "mixed"), "items/s");
	assert_int_equal(profile_nres(p), 2);
	profile_free(p);
	meas_free(m);
	/* No unit at all: no units in the header. */
	m = meas_new(NULL);
	assert_int_equal(add(m, "score", 3, NULL), 0);
	assert_int_equal(add(m, "score", 3, "ms"), ERR_INVALID);
	assert_string_equal(err_msg(), "unit 'ms' where the amounts have none");
	p = meas_take(m);
	assert_int_equal(p->nunits, 0);
	profile_free(p);
	meas_free(m);
}

/* ---- the scanner ---- */

static void feed_str(struct rx_scan *s, const char *text, struct meas *m)
{
	rx_scan_feed(s, 0, text, strlen(text), m);
}

static void test_scan_groups(void **state)
{
	struct rx_scan *s = rx_scan_new();
	struct meas *m = meas_new(NULL);
	const struct rx_counts *c;
	struct profile *p;
	double v[4];

	UNUSED(state);
	assert_int_equal(
		rx_scan_add_measure(s,
				    "(?<uid>\\w+)\\[(?<structure_unit_size>\\d+)\\]: "
				    "(?<amount>[\\d.]+) (?<unit>\\w+)(?: on (?<host>\\w+))?",
				    NULL, NULL),
		0);
	feed_str(s, "sort[100]: 1.5 ms on vm\nsort[200]: 3.5 ms\n", m);
	/* Every match of a line is a measurement. */
	feed_str(s, "a[1]: 1 s, b[2]: 2 s\n", m);
	feed_str(s, "\n   \nnothing here\nsort[x]: 1 ms\n", m);
	rx_scan_flush(s, m);
	c = rx_scan_counts(s);
	assert_int_equal(c->lines, 7);
	assert_int_equal(c->matched, 3);
	assert_int_equal(c->ignored, 2);
	assert_int_equal(c->unmatched, 2);
	assert_string_equal(c->first_unmatched, "nothing here");
	p = meas_take(m);
	assert_int_equal(amounts(p, "sort", NULL, v, 4), 2);
	assert_true(v[0] == 0.0015 && v[1] == 0.0035);
	assert_true(field(p, "sort", "structure-unit-size") == 100);
	assert_true(field(p, "b", "structure-unit-size") == 2);
	assert_int_equal(profile_nres(p), 4);
	profile_free(p);
	meas_free(m);
	rx_scan_free(s);
}

static void test_scan_chunks(void **state)
{
	const char *text = "x: 1 ms\r\ny: 22 ms\nz: 333 ms";
	struct rx_scan *s = rx_scan_new();
	struct meas *m = meas_new("ms");
	struct profile *p;
	double v[2];

	UNUSED(state);
	assert_int_equal(rx_scan_add_measure(s, "^(?<uid>\\w): (?<amount>\\d+) ms$", NULL, NULL),
			 0);
	/* A byte at a time: lines are cut where the newlines are, a CR before
	 * one is dropped, and the last line needs no newline. */
	for (const char *t = text; *t; t++)
		rx_scan_feed(s, 0, t, 1, m);
	assert_int_equal(rx_scan_counts(s)->lines, 2);
	rx_scan_flush(s, m);
	assert_int_equal(rx_scan_counts(s)->matched, 3);
	p = meas_take(m);
	assert_int_equal(amounts(p, "z", NULL, v, 2), 1);
	assert_true(v[0] == 333);
	profile_free(p);
	meas_free(m);
	rx_scan_free(s);
}

static void test_scan_ignore_reject(void **state)
{
	struct rx_scan *s = rx_scan_new();
	struct meas *m = meas_new(NULL);
	struct rx_counts total = {0};
	struct profile *p;

	UNUSED(state);
	rx_scan_set_default_uid(s, "./prog");
	assert_int_equal(rx_scan_add_ignore(s, "^#"), 0);
	assert_int_equal(rx_scan_add_measure(s, "took (?<amount>\\S+) (?<unit>\\S+)", NULL, NULL),
			 0);
	feed_str(s, "# took 1 s\ntook 2 s\ntook many s\ntook 3 parsecs\n", m);
	rx_scan_take_counts(s, &total);
	assert_int_equal(rx_scan_counts(s)->lines, 0);
	assert_int_equal(total.ignored, 1);
	assert_int_equal(total.matched, 1);
	assert_int_equal(total.rejected, 2);
	assert_string_equal(total.first_rejected, "took many s");
	assert_string_equal(total.reject_why, "amount 'many' is not a number");
	p = meas_take(m);
	/* No uid group: the scan's default names it. */
	assert_true(field(p, "./prog", "amount") == 2);
	profile_free(p);
	rx_counts_release(&total);
	meas_free(m);
	rx_scan_free(s);
}

static void test_scan_bad_patterns(void **state)
{
	struct rx_scan *s = rx_scan_new();

	UNUSED(state);
	assert_int_equal(rx_scan_add_measure(s, "(?<amount>\\d+", NULL, NULL), ERR_INVALID);
	assert_string_equal(
		err_msg(),
		"bad pattern '(?<amount>\\d+': missing closing parenthesis at offset 13");
	assert_int_equal(rx_scan_add_measure(s, "(?<uid>\\w+) (?<value>\\d+)", NULL, NULL),
			 ERR_INVALID);
	assert_string_equal(err_msg(), "pattern '(?<uid>\\w+) (?<value>\\d+)' has no "
				       "(?<amount>...) group");
	assert_int_equal(rx_scan_add_measure(s, "(?<order>\\d+) (?<amount>\\d+)", NULL, NULL),
			 ERR_INVALID);
	assert_non_null(strstr(err_msg(), "a group may not be named 'order'"));
	assert_int_equal(rx_scan_add_ignore(s, "[z-a]"), ERR_INVALID);
	rx_scan_free(s);
}

/* ---- the formats ---- */

/* Reads data file @name through @format; the profile and the counts. */
static struct profile *through(const char *format, const char *name, struct rx_counts *c)
{
	const struct rx_format *f = rx_format_find(format);
	struct meas *m = meas_new(f->unit);
	struct rx_scan *s = rx_scan_new();
	struct profile *p;
	struct buf b = BUF_INIT;
	char *path = data_path(name);

	read_data(name, &b);
	if (f->setup) {
		assert_int_equal(f->setup(s), 0);
		rx_scan_feed(s, 0, buf_str(&b), b.len, m);
		rx_scan_flush(s, m);
		rx_scan_take_counts(s, c);
	} else if (f->parse(buf_str(&b), b.len, path, m, c) < 0) {
		fail_msg("%s", err_msg());
	}
	p = meas_take(m);
	meas_free(m);
	rx_scan_free(s);
	buf_release(&b);
	free(path);
	return p;
}

static void test_gbench_console(void **state)
{
	struct rx_counts c = {0};
	struct profile *p = through("gbench", "gbench-console.txt", &c);
	double v[4];

	UNUSED(state);
	assert_int_equal(c.matched, 3);
	assert_int_equal(c.unmatched, 0);
	assert_string_equal(profile_units(p, "time"), "ns");
	assert_int_equal(amounts(p, "BM_memcpy/8", "real", v, 4), 1);
	/* "0.009 us" in the table: 9 ns. */
	assert_true(v[0] == 9);
	assert_int_equal(amounts(p, "BM_StringCreation", "cpu", v, 4), 1);
	assert_true(v[0] == 0.527);
	/* bytes_per_second=3.98288G/s */
	assert_true(field(p, "BM_memcpy/8", "bytes_per_second") == 3.98288e9);
	assert_true(field(p, "BM_memcpy/8", "widgets") == 3);
	assert_true(field(p, "BM_memcpy/8", "iterations") == 5921747);
	profile_free(p);
	rx_counts_release(&c);
	/* With repetitions: each repetition measured, the aggregates ignored. */
	p = through("gbench", "gbench-repetitions.txt", &c);
	assert_int_equal(amounts(p, "BM_memcpy/4096", "real", v, 4), 2);
	assert_int_equal(c.ignored, 3 + 3 * 4);
	assert_int_equal(c.unmatched, 0);
	profile_free(p);
	rx_counts_release(&c);
}

static void test_gbench_json(void **state)
{
	struct rx_counts c = {0};
	struct profile *p = through("gbench-json", "gbench.json", &c);
	double v[4];

	UNUSED(state);
	/* 3 benchmarks x 2 repetitions, and their 4 aggregates each. */
	assert_int_equal(c.matched, 6);
	assert_int_equal(c.ignored, 12);
	assert_int_equal(amounts(p, "BM_memcpy/4096", "cpu", v, 4), 2);
	/* time_unit "us": in ns. */
	assert_true(v[0] > 1 && v[0] < 1e4);
	assert_true(field(p, "BM_memcpy/8", "widgets") == 3);
	assert_true(field(p, "BM_memcpy/8", "bytes_per_second") > 1e8);
	assert_true(field(p, "BM_StringCreation", "threads") == 1);
	profile_free(p);
	rx_counts_release(&c);
}

static void test_hyperfine(void **state)
{
	struct rx_counts c = {0};
	struct profile *p = through("hyperfine", "hyperfine.json", &c);
	double v[4];

	UNUSED(state);
	assert_int_equal(c.matched, 2);
	assert_string_equal(profile_units(p, "time"), "s");
	assert_int_equal(amounts(p, "sleep 0.01", "real", v, 4), 3);
	assert_true(v[0] == 0.011129068);
	assert_int_equal(amounts(p, "true", "user", v, 4), 1);
	assert_true(field(p, "true", "exit-status") == 0);
	profile_free(p);
	rx_counts_release(&c);
	/* A parameter scan: the parameter is a field of every run. */
	p = through("hyperfine", "hyperfine-scan.json", &c);
	assert_true(field(p, "sleep 0.02", "n") == 2);
	profile_free(p);
	rx_counts_release(&c);
}

static void test_criterion(void **state)
{
	struct rx_counts c = {0};
	struct profile *p = through("criterion", "criterion/sort/std/new/estimates.json", &c);
	double v[2];

	UNUSED(state);
	/* The id from benchmark.json; the slope is the typical time. */
	assert_int_equal(amounts(p, "sort/std", NULL, v, 2), 1);
	assert_true(v[0] == 2049.77441);
	assert_true(field(p, "sort/std", "mean") == 2051.381502);
	profile_free(p);
	rx_counts_release(&c);
	/* Criterion 0.5: lowercase, no slope (flat sampling): the mean; no
	 * benchmark.json: the id from the path. */
	p = through("criterion", "criterion/parse_config/new/estimates.json", &c);
	assert_int_equal(amounts(p, "parse_config", NULL, v, 2), 1);
	assert_true(v[0] == 1217.5396124031007);
	assert_true(field(p, "parse_config", "median") == 1204.5);
	assert_int_equal(c.matched, 1);
	profile_free(p);
	rx_counts_release(&c);
}

static void test_go(void **state)
{
	struct rx_counts c = {0};
	struct profile *p = through("go", "go-bench.txt", &c);
	double v[4];

	UNUSED(state);
	assert_int_equal(c.matched, 8);
	/* goos, goarch, pkg, cpu, PASS, ok */
	assert_int_equal(c.ignored, 6);
	assert_int_equal(c.unmatched, 0);
	assert_int_equal(amounts(p, "BenchmarkRepeat/n=1000", NULL, v, 4), 2);
	assert_true(v[0] == 699.3 && v[1] == 473);
	assert_true(field(p, "BenchmarkRepeat/n=1000", "procs") == 2);
	assert_true(field(p, "BenchmarkRepeat/n=1000", "MB/s") == 1429.98);
	assert_true(field(p, "BenchmarkFields", "words/op") == 200);
	assert_true(field(p, "BenchmarkUpper", "allocs/op") == 1);
	profile_free(p);
	rx_counts_release(&c);
}

static void test_pytest(void **state)
{
	struct rx_counts c = {0};
	struct profile *p = through("pytest-benchmark", "pytest-benchmark.json", &c);
	double v[8];

	UNUSED(state);
	/* Every round kept in stats.data is a measurement. */
	assert_int_equal(amounts(p, "test_perf.py::test_fib_10", NULL, v, 8), 5);
	assert_true(v[0] > 0 && v[0] < 1);
	profile_free(p);
	rx_counts_release(&c);
	/* Without them: the mean, and the other statistics as fields. */
	p = through("pytest-benchmark", "pytest-benchmark-nodata.json", &c);
	assert_int_equal(amounts(p, "test_perf.py::test_sorted", NULL, v, 8), 1);
	assert_true(field(p, "test_perf.py::test_sorted", "rounds") == 5);
	assert_true(field(p, "test_perf.py::test_sorted", "min") <= v[0]);
	assert_int_equal(c.matched, 2);
	profile_free(p);
	rx_counts_release(&c);
}

static void test_plain(void **state)
{
	const struct rx_format *f = rx_format_find("plain");
	struct rx_scan *s = rx_scan_new();
	struct meas *m = meas_new(f->unit);
	struct profile *p;
	double v[2];

	UNUSED(state);
	assert_int_equal(f->setup(s), 0);
	feed_str(s, "load: 1.5 ms\nhttp://x: 250 us\ncount: 3\nnot a result\n", m);
	/* "count: 3" has no unit where the others are times: rejected. */
	assert_int_equal(rx_scan_counts(s)->matched, 2);
	assert_int_equal(rx_scan_counts(s)->rejected, 1);
	assert_int_equal(rx_scan_counts(s)->unmatched, 1);
	p = meas_take(m);
	assert_int_equal(amounts(p, "http://x", NULL, v, 2), 1);
	assert_true(v[0] == 0.00025);
	profile_free(p);
	meas_free(m);
	rx_scan_free(s);
}

static void test_scaled(void **state)
{
	double v;

	UNUSED(state);
	assert_true(rx_parse_scaled("4.15029G/s", 10, &v) && v == 4.15029e9);
	assert_true(rx_parse_scaled("1.5Ki", 5, &v) && v == 1536);
	assert_true(rx_parse_scaled("26.25%", 6, &v) && v == 26.25);
	assert_true(rx_parse_scaled("3", 1, &v) && v == 3);
	assert_false(rx_parse_scaled("fast", 4, &v));
	assert_false(rx_parse_scaled("G", 1, &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_meas_one_unit),
		cmocka_unit_test(test_meas_decimal_shift),
		cmocka_unit_test(test_meas_given_unit),
		cmocka_unit_test(test_meas_other_units),
		cmocka_unit_test(test_scan_groups),
		cmocka_unit_test(test_scan_chunks),
		cmocka_unit_test(test_scan_ignore_reject),
		cmocka_unit_test(test_scan_bad_patterns),
		cmocka_unit_test(test_gbench_console),
		cmocka_unit_test(test_gbench_json),
		cmocka_unit_test(test_hyperfine),
		cmocka_unit_test(test_criterion),
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_pytest),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_scaled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
