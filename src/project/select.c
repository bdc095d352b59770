/* Profile ids and pending paths: the parts of profile selection that need
 * no command line. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "project/select.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"

const char *profile_short_id(const char *blob, char out[PROFILE_SHORT_ID + 1])
{
	size_t n = strnlen(blob, PROFILE_SHORT_ID);

	memcpy(out, blob, n);
	out[n] = '\0';
	return out;
}

bool profile_id_like(const char *spec)
{
	size_t n = strspn(spec, "0123456789abcdef");

	return n >= 4 && n <= 40 && spec[n] == '\0';
}

int profile_find_id(struct store *s, const char *version, const char *spec, struct store_entry *out,
		    char where[41])
{
	int ret = store_find_blob(s, version, spec, out, where);

	if (ret == ERR_NOTFOUND && version)
		ret = store_find_blob(s, NULL, spec, out, where);
	return ret;
}

int profile_digits_are_id(struct store *s, const char *version, const char *spec,
			  struct store_entry *out, char where[41])
{
	int ret;

	if (strspn(spec, "0123456789") != strlen(spec) || !profile_id_like(spec))
		return 0;
	ret = profile_find_id(s, version, spec, out, where);
	if (ret == ERR_NOTFOUND)
		return 0;
	return ret < 0 ? ret : 1;
}

/* The directory part of @path ("." when none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *profile_pending_name(const char *jobs_dir, const char *path)
{
	char *dir = dir_of(path), real_dir[PATH_MAX], real_jobs[PATH_MAX];
	const char *base = strrchr(path, '/');
	bool inside = realpath(dir, real_dir) && realpath(jobs_dir, real_jobs) &&
		      strcmp(real_dir, real_jobs) == 0;

	free(dir);
	base = base ? base + 1 : path;
	return inside && *base ? xstrdup(base) : NULL;
}
