/*
 * filter: keeps the resources that match conditions such as 'amount>100',
 * 'subtype=malloc' or 'uid~^SLList_' and drops the rest
 * (docs/postprocess/filter.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "analyze/where.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

#define NAME "filter"

struct filter_opts {
	struct where *c;
	size_t n;
	bool any;
};

static void filter_usage(void)
{
	printf("usage: veles postprocess PROFILE filter --where COND... [--any]\n"
	       "\n"
	       "Keeps the resources that satisfy every COND (any one with --any) and drops\n"
	       "the others. COND is KEY OP VALUE, OP one of = != < <= > >= ~ !~ (~ matches\n"
	       "a POSIX extended regular expression anywhere in the value). Both sides are\n"
	       "compared as numbers when both are numbers, else as text. A resource without\n"
	       "KEY fails the condition. 'uid' is the uid as `veles show` prints it.\n"
	       "\n"
	       "  --where COND   a condition, e.g. 'amount>100', 'uid~^SLList_' (repeatable)\n"
	       "  --any          keep resources satisfying at least one condition\n"
	       "  --no-any       every condition (the default)\n");
}

static void filter_free(void *opts)
{
	struct filter_opts *o = opts;

	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		where_release(&o->c[i]);
	free(o->c);
	free(o);
}

static int filter_parse(int argc, char **argv, void **out)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"where", required_argument, NULL, 'w'},
		{"any", no_argument, NULL, 'a'},
		{"no-any", no_argument, NULL, 'A'},
		{NULL, 0, NULL, 0},
	};
	struct filter_opts *o = xcalloc(1, sizeof(*o));
	int opt, ret = 0;

	*out = NULL;
	optind = 1;
	opterr = 0;
	while (ret == 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			filter_usage();
			filter_free(o);
			return 0;
		}
		if (opt == 'a' || opt == 'A') {
			o->any = opt == 'a';
		} else if (opt == 'w') {
			o->c = xrealloc(o->c, (o->n + 1) * sizeof(*o->c));
			ret = where_parse(optarg, "postprocess " NAME ": --where",
					  &o->c[o->n++]); /* freed with @o either way */
		} else {
			ret = pp_bad_option(NAME, opt, argv);
		}
	}
	if (ret == 0 && optind < argc)
		ret = err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			      argv[optind]);
	if (ret == 0 && o->n == 0)
		ret = err_set(ERR_INVALID,
			      "postprocess " NAME ": give at least one --where KEY OP VALUE");
	if (ret < 0) {
		filter_free(o);
		return ret;
	}
	*out = o;
	return 0;
}

static char *filter_params(const void *opts)
{
	const struct filter_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_adds(&b, "{\"where\":[");
	for (size_t i = 0; i < o->n; i++) {
		if (i)
			buf_addc(&b, ',');
		buf_add_json_str(&b, o->c[i].text, strlen(o->c[i].text));
	}
	buf_addc(&b, ']');
	first = false;
	pp_json_bool(&b, &first, "any", o->any);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

static int filter_run(struct profile *p, const void *opts)
{
	const struct filter_opts *o = opts;
	size_t n = profile_nres(p);
	bool *keep = xmalloc(n + 1);
	struct buf scratch = BUF_INIT;

	for (size_t r = 0; r < n; r++) {
		size_t i;

		for (i = 0; i < o->n; i++)
			if (where_holds(&o->c[i], p, r, &scratch) == o->any)
				break;
		/* all: no condition failed; any: one held */
		keep[r] = o->any ? i < o->n : i == o->n;
	}
	profile_res_keep(p, keep);
	free(keep);
	buf_release(&scratch);
	return 0;
}

const struct postproc pp_filter = {
	.name = NAME,
	.summary = "keep only the resources that match conditions (uid~REGEX, amount>100, ...)",
	.usage = filter_usage,
	.parse = filter_parse,
	.params_json = filter_params,
	.run = filter_run,
	.free_opts = filter_free,
};
