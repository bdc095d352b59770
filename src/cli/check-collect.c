/*
 * check --collect-missing: when a parent version has no profile of a
 * configuration, measure it there first. The parent is checked out in a
 * temporary worktree, built with execute.pre_run, and the target profile's
 * own recipe is replayed: its collector with the same parameters, command,
 * arguments and workload, then its postprocessors in order. The new
 * profile is registered with the parent, so the next check finds it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "vcs/git_lazy.h"

#include "analyze/postproc.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "collect/collector.h"
#include "profile/profile.h"
#include "run/run.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

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
 * --list=2 --flag, the matrix's convention (docs/config.md). */
static void params_argv(yajl_val params, char ***argv, size_t *n)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; YAJL_IS_OBJECT(params) && i < params->u.object.len; i++) {
		const char *key = params->u.object.keys[i];
		yajl_val v = params->u.object.values[i];
		size_t count = YAJL_IS_ARRAY(v) ? v->u.array.len : 1;

		for (size_t k = 0; k < count; k++) {
			yajl_val item = YAJL_IS_ARRAY(v) ? v->u.array.values[k] : v;

			buf_reset(&b);
			buf_addf(&b, "--%s", key);
			for (char *c = b.data; *c; c++)
				*c = *c == '_' ? '-' : *c;
			if (YAJL_IS_TRUE(item)) {
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
		params_argv(yajl_tree_get(rec, params_path, yajl_t_object), &argv, &argc);
		ret = postproc_run_argv(c->profile, (int)argc, argv);
		run_strv_free(argv);
	}
	yajl_tree_free(list);
	return ret;
}

/* The collector's argv that makes a profile like @p. */
static int recipe_argv(const struct profile *p, char ***argv, size_t *n)
{
	yajl_val params = parse_json(p->collector_params);
	char **words = NULL;
	int nwords = 0, ret;

	if (!p->collector || !p->cmd)
		return err_set(ERR_INVALID, "the profile does not say how it was collected");
	run_strv_add(argv, n, p->collector);
	/* The command's output would mix with the report. */
	run_strv_add(argv, n, "--output-handling=suppress");
	params_argv(params, argv, n);
	yajl_tree_free(params);
	if (p->workload && (!p->args || strcmp(p->workload, p->args) != 0)) {
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

/* Collects in the current directory into @jobs and registers the result. */
static int collect_here(struct cli_ctx *ctx, const struct profile *target, const char *parent,
			const char *jobs)
{
	char *written = NULL;
	struct collect_env ce = {
		.jobs_dir = jobs,
		.logs_dir = ctx->logs_dir,
		.origin = parent,
		.quiet = true,
		.transform = replay_postprocessors,
		.transform_arg = target->postprocessors,
		.out_path = &written,
	};
	char **argv = NULL;
	size_t argc = 0;
	struct buf raw = BUF_INIT;
	int ret = recipe_argv(target, &argv, &argc);

	if (ret == 0)
		ret = collect_main(&ce, (int)argc, argv);
	if (ret == 0 && written)
		ret = file_read_all(written, &raw);
	if (ret == 0 && written) {
		struct store_item item = {target->type, strrchr(written, '/') + 1, raw.data,
					  raw.len};

		ret = store_add(ctx->store, parent, &item, 1, NULL, NULL);
	}
	if (written)
		unlink(written);
	free(written);
	buf_release(&raw);
	run_strv_free(argv);
	return ret;
}

struct collect_args {
	struct cli_ctx *ctx;
	const struct profile *target;
	const char *jobs;
};

static int collect_in_checkout(const struct run_checkout *co, void *arg)
{
	struct collect_args *a = arg;

	return collect_here(a->ctx, a->target, co->id, a->jobs);
}

int check_collect_missing(struct cli_ctx *ctx, const struct profile *target, const char *parent)
{
	char jobs[] = "/tmp/veles-collect-XXXXXX";
	size_t n;
	char **cmds = cli_config_list(ctx, "execute.pre_run", &n);
	struct run_build build = {cmds, n, "pre_run", true};
	struct collect_args a = {ctx, target, jobs};
	bool made = false;
	int ret = 0;

	if (vcs_kind(ctx->vcs) != VCS_GIT)
		ret = err_set(ERR_INVALID, "--collect-missing needs a git project");
	else if (!(made = mkdtemp(jobs) != NULL))
		ret = err_set(ERR_IO, "cannot make a temporary directory: %s", strerror(errno));
	else
		ret = run_in_checkout(vcs_store_repo(ctx->vcs), ctx->root, parent, &build,
				      collect_in_checkout, &a);
	if (made)
		rm_rf(jobs);
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
	free(cmds);
	return ret;
}
