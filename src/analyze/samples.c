/* Grouping a profile's values by location, in one pass over its rows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/samples.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strmap.h"

/* The value of attribute @by of @row as text. */
static void row_attr(const struct profile *p, size_t row, const char *by, struct buf *scratch,
		     struct buf *out)
{
	const struct table *where;
	const struct column *c;
	size_t at;
	const char *text;

	buf_reset(out);
	if (strcmp(by, "uid") == 0) {
		text = profile_uid(p, row, scratch);
		buf_adds(out, text ? text : "(none)");
		return;
	}
	c = profile_attr(p, row, by, &where, &at);
	if (!c || !col_has(c, at))
		buf_adds(out, "(none)");
	else if ((text = col_text(p, c, at)))
		buf_adds(out, text);
	else
		buf_addf(out, "%.17g", col_num(c, at));
}

/* The location of @row: its uid, and its subtype in brackets. */
static void row_location(const struct profile *p, size_t row, struct buf *scratch, struct buf *out)
{
	const struct table *where;
	const struct column *c;
	size_t at;
	const char *uid = profile_uid(p, row, scratch);

	buf_reset(out);
	buf_adds(out, uid ? uid : "(no uid)");
	c = profile_attr(p, row, "subtype", &where, &at);
	if (c && col_has(c, at) && col_text(p, c, at))
		buf_addf(out, " [%s]", col_text(p, c, at));
}

static size_t group_index(struct sample_set *s, struct strmap *index, const char *location)
{
	bool added;
	size_t i = strmap_intern(index, location, &added);

	if (added) {
		s->g = xrealloc(s->g, (s->n + 1) * sizeof(*s->g));
		memset(&s->g[s->n], 0, sizeof(*s->g));
		s->g[s->n].location = xstrdup(location);
		s->n++;
	}
	return i;
}

static void group_add(struct sample_group *g, double v, bool sized, double x)
{
	if (g->n == g->cap) {
		XGROW(g->v, g->n + 1, g->cap);
		if (sized)
			XRESIZE(g->x, g->cap);
	}
	if (sized)
		g->x[g->n] = x;
	g->v[g->n++] = v;
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct sample_group *)a)->location,
		      ((const struct sample_group *)b)->location);
}

static void build(const struct profile *p, const char *of, const char *by, const char *per,
		  struct sample_set *out);

void samples_build(const struct profile *p, const char *of, struct sample_set *out)
{
	build(p, of, NULL, NULL, out);
}

void samples_build_by(const struct profile *p, const char *of, const char *by,
		      struct sample_set *out)
{
	build(p, of, by, NULL, out);
}

void samples_build_sized(const struct profile *p, const char *of, const char *per,
			 struct sample_set *out)
{
	build(p, of, NULL, per, out);
}

/* The value of numeric attribute @per of @row (its own or its type's). */
static double row_size(const struct profile *p, size_t row, const char *per)
{
	const struct table *where;
	size_t at;
	const struct column *c = profile_attr(p, row, per, &where, &at);

	if (!c || col_text(p, c, at))
		return NAN;
	return col_num(c, at);
}

static void build(const struct profile *p, const char *of, const char *by, const char *per,
		  struct sample_set *out)
{
	size_t n = profile_nres(p);
	const struct column *val = table_col(&p->res, of ? of : "amount");
	/* When the subtype is a persistent attribute, every row of a type has
	 * the same location: compute it once per type. */
	bool per_type =
		by ? table_col(&p->res, by) == NULL
		   : table_col(&p->res, "subtype") == NULL && table_col(&p->res, "uid") == NULL;
	size_t *of_type = NULL;
	struct buf scratch = BUF_INIT, loc = BUF_INIT;
	struct strmap index = {0};

	memset(out, 0, sizeof(*out));
	if (!val)
		return;
	if (per_type) {
		of_type = xcalloc(p->types.nrows, sizeof(*of_type));
		for (size_t t = 0; t < p->types.nrows; t++)
			of_type[t] = SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		double v = col_num(val, i);
		size_t gi;

		if (v != v)
			continue;
		if (per_type && of_type[p->res_type[i]] != SIZE_MAX) {
			gi = of_type[p->res_type[i]];
		} else {
			if (by)
				row_attr(p, i, by, &scratch, &loc);
			else
				row_location(p, i, &scratch, &loc);
			gi = group_index(out, &index, buf_str(&loc));
			if (per_type)
				of_type[p->res_type[i]] = gi;
		}
		group_add(&out->g[gi], v, per != NULL, per ? row_size(p, i, per) : NAN);
	}
	free(of_type);
	strmap_free(&index);
	buf_release(&scratch);
	buf_release(&loc);
	if (out->n > 1) /* out->g is NULL for a profile without values */
		qsort(out->g, out->n, sizeof(*out->g), cmp_group);
}

const struct sample_group *samples_find(const struct sample_set *s, const char *location)
{
	struct sample_group key = {.location = (char *)location};

	return bsearch(&key, s->g, s->n, sizeof(*s->g), cmp_group);
}

const char *samples_next_pair(const struct sample_set *sa, const struct sample_set *sb, size_t *i,
			      size_t *j, const struct sample_group **a,
			      const struct sample_group **b)
{
	int cmp;

	if (*i == sa->n && *j == sb->n)
		return NULL;
	cmp = *i == sa->n ? 1 : *j == sb->n ? -1 : strcmp(sa->g[*i].location, sb->g[*j].location);
	*a = cmp <= 0 ? &sa->g[(*i)++] : NULL;
	*b = cmp >= 0 ? &sb->g[(*j)++] : NULL;
	return cmp <= 0 ? (*a)->location : (*b)->location;
}

void samples_free(struct sample_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->g[i].location);
		free(s->g[i].v);
		free(s->g[i].x);
	}
	free(s->g);
	memset(s, 0, sizeof(*s));
}
