/* veles record's parts: cmd-record.c samples, record-profile.c files the
 * samples as a profile (--profile). */
#ifndef CLI_RECORD_H
#define CLI_RECORD_H

#include <stdbool.h>

struct profile;

struct record_info {
	const char *data_path; /* the finished recording */
	char **argv;	       /* the command, or NULL */
	int argc;
	const char *label; /* "pid-N" without a command */
	unsigned long freq, period;
	bool callchain;
	const char *origin; /* HEAD, or NULL */
};

/* The samples of ri->data_path as a profile in memory. */
int record_load_profile(const struct record_info *ri, struct profile **out);
/* Writes the samples of ri->data_path as a profile into @jobs_dir; its
 * path into *@path. */
int record_save_profile(const struct record_info *ri, const char *jobs_dir, char **path);
/* Whether @path starts like a `veles record` file. */
bool record_file_is_recording(const char *path);

#endif
