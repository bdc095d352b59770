/* veles push / veles pull: share the refs under refs/veles/ through a git remote. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"

static const char push_about[] =
	"Sends the profiles (refs/veles/*) to REMOTE: a remote of the project's\n"
	"git repository (default: origin), or a path or URL. Your branches are\n"
	"not touched. If the remote has profiles you do not, run `veles pull`\n"
	"first.";

static const char pull_about[] =
	"Fetches the profiles (refs/veles/*) from REMOTE (default: origin) and\n"
	"merges them with yours: profiles added on either side are kept, and a\n"
	"profile removed on one side stays removed.";

static int sync_main(struct cli_ctx *ctx, int argc, char **argv, bool push)
{
	const char *cmd = push ? "push" : "pull";
	struct buf summary = BUF_INIT;
	bool quiet = false;
	struct opt opts[] = {
		OPT_BOOL('q', "quiet", &quiet, "print nothing on success"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {cmd,
			     push ? "veles push [-q] [REMOTE]" : "veles pull [-q] [REMOTE]",
			     push ? push_about : pull_about,
			     opts,
			     NULL,
			     0};
	int n, ret;

	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret < 0 ? 0 : ret;
	if (n > 1)
		return cli_usage_error(cmd, "takes at most one remote");
	const char *remote = n ? argv[1] : "origin";

	ret = push ? store_push(ctx->store, remote, &summary)
		   : store_pull(ctx->store, remote, &summary);
	if (ret < 0) {
		buf_release(&summary);
		return cli_fail();
	}
	if (!quiet && summary.len)
		printf("%s\n", buf_str(&summary));
	buf_release(&summary);
	return 0;
}

int cmd_push(struct cli_ctx *ctx, int argc, char **argv)
{
	return sync_main(ctx, argc, argv, true);
}

int cmd_pull(struct cli_ctx *ctx, int argc, char **argv)
{
	return sync_main(ctx, argc, argv, false);
}
