/* The table tableof builds, shared by its text and page renderings. */
#ifndef VIEW_TABLE_PRIV_H
#define VIEW_TABLE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct view_opts;

/* The table, materialised: cells are owned strings, NULL when empty. */
struct tbl {
	size_t ncols, nrows, cap;
	const char **names;
	char **cells;
	double *nums; /* NaN for text */
};

/* Characters (not bytes) of UTF-8 text. */
size_t tbl_text_width(const char *s);
/* The rows in @order as a standalone SVG (@svg) or a self-contained HTML
 * page whose columns sort on a click and whose rows filter as one types. */
void table_page(const struct tbl *t, const size_t *order, const struct view_opts *o, bool svg,
		struct buf *out);

#endif
