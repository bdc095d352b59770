/* collect_main with the time collector, end to end into a temporary jobs dir. */
#include <dirent.h>
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/collector.h"
#include "collect_world.h"
#include "profile/profile.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* The end of a variadic argument list: a null pointer of the right type. */
#define END ((char *)NULL)

#define ORIGIN "0123456789abcdef0123456789abcdef01234567"

/* The shared world, its profiles stamped with ORIGIN; nobody listens to
 * what the collector says. */
static int setup(void **state)
{
	struct collect_world *w;

	if (collect_world_setup(state) < 0)
		return -1;
	w = *state;
	w->env.origin = ORIGIN;
	w->env.message = NULL;
	return 0;
}

/* The names of the files in @dir, sorted; returns how many. */
static size_t list_dir(const char *dir, char **names, size_t max)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t k = 0;

	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && k < max)
			names[k++] = xstrdup(ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return k;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

static void clean_jobs(struct collect_world *w)
{
	rm_rf(w->jobs);
}

static bool name_matches(const char *name, const char *pattern)
{
	regex_t re;
	bool ok;

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&re, name, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

#define STAMP "[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{2}"

/* The one profile in the jobs dir, loaded. */
static struct profile *load_only(struct collect_world *w, const char *pattern)
{
	char *names[8];
	size_t n = list_dir(w->jobs, names, 8);
	struct profile *p = NULL;
	char *path;

	assert_int_equal(n, 1);
	if (!name_matches(names[0], pattern))
		fail_msg("profile name %s does not match %s", names[0], pattern);
	path = xasprintf("%s/%s", w->jobs, names[0]);
	if (profile_load(path, &p) < 0)
		fail_msg("profile_load: %s", err_msg());
	free(path);
	free_names(names, n);
	return p;
}

static const char *text_attr(const struct profile *p, size_t row, const char *name)
{
	const struct table *t;
	size_t at;
	const struct column *c = profile_attr(p, row, name, &t, &at);

	return c ? col_text(p, c, at) : NULL;
}

static double num_attr(const struct profile *p, size_t row, const char *name)
{
	const struct table *t;
	size_t at;
	const struct column *c = profile_attr(p, row, name, &t, &at);

	return c ? col_num(c, at) : NAN;
}

/* 3 x @repeat time resources, orders 1..repeat for each subtype; and
 * where the kernel counted them, cpu, instructions or cycles for every run. */
static void check_resources(const struct profile *p, const char *uid, int repeat, int status)
{
	static const char *const subs[] = {"real", "user", "sys", "cpu", "instructions", "cycles"};
	int seen[6][64] = {{0}};
	size_t ntime = 0;

	for (size_t i = 0; i < profile_nres(p); i++) {
		const char *sub = text_attr(p, i, "subtype");
		double order = num_attr(p, i, "order");
		int k;

		assert_string_equal(text_attr(p, i, "uid"), uid);
		assert_non_null(sub);
		for (k = 0; k < 6 && strcmp(sub, subs[k]); k++)
			;
		if (k >= 6 || !(order >= 1 && order <= repeat && order < 64)) {
			fail_msg("bad resource %zu: %s order %g", i, sub, order);
			return;
		}
		assert_string_equal(text_attr(p, i, "type"), k < 4 ? "time" : "count");
		seen[k][(int)order]++;
		assert_true(profile_amount(p, i) >= 0);
		if (k == 0) {
			assert_float_equal(num_attr(p, i, "exit-status"), status, 0.1);
			assert_true(num_attr(p, i, "max-rss") > 0);
		}
		ntime += k < 3;
	}
	assert_int_equal(ntime, 3 * (size_t)repeat);
	for (int k = 0; k < 6; k++)
		for (int o = 1; o <= repeat; o++)
			assert_int_equal(seen[k][o], k < 3 ? 1 : seen[k][1]);
}

static void test_true(void **state)
{
	struct collect_world *w = *state;
	struct profile *p;

	clean_jobs(w);
	assert_int_equal(collect_run(w, "time", "-r", "3", "-w", "1", "--", "/bin/true", END), 0);
	p = load_only(w, "^true-time-none-" STAMP "\\.perf$");
	assert_string_equal(p->type, "time");
	assert_string_equal(p->cmd, "/bin/true");
	assert_string_equal(p->workload, "");
	assert_string_equal(p->origin, ORIGIN);
	assert_string_equal(p->collector, "time");
	assert_non_null(strstr(p->collector_params, "\"repeat\""));
	assert_non_null(strstr(p->collector_params, "3"));
	assert_string_equal(profile_units(p, "time"), "s");
	assert_true(p->has_timestamp && p->timestamp > 0);
	check_resources(p, "/bin/true", 3, 0);
	profile_free(p);
}

static void test_failing_command(void **state)
{
	struct collect_world *w = *state;
	struct profile *p;

	clean_jobs(w);
	assert_int_equal(
		collect_run(w, "time", "-r", "2", "-w", "0", "--", "sh", "-c", "exit 3", END), 0);
	p = load_only(w, "^sh-time--c_exit_3-" STAMP "\\.perf$");
	assert_string_equal(p->cmd, "sh");
	assert_string_equal(p->args, "-c exit 3");
	assert_string_equal(p->workload, "-c exit 3");
	check_resources(p, "sh", 2, 3);
	profile_free(p);
}

static void test_workload_and_operand(void **state)
{
	struct collect_world *w = *state;
	struct profile *p;

	clean_jobs(w);
	/* The command may also start at the first operand, without "--". */
	assert_int_equal(collect_run(w, "time", "-r", "1", "--workload", "big input/a", "-o",
				     "suppress", "echo", "hello", END),
			 0);
	p = load_only(w, "^echo-time-big_input_a-" STAMP "\\.perf$");
	assert_string_equal(p->workload, "big input/a");
	assert_string_equal(p->args, "hello");
	profile_free(p);
}

static void test_same_second(void **state)
{
	struct collect_world *w = *state;
	char *names[8];
	size_t n;

	clean_jobs(w);
	assert_int_equal(collect_run(w, "time", "-r", "1", "-w", "0", "true", END), 0);
	assert_int_equal(collect_run(w, "time", "-r", "1", "-w", "0", "true", END), 0);
	n = list_dir(w->jobs, names, 8);
	assert_int_equal(n, 2);
	assert_string_not_equal(names[0], names[1]);
	free_names(names, n);
}

static void test_capture_log(void **state)
{
	struct collect_world *w = *state;
	char *names[8];
	size_t n;
	struct buf b = BUF_INIT;
	char *path;

	clean_jobs(w);
	rm_rf(w->logs);
	assert_int_equal(collect_run(w, "time", "-r", "2", "-o", "capture", "--", "sh", "-c",
				     "echo captured-line >&2", END),
			 0);
	n = list_dir(w->logs, names, 8);
	assert_int_equal(n, 1);
	assert_true(name_matches(names[0], "^sh-time-.*\\.log$"));
	path = xasprintf("%s/%s", w->logs, names[0]);
	assert_int_equal(file_read_all(path, &b), 0);
	/* One warm-up and two measured runs, all logged. */
	assert_non_null(strstr(buf_str(&b), "captured-line\ncaptured-line\ncaptured-line\n"));
	buf_release(&b);
	free(path);
	free_names(names, n);
}

static void test_unstartable(void **state)
{
	struct collect_world *w = *state;
	char *names[8];

	clean_jobs(w);
	assert_int_equal(collect_run(w, "time", "-r", "2", "--", "/no/such/program", END),
			 ERR_CHILD);
	assert_non_null(strstr(err_msg(), "cannot run '/no/such/program'"));
	assert_int_equal(list_dir(w->jobs, names, 8), 0);
}

static void test_timeout(void **state)
{
	struct collect_world *w = *state;
	char *names[8];

	clean_jobs(w);
	assert_int_equal(collect_run(w, "time", "-r", "1", "-w", "0", "--timeout", "0.2", "--",
				     "sleep", "10", END),
			 ERR_CHILD);
	assert_non_null(strstr(err_msg(), "timed out"));
	assert_int_equal(list_dir(w->jobs, names, 8), 0);
}

static void test_bad_usage(void **state)
{
	struct collect_world *w = *state;
	char *names[8];

	clean_jobs(w);
	assert_int_equal(collect_run(w, "time", "-r", "abc", "--", "true", END), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "--repeat"));
	assert_int_equal(collect_run(w, "time", "-r", "0", "--", "true", END), ERR_INVALID);
	assert_int_equal(collect_run(w, "time", "-r", "2", END), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "no command"));
	assert_int_equal(collect_run(w, "time", "--bogus", "--", "true", END), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "--bogus"));
	assert_int_equal(collect_run(w, "time", "-x", "--", "true", END), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "-x"));
	assert_int_equal(collect_run(w, "time", "-o", "loud", "--", "true", END), ERR_INVALID);
	assert_int_equal(collect_run(w, "time", "--timeout", "-1", "--", "true", END), ERR_INVALID);
	assert_int_equal(collect_run(w, "time", "-r", END), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "needs a value"));
	assert_int_equal(collect_run(w, "nosuch", "--", "true", END), ERR_INVALID);
	assert_int_equal(list_dir(w->jobs, names, 8), 0);
}

static void test_help(void **state)
{
	struct collect_world *w = *state;
	char *names[8];

	clean_jobs(w);
	fflush(stdout);
	assert_int_equal(collect_run(w, "time", "--help", END), 0);
	assert_int_equal(list_dir(w->jobs, names, 8), 0);
}

/* Ctrl-C in the middle: the command is stopped and nothing is written. */
static void test_interrupted(void **state)
{
	struct collect_world *w = *state;
	char *names[8];
	pid_t helper;

	clean_jobs(w);
	helper = test_sigint_in(300);
	assert_true(helper >= 0);
	assert_int_equal(collect_run(w, "time", "-r", "3", "-w", "0", "--", "sleep", "10", END),
			 ERR_INTERRUPTED);
	waitpid(helper, NULL, 0);
	assert_int_equal(list_dir(w->jobs, names, 8), 0);
	/* And the next collection works as usual. */
	assert_int_equal(collect_run(w, "time", "-r", "1", "-w", "0", "true", END), 0);
	assert_int_equal(list_dir(w->jobs, names, 8), 1);
	free(names[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_true),
		cmocka_unit_test(test_failing_command),
		cmocka_unit_test(test_workload_and_operand),
		cmocka_unit_test(test_same_second),
		cmocka_unit_test(test_capture_log),
		cmocka_unit_test(test_unstartable),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_bad_usage),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests(tests, setup, collect_world_teardown);
}
