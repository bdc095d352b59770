/*
 * The configuration files of a project, nearest first (docs/config.md):
 *
 *   ROOT/.veles/config.yml      local settings, never committed: win
 *   the tracked file            ROOT/veles.yml, or the path matrix.file
 *                               names: the recipe that travels with the
 *                               code, so a teammate who clones gets it
 *   the user's config.yml       defaults for every project
 *
 * The tracked file is part of the checked-out code, trusted as its build
 * is (docs/security.md); it cannot name another file (matrix.file is read
 * from the local and the user's files only).
 */
#ifndef PROJECT_PROJECT_CONFIG_H
#define PROJECT_PROJECT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct config;

/* The tracked file's name at the project root, when matrix.file is unset. */
#define PROJECT_TRACKED_CONFIG "veles.yml"

enum project_config_role { PCONF_LOCAL, PCONF_TRACKED, PCONF_USER };

#define PROJECT_CONFIG_MAX 3

struct project_config_files {
	size_t n;
	char *path[PROJECT_CONFIG_MAX];
	enum project_config_role role[PROJECT_CONFIG_MAX];
	/* matrix.file, as set, and the file that set it; NULL when unset */
	char *matrix_file, *matrix_file_from;
	/* Where the tracked file is or would be made (`veles config --tracked
	 * set`); NULL outside a project or when matrix.file is empty. */
	char *tracked;
};

/*
 * The files of the project at @root, nearest first; with @root NULL (no
 * project), the user's alone. The tracked file is listed when matrix.file
 * names it, or when ROOT/veles.yml exists; an empty matrix.file leaves it
 * out. Files need not exist (a missing file is an empty configuration).
 */
void project_config_files(const char *root, struct project_config_files *out);
void project_config_files_release(struct project_config_files *f);
/* The path of the file of @role, or NULL. */
const char *project_config_path(const struct project_config_files *f,
				enum project_config_role role);

/*
 * Loads every file into cfgs[i] (path[i]) and checks them: unknown keys,
 * matrix.file set in the tracked file, a matrix.file naming no file.
 * ERR_INVALID / ERR_NOTFOUND with "FILE:LINE:COL: ..."; on error nothing
 * is left loaded.
 */
int project_config_load(const struct project_config_files *f,
			struct config *cfgs[PROJECT_CONFIG_MAX]);
void project_config_unload(struct config *cfgs[PROJECT_CONFIG_MAX]);

#endif
