/* Kernel tracepoints, found in tracefs (events/SUBSYS/NAME/{id,format}). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/perf.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/tracefs.h"
#include "util/xalloc.h"

const char *perf_tracefs(void)
{
	return tracefs_dir();
}

static int tracefs_error(const char *name)
{
	return err_set(ERR_INVALID, "tracepoint '%s': %s", name, tracefs_why());
}

static int read_u64_file(const char *path, uint64_t *out)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*out = v;
	return 0;
}

/* SUBSYS:NAME, neither part a path: a recording's event names come from
 * its file and must not lead outside tracefs's events/. */
static bool tracepoint_name_ok(const char *name, const char *colon)
{
	return colon && colon != name && colon[1] && !strchr(colon + 1, ':') &&
	       !strchr(name, '/') && name[0] != '.' && colon[1] != '.';
}

/* The path of tracepoint @name's @file in tracefs, into *@path. */
static int tracepoint_file(const char *name, const char *file, char **path)
{
	const char *root = perf_tracefs(), *colon = strchr(name, ':');

	if (!tracepoint_name_ok(name, colon))
		return err_set(ERR_NOTFOUND, "unknown event '%s' (see veles list)", name);
	if (!root)
		return tracefs_error(name);
	*path = xasprintf("%s/events/%.*s/%s/%s", root, (int)(colon - name), name, colon + 1, file);
	return 0;
}

int perf_tracepoint_id(const char *name, uint64_t *id)
{
	char *path;
	int ret = tracepoint_file(name, "id", &path);

	if (ret < 0)
		return ret;
	ret = read_u64_file(path, id);
	if (ret == -EACCES || ret == -EPERM)
		ret = err_set(ERR_INVALID, "tracepoint '%s': no permission to read %s: run as root",
			      name, path);
	else if (ret < 0)
		ret = err_set(ERR_NOTFOUND, "unknown event '%s' (see veles list)", name);
	free(path);
	return ret;
}

int perf_tracepoint_format(const char *name, char **text)
{
	struct buf b = BUF_INIT;
	char *path;
	int ret = tracepoint_file(name, "format", &path);

	if (ret < 0)
		return ret;
	ret = file_read_all(path, &b);
	if (ret < 0)
		buf_release(&b);
	else
		*text = buf_detach(&b, NULL);
	free(path);
	return ret;
}

/* "fields: a, b, c" from a format file: the event's own fields, not common_*. */
static char *format_desc(const char *path)
{
	FILE *f = fopen(path, "re");
	struct buf b = BUF_INIT;
	char line[512];

	if (!f)
		return xstrdup("");
	while (fgets(line, sizeof(line), f)) {
		char *field = strstr(line, "field:"), *semi, *name;

		if (!field || !(semi = strchr(field, ';')))
			continue;
		*semi = '\0';
		name = strrchr(field, ' ');
		name = name ? name + 1 : field + 6;
		if (strchr(name, '['))
			*strchr(name, '[') = '\0';
		if (strncmp(name, "common_", 7) == 0)
			continue;
		buf_adds(&b, b.len ? ", " : "fields: ");
		buf_adds(&b, name);
	}
	fclose(f);
	if (!b.len)
		buf_adds(&b, "no fields");
	return buf_detach(&b, NULL);
}

static int only_dirs(const struct dirent *d)
{
	return d->d_name[0] != '.' && d->d_type == DT_DIR;
}

static void list_subsystem(const char *dir, const char *sub,
			   void (*fn)(const char *, const char *, void *), void *arg)
{
	struct dirent **ev;
	int n = scandir(dir, &ev, only_dirs, alphasort);

	for (int i = 0; i < n; i++) {
		char *fmt = xasprintf("%s/%s/format", dir, ev[i]->d_name);
		char *name = xasprintf("%s:%s", sub, ev[i]->d_name);
		char *desc;

		if (access(fmt, R_OK) == 0) {
			desc = format_desc(fmt);
			fn(name, desc, arg);
			free(desc);
		}
		free(name);
		free(fmt);
		free(ev[i]);
	}
	if (n >= 0)
		free(ev);
}

int perf_tracepoints(void (*fn)(const char *name, const char *desc, void *arg), void *arg)
{
	const char *root = perf_tracefs();
	struct dirent **subs;
	char *events;
	int n;

	if (!root)
		return 0;
	events = xasprintf("%s/events", root);
	n = scandir(events, &subs, only_dirs, alphasort);
	for (int i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%s", events, subs[i]->d_name);

		list_subsystem(dir, subs[i]->d_name, fn, arg);
		free(dir);
		free(subs[i]);
	}
	if (n >= 0)
		free(subs);
	free(events);
	return 0;
}
