/* What every command shares: error lines, finding the project, options. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "project/project_local.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("veles: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int cli_fail(void)
{
	return cli_error("%s", err_msg()[0] ? err_msg() : "unknown error");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "veles%s%s: ", *cmd ? " " : "", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see `veles%s%s --help`)\n", *cmd ? " " : "", cmd);
	return 2;
}

int cli_bad_option(const char *cmd, char **argv)
{
	if (optopt && optopt != '?')
		return cli_usage_error(cmd, "unknown option or missing value: -%c", optopt);
	return cli_usage_error(cmd, "unknown option or missing value: %s", argv[optind - 1]);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("veles: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

/* Which of .veles/ and .git @dir holds: 2, 1, or 0 for neither. */
static int project_marker(const char *dir)
{
	const char *base = strcmp(dir, "/") ? dir : "";
	char *veles = xasprintf("%s/.veles", base), *git = xasprintf("%s/.git", base);
	/* .git is a directory, or a worktree's or submodule's file. */
	int found = path_is_dir(veles) ? 2 : path_exists(git) ? 1 : 0;

	free(veles);
	free(git);
	return found;
}

/*
 * The nearest directory upwards that has .veles/, or else is a git work
 * tree's top: a fresh clone is a project before `veles init`, its profiles
 * under refs/veles/ and its recipe in the tracked file (ctx->implicit; its
 * .veles/ is made when a command needs it, cli_local_state()).
 */
int cli_find_root(struct cli_ctx *ctx)
{
	char cwd[PATH_MAX];
	char *dir;
	int found;

	if (!getcwd(cwd, sizeof(cwd)))
		return err_set(ERR_IO, "cannot get the current directory: %s", strerror(errno));
	dir = xstrdup(cwd);
	while (!(found = project_marker(dir))) {
		char *slash = strrchr(dir, '/');

		if (!slash || dir[1] == '\0') {
			free(dir);
			return err_set(ERR_NOTFOUND,
				       "not a Veles project (no .veles/ nor git work tree here or "
				       "in any parent); run `veles init` first");
		}
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	ctx->root = dir;
	ctx->implicit = found == 1;
	ctx->veles_dir = xasprintf("%s/.veles", strcmp(dir, "/") ? dir : "");
	ctx->jobs_dir = xasprintf("%s/jobs", ctx->veles_dir);
	ctx->logs_dir = xasprintf("%s/logs", ctx->veles_dir);
	return 0;
}

int cli_local_state(struct cli_ctx *ctx)
{
	int ret = 0;

	if (!ctx->implicit)
		return 0;
	if (!path_is_dir(ctx->veles_dir)) {
		ret = ctx->vcs ? 0 : cli_open_vcs(ctx);
		if (ret == 0)
			ret = project_local_init(ctx->root, ctx->vcs, NULL, NULL);
	}
	if (ret == 0)
		ctx->implicit = false;
	return ret;
}

int cli_open_project(struct cli_ctx *ctx)
{
	int ret = ctx->root ? 0 : cli_find_root(ctx);

	if (ret == 0)
		ret = cli_open_vcs(ctx);
	if (ret == 0 && !ctx->read_only)
		ret = cli_local_state(ctx);
	return ret;
}

int cli_open_vcs(struct cli_ctx *ctx)
{
	int ret;

	if (ctx->store)
		return 0;
	ret = vcs_open(ctx->root, false, &ctx->vcs);
	if (ret < 0)
		return ret;
	return store_open(ctx->vcs, &ctx->store);
}

void cli_ctx_release(struct cli_ctx *ctx)
{
	store_close(ctx->store);
	vcs_close(ctx->vcs);
	free(ctx->root);
	free(ctx->veles_dir);
	free(ctx->jobs_dir);
	free(ctx->logs_dir);
	memset(ctx, 0, sizeof(*ctx));
}

int cli_parse_format(const char *cmd, const char *value, enum out_format *out)
{
	if (strcmp(value, "text") == 0)
		*out = FORMAT_TEXT;
	else if (strcmp(value, "json") == 0)
		*out = FORMAT_JSON;
	else
		return cli_usage_error(cmd, "unknown format '%s': use text or json", value), -1;
	return 0;
}

int cli_parse_uint(const char *cmd, const char *opt, const char *value, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-')
		return cli_usage_error(cmd, "%s wants a non-negative integer, not '%s'", opt,
				       value),
		       -1;
	return 0;
}

int cli_resolve_version(struct cli_ctx *ctx, const char *rev, char id[41])
{
	int ret = rev ? vcs_resolve(ctx->vcs, rev, id) : vcs_head(ctx->vcs, id);

	if (ret < 0) {
		cli_fail();
		return -1;
	}
	return 0;
}

bool cli_head(struct cli_ctx *ctx, char id[41])
{
	return vcs_head(ctx->vcs, id) == 0;
}
