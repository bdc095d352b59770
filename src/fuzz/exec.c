/* One run of the fuzzed program, measured (exec.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/cover.h"
#include "fuzz/exec.h"
#include "fuzzcov-format.h"
#include "perf/perf.h"
#include "util/buf.h"
#include "util/common.h"

extern char **environ;

static const char *const metric_names[] = {"auto", "instructions", "task-clock", "rusage", "hits"};

const char *fz_metric_name(enum fz_metric m)
{
	return metric_names[m];
}

int fz_metric_from_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(metric_names); i++)
		if (strcmp(metric_names[i], name) == 0)
			return (int)i;
	return -1;
}

bool fz_metric_is_count(enum fz_metric m)
{
	return m == FZ_METRIC_INSTRUCTIONS || m == FZ_METRIC_HITS;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the command ---- */

static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", name);

		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* @arg with every "@@" replaced by @path; NULL when it has none. */
static char *substitute(const char *arg, const char *path)
{
	struct buf b = BUF_INIT;
	const char *at;

	if (strcmp(arg, "%s") == 0)
		return xstrdup(path);
	if (!strstr(arg, "@@"))
		return NULL;
	while ((at = strstr(arg, "@@"))) {
		buf_add(&b, arg, (size_t)(at - arg));
		buf_adds(&b, path);
		arg = at + 2;
	}
	buf_adds(&b, arg);
	return buf_detach(&b, NULL);
}

static void build_argv(struct fz_exec *x, char **argv)
{
	size_t n = 0;

	while (argv[n])
		n++;
	x->argv = xcalloc(n + 1, sizeof(*x->argv));
	x->stdin_input = true;
	for (size_t i = 0; i < n; i++) {
		char *s = i ? substitute(argv[i], x->input_path) : NULL;

		if (s)
			x->stdin_input = false;
		x->argv[i] = s ? s : xstrdup(argv[i]);
	}
}

/* Sanitizer builds abort on their first report, so it counts as a crash
 * (their default exit status 1 would pass for a normal failure). */
static const char *const sanitizer_env[] = {
	"ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0",
	"UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=0",
};

static bool env_has(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

static void build_envp(struct fz_exec *x)
{
	size_t n = 0, k = 0;
	size_t key = strlen(FUZZCOV_ENV);

	while (environ[n])
		n++;
	x->envp = xcalloc(n + 2 + ARRAY_SIZE(sanitizer_env), sizeof(*x->envp));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], FUZZCOV_ENV, key) != 0 || environ[i][key] != '=')
			x->envp[k++] = xstrdup(environ[i]);
	if (x->cover)
		x->envp[k++] = xasprintf("%s=%d", FUZZCOV_ENV, FUZZCOV_FD);
	for (size_t i = 0; i < ARRAY_SIZE(sanitizer_env); i++) {
		char *name = xstrdup(sanitizer_env[i]);

		*strchr(name, '=') = '\0';
		if (!env_has(name))
			x->envp[k++] = xstrdup(sanitizer_env[i]);
		free(name);
	}
}

/* ---- the metric ---- */

static bool probe(const char *event, struct perf_event_attr *attr)
{
	if (perf_event_parse(event, attr) < 0) {
		err_clear();
		return false;
	}
	return perf_probe(attr) == 0;
}

static int choose_metric(struct fz_exec *x, enum fz_metric want)
{
	if (want == FZ_METRIC_AUTO || want == FZ_METRIC_INSTRUCTIONS) {
		if (probe("instructions:u", &x->attr)) {
			x->metric = FZ_METRIC_INSTRUCTIONS;
			return 0;
		}
		if (want == FZ_METRIC_INSTRUCTIONS)
			return err_set(ERR_INVALID,
				       "fuzz: this machine cannot count instructions:u "
				       "(no PMU, or perf_event_open refused); try "
				       "--metric task-clock");
		x->why = xstrdup("instructions:u cannot be counted here (no PMU)");
	}
	if (want == FZ_METRIC_AUTO || want == FZ_METRIC_TASK_CLOCK) {
		if (probe("task-clock", &x->attr)) {
			x->metric = FZ_METRIC_TASK_CLOCK;
			return 0;
		}
		if (want == FZ_METRIC_TASK_CLOCK)
			return err_set(ERR_INVALID,
				       "fuzz: perf_event_open refuses task-clock here; "
				       "try --metric rusage");
		free(x->why);
		x->why = xstrdup("perf_event_open refuses instructions:u and task-clock here");
	}
	if (want == FZ_METRIC_HITS && !x->cover)
		return err_set(ERR_INVALID, "fuzz: --metric hits needs the coverage map");
	x->metric = want == FZ_METRIC_AUTO ? FZ_METRIC_RUSAGE : want;
	return 0;
}

int fz_exec_init(struct fz_exec *x, char **argv, const char *input_path, enum fz_metric metric,
		 struct fz_cover *cover)
{
	int ret;

	memset(x, 0, sizeof(*x));
	x->null_fd = -1;
	x->cover = cover;
	x->path = find_program(argv[0]);
	if (!x->path)
		return err_set(ERR_CHILD, "cannot run '%s': %s", argv[0],
			       strchr(argv[0], '/') ? strerror(errno) : "not found on PATH");
	x->input_path = xstrdup(input_path);
	build_argv(x, argv);
	build_envp(x);
	x->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (x->null_fd < 0)
		return err_set(ERR_IO, "cannot open /dev/null: %s", strerror(errno));
	ret = choose_metric(x, metric);
	return ret;
}

void fz_exec_release(struct fz_exec *x)
{
	if (x->argv)
		for (size_t i = 0; x->argv[i]; i++)
			free(x->argv[i]);
	if (x->envp)
		for (size_t i = 0; x->envp[i]; i++)
			free(x->envp[i]);
	free(x->argv);
	free(x->envp);
	free(x->path);
	free(x->input_path);
	free(x->why);
	if (x->null_fd >= 0)
		close(x->null_fd);
	memset(x, 0, sizeof(*x));
	x->null_fd = -1;
}

/* ---- one run ---- */

static int write_input(const struct fz_exec *x, const uint8_t *data, size_t len)
{
	int fd = open(x->input_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t off = 0;

	if (fd < 0)
		return err_set(ERR_IO, "cannot write %s: %s", x->input_path, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return err_set(ERR_IO, "cannot write %s: %s", x->input_path, strerror(e));
		}
		off += (size_t)n;
	}
	close(fd);
	return 0;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_main(const struct fz_exec *x, int go, int err)
{
	struct rlimit core = {0, 0};
	int in = x->null_fd, e;
	char b;

	setpgid(0, 0);
	if (x->stdin_input)
		in = open(x->input_path, O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(x->null_fd, 1) < 0 || dup2(x->null_fd, 2) < 0)
		_exit(127);
	if (x->cover && dup2(x->cover->fd, FUZZCOV_FD) < 0)
		_exit(127);
	/* A crash is kept as its input; a core dump per crash would only
	 * slow the fuzzer down (and fill the disk). */
	setrlimit(RLIMIT_CORE, &core);
	if (read(go, &b, 1) != 1)
		_exit(127);
	execve(x->path, x->argv, x->envp);
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int open_counter(struct fz_exec *x, pid_t pid)
{
	struct perf_event_attr a = x->attr;
	bool unsupported;
	int fd;

	if (x->metric != FZ_METRIC_INSTRUCTIONS && x->metric != FZ_METRIC_TASK_CLOCK)
		return -1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	fd = perf_open(fz_metric_name(x->metric), &a, pid, -1, &unsupported);
	if (fd < 0)
		err_clear();
	return fd;
}

/* Waits for @pid at most @timeout seconds; false when it is still there. */
static bool wait_exit(pid_t pid, double timeout)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	double end = now() + timeout;

	if (pfd >= 0) {
		struct pollfd p = {.fd = pfd, .events = POLLIN};
		int r;

		do {
			double left = end - now();

			/* poll's int milliseconds: a day at most per call is plenty. */
			r = left > 0 ? poll(&p, 1, left > 86400 ? 86400000 : (int)(left * 1000) + 1)
				     : 0;
		} while (r < 0 && errno == EINTR);
		close(pfd);
		return r > 0;
	}
	/* Kernels before 5.3: look every millisecond. */
	while (now() < end) {
		siginfo_t si = {0};
		struct timespec ms = {0, 1000000};

		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

static int start_child(struct fz_exec *x, pid_t *pid, int *counter)
{
	int go[2], err[2], e = 0;
	ssize_t n;

	if (pipe2(go, O_CLOEXEC) < 0)
		return err_set(ERR_CHILD, "cannot make a pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC) < 0) {
		e = errno;
		close(go[0]);
		close(go[1]);
		return err_set(ERR_CHILD, "cannot make a pipe: %s", strerror(e));
	}
	*pid = fork();
	if (*pid == 0) {
		close(go[1]);
		close(err[0]);
		child_main(x, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	if (*pid < 0) {
		e = errno;
		close(go[1]);
		close(err[0]);
		return err_set(ERR_CHILD, "cannot fork: %s", strerror(e));
	}
	/* The parent sets the group too, so a kill cannot miss it. */
	setpgid(*pid, *pid);
	*counter = open_counter(x, *pid);
	n = write(go[1], "g", 1);
	close(go[1]);
	do
		n = read(err[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(err[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(*pid, NULL, 0);
		if (*counter >= 0)
			close(*counter);
		return err_set(ERR_CHILD, "cannot run %s: %s", x->argv[0], strerror(e));
	}
	return 0;
}

static double read_counter(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return (double)v;
}

static void classify(struct fz_result *r, bool hung)
{
	int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;

	if (hung)
		r->outcome = FZ_HANG;
	else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
		 sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS || sig == SIGKILL)
		r->outcome = FZ_CRASH;
	else
		r->outcome = FZ_OK;
}

int fz_exec_run(struct fz_exec *x, const uint8_t *data, size_t len, struct fz_result *r)
{
	struct rusage ru;
	pid_t pid = 0;
	int counter = -1, ret;
	double start;
	bool exited;

	memset(r, 0, sizeof(*r));
	ret = write_input(x, data, len);
	if (ret < 0)
		return ret;
	if (x->cover)
		fz_cover_reset(x->cover);
	start = now();
	ret = start_child(x, &pid, &counter);
	if (ret < 0)
		return ret;
	exited = wait_exit(pid, x->timeout > 0 ? x->timeout : 1e9);
	/* Whatever it left behind in its group goes too. */
	kill(-pid, SIGKILL);
	if (!exited)
		kill(pid, SIGKILL);
	while (wait4(pid, &r->status, 0, &ru) < 0 && errno == EINTR)
		;
	r->wall = now() - start;
	classify(r, !exited);
	if (x->metric == FZ_METRIC_INSTRUCTIONS)
		r->cost = read_counter(counter);
	else if (x->metric == FZ_METRIC_TASK_CLOCK)
		r->cost = read_counter(counter) * 1e-9;
	else if (x->metric == FZ_METRIC_RUSAGE)
		r->cost = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
			  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	if (counter >= 0)
		close(counter);
	return 0;
}
