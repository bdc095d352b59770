/*
 * The postprocessors' option tables (postproc_parse_options): Perun's
 * spellings, the help as text, operands, and the records a run leaves;
 * and the typed reader of those records and of collector parameters
 * (analyze/pprecord.h), and models_append().
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/models.h"
#include "analyze/postproc.h"
#include "analyze/pprecord.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

#define END ((char *)NULL)

/* Parses NAME ARGS... (NULL-terminated) and returns the params' JSON, or
 * NULL with the error in err_msg(). */
static char *params_of(const char *name, ...)
{
	char *argv[24] = {(char *)name};
	const struct postproc *pp = postproc_find(name);
	void *opts = NULL;
	char *json = NULL;
	int argc = 1;
	va_list ap;

	va_start(ap, name);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	assert_non_null(pp);
	if (postproc_parse(pp, argc, argv, &opts, NULL) == 0) {
		json = pp->params_json(opts);
		pp->free_opts(opts);
	}
	return json;
}

static void has(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		fail_msg("'%s' does not hold '%s'", text ? text : err_msg(), want);
}

/* Perun's names, multi-letter short options, --long_underscores, its
 * --of-key and --per-key, and its words, each as our own options. */
static void test_perun_spellings(void **state)
{
	char *j;

	UNUSED(state);
	assert_ptr_equal(postproc_find("regression_analysis"),
			 postproc_find("regression-analysis"));
	assert_null(postproc_find("regression_analysis_"));
	j = params_of("regressogram", "-bn", "5", "-sf", "median", "-per", "x", "-of", "y", END);
	has(j, "\"bucket_number\":5");
	has(j, "\"statistic_function\":\"median\"");
	has(j, "\"of\":\"y\",\"per\":\"x\"");
	free(j);
	j = params_of("regression-analysis", "--regression_models", "linear", "-dp", "size", "-o",
		      "amount", "--of-key=t", END);
	has(j, "\"regression_models\":[\"linear\"]");
	has(j, "\"of_key\":\"t\",\"per_key\":\"size\"");
	free(j);
	j = params_of("moving-average", "ema", "--decay", "span", "5", END);
	has(j, "\"method\":\"ema\"");
	has(j, "\"decay\":\"span\"");
	has(j, "\"decay_value\":5");
	free(j);
	j = params_of("moving-average", "sma", "-ww", "3", "-mp", "1", "--per_key", "n", END);
	has(j, "\"window_width\":3");
	has(j, "\"min_periods\":1");
	has(j, "\"per\":\"n\"");
	free(j);
	j = params_of("kernel-regression", "kernel-ridge", "-gr", "1e-5", "1e-3", "-gs", "1e-4",
		      END);
	has(j, "\"gamma_range\":[1.0000000000000001e-05,0.001]");
	has(j, "\"gamma_step\":0.0001");
	free(j);
}

static void test_errors(void **state)
{
	UNUSED(state);
	assert_null(params_of("regressogram", "extra", END));
	assert_string_equal(err_msg(), "postprocess regressogram: unexpected argument 'extra'");
	assert_null(params_of("normalizer", "--bogus", END));
	assert_string_equal(err_msg(), "postprocess normalizer: unknown option '--bogus'");
	assert_null(params_of("normalizer", "--of", END));
	assert_string_equal(err_msg(), "postprocess normalizer: option '--of' needs a value");
	assert_null(params_of("moving-average", "5", END)); /* a number only after --decay */
	assert_string_equal(err_msg(), "postprocess moving-average: unexpected argument '5'");
	assert_null(params_of("filter", END));
	has(err_msg(), "give at least one --where");
	/* The job matrix parses once for every job: no help there. */
	assert_null(params_of("filter", "--help", END));
	assert_string_equal(err_msg(), "postprocess filter: --help is not an option here");
}

/* -h gives the help as text and nothing else; every postprocessor's is
 * made from its table. */
static void test_help(void **state)
{
	UNUSED(state);
	for (const struct postproc *const *pp = postproc_list(); *pp; pp++) {
		char *argv[] = {(char *)(*pp)->name, "--help", NULL};
		void *opts = (void *)1;
		char *help = NULL;

		assert_int_equal(postproc_parse(*pp, 2, argv, &opts, &help), 0);
		assert_null(opts);
		assert_non_null(help);
		has(help, "usage: veles postprocess PROFILE ");
		has(help, (*pp)->name);
		has(help, "  -h, --help");
		free(help);
	}
}

/* Four points of uid f: sizes 1..4 (or all 1 when @one_size), amount 2x. */
static struct profile *small_profile(bool one_size)
{
	struct profile *p = profile_new();

	p->type = xstrdup("time");
	for (int i = 1; i <= 4; i++) {
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = "f"},
			{.name = "type", .kind = COL_STR, .s = "time"},
		};
		size_t row = profile_res_add(p, profile_type_add(p, a, 2));
		struct attr amount = {.name = "amount", .kind = COL_F64, .f = 2.0 * i};
		struct attr size = {
			.name = "structure-unit-size", .kind = COL_F64, .f = one_size ? 1 : i};

		table_set(p, &p->res, row, &amount);
		table_set(p, &p->res, row, &size);
	}
	return p;
}

static void note(void *arg, const char *text)
{
	struct buf *b = arg;

	buf_addf(b, "%s\n", text);
}

/* A run appends its record to whatever list was there, and its notes go
 * to the receiver the caller gave. */
static void test_records(void **state)
{
	struct profile *p = small_profile(false), *q = small_profile(true);
	struct buf notes = BUF_INIT;
	const struct postproc_env env = {.message = note, .message_arg = &notes};
	char *ra[] = {"regression_analysis", "-r", "linear", "-r", "power", NULL};
	char *norm[] = {"normalizer", "--by", "none", NULL};
	struct pp_records r;

	UNUSED(state);
	p->postprocessors = xstrdup(" [ {\"name\": \"perun-thing\", \"params\": {\"k\": 1.50}} ] ");
	assert_int_equal(postproc_run_argv_env(p, 5, ra, &env, NULL), 0);
	assert_int_equal(postproc_run_argv_env(p, 3, norm, &env, NULL), 0);
	assert_string_equal(
		p->postprocessors,
		"[{\"name\":\"perun-thing\",\"params\":{\"k\":1.50}},"
		"{\"name\":\"regression-analysis\",\"params\":{\"method\":\"full\","
		"\"regression_models\":[\"linear\",\"power\"],\"steps\":3,"
		"\"of_key\":\"amount\",\"per_key\":\"structure-unit-size\"}},"
		"{\"name\":\"normalizer\",\"params\":{\"of\":\"amount\",\"by\":\"none\"}}]");
	assert_int_equal(pp_records_read(p->postprocessors, &r), 0);
	assert_int_equal(r.n, 3);
	assert_true(pp_records_ran(&r, "regression_analysis"));
	assert_false(pp_records_ran(&r, "regressogram"));
	assert_true(pp_record_param(&r.v[0], "k")->num == 1.5);
	pp_records_free(&r);
	/* Models: the two requested, appended to the profile's list. */
	assert_non_null(strstr(p->models, "\"model\":\"linear\""));
	assert_non_null(strstr(p->models, "\"model\":\"power\""));
	assert_string_equal(buf_str(&notes), "");
	/* One size: the constant is fitted, the line is not, and the note says why. */
	assert_int_equal(postproc_run_argv_env(q, 5,
					       (char *[]){"regression-analysis", "-r", "constant",
							  "-r", "linear", NULL},
					       &env, NULL),
			 0);
	has(buf_str(&notes), "postprocess regression-analysis: f: linear not fitted: "
			     "'structure-unit-size' has one value only");
	buf_release(&notes);
	profile_free(p);
	profile_free(q);
}

static void test_records_bad(void **state)
{
	struct pp_records r;

	UNUSED(state);
	assert_int_equal(pp_records_read(NULL, &r), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(pp_records_read(" null ", &r), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(pp_records_read("{\"name\": \"x\"}", &r), ERR_PARSE);
	assert_int_equal(pp_records_read("[{\"name\": ", &r), ERR_PARSE);
	/* A record that is no object has no name, not a crash. */
	assert_int_equal(pp_records_read("[3, {\"params\": {}}]", &r), 0);
	assert_string_equal(r.v[0].name, "?");
	assert_string_equal(r.v[1].name, "?");
	pp_records_free(&r);
}

/* A record replays as the options that make it again. */
static void test_record_argv(void **state)
{
	struct pp_records r;
	struct buf t = BUF_INIT;
	char **argv;
	int argc;

	UNUSED(state);
	assert_int_equal(
		pp_records_read("[{\"name\":\"moving_average\",\"params\":{"
				"\"window_width\":null,\"center\":false,\"on\":true,"
				"\"gamma_range\":[1e-5,2],\"of\":\"a b\",\"m\":{\"x\":1}}}]",
				&r),
		0);
	argv = pp_record_argv(&r.v[0], &argc);
	assert_int_equal(argc, 6);
	assert_string_equal(argv[0], "moving_average");
	assert_string_equal(argv[1], "--no-center");
	assert_string_equal(argv[2], "--on");
	assert_string_equal(argv[3], "--gamma-range=1e-5");
	assert_string_equal(argv[4], "--gamma-range=2");
	assert_string_equal(argv[5], "--of=a b");
	assert_null(argv[6]);
	pp_argv_free(argv);
	/* A collector's parameters: a false flag is no option. */
	argv = pp_params_argv("time", &r.v[0].params, false, &argc);
	assert_int_equal(argc, 5);
	assert_string_equal(argv[1], "--on");
	pp_argv_free(argv);
	pp_record_params_text(&r.v[0], &t);
	assert_string_equal(buf_str(&t), "(window_width=null, center=false, on=true, "
					 "gamma_range=[1e-5, 2], of=a b, m={x: 1})");
	buf_release(&t);
	pp_records_free(&r);
}

static void test_params(void **state)
{
	struct pp_value v;

	UNUSED(state);
	assert_int_equal(pp_params_read("{\"a\": {\"b\": [1, {\"c\": \"deep\"}]}, \"c\": 2}", &v),
			 0);
	/* A key of the map itself before one inside it. */
	assert_string_equal(pp_value_find(&v, "c")->text, "2");
	assert_string_equal(pp_value_find(&v, "b")->items[0].text, "1");
	assert_null(pp_value_find(&v, "d"));
	pp_value_free(&v);
	assert_int_equal(pp_params_read("[1]", &v), ERR_PARSE);
	assert_int_equal(pp_params_read(NULL, &v), 0);
	assert_int_equal(v.n, 0);
	pp_value_free(&v);
}

static void test_models_append(void **state)
{
	struct profile *p = profile_new();

	UNUSED(state);
	assert_true(models_none(p));
	assert_int_equal(models_append(p, "{\"a\":1}", 7), 0);
	assert_string_equal(p->models, "[{\"a\":1}]");
	assert_int_equal(models_append(p, "{\"b\":2}", 7), 0);
	assert_string_equal(p->models, "[{\"a\":1},{\"b\":2}]");
	free(p->models);
	p->models = xstrdup(" null ");
	assert_true(models_none(p));
	assert_int_equal(models_append(p, "{}", 2), 0);
	assert_string_equal(p->models, "[{}]");
	free(p->models);
	p->models = xstrdup("[ \n]");
	assert_true(models_none(p));
	free(p->models);
	p->models = xstrdup("{\"x\": 1}");
	assert_false(models_none(p));
	assert_int_equal(models_append(p, "{}", 2), ERR_PARSE);
	assert_string_equal(p->models, "{\"x\": 1}");
	profile_free(p);
}

/* The one reader of p->models: as written, strict for the views,
 * skipping what it cannot read for the checks. */
static void test_model_recs(void **state)
{
	const char *json =
		"[{\"uid\":\"f\",\"subtype\":\"real\",\"model\":\"linear\",\"r_square\":0.5,"
		"\"r_square_perun\":0.25,\"coeffs\":[{\"name\":\"b0\",\"value\":1},"
		"{\"name\":\"b1\",\"value\":null}]},"
		"{\"uid\":\"g\",\"model\":\"regressogram\",\"x_values\":[0,1,2],"
		"\"bucket_stats\":[5,6],\"x_start\":0,\"x_end\":3},"
		"{\"model\":\"constant\"},"
		"{\"uid\":\"h\",\"model\":\"linear\",\"r_square\":\"high\"}]";
	struct profile *p = profile_new();
	struct model_rec *m;
	struct model_set set;
	size_t n;

	UNUSED(state);
	assert_true(model_recs_read(json, 0, &m, &n) < 0);
	assert_string_equal(err_msg(), "models: a model without uid or model");
	assert_int_equal(model_recs_read(json, MODELS_SKIP_BAD, &m, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(m[0].subtype, "real");
	assert_true(m[0].r_square == 0.5 && m[0].r_square_perun == 0.25);
	assert_int_equal(m[0].ncoeffs, 2);
	assert_true(isnan(m[0].coeffs[1]));
	assert_true(isnan(m[0].x_start));
	/* Three x, two values: two points. */
	assert_int_equal(m[1].nxs, 3);
	assert_int_equal(m[1].nys, 2);
	assert_int_equal(m[1].n, 2);
	model_recs_free(m, n);
	assert_int_equal(model_recs_read(" null", 0, &m, &n), 0);
	assert_int_equal(n, 0);
	assert_true(model_recs_read("[1]", 0, &m, &n) < 0);
	assert_int_equal(model_recs_read("[1]", MODELS_SKIP_BAD, &m, &n), 0);
	assert_int_equal(n, 0);
	/* The checks' models come from the same records. */
	p->models = xstrdup(json);
	assert_int_equal(models_load(p, &set), 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.v[0].uid, "f [real]");
	assert_true(set.v[0].rank == 0.25 && set.v[0].b[0] == 1 && set.v[0].b[1] == 0);
	assert_true(set.v[0].x_start == -INFINITY);
	assert_int_equal(set.v[1].npts, 2);
	models_free(&set);
	free(p->models);
	p->models = xstrdup("{\"not\": \"a list\"}");
	assert_int_equal(models_load(p, &set), ERR_PARSE);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perun_spellings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_records_bad),
		cmocka_unit_test(test_record_argv),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_models_append),
		cmocka_unit_test(test_model_recs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
