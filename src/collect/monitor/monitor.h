/* The monitor collector: system load sampled while a command runs. */
#ifndef COLLECT_MONITOR_MONITOR_H
#define COLLECT_MONITOR_MONITOR_H

#include "collect/collector.h"

extern const struct collector monitor_collector;

struct profile;

/* An empty monitor profile (global layout, type and units "monitor"), its
 * collector_info.params the compact JSON @params (taken). */
struct profile *monitor_profile_new(char *params);
/* Adds a resource per "SECONDS name value" line of @values (an interval's
 * summary values, as veles monitor collects them); *@last receives the
 * last interval's SECONDS. */
void monitor_profile_fill(struct profile *p, const char *values, double *last);

/*
 * A recording of `veles monitor -f` as a profile, so `veles show` can show
 * it: the summary values of every interval of the recorded subsystems
 * (a detail letter gives its summary's values), as `--profile` makes them,
 * the header telling the machine. Module records are left out. What the
 * playback has to say (a damaged recording, a module not found here) goes
 * to @message as COLLECT_MSG_ERR lines (NULL: nowhere).
 */
int monitor_recording_profile(const char *path,
			      void (*message)(void *arg, enum collect_msg kind, const char *text),
			      void *message_arg, struct profile **out);

#endif
