/*
 * Where tracefs is: found, or mounted on demand where we may (root), as
 * perf does, so that a fresh machine which has not mounted it yet works.
 */
#ifndef UTIL_TRACEFS_H
#define UTIL_TRACEFS_H

#include <stdbool.h>

/*
 * The tracefs root (/sys/kernel/tracing or the debugfs one) whose events/
 * this process can read, mounting tracefs at /sys/kernel/tracing first when
 * it is mounted nowhere and we run as root. NULL when there is none; then
 * tracefs_why() says why, in words that fit after "needs tracefs: ".
 */
const char *tracefs_dir(void);

/*
 * As tracefs_dir(), but the root must also let this process write
 * @file (uprobe_events, kprobe_events) inside it.
 */
const char *tracefs_dir_writable(const char *file);

/* Why the last tracefs_dir() call found none: one phrase, never NULL. */
const char *tracefs_why(void);

#endif
