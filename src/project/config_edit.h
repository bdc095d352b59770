/*
 * `veles config` below the command line: values looked up in the
 * configuration files nearest first, a key set (known keys only, the
 * file's comments kept), and a file made or reset from a template.
 */
#ifndef PROJECT_CONFIG_EDIT_H
#define PROJECT_CONFIG_EDIT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/*
 * Appends to @out what `config get KEY` prints: the value of @key from
 * the first of @paths (NULL entries skipped) that sets it ("VALUE\n"),
 * or every value below it as "KEY=VALUE\n" when @key is a section or a
 * list; with @key NULL (`config list`) every key once, nearest file
 * first. ERR_NOTFOUND "KEY is not set"; a file's error as it loads.
 */
int project_config_lookup(const char *const *paths, size_t n, const char *key, struct buf *out);
/* Sets @key (one docs/config.md lists) to @value in the file at @path. */
int project_config_set_key(const char *path, const char *key, const char *value);
/* Makes the file at @path (and its directory) from the commented-out
 * master template when it does not exist. */
int project_config_ensure(const char *path);
/* Loads the file at @path and checks its keys. */
int project_config_check_file(const char *path);
/*
 * Rewrites the file at @path as template @tmpl makes it (its user
 * template searches @search_dir for programs and workloads); an old file
 * is kept as PATH.old, and *@kept_old says so.
 */
int project_config_reset(const char *path, const char *tmpl, const char *search_dir,
			 bool *kept_old);

#endif
