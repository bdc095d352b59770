/* One run of the fuzzed program, measured (exec.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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
#include "util/envp.h"

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

/* Ours, with the coverage descriptor named only when it is passed (a bare
 * name removes an inherited one) and the sanitizer options the user has
 * not set. */
static void build_envp(struct fz_exec *x)
{
	char *over[2 + ARRAY_SIZE(sanitizer_env)];
	size_t k = 0;

	over[k++] = x->cover ? xasprintf("%s=%d", FUZZCOV_ENV, FUZZCOV_FD) : xstrdup(FUZZCOV_ENV);
	for (size_t i = 0; i < ARRAY_SIZE(sanitizer_env); i++) {
		char *name = xstrndup(sanitizer_env[i], strcspn(sanitizer_env[i], "="));
		const char *v = envp_get(NULL, name);

		if (!v || !*v)
			over[k++] = xstrdup(sanitizer_env[i]);
		free(name);
	}
	over[k] = NULL;
	x->envp = envp_merge(NULL, over);
	for (size_t i = 0; i < k; i++)
		free(over[i]);
}

/*
 * posix_spawn (a vfork, then exec) rather than fork: the fuzzer's memory
 * grows with its corpus, and a fork's copy of its page tables would come
 * to cost more than the run itself. Everything the child needs is said
 * here once: its process group, its signals, its stdin, stdout, stderr
 * and the coverage map's descriptor.
 */
static void spawn_setup(struct fz_exec *x)
{
	sigset_t all, none;

	posix_spawn_file_actions_init(&x->fa);
	if (x->stdin_input)
		posix_spawn_file_actions_addopen(&x->fa, 0, x->input_path, O_RDONLY, 0);
	else
		posix_spawn_file_actions_adddup2(&x->fa, x->null_fd, 0);
	posix_spawn_file_actions_adddup2(&x->fa, x->null_fd, 1);
	posix_spawn_file_actions_adddup2(&x->fa, x->null_fd, 2);
	if (x->cover)
		posix_spawn_file_actions_adddup2(&x->fa, x->cover->fd, FUZZCOV_FD);
	posix_spawnattr_init(&x->attr_spawn);
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&x->attr_spawn, &all);
	posix_spawnattr_setsigmask(&x->attr_spawn, &none);
	posix_spawnattr_setpgroup(&x->attr_spawn, 0);
	posix_spawnattr_setflags(&x->attr_spawn, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
							 POSIX_SPAWN_SETSIGMASK);
	x->have_spawn = true;
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
	x->null_fd = x->input_fd = -1;
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
	spawn_setup(x);
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
	if (x->input_fd >= 0)
		close(x->input_fd);
	if (x->have_spawn) {
		posix_spawn_file_actions_destroy(&x->fa);
		posix_spawnattr_destroy(&x->attr_spawn);
	}
	if (x->core_set)
		setrlimit(RLIMIT_CORE, &x->core);
	memset(x, 0, sizeof(*x));
	x->null_fd = x->input_fd = -1;
}

/* ---- one run ---- */

/* The input file is written in place: truncating and refilling one file
 * costs the file system less than a new one each run. */
static int write_input(struct fz_exec *x, const uint8_t *data, size_t len)
{
	size_t off = 0;

	if (x->input_fd < 0) {
		x->input_fd = open(x->input_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (x->input_fd < 0)
			return err_set(ERR_IO, "cannot write %s: %s", x->input_path,
				       strerror(errno));
	}
	if (ftruncate(x->input_fd, (off_t)len) < 0)
		return err_set(ERR_IO, "cannot write %s: %s", x->input_path, strerror(errno));
	while (off < len) {
		ssize_t n = pwrite(x->input_fd, data + off, len - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(ERR_IO, "cannot write %s: %s", x->input_path,
				       strerror(errno));
		off += (size_t)n;
	}
	return 0;
}

/*
 * The counter is opened on ourselves, disabled, inherited and enabled on
 * exec: the spawned child's copy starts counting at its exec and adds its
 * count to ours when it exits. A fresh one each run (one kept open across
 * runs has been seen to miss a child's count).
 */
static int open_counter(struct fz_exec *x)
{
	struct perf_event_attr a = x->attr;
	bool unsupported;
	int fd;

	if (x->metric != FZ_METRIC_INSTRUCTIONS && x->metric != FZ_METRIC_TASK_CLOCK)
		return -1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	fd = perf_open(fz_metric_name(x->metric), &a, 0, -1, &unsupported);
	if (fd < 0)
		err_clear();
	return fd;
}

enum waited { EXITED, TIMED_OUT, STOPPED };

/*
 * Waits for @pid at most @timeout seconds. A stop asked for while it runs
 * (the signal interrupts the wait) ends the wait at once; one asked for
 * before it started does not, so the last measurements after a Ctrl-C
 * still run.
 */
static enum waited wait_exit(const struct fz_exec *x, pid_t pid, double timeout)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	double end = now() + timeout;
	bool stop0 = x->stop && *x->stop;

	if (pfd >= 0) {
		struct pollfd p = {.fd = pfd, .events = POLLIN};
		int r;

		do {
			double left = end - now();

			if (!stop0 && x->stop && *x->stop) {
				close(pfd);
				return STOPPED;
			}
			/* poll's int milliseconds: a day at most per call is plenty. */
			r = left > 0 ? poll(&p, 1, left > 86400 ? 86400000 : (int)(left * 1000) + 1)
				     : 0;
		} while (r < 0 && errno == EINTR);
		close(pfd);
		return r > 0 ? EXITED : TIMED_OUT;
	}
	/* Kernels before 5.3: look every millisecond. */
	while (now() < end) {
		siginfo_t si = {0};
		struct timespec ms = {0, 1000000};

		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			return EXITED;
		if (!stop0 && x->stop && *x->stop)
			return STOPPED;
		nanosleep(&ms, NULL);
	}
	return TIMED_OUT;
}

static double read_counter(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return (double)v;
}

static void classify(struct fz_result *r, enum waited how)
{
	int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;

	if (how == STOPPED)
		r->outcome = FZ_STOPPED;
	else if (how == TIMED_OUT)
		r->outcome = FZ_HANG;
	else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
		 sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS || sig == SIGKILL)
		r->outcome = FZ_CRASH;
	else
		r->outcome = FZ_OK;
}

/* A crash is kept as its input; a core dump per crash would only slow the
 * fuzzer down (and fill the disk). The child inherits the limit. */
static void no_core(struct fz_exec *x)
{
	struct rlimit zero = {0, 0};

	if (x->core_set || getrlimit(RLIMIT_CORE, &x->core) < 0)
		return;
	zero.rlim_max = x->core.rlim_max;
	if (setrlimit(RLIMIT_CORE, &zero) == 0)
		x->core_set = true;
}

int fz_exec_run(struct fz_exec *x, const uint8_t *data, size_t len, struct fz_result *r)
{
	struct rusage ru;
	pid_t pid = 0;
	int counter, ret;
	double start;
	enum waited how;

	memset(r, 0, sizeof(*r));
	ret = write_input(x, data, len);
	if (ret < 0)
		return ret;
	no_core(x);
	if (x->cover)
		fz_cover_reset(x->cover);
	counter = open_counter(x);
	start = now();
	ret = posix_spawn(&pid, x->path, &x->fa, &x->attr_spawn, x->argv, x->envp);
	if (ret != 0) {
		if (counter >= 0)
			close(counter);
		return err_set(ERR_CHILD, "cannot run %s: %s", x->argv[0], strerror(ret));
	}
	how = wait_exit(x, pid, x->timeout > 0 ? x->timeout : 1e9);
	/* Whatever it left behind in its group goes too. */
	kill(-pid, SIGKILL);
	while (wait4(pid, &r->status, 0, &ru) < 0 && errno == EINTR)
		;
	r->wall = now() - start;
	classify(r, how);
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
