/* The three output formats: brief, verbose and plot. */
#ifndef MONITOR_OUTPUT_H
#define MONITOR_OUTPUT_H

#include <stdio.h>

#include "monitor/monitor.h"
#include "monitor/view.h"
#include "util/buf.h"

enum mon_format { MON_BRIEF, MON_VERBOSE, MON_PLOT };

struct mon_modules;
struct mon_procsel;

struct mon_out {
	FILE *f;
	enum mon_format format;
	char sep; /* plot separator */
	bool per_interval;
	bool millis;
	const struct mon_view *views[32];
	size_t nviews;
	struct mon_modules *mods;
	const struct mon_procsel *procsel; /* -s Z: which processes; NULL: all */
	unsigned long nprinted;
	/* --hr N: brief and verbose headings every N intervals (0: the first
	 * only). Unset: brief's once, verbose's in every record. */
	bool hr_set;
	unsigned long hr;
	/* Plot: the detail rows named in the header, per view. */
	size_t nplot_rows[32];
	char (*plot_rows[32])[MON_NAME];
	struct buf line;
	bool batch; /* playback: write in large blocks, not per interval */
	/* Made on first use, as they are the same every interval: each
	 * view's verbose heading, and its fields' lexpr names ("cpu.user "),
	 * each NUL-terminated. */
	char *vheads[32];
	char *lxnames[32];
};

/* Picks the views of the letters in @letters; -1 with a message for an
 * unknown one. Detail letters turn brief into verbose, as in collectl. */
int mon_out_init(struct mon_out *o, const char *letters);
/* The tables the chosen views read (bit per enum mon_tab). */
unsigned mon_out_tables(const struct mon_out *o);
void mon_out_interval(struct mon_out *o, const struct mon_interval *iv);
/* The summary views' values (and the modules' exports) as "cpu.user 3"
 * lines: what --export sends. */
void mon_out_values(struct mon_out *o, const struct mon_interval *iv, struct buf *b);
/* Writes what batching holds back. */
void mon_out_flush(struct mon_out *o);
void mon_out_release(struct mon_out *o);

#endif
