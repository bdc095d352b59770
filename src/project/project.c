/* Finding a project and opening its version context and store. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "project/project.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* @start made absolute (the current directory when NULL) into *@out. */
static int start_dir(const char *start, char **out)
{
	char path[PATH_MAX];

	*out = NULL;
	if (!start) {
		if (!getcwd(path, sizeof(path)))
			return err_set(ERR_IO, "cannot get the current directory: %s",
				       strerror(errno));
	} else if (!realpath(start, path)) {
		return err_set(errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "cannot open project %s: %s", start, strerror(errno));
	} else if (!path_is_dir(path)) {
		return err_set(ERR_INVALID, "cannot open project %s: not a directory", start);
	}
	*out = xstrdup(path);
	return 0;
}

/* Which of .veles/ and .git @dir holds: 2, 1, or 0 for neither. */
static int project_marker(const char *dir)
{
	const char *base = strcmp(dir, "/") ? dir : "";
	char *veles = xasprintf("%s/.veles", base), *git = xasprintf("%s/.git", base);
	/* .git is a directory, or a worktree's or submodule's file. */
	int found = path_is_dir(veles) ? 2 : path_exists(git) ? 1 : 0;

	free(veles);
	free(git);
	return found;
}

int project_find(const char *start, struct project *p)
{
	char *dir;
	int ret = start_dir(start, &dir), found;

	memset(p, 0, sizeof(*p));
	if (ret < 0)
		return ret;
	while (!(found = project_marker(dir))) {
		char *slash = strrchr(dir, '/');

		if (!slash || dir[1] == '\0') {
			free(dir);
			return err_set(ERR_NOTFOUND,
				       "not a Veles project (no .veles/ nor git work tree here or "
				       "in any parent); run `veles init` first");
		}
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	p->root = dir;
	p->implicit = found == 1;
	p->veles_dir = xasprintf("%s/.veles", strcmp(dir, "/") ? dir : "");
	p->jobs_dir = xasprintf("%s/jobs", p->veles_dir);
	p->logs_dir = xasprintf("%s/logs", p->veles_dir);
	return 0;
}

int project_open_store(struct project *p)
{
	int ret;

	if (p->store)
		return 0;
	if (!p->vcs) {
		ret = vcs_open(p->root, false, &p->vcs);
		if (ret < 0)
			return ret;
	}
	return store_open(p->vcs, &p->store);
}

int project_open(const char *start, struct project *p)
{
	int ret = project_find(start, p);

	if (ret == 0)
		ret = project_open_store(p);
	if (ret < 0)
		project_release(p);
	return ret;
}

void project_warn(const struct project *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!p->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->warn(msg, p->warn_data);
}

void project_release(struct project *p)
{

	store_close(p->store);
	vcs_close(p->vcs);
	free(p->root);
	free(p->veles_dir);
	free(p->jobs_dir);
	free(p->logs_dir);
	memset(p, 0, sizeof(*p));
}

int project_version(struct project *p, const char *rev, char id[41])
{
	int ret = project_open_store(p);

	if (ret < 0)
		return ret;
	if (rev)
		return vcs_resolve(p->vcs, rev, id);
	if (vcs_head(p->vcs, id) < 0)
		return err_set(ERR_NOTFOUND, "no version yet in %s", p->root);
	return 0;
}
