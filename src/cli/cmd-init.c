/* veles init: create .veles/ (idempotent) and the version context. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"
#include "project/project_local.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static const char init_usage[] =
	"usage: veles init [-q] [-t TEMPLATE] [DIR]\n"
	"\n"
	"Creates .veles/ in DIR (default: the current directory): jobs/ for pending\n"
	"profiles, logs/, and a commented config.yml. In a git work tree profiles\n"
	"are kept in the project's own object database under refs/veles/; in any\n"
	"other directory in .veles/store.git, with versions made by `veles commit`.\n"
	"Running it again is safe: it adds only what is missing.\n"
	"\n"
	"  -t, --config-template T  config.yml as template T makes it: master (the\n"
	"                           default: everything commented out), developer or\n"
	"                           user (see `veles config reset`)\n"
	"  -q, --quiet              print nothing on success\n";

int cmd_init(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{"quiet", no_argument, NULL, 'q'},
		{"config-template", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char root[PATH_MAX];
	struct vcs *v = NULL;
	const char *tmpl = NULL;
	bool quiet = false, fresh, kept;
	char *text;
	int c, ret;

	UNUSED(ctx);
	while ((c = getopt_long(argc, argv, "qt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 't':
			tmpl = optarg;
			if (!config_template_known(tmpl))
				return cli_usage_error("init",
						       "no configuration template '%s' (master, "
						       "developer, user)",
						       tmpl);
			break;
		case 'h':
			fputs(init_usage, stdout);
			return 0;
		default:
			return cli_bad_option("init", argv);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("init", "takes at most one directory");
	if (optind < argc) {
		if (mkdir_p(argv[optind]) < 0)
			return cli_fail();
		if (chdir(argv[optind]) < 0)
			return cli_error("cannot enter %s: %s", argv[optind], strerror(errno));
	}
	if (!getcwd(root, sizeof(root)))
		return cli_error("cannot get the current directory: %s", strerror(errno));
	kept = path_exists(".veles/config.yml");
	text = config_template_text(tmpl ? tmpl : "master", root);
	ret = project_local_init(root, NULL, text, &fresh);
	free(text);
	if (ret < 0 || vcs_open(root, true, &v) < 0)
		return cli_fail();
	if (tmpl && kept)
		cli_warn(".veles/config.yml exists and is kept: `veles config reset %s` "
			 "replaces it",
			 tmpl);
	project_local_exclude(v, root);
	if (!quiet)
		printf("%s Veles project in %s/.veles/ (%s)\n",
		       fresh ? "Initialized empty" : "Reinitialized existing", root,
		       vcs_kind(v) == VCS_GIT ? "profiles in this git repository under refs/veles/"
					      : "plain directory, profiles in .veles/store.git");
	vcs_close(v);
	return 0;
}
