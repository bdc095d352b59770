/* Bounds profiles as records, and pairing two of them (bound_items.h). */
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "analyze/bound_items.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

static char *json_str(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(obj, path, yajl_t_string);

	return v ? xstrdup(YAJL_GET_STRING(v)) : NULL;
}

static int json_int(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(obj, path, yajl_t_number);

	return v && YAJL_IS_INTEGER(v) ? (int)YAJL_GET_INTEGER(v) : 0;
}

static const char *type_text(const struct profile *p, const char *name, size_t row)
{
	const struct column *c = table_col(&p->types, name);

	return c && col_has(c, row) ? col_text(p, c, row) : NULL;
}

static int item_cmp(const void *x, const void *y)
{
	const struct bound_item *a = x, *b = y;
	int c = strcmp(a->source, b->source);

	if (!c)
		c = strcmp(a->function, b->function);
	if (!c && a->total != b->total)
		c = a->total ? 1 : -1;
	if (!c && a->line != b->line)
		c = a->line < b->line ? -1 : 1;
	return c ? c : (a->column > b->column) - (a->column < b->column);
}

/* Each loop's place among its function's loops, once sorted. */
static void number_loops(struct bound_item *v, size_t n)
{
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		if (i && (strcmp(v[i].source, v[i - 1].source) ||
			  strcmp(v[i].function, v[i - 1].function)))
			k = 0;
		v[i].ordinal = v[i].total ? -1 : k++;
	}
}

int bound_items(const struct profile *p, struct bound_item **out, size_t *n)
{
	struct bound_item *v = xcalloc(p->types.nrows + 1, sizeof(*v));
	size_t k = 0;

	for (size_t row = 0; row < p->types.nrows; row++) {
		const char *uid = type_text(p, "uid", row), *type = type_text(p, "type", row);
		const char *bound = type_text(p, "bound", row);
		char err[64];
		yajl_val j;
		struct bound_item *it = &v[k];

		if (!uid || !bound || !(j = yajl_tree_parse(uid, err, sizeof(err))))
			continue;
		it->source = json_str(j, "source");
		it->function = json_str(j, "function");
		it->line = json_int(j, "line");
		it->column = json_int(j, "column");
		yajl_tree_free(j);
		if (!it->source || !it->function) {
			free(it->source);
			free(it->function);
			continue;
		}
		it->total = type && strcmp(type, "total bound") == 0;
		it->bound = bound;
		it->cls = type_text(p, "class", row);
		it->reason = type_text(p, "reason", row);
		it->location =
			xasprintf("%s:%s:%d:%d", it->source, it->function, it->line, it->column);
		k++;
	}
	qsort(v, k, sizeof(*v), item_cmp);
	number_loops(v, k);
	*out = v;
	*n = k;
	return 0;
}

void bound_items_free(struct bound_item *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].source);
		free(v[i].function);
		free(v[i].location);
	}
	free(v);
}

static bool same_group(const struct bound_item *a, const struct bound_item *b)
{
	return strcmp(a->source, b->source) == 0 && strcmp(a->function, b->function) == 0 &&
	       a->total == b->total;
}

/*
 * The records of one function (and kind) that no uid matched, paired in
 * their order when both sides have as many: the function's code moved.
 * With more on one side a loop came or went, and which is which is not
 * for us to guess.
 */
static void pair_moved(const struct bound_item *a, size_t na, const struct bound_item *b, size_t nb,
		       const struct bound_item **match, bool *used)
{
	for (size_t i = 0; i < na; i++) {
		size_t ka = 0, kb = 0;

		if (match[i])
			continue;
		for (size_t k = 0; k < na; k++)
			ka += !match[k] && same_group(&a[k], &a[i]);
		for (size_t j = 0; j < nb; j++)
			kb += !used[j] && same_group(&b[j], &a[i]);
		if (ka != kb)
			continue;
		/* Both lists are in line order: the first unmatched of each. */
		for (size_t j = 0; j < nb && !match[i]; j++)
			if (!used[j] && same_group(&b[j], &a[i])) {
				match[i] = &b[j];
				used[j] = true;
			}
	}
}

size_t bound_pairs(const struct bound_item *a, size_t na, const struct bound_item *b, size_t nb,
		   struct bound_pair **out)
{
	const struct bound_item **match = xcalloc(na + 1, sizeof(*match));
	struct bound_pair *p = xcalloc(na + nb + 1, sizeof(*p));
	bool *used = xcalloc(nb + 1, sizeof(*used));
	size_t n = 0;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb && !match[i]; j++)
			if (!used[j] && same_group(&a[i], &b[j]) && a[i].line == b[j].line &&
			    a[i].column == b[j].column) {
				match[i] = &b[j];
				used[j] = true;
			}
	pair_moved(a, na, b, nb, match, used);
	for (size_t i = 0; i < na; i++)
		p[n++] = (struct bound_pair){&a[i], match[i]};
	for (size_t j = 0; j < nb; j++)
		if (!used[j])
			p[n++] = (struct bound_pair){NULL, &b[j]};
	free(used);
	free(match);
	*out = p;
	return n;
}
