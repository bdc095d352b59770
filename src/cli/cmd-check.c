/*
 * veles check profiles BASE TARGET | head [REV] | all: was a version
 * slower than its parent? Pairs each profile with the parent's profile of
 * the same configuration and compares them location by location
 * (project/check_versions.h); the options are check-opts.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/cli.h"
#include "cli/envcheck.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "project/check_versions.h"
#include "project/settings.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

struct check_cmd {
	struct cli_ctx *ctx;
	const struct check_cli *o;
	struct check_run run;
};

static int env_check(void *arg, const struct profile *a, const char *an, const struct profile *b,
		     const char *bn)
{
	const struct check_cmd *c = arg;

	return cli_env_check(a, an, b, bn, c->o->strict_env);
}

static int collect(void *arg, const struct profile *target, const char *name, const char *base)
{
	const struct check_cmd *c = arg;

	return check_collect_missing(c->ctx, c->o->collect, target, name, base);
}

static void warn(void *arg, const char *msg)
{
	UNUSED(arg);
	cli_warn("%s", msg);
}

static void check_cmd_init(struct check_cmd *c, struct cli_ctx *ctx, const struct check_cli *o)
{
	c->ctx = ctx;
	c->o = o;
	c->run = (struct check_run){
		.co = {o->method, &o->strategies, o->on, o->cp},
		.env_check = env_check,
		.collect = o->collect_missing ? collect : NULL,
		.warn = warn,
		.arg = c,
	};
}

/* Prints the report; the exit status. */
static int finish(struct check_report *r, const struct check_cli *o, bool colour)
{
	size_t failing, unjudged;
	const char *note;
	struct buf why = BUF_INIT, out = BUF_INIT;

	/* Two sides without a location in common compared nothing: not a pass. */
	for (size_t i = 0; i < r->n; i++) {
		if (check_pair_disjoint(&r->pairs[i], &why)) {
			cli_error("%s", buf_str(&why));
			buf_release(&why);
			check_report_free(r);
			return 2;
		}
	}
	r->fail_from = o->fail_from;
	r->verbose = o->verbose;
	r->max_chars = o->max_chars;
	check_render(&out, r, o->fmt, colour);
	fwrite(buf_str(&out), 1, out.len, stdout);
	buf_release(&out);
	unjudged = check_report_unjudged(r, &note);
	/* On stderr too, where a CI log shows it even beside --format junit. */
	if (unjudged)
		cli_warn("%zu result%s could not be judged (%s)", unjudged,
			 unjudged == 1 ? "" : "s", note);
	failing = check_report_failing(r);
	check_report_free(r);
	return failing ? 1 : 0;
}

static int check_profiles(struct check_cmd *c, char **specs)
{
	struct cli_ctx *ctx = c->ctx;
	struct profile_ref refs[2];
	struct profile *p[2] = {NULL, NULL};
	struct check_report r = {0};
	int ret = 0;

	memset(refs, 0, sizeof(refs));
	for (int i = 0; i < 2 && ret == 0; i++) {
		if (ctx->store) {
			ret = ref_open(ctx, specs[i], NULL, REF_DEFAULT_INDEX, &refs[i], &p[i]);
			continue;
		}
		/* Outside a project: two files, as `veles show FILE` reads one. */
		refs[i].kind = REF_FILE;
		refs[i].path = xstrdup(specs[i]);
		ret = profile_load(specs[i], &p[i]);
	}
	if (ret == 0 && !c->o->force &&
	    profile_comparable(p[0], ref_name(&refs[0]), p[1], ref_name(&refs[1])) < 0) {
		cli_error("%s (--force compares them anyway)", err_msg());
		ret = 2;
	}
	if (ret == 0)
		ret = check_run_pair(&c->run, &r, p[0], ref_name(&refs[0]), p[1],
				     ref_name(&refs[1]));
	for (int i = 0; i < 2 && ret == 0; i++) {
		if (refs[i].kind != REF_STORED)
			continue;
		memcpy(i ? r.pairs[0].target_version : r.pairs[0].baseline_version, refs[i].version,
		       41);
		memcpy(i ? r.pairs[0].target_id : r.pairs[0].baseline_id, ref_id(&refs[i]), 41);
	}
	for (int i = 0; i < 2; i++) {
		profile_free(p[i]);
		ref_release(&refs[i]);
	}
	if (ret) {
		check_report_free(&r);
		if (ret < 0)
			cli_fail();
		return 2;
	}
	return finish(&r, c->o, ctx->stdout_tty);
}

static int check_head(struct check_cmd *c, const char *rev)
{
	struct cli_ctx *ctx = c->ctx;
	struct check_report r = {0};
	struct vcs_version ver;
	char id[41];

	if (rev && cli_resolve_version(ctx, rev, id) < 0)
		return 2;
	if (!rev && !cli_head(ctx, id))
		return cli_error("no version yet: nothing to check") + 1;
	if (c->o->remeasure) {
		if (check_remeasure(ctx, c->o, &c->run, id, &r) < 0) {
			check_report_free(&r);
			return 2;
		}
		return finish(&r, c->o, ctx->stdout_tty);
	}
	if (vcs_version_info(ctx->vcs, id, &ver) < 0 ||
	    check_run_version(&c->run, ctx->store, ver.id, ver.parents, ver.nparents, &r) < 0) {
		check_report_free(&r);
		return cli_fail() + 1;
	}
	/* Every profile of the version is either paired or without a baseline. */
	if (r.n == 0 && r.without_baseline == 0) {
		check_report_free(&r);
		return cli_error("no profile registered to version %.7s: nothing to check "
				 "(collect one and `veles add` it)",
				 id) +
		       1;
	}
	return finish(&r, c->o, ctx->stdout_tty);
}

static int check_all(struct check_cmd *c)
{
	struct check_report r = {0};
	char id[41];

	if (!cli_head(c->ctx, id))
		return cli_error("no version yet: nothing to check") + 1;
	if (check_run_all(&c->run, c->ctx->vcs, c->ctx->store, &r) < 0) {
		check_report_free(&r);
		return cli_fail() + 1;
	}
	if (r.n == 0 && r.without_baseline == 0) {
		check_report_free(&r);
		return cli_error("no profile registered to any version: nothing to check") + 1;
	}
	return finish(&r, c->o, c->ctx->stdout_tty);
}

/* profiles BASE TARGET, head [REV] or all (@args[0] is the mode); returns
 * the exit status. */
static int check_mode(struct check_cmd *c, int nargs, char **args)
{
	const struct check_cli *o = c->o;
	const char *mode = args[0];

	if (o->remeasure && strcmp(mode, "head") != 0)
		return cli_usage_error("check", "--remeasure is for head [REV]");
	if (o->remeasure && (o->method || o->collect_missing))
		return cli_usage_error("check",
				       "--remeasure judges by its own sequential test on "
				       "fresh measurements: drop %s",
				       o->method ? "--method" : "--collect-missing");
	if (strcmp(mode, "profiles") == 0) {
		if (nargs != 3)
			return cli_usage_error("check", "profiles wants BASE and TARGET");
		return check_profiles(c, args + 1);
	}
	if (strcmp(mode, "head") == 0) {
		if (nargs > 2)
			return cli_usage_error("check", "head takes at most one revision");
		return check_head(c, nargs == 2 ? args[1] : NULL);
	}
	if (strcmp(mode, "all") == 0) {
		if (nargs != 1)
			return cli_usage_error("check", "all takes no arguments");
		return check_all(c);
	}
	return cli_usage_error("check", "unknown mode '%s': use profiles, head or all", mode);
}

/* `profiles FILE FILE` with both files there: no project needed. */
static bool profiles_outside(const char *mode, int nargs, char **args)
{
	return strcmp(mode, "profiles") == 0 && nargs == 3 && path_exists(args[1]) &&
	       !path_is_dir(args[1]) && path_exists(args[2]) && !path_is_dir(args[2]);
}

int cmd_check(struct cli_ctx *ctx, int argc, char **argv)
{
	struct check_collect collect = {0};
	struct check_cli o = {.collect = &collect};
	struct check_cmd c;
	int nargs, ret = check_parse_args(argc, argv, &o, &nargs);
	const char *mode = nargs > 0 ? argv[1] : NULL;

	if (ret)
		return ret < 0 ? 0 : ret;
	collect.quiet = o.quiet_progress;
	collect.ask = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	if (!mode)
		return cli_usage_error("check", "say what to check: profiles, head or all");
	/* Two profile files compare anywhere (as `veles show FILE` shows
	 * one); the rest needs the project. */
	if (cli_find_root(ctx) == 0 ? cli_open_vcs(ctx) < 0
				    : !profiles_outside(mode, nargs, argv + 1))
		return cli_fail() + 1;
	err_clear();
	/* Perun's settings for collecting before a check. */
	o.collect_missing =
		o.collect_missing ||
		project_setting_bool(&ctx->project, "degradation.collect_before_check", false);
	collect.log = project_setting_bool(&ctx->project, "degradation.log_collect", false);
	if (!o.method && check_strategies_load(&ctx->project, &o.strategies) < 0)
		return cli_fail() + 1;
	check_cmd_init(&c, ctx, &o);
	ret = check_mode(&c, nargs, argv + 1);
	check_strategies_free(&o.strategies);
	check_collect_release(&collect);
	return ret;
}
