/* Which configuration files a project reads, and in what order. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "project/project_config.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"

/* matrix.file from @path, or NULL (also when the file does not load:
 * loading it for real reports that). */
static char *matrix_file_in(const char *path)
{
	struct config *c = NULL;
	char *v = NULL;

	if (path && config_load(path, &c) == 0 && config_get(c, "matrix.file"))
		v = xstrdup(config_get(c, "matrix.file"));
	config_free(c);
	err_clear();
	return v;
}

static void add(struct project_config_files *f, char *path, enum project_config_role role)
{
	f->path[f->n] = path;
	f->role[f->n++] = role;
}

void project_config_files(const char *root, struct project_config_files *out)
{
	char *local = root ? xasprintf("%s/.veles/config.yml", root) : NULL;
	char *user = config_user_path();
	const char *from = local;
	char *mf = matrix_file_in(local);

	memset(out, 0, sizeof(*out));
	if (!mf) {
		mf = matrix_file_in(user);
		from = user;
	}
	if (local)
		add(out, local, PCONF_LOCAL);
	if (mf) {
		out->matrix_file = mf;
		out->matrix_file_from = xstrdup(from);
	}
	/* An empty matrix.file: the user wants no tracked recipe at all. */
	if (root && !mf)
		out->tracked = xasprintf("%s/" PROJECT_TRACKED_CONFIG, root);
	else if (root && *mf)
		out->tracked = *mf == '/' ? xstrdup(mf) : xasprintf("%s/%s", root, mf);
	/* Named by matrix.file, it must be there (project_config_load). */
	if (out->tracked && (mf || path_exists(out->tracked)))
		add(out, xstrdup(out->tracked), PCONF_TRACKED);
	add(out, user, PCONF_USER);
}

void project_config_files_release(struct project_config_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->path[i]);
	free(f->matrix_file);
	free(f->matrix_file_from);
	free(f->tracked);
	memset(f, 0, sizeof(*f));
}

const char *project_config_path(const struct project_config_files *f, enum project_config_role role)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->role[i] == role)
			return f->path[i];
	return NULL;
}

void project_config_unload(struct config *cfgs[PROJECT_CONFIG_MAX])
{
	for (size_t i = 0; i < PROJECT_CONFIG_MAX; i++) {
		config_free(cfgs[i]);
		cfgs[i] = NULL;
	}
}

/* The checks beyond each file's own: where matrix.file may be, and that
 * what it names is there. */
static int check_tracked(const struct project_config_files *f, struct config *const *cfgs)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->role[i] != PCONF_TRACKED)
			continue;
		/* A cloned file that pointed elsewhere would take the recipe
		 * out of the reviewed tree. */
		if (config_has(cfgs[i], "matrix.file"))
			return config_error_at(cfgs[i], "matrix.file",
					       "matrix.file is a local setting (.veles/config.yml "
					       "or the user's config.yml), not one of the tracked "
					       "file");
		if (f->matrix_file && !path_exists(f->path[i]))
			return err_set(ERR_NOTFOUND,
				       "matrix.file (in %s) names %s, which does not exist",
				       f->matrix_file_from, f->path[i]);
	}
	return 0;
}

int project_config_load(const struct project_config_files *f,
			struct config *cfgs[PROJECT_CONFIG_MAX])
{
	int ret = 0;

	memset(cfgs, 0, PROJECT_CONFIG_MAX * sizeof(*cfgs));
	for (size_t i = 0; i < f->n && ret == 0; i++) {
		ret = config_load(f->path[i], &cfgs[i]);
		if (ret == 0)
			ret = config_validate(cfgs[i]);
	}
	if (ret == 0)
		ret = check_tracked(f, cfgs);
	if (ret < 0)
		project_config_unload(cfgs);
	return ret;
}
