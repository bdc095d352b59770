/* profile/hist: the histogram field's parser and the percentiles estimated
 * from it; values worked out by hand, and a sample whose exact percentiles
 * the estimate must come near. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "profile/hist.h"
#include "trace-format.h"

#define assert_near(a, b) near_check((a), (b), 1e-6, __FILE__, __LINE__)

static void near_check(double a, double b, double rel, const char *file, int line)
{
	if (!(fabs(a - b) <= rel * (1 + fabs(b))))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

static void test_parse(void **state)
{
	struct hist h = {0};

	assert_int_equal(hist_parse(" [ [0, 1.5, 3], [1.5,2,1e1] ] ", &h), 0);
	assert_int_equal(h.n, 2);
	assert_near(h.b[1].lo, 1.5);
	assert_near(h.b[1].n, 10);
	assert_near(hist_total(&h), 13);
	assert_int_equal(hist_parse("[]", &h), 0);
	assert_int_equal(h.n, 2);
	/* Another shape appends nothing. */
	static const char *const bad[] = {"",
					  "[",
					  "[[1,2]]",
					  "[[2,1,3]]",
					  "[[1,2,-1]]",
					  "[[1,2,3] [2,3,4]]",
					  "[[1,2,3]] x",
					  "{}",
					  "[[1,2,3],]"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_true(hist_parse(bad[i], &h) < 0);
		assert_int_equal(h.n, 2);
	}
	hist_release(&h);
}

static void test_percentiles(void **state)
{
	struct hist h = {0};

	assert_true(isnan(hist_percentile(&h, 0.5, NAN, NAN)));
	/* Spread evenly: 50 from 0 to 1, 50 from 1 to 2. */
	assert_int_equal(hist_parse("[[0,1,50],[1,2,50]]", &h), 0);
	assert_near(hist_percentile(&h, 0.5, NAN, NAN), 1);
	assert_near(hist_percentile(&h, 0.9, NAN, NAN), 1.8);
	assert_near(hist_percentile(&h, 0.25, NAN, NAN), 0.5);
	assert_near(hist_percentile(&h, 0, NAN, NAN), 0);
	assert_near(hist_percentile(&h, 1, NAN, NAN), 2);
	/* The least and greatest values narrow the end buckets. */
	assert_near(hist_percentile(&h, 0.25, 0.6, 1.4), 0.8);
	assert_near(hist_percentile(&h, 1, 0.6, 1.4), 1.4);
	assert_near(hist_percentile(&h, 0, 0.6, 1.4), 0.6);
	hist_release(&h);

	/* A gap holds nothing: p50 sits at the end of the first bucket. */
	assert_int_equal(hist_parse("[[0,1,50],[3,4,50]]", &h), 0);
	assert_near(hist_percentile(&h, 0.5, NAN, NAN), 1);
	assert_near(hist_percentile(&h, 0.75, NAN, NAN), 3.5);
	hist_release(&h);

	/* Every call took the same time: min = max. */
	assert_int_equal(hist_parse("[[2,3,7]]", &h), 0);
	assert_near(hist_percentile(&h, 0.99, 2.5, 2.5), 2.5);
	hist_release(&h);

	/* Overlapping buckets (two clock rates): 10 over [0,4], 10 over [2,6];
	 * at x = 3, 7.5 + 2.5 = 10 of 20. */
	assert_int_equal(hist_parse("[[0,4,10],[2,6,10]]", &h), 0);
	assert_near(hist_percentile(&h, 0.5, NAN, NAN), 3);
	hist_release(&h);
}

/* Bucketed as the runtime buckets them, the percentiles of 1000 times
 * spread over three orders of magnitude come within the bucket width. */
static void test_runtime_buckets(void **state)
{
	uint64_t counts[VTR_HIST_BUCKETS] = {0};
	uint64_t v[1000];
	struct hist h = {0};
	static const double qs[] = {0.5, 0.9, 0.99};

	for (size_t i = 0; i < 1000; i++) {
		v[i] = (uint64_t)(100 * pow(1000, (double)i / 999)); /* sorted */
		counts[vtr_hist_bucket(v[i])]++;
	}
	for (uint32_t k = 0; k < VTR_HIST_BUCKETS; k++)
		if (counts[k]) {
			if (h.n == h.cap) {
				h.cap = h.cap ? h.cap * 2 : 64;
				h.b = realloc(h.b, h.cap * sizeof(*h.b));
			}
			h.b[h.n++] = (struct hist_bucket){(double)vtr_hist_lower(k),
							  (double)vtr_hist_lower(k + 1),
							  (double)counts[k]};
		}
	for (size_t i = 0; i < 3; i++) {
		double want = (double)v[(size_t)(qs[i] * 1000) - 1];
		double got = hist_percentile(&h, qs[i], (double)v[0], (double)v[999]);

		near_check(got, want, 0.25, __FILE__, __LINE__);
		assert_true(got >= (double)v[0] && got <= (double)v[999]);
	}
	hist_release(&h);
}

/* Every count lands in the one bucket whose range holds it. */
static void test_bucket_edges(void **state)
{
	for (uint64_t v = 0; v < 70000; v++) {
		uint32_t k = vtr_hist_bucket(v);

		assert_true(vtr_hist_lower(k) <= v && v < vtr_hist_lower(k + 1));
	}
	assert_int_equal(vtr_hist_bucket(UINT64_MAX), VTR_HIST_BUCKETS - 1);
	assert_int_equal(vtr_hist_lower(VTR_HIST_BUCKETS - 1), 7ull << 61);
	for (int s = 3; s < 63; s++) {
		uint64_t p = 1ull << s;

		assert_int_equal(vtr_hist_bucket(p - 1) + 1, vtr_hist_bucket(p));
		/* at most a quarter of its lower bound wide */
		uint32_t k = vtr_hist_bucket(p);
		assert_true(vtr_hist_lower(k + 1) - vtr_hist_lower(k) <= vtr_hist_lower(k) / 4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_runtime_buckets),
		cmocka_unit_test(test_bucket_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
