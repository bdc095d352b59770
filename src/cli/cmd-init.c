/* veles init: create .veles/ (idempotent) and the version context. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"
#include "project/project_local.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "vcs/vcs.h"

static const char init_about[] =
	"Creates .veles/ in DIR (default: the current directory): jobs/ for pending\n"
	"profiles, logs/, and a commented config.yml. In a git work tree profiles\n"
	"are kept in the project's own object database under refs/veles/; in any\n"
	"other directory in .veles/store.git, with versions made by `veles commit`.\n"
	"Running it again is safe: it adds only what is missing.";

static int opt_template(void *ctx, const struct opt *opt, const char *arg)
{
	UNUSED(opt);
	if (!config_template_known(arg))
		return err_set(ERR_INVALID,
			       "init: no configuration template '%s' (master, developer, user)",
			       arg);
	*(const char **)ctx = arg;
	return 0;
}

int cmd_init(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *tmpl = NULL;
	bool quiet = false, fresh, kept;
	struct opt opts[] = {
		OPT_CALLBACK('t', "config-template", "T", opt_template,
			     "config.yml as template T makes it: master (the\n"
			     "default: everything commented out), developer or\n"
			     "user (see `veles config reset`)"),
		OPT_BOOL('q', "quiet", &quiet, "print nothing on success"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {"init", "veles init [-q] [-t TEMPLATE] [DIR]", init_about, opts, &tmpl,
			     0};
	char root[PATH_MAX];
	struct vcs *v = NULL;
	char *text;
	int n, ret;

	UNUSED(ctx);
	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret < 0 ? 0 : ret;
	if (n > 1)
		return cli_usage_error("init", "takes at most one directory");
	if (n == 1) {
		if (mkdir_p(argv[1]) < 0)
			return cli_fail();
		if (chdir(argv[1]) < 0)
			return cli_error("cannot enter %s: %s", argv[1], strerror(errno));
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
