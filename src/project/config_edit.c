/* `veles config`'s reading and writing (config_edit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "project/config_edit.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"

struct lookup {
	struct buf *out;
	struct buf seen; /* "\nKEY\n..." of the keys listed */
	const char *key;
	size_t len;
};

/* list shows each key once, nearest file first. */
static void list_item(const char *key, const char *value, void *arg)
{
	struct lookup *l = arg;
	char *marker = xasprintf("\n%s\n", key);

	if (!strstr(buf_str(&l->seen), marker)) {
		buf_addf(l->out, "%s=%s\n", key, value);
		buf_adds(&l->seen, marker + 1);
		buf_addc(&l->seen, '\n');
	}
	free(marker);
}

/* `get` of a section or list: every value below it, as `list` gives it. */
static void below_item(const char *key, const char *value, void *arg)
{
	struct lookup *l = arg;

	if (strncmp(key, l->key, l->len) == 0 && key[l->len] == '.')
		buf_addf(l->out, "%s=%s\n", key, value);
}

int project_config_lookup(const char *const *paths, size_t n, const char *key, struct buf *out)
{
	struct lookup l = {out, BUF_INIT, key, key ? strlen(key) : 0};
	bool found = false;
	int ret = 0;

	buf_addc(&l.seen, '\n');
	for (size_t i = 0; i < n && ret == 0; i++) {
		struct config *c = NULL;

		if (!paths[i])
			continue;
		ret = config_load(paths[i], &c);
		if (ret == 0)
			ret = config_validate(c);
		if (ret == 0 && key && !found && config_get(c, key)) {
			buf_addf(out, "%s\n", config_get(c, key));
			found = true;
		} else if (ret == 0 && key && !found && config_has(c, key)) {
			config_each(c, below_item, &l);
			found = true;
		} else if (ret == 0 && !key) {
			config_each(c, list_item, &l);
		}
		config_free(c);
	}
	buf_release(&l.seen);
	if (ret == 0 && key && !found)
		ret = err_set(ERR_NOTFOUND, "%s is not set", key);
	return ret;
}

/* Refuses a key that no part of Veles reads: a typo would otherwise be
 * silently ignored. */
int project_config_set_key(const char *path, const char *key, const char *value)
{
	if (!config_key_known(key))
		return err_set(ERR_INVALID, "unknown key '%s' (docs/config.md lists the keys)",
			       key);
	return config_set_file(path, key, value);
}

/* The directory part of @path, made. */
static int make_dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int ret = 0;

	if (slash) {
		*slash = '\0';
		ret = mkdir_p(dir);
	}
	free(dir);
	return ret;
}

int project_config_ensure(const char *path)
{
	int ret;

	if (path_exists(path))
		return 0;
	ret = make_dir_of(path);
	return ret < 0 ? ret : file_write_atomic(path, config_template, strlen(config_template));
}

int project_config_check_file(const char *path)
{
	struct config *c;
	int ret = config_load(path, &c);

	if (ret == 0)
		ret = config_validate(c);
	config_free(c);
	return ret;
}

int project_config_reset(const char *path, const char *tmpl, const char *search_dir, bool *kept_old)
{
	char *text, *old;
	int ret = 0;

	*kept_old = false;
	if (!config_template_known(tmpl))
		return err_set(ERR_INVALID,
			       "reset: no configuration template '%s' (master, developer, user)",
			       tmpl);
	text = config_template_text(tmpl, search_dir);
	old = xasprintf("%s.old", path);
	if (path_exists(path) && rename(path, old) < 0)
		ret = err_set(ERR_IO, "cannot keep %s as %s: %s", path, old, strerror(errno));
	if (ret == 0)
		ret = make_dir_of(path);
	if (ret == 0)
		ret = file_write_atomic(path, text, strlen(text));
	if (ret == 0)
		*kept_old = path_exists(old);
	free(old);
	free(text);
	return ret;
}
