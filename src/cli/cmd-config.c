/* veles config: read and write .veles/config.yml and the user's config. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"
#include "project/config_edit.h"
#include "project/project_config.h"
#include "project/settings.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/optparse.h"

static const char config_about[] =
	"Keys are dotted paths into the YAML file (collect.warn_dirty). `get` and\n"
	"`list` look in the project's .veles/config.yml first, then in the tracked\n"
	"file (veles.yml at the project's root, or matrix.file), then in the\n"
	"user's ~/.config/veles/config.yml; `set` and `edit` change the project's\n"
	".veles/config.yml unless --tracked or --user is given. `set` keeps the\n"
	"file's comments.\n"
	"The items of a list are numbered: workloads.0, collectors.1.name; setting\n"
	"item N of an N-item list appends one. `get` of a section or a list prints\n"
	"every value below it as KEY=VALUE.\n"
	"`reset` rewrites the file as TEMPLATE makes it (the old one is kept as\n"
	"config.yml.old): master (the default: everything commented out),\n"
	"developer (make before each collection; check collects what a baseline\n"
	"lacks) or user (developer, with the programs in build/, _build/ or dist/\n"
	"timed on the files in workload/, examples/, payload/ ...); docs/config.md.";

enum scope { SCOPE_ANY, SCOPE_LOCAL, SCOPE_USER, SCOPE_TRACKED };

static int get_or_list(const char *const *paths, size_t n, const char *key)
{
	struct buf out = BUF_INIT;
	int ret = project_config_lookup(paths, n, key, &out);

	fwrite(buf_str(&out), 1, out.len, stdout);
	buf_release(&out);
	return ret < 0 ? cli_fail() : 0;
}

static int edit_file(const char *path)
{
	const char *editor = getenv("VISUAL");
	char *cmd;
	int status;
	pid_t pid;

	if (!editor || !*editor)
		editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = "vi";
	if (project_config_ensure(path) < 0)
		return cli_fail();
	/* Through the shell, so EDITOR may carry arguments ("code -w"). */
	cmd = xasprintf("%s \"$1\"", editor);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	free(cmd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return cli_error("cannot run the editor: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cli_error("the editor (%s) failed; %s is as the editor left it", editor,
				 path);
	return project_config_check_file(path) < 0 ? cli_fail() : 0;
}

/* Perun's `config reset`: the file as a template makes it, the old one kept
 * beside it. The user template searches the project (or, for the user's
 * own file, the current directory) for programs and workloads. */
static int reset_file(struct cli_ctx *ctx, const char *path, const char *tmpl, bool user)
{
	bool kept;

	if (!config_template_known(tmpl))
		return cli_usage_error("config",
				       "reset: no configuration template '%s' (master, "
				       "developer, user)",
				       tmpl);
	if (project_config_reset(path, tmpl, user || !ctx->root ? "." : ctx->root, &kept) < 0)
		return cli_fail();
	if (kept)
		printf("%s reset to the %s template (the old file is %s.old)\n", path, tmpl,
		       strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	else
		printf("%s reset to the %s template\n", path, tmpl);
	return 0;
}

/* The files @scope reads (@all) or writes; -1 when the scope needs a
 * project and there is none, said on stderr. */
static int scope_paths(struct cli_ctx *ctx, enum scope scope, bool all,
		       const struct project_config_files *f, const char **paths, size_t *n)
{
	*n = 0;
	if (scope == SCOPE_USER || (scope == SCOPE_ANY && all && !ctx->root)) {
		paths[(*n)++] = project_config_path(f, PCONF_USER);
		return 0;
	}
	if (!ctx->root)
		return cli_fail(), -1;
	if (scope == SCOPE_TRACKED) {
		if (!f->tracked)
			return cli_error("no tracked file: matrix.file is empty in %s",
					 f->matrix_file_from),
			       -1;
		paths[(*n)++] = f->tracked;
	} else if (scope == SCOPE_ANY && all) {
		for (size_t i = 0; i < f->n; i++)
			paths[(*n)++] = f->path[i];
	} else {
		/* Writing .veles/config.yml of a fresh clone makes .veles/. */
		if (!all && cli_local_state(ctx) < 0)
			return cli_fail(), -1;
		paths[(*n)++] = project_config_path(f, PCONF_LOCAL);
	}
	return 0;
}

static int config_verb(struct cli_ctx *ctx, enum scope scope, const char *verb, int nargs,
		       char **args)
{
	bool reads = strcmp(verb, "get") == 0 || strcmp(verb, "list") == 0;
	bool known = (strcmp(verb, "get") == 0 && nargs == 1) ||
		     (strcmp(verb, "list") == 0 && nargs == 0) ||
		     (strcmp(verb, "set") == 0 && nargs == 2) ||
		     (strcmp(verb, "edit") == 0 && nargs == 0) ||
		     (strcmp(verb, "reset") == 0 && nargs <= 1);
	struct project_config_files f;
	struct config *cfgs[PROJECT_CONFIG_MAX] = {NULL};
	const char *paths[PROJECT_CONFIG_MAX];
	size_t n;
	int ret = 0;

	if (!known)
		return cli_usage_error("config", "'%s' with %d argument%s is not a config command",
				       verb, nargs, nargs == 1 ? "" : "s");
	/* Outside a project, reading needs only the user's file. */
	if (scope != SCOPE_USER && !ctx->root && cli_find_root(ctx) < 0 &&
	    (scope != SCOPE_ANY || !reads))
		return cli_fail();
	err_clear();
	project_config_files(ctx->root, &f);
	if (scope_paths(ctx, scope, reads, &f, paths, &n) < 0) {
		project_config_files_release(&f);
		return 1;
	}
	/* What every command checks of the files together (matrix.file). */
	if (scope == SCOPE_ANY && reads && project_config_load(&f, cfgs) < 0)
		ret = cli_fail();
	project_config_unload(cfgs);
	if (ret == 0 && reads)
		ret = get_or_list(paths, n, nargs ? args[0] : NULL);
	else if (ret == 0 && strcmp(verb, "set") == 0)
		ret = project_config_set_key(paths[0], args[0], args[1]) < 0 ? cli_fail() : 0;
	else if (ret == 0 && strcmp(verb, "edit") == 0)
		ret = edit_file(paths[0]);
	else if (ret == 0)
		ret = reset_file(ctx, paths[0], nargs ? args[0] : "master", scope == SCOPE_USER);
	project_config_files_release(&f);
	return ret;
}

/* --local, --tracked, --user: the last one given wins. */
static int set_scope(void *ctx, const struct opt *o, const char *arg)
{
	enum scope *scope = ctx;

	UNUSED(arg);
	*scope = o->long_name[0] == 'l'	  ? SCOPE_LOCAL
		 : o->long_name[0] == 't' ? SCOPE_TRACKED
					  : SCOPE_USER;
	return 0;
}

int cmd_config(struct cli_ctx *ctx, int argc, char **argv)
{
	enum scope scope = SCOPE_ANY;
	const struct opt opts[] = {
		OPT_FLAG_CALLBACK(0, "local", set_scope,
				  "only the project's file (.veles/config.yml)"),
		OPT_FLAG_CALLBACK(0, "tracked", set_scope,
				  "only the tracked file, committed with the code (veles.yml)"),
		OPT_FLAG_CALLBACK(0, "user", set_scope,
				  "only the user's file ($XDG_CONFIG_HOME/veles/config.yml)"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "config",
		.usage = "veles config [--local | --tracked | --user] get KEY\n"
			 "veles config [--local | --tracked | --user] set KEY VALUE\n"
			 "veles config [--local | --tracked | --user] list\n"
			 "veles config [--local | --tracked | --user] edit\n"
			 "veles config [--local | --tracked | --user] reset [TEMPLATE]",
		.about = config_about,
		.opts = opts,
		.ctx = &scope,
		.flags = OPTP_STOP_AT_OPERAND,
	};
	int nop, ret = cli_parse_options(&p, argc, argv, &nop);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (nop == 0)
		return cli_usage_error("config", "say get, set, list, edit or reset");
	return config_verb(ctx, scope, argv[1], nop - 1, argv + 2);
}
