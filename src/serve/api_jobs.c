/*
 * /api/project/jobs: the project's jobs (jobspec.h) -- queueing one on a
 * version, listing them (of one version), reading one. A job is a run of
 * the server's queue (tool "job") in the project's jobs session, so it is
 * claimed, leased, streamed (/api/runs/ID/live), cancelled
 * (/api/runs/ID/cancel) and deleted as every run is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "project/project.h"
#include "serve/api.h"
#include "serve/api_jobs.h"
#include "serve/exec.h"
#include "serve/jobspec.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "vcs/vcs.h"

/* The session the project's jobs are filed in, made on first use. Its
 * title names the project, so servers of a team that share a database
 * (each in its own clone) find the same one. */
static int jobs_session(struct serve *s, bool create, char id[SRV_ID_LEN + 1])
{
	const char *base = strrchr(s->proj->root, '/');
	char *title = xasprintf("Project jobs: %s", base && base[1] ? base + 1 : s->proj->root);
	struct srv_session *v = NULL, made;
	size_t n = 0;
	int ret = model_sessions_list(s->db, title, &v, &n);

	id[0] = '\0';
	for (size_t i = 0; ret == 0 && i < n && !id[0]; i++)
		if (strcmp(v[i].title, title) == 0)
			snprintf(id, SRV_ID_LEN + 1, "%s", v[i].id);
	srv_sessions_free(v, n);
	if (ret == 0 && !id[0] && create &&
	    (ret = model_session_create(s->db, title, &made)) == 0) {
		snprintf(id, SRV_ID_LEN + 1, "%s", made.id);
		srv_session_clear(&made);
	}
	free(title);
	return ret;
}

/* The last line of the run's log @name (a job's progress says where it
 * is), or NULL. */
static char *last_line(struct serve *s, const char *id, const char *name)
{
	char *dir = srv_run_dir(s, id), *path = xasprintf("%s/%s", dir, name), *line = NULL;
	struct buf b = BUF_INIT;

	if (file_read_all(path, &b) == 0 && b.len) {
		size_t end = b.len, start;

		while (end && (b.data[end - 1] == '\n' || b.data[end - 1] == '\r'))
			end--;
		start = end;
		while (start && b.data[start - 1] != '\n' && b.data[start - 1] != '\r')
			start--;
		if (end > start)
			line = xstrndup(b.data + start, end - start);
	}
	buf_release(&b);
	free(path);
	free(dir);
	return line;
}

/* A job as the API gives it: its run's state, its description (and
 * result) as "spec", and its progress. */
static void job_json(struct serve *s, const struct srv_run *run, struct buf *b)
{
	struct jobspec js;
	int64_t done, total, pos;
	bool parsed = jobspec_from_json(run->screen, &js) == 0;
	char *line;

	err_clear();
	api_run_progress(s, run, &done, &total, &pos);
	buf_addf(b, "{\"id\":\"%s\"", run->id);
	api_json_str(b, "kind", parsed ? jobspec_kind_name(js.kind) : NULL);
	api_json_str(b, "version", parsed ? js.version : NULL);
	api_json_str(b, "short", parsed ? js.short_id : NULL);
	api_json_str(b, "summary", parsed ? js.summary : NULL);
	api_json_str(b, "state", run->state);
	api_json_str(b, "command", run->command);
	buf_addf(b, ",\"created\":%lld,\"started\":%lld,\"ended\":%lld,\"position\":%lld",
		 (long long)run->created, (long long)run->started, (long long)run->ended,
		 (long long)pos);
	api_run_outcome_json(run, b);
	line = last_line(s, run->id, parsed && js.kind == JOB_MATRIX ? "stdout.log" : "stderr.log");
	buf_addf(b, ",\"progress\":{\"done\":%lld,\"total\":%lld", (long long)done,
		 (long long)total);
	api_json_str(b, "line", line);
	buf_addf(b, "},\"spec\":%s", run->screen && *run->screen ? run->screen : "{}");
	buf_addf(b,
		 ",\"links\":{\"live\":\"/api/runs/%s/live\",\"cancel\":\"/api/runs/%s/cancel\","
		 "\"stdout\":\"/api/runs/%s/output?stream=stdout\",\"stderr\":\"/api/runs/%s/"
		 "output?stream=stderr\","
		 "\"page\":\"/p/jobs/%s\"}}",
		 run->id, run->id, run->id, run->id, run->id);
	free(line);
	if (parsed)
		jobspec_free(&js);
}

/* A revision of the request as a full id, into *@rev; 400 when the
 * project has none such. */
static int resolve(struct serve *s, const char *what, char **rev)
{
	char id[41];

	if (!*rev)
		return 0;
	if (vcs_resolve(s->proj->vcs, *rev, id) < 0)
		return err_set(ERR_INVALID, "%s: no version '%.60s' in this project", what, *rev);
	free(*rev);
	*rev = xstrdup(id);
	return 0;
}

/* The request's revisions resolved, and what each kind needs of them. */
static int check_versions(struct serve *s, struct jobspec *js)
{
	struct vcs_version v;
	int ret;

	if (vcs_kind(s->proj->vcs) != VCS_GIT)
		return err_set(ERR_INVALID, "jobs need a git project: they run on a version "
					    "checked out in a temporary worktree");
	ret = resolve(s, "version", &js->version);
	if (ret == 0)
		ret = resolve(s, "base", &js->base);
	if (ret == 0)
		ret = resolve(s, "good", &js->good);
	if (ret == 0)
		ret = vcs_version_info(s->proj->vcs, js->version, &v);
	if (ret < 0)
		return ERR_INVALID;
	js->short_id = xstrndup(v.id, 7);
	js->summary = xstrdup(v.summary ? v.summary : "");
	if (js->kind == JOB_REMEASURE && !v.nparents)
		return err_set(ERR_INVALID, "%.7s has no parent to remeasure against", v.id);
	if (js->kind == JOB_REMEASURE && js->base && strcmp(js->base, v.parents[0]) != 0)
		return err_set(ERR_INVALID,
			       "a remeasure compares a version with its parent (%.7s), not "
			       "with %.7s: compare others with a diff",
			       v.parents[0], js->base);
	if (js->kind == JOB_REMEASURE && !js->base)
		js->base = xstrdup(v.parents[0]);
	if (js->kind == JOB_BISECT && strcmp(js->good, js->version) == 0)
		return err_set(ERR_INVALID, "good and the version (bad) are the same");
	return 0;
}

static int queue_job(struct serve *s, struct jobspec *js, struct srv_run *run)
{
	struct buf screen = BUF_INIT;
	int ret = jobs_session(s, true, run->session);

	if (ret < 0)
		return ret;
	jobspec_json(js, &screen);
	snprintf(run->tool, sizeof(run->tool), "job");
	run->events = xstrdup(jobspec_kind_name(js->kind));
	run->command = jobspec_command(js);
	run->env = xstrdup("");
	run->screen = buf_detach(&screen, NULL);
	/* Registered before the worker can see it queued. */
	srv_uuid(run->id);
	live_add(&s->live, run->id);
	if ((ret = model_run_insert(s->db, run)) < 0) {
		live_finish(&s->live, run->id, "failed");
		return ret;
	}
	srv_log(s, "run %s queued: %s", run->id, run->command);
	exec_wake(s);
	return 0;
}

/* POST /api/project/jobs */
void api_jobs_post(struct serve *s, const struct req *r, struct resp *out)
{
	struct jobspec js;
	struct srv_run run = {0};
	struct buf b = BUF_INIT;
	int ret;

	if (r->nsegs > 3) {
		resp_error(out, 405, "cancel a job as any run: POST /api/runs/ID/cancel");
		return;
	}
	ret = jobspec_parse_request(r->body, r->body_len, &js);
	if (ret == 0 && (ret = check_versions(s, &js)) == 0)
		ret = queue_job(s, &js, &run);
	if (ret < 0) {
		api_fail(out, ret);
	} else {
		job_json(s, &run, &b);
		buf_addc(&b, '\n');
		resp_json(out, 201, &b);
	}
	jobspec_free(&js);
	srv_run_clear(&run);
}

static void one(struct serve *s, const char *id, struct resp *out)
{
	struct srv_run run;
	struct buf b = BUF_INIT;
	int ret;

	if (!srv_is_uuid(id)) {
		resp_error(out, 404, "no such job");
		return;
	}
	if ((ret = model_run_get(s->db, id, &run)) < 0) {
		api_fail(out, ret);
		return;
	}
	if (strcmp(run.tool, "job") != 0) {
		resp_error(out, 404, "that run is not a project job");
	} else {
		job_json(s, &run, &b);
		buf_addc(&b, '\n');
		resp_json(out, 200, &b);
	}
	srv_run_clear(&run);
}

/* Whether @run is a job on version @arg (NULL: any). */
static bool is_job_of(const struct srv_run *run, const void *arg)
{
	const char *id = arg;
	struct jobspec js;
	bool hit;

	if (strcmp(run->tool, "job") != 0)
		return false;
	if (!id)
		return true;
	if (jobspec_from_json(run->screen, &js) < 0) {
		err_clear();
		return false;
	}
	hit = strcmp(js.version, id) == 0;
	jobspec_free(&js);
	return hit;
}

/* GET /api/project/jobs[?version=REV] (newest first), /jobs/ID */
void api_jobs_get(struct serve *s, const struct req *r, struct resp *out)
{
	char ses[SRV_ID_LEN + 1], id[41];
	const char *rev = req_param(r, "version");
	struct srv_run *v = NULL;
	struct buf b = BUF_INIT;
	size_t n = 0;

	if (r->nsegs > 4) {
		resp_error(out, 404, "no such API address");
		return;
	}
	if (r->nsegs == 4) {
		one(s, r->segs[3], out);
		return;
	}
	if (rev && *rev && vcs_resolve(s->proj->vcs, rev, id) < 0) {
		resp_error(out, 400, "version: no such version in this project");
		return;
	}
	if (jobs_session(s, false, ses) < 0 ||
	    (ses[0] && model_runs_list(s->db, ses, req_param(r, "state"), &v, &n) < 0)) {
		api_fail(out, ERR_IO);
		return;
	}
	buf_addc(&b, '{');
	api_run_list_json(s, v, n,
			  &(struct api_run_list){.key = "jobs",
						 .newest_first = true,
						 .keep = is_job_of,
						 .arg = rev && *rev ? id : NULL,
						 .json = job_json},
			  &b);
	buf_adds(&b, "}\n");
	srv_runs_free(v, n);
	resp_json(out, 200, &b);
}
