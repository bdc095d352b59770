/*
 * A command started for measuring: forked, then held before its exec until
 * the counters are attached, so they see it from its first instruction.
 */
#ifndef PERF_CHILD_H
#define PERF_CHILD_H

#include <sys/types.h>

struct perf_child {
	pid_t pid;  /* 0 when there is none */
	int go_fd;  /* written to let the child exec */
	int err_fd; /* the child's exec errno, or EOF once it ran */
};

/* Forks @argv, waiting before exec; ERR_CHILD when it cannot. */
int perf_child_fork(struct perf_child *ch, char **argv);
/* Lets it exec; ERR_CHILD naming @argv0 when the exec failed (reaped). */
int perf_child_start(struct perf_child *ch, const char *argv0);
/* Kills and reaps a child that is still there, closes the pipes. */
void perf_child_release(struct perf_child *ch);

#endif
