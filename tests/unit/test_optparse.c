#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

struct vals {
	bool quiet, verbose;
	long repeat;
	double timeout;
	const char *out;
	int seen;
	char last[32];
};

static int note(void *ctx, const struct opt *o, const char *arg)
{
	struct vals *v = ctx;

	UNUSED(o);
	v->seen++;
	snprintf(v->last, sizeof(v->last), "%s", arg ? arg : "(none)");
	return strcmp(v->last, "bad") == 0 ? err_set(ERR_INVALID, "x: bad is bad") : 0;
}

#define TABLE(v, common)                                                                           \
	struct opt common[] = {                                                                    \
		OPT_GROUP("Common options:"),                                                      \
		OPT_BOOL('q', "quiet", &(v).quiet, "no summary"),                                  \
		OPT_HELP_LINE(),                                                                   \
		OPT_END(),                                                                         \
	};                                                                                         \
	struct opt opts[] = {                                                                      \
		OPT_LONG('r', "repeat", &(v).repeat, "N", 1, "measured runs\nat least one"),       \
		OPT_DOUBLE(0, "timeout", &(v).timeout, "S", 0, "stop after S seconds"),            \
		OPT_STRING('o', "output", &(v).out, "FILE", "where to write"),                     \
		OPT_BOOL('v', "verbose", &(v).verbose, NULL),                                      \
		OPT_CALLBACK(0, "report", "KIND", note, "a callback"),                             \
		OPT_INCLUDE(common),                                                               \
		OPT_END(),                                                                         \
	};                                                                                         \
	struct optparse p = {.name = "collect time",                                               \
			     .usage = "veles collect time [OPTIONS] CMD",                          \
			     .opts = opts,                                                         \
			     .ctx = &(v)}

static int parse(struct optparse *p, int flags, char **argv, int *nop)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	p->flags = flags;
	return opt_parse(p, argc, argv, nop);
}

static void test_forms(void **state)
{
	struct vals v = {0};
	TABLE(v, common);
	char *argv[] = {"time",	    "-qv", "a",	 "-r5",	   "--timeout=1.5",
			"b",	    "-o",  "f",	 "--repe", "7",
			"--repo=x", "--",  "-c", NULL};
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, 0, argv, &n), 0);
	assert_true(v.quiet && v.verbose);
	assert_int_equal(v.repeat, 7); /* --repe: the one option it begins */
	assert_true(v.timeout == 1.5);
	assert_string_equal(v.out, "f");
	assert_int_equal(v.seen, 1);
	assert_string_equal(v.last, "x");
	/* Operands in order, wherever they stood; "--" ends the options. */
	assert_int_equal(n, 3);
	assert_string_equal(argv[1], "a");
	assert_string_equal(argv[2], "b");
	assert_string_equal(argv[3], "-c");
	/* The options follow, in order: argv still holds every string. */
	assert_string_equal(argv[4], "-qv");
	assert_string_equal(argv[12], "--");
	assert_null(argv[13]);
}

static void test_stop_at_operand(void **state)
{
	struct vals v = {0};
	TABLE(v, common);
	char *argv[] = {"time", "-r", "3", "./prog", "-q", "--repeat", "9", NULL};
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, OPTP_STOP_AT_OPERAND, argv, &n), 0);
	assert_int_equal(v.repeat, 3);
	assert_false(v.quiet);
	assert_int_equal(n, 4);
	assert_string_equal(argv[1], "./prog");
	assert_string_equal(argv[4], "9");
}

/* OPT_ARG2: the callback takes each of the two values in turn. */
static void test_two_values(void **state)
{
	struct vals v = {0};
	struct opt opts[] = {
		{.kind = OPT_KIND_CALLBACK,
		 .short_name = 'f',
		 .long_name = "filter-by",
		 .argh = "KEY VALUE",
		 .cb = note,
		 .flags = OPT_ARG2,
		 .help = "two values"},
		OPT_END(),
	};
	struct optparse p = {.name = "show", .usage = "veles show", .opts = opts, .ctx = &v};
	char *argv[] = {"show", "--filter-by", "uid", "main", "x", "-f", "k", "v", NULL};
	char *eq[] = {"show", "--filter=uid", "main", NULL}, *one[] = {"show", "-f", "k", NULL};
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, 0, argv, &n), 0);
	assert_int_equal(v.seen, 4);
	assert_string_equal(v.last, "v");
	assert_int_equal(n, 1);
	assert_string_equal(argv[1], "x");
	assert_int_equal(parse(&p, 0, eq, &n), 0);
	assert_int_equal(v.seen, 6);
	assert_string_equal(v.last, "main");
	assert_int_equal(parse(&p, 0, one, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "show: option '--filter-by' needs two values");
}

static void test_errors(void **state)
{
	struct vals v = {0};
	TABLE(v, common);
	char *unknown[] = {"t", "--repaet=2", NULL}, *ambiguous[] = {"t", "--re", "1", NULL},
	     *small[] = {"t", "-r", "0", NULL}, *missing[] = {"t", "a", "--output", NULL},
	     *flagval[] = {"t", "--quiet=1", NULL}, *neg[] = {"t", "--timeout", "-1", NULL},
	     *cb[] = {"t", "--report", "bad", NULL}, *shortx[] = {"t", "-qx", NULL};
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, 0, unknown, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: unknown option '--repaet=2'");
	assert_int_equal(parse(&p, 0, ambiguous, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: ambiguous option '--re'");
	assert_int_equal(parse(&p, 0, small, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: --repeat needs a whole number >= 1, not '0'");
	assert_int_equal(parse(&p, 0, missing, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: option '--output' needs a value");
	assert_int_equal(parse(&p, 0, flagval, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: option '--quiet' takes no value");
	assert_int_equal(parse(&p, 0, neg, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: --timeout needs a positive number, not '-1'");
	assert_int_equal(parse(&p, 0, cb, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "x: bad is bad");
	assert_int_equal(parse(&p, 0, shortx, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect time: unknown option '-x'");
	/* The argv is left as it was on an error. */
	assert_string_equal(missing[1], "a");
}

static void test_help(void **state)
{
	struct vals v = {0};
	TABLE(v, common);
	char *h[] = {"t", "-r", "2", "--help", "-r", "0", NULL}, *hs[] = {"t", "-h", NULL};
	struct buf b = BUF_INIT;
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, 0, h, &n), OPT_HELP);
	assert_int_equal(parse(&p, OPTP_NO_HELP, hs, &n), OPT_HELP); /* listed: still help */
	p.about = "Runs CMD.";
	opt_help(&p, &b);
	assert_string_equal(buf_str(&b), "usage: veles collect time [OPTIONS] CMD\n"
					 "\n"
					 "Runs CMD.\n"
					 "\n"
					 "  -r, --repeat N     measured runs\n"
					 "                     at least one\n"
					 "      --timeout S    stop after S seconds\n"
					 "  -o, --output FILE  where to write\n"
					 "      --report KIND  a callback\n"
					 "\n"
					 "Common options:\n"
					 "  -q, --quiet        no summary\n"
					 "  -h, --help         this help\n");
	buf_release(&b);
}

/* Perun's spellings: one-dash multi-letter names, --long_with_underscores,
 * other long names; none of them in the help, none matched as a prefix. */
static void test_aliases(void **state)
{
	struct vals v = {0};
	struct opt opts[] = {
		OPT_LONG('r', "repeat-count", &v.repeat, "N", 1, "runs"),
		OPT_STRING('o', "output", &v.out, "FILE", "where"),
		OPT_DASH_ALIAS("rc", "repeat-count"),
		OPT_DASH_ALIAS("of", "output"),
		OPT_ALIAS("output-file", "output"),
		OPT_BOOL('q', "quiet", &v.quiet, "quiet"),
		OPT_END(),
	};
	struct optparse p = {.name = "pp", .usage = "pp", .opts = opts};
	char *a[] = {"pp", "-rc", "4", "-of=x", "--repeat_count=5", "-qo", "y", NULL};
	char *b[] = {"pp", "--output-file", "z", "-rc6", NULL};
	char *c[] = {"pp", "--output-f", "z", NULL}, *d[] = {"pp", "--repeat_count=1", NULL};
	struct buf h = BUF_INIT;
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, OPTP_UNDERSCORES, a, &n), 0);
	assert_int_equal(v.repeat, 5);
	assert_string_equal(v.out, "y");
	assert_true(v.quiet);
	assert_int_equal(parse(&p, 0, b, &n), ERR_INVALID); /* -rc6 is -r c6 */
	assert_string_equal(err_msg(), "pp: --repeat-count needs a whole number >= 1, not 'c6'");
	assert_string_equal(v.out, "z");
	assert_int_equal(parse(&p, 0, c, &n), ERR_INVALID); /* aliases are not prefixes */
	assert_string_equal(err_msg(), "pp: unknown option '--output-f'");
	assert_int_equal(parse(&p, 0, d, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "pp: unknown option '--repeat_count=1'");
	opt_help(&p, &h);
	assert_null(strstr(buf_str(&h), "rc"));
	assert_null(strstr(buf_str(&h), "output-file"));
	buf_release(&h);
}

/* A table may restate an included option: its own short name and help. */
static void test_restated(void **state)
{
	struct vals v = {0};
	bool own = false;
	struct opt common[] = {
		OPT_GROUP("Common options:"),
		OPT_DOUBLE(0, "timeout", &v.timeout, "S", 0, "stop a run after S seconds"),
		OPT_BOOL(0, "tick", &v.verbose, "a tick"),
		OPT_END(),
	};
	struct opt opts[] = {
		OPT_DOUBLE('t', "timeout", &v.timeout, "S", 0, "stop COMMAND after S seconds"),
		OPT_BOOL(0, "own", &own, "its own"),
		OPT_INCLUDE(common),
		OPT_END(),
	};
	struct optparse p = {.name = "collect trace", .usage = "u", .opts = opts};
	char *a[] = {"t", "-t", "2", NULL}, *b[] = {"t", "--time=3", NULL},
	     *c[] = {"t", "--ti", "1", NULL};
	struct buf h = BUF_INIT;
	int n;

	UNUSED(state);
	assert_int_equal(parse(&p, 0, a, &n), 0);
	assert_true(v.timeout == 2);
	/* --time names one option, though two entries spell it. */
	assert_int_equal(parse(&p, 0, b, &n), 0);
	assert_true(v.timeout == 3);
	assert_int_equal(parse(&p, 0, c, &n), ERR_INVALID);
	assert_string_equal(err_msg(), "collect trace: ambiguous option '--ti'");
	opt_help(&p, &h);
	assert_string_equal(buf_str(&h), "usage: u\n"
					 "\n"
					 "  -t, --timeout S  stop COMMAND after S seconds\n"
					 "      --own        its own\n"
					 "\n"
					 "Common options:\n"
					 "      --tick       a tick\n");
	buf_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),	   cmocka_unit_test(test_stop_at_operand),
		cmocka_unit_test(test_two_values), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),	   cmocka_unit_test(test_restated),
		cmocka_unit_test(test_aliases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
