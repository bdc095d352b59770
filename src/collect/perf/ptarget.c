/* The measured target's life: start it, wait for its end or a stop. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/perf/ptarget.h"
#include "perf/counters.h"
#include "util/error.h"
#include "util/xalloc.h"

/* pidfd_open(2) on a thread that leads no process (Linux 6.9). */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Without a pidfd (kernels before 5.3) the target is looked for this often. */
enum { POLL_FALLBACK_MS = 20, POLL_ATTACHED_MS = 100 };

static int thread_target(struct ptarget *t, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (access(path, F_OK) < 0)
		return err_set(ERR_NOTFOUND, "no thread %d", (int)tid);
	t->tids = xmalloc(sizeof(*t->tids));
	t->tids[0] = tid;
	t->ntids = 1;
	t->pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (t->pidfd < 0)
		t->pidfd = (int)syscall(SYS_pidfd_open, tid, 0); /* a process leader */
	return 0;
}

int ptarget_open(struct ptarget *t, const struct ptarget_spec *spec)
{
	memset(t, 0, sizeof(*t));
	t->spec = *spec;
	t->ch = (struct perf_child){0, -1, -1, false};
	t->pidfd = -1;
	t->opened = true;
	if (spec->argv && spec->argc) {
		int ret = spec->use_io ? perf_child_fork_io(&t->ch, spec->argv, &spec->io)
				       : perf_child_fork(&t->ch, spec->argv);

		if (ret < 0)
			return ERR_CHILD;
		t->pidfd = (int)syscall(SYS_pidfd_open, t->ch.pid, 0);
		return 0;
	}
	if (spec->tid)
		return thread_target(t, spec->tid);
	if (spec->pid) {
		if (perf_pid_threads(spec->pid, &t->tids, &t->ntids) < 0)
			return ERR_NOTFOUND;
		t->pidfd = (int)syscall(SYS_pidfd_open, spec->pid, 0);
	}
	return 0;
}

int ptarget_start(struct ptarget *t)
{
	if (!t->ch.pid)
		return 0;
	return perf_child_start(&t->ch, t->spec.argv[0]);
}

bool ptarget_stopped(const struct ptarget *t)
{
	return t->spec.stop && *t->spec.stop;
}

static bool try_reap(struct ptarget *t, int flags)
{
	pid_t r;

	do
		r = wait4(t->ch.pid, &t->status, flags, &t->ru);
	while (!(flags & WNOHANG) && r < 0 && errno == EINTR);
	t->reaped = r == t->ch.pid;
	return t->reaped;
}

/* Without a pidfd: whether the attached process or thread is gone. */
static bool attached_gone(const struct ptarget *t)
{
	pid_t who = t->spec.tid ? t->spec.tid : t->spec.pid;
	char path[64];

	if (t->spec.tid) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)who);
		return access(path, F_OK) < 0;
	}
	return kill(who, 0) < 0 && errno == ESRCH;
}

/* The target's end as known now, without waiting. */
static bool ended_now(struct ptarget *t, bool pidfd_ready)
{
	if (t->ch.pid)
		return (pidfd_ready || t->pidfd < 0) ? try_reap(t, WNOHANG) : false;
	if (ptarget_stopped(t))
		return true;
	if (t->spec.pid || t->spec.tid)
		return t->pidfd >= 0 ? pidfd_ready : attached_gone(t);
	return false; /* every CPU, no command: until stopped */
}

static long long ns_until(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(deadline->tv_sec - now.tv_sec) * 1000000000LL +
	       (deadline->tv_nsec - now.tv_nsec);
}

/* How long one poll may sleep (-1: for ever): the deadline, shortened
 * where the end of the target would not wake us. */
static long long poll_ns(const struct ptarget *t, const struct timespec *deadline)
{
	long long ns = deadline ? ns_until(deadline) : -1, cap = -1;

	if (deadline && ns < 0)
		ns = 0;
	if (t->pidfd < 0 && t->ch.pid)
		cap = POLL_FALLBACK_MS * 1000000LL;
	else if (t->pidfd < 0 && (t->spec.pid || t->spec.tid))
		cap = POLL_ATTACHED_MS * 1000000LL;
	if (cap >= 0 && (ns < 0 || ns > cap))
		ns = cap;
	return ns;
}

bool ptarget_wait(struct ptarget *t, const struct timespec *deadline, struct pollfd *extra,
		  size_t nextra)
{
	struct pollfd *p = xcalloc(nextra + 2, sizeof(*p));
	bool ended = false;

	for (;;) {
		size_t n = 0, at_pidfd = SIZE_MAX;
		long long ns = poll_ns(t, deadline);
		struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
		int r;

		if (t->pidfd >= 0 && !t->reaped)
			p[at_pidfd = n++] = (struct pollfd){.fd = t->pidfd, .events = POLLIN};
		/* A command ends by its exit (the caller kills it to stop it): a
		 * stop then would only spin this loop until it is reaped. */
		if (t->spec.stop_fd >= 0 && !t->ch.pid)
			p[n++] = (struct pollfd){.fd = t->spec.stop_fd, .events = POLLIN};
		for (size_t i = 0; i < nextra; i++) {
			extra[i].revents = 0;
			p[n++] = extra[i];
		}
		r = ppoll(p, n, ns < 0 ? NULL : &ts, NULL);
		if ((ended = ended_now(t, at_pidfd != SIZE_MAX && r > 0 && p[at_pidfd].revents)))
			break;
		if (r > 0 && nextra) {
			bool any = false;

			for (size_t i = 0; i < nextra; i++)
				any |= (extra[i].revents = p[n - nextra + i].revents) != 0;
			if (any)
				break;
		}
		if (deadline && ns_until(deadline) <= 0)
			break;
	}
	free(p);
	return ended;
}

void ptarget_reap(struct ptarget *t)
{
	if (t->ch.pid && !t->reaped)
		try_reap(t, 0);
}

int ptarget_exit_status(const struct ptarget *t)
{
	if (!t->reaped)
		return 0;
	if (WIFEXITED(t->status))
		return WEXITSTATUS(t->status);
	return WIFSIGNALED(t->status) ? 128 + WTERMSIG(t->status) : 0;
}

void ptarget_release(struct ptarget *t)
{
	if (!t->opened)
		return;
	t->opened = false;
	if (!t->reaped)
		perf_child_release(&t->ch);
	else
		perf_child_release(&(struct perf_child){0, t->ch.go_fd, t->ch.err_fd, false});
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	free(t->tids);
	t->tids = NULL;
}
