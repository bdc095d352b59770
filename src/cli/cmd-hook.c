/* veles hook install|uninstall: a git post-commit hook that runs the job
 * matrix on every new commit, in the background, logging to .veles/logs/. */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "vcs/vcs.h"

static const char hook_about[] =
	"`install` writes the git post-commit hook: after each commit it starts\n"
	"`veles run matrix -m COMMIT` in the background (in a temporary worktree,\n"
	"so your working tree is never touched) and logs to\n"
	".veles/logs/hook-COMMIT.log. `uninstall` removes it.";

/* The line that tells our hook from the user's own. */
#define HOOK_MARK "# veles: run the job matrix on each commit"

static char *hook_path(struct cli_ctx *ctx)
{
	git_buf dir = {0};
	char *path = NULL;

	if (git_repository_item_path(&dir, vcs_store_repo(ctx->vcs), GIT_REPOSITORY_ITEM_HOOKS) ==
	    0)
		path = xasprintf("%s%spost-commit", dir.ptr,
				 dir.size && dir.ptr[dir.size - 1] == '/' ? "" : "/");
	git_buf_dispose(&dir);
	return path;
}

/* Single quotes for the shell. */
static void add_quoted(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	buf_addc(b, '\'');
}

static void hook_text(struct cli_ctx *ctx, struct buf *b)
{
	char *exe = self_exe_path();

	buf_adds(b, "#!/bin/sh\n" HOOK_MARK " (`veles hook install`).\n"
		    "# Remove with `veles hook uninstall`.\n"
		    "veles=");
	add_quoted(b, exe ? exe : "veles");
	free(exe);
	buf_adds(b, "\nroot=");
	add_quoted(b, ctx->root);
	/* git sets these for hooks; the run opens the repository itself. */
	buf_adds(b, "\nunset GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE GIT_PREFIX\n"
		    "rev=$(git rev-parse HEAD) || exit 0\n"
		    "cd \"$root\" || exit 0\n"
		    "mkdir -p .veles/logs\n"
		    "nohup \"$veles\" run matrix -m \"$rev\" >\".veles/logs/hook-$rev.log\" "
		    "2>&1 </dev/null &\n"
		    "exit 0\n");
}

static bool is_ours(const char *path)
{
	struct buf text = BUF_INIT;
	bool ours = file_read_all(path, &text) == 0 && strstr(buf_str(&text), HOOK_MARK);

	buf_release(&text);
	return ours;
}

static int hook_install(struct cli_ctx *ctx, const char *path, bool force)
{
	struct buf text = BUF_INIT;
	char *dir = xstrdup(path);
	int ret;

	if (path_exists(path) && !is_ours(path) && !force) {
		free(dir);
		return cli_error("%s exists and is not Veles's; use --force to replace it", path);
	}
	*strrchr(dir, '/') = '\0';
	hook_text(ctx, &text);
	ret = mkdir_p(dir);
	if (ret == 0)
		ret = file_write_atomic(path, text.data, text.len);
	if (ret == 0 && chmod(path, 0755) < 0)
		ret = err_set(ERR_IO, "cannot make %s executable: %s", path, strerror(errno));
	free(dir);
	buf_release(&text);
	if (ret < 0)
		return cli_fail();
	printf("Installed %s: each commit runs the job matrix\n", path);
	return 0;
}

static int hook_uninstall(const char *path)
{
	if (!path_exists(path))
		return cli_error("no post-commit hook to remove");
	if (!is_ours(path))
		return cli_error("%s is not Veles's; leaving it alone", path);
	if (unlink(path) < 0)
		return cli_error("cannot remove %s: %s", path, strerror(errno));
	printf("Removed %s\n", path);
	return 0;
}

int cmd_hook(struct cli_ctx *ctx, int argc, char **argv)
{
	bool force = false;
	struct opt opts[] = {
		OPT_BOOL('f', "force", &force,
			 "replace a post-commit hook that Veles did not write"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {
		"hook", "veles hook install [-f]\nveles hook uninstall", hook_about, opts, NULL, 0};
	char *path;
	int n, ret;

	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret < 0 ? 0 : ret;
	if (n != 1 || (strcmp(argv[1], "install") != 0 && strcmp(argv[1], "uninstall") != 0))
		return cli_usage_error("hook", "say install or uninstall");
	if (vcs_kind(ctx->vcs) != VCS_GIT)
		return cli_error("hooks need a git project (this one is plain)");
	path = hook_path(ctx);
	if (!path)
		return cli_error("cannot find the repository's hooks directory");
	ret = strcmp(argv[1], "install") == 0 ? hook_install(ctx, path, force)
					      : hook_uninstall(path);
	free(path);
	return ret;
}
