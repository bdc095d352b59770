/* One run being executed, shared by the worker (exec.c), the two tools
 * (exec_stat.c, exec_record.c) and the output capture (outcap.c). */
#ifndef SERVE_JOB_H
#define SERVE_JOB_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/perf/ptarget.h"
#include "serve/live.h"
#include "serve/model.h"
#include "serve/srv.h"

struct outcap;

struct job {
	struct serve *srv;
	struct srv_run *run;
	struct live *live; /* may be NULL */
	char *dir;	   /* DATA/runs/ID */
	/* stopping: the flag and the descriptor ptarget watches */
	volatile sig_atomic_t stop;
	int stop_fd;
	bool canceled;
	double cancel_at; /* srv_mono() of the cancel, to escalate to SIGKILL */
	/* the command: sh -c COMMAND in the workload's environment */
	char *argv[4];
	char **envp;
	int out_pipe[2], err_pipe[2];
	struct outcap *cap;
	struct ptarget *target; /* set while it runs, for a cancel's kill */
	pthread_mutex_t mu;	/* guards target and canceled */
	uint64_t rows, samples;
	double last_progress;
	/* Each piece of output as it comes, on the capture's thread (a
	 * project job reads its progress there); NULL: none. */
	void (*on_output)(struct job *j, bool err, const char *text, size_t n);
	void *on_output_arg;
};

/* The target of the run: its command (output to the pipes) or PID/TID. */
void job_spec(struct job *j, struct ptarget_spec *spec);
/* After the fork: the parent's ends of the pipes, the capture started. */
void job_forked(struct job *j);
/* Kills what the command left running in its process group: a run's
 * background processes must not run into the next run. */
void job_reap_group(const struct ptarget *t);
/* Publishes @rows more rows (and the samples so far), to readers and, now
 * and then, to the database. */
void job_progress(struct job *j, uint64_t rows, uint64_t samples);

int job_stat(struct job *j);
int job_record(struct job *j);
/* exec_job.c: a project job (tool "job", jobspec.h) */
int job_veles(struct job *j);

/* outcap.c: copies the command's stdout and stderr to DIR/stdout.log and
 * DIR/stderr.log as they come, waking readers. A job of several commands
 * starts one capture for each: their output follows on in the files. */
struct outcap *outcap_start(struct job *j, int out_fd, int err_fd);
/* Waits for the pipes to close, at most a moment after the command ended
 * (what it left running in the background may hold them). */
void outcap_finish(struct outcap *c);

#endif
