/* A missing profile measured on a parent version (recollect.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "run/recollect.h"
#include "run/run.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/tmpdir.h"

/* How the collections' commands write: nowhere, or (degradation.log_collect)
 * to the logs, echoed as capture does. */
static const char *handling(const struct recollect *rc)
{
	return rc->capture ? "--output-handling=capture" : "--output-handling=suppress";
}

/* A JSON scalar as an option value; false when it gives no option. */
static bool option_value(yajl_val v, struct buf *out)
{
	if (YAJL_IS_STRING(v))
		buf_adds(out, YAJL_GET_STRING(v));
	else if (YAJL_IS_NUMBER(v))
		buf_adds(out, v->u.number.r);
	else
		return YAJL_IS_TRUE(v);
	return true;
}

/* {"repeat": 20, "list": [1, 2], "flag": true} -> --repeat=20 --list=1
 * --list=2 --flag, the matrix's convention (docs/config.md). A false value
 * is left out, or with @negate given as --no-KEY: a postprocessor's record
 * holds its flags whatever their default (moving-average's center is on
 * unless --no-center), and each has that form. */
static void params_argv(yajl_val params, bool negate, char ***argv, size_t *n)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; YAJL_IS_OBJECT(params) && i < params->u.object.len; i++) {
		const char *key = params->u.object.keys[i];
		yajl_val v = params->u.object.values[i];
		size_t count = YAJL_IS_ARRAY(v) ? v->u.array.len : 1;

		for (size_t k = 0; k < count; k++) {
			yajl_val item = YAJL_IS_ARRAY(v) ? v->u.array.values[k] : v;
			bool off = YAJL_IS_FALSE(item);

			if (off && !negate)
				continue;
			buf_reset(&b);
			buf_addf(&b, "--%s%s", off ? "no-" : "", key);
			for (char *c = b.data; *c; c++)
				*c = *c == '_' ? '-' : *c;
			if (YAJL_IS_TRUE(item) || off) {
				run_strv_add(argv, n, buf_str(&b));
				continue;
			}
			buf_addc(&b, '=');
			if (option_value(item, &b))
				run_strv_add(argv, n, buf_str(&b));
		}
	}
	buf_release(&b);
}

static yajl_val parse_json(const char *text)
{
	char err[128];

	return text ? yajl_tree_parse(text, err, sizeof(err)) : NULL;
}

/* Applies the target's postprocessors, in order, to the new profile. */
static int replay_postprocessors(struct collect_ctx *c, void *arg)
{
	yajl_val list = parse_json(arg);
	const struct run_notes notes = {c->env->message, c->env->message_arg};
	const struct postproc_env env = {notes.message ? run_note : NULL, (void *)&notes};
	int ret = 0;

	for (size_t i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len && ret == 0; i++) {
		yajl_val rec = list->u.array.values[i];
		const char *name_path[] = {"name", NULL}, *params_path[] = {"params", NULL};
		const char *name = YAJL_GET_STRING(yajl_tree_get(rec, name_path, yajl_t_string));
		char **argv = NULL;
		size_t argc = 0;

		if (!name)
			continue;
		run_strv_add(&argv, &argc, name);
		params_argv(yajl_tree_get(rec, params_path, yajl_t_object), true, &argv, &argc);
		ret = postproc_run_argv_env(c->profile, (int)argc, argv, &env, NULL);
		run_strv_free(argv);
	}
	yajl_tree_free(list);
	return ret;
}

/* The collector's argv that makes a profile like @p. */
int recollect_recipe_argv(const struct profile *p, const char *output_handling, char ***argv,
			  size_t *n)
{
	yajl_val params = parse_json(p->collector_params);
	char **words = NULL;
	int nwords = 0, ret;

	if (!p->collector || !p->cmd)
		return err_set(ERR_INVALID, "the profile does not say how it was collected");
	run_strv_add(argv, n, p->collector);
	/* The command's output would mix with the report. */
	run_strv_add(argv, n, output_handling);
	params_argv(params, false, argv, n);
	yajl_tree_free(params);
	if (p->workload && *p->workload && (!p->args || strcmp(p->workload, p->args) != 0)) {
		char *opt = xasprintf("--workload=%s", p->workload);

		run_strv_add(argv, n, opt);
		free(opt);
	}
	run_strv_add(argv, n, "--");
	run_strv_add(argv, n, p->cmd);
	ret = run_split_words(p->args ? p->args : "", &words, &nwords);
	for (int i = 0; ret == 0 && i < nwords; i++)
		run_strv_add(argv, n, words[i]);
	run_strv_free(words);
	return ret;
}

/* Collects with the profile's own recipe, in the current directory, into
 * @jobs, and registers the result. */
static int collect_recipe(const struct recollect *rc, const char *parent, const char *jobs)
{
	char *written = NULL;
	struct collect_env ce = {
		.jobs_dir = jobs,
		.logs_dir = rc->logs_dir,
		.origin = parent,
		.quiet = true,
		.transform = replay_postprocessors,
		.transform_arg = rc->target->postprocessors,
		.out_path = &written,
		.message = rc->message,
		.message_arg = rc->message_arg,
	};
	char **argv = NULL;
	size_t argc = 0;
	struct buf raw = BUF_INIT;
	int ret = recollect_recipe_argv(rc->target, handling(rc), &argv, &argc);

	if (ret == 0)
		ret = collect_main(&ce, (int)argc, argv);
	if (ret == 0 && written)
		ret = file_read_all(written, &raw);
	if (ret == 0 && written) {
		struct store_item item = {rc->target->type, strrchr(written, '/') + 1, raw.data,
					  raw.len, profile_is_compact(raw.data, raw.len)};

		ret = store_add(rc->store, parent, &item, 1, NULL, NULL);
	}
	if (written)
		unlink(written);
	free(written);
	buf_release(&raw);
	run_strv_free(argv);
	return ret;
}

/* Runs matrix job @job in the current directory and registers its profile
 * with @parent, as `veles run matrix` would there. */
static int collect_job(const struct recollect *rc, const char *parent, const char *jobs)
{
	struct run_env env = {
		.jobs_dir = jobs,
		.logs_dir = rc->logs_dir,
		.origin = parent,
		.store = rc->store,
		.quiet_collectors = true,
		.message = rc->message,
		.message_arg = rc->message_arg,
	};
	const struct run_job *job = rc->job;
	struct run_step col = *job->collector;
	struct run_job j = *job;
	struct run_result r;
	char **argv = NULL;
	size_t argc = 0;
	int ret;

	/* The command's output would mix with the report. */
	for (int i = 0; i < job->collector->argc; i++)
		run_strv_add(&argv, &argc, job->collector->argv[i]);
	run_strv_add(&argv, &argc, handling(rc));
	col.argv = argv;
	col.argc = (int)argc;
	j.collector = &col;
	ret = run_job_run(&env, rc->m, &j, &r);
	if (ret == 0 && !r.ok)
		ret = err_set(ERR_CHILD, "%s", r.error ? r.error : "the job failed");
	run_result_release(&r);
	run_strv_free(argv);
	return ret;
}

/* The names in a profile's "postprocessors" records, in order. */
static size_t postproc_names(const struct profile *p, const char ***names)
{
	yajl_val list = parse_json(p->postprocessors);
	const char *name_path[] = {"name", NULL};
	size_t n = 0;

	*names = NULL;
	for (size_t i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len; i++) {
		yajl_val v = yajl_tree_get(list->u.array.values[i], name_path, yajl_t_string);

		*names = xrealloc(*names, (n + 1) * sizeof(**names));
		(*names)[n++] = YAJL_IS_STRING(v) ? xstrdup(YAJL_GET_STRING(v)) : xstrdup("");
	}
	yajl_tree_free(list);
	return n;
}

/* Would matrix job @j make a profile of @p's configuration? Its command,
 * arguments, workload, collector and the matrix's postprocessors (by
 * name, in order) must be the profile's. */
static bool job_makes(const struct run_matrix *m, const struct run_job *j, const struct profile *p)
{
	const char *label = j->gen ? j->gen->id : j->workload;
	const char *args = p->args ? p->args : "", *workload = p->workload ? p->workload : "";
	const char **names;
	size_t n = postproc_names(p, &names);
	bool same = p->cmd && p->collector && strcmp(j->cmd, p->cmd) == 0 &&
		    strcmp(j->args, args) == 0 && strcmp(j->collector->name, p->collector) == 0 &&
		    n == m->npostprocs;

	/* Without a workload of its own, a job's workload is its arguments. */
	if (same && *label)
		same = strcmp(label, workload) == 0;
	else if (same)
		same = !*workload || strcmp(workload, args) == 0;
	for (size_t i = 0; i < n; i++) {
		same = same && m->postprocs[i].pp &&
		       strcmp(names[i], m->postprocs[i].pp->name) == 0;
		free((char *)names[i]);
	}
	free(names);
	return same;
}

const struct run_job *recollect_find_job(const struct run_matrix *m, const struct run_job *jobs,
					 size_t n, const struct profile *p)
{
	for (size_t i = 0; i < n; i++)
		if (job_makes(m, &jobs[i], p))
			return &jobs[i];
	return NULL;
}

/* What to collect in the parent's checkout. */
struct collect_args {
	const struct recollect *rc;
	const char *jobs;
};

static int collect_in(const struct run_checkout *co, void *arg)
{
	const struct collect_args *a = arg;

	return a->rc->job ? collect_job(a->rc, co->id, a->jobs)
			  : collect_recipe(a->rc, co->id, a->jobs);
}

int recollect_run(const struct recollect *rc, const char *parent)
{
	struct tmpdir jobs;
	struct run_build build = {rc->m->pre_run, rc->m->npre_run, "pre_run", true};
	struct collect_args a = {rc, NULL};
	int ret;

	if ((ret = tmpdir_make("collect", &jobs)) < 0)
		return ret;
	a.jobs = jobs.path;
	ret = run_in_checkout(rc->repo, rc->project_root, parent, &build, collect_in, &a);
	tmpdir_remove(&jobs);
	return ret;
}
