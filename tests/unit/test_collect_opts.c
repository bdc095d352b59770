/*
 * The collectors that parse from an option table (regex, memory, monitor,
 * bounds): a bad option is one line naming it, -h gives the help made from
 * the table through the message callback and collects nothing, and what a
 * collection says (its summary, a failing command's warning) reaches the
 * callback and nothing else.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/collector.h"
#include "collect_world.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

#define END ((char *)NULL)

/* The profiles in the jobs directory. */
static size_t njobs(const struct collect_world *w)
{
	DIR *d = opendir(w->jobs);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)))
		n += strstr(de->d_name, ".perf") != NULL;
	if (d)
		closedir(d);
	return n;
}

static const char *const table_collectors[] = {"regex", "memory", "monitor", "bounds"};

/* An unknown option: ERR_INVALID and one line naming it, for each. */
static void test_unknown_option(void **state)
{
	struct collect_world *w = *state;

	for (size_t i = 0; i < ARRAY_SIZE(table_collectors); i++) {
		char want[64];

		snprintf(want, sizeof(want), "collect %s: unknown option '--bogus'",
			 table_collectors[i]);
		assert_int_equal(collect_run(w, table_collectors[i], "--bogus", "--", "true", END),
				 ERR_INVALID);
		assert_string_equal(err_msg(), want);
		assert_null(strchr(err_msg(), '\n'));
	}
	assert_int_equal(w->h.n[COLLECT_MSG_OUT] + w->h.n[COLLECT_MSG_ERR], 0);
	assert_int_equal(njobs(w), 0);
}

/* A bad value: the collector's own check, one line. */
static void test_bad_values(void **state)
{
	struct collect_world *w = *state;

	assert_int_equal(collect_run(w, "memory", "--children", "twice", "--", "true", END),
			 ERR_INVALID);
	assert_string_equal(err_msg(), "collect memory: --children takes follow, separate or "
				       "none, not 'twice'");
	assert_int_equal(
		collect_run(w, "regex", "-e", "(?<amount>\\d+)", "-r", "0", "--", "true", END),
		ERR_INVALID);
	assert_string_equal(err_msg(),
			    "collect regex: --repeat needs a whole number >= 1, not '0'");
	assert_int_equal(collect_run(w, "regex", "--stream", "out", "--", "true", END),
			 ERR_INVALID);
	assert_string_equal(err_msg(), "collect regex: --stream is stdout, stderr or both, not "
				       "'out'");
	assert_int_equal(collect_run(w, "monitor", "-s", "C", "--", "true", END), ERR_INVALID);
	assert_string_equal(err_msg(), "collect monitor: 'C' is not a summary subsystem");
	assert_int_equal(collect_run(w, "monitor", "-i", "0", "--", "true", END), ERR_INVALID);
	assert_string_equal(err_msg(), "collect monitor: bad interval '0'");
	assert_int_equal(collect_run(w, "memory", "-s", "-1", "--", "true", END), ERR_INVALID);
	assert_string_equal(err_msg(), "collect memory: --sampling needs a positive number of "
				       "seconds, not '-1'");
	/* The job matrix checks options alone, with no command run. */
	assert_int_equal(collect_check_options(3, (char *[]){"regex", "--format", "nope", NULL}),
			 ERR_INVALID);
	assert_non_null(strstr(err_msg(), "unknown --format 'nope'"));
	assert_int_equal(collect_check_options(3, (char *[]){"memory", "--unwind", "fp", NULL}), 0);
}

/* -h: the usage, the table's options and the common ones, said once as
 * output; nothing is collected. */
static void test_help_from_table(void **state)
{
	static const char *const own[] = {"--pattern PATTERN", "--no-children", "--on",
					  "--source-dir DIR"};
	struct collect_world *w = *state;

	for (size_t i = 0; i < ARRAY_SIZE(table_collectors); i++) {
		char usage[64];
		const char *text;

		collect_heard_reset(&w->h);
		assert_int_equal(collect_run(w, table_collectors[i], "--help", END), 0);
		assert_int_equal(w->h.n[COLLECT_MSG_OUT], 1);
		assert_int_equal(w->h.n[COLLECT_MSG_ERR], 0);
		text = buf_str(&w->h.said[COLLECT_MSG_OUT]);
		snprintf(usage, sizeof(usage), "usage: veles collect %s ", table_collectors[i]);
		assert_true(strncmp(text, usage, strlen(usage)) == 0);
		assert_non_null(strstr(text, own[i]));
		assert_non_null(strstr(text, "\nCommon options:\n"));
		assert_non_null(strstr(text, "  -o, --output-handling MODE"));
	}
	/* The formats, listed from their table. */
	assert_int_equal(collect_run(w, "regex", "-h", END), 0);
	assert_non_null(strstr(buf_str(&w->h.said[COLLECT_MSG_OUT]), "pytest-benchmark"));
	assert_int_equal(njobs(w), 0);
	/* Asked for where only options are checked, help is an error. */
	assert_int_equal(collect_check_options(2, (char *[]){"bounds", "-h", NULL}), ERR_INVALID);
}

/* No callback: nothing is said, and the collection is the same. */
static void test_silent_without_callback(void **state)
{
	struct collect_world *w = *state;

	w->env.message = NULL;
	assert_int_equal(collect_run(w, "regex", "--help", END), 0);
	assert_int_equal(collect_run(w, "regex", "-e", "(?<amount>\\d+)", "--", "echo", "7", END),
			 0);
	assert_int_equal(njobs(w), 1);
	w->env.message = collect_hear;
	assert_int_equal(w->h.n[COLLECT_MSG_OUT] + w->h.n[COLLECT_MSG_ERR], 0);
}

/* A collection's summary is output; a failing command's warning a line. */
static void test_summary_and_warning(void **state)
{
	struct collect_world *w = *state;
	const char *out;

	w->env.quiet = false;
	collect_heard_reset(&w->h);
	assert_int_equal(collect_run(w, "regex", "-e", "(?<uid>\\w+): (?<amount>\\d+)", "--", "sh",
				     "-c", "echo a: 5; exit 3", END),
			 0);
	w->env.quiet = true;
	out = buf_str(&w->h.said[COLLECT_MSG_OUT]);
	assert_true(strncmp(out, "Benchmark: sh -c 'echo a: 5; exit 3'\n", 37) == 0);
	assert_non_null(strstr(out, "  1 run, 1 line read: 1 matched\n"));
	assert_non_null(strstr(out, "  1 location, amounts in no unit:\n"));
	assert_int_equal(w->h.n[COLLECT_MSG_OUT], 1);
	assert_non_null(strstr(buf_str(&w->h.said[COLLECT_MSG_ERR]),
			       "Warning: command exited with status 3 in 1 of 1 runs|"));
	/* Every line whole: no newline inside a line to stderr. */
	assert_null(strchr(buf_str(&w->h.said[COLLECT_MSG_ERR]), '\n'));
}

/* collect bounds takes its words after -- as NAME and compiler flags, and
 * needs no command; it needs a source. */
static void test_bounds_words(void **state)
{
	struct collect_world *w = *state;

	assert_int_equal(collect_run(w, "bounds", "--cmd", "prog", END), ERR_INVALID);
	assert_string_equal(err_msg(),
			    "collect bounds: no source to analyse (-s FILE.c or -d DIR)");
	assert_int_equal(collect_check_options(3, (char *[]){"bounds", "--src", "a.c", NULL}), 0);
	assert_int_equal(collect_check_options(3, (char *[]){"bounds", "--sourc", "a.c", NULL}),
			 ERR_INVALID);
	assert_non_null(strstr(err_msg(), "ambiguous option '--sourc'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unknown_option, collect_world_setup,
						collect_world_teardown),
		cmocka_unit_test_setup_teardown(test_bad_values, collect_world_setup,
						collect_world_teardown),
		cmocka_unit_test_setup_teardown(test_help_from_table, collect_world_setup,
						collect_world_teardown),
		cmocka_unit_test_setup_teardown(test_silent_without_callback, collect_world_setup,
						collect_world_teardown),
		cmocka_unit_test_setup_teardown(test_summary_and_warning, collect_world_setup,
						collect_world_teardown),
		cmocka_unit_test_setup_teardown(test_bounds_words, collect_world_setup,
						collect_world_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
