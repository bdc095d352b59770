/* veles init: create .veles/ (idempotent) and the version context. */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"
#include "util/buf.h"
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

/* Keeps git from listing .veles/ as untracked, without touching files the
 * user commits (.gitignore): a line in .git/info/exclude. */
static void exclude_from_git(struct vcs *v, const char *root)
{
	git_repository *repo = vcs_store_repo(v);
	const char *workdir = git_repository_workdir(repo);
	const char *rel = "";
	char *exclude, *line;
	struct buf text = BUF_INIT;
	size_t wlen;

	if (!workdir)
		return;
	wlen = strlen(workdir);
	if (strncmp(root, workdir, wlen - 1) == 0 && strlen(root) >= wlen)
		rel = root + wlen;
	exclude = xasprintf("%sinfo/exclude", git_repository_path(repo));
	line = xasprintf("/%s%s.veles/\n", rel, *rel ? "/" : "");
	if (file_read_all(exclude, &text) == ERR_NOTFOUND || !strstr(buf_str(&text), line)) {
		if (text.len && text.data[text.len - 1] != '\n')
			buf_addc(&text, '\n');
		buf_adds(&text, line);
		char *dir = xasprintf("%sinfo", git_repository_path(repo));

		if (mkdir_p(dir) == 0)
			file_write_atomic(exclude, text.data, text.len);
		free(dir);
	}
	buf_release(&text);
	free(line);
	free(exclude);
}

static int init_dirs(const char *root, const char *tmpl, bool *fresh, bool *kept)
{
	char *veles = xasprintf("%s/.veles", root);
	char *sub[] = {xasprintf("%s/jobs", veles), xasprintf("%s/logs", veles)};
	char *config = xasprintf("%s/config.yml", veles);
	int ret = 0;
	size_t i;

	*fresh = !path_exists(veles);
	*kept = path_exists(config);
	for (i = 0; i < ARRAY_SIZE(sub) && ret == 0; i++)
		ret = mkdir_p(sub[i]);
	if (ret == 0 && !*kept) {
		char *text = config_template_text(tmpl, root);

		ret = file_write_atomic(config, text, strlen(text));
		free(text);
	}
	for (i = 0; i < ARRAY_SIZE(sub); i++)
		free(sub[i]);
	free(config);
	free(veles);
	return ret;
}

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
	int c;

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
	if (init_dirs(root, tmpl ? tmpl : "master", &fresh, &kept) < 0 ||
	    vcs_open(root, true, &v) < 0)
		return cli_fail();
	if (tmpl && kept)
		cli_warn(".veles/config.yml exists and is kept: `veles config reset %s` "
			 "replaces it",
			 tmpl);
	if (vcs_kind(v) == VCS_GIT)
		exclude_from_git(v, root);
	if (!quiet)
		printf("%s Veles project in %s/.veles/ (%s)\n",
		       fresh ? "Initialized empty" : "Reinitialized existing", root,
		       vcs_kind(v) == VCS_GIT ? "profiles in this git repository under refs/veles/"
					      : "plain directory, profiles in .veles/store.git");
	vcs_close(v);
	return 0;
}
