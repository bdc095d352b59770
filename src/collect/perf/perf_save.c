/* perf_profile_save(): the profiles of stat and record filed as the
 * collectors file theirs (collect/collector.c). */
#include <stdlib.h>
#include <unistd.h>

#include "collect/collector.h"
#include "collect/perf/perf_profile.h"
#include "profile/profile.h"

int perf_profile_save(const struct profile *p, const char *jobs_dir, const char *tool, char **path)
{
	char *name = collect_profile_name(p->cmd, tool, p->workload);
	int ret = collect_claim_path(jobs_dir, name, path);

	free(name);
	if (ret < 0) {
		*path = NULL;
		return ret;
	}
	ret = profile_save_compact(p, *path);
	if (ret < 0) {
		/* The claim is an empty file: never leave it for a profile. */
		unlink(*path);
		free(*path);
		*path = NULL;
	}
	return ret;
}
