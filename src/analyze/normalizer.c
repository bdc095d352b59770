/*
 * normalizer: scales amounts into [-1, 1] by the largest magnitude in each
 * group (resources of one type by default, and of one snapshot when the
 * profile has snapshots), so profiles of different scales can be compared
 * and plotted together. A group whose values are all zero stays zero.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

#define NAME "normalizer"

struct norm_opts {
	char *of; /* the value normalised */
	char *by; /* the attribute that groups, or NULL for the whole profile */
};

static void norm_usage(void)
{
	printf("usage: veles postprocess PROFILE normalizer [--of KEY] [--by KEY|--by none]\n"
	       "\n"
	       "Divides each value by the largest magnitude in its group, so every group\n"
	       "ends up in [-1, 1]. Resources of different snapshots never share a group.\n"
	       "\n"
	       "  --of KEY   the value to normalise (default: amount)\n"
	       "  --by KEY   the attribute that forms groups (default: type);\n"
	       "             'none' normalises the whole profile at once\n");
}

static void norm_free(void *opts)
{
	struct norm_opts *o = opts;

	if (!o)
		return;
	free(o->of);
	free(o->by);
	free(o);
}

static int norm_parse(int argc, char **argv, void **out)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"of", required_argument, NULL, 'O'},
		{"by", required_argument, NULL, 'B'},
		{NULL, 0, NULL, 0},
	};
	struct norm_opts *o = xcalloc(1, sizeof(*o));
	int opt;

	o->of = xstrdup("amount");
	o->by = xstrdup("type");
	*out = NULL;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			norm_usage();
			norm_free(o);
			return 0;
		case 'O':
			free(o->of);
			o->of = xstrdup(optarg);
			break;
		case 'B':
			free(o->by);
			o->by = strcmp(optarg, "none") == 0 ? NULL : xstrdup(optarg);
			break;
		default:
			norm_free(o);
			return pp_bad_option(NAME, opt, argv);
		}
	}
	if (optind < argc) {
		norm_free(o);
		return err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			       argv[optind]);
	}
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
	pp_json_str(&b, &first, "by", o->by);
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

/* Rows map to groups through a small open-addressed table keyed by text;
 * each group's largest magnitude sits in a dense array by group number. */
struct groups {
	char **keys;
	size_t *slot_group; /* the group number of each used slot */
	size_t n, cap;	    /* cap is a power of two */
	double *max;	    /* by group number */
};

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t *groups_slot(char **keys, size_t *slot_group, size_t cap, const char *key,
			   bool *found)
{
	size_t i;

	for (i = hash_text(key) & (cap - 1); keys[i]; i = (i + 1) & (cap - 1)) {
		if (strcmp(keys[i], key) == 0) {
			*found = true;
			return &slot_group[i];
		}
	}
	*found = false;
	return &slot_group[i];
}

static void groups_grow(struct groups *g)
{
	size_t cap = g->cap ? 2 * g->cap : 64;
	char **keys = xcalloc(cap, sizeof(*keys));
	size_t *slot_group = xcalloc(cap, sizeof(*slot_group));
	bool found;

	for (size_t i = 0; i < g->cap; i++) {
		if (g->keys[i]) {
			size_t *s = groups_slot(keys, slot_group, cap, g->keys[i], &found);

			*s = g->slot_group[i];
			keys[s - slot_group] = g->keys[i];
		}
	}
	free(g->keys);
	free(g->slot_group);
	g->keys = keys;
	g->slot_group = slot_group;
	g->cap = cap;
	g->max = xrealloc(g->max, cap / 2 * sizeof(*g->max));
}

static size_t groups_get(struct groups *g, const char *key)
{
	size_t *s;
	bool found;

	if (2 * (g->n + 1) > g->cap)
		groups_grow(g);
	s = groups_slot(g->keys, g->slot_group, g->cap, key, &found);
	if (!found) {
		g->keys[s - g->slot_group] = xstrdup(key);
		*s = g->n;
		g->max[g->n++] = 0;
	}
	return *s;
}

static void groups_free(struct groups *g)
{
	for (size_t i = 0; i < g->cap; i++)
		free(g->keys[i]);
	free(g->keys);
	free(g->slot_group);
	free(g->max);
}

static int norm_run(struct profile *p, const void *opts)
{
	const struct norm_opts *o = opts;
	size_t n = profile_nres(p);
	size_t *group;
	struct groups groups = {0};
	struct buf key = BUF_INIT;
	struct column *c = table_col(&p->res, o->of);

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

		if (isnan(v))
			continue;
		group_key(p, i, o->by, &key);
		group[i] = groups_get(&groups, buf_str(&key));
		if (fabs(v) > groups.max[group[i]])
			groups.max[group[i]] = fabs(v);
	}
	for (size_t i = 0; i < n; i++) {
		double v = col_num(c, i);

		if (!isnan(v) && groups.max[group[i]] > 0)
			col_set_f64(&p->res, c, i, v / groups.max[group[i]]);
	}
	free(group);
	groups_free(&groups);
	buf_release(&key);
	return 0;
}

const struct postproc pp_normalizer = {
	.name = NAME,
	.summary = "scale values into [-1, 1] per resource type (and snapshot)",
	.usage = norm_usage,
	.parse = norm_parse,
	.params_json = norm_params,
	.run = norm_run,
	.free_opts = norm_free,
};
