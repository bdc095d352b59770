#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/envp.h"
#include "util/fsutil.h"
#include "util/spawn.h"

extern char **environ;

/* After the command exits, how long captured pipes may stay silent before we
 * stop reading: a background grandchild can hold them open forever. */
#define DRAIN_MS 100
/* Without pidfd_open (Linux < 5.3) a timeout is watched by polling. */
#define FALLBACK_POLL_MS 10

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double tv_sec(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* ---- finding the program ---- */

char *spawn_path_at(const char *cwd, const char *path)
{
	if (!cwd || path[0] == '/')
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

/* Whether @path (relative to @cwd) is a file execve would run. */
static bool is_exec_file(const char *cwd, const char *path, int *err)
{
	char *at = spawn_path_at(cwd, path);
	struct stat st;
	bool ok = false;

	if (stat(at, &st) < 0) {
		if (*err != EACCES)
			*err = errno;
	} else if (!S_ISREG(st.st_mode) || access(at, X_OK) < 0) {
		/* execve refuses directories with EACCES, and so do we, up front. */
		*err = EACCES;
	} else {
		ok = true;
	}
	free(at);
	return ok;
}

/*
 * Looks argv[0] up on @path_var once, as execvp would in @cwd, so that the
 * runs do not repeat the search (posix_spawnp tries execve in every PATH
 * directory). *@out is relative to @cwd when it is relative.
 */
static int spawn_resolve(const char *cwd, const char *path_var, const char *name, char **out)
{
	const char *path = path_var;
	struct buf b = BUF_INIT;
	int err = ENOENT;

	if (!*name)
		return err_set(ERR_CHILD, "cannot run '': %s", strerror(ENOENT));
	if (strchr(name, '/')) {
		if (!is_exec_file(cwd, name, &err))
			return err_set(ERR_CHILD, "cannot run '%s': %s", name, strerror(err));
		*out = xstrdup(name);
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');

		buf_reset(&b);
		if (end == path)
			buf_addc(&b, '.'); /* an empty PATH entry is the current directory */
		else
			buf_add(&b, path, (size_t)(end - path));
		buf_addf(&b, "/%s", name);
		if (is_exec_file(cwd, buf_str(&b), &err)) {
			*out = buf_detach(&b, NULL);
			return 0;
		}
		path = *end ? end + 1 : end;
	}
	buf_release(&b);
	return err_set(ERR_CHILD, "cannot run '%s': %s", name, strerror(err));
}

int spawn_which(const char *cwd, const char *name, char **out)
{
	char *rel;
	int ret = spawn_resolve(cwd, getenv("PATH"), name, &rel);

	if (ret < 0)
		return ret;
	*out = spawn_path_at(cwd, rel);
	free(rel);
	return 0;
}

/* ---- signals ---- */

static volatile sig_atomic_t sig_got;
static volatile sig_atomic_t sig_count;
static volatile sig_atomic_t sig_child; /* the running command, 0 when none */
static struct sigaction old_int, old_term;

static void spawn_on_signal(int sig)
{
	int saved = errno;
	pid_t child = (pid_t)sig_child;

	sig_count = sig_count + 1;
	if (!sig_got)
		sig_got = sig;
	/* A second Ctrl-C means "now": the command may be ignoring the first. */
	if (child > 0)
		kill(child, sig_count > 1 ? SIGKILL : sig);
	errno = saved;
}

void spawn_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = spawn_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sig_got = 0;
	sig_count = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
}

void spawn_signals_restore(void)
{
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
}

int spawn_interrupted(void)
{
	return sig_got;
}

/* ---- the spawner ---- */

/* What does not change between runs: the program, the environment, the
 * file actions, /dev/null and the log. */
static int spawner_prepare(struct spawner *s, char *const *argv)
{
	int ret;

	if (!argv || !argv[0])
		return err_set(ERR_INVALID, "no command to run");
	if (s->opts.cwd && !path_is_dir(s->opts.cwd))
		return err_set(ERR_CHILD, "cannot run '%s' in %s: %s", argv[0], s->opts.cwd,
			       strerror(path_exists(s->opts.cwd) ? ENOTDIR : ENOENT));
	if (s->opts.envp || s->opts.env)
		s->envp = envp_merge(s->opts.envp, s->opts.env);
	ret = spawn_resolve(s->opts.cwd, envp_get(s->envp, "PATH"), argv[0], &s->path);
	if (ret < 0)
		return ret;
	if (s->opts.output == SPAWN_SUPPRESS) {
		s->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (s->null_fd < 0)
			return err_set(ERR_IO, "cannot open /dev/null: %s", strerror(errno));
		/* dup2 in the child clears FD_CLOEXEC on 1 and 2 only. */
		posix_spawn_file_actions_init(&s->fa);
		s->have_fa = true;
		posix_spawn_file_actions_adddup2(&s->fa, s->null_fd, STDOUT_FILENO);
		posix_spawn_file_actions_adddup2(&s->fa, s->null_fd, STDERR_FILENO);
	}
	if (s->opts.cwd) {
		if (!s->have_fa)
			posix_spawn_file_actions_init(&s->fa);
		s->have_fa = true;
		posix_spawn_file_actions_addchdir_np(&s->fa, s->opts.cwd);
	}
	if (s->opts.output == SPAWN_CAPTURE) {
		if (!s->opts.log_path)
			return err_set(ERR_INVALID, "capturing output needs a log file");
		s->log_fd = open(s->opts.log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (s->log_fd < 0)
			return err_set(ERR_IO, "cannot open %s: %s", s->opts.log_path,
				       strerror(errno));
	}
	return 0;
}

int spawner_init(struct spawner *s, char *const *argv, const struct spawn_opts *opts)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->null_fd = -1;
	s->log_fd = -1;
	s->argv = argv;
	if (opts)
		s->opts = *opts;
	if (s->opts.grace <= 0)
		s->opts.grace = 2.0;
	ret = spawner_prepare(s, argv);
	/* Nothing is left to release after a failure (releasing again is
	 * harmless). */
	if (ret < 0)
		spawner_release(s);
	return ret;
}

void spawner_release(struct spawner *s)
{
	if (s->have_fa)
		posix_spawn_file_actions_destroy(&s->fa);
	if (s->null_fd >= 0)
		close(s->null_fd);
	if (s->log_fd >= 0)
		close(s->log_fd);
	free(s->path);
	envp_free(s->envp);
	memset(s, 0, sizeof(*s));
	s->null_fd = -1;
	s->log_fd = -1;
}

/* Whether the command has exited, without reaping it (no pidfd). */
static bool child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

struct watch {
	pid_t pid;
	int pidfd;    /* -1 without pidfd_open */
	int pipes[2]; /* read ends for stdout, stderr; -1 when closed or unused */
	int log_fd;
	bool echo; /* copy what the pipes give to our stdout and stderr */
	const struct spawn_opts *opts;
	double deadline; /* INFINITY without a timeout */
	double grace;
	int stage; /* 0 running, 1 sent SIGTERM, 2 sent SIGKILL */
	bool exited;
};

/*
 * Copies what is waiting on pipe @k (0 stdout, 1 stderr) to the log, to our
 * own stream and to the sink; false at EOF.
 */
static bool pump(struct watch *w, int k)
{
	const struct spawn_opts *o = w->opts;
	char chunk[65536];
	ssize_t n = read(w->pipes[k], chunk, sizeof(chunk));
	bool sunk = o->sink && (o->sink_streams & (k ? SPAWN_STDERR : SPAWN_STDOUT));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	/* A closed log or stdout must not stop the measurement. */
	if (w->log_fd >= 0)
		(void)write_in_full(w->log_fd, chunk, (size_t)n);
	if (w->echo && !(sunk && o->sink_only))
		(void)write_in_full(k ? STDERR_FILENO : STDOUT_FILENO, chunk, (size_t)n);
	if (sunk)
		o->sink(o->sink_arg, k ? SPAWN_STDERR : SPAWN_STDOUT, chunk, (size_t)n);
	return true;
}

/* The timeout expired: ask politely first, then insist. */
static void watch_escalate(struct watch *w, struct spawn_result *r, double now)
{
	if (w->stage == 0) {
		r->timed_out = true;
		kill(w->pid, SIGTERM);
		w->deadline = now + w->grace;
	} else {
		kill(w->pid, SIGKILL);
		w->deadline = INFINITY;
	}
	w->stage++;
}

/*
 * Waits for the command to exit (and its output to end) while copying
 * captured output and enforcing the timeout. The caller reaps it.
 */
static void watch_run(struct watch *w, struct spawn_result *r)
{
	for (;;) {
		struct pollfd pfd[3];
		int n = 0, wait_ms = -1, i, got;
		double now = mono_now();

		for (i = 0; i < 2; i++)
			if (w->pipes[i] >= 0)
				pfd[n++] = (struct pollfd){.fd = w->pipes[i], .events = POLLIN};
		if (!w->exited && w->pidfd >= 0)
			pfd[n++] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
		if (!w->exited && w->pidfd < 0 && child_exited(w->pid))
			w->exited = true;
		if (w->exited && w->pipes[0] < 0 && w->pipes[1] < 0)
			return;
		if (!w->exited && now >= w->deadline) {
			struct pollfd pf = {.fd = w->pidfd, .events = POLLIN};

			/* It may have exited just in time: that is not a timeout. */
			if (w->pidfd >= 0 && poll(&pf, 1, 0) == 1) {
				w->exited = true;
				continue;
			}
			watch_escalate(w, r, now);
			continue;
		}
		if (w->exited)
			wait_ms = DRAIN_MS;
		else if (isfinite(w->deadline))
			wait_ms = (int)ceil((w->deadline - now) * 1000.0);
		if (!w->exited && w->pidfd < 0 && (wait_ms < 0 || wait_ms > FALLBACK_POLL_MS))
			wait_ms = FALLBACK_POLL_MS;
		got = poll(pfd, (nfds_t)n, wait_ms);
		if (got < 0 && errno != EINTR)
			return;
		if (got == 0 && w->exited)
			return; /* silent after exit: a grandchild holds the pipe */
		for (i = 0; got > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == w->pidfd) {
				w->exited = true;
				continue;
			}
			int k = pfd[i].fd == w->pipes[0] ? 0 : 1;
			if (!pump(w, k)) {
				close(w->pipes[k]);
				w->pipes[k] = -1;
			}
		}
	}
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	UNUSED(pid);
	errno = ENOSYS;
	return -1;
#endif
}

/* The streams that go through pipes: both when captured, else the sink's. */
static unsigned piped_streams(const struct spawn_opts *o)
{
	if (o->output == SPAWN_CAPTURE)
		return SPAWN_STDOUT | SPAWN_STDERR;
	return o->sink ? o->sink_streams & (SPAWN_STDOUT | SPAWN_STDERR) : 0;
}

static void close_pipe(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
	p[0] = p[1] = -1;
}

/*
 * Pipes for the streams in @piped and the file actions that put them on 1
 * and 2; a stream not piped goes to /dev/null when output is suppressed.
 */
static int pipes_setup(const struct spawner *s, unsigned piped, int p[2][2],
		       posix_spawn_file_actions_t *fa)
{
	for (int k = 0; k < 2; k++) {
		if (!(piped & (k ? SPAWN_STDERR : SPAWN_STDOUT)))
			continue;
		if (pipe2(p[k], O_CLOEXEC) < 0) {
			int e = errno;

			close_pipe(p[0]);
			close_pipe(p[1]);
			return err_set(ERR_IO, "cannot create a pipe: %s", strerror(e));
		}
	}
	posix_spawn_file_actions_init(fa);
	for (int k = 0; k < 2; k++) {
		int fd = p[k][1] >= 0 ? p[k][1] : s->null_fd;

		if (fd >= 0)
			posix_spawn_file_actions_adddup2(fa, fd, k ? STDERR_FILENO : STDOUT_FILENO);
	}
	if (s->opts.cwd)
		posix_spawn_file_actions_addchdir_np(fa, s->opts.cwd);
	return 0;
}

static void reap(pid_t pid, struct spawn_result *r)
{
	struct rusage ru;
	int status = 0;

	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	r->status = status;
	r->user = tv_sec(ru.ru_utime);
	r->sys = tv_sec(ru.ru_stime);
	r->maxrss_kib = ru.ru_maxrss;
}

int spawner_run(struct spawner *s, struct spawn_result *r)
{
	unsigned piped = piped_streams(&s->opts);
	bool watch = piped || s->opts.timeout > 0;
	posix_spawn_file_actions_t cfa;
	const posix_spawn_file_actions_t *fa = s->have_fa ? &s->fa : NULL;
	int p[2][2] = {{-1, -1}, {-1, -1}};
	struct timespec t0, t1;
	pid_t pid;
	int rc;

	r->timed_out = false;
	if (piped) {
		rc = pipes_setup(s, piped, p, &cfa);
		if (rc < 0)
			return rc;
		fa = &cfa;
		fflush(stdout); /* our own output stays before the command's */
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = posix_spawnp(&pid, s->path, fa, NULL, s->argv, s->envp ? s->envp : environ);
	if (piped) {
		posix_spawn_file_actions_destroy(&cfa);
		for (int k = 0; k < 2; k++)
			if (p[k][1] >= 0) {
				close(p[k][1]);
				p[k][1] = -1;
			}
	}
	if (rc != 0) {
		close_pipe(p[0]);
		close_pipe(p[1]);
		if (s->opts.cwd)
			return err_set(ERR_CHILD, "cannot run '%s' in %s: %s", s->argv[0],
				       s->opts.cwd, strerror(rc));
		return err_set(ERR_CHILD, "cannot run '%s': %s", s->argv[0], strerror(rc));
	}
	sig_child = pid;
	/* A signal that came between spawn and here was not forwarded yet. */
	if (sig_got)
		kill(pid, sig_got);
	if (watch) {
		struct watch w = {
			.pid = pid,
			.pidfd = open_pidfd(pid),
			.pipes = {p[0][0], p[1][0]},
			.log_fd = s->log_fd,
			.echo = s->opts.output != SPAWN_SUPPRESS,
			.opts = &s->opts,
			.deadline = s->opts.timeout > 0 ? mono_now() + s->opts.timeout : INFINITY,
			.grace = s->opts.grace,
		};

		watch_run(&w, r);
		for (int i = 0; i < 2; i++)
			if (w.pipes[i] >= 0)
				close(w.pipes[i]);
		if (w.pidfd >= 0)
			close(w.pidfd);
	}
	reap(pid, r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sig_child = 0;
	r->start = (double)t0.tv_sec + (double)t0.tv_nsec * 1e-9;
	r->real = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return 0;
}

int spawn_run(char *const *argv, const struct spawn_opts *opts, struct spawn_result *r)
{
	struct spawner s;
	int ret = spawner_init(&s, argv, opts);

	if (ret == 0)
		ret = spawner_run(&s, r);
	spawner_release(&s);
	return ret;
}

int spawn_shell(const char *cmd, const char *what, enum spawn_output output, const char *cwd)
{
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	struct spawn_opts o = {.output = output, .cwd = cwd};
	struct spawn_result r;
	char status[96];
	int ret = spawn_run(argv, &o, &r);

	if (ret < 0)
		return ret;
	if (spawn_interrupted())
		return err_set(ERR_INTERRUPTED, "interrupted during %s", what);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		return err_set(ERR_CHILD, "%s '%s' %s", what, cmd,
			       spawn_status_str(r.status, status, sizeof(status)));
	return 0;
}

const char *spawn_status_str(int status, char *out, size_t len)
{
	if (WIFEXITED(status))
		snprintf(out, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(out, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(out, len, "stopped with wait status %#x", status);
	return out;
}
