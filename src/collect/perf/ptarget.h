/*
 * What `veles stat`, `veles record` and the server's runs measure: a
 * command started for it (held before exec until the events are on), a
 * running process or one of its threads, or every CPU; and when that ends:
 * the command exits, the process goes away, or the caller asks to stop.
 */
#ifndef COLLECT_PERF_PTARGET_H
#define COLLECT_PERF_PTARGET_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "perf/child.h"

struct ptarget_spec {
	char **argv; /* the command (NULL-terminated), or NULL */
	int argc;
	struct perf_child_io io; /* its environment and output */
	bool use_io;		 /* apply @io (else the command inherits ours) */
	pid_t pid;		 /* attach to every thread of this process */
	pid_t tid;		 /* attach to this one thread */
	bool system_wide;	 /* every CPU: while the command runs, or until stopped */
	/* Stopping an open-ended measurement (or a command, which is then
	 * killed by the caller): a flag a signal handler or another thread
	 * sets, and a descriptor that becomes readable at the same time (a
	 * waiting thread sees no signal). Either may be NULL / -1. */
	volatile sig_atomic_t *stop;
	int stop_fd;
};

struct ptarget {
	struct ptarget_spec spec;
	struct perf_child ch; /* the command, if any */
	pid_t *tids;	      /* attached: the threads */
	size_t ntids;
	int pidfd; /* readable when the command or process ends; -1 without */
	bool reaped;
	int status; /* the command's wait status once reaped */
	struct rusage ru;
	bool opened; /* ptarget_open ran: release has something to do */
};

/* Forks the command (held) or finds the threads to attach to. */
int ptarget_open(struct ptarget *t, const struct ptarget_spec *spec);
/* Lets the command exec; ERR_CHILD naming it when it cannot run. */
int ptarget_start(struct ptarget *t);
/*
 * Waits until the target ends, a stop, @deadline (CLOCK_MONOTONIC; NULL:
 * none) or one of @extra becomes ready (their revents set). True once the
 * target is over: the command reaped, the process gone, or stopped.
 */
bool ptarget_wait(struct ptarget *t, const struct timespec *deadline, struct pollfd *extra,
		  size_t nextra);
/* Whether a stop was asked for. */
bool ptarget_stopped(const struct ptarget *t);
/* Waits for the command to exit (after a kill, say), reaping it. */
void ptarget_reap(struct ptarget *t);
/* The command's exit status as a shell reports it (128 + signal); 0 when
 * there was no command or it was not reaped. */
int ptarget_exit_status(const struct ptarget *t);
/* Kills what is left of the command and closes what was opened. */
void ptarget_release(struct ptarget *t);

#endif
