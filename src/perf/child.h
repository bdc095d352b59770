/*
 * A command started for measuring: forked, then held before its exec until
 * the counters are attached, so they see it from its first instruction.
 */
#ifndef PERF_CHILD_H
#define PERF_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct perf_child {
	pid_t pid;  /* 0 when there is none */
	int go_fd;  /* written to let the child exec */
	int err_fd; /* the child's exec errno, or EOF once it ran */
	bool group; /* it leads a process group of its own */
};

/* What the command gets besides its arguments (perf_child_fork_io). */
struct perf_child_io {
	char *const *envp;  /* its whole environment, or NULL for ours */
	int out_fd, err_fd; /* become its stdout and stderr; -1 leaves ours */
	int in_fd;	    /* becomes its stdin; -1 leaves ours */
	const char *cwd;    /* the directory it starts in; NULL: ours */
	/* It leads a process group of its own, so that stopping it reaches
	 * every process it started (perf_child_kill). */
	bool new_group;
};

/* Forks @argv, waiting before exec; ERR_CHILD when it cannot. */
int perf_child_fork(struct perf_child *ch, char **argv);
/*
 * The same with @io applied in the child before exec, where the signal
 * mask is cleared and SIGPIPE restored, so a command started by a server
 * that blocks or ignores signals runs as from a shell.
 */
int perf_child_fork_io(struct perf_child *ch, char **argv, const struct perf_child_io *io);
/* Sends @sig to the child (to its process group when it leads one). */
void perf_child_kill(const struct perf_child *ch, int sig);
/* Lets it exec; ERR_CHILD naming @argv0 when the exec failed (reaped). */
int perf_child_start(struct perf_child *ch, const char *argv0);
/* Kills and reaps a child that is still there, closes the pipes. */
void perf_child_release(struct perf_child *ch);

#endif
