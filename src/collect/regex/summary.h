/* What collect regex says about a collection: the printed summary and the
 * profile header's account of the lines read. */
#ifndef COLLECT_REGEX_SUMMARY_H
#define COLLECT_REGEX_SUMMARY_H

#include "collect/regex/scan.h"

struct collect_ctx;
struct profile;

struct regex_totals {
	struct rx_counts counts;     /* every measured run's lines, or JSON entries */
	unsigned long files_read;    /* files read after the runs */
	unsigned long files_skipped; /* matched a --file glob but were not written by the run */
	long runs;
};

/* Adds header.lines: {"read", "matched", "ignored", "unmatched", "rejected",
 * "first_unmatched", ...} (docs/collect-regex.md). */
void regex_header(struct profile *p, const struct regex_totals *t);

/* The summary, said through collect_say() as the collection's output: what
 * was read, and each location's amounts. */
void regex_summary(const struct collect_ctx *c, const struct profile *p,
		   const struct regex_totals *t);

/* "3 unmatched (the first: "foo")": @text cut and made printable. */
void regex_quote(struct buf *b, const char *text);

#endif
