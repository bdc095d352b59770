/*
 * check --collect-missing: when a parent version has no profile of a
 * configuration, measure it there first (run/recollect.h): the job of
 * the user's own job matrix (config.yml) that makes that configuration,
 * or the profile's own recipe. A recipe is data that may have come from
 * anyone (`veles pull`): it is replayed only when the user says so, with
 * --yes or by answering the question asked here on a terminal.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/cli.h"
#include "profile/profile.h"
#include "run/recollect.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

/* The user's job matrix, read once. */
static int matrix(struct cli_ctx *ctx, struct check_collect *cc, const struct run_matrix **m)
{
	if (!cc->matrix) {
		int ret = run_matrix_load_project(ctx->root, &cc->matrix);

		if (ret < 0)
			return ret;
	}
	*m = cc->matrix;
	return 0;
}

/* @s for the terminal: bytes that are not printable ASCII as \xNN, so a
 * name from a profile cannot move the cursor or hide text (and with
 * @quoted a ' too, which would end the quotes around it). */
static void add_shown(struct buf *b, const char *s, bool quoted)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\' && !(quoted && *p == '\''))
			buf_addc(b, (char)*p);
		else
			buf_addf(b, "\\x%02x", *p);
	}
}

/* The recipe's command line as it would run, each word shown safely and
 * quoted when it holds more than letters, digits and -_./=:,+@%. */
static char *recipe_shown(const struct profile *p)
{
	char **argv = NULL;
	size_t argc = 0;
	struct buf b = BUF_INIT;

	if (recollect_recipe_argv(p, "--output-handling=suppress", &argv, &argc) < 0) {
		err_clear();
		run_strv_free(argv);
		argv = NULL;
		argc = 0;
		run_strv_add(&argv, &argc, p->collector ? p->collector : "?");
		run_strv_add(&argv, &argc, "--");
		run_strv_add(&argv, &argc, p->cmd ? p->cmd : "?");
		if (p->args)
			run_strv_add(&argv, &argc, p->args);
	}
	buf_adds(&b, "veles collect");
	for (size_t i = 0; i < argc; i++) {
		bool plain = *argv[i] != '\0';

		for (const char *c = argv[i]; *c; c++)
			plain = plain && (isalnum((unsigned char)*c) || strchr("-_./=:,+@%", *c));
		buf_adds(&b, plain ? " " : " '");
		add_shown(&b, argv[i], !plain);
		if (!plain)
			buf_addc(&b, '\'');
	}
	run_strv_free(argv);
	return buf_detach(&b, NULL);
}

/* May the profile's own recipe run? --yes says so; on a terminal the user
 * is asked; otherwise one line says why nothing ran. */
static bool recipe_allowed(const struct check_collect *cc, const struct profile *target,
			   const char *name, const char *parent)
{
	struct buf shown_name = BUF_INIT;
	char *cmd, *line = NULL;
	size_t cap = 0;
	bool yes;

	if (cc->yes)
		return true;
	add_shown(&shown_name, name, false);
	if (!cc->ask) {
		cli_warn("not collecting %s on %.7s: config.yml has no job that makes its "
			 "configuration, and its own recipe comes from the profile (add the job "
			 "to the matrix, or pass --yes to run the recipe)",
			 buf_str(&shown_name), parent);
		buf_release(&shown_name);
		return false;
	}
	cmd = recipe_shown(target);
	fflush(stdout);
	fprintf(stderr,
		"check: %s has no baseline on %.7s, and config.yml has no job that makes\n"
		"its configuration. Its own recipe, from the profile (which may not be\n"
		"yours), would run there:\n  %s\nRun it? [y/N] ",
		buf_str(&shown_name), parent, cmd);
	fflush(stderr);
	yes = getline(&line, &cap, stdin) > 0 &&
	      (strcmp(line, "y\n") == 0 || strcmp(line, "yes\n") == 0 || strcmp(line, "Y\n") == 0 ||
	       strcmp(line, "y") == 0);
	free(line);
	free(cmd);
	buf_release(&shown_name);
	return yes;
}

/* With degradation.log_collect the captured output also echoes: onto
 * stderr, so that stdout holds the report alone. */
static int collect_logged(const struct check_collect *cc, const struct recollect *rc,
			  const char *parent)
{
	int saved = -1, ret;

	if (cc->log) {
		fflush(stdout);
		saved = dup(STDOUT_FILENO);
		if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			if (saved >= 0)
				close(saved);
			return err_set(ERR_IO, "cannot redirect the collection's output: %s",
				       strerror(errno));
		}
	}
	ret = recollect_run(rc, parent);
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return ret;
}

int check_collect_missing(struct cli_ctx *ctx, struct check_collect *cc,
			  const struct profile *target, const char *target_name, const char *parent)
{
	struct recollect rc = {
		.project_root = ctx->root,
		.logs_dir = ctx->logs_dir,
		.store = ctx->store,
		.target = target,
		.capture = cc->log,
		.message = cli_collect_message,
	};
	const struct run_matrix *m = NULL;
	struct run_job *jobs = NULL;
	size_t n;
	int ret;

	if (vcs_kind(ctx->vcs) != VCS_GIT)
		return err_set(ERR_INVALID, "--collect-missing needs a git project");
	/* Its collectors log to .veles/logs/, which a fresh clone lacks. */
	if ((ret = cli_local_state(ctx)) < 0 || (ret = matrix(ctx, cc, &m)) < 0)
		return ret;
	n = run_matrix_expand(m, &jobs);
	rc.repo = vcs_store_repo(ctx->vcs);
	rc.m = m;
	rc.job = recollect_find_job(m, jobs, n, target);
	if (!rc.job && !recipe_allowed(cc, target, target_name, parent)) {
		free(jobs);
		return 1;
	}
	if (!cc->quiet) {
		struct buf shown = BUF_INIT;

		add_shown(&shown, target_name, false);
		fprintf(stderr, "check: collecting %s on %.7s\n", buf_str(&shown), parent);
		buf_release(&shown);
	}
	ret = collect_logged(cc, &rc, parent);
	free(jobs);
	return ret;
}

void check_collect_release(struct check_collect *cc)
{
	run_matrix_free(cc->matrix);
	cc->matrix = NULL;
}
