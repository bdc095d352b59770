/*
 * The views, one per -s letter: what an interval's rates become on screen.
 * A lowercase letter is a summary (one set of numbers for the machine); an
 * uppercase one is a detail (the same numbers per cpu, disk, interface).
 */
#ifndef MONITOR_VIEW_H
#define MONITOR_VIEW_H

#include "monitor/monitor.h"

#define MON_MAXFIELDS 16

struct mon_field {
	const char *name;  /* verbose and plot heading: "User%", "KBRead" */
	const char *brief; /* brief heading, NULL when brief leaves it out */
	int width;	   /* brief and verbose column width */
	int decimals;
	bool size; /* a size in KB: brief shortens it with K, M, G */
};

struct mon_view {
	char letter;
	const char *title; /* "CPU", plot prefix "[CPU]" */
	const char *verbose_title;
	unsigned tabs; /* bit per enum mon_tab it needs */
	bool rate;     /* shows counters (headings say /sec or /int) */
	const struct mon_field *fields;
	size_t nfields;
	/* Summary views: the machine's numbers into @out. */
	void (*summary)(const struct mon_interval *iv, double *out);
	/* Detail views: rows of @tab, skipping those @skip says to. */
	enum mon_tab tab;
	bool (*skip)(const struct mon_interval *iv, size_t row);
	void (*detail)(const struct mon_interval *iv, size_t row, double *out);
};

/* The view of letter @c, or NULL. */
const struct mon_view *mon_view_find(char c);
/* All letters, in the order -s accepts them. */
const char *mon_view_letters(void);

#endif
