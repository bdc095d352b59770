/* How `veles fuzz` shows its progress and its report (fuzz-print.c). */
#ifndef CLI_FUZZ_PRINT_H
#define CLI_FUZZ_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "fuzz/fuzz.h"

struct fuzz_view {
	bool tty;	  /* stderr is a terminal: one line, redrawn */
	bool quiet;	  /* nothing on stderr */
	bool said_head;	  /* the metric line is out */
	double last_line; /* when the last line went out (not a terminal) */
	bool drawn;	  /* a progress line is on the terminal */
};

/* The progress callback of fz_run: @arg is a struct fuzz_view. */
void fuzz_progress(const struct fz_progress *p, void *arg);
/* Clears a progress line left on the terminal. */
void fuzz_progress_end(struct fuzz_view *v);

/* The report: @profile_path may be NULL (not written). */
void fuzz_print_text(FILE *f, const struct fz_report *r, const char *profile_path);
void fuzz_print_json(FILE *f, const struct fz_report *r, const char *profile_path);

/* "8.84 ms", "1.23M instructions": a cost in its metric's unit. */
void fuzz_cost_str(enum fz_metric m, double cost, char *out, size_t len);

#endif
