/* The versions a run covers (jobs.h). */
#include <stdlib.h>
#include <string.h>

#include "run/jobs.h"
#include "run/run.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

struct versions {
	struct vcs *vcs;
	char ***ids;
	size_t *n;
	unsigned long depth;
};

/* Each version once, in the order first named. */
static void add_id(struct versions *v, const char *id)
{
	for (size_t i = 0; i < *v->n; i++)
		if (strcmp((*v->ids)[i], id) == 0)
			return;
	run_strv_add(v->ids, v->n, id);
}

static int add_version(const struct vcs_version *ver, void *arg)
{
	add_id(arg, ver->id);
	return 0;
}

/* A..B: the versions B has and A has not (an empty side is HEAD). */
static int add_range(struct versions *v, const char *spec, const char *dots)
{
	char *a = xstrndup(spec, (size_t)(dots - spec)), from[41], hide[41];
	const char *b = dots + 2;
	size_t before = *v->n;
	int ret = vcs_resolve(v->vcs, *a ? a : "HEAD", hide);

	if (ret == 0)
		ret = vcs_resolve(v->vcs, *b ? b : "HEAD", from);
	if (ret == 0)
		ret = vcs_walk_range(v->vcs, hide, from, v->depth ? v->depth + 1 : 0, add_version,
				     v);
	if (ret == 0 && *v->n == before)
		ret = err_set(ERR_INVALID, "-m %s names no version: %s has all of %s", spec,
			      *a ? a : "HEAD", *b ? b : "HEAD");
	free(a);
	return ret;
}

int run_versions_resolve(struct vcs *vcs, char *const *revs, size_t n, bool crawl,
			 unsigned long depth, char ***ids, size_t *nids)
{
	struct versions v = {vcs, ids, nids, depth};
	int ret = 0;

	if (n && vcs_kind(vcs) != VCS_GIT)
		return err_set(ERR_INVALID, "-m needs a git project (this one is plain)");
	for (size_t i = 0; i < n && ret == 0; i++) {
		const char *dots = strstr(revs[i], "..");
		char id[41];

		if (dots) {
			ret = add_range(&v, revs[i], dots);
			continue;
		}
		ret = vcs_resolve(vcs, revs[i], id);
		if (ret == 0 && crawl)
			ret = vcs_walk(vcs, id, depth ? depth + 1 : 0, add_version, &v);
		else if (ret == 0)
			add_id(&v, id);
	}
	return ret;
}
