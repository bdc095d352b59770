/*
 * A set of counting events opened on one target: a process tree (a command
 * we start, or existing threads by PID) or every CPU. Each event may hold
 * several file descriptors (one per thread or CPU) whose counts are summed.
 */
#ifndef PERF_COUNTERS_H
#define PERF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf/perf.h"

struct perf_counter {
	char *name;
	struct perf_event_attr attr;
	int *fds;
	size_t nfds;
	bool unsupported; /* the kernel rejected it: "<not supported>" */
	/* Totals at the last read: raw count and the times (ns) the event was
	 * enabled and actually on a counter (less when multiplexed). */
	uint64_t value, enabled, running;
};

struct perf_counters {
	struct perf_counter *v;
	size_t n;
};

/*
 * TARGET_SPAWNED counts every command this process starts after the open,
 * from that command's exec on, with the command's own children: the event
 * is opened on us, disabled, inherited by each child and enabled in it by
 * its exec (enable_on_exec), so a posix_spawn()ed command is counted as
 * `perf stat` counts a forked one while we count nothing ourselves. A
 * child's count joins ours when it exits. Open one just before a run and
 * read it after: kept open across runs, some runs' counts were lost.
 */
enum perf_target_kind { TARGET_CHILD, TARGET_PIDS, TARGET_SYSTEM, TARGET_SPAWNED };

struct perf_target {
	enum perf_target_kind kind;
	const pid_t *pids; /* TARGET_CHILD: one; TARGET_PIDS: threads; else unused */
	size_t npids;
};

/* Adds the events of a comma-separated list; ERR_NOTFOUND names a bad one. */
int perf_counters_add(struct perf_counters *cs, const char *list);
/*
 * Opens every event on @t. For TARGET_CHILD the counters start at the
 * child's exec (enable_on_exec) and follow its children (inherit); the
 * others start counting at once. Unsupported events are marked, not errors.
 */
int perf_counters_open(struct perf_counters *cs, const struct perf_target *t);
/* Reads every event's totals. */
int perf_counters_read(struct perf_counters *cs);
void perf_counters_free(struct perf_counters *cs);

/* The count scaled for multiplexing: value * enabled / running. */
double perf_scaled(uint64_t value, uint64_t enabled, uint64_t running);

/* The threads of process @pid (from /proc/PID/task); ERR_NOTFOUND if none. */
int perf_pid_threads(pid_t pid, pid_t **out, size_t *n);

#endif
