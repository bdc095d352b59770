/* The run queue's worker (exec.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <unistd.h>

#include "serve/env.h"
#include "serve/exec.h"
#include "serve/job.h"
#include "serve/model.h"
#include "serve/queue.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

struct exec {
	pthread_t th, renew_th;
	pthread_mutex_t mu;
	pthread_cond_t cv, renew_cv;
	bool wake, quit, renewing;
	struct job *job; /* the running one, or NULL */
	int lock_fd;	 /* the machine's run lock (see take_machine) */
};

static void stop_job(struct job *j);

/*
 * One run at a time on the machine: every veles serve of this user holds
 * the same lock file while it runs one, whatever database it keeps (two
 * servers on one database also see each other's running run there).
 * Waits, still answering a stop, until the lock is ours; false on stop.
 */
static int open_machine_lock(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	char *path = xasprintf("%s/veles-serve-runs-%u.lock", dir && *dir ? dir : "/tmp",
			       (unsigned)getuid());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	free(path);
	return fd;
}

bool exec_machine_idle(void)
{
	int fd = open_machine_lock();
	bool idle = fd < 0 || flock(fd, LOCK_EX | LOCK_NB) == 0;

	if (fd >= 0)
		close(fd); /* and the lock with it */
	return idle;
}

static bool take_machine(struct serve *s, struct exec *e)
{
	bool said = false;

	if (e->lock_fd < 0) {
		e->lock_fd = open_machine_lock();
		if (e->lock_fd < 0)
			return true; /* no lock to take: this server alone */
	}
	while (flock(e->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (!said)
			srv_log(s, "queue: another veles serve on this machine is running a run");
		said = true;
		pthread_mutex_lock(&e->mu);
		bool quit = e->quit;
		pthread_mutex_unlock(&e->mu);
		if (quit)
			return false;
		usleep(100 * 1000);
	}
	return true;
}

void job_spec(struct job *j, struct ptarget_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->stop = &j->stop;
	spec->stop_fd = j->stop_fd;
	if (j->run->pid || j->run->tid) {
		spec->pid = (pid_t)j->run->pid;
		spec->tid = (pid_t)j->run->tid;
		return;
	}
	spec->argv = j->argv;
	spec->argc = 3;
	spec->use_io = true;
	spec->io = (struct perf_child_io){.envp = j->envp,
					  .out_fd = j->out_pipe[1],
					  .err_fd = j->err_pipe[1],
					  .in_fd = -1,
					  .new_group = true};
}

void job_forked(struct job *j)
{
	if (j->out_pipe[1] < 0)
		return;
	close(j->out_pipe[1]);
	close(j->err_pipe[1]);
	j->out_pipe[1] = j->err_pipe[1] = -1;
	j->cap = outcap_start(j, j->out_pipe[0], j->err_pipe[0]);
	j->out_pipe[0] = j->err_pipe[0] = -1;
}

void job_reap_group(const struct ptarget *t)
{
	/* pid 0 would be our own group: never. */
	if (t->ch.group && t->ch.pid > 0)
		kill(-t->ch.pid, SIGKILL);
}

void job_progress(struct job *j, uint64_t rows, uint64_t samples)
{
	double now = srv_mono();

	j->rows += rows;
	j->samples = samples;
	if (j->live) {
		pthread_mutex_lock(&j->live->mu);
		j->live->samples = samples;
		pthread_mutex_unlock(&j->live->mu);
		live_add_rows(j->live, rows);
	}
	/* The database hears of it once a second: other servers' pages and
	 * the run list show progress without a write per interval. */
	if (now - j->last_progress >= 1.0) {
		j->last_progress = now;
		model_run_progress(j->srv->db, j->run->id, (int64_t)j->rows, (int64_t)j->samples);
	}
}

/* The command's pipes and environment; -1 with a message when not. */
static int job_prepare(struct job *j)
{
	j->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (j->stop_fd < 0)
		return err_set(ERR_IO, "cannot make an eventfd: %s", strerror(errno));
	if (mkdir_p(j->dir) < 0)
		return err_prefix(ERR_IO, "cannot make the run's folder");
	if (j->run->pid || j->run->tid)
		return 0;
	if (pipe2(j->out_pipe, O_CLOEXEC) < 0 || pipe2(j->err_pipe, O_CLOEXEC) < 0)
		return err_set(ERR_IO, "cannot make a pipe: %s", strerror(errno));
	j->argv[0] = "/bin/sh";
	j->argv[1] = "-c";
	j->argv[2] = j->run->command;
	j->argv[3] = NULL;
	return env_build(j->run->env, &j->envp);
}

static void job_release(struct job *j)
{
	outcap_finish(j->cap);
	for (int k = 0; k < 2; k++) {
		if (j->out_pipe[k] >= 0)
			close(j->out_pipe[k]);
		if (j->err_pipe[k] >= 0)
			close(j->err_pipe[k]);
	}
	if (j->stop_fd >= 0)
		close(j->stop_fd);
	env_free(j->envp);
	free(j->dir);
	pthread_mutex_destroy(&j->mu);
}

/* The run's end as the database keeps it. */
static void file_end(struct serve *s, struct job *j, int ret)
{
	struct srv_run *r = j->run;
	bool attached = r->pid || r->tid;

	r->ended = srv_now_ms();
	r->rows = (int64_t)j->rows;
	r->samples = (int64_t)j->samples;
	free(r->error);
	r->error = NULL;
	if (ret < 0) {
		snprintf(r->state, sizeof(r->state), "failed");
		r->error = xstrdup(err_msg());
	} else {
		/* Stopping an attached measurement is how it ends: done. */
		snprintf(r->state, sizeof(r->state), "%s",
			 j->canceled && !attached ? "canceled" : "done");
	}
	if (queue_finish(s->db, r, s->runner) < 0)
		srv_log(s, "run %s: %s", r->id, err_msg());
	live_finish(&s->live, r->id, r->state);
	srv_log(s, "run %s: %s%s%s", r->id, r->state, r->error ? ": " : "",
		r->error ? r->error : "");
}

static void run_one(struct serve *s, struct exec *e, struct srv_run *r)
{
	struct job j = {
		.srv = s, .run = r, .stop_fd = -1, .out_pipe = {-1, -1}, .err_pipe = {-1, -1}};
	int ret;

	pthread_mutex_init(&j.mu, NULL);
	j.dir = srv_run_dir(s, r->id); /* claimed: queue_claim made it running */
	/* Claimed again (the last runner of it went silent): what that one
	 * left here is not this run's. */
	if (r->attempts > 1 && path_exists(j.dir) && rm_rf(j.dir) < 0)
		srv_log(s, "run %s: cannot clear %s: %s", r->id, j.dir, err_msg());
	j.live = live_get(&s->live, r->id);
	if (j.live)
		live_set_state(j.live, "running");
	srv_log(s, "run %s: %s %s", r->id, r->tool, r->command);
	pthread_mutex_lock(&e->mu);
	e->job = &j;
	pthread_mutex_unlock(&e->mu);
	ret = job_prepare(&j);
	if (ret == 0)
		ret = strcmp(r->tool, "record") == 0 ? job_record(&j)
		      : strcmp(r->tool, "job") == 0  ? job_veles(&j)
						     : job_stat(&j);
	pthread_mutex_lock(&e->mu);
	e->job = NULL;
	pthread_mutex_unlock(&e->mu);
	job_release(&j);
	file_end(s, &j, ret);
	live_put(j.live);
	if (s->run_ended)
		s->run_ended(s->run_ended_arg, r->id, r->state);
}

/* Leases whose runner went silent: their runs back to the queue. Every
 * server does it, runner or not, so one is enough for a team to recover. */
static void expire(struct serve *s)
{
	size_t back, failed;

	if (queue_expire(s->db, srv_now_ms(), &back, &failed) < 0)
		srv_log(s, "queue: %s", err_msg());
	else if (back + failed)
		srv_log(s, "queue: %zu lease(s) expired: %zu run(s) back in the queue, %zu failed",
			back + failed, back, failed);
}

/* As a runner: the first queued run, claimed once the machine is ours. */
static void take_next(struct serve *s, struct exec *e)
{
	struct srv_run r;
	bool found = false;

	if (model_run_next(s->db, &r, &found) < 0)
		srv_log(s, "queue: %s", err_msg());
	srv_run_clear(&r);
	if (!found || !take_machine(s, e))
		return;
	/* Project jobs only where the project is (exec_job.c). */
	if (queue_claim_for(s->db, s->runner, srv_now_ms(), s->lease_ms, s->proj != NULL, &r,
			    &found) < 0)
		srv_log(s, "queue: %s", err_msg());
	if (found) {
		srv_log(s, "run %s: claimed by %s (claim %lld)", r.id, s->runner,
			(long long)r.attempts);
		run_one(s, e, &r);
		exec_wake(s); /* the next one, at once */
	}
	flock(e->lock_fd, LOCK_UN);
	srv_run_clear(&r);
}

static void *worker(void *arg)
{
	struct serve *s = arg;
	struct exec *e = s->exec;

	for (;;) {
		pthread_mutex_lock(&e->mu);
		while (!e->quit && !e->wake) {
			struct timespec t;

			/* Another server on the same database may queue runs too. */
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_sec += 1;
			if (pthread_cond_timedwait(&e->cv, &e->mu, &t) == ETIMEDOUT)
				break;
		}
		e->wake = false;
		if (e->quit) {
			pthread_mutex_unlock(&e->mu);
			break;
		}
		pthread_mutex_unlock(&e->mu);
		expire(s);
		if (s->runner)
			take_next(s, e);
	}
	return NULL;
}

/*
 * The lease of the running run, renewed at a third of its length. When it
 * is lost (this runner was stalled longer than the lease, and another took
 * the run again; or the run was deleted), the run stops here: it is
 * another's now.
 */
static void *renewer(void *arg)
{
	struct serve *s = arg;
	struct exec *e = s->exec;

	pthread_mutex_lock(&e->mu);
	while (!e->quit) {
		struct timespec t;
		int64_t step = s->lease_ms / 3;
		char id[SRV_ID_LEN + 1];

		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_sec += step / 1000;
		t.tv_nsec += (step % 1000) * 1000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&e->renew_cv, &e->mu, &t);
		if (e->quit || !e->job)
			continue;
		snprintf(id, sizeof(id), "%s", e->job->run->id);
		pthread_mutex_unlock(&e->mu);
		int ret = queue_renew(s->db, id, s->runner, srv_now_ms() + s->lease_ms);
		pthread_mutex_lock(&e->mu);
		if (ret == ERR_CONFLICT && e->job && strcmp(e->job->run->id, id) == 0) {
			srv_log(s, "run %s: %s: stopping it", id, err_msg());
			stop_job(e->job);
		} else if (ret < 0) {
			srv_log(s, "run %s: cannot renew its lease: %s", id, err_msg());
		}
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

int exec_start(struct serve *s)
{
	struct exec *e = xcalloc(1, sizeof(*e));

	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	pthread_cond_init(&e->renew_cv, NULL);
	e->wake = true;
	e->lock_fd = -1;
	s->exec = e;
	if (pthread_create(&e->th, NULL, worker, s) != 0) {
		s->exec = NULL;
		free(e);
		return err_set(ERR_GENERIC, "cannot start the run queue's thread");
	}
	if (s->runner && pthread_create(&e->renew_th, NULL, renewer, s) == 0)
		e->renewing = true;
	else if (s->runner)
		srv_log(s, "queue: cannot start the lease's thread: leases will expire");
	return 0;
}

void exec_wake(struct serve *s)
{
	struct exec *e = s->exec;

	pthread_mutex_lock(&e->mu);
	e->wake = true;
	pthread_cond_signal(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

/* Under e->mu. */
static void stop_job(struct job *j)
{
	uint64_t one = 1;

	pthread_mutex_lock(&j->mu);
	j->canceled = true;
	j->cancel_at = srv_mono();
	j->stop = 1;
	if (j->stop_fd >= 0 && write(j->stop_fd, &one, sizeof(one)) < 0)
		j->stop = 1; /* the flag alone; the target's poll wakes within its cap */
	if (j->target && j->target->ch.pid && !j->target->reaped)
		perf_child_kill(&j->target->ch, SIGTERM);
	pthread_mutex_unlock(&j->mu);
}

bool exec_cancel(struct serve *s, const char *id)
{
	struct exec *e = s->exec;
	bool hit = false;

	pthread_mutex_lock(&e->mu);
	if (e->job && strcmp(e->job->run->id, id) == 0) {
		stop_job(e->job);
		hit = true;
	}
	pthread_mutex_unlock(&e->mu);
	return hit;
}

bool exec_current(struct serve *s, char id[37])
{
	struct exec *e = s->exec;
	bool any;

	pthread_mutex_lock(&e->mu);
	any = e->job != NULL;
	if (any)
		snprintf(id, 37, "%s", e->job->run->id);
	pthread_mutex_unlock(&e->mu);
	return any;
}

void exec_stop(struct serve *s)
{
	struct exec *e = s->exec;

	if (!e)
		return;
	pthread_mutex_lock(&e->mu);
	e->quit = true;
	if (e->job)
		stop_job(e->job);
	pthread_cond_signal(&e->cv);
	pthread_cond_signal(&e->renew_cv);
	pthread_mutex_unlock(&e->mu);
	pthread_join(e->th, NULL);
	if (e->renewing)
		pthread_join(e->renew_th, NULL);
	if (e->lock_fd >= 0)
		close(e->lock_fd);
	pthread_mutex_destroy(&e->mu);
	pthread_cond_destroy(&e->cv);
	pthread_cond_destroy(&e->renew_cv);
	free(e);
	s->exec = NULL;
}
