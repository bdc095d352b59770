/*
 * veles monitor below its front end: the option checks and --profile's
 * arguments (monitor/options.h), and what the monitor has to say (a
 * module not found, --self, a damaged recording) reaching the callback the
 * front end sets, with no table written when quiet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "monitor/modules.h"
#include "monitor/options.h"
#include "monitor/run.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"

/* The lines said, each ended by '\n'. */
static void hear(void *arg, const char *line)
{
	buf_adds(arg, line);
	buf_addc(arg, '\n');
}

static struct mon_run_opts defaults(void)
{
	return (struct mon_run_opts){.interval = 1, .count = -1, .sep = ' '};
}

static void test_check(void **state)
{
	struct mon_run_opts o = defaults();
	char *cmd[] = {"true", NULL};

	UNUSED(state);
	assert_int_equal(mon_opts_check(&o), 0);
	o.record = "a";
	o.playback = "b";
	assert_int_equal(mon_opts_check(&o), ERR_INVALID);
	assert_string_equal(err_msg(), "-f and -p do not go together");
	o = defaults();
	o.cmd = cmd;
	o.playback = "b";
	assert_int_equal(mon_opts_check(&o), ERR_INVALID);
	assert_string_equal(err_msg(), "-p plays back: it runs no command");
	o = defaults();
	o.profile = true;
	assert_int_equal(mon_opts_check(&o), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "--profile needs a command"));
	o = defaults();
	o.letters = "cq";
	assert_int_equal(mon_opts_check(&o), ERR_INVALID);
	assert_true(strncmp(err_msg(), "unknown subsystem 'q' (one of ", 30) == 0);
	o.letters = "";
	assert_int_equal(mon_opts_check(&o), ERR_INVALID);
	o.letters = "c";
	o.top = "rss";
	assert_int_equal(mon_opts_check(&o), ERR_INVALID);
	assert_string_equal(err_msg(), "--procfilt and --top go with -s Z");
	o.letters = "cZ";
	assert_int_equal(mon_opts_check(&o), 0);
}

static void test_values(void **state)
{
	unsigned long n;
	double secs;

	UNUSED(state);
	assert_int_equal(mon_parse_uint("--count", "12", &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(mon_parse_uint("--count", "-1", &n), ERR_INVALID);
	assert_string_equal(err_msg(), "monitor: --count wants a non-negative integer, not '-1'");
	assert_int_equal(mon_parse_interval("0.5", &secs), 0);
	assert_float_equal(secs, 0.5, 1e-12);
	assert_int_equal(mon_parse_interval("0", &secs), 0);
	assert_int_equal(mon_parse_interval("abc", &secs), ERR_INVALID);
	assert_string_equal(err_msg(), "monitor: bad interval 'abc' (seconds, e.g. 0.5)");
	assert_int_equal(mon_parse_interval("86401", &secs), ERR_INVALID);
}

/* --profile: the summary letters of -s, the interval, the rest as given. */
static void test_profile_args(void **state)
{
	struct mon_run_opts o = defaults();
	char *cmd[] = {"sleep", "1", NULL};
	struct mon_profile_args a;
	struct buf b = BUF_INIT;

	UNUSED(state);
	o.cmd = cmd;
	o.letters = "cDmZ";
	o.interval = 0.25;
	o.count = 4;
	o.per_interval = true;
	o.imports = "hello";
	assert_int_equal(mon_profile_args(&o, &a), 0);
	for (int i = 0; i < a.argc; i++)
		buf_addf(&b, "%s%s", i ? " " : "", a.argv[i]);
	assert_string_equal(buf_str(&b),
			    "monitor -s cm -i 0.25 -c 4 --on --import hello -- sleep 1");
	assert_null(a.argv[a.argc]);
	mon_profile_args_release(&a);
	buf_release(&b);
	/* No count: none passed on; the default letters. */
	o = defaults();
	o.cmd = cmd;
	assert_int_equal(mon_profile_args(&o, &a), 0);
	assert_int_equal(a.argc, 8);
	assert_string_equal(a.argv[2], "cdmn");
	mon_profile_args_release(&a);
	o.format = MON_PLOT;
	assert_int_equal(mon_profile_args(&o, &a), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "--profile prints no table"));
	o = defaults();
	o.cmd = cmd;
	o.interval = 0;
	assert_int_equal(mon_profile_args(&o, &a), ERR_INVALID);
	o.interval = 1;
	o.letters = "CD";
	assert_int_equal(mon_profile_args(&o, &a), ERR_INVALID);
	assert_string_equal(err_msg(), "--profile needs a summary subsystem (lowercase)");
}

/* A module that cannot be loaded, where that is allowed: said, not failed. */
static void test_modules_say(void **state)
{
	struct buf said = BUF_INIT;
	struct mon_modules ms = {.sep = ' ', .say = hear, .say_arg = &said};

	UNUSED(state);
	setenv("VELES_MODULE_PATH", tmp_base, 1);
	assert_int_equal(mon_modules_load(&ms, "nothere"), ERR_NOTFOUND);
	assert_int_equal(said.len, 0);
	ms.skip_unloadable = true;
	assert_int_equal(mon_modules_load(&ms, "nothere"), 0);
	assert_true(strncmp(buf_str(&said), "veles: cannot find module nothere: no nothere.so in ",
			    52) == 0);
	assert_non_null(strstr(buf_str(&said), ": its records are left out\n"));
	assert_int_equal(ms.n, 0);
	mon_modules_unload(&ms);
	buf_release(&said);
	unsetenv("VELES_MODULE_PATH");
}

/* Quiet runs write no table (no stream given); --self and a damaged
 * recording are said through the callback. */
static void test_run_says(void **state)
{
	char *path = xasprintf("%s/rec", tmp_base), *cut = xasprintf("%s/cut", tmp_base);
	struct buf said = BUF_INIT, values = BUF_INIT, data = BUF_INIT;
	struct mon_run_opts o = defaults();

	UNUSED(state);
	o.letters = "m";
	o.interval = 0.005;
	o.count = 30;
	o.quiet = true;
	o.self = true;
	o.record = path;
	o.say = hear;
	o.say_arg = &said;
	assert_int_equal(mon_run(&o), 0);
	assert_true(strncmp(buf_str(&said), "veles monitor: ", 15) == 0);
	assert_non_null(strstr(buf_str(&said), " ms of cpu per sample over 30 samples\n"));
	/* Cut short: played up to the damage, and said once. */
	assert_int_equal(file_read_all(path, &data), 0);
	assert_int_equal(file_write_atomic(cut, data.data, data.len * 2 / 3), 0);
	buf_reset(&said);
	o = defaults();
	o.playback = cut;
	o.quiet = true;
	o.values = &values;
	o.say = hear;
	o.say_arg = &said;
	assert_int_equal(mon_run(&o), 0);
	assert_non_null(strstr(buf_str(&said), "cut is damaged: played back its first "));
	assert_int_equal(strchr(buf_str(&said), '\n') - buf_str(&said) + 1, (long)said.len);
	assert_true(values.len > 0);
	buf_release(&said);
	buf_release(&values);
	buf_release(&data);
	free(path);
	free(cut);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),	     cmocka_unit_test(test_values),
		cmocka_unit_test(test_profile_args), cmocka_unit_test(test_modules_say),
		cmocka_unit_test(test_run_says),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
