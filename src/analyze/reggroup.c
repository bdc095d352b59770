/*
 * Grouping rows by uid and subtype with a counting sort: one pass names the groups,
 * one counts their ranges, one places them. When no measurement carries its
 * own uid (the usual case: uid is a persistent attribute of the type), a
 * group is named once per type rather than once per row.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/reggroup.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

#define UNSET UINT32_MAX

/* Each row's group, through its type or (by_row) directly. */
struct namer {
	const struct profile *p;
	uint32_t *by_type, *by_row;
};

static uint32_t group_of(const struct namer *nm, size_t row)
{
	return nm->by_row ? nm->by_row[row] : nm->by_type[nm->p->res_type[row]];
}

/* A group's name is its uid, then a NUL and its subtype when it has one. */
static void name_groups(struct namer *nm, struct strpool *uids)
{
	struct buf scratch = BUF_INIT, name = BUF_INIT;
	size_t n = profile_nres(nm->p);

	for (size_t row = 0; row < n; row++) {
		uint32_t *slot = nm->by_row ? &nm->by_row[row] : &nm->by_type[nm->p->res_type[row]];
		if (!nm->by_row && *slot != UNSET)
			continue;
		profile_group_key(nm->p, row, &name, &scratch);
		*slot = strpool_intern(uids, buf_str(&name), name.len);
	}
	buf_release(&scratch);
	buf_release(&name);
}

/* A subtype is named only where it tells a uid's groups apart. */
static void split_names(struct reg_groups *g)
{
	struct strpool *seen = strpool_new();
	uint32_t *count = xcalloc(g->ngroups + 1, sizeof(*count));

	g->uid = xcalloc(g->ngroups ? g->ngroups : 1, sizeof(*g->uid));
	g->subtype = xcalloc(g->ngroups ? g->ngroups : 1, sizeof(*g->subtype));
	for (size_t k = 0; k < g->ngroups; k++) {
		g->uid[k] = strpool_get(g->uids, (uint32_t)k);
		count[strpool_intern_cstr(seen, g->uid[k])]++;
	}
	for (size_t k = 0; k < g->ngroups; k++) {
		size_t len = strlen(g->uid[k]);

		if (strpool_len(g->uids, (uint32_t)k) > len &&
		    count[strpool_find(seen, g->uid[k], len)] > 1)
			g->subtype[k] = g->uid[k] + len + 1;
	}
	free(count);
	strpool_free(seen);
}

/* Ranges of consecutive rows of one group. */
static size_t count_ranges(const struct namer *nm, size_t n)
{
	size_t ranges = 0;

	for (size_t row = 0; row < n; row++)
		ranges += row == 0 || group_of(nm, row) != group_of(nm, row - 1);
	return ranges;
}

/* Counts (or, with @next, places) each group's items: a range per change
 * of group when g->ranges, else a row. */
static void walk_items(const struct namer *nm, size_t n, struct reg_groups *g, size_t *next)
{
	for (size_t row = 0; row < n; row++) {
		uint32_t k = group_of(nm, row);
		size_t len = 1;

		if (g->ranges)
			while (row + len < n && group_of(nm, row + len) == k)
				len++;
		if (!next) {
			g->start[k + 1]++;
		} else if (g->ranges) {
			g->item[2 * next[k]] = (uint32_t)row;
			g->item[2 * next[k]++ + 1] = (uint32_t)len;
		} else {
			g->item[next[k]++] = (uint32_t)row;
		}
		row += len - 1;
	}
}

void reg_groups_build(const struct profile *p, struct reg_groups *g)
{
	size_t n = profile_nres(p), ntypes = p->types.nrows, nitems;
	struct namer nm = {p, xmalloc((ntypes ? ntypes : 1) * sizeof(uint32_t)), NULL};
	size_t *next;

	memset(g, 0, sizeof(*g));
	for (size_t t = 0; t < ntypes; t++)
		nm.by_type[t] = UNSET;
	if (table_col(&p->res, "uid") || table_col(&p->res, "subtype"))
		nm.by_row = xmalloc((n ? n : 1) * sizeof(*nm.by_row));
	g->uids = strpool_new();
	name_groups(&nm, g->uids);
	g->ngroups = strpool_count(g->uids);
	split_names(g);
	nitems = count_ranges(&nm, n);
	g->ranges = nitems <= n / 4;
	nitems = g->ranges ? nitems : n;
	g->start = xcalloc(g->ngroups + 1, sizeof(*g->start));
	walk_items(&nm, n, g, NULL);
	for (size_t k = 0; k < g->ngroups; k++)
		g->start[k + 1] += g->start[k];
	next = xmalloc((g->ngroups ? g->ngroups : 1) * sizeof(*next));
	memcpy(next, g->start, g->ngroups * sizeof(*next));
	g->item = xmalloc((nitems ? nitems : 1) * (g->ranges ? 2 : 1) * sizeof(*g->item));
	walk_items(&nm, n, g, next);
	free(next);
	free(nm.by_row);
	free(nm.by_type);
}

size_t reg_group_size(const struct reg_groups *g, size_t k)
{
	size_t rows = 0;

	if (!g->ranges)
		return g->start[k + 1] - g->start[k];
	for (size_t i = g->start[k]; i < g->start[k + 1]; i++)
		rows += g->item[2 * i + 1];
	return rows;
}

void reg_groups_free(struct reg_groups *g)
{
	strpool_free(g->uids);
	free(g->uid);
	free(g->subtype);
	free(g->start);
	free(g->item);
	memset(g, 0, sizeof(*g));
}
