/* A run's stdout and stderr, kept as they come (job.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/job.h"
#include "serve/util.h"
#include "util/xalloc.h"

/* A workload that floods its output must not fill the disk. */
#define OUTPUT_LIMIT (64ull << 20)

enum { KILL_AFTER_S = 2, LINGER_MS = 500 };

struct outcap {
	struct job *job;
	int fd[2];
	FILE *f[2];
	uint64_t bytes[2];
	pthread_t th;
	bool threaded;
	volatile int finishing;
	double finish_at;
};

static void take(struct outcap *c, int k)
{
	char buf[16384];
	ssize_t n = read(c->fd[k], buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(c->fd[k]);
		c->fd[k] = -1;
		return;
	}
	if (c->job->on_output)
		c->job->on_output(c->job, k == 1, buf, (size_t)n);
	if (c->bytes[k] >= OUTPUT_LIMIT)
		return;
	if (c->bytes[k] + (uint64_t)n > OUTPUT_LIMIT) {
		static const char cut[] = "\n[veles: output cut at 64 MiB]\n";

		n = (ssize_t)(OUTPUT_LIMIT - c->bytes[k]);
		fwrite(buf, 1, (size_t)n, c->f[k]);
		fwrite(cut, 1, sizeof(cut) - 1, c->f[k]);
		n += (ssize_t)sizeof(cut) - 1;
	} else {
		fwrite(buf, 1, (size_t)n, c->f[k]);
	}
	fflush(c->f[k]);
	c->bytes[k] += (uint64_t)n;
	if (c->job->live)
		live_add_output(c->job->live, k == 1, (uint64_t)n);
}

/* A cancelled command that ignores SIGTERM gets SIGKILL a moment later. */
static void escalate(struct job *j)
{
	pthread_mutex_lock(&j->mu);
	if (j->canceled && j->target && j->target->ch.pid && !j->target->reaped &&
	    srv_mono() - j->cancel_at > KILL_AFTER_S)
		perf_child_kill(&j->target->ch, SIGKILL);
	pthread_mutex_unlock(&j->mu);
}

static void *capture(void *arg)
{
	struct outcap *c = arg;

	while (c->fd[0] >= 0 || c->fd[1] >= 0) {
		struct pollfd p[2] = {{.fd = c->fd[0], .events = POLLIN},
				      {.fd = c->fd[1], .events = POLLIN}};

		if (poll(p, 2, 100) > 0)
			for (int k = 0; k < 2; k++)
				if (c->fd[k] >= 0 && p[k].revents)
					take(c, k);
		escalate(c->job);
		if (c->finishing && srv_mono() > c->finish_at)
			break;
	}
	return NULL;
}

struct outcap *outcap_start(struct job *j, int out_fd, int err_fd)
{
	struct outcap *c = xcalloc(1, sizeof(*c));
	static const char *const names[2] = {"stdout.log", "stderr.log"};

	c->job = j;
	c->fd[0] = out_fd;
	c->fd[1] = err_fd;
	for (int k = 0; k < 2; k++) {
		char *path = xasprintf("%s/%s", j->dir, names[k]);

		c->f[k] = fopen(path, "ae");
		if (!c->f[k])
			c->f[k] = fopen("/dev/null", "we");
		free(path);
	}
	c->threaded = pthread_create(&c->th, NULL, capture, c) == 0;
	if (!c->threaded) /* the output is lost, the run goes on */
		for (int k = 0; k < 2; k++) {
			close(c->fd[k]);
			c->fd[k] = -1;
		}
	return c;
}

void outcap_finish(struct outcap *c)
{
	if (!c)
		return;
	c->finish_at = srv_mono() + LINGER_MS / 1000.0;
	c->finishing = 1;
	if (c->threaded)
		pthread_join(c->th, NULL);
	for (int k = 0; k < 2; k++) {
		if (c->fd[k] >= 0)
			close(c->fd[k]);
		if (c->f[k])
			fclose(c->f[k]);
	}
	free(c);
}
