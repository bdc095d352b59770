/* Opening and reading counting events on a target. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/counters.h"
#include "util/error.h"
#include "util/xalloc.h"

int perf_counters_add(struct perf_counters *cs, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	int ret = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct perf_counter c = {0};

		ret = perf_event_parse(tok, &c.attr);
		if (ret < 0)
			break;
		c.name = xstrdup(tok);
		cs->v = xrealloc(cs->v, (cs->n + 1) * sizeof(*cs->v));
		cs->v[cs->n++] = c;
	}
	free(copy);
	return ret;
}

static int open_one(struct perf_counter *c, const struct perf_target *t, pid_t pid, int cpu)
{
	struct perf_event_attr attr = c->attr;
	bool unsupported;
	int fd;

	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.inherit = t->kind != TARGET_SYSTEM;
	attr.disabled = t->kind == TARGET_CHILD || t->kind == TARGET_SPAWNED;
	attr.enable_on_exec = t->kind == TARGET_CHILD || t->kind == TARGET_SPAWNED;
	fd = perf_open(c->name, &attr, pid, cpu, &unsupported);
	if (fd < 0) {
		if (!unsupported)
			return fd;
		c->unsupported = true;
		err_clear();
		return 0;
	}
	c->fds[c->nfds++] = fd;
	return 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int open_counter(struct perf_counter *c, const struct perf_target *t)
{
	size_t n = t->kind == TARGET_SYSTEM    ? (size_t)online_cpus()
		   : t->kind == TARGET_SPAWNED ? 1
					       : t->npids;
	int ret = 0;

	c->fds = xcalloc(n, sizeof(int));
	for (size_t i = 0; i < n && !c->unsupported && ret == 0; i++) {
		if (t->kind == TARGET_SPAWNED)
			ret = open_one(c, t, 0, -1);
		else if (t->kind == TARGET_SYSTEM)
			ret = open_one(c, t, -1, (int)i);
		else
			ret = open_one(c, t, t->pids[i], -1);
	}
	return ret;
}

int perf_counters_open(struct perf_counters *cs, const struct perf_target *t)
{
	for (size_t i = 0; i < cs->n; i++) {
		int ret = open_counter(&cs->v[i], t);

		if (ret < 0)
			return ret;
	}
	return 0;
}

int perf_counters_read(struct perf_counters *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct perf_counter *c = &cs->v[i];

		c->value = c->enabled = c->running = 0;
		for (size_t k = 0; k < c->nfds; k++) {
			uint64_t v[3];

			if (read(c->fds[k], v, sizeof(v)) != (ssize_t)sizeof(v))
				return err_set(ERR_IO, "cannot read %s: %s", c->name,
					       strerror(errno));
			c->value += v[0];
			c->enabled += v[1];
			c->running += v[2];
		}
	}
	return 0;
}

void perf_counters_free(struct perf_counters *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		for (size_t k = 0; k < cs->v[i].nfds; k++)
			close(cs->v[i].fds[k]);
		free(cs->v[i].fds);
		free(cs->v[i].name);
	}
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}

double perf_scaled(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (running == 0)
		return 0;
	if (running >= enabled)
		return (double)value;
	return (double)value * ((double)enabled / (double)running);
}

int perf_pid_threads(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	size_t cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	*out = NULL;
	*n = 0;
	d = opendir(path);
	if (!d)
		return err_set(ERR_NOTFOUND, "no process %d", (int)pid);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		*out = xgrow(*out, sizeof(**out), *n + 1, &cap);
		(*out)[(*n)++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return *n ? 0 : err_set(ERR_NOTFOUND, "no process %d", (int)pid);
}
