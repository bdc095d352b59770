/* veles record's parts: cmd-record.c samples, record-profile.c files the
 * samples as a profile (--profile). */
#ifndef CLI_RECORD_H
#define CLI_RECORD_H

#include <stdbool.h>

struct record_info {
	const char *data_path; /* the finished recording */
	char **argv;	       /* the command, or NULL */
	int argc;
	const char *label; /* "pid-N" without a command */
	unsigned long freq, period;
	bool callchain;
	const char *origin; /* HEAD, or NULL */
};

/* Writes the samples of ri->data_path as a profile into @jobs_dir; its
 * path into *@path. */
int record_save_profile(const struct record_info *ri, const char *jobs_dir, char **path);

#endif
