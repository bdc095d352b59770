/*
 * veles: the command table and dispatch (git's builtin style). Options
 * before the command apply to all of them; an unknown command runs the
 * external program veles-NAME from PATH, so users add collectors and views
 * in any language.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "vcs/vcs.h"

static const struct cli_command commands[] = {
	{"init", cmd_init, 0, "create or reinitialise a Veles project here"},
	{"config", cmd_config, 0, "get and set configuration (config.yml)"},
	{"status", cmd_status, CMD_NEEDS_PROJECT | CMD_READ_ONLY,
	 "show the version and its profiles, registered and pending"},
	{"add", cmd_add, CMD_NEEDS_PROJECT, "register pending profiles with a version"},
	{"rm", cmd_rm, CMD_NEEDS_PROJECT, "remove profiles from a version (or pending ones)"},
	{"log", cmd_log, CMD_NEEDS_PROJECT | CMD_READ_ONLY, "list versions with their profiles"},
	{"show", cmd_show, 0,
	 "show a profile: summary, table, raw, or a view (bars, scatter, flamegraph...)"},
	{"export", cmd_export, 0, "write a profile as Perun's JSON (to a file or stdout)"},
	{"collect", cmd_collect, CMD_NEEDS_ROOT, "run a collector on a command"},
	{"postprocess", cmd_postprocess, 0,
	 "transform a profile (models, smoothing, filters) into a new pending one"},
	{"postprocessby", cmd_postprocess, 0, "Perun's spelling of postprocess"},
	{"bisect", cmd_bisect, CMD_NEEDS_PROJECT,
	 "find the first commit that made a command slower"},
	{"diff", cmd_diff, CMD_NEEDS_PROJECT | CMD_READ_ONLY,
	 "compare two profiles side by side, per location"},
	{"showdiff", cmd_diff, CMD_NEEDS_PROJECT | CMD_READ_ONLY,
	 "Perun's spelling of diff (showdiff A B report)"},
	{"check", cmd_check, 0, "did a version degrade against its parent? (exit 1 when it did)"},
	{"push", cmd_push, CMD_NEEDS_PROJECT | CMD_READ_ONLY,
	 "send profiles (refs/veles/*) to a git remote"},
	{"pull", cmd_pull, CMD_NEEDS_PROJECT | CMD_READ_ONLY,
	 "fetch and merge profiles from a git remote"},
	{"commit", cmd_commit, CMD_NEEDS_PROJECT,
	 "record a new version of a plain (non-git) project"},
	{"run", cmd_run, CMD_NEEDS_PROJECT, "run the job matrix of config.yml, or one job"},
	{"hook", cmd_hook, CMD_NEEDS_PROJECT,
	 "install a git post-commit hook that runs the matrix on each commit"},
	{"cflags", cmd_cflags, 0,
	 "compiler flags for a program to trace or fuzz (veles cflags trace|fuzz)"},
	{"list", cmd_list, 0, "list the events this machine can count (perf_event_open)"},
	{"stat", cmd_stat, 0, "count events over a command, a process or all CPUs"},
	{"record", cmd_record, 0, "sample a command or a process into a record file"},
	{"report", cmd_report, 0, "the flat profile (and callers) of a record file"},
	{"monitor", cmd_monitor, 0, "sample the system (cpu, disks, memory, network...)"},
	{"script", cmd_script, 0, "run Python handlers over a tracepoint recording"},
	{"serve", cmd_serve, 0, "the web front end: live plots of stat and record runs"},
	{"runner", cmd_runner, 0, "execute runs from a team database's queue (no pages)"},
	{"fuzz", cmd_fuzz, 0, "mutate a program's inputs to find the costliest ones"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: veles [-C DIR] [--version] [--help] COMMAND [ARGS]\n\n"
		   "Veles keeps performance profiles beside the code versions they measured.\n\n"
		   "Commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nAny program veles-NAME on PATH runs as `veles NAME`.\n"
		   "`veles COMMAND --help` describes a command; docs/ has a page for each.\n");
}

static const struct cli_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int run_external(int argc, char **argv)
{
	char *prog = xasprintf("veles-%s", argv[0]);
	char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	struct cli_ctx ctx = {0};
	int i;

	args[0] = prog;
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	/* External commands learn where the project is without searching. */
	if (cli_find_root(&ctx) == 0)
		setenv("VELES_PROJECT_ROOT", ctx.root, 1);
	cli_ctx_release(&ctx);
	execvp(prog, args);
	if (errno == ENOENT)
		cli_error("'%s' is not a veles command (and no %s on PATH); see `veles --help`",
			  argv[0], prog);
	else
		cli_error("cannot run %s: %s", prog, strerror(errno));
	free(args);
	free(prog);
	return 2;
}

/* -C DIR: each in turn, as git does. */
static int opt_chdir(void *ctx, const struct opt *o, const char *dir)
{
	UNUSED(ctx);
	UNUSED(o);
	if (chdir(dir) < 0)
		return err_set(ERR_IO, "veles: cannot change to %s: %s", dir, strerror(errno));
	return 0;
}

/* The options before the command; 1 after --help or --version, 2 after
 * an error said on stderr. *@argv becomes a NULL-terminated copy of the
 * command and its arguments (the caller frees it). */
static int main_options(int *argc, char ***argv)
{
	bool version = false;
	struct opt opts[] = {
		OPT_CALLBACK('C', NULL, "DIR", opt_chdir, "run as if started in DIR"),
		OPT_BOOL('V', "version", &version, "the version of veles"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	/* The command's own options stay its own: the parse stops at its name. */
	struct optparse p = {"veles", "veles [-C DIR] [--version] [--help] COMMAND [ARGS]",
			     NULL,    opts,
			     NULL,    OPTP_STOP_AT_OPERAND};
	int n, ret = opt_parse(&p, *argc, *argv, &n);

	if (ret == OPT_HELP || (ret == 0 && version)) {
		if (version)
			printf("veles %s\n", VELES_VERSION);
		else
			usage(stdout);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "%s (see `veles --help`)\n", err_msg());
		return 2;
	}
	*argc = n;
	*argv = cli_argv_dup(*argv + 1, n);
	return 0;
}

/* The command @argv[0] with its arguments. */
static int run(int argc, char **argv)
{
	const struct cli_command *cmd;
	struct cli_ctx ctx = {0};
	int ret;

	if (argc == 0)
		return cli_error("no command given; see `veles --help`"), 2;
	if (strcmp(argv[0], "help") == 0) {
		if (argc < 2) {
			usage(stdout);
			return 0;
		}
		argv[0] = argv[1];
		argv[1] = "--help";
		argc = 2;
	}
	cmd = find_command(argv[0]);
	if (!cmd)
		return run_external(argc, argv);

	ctx.stderr_tty = isatty(2);
	ctx.stdout_tty = isatty(1);
	cli_guard_terminal();
	ctx.read_only = cmd->flags & CMD_READ_ONLY;
	if ((cmd->flags & (CMD_NEEDS_PROJECT | CMD_NEEDS_ROOT)) && !cli_wants_help(argc, argv)) {
		if ((cmd->flags & CMD_NEEDS_PROJECT ? cli_open_project(&ctx)
						    : cli_find_root(&ctx)) < 0 ||
		    (!ctx.read_only && cli_local_state(&ctx) < 0)) {
			cli_fail();
			cli_ctx_release(&ctx);
			return 2;
		}
	}
	ret = cmd->fn(&ctx, argc, argv);
	cli_ctx_release(&ctx);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			cli_error("cannot write output: %s", strerror(errno));
		return ret ? ret : 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	int ret = main_options(&argc, &argv);

	if (ret)
		return ret == 1 ? 0 : 2;
	ret = run(argc, argv);
	free(argv);
	return ret;
}
