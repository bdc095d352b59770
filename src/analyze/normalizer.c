/*
 * normalizer: scales amounts into [-1, 1] by the largest magnitude in each
 * group (resources of one type by default, and of one snapshot when the
 * profile has snapshots), so profiles of different scales can be compared
 * and plotted together. A group whose values are all zero stays zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/strmap.h"

#define NAME "normalizer"

struct norm_opts {
	char *of; /* the value normalised */
	char *by; /* the attribute that groups, or NULL for the whole profile */
};

static void norm_free(void *opts)
{
	struct norm_opts *o = opts;

	if (!o)
		return;
	free(o->of);
	free(o->by);
	free(o);
}

static int norm_by(void *ctx, const struct opt *opt, const char *arg)
{
	struct norm_opts *o = ctx;

	UNUSED(opt);
	free(o->by);
	o->by = strcmp(arg, "none") == 0 ? NULL : xstrdup(arg);
	return 0;
}

static int norm_parse(int argc, char **argv, void **out, char **help)
{
	struct norm_opts *o = xcalloc(1, sizeof(*o));
	const char *of = NULL;
	const struct opt opts[] = {
		OPT_STRING(0, "of", &of, "KEY", "the value to normalise (default: amount)"),
		OPT_CALLBACK(0, "by", "KEY", norm_by,
			     "the attribute that forms groups (default: type);\n"
			     "'none' normalises the whole profile at once"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE normalizer [--of KEY] [--by KEY|--by none]",
		.about =
			"Divides each value by the largest magnitude in its group, so every group\n"
			"ends up in [-1, 1]. Resources of different snapshots never share a group.",
		.opts = opts,
		.ctx = o,
	};
	int nop, ret;

	o->by = xstrdup("type");
	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret < 0 || *help) {
		norm_free(o);
		return ret;
	}
	o->of = xstrdup(of ? of : "amount");
	*out = o;
	return 0;
}

static char *norm_params(const void *opts)
{
	const struct norm_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_addc(&b, '{');
	pp_json_str(&b, &first, "of", o->of);
	/* "none" rather than null: a record's params must replay as options
	 * (veles check --collect-missing does). */
	pp_json_str(&b, &first, "by", o->by ? o->by : "none");
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* A row's group as text: its snapshot and its value of @by. */
static void group_key(const struct profile *p, size_t row, const char *by, struct buf *key)
{
	const struct table *where;
	size_t at;
	const struct column *c;

	buf_reset(key);
	c = profile_attr(p, row, "snapshot", &where, &at);
	if (c && col_has(c, at))
		buf_addf(key, "%.17g", col_num(c, at));
	buf_addc(key, '\x1f');
	if (!by)
		return;
	c = profile_attr(p, row, by, &where, &at);
	if (c && col_has(c, at)) {
		const char *s = col_text(p, c, at);

		if (s)
			buf_adds(key, s);
		else
			buf_addf(key, "%.17g", col_num(c, at));
	}
}

static int norm_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	const struct norm_opts *o = opts;
	size_t n = profile_nres(p);
	size_t *group;
	struct strmap groups = {0};
	double *max = NULL;
	size_t max_cap = 0;
	struct buf key = BUF_INIT;
	struct column *c = table_col(&p->res, o->of);

	UNUSED(env);
	if (n == 0)
		return 0;
	if (!c)
		return err_set(ERR_INVALID, "postprocess " NAME ": no resource has '%s'", o->of);
	c = table_col_get(p, &p->res, o->of, COL_F64);
	if (c->kind != COL_F64)
		return err_set(ERR_INVALID, "postprocess " NAME ": '%s' is not a number", o->of);
	group = xcalloc(n, sizeof(*group));
	for (size_t i = 0; i < n; i++) {
		double v = col_num(c, i);
		bool added;

		if (isnan(v))
			continue;
		group_key(p, i, o->by, &key);
		group[i] = strmap_intern(&groups, buf_str(&key), &added);
		if (added && groups.n > max_cap) {
			max_cap = 2 * groups.n;
			max = xrealloc(max, max_cap * sizeof(*max));
		}
		if (added)
			max[group[i]] = 0;
		if (fabs(v) > max[group[i]])
			max[group[i]] = fabs(v);
	}
	for (size_t i = 0; i < n; i++) {
		double v = col_num(c, i);

		if (!isnan(v) && max[group[i]] > 0)
			col_set_f64(&p->res, c, i, v / max[group[i]]);
	}
	free(group);
	strmap_free(&groups);
	free(max);
	buf_release(&key);
	return 0;
}

const struct postproc pp_normalizer = {
	.name = NAME,
	.summary = "scale values into [-1, 1] per resource type (and snapshot)",
	.parse = norm_parse,
	.params_json = norm_params,
	.run = norm_run,
	.free_opts = norm_free,
};
