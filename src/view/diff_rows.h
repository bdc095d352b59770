/* `veles diff`'s table of joined rows (analyze/diff_join.h) as text,
 * JSON, CSV or markdown. */
#ifndef VIEW_DIFF_ROWS_H
#define VIEW_DIFF_ROWS_H

#include "analyze/diff_join.h"

struct buf;

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_CSV, DIFF_MARKDOWN };

/* Appends @rows to @out; the text table's first column is called
 * @group_by (NULL: "location") and it ends naming the two sides. */
void diff_rows_render(struct buf *out, const struct diff_rows *rows, enum diff_format fmt,
		      const char *group_by, const char *bname, const char *tname);

#endif
