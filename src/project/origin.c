/* The version collected profiles are filed under (origin.h). */
#include "project/origin.h"
#include "project/project.h"
#include "project/settings.h"
#include "vcs/vcs.h"

int project_head_quick(struct project *p, char head[41])
{
	int ret;

	if (vcs_quick_head(p->root, head) == 0)
		return 1;
	if ((ret = project_open_store(p)) < 0)
		return ret;
	if (vcs_head(p->vcs, head) == 0)
		return 1;
	head[0] = '\0';
	return 0;
}

int project_origin(struct project *p, bool many, char head[41])
{
	bool dirty = false;
	int has_head = project_head_quick(p, head), ret;

	if (has_head < 0)
		return has_head;
	if (!has_head)
		project_warn(p, "no version yet: the %s no origin",
			     many ? "profiles will have" : "profile will have");
	/* Without a version there is nothing the changes are not in. */
	if (!has_head || !project_setting_bool(p, "collect.warn_dirty", true) ||
	    vcs_quick_clean(p->root, head))
		return has_head;
	if ((ret = project_open_store(p)) < 0)
		return ret;
	if (vcs_is_dirty(p->vcs, &dirty) == 0 && dirty)
		project_warn(p,
			     "uncommitted changes may skew the %s filed under %.7s, which does not "
			     "contain them",
			     many ? "profiles: they are" : "profile: it is", head);
	return has_head;
}
