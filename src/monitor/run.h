/* The monitor's main loops: sampling the live system, playing back. */
#ifndef MONITOR_RUN_H
#define MONITOR_RUN_H

#include "monitor/output.h"

struct mon_run_opts {
	const char *letters; /* -s */
	double interval;     /* -i, seconds; 0: back to back */
	long count;	     /* -c, intervals to show; -1: until interrupted */
	enum mon_format format;
	char sep;
	bool per_interval;	 /* --on */
	const char *record;	 /* -f FILE */
	const char *playback;	 /* -p FILE */
	const char *proc_root;	 /* "/proc", or fixtures for tests */
	const char *imports;	 /* --import */
	const char *export_spec; /* --export */
	int debug;		 /* -d */
	bool self;		 /* --self */
	FILE *out;
};

int mon_run(const struct mon_run_opts *o);

/* Set from a signal handler: the loops stop after the current sample. */
extern volatile int mon_stop;

#endif
