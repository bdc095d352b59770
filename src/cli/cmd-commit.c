/* veles commit: a new version of a plain (non-git) project. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/common.h"
#include "util/optparse.h"
#include "vcs/vcs.h"

static const char commit_about[] =
	"Records a new version of a project that is not a git work tree, so that\n"
	"the profiles collected from now on are filed under it (v1, v2, ...).\n"
	"In a git project, versions are git commits: use `git commit`.";

int cmd_commit(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *msg = NULL;
	struct opt opts[] = {
		OPT_STRING('m', "message", &msg, "MSG", "what changed in this version"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {"commit", "veles commit -m MESSAGE", commit_about, opts, NULL, 0};
	struct vcs_version info;
	char id[41];
	int n, ret;

	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret < 0 ? 0 : ret;
	if (n)
		return cli_usage_error("commit", "unexpected argument '%s'", argv[1]);
	if (!msg || !*msg)
		return cli_usage_error("commit", "a message is required (-m MSG)");
	if (vcs_kind(ctx->vcs) == VCS_GIT)
		return cli_error("this project is a git repository: its versions are git commits; "
				 "use `git commit`");
	if (vcs_new_version(ctx->vcs, msg, id) < 0 || vcs_version_info(ctx->vcs, id, &info) < 0)
		return cli_fail();
	printf("[v%u %.7s] %s\n", info.counter, id, info.summary);
	return 0;
}
