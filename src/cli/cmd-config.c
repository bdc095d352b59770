/* veles config: read and write .veles/config.yml and the user's config. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static const char config_usage[] =
	"usage: veles config [--local | --user] get KEY\n"
	"       veles config [--local | --user] set KEY VALUE\n"
	"       veles config [--local | --user] list\n"
	"       veles config [--local | --user] edit\n"
	"       veles config [--local | --user] reset [TEMPLATE]\n"
	"\n"
	"Keys are dotted paths into the YAML file (collect.warn_dirty). `get` and\n"
	"`list` look in the project's .veles/config.yml first and then in the\n"
	"user's ~/.config/veles/config.yml; `set` and `edit` change the project's\n"
	"file unless --user is given. `set` keeps the file's comments.\n"
	"The items of a list are numbered: workloads.0, collectors.1.name; setting\n"
	"item N of an N-item list appends one. `get` of a section or a list prints\n"
	"every value below it as KEY=VALUE.\n"
	"`reset` rewrites the file as TEMPLATE makes it (the old one is kept as\n"
	"config.yml.old): master (the default: everything commented out),\n"
	"developer (make before each collection; check collects what a baseline\n"
	"lacks) or user (developer, with the programs in build/, _build/ or dist/\n"
	"timed on the files in workload/, examples/, payload/ ...); docs/config.md.\n"
	"\n"
	"  --local   only the project's file\n"
	"  --user    only the user's file ($XDG_CONFIG_HOME/veles/config.yml)\n";

enum scope { SCOPE_ANY, SCOPE_LOCAL, SCOPE_USER };

static char *local_path(struct cli_ctx *ctx)
{
	if (!ctx->veles_dir && cli_find_root(ctx) < 0)
		return NULL;
	return xasprintf("%s/config.yml", ctx->veles_dir);
}

/* The nearest configuration file that sets @key (caller frees), or NULL. */
static struct config *nearest_with(const struct cli_ctx *ctx, const char *key)
{
	char *paths[2] = {ctx->veles_dir ? xasprintf("%s/config.yml", ctx->veles_dir) : NULL,
			  config_user_path()};
	struct config *found = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct config *c;

		if (!found && paths[i] && config_load(paths[i], &c) == 0) {
			if (config_get(c, key))
				found = c;
			else
				config_free(c);
		}
		free(paths[i]);
	}
	return found;
}

int cli_config_validate(const struct cli_ctx *ctx)
{
	char *paths[2] = {ctx->veles_dir ? xasprintf("%s/config.yml", ctx->veles_dir) : NULL,
			  config_user_path()};
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct config *c = NULL;

		if (ret == 0 && paths[i]) {
			ret = config_load(paths[i], &c);
			if (ret == 0)
				ret = config_validate(c);
			config_free(c);
		}
		free(paths[i]);
	}
	return ret;
}

int cli_matrix_load(const struct cli_ctx *ctx, struct run_matrix **m)
{
	char *paths[2] = {xasprintf("%s/config.yml", ctx->veles_dir), config_user_path()};
	struct config *cfgs[2] = {NULL, NULL};
	int ret = 0;

	/* Both files, nearest first; a missing file is empty. */
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		if (ret == 0)
			ret = config_load(paths[i], &cfgs[i]);
		free(paths[i]);
	}
	if (ret == 0)
		ret = run_matrix_load(cfgs, 2, m);
	config_free(cfgs[0]);
	config_free(cfgs[1]);
	return ret;
}

char *cli_config_string(const struct cli_ctx *ctx, const char *key)
{
	struct config *c = nearest_with(ctx, key);
	char *value = c ? xstrdup(config_get(c, key)) : NULL;

	if (c)
		config_free(c);
	return value;
}

static void strv_push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

char **cli_config_list(const struct cli_ctx *ctx, const char *key, size_t *n)
{
	char **v = xcalloc(1, sizeof(*v));
	char *item = cli_config_string(ctx, key);

	*n = 0;
	/* A scalar is a list of one; a list's items are KEY.0, KEY.1, ... */
	if (item) {
		strv_push(&v, n, item);
		return v;
	}
	for (;;) {
		char *k = xasprintf("%s.%zu", key, *n);

		item = cli_config_string(ctx, k);
		free(k);
		if (!item)
			return v;
		strv_push(&v, n, item);
	}
}

bool cli_config_bool(const struct cli_ctx *ctx, const char *key, bool def)
{
	struct config *c = nearest_with(ctx, key);
	bool value = c ? config_bool(c, key, def) : def;

	if (c)
		config_free(c);
	return value;
}

static void print_item(const char *key, const char *value, void *arg)
{
	struct buf *seen = arg;
	char *marker = xasprintf("\n%s\n", key);

	/* list shows each key once, nearest file first. */
	if (!strstr(buf_str(seen), marker)) {
		printf("%s=%s\n", key, value);
		buf_adds(seen, marker + 1);
		buf_addc(seen, '\n');
	}
	free(marker);
}

struct below {
	const char *key;
	size_t len;
};

/* `get` of a section or list: every value below it, as `list` prints. */
static void print_below(const char *key, const char *value, void *arg)
{
	const struct below *b = arg;

	if (strncmp(key, b->key, b->len) == 0 && key[b->len] == '.')
		printf("%s=%s\n", key, value);
}

static int get_or_list(char **paths, size_t n, const char *key)
{
	struct buf seen = BUF_INIT;
	size_t i;
	int ret = key ? 1 : 0;

	buf_addc(&seen, '\n');
	for (i = 0; i < n; i++) {
		struct config *c = NULL;

		if (!paths[i])
			continue;
		if (config_load(paths[i], &c) < 0 || config_validate(c) < 0) {
			config_free(c);
			buf_release(&seen);
			return cli_fail();
		}
		if (key && ret && config_get(c, key)) {
			printf("%s\n", config_get(c, key));
			ret = 0;
		} else if (key && ret && config_has(c, key)) {
			struct below b = {key, strlen(key)};

			config_each(c, print_below, &b);
			ret = 0;
		} else if (!key) {
			config_each(c, print_item, &seen);
		}
		config_free(c);
	}
	buf_release(&seen);
	if (ret)
		cli_error("%s is not set", key);
	return ret;
}

static int edit_file(const char *path)
{
	const char *editor = getenv("VISUAL");
	char *cmd;
	int status, ret;

	if (!editor || !*editor)
		editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = "vi";
	if (!path_exists(path)) {
		char *dir = xstrdup(path);

		*strrchr(dir, '/') = '\0';
		if (mkdir_p(dir) < 0 ||
		    file_write_atomic(path, config_template, strlen(config_template)) < 0) {
			free(dir);
			return cli_fail();
		}
		free(dir);
	}
	/* Through the shell, so EDITOR may carry arguments ("code -w"). */
	cmd = xasprintf("%s \"$1\"", editor);
	pid_t pid = fork();

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
	struct config *c;

	if (config_load(path, &c) < 0)
		return cli_fail();
	ret = config_validate(c) < 0 ? cli_fail() : 0;
	config_free(c);
	return ret;
}

/* Perun's `config reset`: the file as a template makes it, the old one kept
 * beside it. The user template searches the project (or, for the user's
 * own file, the current directory) for programs and workloads. */
static int reset_file(struct cli_ctx *ctx, const char *path, const char *tmpl, bool user)
{
	char *dir, *text, *old;
	int ret = 0;

	if (!config_template_known(tmpl))
		return cli_usage_error("config",
				       "reset: no configuration template '%s' (master, "
				       "developer, user)",
				       tmpl);
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	text = config_template_text(tmpl, user || !ctx->root ? "." : ctx->root);
	old = xasprintf("%s.old", path);
	if (path_exists(path) && rename(path, old) < 0)
		ret = cli_error("cannot keep %s as %s: %s", path, old, strerror(errno));
	if (ret == 0 && (mkdir_p(dir) < 0 || file_write_atomic(path, text, strlen(text)) < 0))
		ret = cli_fail();
	if (ret == 0)
		printf("%s reset to the %s template%s\n", path, tmpl,
		       path_exists(old) ? " (the old file is config.yml.old)" : "");
	free(old);
	free(text);
	free(dir);
	return ret;
}

/* Refuses a key that no part of Veles reads: a typo would otherwise be
 * silently ignored. */
static int set_key(const char *path, const char *key, const char *value)
{
	if (!config_key_known(key))
		return cli_error("unknown key '%s' (docs/config.md lists the keys)", key);
	return config_set_file(path, key, value) < 0 ? cli_fail() : 0;
}

int cmd_config(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{"local", no_argument, NULL, 'l'},
		{"user", no_argument, NULL, 'u'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum scope scope = SCOPE_ANY;
	char *paths[2] = {NULL, NULL};
	const char *verb;
	int c, nargs, ret;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			scope = SCOPE_LOCAL;
			break;
		case 'u':
			scope = SCOPE_USER;
			break;
		case 'h':
			fputs(config_usage, stdout);
			return 0;
		default:
			return cli_bad_option("config", argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("config", "say get, set, list, edit or reset");
	verb = argv[optind];
	nargs = argc - optind - 1;
	if (scope != SCOPE_USER) {
		paths[0] = local_path(ctx);
		if (!paths[0] && (scope == SCOPE_LOCAL || strcmp(verb, "set") == 0 ||
				  strcmp(verb, "edit") == 0 || strcmp(verb, "reset") == 0))
			return cli_fail();
	}
	if (scope != SCOPE_LOCAL)
		paths[1] = config_user_path();

	if (strcmp(verb, "get") == 0 && nargs == 1)
		ret = get_or_list(paths, 2, argv[optind + 1]);
	else if (strcmp(verb, "list") == 0 && nargs == 0)
		ret = get_or_list(paths, 2, NULL);
	else if (strcmp(verb, "set") == 0 && nargs == 2)
		ret = set_key(paths[0] ? paths[0] : paths[1], argv[optind + 1], argv[optind + 2]);
	else if (strcmp(verb, "edit") == 0 && nargs == 0)
		ret = edit_file(paths[0] ? paths[0] : paths[1]);
	else if (strcmp(verb, "reset") == 0 && nargs <= 1)
		ret = reset_file(ctx, paths[0] ? paths[0] : paths[1],
				 nargs ? argv[optind + 1] : "master", !paths[0]);
	else
		ret = cli_usage_error("config", "'%s' with %d argument%s is not a config command",
				      verb, nargs, nargs == 1 ? "" : "s");
	free(paths[0]);
	free(paths[1]);
	return ret;
}
