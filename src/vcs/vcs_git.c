/* The git backend: versions are the commits of the project's repository. */
#include "vcs/git_lazy.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "vcs/vcs_internal.h"

static int git_head(struct vcs *v, git_oid *out)
{
	int ret = git_reference_name_to_id(out, v->repo, "HEAD");

	if (ret == GIT_ENOTFOUND || ret == GIT_EUNBORNBRANCH)
		return err_set(ERR_NOTFOUND, "this git repository has no commits yet");
	return ret < 0 ? vcs_git_error(ret, "cannot read HEAD") : 0;
}

static char *git_branch(struct vcs *v)
{
	git_reference *head = NULL;
	char *name = NULL;
	const char *target;

	if (git_reference_lookup(&head, v->repo, "HEAD") < 0)
		return NULL;
	/* A branch without commits yet is still the branch the user is on. */
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		target = git_reference_symbolic_target(head);
		if (target && strncmp(target, "refs/heads/", 11) == 0)
			name = xstrdup(target + 11);
	}
	git_reference_free(head);
	return name;
}

/* Status of one entry, minus anything under .veles/ (tracked by mistake). */
static bool entry_counts(const struct vcs *v, const git_status_entry *e)
{
	const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
	const char *path;

	if (e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED))
		return false;
	path = d ? (d->new_file.path ? d->new_file.path : d->old_file.path) : NULL;
	return !(path && v->veles_prefix &&
		 strncmp(path, v->veles_prefix, strlen(v->veles_prefix)) == 0);
}

static int git_is_dirty(struct vcs *v, bool *dirty)
{
	git_status_options opts;
	git_status_list *list = NULL;
	size_t i, n;
	int ret;

	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);

	/* Untracked files do not change what the build measures. */
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	ret = git_status_list_new(&list, v->repo, &opts);
	if (ret < 0)
		return vcs_git_error(ret, "cannot read the work tree status");
	n = git_status_list_entrycount(list);
	for (i = 0; i < n && !*dirty; i++)
		*dirty = entry_counts(v, git_status_byindex(list, i));
	git_status_list_free(list);
	return 0;
}

const struct vcs_ops vcs_git_ops = {
	.name = "git",
	.head = git_head,
	.branch = git_branch,
	.resolve = NULL,
	.is_dirty = git_is_dirty,
};

int vcs_git_setup(struct vcs *v)
{
	const char *workdir = git_repository_workdir(v->repo);
	char real[PATH_MAX], wreal[PATH_MAX];
	size_t wlen;

	v->kind = VCS_GIT;
	v->ops = &vcs_git_ops;
	if (!workdir || !realpath(v->root, real) || !realpath(workdir, wreal))
		return 0;
	wlen = strlen(wreal);
	if (strcmp(real, wreal) == 0)
		v->veles_prefix = xstrdup(".veles/");
	else if (strncmp(real, wreal, wlen) == 0 && real[wlen] == '/')
		v->veles_prefix = xasprintf("%s/.veles/", real + wlen + 1);
	return 0;
}
