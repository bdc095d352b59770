/*
 * Running a command and measuring it: posix_spawn (no shell), wall time from
 * CLOCK_MONOTONIC, user/sys time and peak RSS from wait4's rusage, output
 * inherited, captured to a log (and echoed) or discarded, and an optional
 * timeout (SIGTERM, then SIGKILL after a grace period).
 *
 * A spawner is prepared once and run many times, so that everything that
 * does not change between runs (the PATH lookup, /dev/null, the file
 * actions) costs nothing per run: without a timeout and without capture a
 * run is clock_gettime, posix_spawnp, wait4, clock_gettime and nothing else.
 * A working directory and an environment of its own are the child's alone
 * (a file action and posix_spawn's envp, prepared once too): the library
 * never changes its own current directory or environment, which belong to
 * the front end and its other threads.
 */
#ifndef UTIL_SPAWN_H
#define UTIL_SPAWN_H

#include <spawn.h>
#include <stdbool.h>
#include <sys/types.h>

enum spawn_output {
	SPAWN_INHERIT,	/* the command writes where we write */
	SPAWN_CAPTURE,	/* through pipes to a log file and echoed to our stdout/stderr */
	SPAWN_SUPPRESS, /* to /dev/null */
};

/* The streams a sink reads (spawn_opts.sink_streams). */
enum { SPAWN_STDOUT = 1, SPAWN_STDERR = 2 };

struct spawn_opts {
	enum spawn_output output;
	const char *log_path; /* SPAWN_CAPTURE: appended to, created 0644 */
	double timeout;	      /* seconds; 0 = none */
	double grace;	      /* seconds from SIGTERM to SIGKILL; 0 = 2 s */
	/*
	 * Reads the command's output as it comes (collect regex parses it):
	 * the streams in @sink_streams go through pipes, are logged and
	 * echoed as @output says (SPAWN_SUPPRESS: not echoed), and each chunk
	 * is then handed to @sink with its stream (SPAWN_STDOUT or
	 * SPAWN_STDERR). NULL: no sink.
	 */
	void (*sink)(void *arg, int stream, const char *data, size_t len);
	void *sink_arg;
	unsigned sink_streams;
	bool sink_only; /* the sink's streams are not echoed, whatever @output says */
	/*
	 * The directory the command starts in (NULL: ours; kept by
	 * reference). A relative argv[0], or one found through a relative
	 * PATH entry, is looked up there, as the command itself would see it.
	 */
	const char *cwd;
	/* Its environment: @envp (NULL: ours), with each "NAME=VALUE" of @env
	 * set over it ("NAME" alone removes NAME); util/envp.h. */
	char *const *envp;
	char *const *env;
};

struct spawn_result {
	int status;	 /* wait status (WIFEXITED, WEXITSTATUS, ...) */
	bool timed_out;	 /* the timeout expired and we stopped the command */
	double real;	 /* seconds, just before spawn to reap */
	double user;	 /* seconds of user CPU (rusage) */
	double sys;	 /* seconds of system CPU (rusage) */
	long maxrss_kib; /* peak resident set size, KiB */
	double start;	 /* CLOCK_MONOTONIC seconds when the run started */
};

struct spawner {
	char *path; /* argv[0] resolved against PATH once */
	char *const *argv;
	struct spawn_opts opts;
	posix_spawn_file_actions_t fa; /* the dup2s of /dev/null, the chdir */
	bool have_fa;
	char **envp; /* built once from opts.envp and opts.env; NULL: environ */
	int null_fd;
	int log_fd;
};

/*
 * Prepares to run @argv (NULL-terminated, kept by reference); after a
 * failure @s holds nothing to release. Fails with
 * ERR_CHILD "cannot run 'foo': No such file or directory" when argv[0] is
 * not an executable file on PATH (the command's PATH, from its cwd), or
 * "cannot run 'foo' in DIR: ..." when opts->cwd is no directory, and with
 * ERR_IO when the log cannot be opened.
 */
int spawner_init(struct spawner *s, char *const *argv, const struct spawn_opts *opts);

/*
 * Runs the command once and waits for it. Returns 0 with @r filled (also when
 * the command failed or timed out: see r->status and r->timed_out), or
 * ERR_CHILD when it could not be started at all.
 */
int spawner_run(struct spawner *s, struct spawn_result *r);

void spawner_release(struct spawner *s);

/* The file execvp would run for @name (looked up on PATH unless it has a
 * '/') in a command started in @cwd (NULL: ours), into *@out as a path
 * that names it from here (caller frees); ERR_CHILD as spawner_init says. */
int spawn_which(const char *cwd, const char *name, char **out);
/* @path as seen from here when a command started in @cwd names it:
 * @cwd/@path for a relative @path, else a copy (caller frees). */
char *spawn_path_at(const char *cwd, const char *path);

/* One-shot convenience: init, run, release. */
int spawn_run(char *const *argv, const struct spawn_opts *opts, struct spawn_result *r);

/*
 * Runs @cmd through /bin/sh -c (a user's build or pre_run line) in @cwd
 * (NULL: ours) with its output as @output says. A non-zero exit fails with
 * ERR_CHILD "@what 'cmd' exited with status 2"; a signal received
 * meanwhile with ERR_INTERRUPTED.
 */
int spawn_shell(const char *cmd, const char *what, enum spawn_output output, const char *cwd);

/*
 * SIGINT and SIGTERM while commands run: the first is forwarded to the
 * running command (a second one sends SIGKILL) and remembered, so the caller
 * stops and writes nothing. spawn_signals_restore() puts the old handlers
 * back. Not nestable.
 */
void spawn_signals_install(void);
void spawn_signals_restore(void);
/* The signal received since install, or 0. */
int spawn_interrupted(void);

/* "exited with status 3", "killed by signal 9 (Killed)"; for messages. */
const char *spawn_status_str(int status, char *out, size_t len);

#endif
