/* veles collect COLLECTOR [OPTIONS] -- CMD...: hands over to the collector. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "collect/collector.h"
#include "project/origin.h"
#include "project/settings.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"
#include "util/spawn.h"

/* `veles collect --help`'s end: the collectors, built in or on PATH. */
static char *collectors_help(void)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "Collectors (`veles collect NAME --help` for each):");
	for (const struct collector *const *c = collector_list(); *c; c++)
		buf_addf(&b, "\n  %-8s %s", (*c)->name, (*c)->summary);
	buf_adds(&b, "\n\nA program veles-collect-NAME on PATH runs as `veles collect NAME`.");
	return buf_detach(&b, NULL);
}

/*
 * A collector we do not have built in: veles-collect-NAME from PATH, told
 * where to write through the environment (docs/collect.md).
 */
static int run_external_collector(struct cli_ctx *ctx, int argc, char **argv)
{
	char *prog = xasprintf("veles-collect-%s", argv[0]);
	char head[41];
	int has_head = project_head_quick(&ctx->project, head);

	if (has_head < 0) {
		cli_fail();
		free(prog);
		return 2;
	}
	setenv("VELES_PROJECT_ROOT", ctx->root, 1);
	setenv("VELES_JOBS_DIR", ctx->jobs_dir, 1);
	if (has_head)
		setenv("VELES_ORIGIN", head, 1);
	argv[0] = prog;
	fflush(stdout);
	execvp(prog, argv);
	if (errno == ENOENT)
		cli_usage_error("collect", "unknown collector '%s' (and no %s on PATH)",
				prog + strlen("veles-collect-"), prog);
	else
		cli_error("cannot run %s: %s", prog, strerror(errno));
	free(prog);
	return 2;
}

/* Where the options before the collector's name end: a naming option
 * (@names, either spelling) takes the next word as its value. */
static int options_end(int argc, char **argv, const char *const *names)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0) {
		bool takes = false;

		for (const char *const *n = names; *n; n++)
			takes = takes || strcmp(argv[i], *n) == 0;
		i += takes ? 2 : 1;
	}
	return i < argc ? i : argc;
}

/*
 * Perun's naming options, before the collector: -pn/--profile-name and
 * -ot/--output-filename-template (else format.output_profile_template),
 * then the collector's name. Perun's spellings are rewritten up to the
 * collector's name only: what follows is the collector's and the
 * command's. Returns 0 with argv[1] the collector, -1 after --help, or an
 * exit status.
 */
static int naming_options(int argc, char **argv, struct collect_env *env, int *nop)
{
	static const char *const perun[] = {"-pn", "--profile-name", "-ot",
					    "--output-filename-template", NULL};
	char *collectors = collectors_help();
	const struct opt opts[] = {
		OPT_STRING(0, "profile-name", &env->profile_name, "NAME",
			   "name the profile NAME(.perf) (-pn is Perun's spelling)"),
		OPT_STRING(0, "output-filename-template", &env->name_template, "TEMPLATE",
			   "name it by TEMPLATE (default: the setting\n"
			   "format.output_profile_template): %collector%,\n"
			   "%cmd%, %workload%, %type%, %date%, %origin%,\n"
			   "%postprocessors%, %counter%, %UNIT.PARAM%\n"
			   "(-ot is Perun's spelling)"),
		OPT_GROUP(collectors),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "collect",
		.usage = "veles collect [-pn NAME | -ot TEMPLATE] COLLECTOR [OPTIONS] -- COMMAND "
			 "[ARGS...]",
		.about = "Runs COMMAND under a collector and writes the profile to .veles/jobs/\n"
			 "as BIN-COLLECTOR-WORKLOAD-TIMESTAMP.perf, filed under the current\n"
			 "version (HEAD); `veles add` then registers it. Collecting with\n"
			 "uncommitted changes warns that they may skew the profile (see\n"
			 "collect.warn_dirty in config.yml).",
		.opts = opts,
		.flags = OPTP_STOP_AT_OPERAND,
	};
	int ret;

	cli_perun_short_opts(options_end(argc, argv, perun), argv, perun);
	ret = cli_parse_options(&p, argc, argv, nop);
	free(collectors);
	if (ret != 0)
		return ret;
	if (env->profile_name && collect_name_check("--profile-name", env->profile_name) < 0)
		return cli_usage_error("collect", "%s", err_msg());
	if (env->name_template && collect_template_check(env->name_template) < 0)
		return cli_fail(), 2;
	return 0;
}

/* `veles collect COLLECTOR ARGS...` with its naming options parsed. */
static int collect(struct cli_ctx *ctx, struct collect_env *env, int argc, char **argv)
{
	char head[41], *tmpl = NULL;
	int ret, has_head;

	if (argc < 2)
		return cli_usage_error("collect", "name a collector and a command "
						  "(veles collect COLLECTOR -- CMD...)");
	if (!collector_find(argv[1]))
		return run_external_collector(ctx, argc - 1, argv + 1);
	env->jobs_dir = ctx->jobs_dir;
	env->logs_dir = ctx->logs_dir;
	env->progress = ctx->stderr_tty;
	env->message = cli_collect_message;
	if (!cli_wants_help(argc, argv)) {
		if ((has_head = project_origin(&ctx->project, false, head)) < 0)
			return cli_fail(), 2;
		env->origin = has_head ? head : NULL;
	}
	if (!env->name_template && !env->profile_name)
		env->name_template = tmpl =
			project_setting(&ctx->project, "format.output_profile_template");
	if (tmpl && collect_template_check(tmpl) < 0) {
		free(tmpl);
		return cli_fail(), 1;
	}
	ret = collect_main(env, argc - 1, argv + 1);
	free(tmpl);
	if (ret < 0) {
		cli_fail();
		/* Bad options are usage errors, like every command's; Ctrl-C
		 * exits as a shell reports SIGINT. */
		if (ret == ERR_INTERRUPTED)
			return 128 + (spawn_interrupted() ? spawn_interrupted() : SIGINT);
		return ret == ERR_INVALID ? 2 : 1;
	}
	return 0;
}

int cmd_collect(struct cli_ctx *ctx, int argc, char **argv)
{
	struct collect_env env = {0};
	char **args;
	int nop = 0, ret = naming_options(argc, argv, &env, &nop);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	/* The collector's name and what follows (the operands), NULL-ended:
	 * the naming options were moved after them. */
	args = xcalloc((size_t)nop + 2, sizeof(*args));
	args[0] = argv[0];
	memcpy(args + 1, argv + 1, (size_t)nop * sizeof(*args));
	ret = collect(ctx, &env, nop + 1, args);
	free(args);
	return ret;
}
