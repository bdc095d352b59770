#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "profile/profile.h"
#include "run/batch.h"
#include "run/merge.h"
#include "run/run.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* The matrix in @yaml; NULL with err_msg() set when it does not load. */
static struct run_matrix *load(const char *yaml)
{
	struct config *c;
	struct run_matrix *m = NULL;

	assert_int_equal(config_load_text("config.yml", yaml, strlen(yaml), &c), 0);
	if (run_matrix_load(&c, 1, &m) < 0)
		m = NULL;
	config_free(c);
	return m;
}

static void test_expansion(void **state)
{
	struct run_matrix *m =
		load("cmds: [./a, ./b]\n"
		     "args: [-O1, -O2 -v]\n"
		     "workloads: [small, sizes]\n"
		     "generators:\n"
		     "  workload:\n"
		     "    - {id: sizes, type: integer, min_range: 1, max_range: 3}\n"
		     "collectors:\n"
		     "  - name: time\n"
		     "    params: {repeat: 10, warmup: 1, output_handling: capture}\n");
	struct run_job *jobs;
	size_t n;

	UNUSED(state);
	assert_non_null(m);
	n = run_matrix_expand(m, &jobs);
	assert_int_equal(n, 8);
	assert_string_equal(jobs[0].cmd, "./a");
	assert_string_equal(jobs[0].args, "-O1");
	assert_string_equal(jobs[0].workload, "small");
	assert_null(jobs[0].gen);
	assert_string_equal(jobs[1].workload, "sizes");
	assert_non_null(jobs[1].gen);
	assert_string_equal(jobs[2].args, "-O2 -v");
	assert_string_equal(jobs[7].cmd, "./b");
	assert_int_equal(jobs[7].collector->argc, 4);
	assert_string_equal(jobs[7].collector->argv[0], "time");
	assert_string_equal(jobs[7].collector->argv[1], "--repeat=10");
	assert_string_equal(jobs[7].collector->argv[2], "--warmup=1");
	assert_string_equal(jobs[7].collector->argv[3], "--output-handling=capture");
	free(jobs);
	run_matrix_free(m);
}

static void test_no_args_or_workloads(void **state)
{
	struct run_matrix *m = load("cmds: ./a\ncollectors: [{name: time}]\n");
	struct run_job *jobs;

	UNUSED(state);
	assert_non_null(m);
	assert_int_equal(run_matrix_expand(m, &jobs), 1);
	assert_string_equal(jobs[0].args, "");
	assert_string_equal(jobs[0].workload, "");
	free(jobs);
	run_matrix_free(m);
	m = load("cmds: [./a]\n");
	assert_int_equal(run_matrix_expand(m, &jobs), 0);
	free(jobs);
	run_matrix_free(m);
}

static void test_params(void **state)
{
	struct config *c;
	char **argv = NULL;
	int argc = 0;
	const char *yaml = "p: {models: [linear, quad], on: true, off: false, of: amount}\n";

	UNUSED(state);
	assert_int_equal(config_load_text("x", yaml, strlen(yaml), &c), 0);
	assert_int_equal(run_params_argv(c, "p", &argv, &argc), 0);
	assert_int_equal(argc, 4);
	assert_string_equal(argv[0], "--models=linear");
	assert_string_equal(argv[1], "--models=quad");
	assert_string_equal(argv[2], "--on");
	assert_string_equal(argv[3], "--of=amount");
	run_strv_free(argv);
	config_free(c);
}

static void test_split_words(void **state)
{
	char **w;
	int n;

	UNUSED(state);
	assert_int_equal(run_split_words("  -a 'b c' \"d \\\"e\\\"\" f\\ g ", &w, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(w[0], "-a");
	assert_string_equal(w[1], "b c");
	assert_string_equal(w[2], "d \"e\"");
	assert_string_equal(w[3], "f g");
	run_strv_free(w);
	assert_int_equal(run_split_words("a 'b", &w, &n), ERR_INVALID);
}

static void test_generators(void **state)
{
	struct run_matrix *m =
		load("generators:\n"
		     "  workload:\n"
		     "    - {id: i, type: integer, min_range: 100, max_range: 350, step: 100}\n"
		     "    - {id: s, type: string, min_len: 2, max_len: 6, step_len: 4}\n"
		     "    - {id: t, type: textfile, min_lines: 0, max_lines: 3, step_lines: 3}\n"
		     "    - {id: e, type: external, min: 1, max: 2,\n"
		     "       command: 'echo \"n=$VELES_WORKLOAD_SIZE\"'}\n");
	const struct run_generator *g;
	char *dir = tmp_fresh_dir(), *w;
	struct buf text = BUF_INIT;
	long *sizes;

	UNUSED(state);
	assert_non_null(m);
	g = run_matrix_generator(m, "i");
	assert_int_equal(run_generator_sizes(g, &sizes), 3);
	assert_int_equal(sizes[2], 300);
	free(sizes);
	assert_int_equal(run_generator_workload(g, 300, dir, NULL, &w), 0);
	assert_string_equal(w, "300");
	free(w);

	g = run_matrix_generator(m, "s");
	assert_int_equal(run_generator_sizes(g, &sizes), 2);
	assert_int_equal(sizes[1], 6);
	free(sizes);
	assert_int_equal(run_generator_workload(g, 6, dir, NULL, &w), 0);
	assert_string_equal(w, "abcdef");
	free(w);

	g = run_matrix_generator(m, "t");
	assert_int_equal(run_generator_workload(g, 3, dir, NULL, &w), 0);
	assert_int_equal(file_read_all(w, &text), 0);
	assert_int_equal(strchr(buf_str(&text), '\n') != NULL, 1);
	{
		size_t lines = 0;

		for (const char *p = buf_str(&text); *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 3);
	}
	free(w);
	buf_release(&text);

	g = run_matrix_generator(m, "e");
	assert_int_equal(run_generator_workload(g, 2, dir, NULL, &w), 0);
	assert_string_equal(w, "n=2");
	free(w);
	run_matrix_free(m);
	free(dir);
}

static void test_bad_generators(void **state)
{
	UNUSED(state);
	assert_null(load("generators:\n  workload:\n    - {id: i, type: integer, min_range: 1,\n"
			 "       max_range: 5, stepp: 2}\n"));
	assert_non_null(strstr(err_msg(), "config.yml:4:22: unknown key 'stepp'"));
	assert_null(load("generators:\n  workload:\n    - {id: i, type: float}\n"));
	assert_non_null(strstr(err_msg(), "config.yml:3:15: a generator's type is"));
	assert_null(load("generators:\n  workload:\n    - {id: i, type: integer, min_range: 5,"
			 " max_range: 1}\n"));
	assert_non_null(strstr(err_msg(), "max_range wants a whole number >= 5"));
	assert_null(
		load("generators:\n  workload:\n    - {id: e, type: external, min: 1, max: 2}\n"));
	assert_non_null(strstr(err_msg(), "needs a command"));
}

static void test_bad_matrix(void **state)
{
	UNUSED(state);
	assert_null(load("cmds: [./a]\ncolectors: [{name: time}]\n"));
	assert_non_null(strstr(err_msg(), "config.yml:2:1: unknown key 'colectors'"));
	assert_null(load("collectors:\n  - name: nosuch\n"));
	assert_non_null(strstr(err_msg(), "config.yml:2:5: unknown collector 'nosuch'"));
	assert_null(load("collectors: time\n"));
	assert_non_null(strstr(err_msg(), "must be a list of {name, params}"));
	assert_null(load("postprocessors:\n  - name: normalizer\n    params: {bogus: 1}\n"));
	assert_non_null(strstr(err_msg(), "config.yml:2:5: "));
	assert_null(load("collectors:\n  - name: time\n    params: {a: {b: 1}}\n"));
	assert_non_null(strstr(err_msg(), "'a' must be a value or a list"));
}

static void test_nearest_first(void **state)
{
	const char *near = "cmds: [./near]\n";
	const char *far = "cmds: [./far]\ncollectors: [{name: time}]\n";
	struct config *c[2];
	struct run_matrix *m;

	UNUSED(state);
	assert_int_equal(config_load_text("near", near, strlen(near), &c[0]), 0);
	assert_int_equal(config_load_text("far", far, strlen(far), &c[1]), 0);
	assert_int_equal(run_matrix_load(c, 2, &m), 0);
	assert_int_equal(m->ncmds, 1);
	assert_string_equal(m->cmds[0], "./near");
	assert_int_equal(m->ncollectors, 1);
	run_matrix_free(m);
	config_free(c[0]);
	config_free(c[1]);
}

static struct profile *time_like(double amount)
{
	struct profile *p = profile_new();
	struct attr a[] = {{.name = "uid", .kind = COL_STR, .s = "./a"},
			   {.name = "subtype", .kind = COL_STR, .s = "real"}};
	uint32_t t = profile_type_add(p, a, ARRAY_SIZE(a));
	size_t row = profile_res_add(p, t);
	struct column *c = table_col_get(p, &p->res, "amount", COL_F64);

	p->type = xstrdup("time");
	col_set_f64(&p->res, c, row, amount);
	return p;
}

static void test_merge_sizes(void **state)
{
	struct profile *a = time_like(1.5), *b = time_like(2.5);
	const struct column *size, *amount;

	UNUSED(state);
	run_profile_set_size(a, 10);
	run_profile_set_size(b, 20);
	run_profile_append(a, b);
	assert_int_equal(profile_nres(a), 2);
	assert_int_equal(a->types.nrows, 1);
	size = table_col(&a->res, "structure-unit-size");
	amount = table_col(&a->res, "amount");
	assert_int_equal(col_num(size, 0), 10);
	assert_int_equal(col_num(size, 1), 20);
	assert_true(col_num(amount, 1) == 2.5);
	profile_free(a);
	profile_free(b);
}

static void test_batch_names_and_commit(void **state)
{
	char *dir = tmp_fresh_dir(), *a, *b, *c;
	struct profile *p = time_like(1.0), *q;
	struct run_batch *batch = run_batch_new(dir);
	char *existing = xasprintf("%s/x-time-w.perf", dir);

	UNUSED(state);
	assert_int_equal(file_write_atomic(existing, "{}", 2), 0);
	assert_int_equal(run_batch_add(batch, "x-time-w", p, &a), 0);
	assert_int_equal(run_batch_add(batch, "x-time-w", p, &b), 0);
	assert_int_equal(run_batch_add(batch, "y", p, &c), 0);
	/* Names never collide: with the file on disk, nor with each other. */
	assert_non_null(strstr(a, "/x-time-w-2.perf"));
	assert_non_null(strstr(b, "/x-time-w-3.perf"));
	assert_false(path_exists(a));
	assert_false(run_batch_due(batch)); /* just added */
	assert_int_equal(run_batch_commit(batch), 0);
	assert_int_equal(profile_load(b, &q), 0);
	assert_string_equal(q->type, "time");
	profile_free(q);
	assert_true(path_exists(a) && path_exists(c));
	assert_int_equal(run_batch_commit(batch), 0);
	run_batch_free(batch);
	profile_free(p);
	free(a), free(b), free(c), free(existing), free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expansion),   cmocka_unit_test(test_no_args_or_workloads),
		cmocka_unit_test(test_params),	    cmocka_unit_test(test_split_words),
		cmocka_unit_test(test_generators),  cmocka_unit_test(test_bad_generators),
		cmocka_unit_test(test_bad_matrix),  cmocka_unit_test(test_nearest_first),
		cmocka_unit_test(test_merge_sizes), cmocka_unit_test(test_batch_names_and_commit),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
