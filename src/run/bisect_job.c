/* veles bisect --job: a version measured by a collector job. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/samples.h"
#include "profile/profile.h"
#include "run/bisect_job.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/tmpdir.h"

struct bisect_job {
	struct run_matrix *m;
	struct run_job job;
	char *cmd, *args;
	char *location, *fallback; /* asked for, or NULL */
	char *chosen;		   /* what the first measurement settled on */
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
};

void bisect_job_set_message(struct bisect_job *j,
			    void (*fn)(void *arg, enum collect_msg kind, const char *text),
			    void *arg)
{
	j->message = fn;
	j->message_arg = arg;
}

/* @w as one shell word: run_job_run splits the arguments again. */
static void add_quoted(struct buf *b, const char *w)
{
	buf_adds(b, b->len ? " '" : "'");
	for (; *w; w++) {
		if (*w == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *w);
	}
	buf_addc(b, '\'');
}

int bisect_job_parse(const char *spec, const char *location, const char *fallback,
		     struct bisect_job **out)
{
	struct bisect_job *j;
	struct buf args = BUF_INIT;
	char **w;
	int n, dashes = -1, ret = run_split_words(spec, &w, &n);

	if (ret < 0)
		return err_prefix(ret, "--job");
	for (int i = 0; i < n && dashes < 0; i++)
		if (strcmp(w[i], "--") == 0)
			dashes = i;
	if (dashes < 1 || dashes + 1 >= n || w[0][0] == '-') {
		run_strv_free(w);
		return err_set(ERR_INVALID,
			       "--job wants 'COLLECTOR [OPTIONS] -- COMMAND [ARGS...]', not '%s'",
			       spec);
	}
	j = xcalloc(1, sizeof(*j));
	j->m = run_matrix_new();
	/* The collector's argv is its name and options, as run job builds it. */
	run_matrix_add_collector(j->m, dashes, w);
	j->cmd = xstrdup(w[dashes + 1]);
	for (int i = dashes + 2; i < n; i++)
		add_quoted(&args, w[i]);
	j->args = buf_detach(&args, NULL);
	j->job = (struct run_job){j->cmd, j->args, "", NULL, &j->m->collectors[0]};
	j->location = location ? xstrdup(location) : NULL;
	j->fallback = fallback ? xstrdup(fallback) : NULL;
	run_strv_free(w);
	*out = j;
	return 0;
}

void bisect_job_free(struct bisect_job *j)
{
	if (!j)
		return;
	run_matrix_free(j->m);
	free(j->cmd);
	free(j->args);
	free(j->location);
	free(j->fallback);
	free(j->chosen);
	free(j);
}

const char *bisect_job_cmd(const struct bisect_job *j)
{
	return j->cmd;
}

const char *bisect_job_location(const struct bisect_job *j)
{
	return j->chosen ? j->chosen : "";
}

/* The group equal to @key, or else the only one containing it; NULL and
 * *@many set when several contain it. */
static const struct sample_group *match(const struct sample_set *s, const char *key, size_t *many)
{
	const struct sample_group *g = samples_find(s, key), *found = NULL;

	*many = 0;
	if (g)
		return g;
	for (size_t i = 0; i < s->n; i++) {
		if (strstr(s->g[i].location, key)) {
			found = s->g + i;
			++*many;
		}
	}
	return *many == 1 ? found : NULL;
}

static int no_location(const struct sample_set *s, const char *key, size_t many)
{
	struct buf names = BUF_INIT;
	int ret;

	for (size_t i = 0; i < s->n && i < 4; i++)
		buf_addf(&names, "%s%s", i ? ", " : "", s->g[i].location);
	if (s->n > 4)
		buf_adds(&names, ", ...");
	if (many)
		ret = err_set(ERR_INVALID,
			      "%zu locations of the job's profile contain '%s' (%s): name one with "
			      "--location",
			      many, key, buf_str(&names));
	else if (key)
		ret = err_set(ERR_NOTFOUND, "no location of the job's profile matches '%s' (%s)",
			      key, s->n ? buf_str(&names) : "it has none");
	else
		ret = err_set(ERR_INVALID,
			      "the job's profile has %zu locations (%s): name one with --location",
			      s->n, buf_str(&names));
	buf_release(&names);
	return ret;
}

/* The location that counts, the first time by @j's rules, then the same. */
static int pick(struct bisect_job *j, const struct sample_set *s, const struct sample_group **out)
{
	const char *key = j->chosen ? j->chosen : j->location;
	size_t many = 0;

	*out = NULL;
	if (key) {
		*out = j->chosen ? samples_find(s, key) : match(s, key, &many);
	} else {
		if (j->fallback)
			*out = match(s, j->fallback, &many);
		if (!*out && s->n == 1)
			*out = s->g;
	}
	if (!*out)
		return no_location(s, key, many);
	if (!j->chosen)
		j->chosen = xstrdup((*out)->location);
	return 0;
}

/* One run of the job: its profile's values at the location, appended. */
static int run_once(struct bisect_job *j, const struct run_env *env, double **v, size_t *n,
		    size_t *added)
{
	struct run_result res;
	struct profile *p = NULL;
	struct sample_set s = {0};
	const struct sample_group *g;
	int ret = run_job_run(env, j->m, &j->job, &res);

	if (ret == 0 && !res.ok)
		ret = err_set(ERR_CHILD, "the job failed at %.7s: %s", env->origin,
			      res.error ? res.error : "no profile");
	if (ret == 0 && !res.profile)
		ret = err_set(ERR_CHILD, "the job at %.7s wrote no profile", env->origin);
	if (ret == 0)
		ret = profile_load(res.profile, &p);
	if (res.profile)
		unlink(res.profile);
	if (ret == 0) {
		samples_build(p, NULL, &s);
		ret = pick(j, &s, &g);
	}
	if (ret == 0 && g->n == 0)
		ret = err_set(ERR_NOTFOUND, "the job's profile at %.7s has no value at %s",
			      env->origin, g->location);
	if (ret == 0) {
		*v = xrealloc(*v, (*n + g->n) * sizeof(**v));
		memcpy(*v + *n, g->v, g->n * sizeof(**v));
		*n += g->n;
		*added += g->n;
	}
	samples_free(&s);
	profile_free(p);
	run_result_release(&res);
	return ret;
}

int bisect_job_measure(struct bisect_job *j, const char *logs_dir, const char *cwd,
		       const char *version, size_t want, double **v, size_t *n)
{
	struct tmpdir dir;
	struct run_env env = {
		.cwd = cwd,
		.logs_dir = logs_dir,
		.origin = version,
		.quiet_collectors = true,
		.message = j->message,
		.message_arg = j->message_arg,
	};
	size_t added = 0;
	int ret = 0;

	/* The profiles are read and dropped: none is left pending. */
	if ((ret = tmpdir_make("bisect", &dir)) < 0)
		return err_prefix(ret, "the job's profiles");
	env.jobs_dir = dir.path;
	while (ret == 0 && added < want)
		ret = run_once(j, &env, v, n, &added);
	tmpdir_remove(&dir);
	return ret;
}
