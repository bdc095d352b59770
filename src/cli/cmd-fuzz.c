/*
 * veles fuzz [OPTIONS] -i SEEDS -- COMMAND [ARGS...]: performance fuzzing
 * of a program's input (docs/cli/fuzz.md). The options, the signals and
 * the profile's place; the fuzzing itself is src/fuzz/.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/fuzz-args.h"
#include "cli/fuzz-print.h"
#include "fuzz/fuzz.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

static volatile sig_atomic_t stop_flag;
static struct timespec stop_time;

static void on_signal(int sig)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	/* A second Ctrl-C does not wait for the report; one signal delivered
	 * twice (to the process and to its group, as timeout(1) may) is not a
	 * second one. */
	if (stop_flag && now.tv_sec - stop_time.tv_sec >= 1)
		_exit(128 + sig);
	if (!stop_flag) {
		stop_time = now;
		stop_flag = sig;
	}
}

/* .veles/fuzz/PROGRAM: the program's base name, made safe for a path. */
static char *default_out(const struct cli_ctx *ctx, const char *prog)
{
	const char *base = strrchr(prog, '/');
	char *name, *out;

	name = xstrdup(base ? base + 1 : prog);
	for (char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._+-", *p)))
			*p = '_';
	if (name[0] == '.' || !name[0]) {
		char *n = xasprintf("_%s", name);

		free(name);
		name = n;
	}
	out = xasprintf("%s/fuzz/%s", ctx->veles_dir, name);
	free(name);
	return out;
}

/* The version measured, as `veles collect` finds it (without libgit2
 * when git's own files tell). */
static bool find_origin(struct cli_ctx *ctx, char head[41])
{
	if (vcs_quick_head(ctx->root, head) == 0)
		return true;
	if (cli_open_vcs(ctx) < 0) {
		err_clear();
		return false;
	}
	return cli_head(ctx, head);
}

static int write_profile(struct cli_ctx *ctx, struct fz_report *rep, char **path)
{
	char head[41];
	bool has = find_origin(ctx, head);

	if (!has)
		cli_warn("no version yet: the profile will have no origin");
	if (fz_save_profile(rep->profile, ctx->jobs_dir, has ? head : NULL, path) < 0)
		return cli_fail();
	return 0;
}

static int run(struct cli_ctx *ctx, struct fuzz_args *a, bool in_project)
{
	struct fuzz_view view = {.tty = ctx->stderr_tty, .quiet = a->quiet};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	struct fz_report rep;
	char *profile_path = NULL;
	int ret;

	a->o.progress = fuzz_progress;
	a->o.progress_arg = &view;
	a->o.stop = &stop_flag;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ret = fz_run(&a->o, &rep);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	fuzz_progress_end(&view);
	if (ret < 0) {
		cli_fail();
		if (ret == ERR_INTERRUPTED)
			return 128 + (stop_flag ? stop_flag : SIGINT);
		return ret == ERR_INVALID || ret == ERR_NOTFOUND ? 2 : 1;
	}
	if (in_project && !a->no_profile && write_profile(ctx, &rep, &profile_path) != 0) {
		fz_report_release(&rep);
		return 1;
	}
	if (a->format == FORMAT_JSON)
		fuzz_print_json(stdout, &rep, profile_path);
	else
		fuzz_print_text(stdout, &rep, profile_path);
	free(profile_path);
	fz_report_release(&rep);
	return 0;
}

int cmd_fuzz(struct cli_ctx *ctx, int argc, char **argv)
{
	struct fuzz_args a;
	char *out = NULL;
	bool in_project;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = fuzz_parse_args(&a, argc, argv);
	if (ret) {
		free(a.inputs);
		free(a.o.argv);
		return ret < 0 ? 0 : ret;
	}
	a.o.inputs = a.inputs;
	a.o.ninputs = a.ninputs;
	in_project = cli_find_root(ctx) == 0;
	err_clear();
	if (!a.o.out_dir && !in_project) {
		free(a.inputs);
		free(a.o.argv);
		return cli_usage_error("fuzz", "not in a Veles project: give the output directory "
					       "with -o DIR");
	}
	if (!a.o.out_dir)
		a.o.out_dir = out = default_out(ctx, a.o.argv[0]);
	if (a.no_profile)
		in_project = false;
	ret = run(ctx, &a, in_project);
	free(out);
	free(a.inputs);
	free(a.o.argv);
	return ret;
}
