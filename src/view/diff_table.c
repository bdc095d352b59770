/* The rows of `veles diff`'s table (diff_table.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/samples.h"
#include "analyze/stats.h"
#include "util/common.h"
#include "util/error.h"
#include "view/diff_table.h"

/* Missing changes last; ties by name. */
static int cmp_rows(const void *x, const void *y)
{
	const struct diff_table_row *a = x, *b = y;
	double ka = -fabs(log1p(a->rel)), kb = -fabs(log1p(b->rel));

	if (isnan(ka) != isnan(kb))
		return isnan(ka) ? 1 : -1;
	if (ka != kb && !isnan(ka))
		return ka < kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

int diff_table_build(const struct profile *base, const struct profile *target, const char *of,
		     struct diff_table *out)
{
	struct sample_set s[2];
	const struct sample_group *ga, *gb;
	const char *loc;
	size_t i = 0, j = 0;

	memset(out, 0, sizeof(*out));
	samples_build(base, of, &s[0]);
	samples_build(target, of, &s[1]);
	if (s[0].n == 0 && s[1].n == 0) {
		samples_free(&s[0]);
		samples_free(&s[1]);
		return err_set(ERR_INVALID, "no resource of either profile has a numeric '%s'",
			       of ? of : "amount");
	}
	out->rows = xcalloc(s[0].n + s[1].n, sizeof(*out->rows));
	while ((loc = samples_next_pair(&s[0], &s[1], &i, &j, &ga, &gb))) {
		struct diff_table_row *r = &out->rows[out->n++];

		r->name = xstrdup(loc);
		r->base = ga && ga->n ? stats_median(ga->v, ga->n) : NAN;
		r->target = gb && gb->n ? stats_median(gb->v, gb->n) : NAN;
		r->rel = r->base != 0 && !isnan(r->base) && !isnan(r->target)
				 ? r->target / r->base - 1
				 : NAN;
	}
	qsort(out->rows, out->n, sizeof(*out->rows), cmp_rows);
	samples_free(&s[0]);
	samples_free(&s[1]);
	return 0;
}

void diff_table_free(struct diff_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].name);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
