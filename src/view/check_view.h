/*
 * A check report (analyze/check_report.h) rendered: a tree by location
 * for the terminal, or JSON, markdown (a pull request comment) and JUnit
 * XML for CI.
 */
#ifndef VIEW_CHECK_VIEW_H
#define VIEW_CHECK_VIEW_H

#include <stdbool.h>

#include "analyze/check_report.h"

struct buf;

enum check_format { CHECK_TEXT, CHECK_JSON, CHECK_MARKDOWN, CHECK_JUNIT };

/* "text", "json", "markdown" or "junit"; ERR_INVALID otherwise. */
int check_parse_format(const char *arg, enum check_format *out);
/* Appends the report in @fmt to @out; @colour: the terminal's colours. */
void check_render(struct buf *out, const struct check_report *r, enum check_format fmt,
		  bool colour);
/* The markdown report for a PR comment (check_markdown.c). */
void check_render_markdown(struct buf *out, const struct check_report *r);
/* "+10.3%", or "n/a". */
void check_add_percent(struct buf *b, double rel);
/* "p=0.003", or the method's own measure of confidence; nothing if none. */
void check_add_confidence(struct buf *b, const struct change *c);

#endif
