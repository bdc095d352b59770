/*
 * A project job (jobspec.h) as the run queue's worker executes it: the
 * veles binary itself, run in the project as a user would run it (`veles
 * -C ROOT run matrix -m V`, `check head V --remeasure`, `bisect`), so the
 * CLI's guarantees hold (temporary worktrees removed, the store written
 * atomically, a Ctrl-C -- here a cancel's SIGTERM -- handled). Its output
 * goes to the run's logs and to live readers; its progress ("ok 3/8",
 * a remeasured job's "12 rounds, both versions...") is read from that
 * output. A matrix job then registers the profiles it made with the
 * version (`veles add -m V`), so the store and the history pages have
 * them when the job is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "project/project.h"
#include "serve/job.h"
#include "serve/jobspec.h"
#include "serve/util.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "vcs/vcs.h"

enum { MAX_LINE = 4096 };

struct jobrun {
	struct jobspec js;
	struct buf part[2]; /* each stream's line so far */
	char *last[2];	    /* each stream's last whole line */
	uint64_t done, total;
	size_t ok, failed, registered;
	char **profiles; /* matrix: the pending profiles it made */
	size_t nprofiles;
	char first_slow[41]; /* bisect: what it found */
};

static void matrix_line(struct jobrun *jr, bool err, const char *line)
{
	size_t i, n;
	const char *p;

	if (!err && sscanf(line, "ok %zu/%zu", &i, &n) == 2) {
		jr->done = i;
		jr->total = n;
		jr->ok++;
		if ((p = strstr(line, "  .veles/jobs/"))) {
			jr->profiles =
				xreallocarray(jr->profiles, jr->nprofiles + 1, sizeof(char *));
			jr->profiles[jr->nprofiles++] = xstrdup(p + 2);
		} else if (strstr(line, "  registered")) {
			jr->registered++;
		}
	} else if (err && (p = strstr(line, "job ")) && sscanf(p, "job %zu/%zu", &i, &n) == 2 &&
		   strstr(p, " failed: ")) {
		jr->done = i;
		jr->total = n;
		jr->failed++;
	}
}

static void whole_line(struct job *j, struct jobrun *jr, bool err, const char *line)
{
	const char *at;

	while (*line == ' ')
		line++;
	if (!*line)
		return;
	free(jr->last[err]);
	jr->last[err] = xstrdup(line);
	switch (jr->js.kind) {
	case JOB_MATRIX:
		matrix_line(jr, err, line);
		break;
	case JOB_REMEASURE: /* "check: ./prog a · time on cpu: 5 rounds, both versions..." */
		if (err && strstr(line, " rounds, both versions once a round"))
			jr->done++;
		break;
	case JOB_BISECT:
		if (!err && (at = strstr(line, " is the first slow commit")) && at - line < 41)
			snprintf(jr->first_slow, sizeof(jr->first_slow), "%.*s", (int)(at - line),
				 line);
		else if (err)
			jr->done++;
		break;
	}
	if (jr->done >= j->rows)
		job_progress(j, jr->done - j->rows, jr->total);
}

/* On the capture's thread: output cut into lines (a progress line redrawn
 * with \r counts as one each time). */
static void on_output(struct job *j, bool err, const char *text, size_t n)
{
	struct jobrun *jr = j->on_output_arg;
	struct buf *b = &jr->part[err];

	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\n' || text[i] == '\r') {
			whole_line(j, jr, err, buf_str(b));
			buf_reset(b);
		} else if (b->len < MAX_LINE) {
			buf_addc(b, text[i]);
		}
	}
}

/* One veles command, to its end; its exit status in *@status. */
static int spawn(struct job *j, char **argv, int *status)
{
	struct ptarget t;
	struct ptarget_spec spec = {.argv = argv, .stop = &j->stop, .stop_fd = j->stop_fd};
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC), ret = 0;

	while (argv[spec.argc])
		spec.argc++;
	if (j->out_pipe[0] < 0 &&
	    (pipe2(j->out_pipe, O_CLOEXEC) < 0 || pipe2(j->err_pipe, O_CLOEXEC) < 0))
		ret = err_set(ERR_IO, "cannot make a pipe: %s", strerror(errno));
	spec.use_io = true;
	/* No terminal to ask on: a prompt of the CLI reads end of file. */
	spec.io = (struct perf_child_io){.envp = j->envp,
					 .out_fd = j->out_pipe[1],
					 .err_fd = j->err_pipe[1],
					 .in_fd = in,
					 .new_group = true};
	if (ret == 0)
		ret = ptarget_open(&t, &spec);
	job_forked(j);
	if (in >= 0)
		close(in);
	if (ret < 0)
		return err_prefix(ret, "cannot start %s", argv[0]);
	pthread_mutex_lock(&j->mu);
	j->target = &t;
	if (j->canceled) /* before the target existed */
		perf_child_kill(&t.ch, SIGTERM);
	pthread_mutex_unlock(&j->mu);
	ret = ptarget_start(&t);
	while (ret == 0 && !ptarget_wait(&t, NULL, NULL, 0))
		;
	ptarget_reap(&t);
	*status = ptarget_exit_status(&t);
	job_reap_group(&t);
	pthread_mutex_lock(&j->mu);
	j->target = NULL;
	pthread_mutex_unlock(&j->mu);
	outcap_finish(j->cap); /* every line read before the status is judged */
	j->cap = NULL;
	ptarget_release(&t);
	return ret;
}

/* This runner's project has the job's version (a runner elsewhere may be
 * in another project, or behind); its root into @root. */
static int project_ready(struct serve *s, const struct jobspec *js, char **root)
{
	char id[41];
	int ret;

	if (!s->proj)
		return err_set(ERR_INVALID,
			       "runner %s serves no project: a project job runs on a runner "
			       "started in a clone of the project (veles serve --runner there)",
			       s->runner);
	pthread_mutex_lock(&s->proj_mu);
	ret = vcs_resolve(s->proj->vcs, js->version, id);
	if (ret == 0 && js->good)
		ret = vcs_resolve(s->proj->vcs, js->good, id);
	*root = xstrdup(s->proj->root);
	pthread_mutex_unlock(&s->proj_mu);
	if (ret < 0)
		return err_set(ERR_INVALID,
			       "runner %s: the project at %s has no version %.12s (pull it there "
			       "first)",
			       s->runner, *root, js->good && ret == 0 ? js->good : js->version);
	return 0;
}

static int self_exe(char out[PATH_MAX])
{
	ssize_t n = readlink("/proc/self/exe", out, PATH_MAX - 1);

	if (n <= 0)
		return err_set(ERR_IO, "cannot find the veles binary: %s", strerror(errno));
	out[n] = '\0';
	return 0;
}

/* Matrix: the profiles it left pending, registered with the version. */
static int register_profiles(struct job *j, struct jobrun *jr, const char *veles, const char *root)
{
	char **argv = xcalloc(jr->nprofiles + 8, sizeof(char *));
	size_t n = 0;
	int status = 0, ret;

	argv[n++] = (char *)veles;
	argv[n++] = "-C";
	argv[n++] = (char *)root;
	argv[n++] = "add";
	argv[n++] = "-m";
	argv[n++] = jr->js.version;
	for (size_t i = 0; i < jr->nprofiles; i++)
		argv[n++] = jr->profiles[i];
	ret = spawn(j, argv, &status);
	free(argv);
	if (ret == 0 && status != 0 && !j->canceled)
		ret = err_set(ERR_GENERIC, "veles add: %s",
			      jr->last[1] ? jr->last[1] : "it failed");
	if (ret == 0 && status == 0)
		jr->registered += jr->nprofiles;
	return ret;
}

/* What the job found, kept with its description (the screen column). */
static void file_result(struct job *j, struct jobrun *jr, int status)
{
	struct buf b = BUF_INIT;

	jobspec_json(&jr->js, &b);
	b.len--; /* its closing brace */
	buf_addf(&b, ",\"result\":{\"exit_status\":%d", status);
	switch (jr->js.kind) {
	case JOB_MATRIX:
		buf_addf(&b, ",\"jobs\":%zu,\"ok\":%zu,\"failed\":%zu,\"registered\":%zu",
			 jr->ok + jr->failed, jr->ok, jr->failed, jr->registered);
		buf_adds(&b, ",\"profiles\":[");
		for (size_t i = 0; i < jr->nprofiles; i++) {
			const char *base = strrchr(jr->profiles[i], '/');

			base = base ? base + 1 : jr->profiles[i];
			buf_adds(&b, i ? "," : "");
			buf_add_json_str(&b, base, strlen(base));
		}
		buf_addc(&b, ']');
		break;
	case JOB_REMEASURE:
		buf_addf(&b, ",\"verdict\":\"%s\"",
			 status == 0   ? "no degradation"
			 : status == 1 ? "degradation"
				       : "error");
		break;
	case JOB_BISECT:
		buf_addf(&b, ",\"verdict\":\"%s\"",
			 status == 0   ? "found"
			 : status == 1 ? "cannot tell"
				       : "error");
		if (jr->first_slow[0])
			buf_addf(&b, ",\"first_slow\":\"%s\"", jr->first_slow);
		break;
	}
	buf_adds(&b, ",\"summary\":");
	if (jr->last[0])
		buf_add_json_str(&b, jr->last[0], strlen(jr->last[0]));
	else
		buf_adds(&b, "null");
	buf_adds(&b, "}}");
	if (db_exec(j->srv->db, "UPDATE runs SET screen = ? WHERE id = ?",
		    (struct db_val[]){DB_TEXT(buf_str(&b)), DB_TEXT(j->run->id)}, 2, NULL) < 0)
		srv_log(j->srv, "run %s: cannot keep its result: %s", j->run->id, err_msg());
	buf_release(&b);
}

/* The run's end from the command's status: 0 and 1 are verdicts (a job
 * of the matrix failed; a slowdown found, or none), more is an error. */
static int judge(struct job *j, struct jobrun *jr, int status)
{
	j->run->has_exit = true;
	j->run->exit_status = status;
	if (j->canceled || status <= 1)
		return 0;
	return err_set(ERR_GENERIC, "%s", jr->last[1] ? jr->last[1] : "veles exited with an error");
}

static void jobrun_free(struct jobrun *jr)
{
	for (int k = 0; k < 2; k++) {
		buf_release(&jr->part[k]);
		free(jr->last[k]);
	}
	for (size_t i = 0; i < jr->nprofiles; i++)
		free(jr->profiles[i]);
	free(jr->profiles);
	jobspec_free(&jr->js);
}

int job_veles(struct job *j)
{
	/* On the heap: the capture's thread reads it through the job. */
	struct jobrun *jr = xcalloc(1, sizeof(*jr));
	char veles[PATH_MAX], *root = NULL, **argv = NULL;
	int status = 0, ret = jobspec_from_json(j->run->screen, &jr->js);

	if (ret == 0)
		ret = project_ready(j->srv, &jr->js, &root);
	if (ret == 0)
		ret = self_exe(veles);
	if (ret == 0) {
		argv = jobspec_argv(&jr->js, veles, root);
		j->on_output = on_output;
		j->on_output_arg = jr;
		ret = spawn(j, argv, &status);
	}
	if (ret == 0 && jr->js.kind == JOB_MATRIX && jr->nprofiles && !j->canceled)
		ret = register_profiles(j, jr, veles, root);
	if (ret == 0)
		ret = judge(j, jr, status);
	j->on_output = NULL;
	j->on_output_arg = NULL;
	if (ret == 0)
		file_result(j, jr, status);
	jobspec_argv_free(argv);
	free(root);
	jobrun_free(jr);
	free(jr);
	return ret;
}
