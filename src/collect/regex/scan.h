/*
 * collect regex's line scanner: a program's output, fed in chunks as it
 * comes, cut into lines, each tried against ignore patterns and then
 * against measure patterns (PCRE2, JIT compiled); every match of a measure
 * pattern becomes a measurement (collect/meas.h). Lines that match nothing
 * are counted, never dropped silently.
 */
#ifndef COLLECT_REGEX_SCAN_H
#define COLLECT_REGEX_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct meas;

/* What became of the lines (or, for JSON formats, the entries) read. */
struct rx_counts {
	uint64_t lines;	       /* lines read (blank ones included) */
	uint64_t matched;      /* gave at least one measurement */
	uint64_t ignored;      /* blank, or matched an ignore pattern */
	uint64_t unmatched;    /* matched no pattern */
	uint64_t rejected;     /* matched, but no measurement could be made of it */
	char *first_unmatched; /* the first such line (at most RX_SAMPLE bytes) */
	char *first_rejected;
	char *reject_why; /* why the first rejected one was */
};

/* How much of a line the counts keep as an example. */
#define RX_SAMPLE 160

enum rx_kind { RX_LINE_MATCHED, RX_LINE_IGNORED, RX_LINE_UNMATCHED, RX_LINE_REJECTED };

/* Counts a line (or entry) @text of @kind; @why for a rejected one. */
void rx_counts_note(struct rx_counts *c, enum rx_kind kind, const char *text, size_t len,
		    const char *why);
/* Adds @from's counts to @to (its examples where @to has none). */
void rx_counts_add(struct rx_counts *to, const struct rx_counts *from);
void rx_counts_release(struct rx_counts *c);

/* A match, as a format's handler sees it. */
struct rx_match;
/* The text of named group @name, NULL when the pattern has none or it
 * took no part in the match. */
const char *rx_group(const struct rx_match *mt, const char *name, size_t *len);
/* The whole line the match is in. */
const char *rx_line(const struct rx_match *mt, size_t *len);

/*
 * Makes measurements of a match and adds them to @m (meas_add). Returns
 * how many it added, or ERR_INVALID with err_msg() saying why it could
 * make none.
 */
typedef int (*rx_handler)(const struct rx_match *mt, struct meas *m, void *arg);

struct rx_scan;

struct rx_scan *rx_scan_new(void);
void rx_scan_free(struct rx_scan *s);

/*
 * Adds a pattern. A measure pattern without @handler makes one measurement
 * per match from its named groups: uid (default: the scan's default uid),
 * amount (required), unit, subtype, structure_unit_size (written as
 * structure-unit-size) and any other group as an extra field. A bad pattern
 * is ERR_INVALID: "bad pattern 'x(': missing closing parenthesis at 2".
 */
int rx_scan_add_measure(struct rx_scan *s, const char *pattern, rx_handler handler, void *arg);
int rx_scan_add_ignore(struct rx_scan *s, const char *pattern);
/* Whether @pattern would be taken (as a measure pattern without a handler
 * when @measure): 0, or the error rx_scan_add_*() would give. */
int rx_pattern_check(const char *pattern, bool measure);
/* The uid of matches of patterns that have no uid group. */
void rx_scan_set_default_uid(struct rx_scan *s, const char *uid);

/* Feeds output of stream @stream (0 or 1: stdout, stderr) into @m. */
void rx_scan_feed(struct rx_scan *s, int stream, const char *data, size_t len, struct meas *m);
/* The streams ended: scans what is left of their last lines. */
void rx_scan_flush(struct rx_scan *s, struct meas *m);
/* Scans one line (without its newline). */
void rx_scan_line(struct rx_scan *s, const char *line, size_t len, struct meas *m);

/* The counts since the scan began or the last rx_scan_take_counts(). */
const struct rx_counts *rx_scan_counts(const struct rx_scan *s);
/* Moves the counts into @to (added) and starts counting afresh. */
void rx_scan_take_counts(struct rx_scan *s, struct rx_counts *to);

#endif
