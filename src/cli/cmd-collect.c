/* veles collect COLLECTOR [OPTIONS] -- CMD...: hands over to the collector. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collect/collector.h"
#include "util/common.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

static void collect_usage(void)
{
	const struct collector *const *c;

	printf("usage: veles collect [-pn NAME | -ot TEMPLATE] COLLECTOR [OPTIONS] -- COMMAND "
	       "[ARGS...]\n"
	       "\n"
	       "Runs COMMAND under a collector and writes the profile to .veles/jobs/\n"
	       "as BIN-COLLECTOR-WORKLOAD-TIMESTAMP.perf, filed under the current\n"
	       "version (HEAD); `veles add` then registers it. Collecting with\n"
	       "uncommitted changes warns that they may skew the profile (see\n"
	       "collect.warn_dirty in config.yml).\n"
	       "\n"
	       "  -pn, --profile-name NAME   name the profile NAME(.perf)\n"
	       "  -ot, --output-filename-template TEMPLATE\n"
	       "                             name it by TEMPLATE (default: the setting\n"
	       "                             format.output_profile_template): %%collector%%,\n"
	       "                             %%cmd%%, %%workload%%, %%type%%, %%date%%, "
	       "%%origin%%,\n"
	       "                             %%postprocessors%%, %%counter%%, %%UNIT.PARAM%%\n"
	       "\n"
	       "Collectors (`veles collect NAME --help` for each):\n");
	for (c = collector_list(); *c; c++)
		printf("  %-8s %s\n", (*c)->name, (*c)->summary);
	printf("\nA program veles-collect-NAME on PATH runs as `veles collect NAME`.\n");
}

/*
 * HEAD's id into @head, from git's files when they tell (vcs_quick.c),
 * else from the version context; false when there is no version yet, -1
 * when the project cannot be opened (said on stderr).
 */
static int collect_head(struct cli_ctx *ctx, char head[41])
{
	if (vcs_quick_head(ctx->root, head) == 0)
		return 1;
	if (cli_open_vcs(ctx) < 0)
		return cli_fail(), -1;
	return cli_head(ctx, head);
}

/*
 * The profile's origin and the dirty-tree warning. Neither loads libgit2
 * when git's files answer: its start-up would count against every run
 * collect measures. Returns -1 when the project cannot be opened.
 */
static int collect_origin(struct cli_ctx *ctx, char head[41], const char **origin)
{
	bool dirty = false;
	int has_head = collect_head(ctx, head);

	if (has_head < 0)
		return -1;
	*origin = has_head ? head : NULL;
	if (!has_head)
		cli_warn("no version yet: the profile will have no origin");
	if (!cli_config_bool(ctx, "collect.warn_dirty", true) ||
	    (has_head && vcs_quick_clean(ctx->root, head)))
		return 0;
	if (cli_open_vcs(ctx) < 0)
		return cli_fail(), -1;
	if (vcs_is_dirty(ctx->vcs, &dirty) == 0 && dirty)
		cli_warn("uncommitted changes may skew the profile: it is filed under %.7s, "
			 "which does not contain them",
			 head);
	return 0;
}

/*
 * A collector we do not have built in: veles-collect-NAME from PATH, told
 * where to write through the environment (docs/collect.md).
 */
static int run_external_collector(struct cli_ctx *ctx, int argc, char **argv)
{
	char *prog = xasprintf("veles-collect-%s", argv[0]);
	char head[41];
	int has_head = collect_head(ctx, head);

	if (has_head < 0) {
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

/*
 * Perun's naming options, before the collector: -pn/--profile-name and
 * -ot/--output-filename-template (else format.output_profile_template).
 * Returns how many arguments they took, or -1 after a usage error.
 */
static int naming_options(int argc, char **argv, struct collect_env *env)
{
	int i = 1;

	while (i + 1 < argc) {
		const char *o = argv[i];

		if (strcmp(o, "-pn") == 0 || strcmp(o, "--profile-name") == 0)
			env->profile_name = argv[i + 1];
		else if (strcmp(o, "-ot") == 0 || strcmp(o, "--output-filename-template") == 0)
			env->name_template = argv[i + 1];
		else
			break;
		i += 2;
	}
	if (env->profile_name && (!*env->profile_name || strchr(env->profile_name, '/') ||
				  env->profile_name[0] == '.' || env->profile_name[0] == '-'))
		return cli_usage_error("collect",
				       "--profile-name '%s': a file name for .veles/jobs/, not "
				       "empty, a path or starting with '.' or '-'",
				       env->profile_name),
		       -1;
	if (env->name_template && collect_template_check(env->name_template) < 0)
		return cli_fail(), -1;
	return i - 1;
}

int cmd_collect(struct cli_ctx *ctx, int argc, char **argv)
{
	struct collect_env env = {0};
	char head[41], *tmpl = NULL;
	int skip = naming_options(argc, argv, &env), ret;

	if (skip < 0)
		return 2;
	argc -= skip;
	argv += skip;
	if (argc < 2)
		return cli_usage_error("collect", "name a collector and a command "
						  "(veles collect COLLECTOR -- CMD...)");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		collect_usage();
		return 0;
	}
	if (!collector_find(argv[1]))
		return run_external_collector(ctx, argc - 1, argv + 1);
	env.jobs_dir = ctx->jobs_dir;
	env.logs_dir = ctx->logs_dir;
	env.progress = ctx->stderr_tty;
	env.message = cli_collect_message;
	if (!cli_wants_help(argc, argv) && collect_origin(ctx, head, &env.origin) < 0)
		return 2;
	if (!env.name_template && !env.profile_name)
		env.name_template = tmpl = cli_config_string(ctx, "format.output_profile_template");
	if (tmpl && collect_template_check(tmpl) < 0) {
		free(tmpl);
		return cli_fail(), 1;
	}
	ret = collect_main(&env, argc - 1, argv + 1);
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
