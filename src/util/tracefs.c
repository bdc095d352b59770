/* Finding tracefs, and mounting it where it is missing (see tracefs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "util/common.h"
#include "util/tracefs.h"

static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
static char why[256];

static bool can(const char *root, const char *file, int mode)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", root, file);
	return access(path, mode) == 0;
}

/*
 * A root whose events/ exists at all: mounted, if maybe not for us. Unmounted,
 * /sys/kernel/tracing is an empty directory anyone may read, so a refusal
 * there means a tracefs mounted for root alone.
 */
static const char *mounted(void)
{
	char path[128];

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (access(path, F_OK) == 0 || (i == 0 && errno == EACCES))
			return roots[i];
	}
	return NULL;
}

/*
 * perf mounts tracefs itself when it is missing, and so do we: the kernel
 * exposes /sys/kernel/tracing as an empty directory until someone does.
 */
static void try_mount(void)
{
	if (geteuid() != 0) {
		snprintf(why, sizeof(why),
			 "tracefs is not mounted (as root: mount -t tracefs nodev "
			 "/sys/kernel/tracing; veles mounts it itself when run as root)");
		return;
	}
	if (mount("nodev", roots[0], "tracefs", 0, NULL) == 0)
		return;
	snprintf(why, sizeof(why), "tracefs is not mounted and mounting it at %s failed: %s",
		 roots[0], strerror(errno));
}

static const char *find(const char *file, int mode)
{
	const char *root = mounted();

	why[0] = '\0';
	if (!root) {
		try_mount();
		if (why[0])
			return NULL;
		root = mounted();
		if (!root) {
			snprintf(why, sizeof(why), "tracefs mounted at %s has no events/",
				 roots[0]);
			return NULL;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++)
		if (can(roots[i], "events", R_OK | X_OK) && (!file || can(roots[i], file, mode)))
			return roots[i];
	if (file)
		snprintf(why, sizeof(why), "no permission to write %s/%s: run as root", root, file);
	else
		snprintf(why, sizeof(why),
			 "no permission to read tracefs (%s): run as root, or mount it for "
			 "your group (mount -o remount,gid=GROUP,mode=750 %s)",
			 root, root);
	return NULL;
}

const char *tracefs_dir(void)
{
	return find(NULL, 0);
}

const char *tracefs_dir_writable(const char *file)
{
	return find(file, W_OK);
}

const char *tracefs_why(void)
{
	return why[0] ? why : "tracefs is not available";
}
