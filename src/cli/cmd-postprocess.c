/*
 * veles postprocess [options] PROFILE NAME [NAME-OPTIONS]: runs one
 * postprocessor over a profile and writes the result as a new pending
 * profile, so the original stays as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/postproc.h"
#include "cli/cli.h"
#include "cli/select.h"
#include "collect/collector.h"
#include "profile/profile.h"
#include "project/settings.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"

struct pp_cli {
	const char *rev;
	const char *output;
	const char *name_template;
	const char *spec;
	const struct postproc *pp;
	int pp_argc;
	char **pp_argv;
};

static int check_template(void *ctx, const struct opt *o, const char *arg)
{
	char *why;
	int ret;

	UNUSED(o);
	*(const char **)ctx = arg;
	if (collect_template_check(arg) == 0)
		return 0;
	why = xstrdup(err_msg());
	ret = err_set(ERR_INVALID, "postprocess: %s", why);
	free(why);
	return ret;
}

/* What the command does, and the postprocessors there are. */
static void about(struct buf *b)
{
	buf_adds(b, "Runs postprocessor NAME over PROFILE and writes the result as a new pending\n"
		    "profile in .veles/jobs/ (named after its command, NAME and workload), with\n"
		    "NAME and its options appended to the profile's \"postprocessors\" list.\n"
		    "PROFILE is N@p or a bare N (the Nth pending profile), N@i (the Nth profile\n"
		    "of the version), a path, a profile name, or a prefix of a profile's id.\n"
		    "\n"
		    "Postprocessors (`veles postprocess NAME --help` for each):\n");
	for (const struct postproc *const *pp = postproc_list(); *pp; pp++)
		buf_addf(b, "  %-20s %s\n", (*pp)->name, (*pp)->summary);
}

/* Returns -1 after --help, 0 to go on, or the exit status of an error. */
static int parse_args(int argc, char **argv, struct pp_cli *o)
{
	const struct opt opts[] = {
		OPT_GROUP("Options (before PROFILE):"),
		OPT_STRING('m', "minor", &o->rev, "REV",
			   "look PROFILE up in version REV (default: HEAD)"),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "write the result to FILE instead of .veles/jobs/"),
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "output-filename-template",
		 .argh = "T",
		 .cb = check_template,
		 .help = "name the result by T (default: the setting\n"
			 "format.output_profile_template; see veles collect);\n"
			 "-ot is the same"},
		OPT_DASH_ALIAS("ot", "output-filename-template"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct buf text = BUF_INIT;
	struct optparse p = {
		.name = "postprocess",
		.usage = "veles postprocess [-m REV] [-o FILE | -ot TEMPLATE] PROFILE NAME "
			 "[OPTIONS]\n"
			 "veles postprocess NAME --help",
		.opts = opts,
		.ctx = &o->name_template,
		/* The postprocessor's options come after its name. */
		.flags = OPTP_STOP_AT_OPERAND,
	};
	int nop, ret;

	about(&text);
	p.about = buf_str(&text);
	ret = cli_parse_options(&p, argc, argv, &nop);
	buf_release(&text);
	if (ret)
		return ret;
	/* NAME --help: the postprocessor's own help, no profile needed. */
	if (nop >= 1 && postproc_find(argv[1]) && (nop < 2 || !postproc_find(argv[2])) &&
	    cli_wants_help(nop, argv + 1)) {
		o->pp = postproc_find(argv[1]);
		o->pp_argc = nop;
		o->pp_argv = argv + 1;
		return 0;
	}
	if (nop < 2)
		return cli_usage_error("postprocess", "name a profile and a postprocessor");
	o->spec = argv[1];
	o->pp = postproc_find(argv[2]);
	o->pp_argc = nop - 1;
	o->pp_argv = argv + 2;
	if (!o->pp)
		return cli_usage_error("postprocess", "unknown postprocessor '%s'", argv[2]);
	return 0;
}

static int save_result(struct cli_ctx *ctx, const struct profile *p, const char *tool,
		       const char *output, const char *tmpl)
{
	char *path = NULL;
	char *name, *conf = NULL;
	int ret;

	if (output) {
		if (profile_save(p, output, COMP_NONE) < 0)
			return cli_fail();
		fprintf(stderr, "profile written to %s\n", output);
		return 0;
	}
	if (mkdir_p(ctx->jobs_dir) < 0)
		return cli_fail();
	if (!tmpl)
		tmpl = conf = project_setting(&ctx->project, "format.output_profile_template");
	if (tmpl) {
		ret = collect_template_name(tmpl, p, &name);
		free(conf);
		if (ret < 0)
			return cli_fail();
	} else {
		name = collect_profile_name(p->cmd ? p->cmd : "profile", tool,
					    p->workload ? p->workload : "");
	}
	ret = collect_claim_path(ctx->jobs_dir, name, &path);
	free(name);
	if (ret == 0) {
		ret = profile_save_compact(p, path);
		if (ret < 0)
			unlink(path);
	}
	if (ret < 0) {
		free(path);
		return cli_fail();
	}
	fprintf(stderr, "profile written to .veles/jobs/%s\n", strrchr(path, '/') + 1);
	free(path);
	return 0;
}

/* NAME --help: the postprocessor's help, from its table. */
static int show_pp_help(const struct pp_cli *o)
{
	void *opts = NULL;
	char *help = NULL;

	if (o->pp->parse(o->pp_argc, o->pp_argv, &opts, &help) < 0)
		return cli_fail();
	if (opts)
		o->pp->free_opts(opts);
	if (help)
		fputs(help, stdout);
	free(help);
	return 0;
}

static void warn_note(void *arg, const char *text)
{
	UNUSED(arg);
	cli_warn("%s", text);
}

static int postprocess(struct cli_ctx *ctx, const struct pp_cli *o)
{
	const struct postproc_env env = {.message = warn_note};
	struct profile_ref ref;
	struct profile *p;
	int ret;

	/* NAME --help needs no project and no profile (and veles.c opened
	 * neither, seeing --help). */
	if (cli_wants_help(o->pp_argc, o->pp_argv))
		return show_pp_help(o);
	/* A profile file in, a file out: no project to open (its repository
	 * and store would cost more memory than many a profile). */
	if (o->output && !o->rev && access(o->spec, F_OK) == 0) {
		if (profile_load(o->spec, &p) < 0)
			return cli_fail();
	} else {
		if (cli_open_project(ctx) < 0) {
			cli_fail();
			return 2;
		}
		if (ref_open(ctx, o->spec, o->rev, REF_DEFAULT_PENDING, &ref, &p) < 0)
			return cli_fail();
		ref_release(&ref);
	}
	ret = postproc_run_argv_env(p, o->pp_argc, o->pp_argv, &env, NULL);
	if (ret == 0)
		ret = save_result(ctx, p, o->pp->name, o->output, o->name_template);
	else if (ret == 1)
		ret = 0;
	else
		ret = cli_fail();
	profile_free(p);
	return ret;
}

int cmd_postprocess(struct cli_ctx *ctx, int argc, char **argv)
{
	struct pp_cli o = {0};
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	return postprocess(ctx, &o);
}
