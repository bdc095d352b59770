/* The rows of `veles diff`'s table (diff_table.h): the join of
 * analyze/diff_join.h, medians sorted by change. */
#include <string.h>

#include "util/error.h"
#include "view/diff_table.h"

int diff_table_build(const struct profile *base, const struct profile *target, const char *of,
		     struct diff_table *out)
{
	const struct diff_join_opts o = {.agg = DIFF_MEDIAN, .sort = DIFF_BY_CHANGE, .of = of};
	struct diff_rows r;
	int ret = diff_join(base, target, &o, &r);

	memset(out, 0, sizeof(*out));
	if (ret < 0)
		return ret;
	/* diff_join errs only on a named @of; with no filter an empty join
	 * means neither side has an amount either. */
	if (r.n == 0) {
		diff_rows_free(&r);
		return err_set(ERR_INVALID, "no resource of either profile has a numeric '%s'",
			       of ? of : "amount");
	}
	out->rows = r.v;
	out->n = r.n;
	return 0;
}

void diff_table_free(struct diff_table *t)
{
	struct diff_rows r = {t->rows, t->n};

	diff_rows_free(&r);
	memset(t, 0, sizeof(*t));
}
