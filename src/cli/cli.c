/* What every command shares: error lines, finding the project, options. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/select.h"
#include "project/project_local.h"
#include "run/batch.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"
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

int cli_parse_options(const struct optparse *p, int argc, char **argv, int *nop)
{
	int ret = opt_parse(p, argc, argv, nop);

	if (ret == OPT_HELP) {
		struct buf b = BUF_INIT;

		opt_help(p, &b);
		fputs(buf_str(&b), stdout);
		buf_release(&b);
		return -1;
	}
	if (ret < 0) {
		fflush(stdout);
		fprintf(stderr, "veles %s (see `veles %s --help`)\n", err_msg(), p->name);
		return 2;
	}
	return 0;
}

char **cli_argv_dup(char **argv, int n)
{
	char **v = xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*v));

	if (n > 0)
		memcpy(v, argv, (size_t)n * sizeof(*v));
	return v;
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

void cli_collect_message(void *arg, enum collect_msg kind, const char *text)
{
	UNUSED(arg);
	if (kind == COLLECT_MSG_OUT) {
		fputs(text, stdout);
		return;
	}
	if (kind == COLLECT_MSG_WARN) {
		cli_warn("%s", text);
		return;
	}
	fflush(stdout);
	if (kind == COLLECT_MSG_PROGRESS)
		fprintf(stderr, "\r%s\033[K", text);
	else
		fprintf(stderr, "%s\n", text);
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

/* ctx->root and ctx->project.root must be one field (cli.h). */
_Static_assert(offsetof(struct cli_ctx, store) == offsetof(struct cli_ctx, project.store) &&
		       offsetof(struct cli_ctx, root) == offsetof(struct cli_ctx, project.root),
	       "struct cli_ctx's project fields do not match struct project");

/* The project context's warnings, on stderr. */
static void project_warning(const char *msg, void *data)
{
	(void)data;
	cli_warn("%s", msg);
}

int cli_find_root(struct cli_ctx *ctx)
{
	int ret;

	/* Found already (and maybe opened): finding it again would drop that. */
	if (ctx->project.root)
		return 0;
	ret = project_find(NULL, &ctx->project);
	ctx->project.warn = project_warning;
	ctx->implicit = ctx->project.implicit;
	return ret;
}

int pending_list(const struct cli_ctx *ctx, char ***names, size_t *n)
{
	static bool swept; /* once a process: a sweep finds nothing new after */

	if (!swept)
		run_batch_sweep(ctx->jobs_dir, NULL);
	swept = true;
	return project_pending_list(&ctx->project, names, n);
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
	return project_open_store(&ctx->project);
}

void cli_ctx_release(struct cli_ctx *ctx)
{
	project_release(&ctx->project);
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
