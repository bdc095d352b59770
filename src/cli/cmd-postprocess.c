/*
 * veles postprocess [options] PROFILE NAME [NAME-OPTIONS]: runs one
 * postprocessor over a profile and writes the result as a new pending
 * profile, so the original stays as it was.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/postproc.h"
#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "cli/select.h"
#include "collect/collector.h"
#include "profile/profile.h"
#include "util/common.h"
#include "util/fsutil.h"

static void postprocess_usage(void)
{
	const struct postproc *const *pp;

	printf("usage: veles postprocess [-m REV] [-o FILE | -ot TEMPLATE] PROFILE NAME [OPTIONS]\n"
	       "       veles postprocess NAME --help\n"
	       "\n"
	       "Runs postprocessor NAME over PROFILE and writes the result as a new pending\n"
	       "profile in .veles/jobs/ (named after its command, NAME and workload), with\n"
	       "NAME and its options appended to the profile's \"postprocessors\" list.\n"
	       "PROFILE is N@p or a bare N (the Nth pending profile), N@i (the Nth profile\n"
	       "of the version), a path, a profile name, or a prefix of a profile's id.\n"
	       "\n"
	       "  -m, --minor REV    look PROFILE up in version REV (default: HEAD)\n"
	       "  -o, --output FILE  write the result to FILE instead of .veles/jobs/\n"
	       "  -ot, --output-filename-template T\n"
	       "                     name the result by T (default: the setting\n"
	       "                     format.output_profile_template; see veles collect)\n"
	       "\n"
	       "Postprocessors (`veles postprocess NAME --help` for each):\n");
	for (pp = postproc_list(); *pp; pp++)
		printf("  %-20s %s\n", (*pp)->name, (*pp)->summary);
}

struct pp_cli {
	const char *rev;
	const char *output;
	const char *name_template;
	const char *spec;
	int pp_argc;
	char **pp_argv;
};

/* Returns 1 after --help, 0 to go on, or the exit status of an error. */
static int parse_args(int argc, char **argv, struct pp_cli *o)
{
	static const struct option opts[] = {
		{"minor", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},
		{"output-filename-template", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	/* Only our own options: a postprocessor's come after its name. */
	for (c = 1; c < argc && !postproc_find(argv[c]); c++)
		;
	cli_perun_short_opts(c, argv,
			     (const char *const[]){"-ot", "--output-filename-template", NULL});
	while ((c = getopt_long(argc, argv, "+m:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->rev = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'T':
			o->name_template = optarg;
			if (collect_template_check(optarg) < 0)
				return cli_fail() + 1;
			break;
		case 'h':
			postprocess_usage();
			return 1;
		default:
			return cli_bad_option("postprocess", argv);
		}
	}
	/* NAME --help: the postprocessor's own usage, no profile needed. */
	if (argc - optind >= 1 && postproc_find(argv[optind]) &&
	    (argc - optind < 2 || !postproc_find(argv[optind + 1])) &&
	    cli_wants_help(argc - optind, argv + optind)) {
		o->pp_argc = argc - optind;
		o->pp_argv = argv + optind;
		return 0;
	}
	if (argc - optind < 2)
		return cli_usage_error("postprocess", "name a profile and a postprocessor");
	o->spec = argv[optind];
	o->pp_argc = argc - optind - 1;
	o->pp_argv = argv + optind + 1;
	if (!postproc_find(o->pp_argv[0]))
		return cli_usage_error("postprocess", "unknown postprocessor '%s'", o->pp_argv[0]);
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
		tmpl = conf = cli_config_string(ctx, "format.output_profile_template");
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

static int show_pp_usage(const struct pp_cli *o)
{
	const struct postproc *pp = postproc_find(o->pp_argv[0]);
	void *opts = NULL;

	if (pp->parse(o->pp_argc, o->pp_argv, &opts) < 0)
		return cli_fail();
	if (opts)
		pp->free_opts(opts);
	return 0;
}

static int postprocess(struct cli_ctx *ctx, struct pp_cli *o_in);

/* Perun's name of a postprocessor, regression_analysis, is ours with
 * hyphens: found as such wherever it is. */
static void perun_names(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *h;

		if (!strchr(argv[i], '_') || argv[i][0] == '-')
			continue;
		h = xstrdup(argv[i]);
		for (char *c = h; *c; c++)
			if (*c == '_')
				*c = '-';
		if (postproc_find(h))
			argv[i] = (char *)postproc_find(h)->name;
		free(h);
	}
}

int cmd_postprocess(struct cli_ctx *ctx, int argc, char **argv)
{
	struct pp_cli o = {0};
	char **pp_argv;
	int ret;

	perun_names(argc, argv);
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : ret;
	pp_argv = cli_perun_pp_argv(&o.pp_argc, o.pp_argv);
	o.pp_argv = pp_argv;
	ret = postprocess(ctx, &o);
	cli_perun_argv_free(pp_argv);
	return ret;
}

static int postprocess(struct cli_ctx *ctx, struct pp_cli *o_in)
{
	struct pp_cli o = *o_in;
	struct profile_ref ref;
	struct profile *p;
	int ret;

	/* NAME --help needs no project and no profile (and veles.c opened
	 * neither, seeing --help). */
	if (cli_wants_help(o.pp_argc, o.pp_argv))
		return show_pp_usage(&o);
	/* A profile file in, a file out: no project to open (its repository
	 * and store would cost more memory than many a profile). */
	if (o.output && !o.rev && access(o.spec, F_OK) == 0) {
		if (profile_load(o.spec, &p) < 0)
			return cli_fail();
	} else {
		if (cli_open_project(ctx) < 0) {
			cli_fail();
			return 2;
		}
		if (ref_open(ctx, o.spec, o.rev, REF_DEFAULT_PENDING, &ref, &p) < 0)
			return cli_fail();
		ref_release(&ref);
	}
	ret = postproc_run_argv(p, o.pp_argc, o.pp_argv);
	if (ret == 0)
		ret = save_result(ctx, p, o.pp_argv[0], o.output, o.name_template);
	else if (ret == 1)
		ret = 0;
	else
		ret = cli_fail();
	profile_free(p);
	return ret;
}
