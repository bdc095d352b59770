/*
 * The profiles of `veles stat --profile` and `veles record --profile`
 * (docs/cli/stat.md, docs/cli/record.md): what the counting and sampling
 * loops (pcount.h, psample.h) measured, filed as a Veles profile in the
 * jobs directory through the collectors' save path (perf_profile_save).
 */
#ifndef COLLECT_PERF_PERF_PROFILE_H
#define COLLECT_PERF_PERF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/perf/pcount.h"

struct perf_counters;
struct profile;

/* One count of one run of `veles stat`. */
struct stat_record {
	double t; /* interval end (s), or the elapsed time for totals */
	size_t counter;
	struct pcount_value s;
};

/* Everything one run of `veles stat` measured. */
struct stat_run {
	char **argv; /* the command, or NULL */
	int argc;
	const char *label; /* "pid-N" or "system-wide" without a command */
	const char *events;
	unsigned long interval_ms;
	double elapsed;
	struct stat_record *recs;
	size_t nrecs, cap;
};

/* @run as a profile in memory: a resource type per event (uid = the
 * event's name), a measurement per event (and interval, with -I). */
struct profile *stat_profile(const struct stat_run *run, const struct perf_counters *cs,
			     const char *origin);
/* Writes @run as a profile into @jobs_dir; its path into *@path. */
int stat_save_profile(const struct stat_run *run, const struct perf_counters *cs,
		      const char *jobs_dir, const char *origin, char **path);

/* A finished `veles record` and how it was made. */
struct record_info {
	const char *data_path; /* the recording */
	char **argv;	       /* the command, or NULL */
	int argc;
	const char *label; /* "pid-N" without a command */
	unsigned long freq, period;
	bool callchain;
	const char *origin; /* HEAD, or NULL */
};

/* The samples of ri->data_path as a profile in memory: a resource type
 * per distinct stack. */
int record_load_profile(const struct record_info *ri, struct profile **out);
/* Writes the samples of ri->data_path as a profile into @jobs_dir; its
 * path into *@path. */
int record_save_profile(const struct record_info *ri, const char *jobs_dir, char **path);
/* Whether @path starts like a `veles record` file. */
bool record_file_is_recording(const char *path);

/*
 * Files @p in @jobs_dir as CMD-TOOL-WORKLOAD-TIMESTAMP.perf, as the
 * collectors name and save theirs: the name claimed, the profile written
 * atomically; a failed write removes the claim, so no empty .perf is left.
 * *@path: the file written (the caller frees it), NULL on failure.
 */
int perf_profile_save(const struct profile *p, const char *jobs_dir, const char *tool, char **path);

#endif
