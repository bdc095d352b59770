/* The monitor's main loops: sampling the live system, playing back. */
#ifndef MONITOR_RUN_H
#define MONITOR_RUN_H

#include "monitor/output.h"
#include "util/buf.h"

#define MON_TIMEOUT_GRACE 2.0 /* seconds from SIGTERM to SIGKILL */

struct mon_run_opts {
	const char *letters; /* -s; NULL: cdn, or a recording's own */
	double interval;     /* -i, seconds; 0: back to back */
	long count;	     /* -c, intervals to show; -1: until interrupted */
	enum mon_format format;
	char sep;
	bool per_interval;	 /* --on */
	const char *record;	 /* -f FILE */
	const char *playback;	 /* -p FILE */
	const char *proc_root;	 /* "/proc", or fixtures for tests */
	const char *imports;	 /* --import */
	bool imports_optional;	 /* a module that cannot be loaded is skipped */
	const char *export_spec; /* --export */
	const char *procfilt;	 /* --procfilt: processes kept (-s Z) */
	const char *top;	 /* --top: processes sorted, the first N shown */
	bool hr_set;		 /* --hr given: */
	unsigned long hr;	 /* headings every N intervals; 0: once */
	int debug;		 /* -d */
	bool self;		 /* --self */
	FILE *out;		 /* the table (or --export lexpr's lines); may be NULL when quiet */
	/* `veles monitor -- CMD`: run CMD and sample until it exits. */
	char **cmd;
	int *cmd_status; /* receives CMD's wait status */
	/* Seconds after which CMD gets SIGTERM (then SIGKILL after
	 * MON_TIMEOUT_GRACE more); 0: none. Sampling goes on until it exits. */
	double timeout;
	bool *timed_out; /* set when the timeout stopped CMD */
	/* CMD's stdout and stderr go to this file (appended) when set, such as
	 * /dev/null or a log; otherwise CMD writes where we write. */
	const char *cmd_output;
	/* The directory CMD starts in (it alone: ours stays); NULL: ours. */
	const char *cmd_cwd;
	/* When set, each interval's summary values are appended here as
	 * "SECONDS-SINCE-START name value" lines (for --profile). */
	struct buf *values;
	bool quiet;   /* no table output (with values) */
	bool profile; /* the CLI's --profile: write a Veles profile instead */
	/* Receives the notes and warnings (a module's error, a damaged
	 * recording, --self, -d4's samples): whole lines, no newline, for
	 * the front end to show on stderr. NULL: nothing is shown. */
	mon_say_fn say;
	void *say_arg;
};

int mon_run(const struct mon_run_opts *o);

/* Set from a signal handler: the loops stop after the current sample. */
extern volatile int mon_stop;

#endif
