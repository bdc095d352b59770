/*
 * What makes verdicts hold on a noisy machine (issue 14): the sequential
 * signed-rank test (interval against the published Wilcoxon tables and
 * scipy 1.10's stats.wilcoxon(d, correction=True, method="approx")), its
 * alpha spending and verdicts; the randomised interleaved rounds (order,
 * budget, stopping); the choice of metric; and the environment read back
 * from a profile header and compared.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/degrade.h"
#include "analyze/envinfo.h"
#include "analyze/metric.h"
#include "analyze/seqtest.h"
#include "profile/profile.h"
#include "run/rmit.h"
#include "util/buf.h"
#include "util/common.h"

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_hodges_lehmann(void **state)
{
	const double d[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	const double e[] = {0.031,  -0.012, 0.044, 0.027, 0.009, 0.052,
			    -0.003, 0.038,  0.021, 0.017, 0.029, 0.041};
	double est, lo, hi;

	UNUSED(state);
	/* n = 10, two-sided 0.05: the table's critical T is 8, so the interval
	 * runs from the 9th to the 47th of the 55 Walsh averages. */
	seq_hodges_lehmann(d, 10, 0.05, &est, &lo, &hi);
	assert_near(est, 5.5, 1e-12);
	assert_near(lo, 3.0, 1e-12);
	assert_near(hi, 8.0, 1e-12);
	/* n = 12: critical T 13. */
	seq_hodges_lehmann(e, 12, 0.05, &est, &lo, &hi);
	assert_near(est, 0.0255, 1e-12);
	assert_near(lo, 0.012, 1e-12);
	assert_near(hi, 0.0375, 1e-12);
	/* Six pairs cannot reach 0.025 two-sided (the least is 2/64): no bound. */
	seq_hodges_lehmann(d, 6, 0.025, &est, &lo, &hi);
	assert_true(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
	/* Past the exact range the normal approximation takes over, and the
	 * interval still holds the centre. */
	{
		double big[300];

		for (size_t i = 0; i < 300; i++)
			big[i] = (double)i - 149.5;
		seq_hodges_lehmann(big, 300, 0.05, &est, &lo, &hi);
		assert_near(est, 0, 1e-9);
		assert_true(lo < 0 && hi > 0 && hi - lo < 40);
	}
}

static void test_signed_rank_p(void **state)
{
	const double e[] = {0.031,  -0.012, 0.044, 0.027, 0.009, 0.052,
			    -0.003, 0.038,  0.021, 0.017, 0.029, 0.041};
	const double ties[] = {1, -2, 3, 0, 5, -1, 2, 2, 4, 0, 3};
	const double zeros[] = {0, 0, 0, 0};

	UNUSED(state);
	assert_near(seq_signed_rank_p(e, 12), 0.006801651812875441, 1e-9);
	assert_near(seq_signed_rank_p(ties, 11), 0.04940018799120363, 1e-9);
	assert_near(seq_signed_rank_p(zeros, 4), 1, 0);
}

static void test_sequential(void **state)
{
	struct seq_params p = {0.05, log1p(0.02), 8};
	struct seq_test t;
	struct seq_look l;
	double d[64];

	UNUSED(state);
	seq_init(&t, &p);
	assert_false(seq_due(&t, 7));
	assert_true(seq_due(&t, 8));
	/* Identical counts (instructions of the same code): surely no change. */
	memset(d, 0, sizeof(d));
	seq_look(&t, d, 8, &l);
	assert_int_equal(l.k, 1);
	assert_near(l.alpha_k, 0.0125, 1e-15);
	assert_int_equal(l.verdict, SEQ_WITHIN);
	/* The next look after a quarter more rounds, and half the share left. */
	assert_false(seq_due(&t, 9));
	assert_true(seq_due(&t, 10));
	seq_look(&t, d, 10, &l);
	assert_near(l.alpha_k, 0.025 / 6, 1e-15);
	assert_true(seq_due(&t, 13) && !seq_due(&t, 12));
	/* The last look spends all the interim looks left: at least half. */
	seq_look_last(&t, d, 13, &l);
	assert_int_equal(l.k, 3);
	assert_near(l.alpha_k, 0.05 - 0.0125 - 0.025 / 6, 1e-15);
	/* A big slowdown: above the margin at the first look. */
	seq_init(&t, &p);
	for (size_t i = 0; i < 8; i++)
		d[i] = log(3.0) + 0.01 * ((double)i - 3.5);
	seq_look(&t, d, 8, &l);
	assert_int_equal(l.verdict, SEQ_ABOVE);
	/* At the first look's level the interval is the rounds' whole range. */
	assert_near(l.lo, d[0], 1e-12);
	assert_near(l.hi, d[7], 1e-12);
	for (size_t i = 0; i < 8; i++)
		d[i] = -d[i];
	seq_init(&t, &p);
	seq_look(&t, d, 8, &l);
	assert_int_equal(l.verdict, SEQ_BELOW);
	/* A change about as large as the margin stays unsure. */
	seq_init(&t, &p);
	for (size_t i = 0; i < 8; i++)
		d[i] = log1p(0.02) + 0.03 * ((double)i - 3.5);
	seq_look(&t, d, 8, &l);
	assert_int_equal(l.verdict, SEQ_UNSURE);
	/* A small slowdown the interim looks cannot be sure of, after a
	 * dozen of them, the last look at its larger level is. */
	seq_init(&t, &p);
	for (size_t i = 0; i < 64; i++)
		d[i] = log1p(0.04) + 0.05 * sin((double)i * 2.4);
	for (int k = 0; k < 12; k++)
		seq_look(&t, d, 64, &l);
	assert_int_equal(l.verdict, SEQ_UNSURE);
	seq_look_last(&t, d, 64, &l);
	assert_int_equal(l.verdict, SEQ_ABOVE);
	/* Margin 0 (bisect's midpoint test): only the sign is asked. */
	p.margin = 0;
	seq_init(&t, &p);
	for (size_t i = 0; i < 8; i++)
		d[i] = 0.005 + 0.001 * (double)i;
	seq_look(&t, d, 8, &l);
	assert_int_equal(l.verdict, SEQ_ABOVE);
}

/* rmit_run's mock sides: each measurement appends its side to a log. */
struct mock {
	char log[256];
	size_t len, stop_at;
};

static int mock_measure(void *arg, size_t side, size_t round)
{
	struct mock *m = arg;

	UNUSED(round);
	m->log[m->len++] = (char)('A' + side);
	return 0;
}

static int mock_decide(void *arg, size_t rounds)
{
	struct mock *m = arg;

	return m->stop_at && rounds >= m->stop_at;
}

static void test_rmit(void **state)
{
	struct mock m = {.stop_at = 5};
	struct rmit r = {2, 42, mock_measure, mock_decide, &m};
	struct rmit_budget b = {50, 0};
	enum rmit_stop why;
	size_t rounds, ab = 0, ba = 0;

	UNUSED(state);
	assert_int_equal(rmit_run(&r, &b, &rounds, &why), 0);
	assert_int_equal(rounds, 5);
	assert_int_equal(why, RMIT_SURE);
	/* The warm-up round and five counted, each with both sides once. */
	assert_int_equal(m.len, 12);
	for (size_t i = 0; i < m.len; i += 2)
		assert_true(m.log[i] != m.log[i + 1]);
	/* The budget ends the rounds when decide() never does. */
	m = (struct mock){0};
	b.max_rounds = 40;
	assert_int_equal(rmit_run(&r, &b, &rounds, &why), 0);
	assert_int_equal(rounds, 40);
	assert_int_equal(why, RMIT_ROUNDS);
	for (size_t i = 0; i < m.len; i += 2) {
		ab += m.log[i] == 'A';
		ba += m.log[i] == 'B';
	}
	/* Both orders, neither much more often than the other. */
	assert_true(ab >= 8 && ba >= 8);
	/* A random permutation of three. */
	{
		uint64_t s = 7;
		size_t o[3], seen[6] = {0};

		for (int k = 0; k < 600; k++) {
			rmit_order(&s, 3, o);
			assert_int_equal(o[0] + o[1] + o[2], 3);
			assert_true(o[0] != o[1] && o[1] != o[2] && o[0] != o[2]);
			seen[o[0] * 2 + (o[1] > o[2])]++;
		}
		for (int k = 0; k < 6; k++)
			assert_true(seen[k] > 50);
	}
}

/* A time profile with the metrics @subtypes, one run each. */
static struct profile *time_profile(const char *const *subtypes, size_t n)
{
	struct profile *p = profile_new();
	struct column *amount;

	p->type = xstrdup("time");
	for (size_t i = 0; i < n; i++) {
		struct attr a[] = {{.name = "uid", .kind = COL_STR, .s = "./prog"},
				   {.name = "subtype", .kind = COL_STR, .s = subtypes[i]}};
		uint32_t t = profile_type_add(p, a, 2);
		size_t row = profile_res_add(p, t);

		amount = table_col_get(p, &p->res, "amount", COL_F64);
		col_set_f64(&p->res, amount, row, 1.0);
	}
	return p;
}

static void test_metric(void **state)
{
	static const char *const old[] = {"real", "user", "sys"};
	static const char *const new[] = {"real", "user", "sys", "cpu", "instructions"};
	struct profile *a = time_profile(old, 3), *b = time_profile(new, 5);
	struct profile *c = time_profile(new + 3, 2);
	struct change_list l = {0};
	const char *locs[] = {"./prog [real]", "./prog [cpu]", "./prog [sys]", "main"};

	UNUSED(state);
	assert_string_equal(metric_shared(a, b), "real");
	assert_string_equal(metric_shared(b, c), "instructions");
	assert_string_equal(metric_shared(b, b), "instructions");
	assert_true(metric_present(b, "cpu") && !metric_present(a, "cpu"));
	assert_true(metric_known("cycles") && !metric_known("wall"));
	assert_true(metric_location_is("./prog [cpu]", "cpu"));
	assert_false(metric_location_is("./prog [cpu]", "cp"));
	assert_false(metric_location_is("cpu", "cpu"));
	/* Only the metric's locations stay; a location of no metric stays too. */
	l.v = xcalloc(4, sizeof(*l.v));
	for (size_t i = 0; i < 4; i++)
		l.v[l.n++].location = xstrdup(locs[i]);
	l.cap = 4;
	metric_filter_changes(&l, 0, "cpu");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].location, "./prog [cpu]");
	assert_string_equal(l.v[1].location, "main");
	change_list_free(&l);
	profile_free(a);
	profile_free(b);
	profile_free(c);
}

static void test_envinfo(void **state)
{
	struct env_info a, b, none;
	struct buf what = BUF_INIT;

	UNUSED(state);
	env_info_parse("{\"host\":\"75ded8a3bccea859\",\"cpu\":\"AMD EPYC\",\"cores\":2,"
		       "\"kernel\":\"6.1.0\",\"arch\":\"x86_64\",\"governor\":\"none\",\"vm\":true,"
		       "\"load_before\":1.5,\"load_after\":2.25,"
		       "\"compiler\":\"GCC: (Debian 12.2.0-14) 12.2.0\"}",
		       &a);
	assert_true(a.present);
	assert_string_equal(a.host, "75ded8a3bccea859");
	assert_int_equal(a.cores, 2);
	assert_int_equal(a.vm, 1);
	assert_near(a.load_after, 2.25, 1e-12);
	env_info_parse("{\"host\":\"75ded8a3bccea859\",\"cpu\":\"AMD EPYC\",\"cores\":2,"
		       "\"kernel\":\"6.18.4\",\"governor\":\"none\",\"vm\":true,\"compiler\":null}",
		       &b);
	/* The kernel differs; an unknown compiler is no difference. */
	assert_int_equal(env_info_diff(&a, &b, &what), 1);
	assert_string_equal(buf_str(&what), "kernel 6.1.0 vs 6.18.4");
	buf_reset(&what);
	assert_int_equal(env_info_diff(&a, &a, &what), 0);
	/* A profile without one (Perun's) says nothing either way. */
	env_info_parse(NULL, &none);
	assert_false(none.present);
	assert_int_equal(env_info_diff(&a, &none, &what), 0);
	env_info_describe(&a, &what);
	assert_non_null(strstr(buf_str(&what), "Kernel:         6.1.0 x86_64\n"));
	assert_non_null(strstr(buf_str(&what), "Load average:   1.50 before, 2.25 after\n"));
	buf_release(&what);
	env_info_release(&a);
	env_info_release(&b);
	env_info_release(&none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hodges_lehmann), cmocka_unit_test(test_signed_rank_p),
		cmocka_unit_test(test_sequential),     cmocka_unit_test(test_rmit),
		cmocka_unit_test(test_metric),	       cmocka_unit_test(test_envinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
