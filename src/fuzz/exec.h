/*
 * Running the fuzzed program on one input and measuring what it cost.
 *
 * The input goes in a file: its path replaces the placeholder (`@@`
 * anywhere in an argument, or an argument that is just `%s`), or, when the
 * command has none, the file is the program's stdin. The program's output
 * goes to /dev/null, it runs in a process group of its own (a timeout
 * kills the group), and it dumps no core (the session sets RLIMIT_CORE to
 * 0 for itself, and restores it at fz_exec_release).
 *
 * The cost is the most stable metric the machine offers: instructions:u
 * from the PMU when perf_event_open allows it, else the task-clock event
 * (the child's CPU time as the scheduler accounts it, in nanoseconds: not
 * sampled at ticks as rusage is), else rusage; or, on request, the sum of
 * the edge counts of an instrumented build. The counter is opened on the
 * fuzzer itself before each spawn, inherited and enabled on exec, so it
 * counts the program (and its children) from its exec to its exit.
 */
#ifndef FUZZ_EXEC_H
#define FUZZ_EXEC_H

#include <linux/perf_event.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

struct fz_cover;

enum fz_metric {
	FZ_METRIC_AUTO,
	FZ_METRIC_INSTRUCTIONS, /* instructions:u, a count */
	FZ_METRIC_TASK_CLOCK,	/* seconds of CPU, from the task-clock event */
	FZ_METRIC_RUSAGE,	/* seconds of CPU, user + system, from wait4 */
	FZ_METRIC_HITS,		/* edges passed, from the coverage map */
};

const char *fz_metric_name(enum fz_metric m);
/* The metric called @name ("auto", "instructions", "task-clock", "rusage",
 * "hits"), or -1. */
int fz_metric_from_name(const char *name);
/* True when the metric counts (instructions, hits) rather than times. */
bool fz_metric_is_count(enum fz_metric m);

enum fz_outcome {
	FZ_OK,
	FZ_CRASH,
	FZ_HANG,
	FZ_STOPPED, /* *stop was set while it ran: killed, nothing to learn from it */
};

struct fz_result {
	enum fz_outcome outcome;
	int status;  /* wait status */
	double cost; /* in the metric's unit; for a hang, what it had used */
	double wall; /* seconds from exec to reaping */
};

struct fz_exec {
	char *path;	  /* the program, resolved against PATH */
	char **argv;	  /* the command, placeholder replaced */
	char **envp;	  /* our environment, plus the coverage map's */
	bool stdin_input; /* no placeholder: the input is stdin */
	char *input_path; /* where each input is written */
	int null_fd;
	enum fz_metric metric; /* never AUTO after init */
	char *why;	       /* when AUTO chose below instructions: why */
	struct perf_event_attr attr;
	double timeout; /* seconds; set by the caller before runs */
	/* Set by a signal handler: a run in progress is stopped at once. */
	volatile sig_atomic_t *stop;
	struct fz_cover *cover;
	int input_fd; /* the input file, kept open */
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr_spawn;
	bool have_spawn;
	struct rlimit core; /* ours before the session (restored) */
	bool core_set;
};

/*
 * Prepares to run @argv (NULL-terminated) with inputs written to
 * @input_path, measuring @metric (AUTO: the best one available). ERR_CHILD
 * when the program cannot be found, ERR_INVALID when the metric asked for
 * cannot be counted here.
 */
int fz_exec_init(struct fz_exec *x, char **argv, const char *input_path, enum fz_metric metric,
		 struct fz_cover *cover);
/* Runs the program once on @data; ERR_CHILD when it cannot be started,
 * ERR_IO when the input cannot be written. */
int fz_exec_run(struct fz_exec *x, const uint8_t *data, size_t len, struct fz_result *r);
void fz_exec_release(struct fz_exec *x);

#endif
