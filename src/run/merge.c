/* Copying resources between profiles, column by column. */
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "run/merge.h"
#include "util/common.h"

void run_profile_set_size(struct profile *p, long size)
{
	struct column *c = table_col_get(p, &p->res, "structure-unit-size", COL_I64);

	for (size_t row = 0; row < p->res.nrows; row++)
		col_set_i64(&p->res, c, row, size);
}

/* Cell @row of column @c as an attr for table_set() or profile_type_add(). */
static struct attr cell(const struct profile *p, const struct column *c, size_t row)
{
	struct attr a = {.name = c->name, .kind = c->kind};

	if (c->kind == COL_I64)
		a.i = col_i64(c, row);
	else if (c->kind == COL_F64)
		a.f = c->v.f64[row];
	else
		a.s = col_text(p, c, row);
	return a;
}

/* @src's resource type @type, found or added in @dst. */
static uint32_t map_type(struct profile *dst, const struct profile *src, size_t type)
{
	struct attr *attrs = xcalloc(src->types.ncols, sizeof(*attrs));
	size_t n = 0;
	uint32_t id;

	for (size_t k = 0; k < src->types.ncols; k++) {
		const struct column *c = &src->types.cols[k];

		if (strcmp(c->name, "#key") != 0 && col_has(c, type))
			attrs[n++] = cell(src, c, type);
	}
	id = profile_type_add(dst, attrs, n);
	free(attrs);
	return id;
}

void run_profile_append(struct profile *dst, const struct profile *src)
{
	uint32_t *types = xcalloc(src->types.nrows ? src->types.nrows : 1, sizeof(*types));

	for (size_t t = 0; t < src->types.nrows; t++)
		types[t] = map_type(dst, src, t);
	for (size_t r = 0; r < src->res.nrows; r++) {
		size_t row = profile_res_add(dst, types[src->res_type[r]]);

		for (size_t k = 0; k < src->res.ncols; k++) {
			const struct column *c = &src->res.cols[k];

			if (col_has(c, r)) {
				struct attr a = cell(src, c, r);

				table_set(dst, &dst->res, row, &a);
			}
		}
	}
	if (src->has_timestamp) {
		dst->timestamp += src->timestamp;
		dst->has_timestamp = true;
	}
	free(types);
}
