/* veles push / veles pull: share the refs under refs/veles/ through a git remote. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"

static const char push_usage[] =
	"usage: veles push [-q] [REMOTE]\n"
	"\n"
	"Sends the profiles (refs/veles/*) to REMOTE: a remote of the project's\n"
	"git repository (default: origin), or a path or URL. Your branches are\n"
	"not touched. If the remote has profiles you do not, run `veles pull`\n"
	"first.\n"
	"\n"
	"  -q, --quiet   print nothing on success\n";

static const char pull_usage[] =
	"usage: veles pull [-q] [REMOTE]\n"
	"\n"
	"Fetches the profiles (refs/veles/*) from REMOTE (default: origin) and\n"
	"merges them with yours: profiles added on either side are kept, and a\n"
	"profile removed on one side stays removed.\n"
	"\n"
	"  -q, --quiet   print nothing on success\n";

static int sync_main(struct cli_ctx *ctx, int argc, char **argv, bool push)
{
	static const struct option opts[] = {
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = push ? "push" : "pull";
	struct buf summary = BUF_INIT;
	bool quiet = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(push ? push_usage : pull_usage, stdout);
			return 0;
		default:
			return cli_bad_option(cmd, argv);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(cmd, "takes at most one remote");
	const char *remote = optind < argc ? argv[optind] : "origin";

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
