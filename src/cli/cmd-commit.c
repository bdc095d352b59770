/* veles commit: a new version of a plain (non-git) project. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/common.h"
#include "vcs/vcs.h"

static const char commit_usage[] =
	"usage: veles commit -m MESSAGE\n"
	"\n"
	"Records a new version of a project that is not a git work tree, so that\n"
	"the profiles collected from now on are filed under it (v1, v2, ...).\n"
	"In a git project, versions are git commits: use `git commit`.\n"
	"\n"
	"  -m, --message MSG   what changed in this version\n";

int cmd_commit(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{"message", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *msg = NULL;
	struct vcs_version info;
	char id[41];
	int c;

	while ((c = getopt_long(argc, argv, "m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			msg = optarg;
			break;
		case 'h':
			fputs(commit_usage, stdout);
			return 0;
		default:
			return cli_bad_option("commit", argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("commit", "unexpected argument '%s'", argv[optind]);
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
