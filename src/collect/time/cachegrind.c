/* Instruction counts from valgrind's cachegrind (cachegrind.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/time/cachegrind.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"

int cachegrind_prepare(struct cachegrind *cg, char *const *cmd)
{
	static const char *const opts[] = {"valgrind",	     "--tool=cachegrind",
					   "--cache-sim=no", "--cachegrind-out-file=/dev/null",
					   "--vgdb=no",	     "--trace-children=yes"};
	char *path = NULL;
	size_t n = 0, k = 0;
	int ret;

	memset(cg, 0, sizeof(*cg));
	if (spawn_which(NULL, "valgrind", &path) < 0)
		return err_set(ERR_CHILD, "collect time: counting instructions without a PMU needs "
					  "valgrind (Debian package valgrind)");
	free(path);
	if ((ret = tmpdir_make("cachegrind", &cg->dir)) < 0)
		return ret;
	while (cmd[n])
		n++;
	cg->argv = xcalloc(ARRAY_SIZE(opts) + n + 3, sizeof(*cg->argv));
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		cg->argv[k++] = xstrdup(opts[i]);
	/* %p: one log per process of the tree, summed afterwards. */
	cg->argv[k++] = xasprintf("--log-file=%s/cg.%%p", cg->dir.path);
	cg->argv[k++] = xstrdup("--");
	for (size_t i = 0; i < n; i++)
		cg->argv[k++] = xstrdup(cmd[i]);
	return 0;
}

/* "==123== I   refs:      1,234,567" -> 1234567; false if not that line. */
static bool irefs(const char *line, double *out)
{
	const char *at = strstr(line, "I   refs:");
	double v = 0;
	bool any = false;

	if (!at && !(at = strstr(line, "I refs:")))
		return false;
	for (at = strchr(at, ':') + 1; *at; at++) {
		if (*at >= '0' && *at <= '9') {
			v = v * 10 + (*at - '0');
			any = true;
		} else if (*at != ',' && *at != ' ' && *at != '\t') {
			break;
		}
	}
	*out = v;
	return any;
}

static double log_count(const char *path, bool *found)
{
	FILE *f = fopen(path, "re");
	char line[512];
	double v = 0, got;

	while (f && fgets(line, sizeof(line), f))
		if (irefs(line, &got)) {
			v = got;
			*found = true;
		}
	if (f)
		fclose(f);
	return v;
}

int cachegrind_count(struct cachegrind *cg, double *out)
{
	DIR *d = opendir(cg->dir.path);
	struct dirent *e;
	bool found = false;
	double sum = 0;

	if (!d)
		return err_set(ERR_IO, "cannot read %s: %s", cg->dir.path, strerror(errno));
	while ((e = readdir(d))) {
		char *path;

		if (strncmp(e->d_name, "cg.", 3) != 0)
			continue;
		path = xasprintf("%s/%s", cg->dir.path, e->d_name);
		sum += log_count(path, &found);
		unlink(path);
		free(path);
	}
	closedir(d);
	if (!found)
		return err_set(ERR_CHILD, "collect time: cachegrind reported no instruction count");
	*out = sum;
	return 0;
}

void cachegrind_release(struct cachegrind *cg)
{
	tmpdir_remove(&cg->dir);
	if (cg->argv) {
		for (size_t i = 0; cg->argv[i]; i++)
			free(cg->argv[i]);
		free(cg->argv);
	}
	memset(cg, 0, sizeof(*cg));
}
