/*
 * collect/perf: the profiles of veles stat and veles record, built from
 * what the loops measured and filed as the collectors file theirs; a save
 * that fails (here: a file-size limit of one byte) leaves no empty .perf.
 */
#include <dirent.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/perf/perf_profile.h"
#include "collect/perf/stat_text.h"
#include "perf/counters.h"
#include "perf/datafile.h"
#include "profile/profile.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/error.h"

/* Two events, counted over two intervals of `./prog -n 3`. */
static struct perf_counter counter_v[] = {
	{.name = "cycles", .attr = {.type = PERF_TYPE_HARDWARE}},
	{.name = "task-clock",
	 .attr = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK}},
};
static const struct perf_counters counters = {counter_v, 2};
static char *run_argv[] = {"./prog", "-n", "3", NULL};
static struct stat_record recs[] = {
	{0.1, 0, {100, 100, 10, 10}},
	{0.1, 1, {5e6, 5000000, 10, 10}},
	{0.2, 0, {250, 200, 10, 8}},
	{0.2, 1, {0, 0, 10, 0}}, /* never on a counter: no measurement */
};
static const struct stat_run run = {
	.argv = run_argv,
	.argc = 3,
	.events = "cycles,task-clock",
	.interval_ms = 100,
	.elapsed = 0.2,
	.recs = recs,
	.nrecs = 4,
};

static size_t perf_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".perf") != NULL;
	closedir(d);
	return n;
}

static void test_stat_profile(void **state)
{
	struct profile *p = stat_profile(&run, &counters, "abc");
	struct buf uid = BUF_INIT;

	UNUSED(state);
	assert_string_equal(p->type, "counters");
	assert_string_equal(p->cmd, "./prog");
	assert_string_equal(p->args, "-n 3");
	assert_string_equal(p->collector, "stat");
	assert_string_equal(p->origin, "abc");
	assert_non_null(strstr(p->collector_params, "\"interval_ms\":100"));
	assert_int_equal(p->types.nrows, 2);
	assert_int_equal(profile_nres(p), 3);
	assert_string_equal(profile_uid(p, 2, &uid), "cycles");
	assert_true(profile_amount(p, 2) == 250);
	buf_release(&uid);
	profile_free(p);
}

static void test_saved(void **state)
{
	char *dir = tmp_fresh_dir(), *path;
	struct profile *back;

	UNUSED(state);
	assert_int_equal(stat_save_profile(&run, &counters, dir, NULL, &path), 0);
	assert_non_null(strstr(path, "/prog-stat-"));
	assert_int_equal(profile_load(path, &back), 0);
	assert_int_equal(profile_nres(back), 3);
	profile_free(back);
	assert_int_equal(perf_files(dir), 1);
	free(path);
	free(dir);
}

/* The save in a child whose files may hold one byte: the claim (an empty
 * file) is made, the profile cannot be written. Returns its exit status. */
static int save_limited(const char *dir, bool record, const char *data)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit one = {1, 1};
		struct record_info ri = {.data_path = data, .label = "pid-1"};
		char *path = (char *)1;
		int ret;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &one);
		ret = record ? record_save_profile(&ri, dir, &path)
			     : stat_save_profile(&run, &counters, dir, NULL, &path);
		_exit(ret < 0 && path == NULL ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* An empty recording of cpu-clock, as `veles record` writes one. */
static char *empty_recording(void)
{
	char *path = xasprintf("%s/empty.data", tmp_base);
	struct perf_data_writer w;
	struct perf_data_header h = {.magic = PERF_DATA_MAGIC, .version = PERF_DATA_VERSION};

	h.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
	h.name_len = (uint32_t)strlen("cpu-clock");
	h.header_size = (uint32_t)(sizeof(h) + h.name_len);
	h.period = 99;
	h.freq = 1;
	assert_int_equal(perf_data_create(&w, path, &h, "cpu-clock"), 0);
	assert_int_equal(perf_data_close(&w, true), 0);
	return path;
}

static void test_failed_save_leaves_nothing(void **state)
{
	char *dir = tmp_fresh_dir(), *data = empty_recording(), *path;

	UNUSED(state);
	assert_true(record_file_is_recording(data));
	assert_int_equal(save_limited(dir, false, NULL), 0);
	assert_int_equal(save_limited(dir, true, data), 0);
	assert_int_equal(perf_files(dir), 0);
	/* Without the limit the same saves succeed: the failure was the write. */
	assert_int_equal(
		record_save_profile(&(struct record_info){.data_path = data, .label = "pid-1"}, dir,
				    &path),
		0);
	assert_int_equal(perf_files(dir), 1);
	free(path);
	free(data);
	free(dir);
}

static void test_no_jobs_dir(void **state)
{
	char *dir = xasprintf("%s/missing", tmp_base), *path = (char *)1;

	UNUSED(state);
	assert_int_equal(stat_save_profile(&run, &counters, dir, NULL, &path), ERR_IO);
	assert_null(path);
	assert_non_null(strstr(err_msg(), "cannot write a profile in"));
	free(dir);
}

/* The layouts of `veles stat`: perf's text, CSV with a separator, JSON. */
static void test_stat_text(void **state)
{
	struct pcount_value v[] = {{300, 200, 10, 5}, {0, 0, 10, 0}};
	struct stat_out o = {STAT_CSV, ";", &counters};
	struct buf b = BUF_INIT;

	UNUSED(state);
	stat_text(&o, v, 1e9, -1, &b);
	assert_string_equal(buf_str(&b),
			    "300;;cycles;5;50.00;;\n<not counted>;msec;task-clock;0;0.00;;\n");
	buf_reset(&b);
	o.fmt = STAT_JSON;
	stat_text(&o, v, 1e9, 0.5, &b);
	assert_non_null(
		strstr(buf_str(&b),
		       "{\"interval\":0.500000000,\"event\":\"cycles\",\"counter-value\":300,"));
	assert_non_null(strstr(
		buf_str(&b), "\"event\":\"task-clock\",\"counter-value\":null,\"supported\":true"));
	buf_reset(&b);
	o.fmt = STAT_TEXT;
	stat_text(&o, v, 1e9, -1, &b);
	assert_non_null(strstr(buf_str(&b), "cycles"));
	assert_non_null(strstr(buf_str(&b), "  (50.00%)\n"));
	buf_reset(&b);
	stat_text_title(run_argv, 3, 0, false, &b);
	assert_string_equal(buf_str(&b), "\n Performance counter stats for './prog -n 3':\n\n");
	buf_reset(&b);
	stat_text_title(NULL, 0, 42, false, &b);
	assert_string_equal(buf_str(&b), "\n Performance counter stats for process id '42':\n\n");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_profile),
		cmocka_unit_test(test_saved),
		cmocka_unit_test(test_failed_save_leaves_nothing),
		cmocka_unit_test(test_no_jobs_dir),
		cmocka_unit_test(test_stat_text),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
