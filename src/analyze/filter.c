/*
 * filter: keeps the resources that match conditions such as 'amount>100',
 * 'subtype=malloc' or 'uid~^SLList_' and drops the rest
 * (docs/postprocess/filter.md).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "analyze/where.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

#define NAME "filter"

struct filter_opts {
	struct where *c;
	size_t n;
	bool any;
};

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

static int filter_where(void *ctx, const struct opt *opt, const char *arg)
{
	struct filter_opts *o = ctx;

	UNUSED(opt);
	o->c = xrealloc(o->c, (o->n + 1) * sizeof(*o->c));
	/* freed with @o either way */
	return where_parse(arg, "postprocess " NAME ": --where", &o->c[o->n++]);
}

static int filter_any(void *ctx, const struct opt *opt, const char *arg)
{
	struct filter_opts *o = ctx;

	UNUSED(arg);
	o->any = strcmp(opt->long_name, "any") == 0;
	return 0;
}

static int filter_parse(int argc, char **argv, void **out, char **help)
{
	struct filter_opts *o = xcalloc(1, sizeof(*o));
	const struct opt opts[] = {
		OPT_CALLBACK(0, "where", "COND", filter_where,
			     "a condition, e.g. 'amount>100', 'uid~^SLList_' (repeatable)"),
		OPT_FLAG_CALLBACK(0, "any", filter_any,
				  "keep resources satisfying at least one condition"),
		OPT_FLAG_CALLBACK(0, "no-any", filter_any, "every condition (the default)"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE filter --where COND... [--any]",
		.about = "Keeps the resources that satisfy every COND (any one with --any) and "
			 "drops\n"
			 "the others. COND is KEY OP VALUE, OP one of = != < <= > >= ~ !~ (~ "
			 "matches\n"
			 "a POSIX extended regular expression anywhere in the value). Both sides "
			 "are\n"
			 "compared as numbers when both are numbers, else as text. A resource "
			 "without\n"
			 "KEY fails the condition. 'uid' is the uid as `veles show` prints it.",
		.opts = opts,
		.ctx = o,
	};
	int nop, ret;

	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret == 0 && !*help && o->n == 0)
		ret = err_set(ERR_INVALID,
			      "postprocess " NAME ": give at least one --where KEY OP VALUE");
	if (ret < 0 || *help) {
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

static int filter_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	const struct filter_opts *o = opts;
	size_t n = profile_nres(p);
	bool *keep = xmalloc(n + 1);
	struct buf scratch = BUF_INIT;

	UNUSED(env);
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
	.parse = filter_parse,
	.params_json = filter_params,
	.run = filter_run,
	.free_opts = filter_free,
};
