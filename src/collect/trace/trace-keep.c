/*
 * What the trace collector keeps for a post-mortem: -w's log of each step,
 * -k's raw records (in the dynamic mode, the paired calls as text) and
 * -z's gzip-compressed copies of them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "collect/collector.h"
#include "collect/trace/trace-state.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

void trace_watch(const struct trace_opts *o, const char *fmt, ...)
{
	struct timespec t;
	va_list ap;

	if (!o->watch)
		return;
	clock_gettime(CLOCK_REALTIME, &t);
	fprintf(o->watch, "%ld.%06ld ", (long)t.tv_sec, t.tv_nsec / 1000);
	va_start(ap, fmt);
	vfprintf(o->watch, fmt, ap);
	va_end(ap);
	fputc('\n', o->watch);
	fflush(o->watch);
}

/* -w: the log goes beside the other logs, named as the profile is. */
int trace_open_watchdog(struct collect_ctx *c, struct trace_state *st)
{
	const char *logs = c->env->logs_dir ? c->env->logs_dir : c->env->jobs_dir;
	int ret = mkdir_p(logs);

	if (ret < 0)
		return ret;
	st->watch_path = xasprintf("%s/%s.watchdog.log", logs, c->name);
	st->o.watch = fopen(st->watch_path, "w");
	if (!st->o.watch)
		return err_set(ERR_IO, "collect trace: cannot write %s: %s", st->watch_path,
			       strerror(errno));
	trace_watch(&st->o, "collect trace: %s mode, command %s",
		    st->dynamic ? "dynamic" : "instrumented", c->argv[0]);
	for (int i = 1; i < c->argc; i++)
		trace_watch(&st->o, "  argument %d: %s", i, c->argv[i]);
	return 0;
}

/* -k in the dynamic mode: the paired calls, one a line, as the raw data. */
int trace_write_calls(const struct trace_state *st)
{
	const struct trace_data *d = &st->data;
	char *path = xasprintf("%s/calls.txt", st->dir);
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		ret = err_set(ERR_IO, "collect trace: cannot write %s: %s", path, strerror(errno));
	else {
		fprintf(f, "# name pid tid order depth inclusive_ns exclusive_ns size\n");
		for (size_t i = 0; i < d->ncalls; i++) {
			const struct trace_call *k = &d->calls[i];
			uint64_t idx = k->addr & ~TRACE_NAMED;

			fprintf(f, "%s %d %d %lu %u %lu %lu %s%ld\n",
				idx < d->nnames ? d->names[idx] : "?", k->pid, k->tid,
				(unsigned long)k->order, k->depth, (unsigned long)k->incl,
				(unsigned long)k->excl, k->has_size ? "" : "-",
				k->has_size ? (long)k->size : 0L);
		}
		if (fclose(f) != 0)
			ret = err_set(ERR_IO, "collect trace: cannot write %s", path);
	}
	free(path);
	return ret;
}

static int gzip_file(const char *path)
{
	struct buf b = BUF_INIT;
	char *out = xasprintf("%s.gz", path);
	gzFile gz;
	int ret = file_read_all(path, &b);

	if (ret == 0 && (!(gz = gzopen(out, "wb")) ||
			 gzwrite(gz, b.data, (unsigned)b.len) != (int)b.len || gzclose(gz) != Z_OK))
		ret = err_set(ERR_IO, "collect trace: cannot write %s", out);
	if (ret == 0)
		unlink(path);
	buf_release(&b);
	free(out);
	return ret;
}

int trace_zip_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!dp)
		return err_set(ERR_IO, "cannot read %s: %s", dir, strerror(errno));
	while (ret == 0 && (e = readdir(dp))) {
		char *path;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".gz"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		ret = gzip_file(path);
		free(path);
	}
	closedir(dp);
	return ret;
}
