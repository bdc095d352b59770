/* Reading the runtime's files into calls (see trace-read.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/trace/trace-read.h"
#include "runtime/trace-format.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* A call not yet returned, while reading one thread's records. */
struct open_call {
	uint32_t idx;
	uint64_t start, children, order;
	bool has_size;
	int64_t size;
};

struct reader {
	const char *name;
	uint64_t *addrs; /* function index -> address */
	size_t naddrs, addrs_cap;
	struct open_call *stack;
	size_t depth, stack_cap;
	uint64_t now, high, entries;
	int pid, tid;
	bool has_size; /* a VTR_SIZE for the next entry */
	int64_t size;
};

void trace_data_add_call(struct trace_data *d, const struct trace_call *c)
{
	if (d->ncalls == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->calls = xrealloc(d->calls, d->cap * sizeof(*d->calls));
	}
	d->calls[d->ncalls++] = *c;
}

uint64_t trace_data_name(struct trace_data *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nnames; i++)
		if (strcmp(d->names[i], name) == 0)
			return TRACE_NAMED | i;
	d->names = xrealloc(d->names, (d->nnames + 1) * sizeof(*d->names));
	d->name_sample = xrealloc(d->name_sample, (d->nnames + 1) * sizeof(*d->name_sample));
	d->name_sample[d->nnames] = 0;
	d->names[d->nnames++] = xstrdup(name);
	return TRACE_NAMED | i;
}

static void enter(struct reader *r, uint32_t idx)
{
	if (r->depth == r->stack_cap) {
		r->stack_cap = r->stack_cap ? r->stack_cap * 2 : 64;
		r->stack = xrealloc(r->stack, r->stack_cap * sizeof(*r->stack));
	}
	r->stack[r->depth++] =
		(struct open_call){idx, r->now, 0, r->entries++, r->has_size, r->size};
	r->has_size = false;
}

/*
 * A return closes the innermost open call of its function; calls above it
 * were left without a return (longjmp) and are dropped. A return with no
 * open call is of a call entered before the thread's records began (in
 * the parent, before a fork) and is not timed.
 */
static void leave(struct reader *r, uint32_t idx, struct trace_data *d)
{
	size_t k = r->depth;
	struct trace_call c;

	while (k > 0 && r->stack[k - 1].idx != idx)
		k--;
	if (k == 0)
		return;
	r->depth = k - 1;
	const struct open_call *o = &r->stack[r->depth];
	c = (struct trace_call){.addr = r->addrs[idx],
				.incl = r->now - o->start,
				.order = o->order,
				.pid = r->pid,
				.tid = r->tid,
				.depth = (uint32_t)r->depth,
				.has_size = o->has_size,
				.size = o->size};
	c.excl = c.incl - (o->children < c.incl ? o->children : c.incl);
	if (r->depth > 0)
		r->stack[r->depth - 1].children += c.incl;
	trace_data_add_call(d, &c);
}

static void define(struct reader *r, uint64_t addr)
{
	if (r->naddrs == r->addrs_cap) {
		r->addrs_cap = r->addrs_cap ? r->addrs_cap * 2 : 256;
		r->addrs = xrealloc(r->addrs, r->addrs_cap * sizeof(*r->addrs));
	}
	r->addrs[r->naddrs++] = addr;
}

/* An entry or a return of function @idx, @delta cycles after the last. */
static int take(struct reader *r, uint32_t idx, bool ret, uint64_t delta, size_t at,
		struct trace_data *d)
{
	if (idx >= r->naddrs)
		return err_set(ERR_PARSE, "%s: word %zu names function %u, not defined", r->name,
			       at, idx);
	r->now += r->high | delta;
	r->high = 0;
	if (ret)
		leave(r, idx, d);
	else
		enter(r, idx);
	return 0;
}

static int read_words(struct reader *r, const uint32_t *w, size_t n, struct trace_data *d)
{
	int ret = 0;

	/* A record cut short at the end (the process was killed) is lost. */
	for (size_t i = 0; i < n && ret == 0;) {
		if (w[i] & VTR_SHORT) {
			ret = take(r, (w[i] >> VTR_SHORT_SHIFT) & (VTR_SHORT_FUNCS - 1),
				   w[i] & VTR_SHORT_EXIT, w[i] & VTR_SHORT_DELTA, i, d);
			i++;
		} else if (w[i] == VTR_DEFINE || w[i] == VTR_SIZE) {
			uint64_t v;

			if (i + 3 >= n)
				break;
			v = (uint64_t)w[i + 2] | (uint64_t)w[i + 3] << 32;
			if (w[i] == VTR_DEFINE) {
				define(r, v);
			} else {
				r->has_size = true;
				r->size = (int64_t)v;
			}
			i += 4;
		} else if (i + 1 >= n) {
			break;
		} else if (w[i] == VTR_HIGH) {
			r->high = (uint64_t)w[i + 1] << 32;
			i += 2;
		} else {
			ret = take(r, w[i] & VTR_INDEX, w[i] & VTR_EXIT, w[i + 1], i, d);
			i += 2;
		}
	}
	return ret;
}

int trace_read_records(const void *data, size_t len, const char *name, struct trace_data *out)
{
	struct vtr_header h;
	struct reader r = {.name = name};
	uint32_t *words;
	size_t n;
	int ret;

	if (len < sizeof(h))
		return err_set(ERR_PARSE, "%s: too short for a trace file", name);
	memcpy(&h, data, sizeof(h));
	if (h.magic != VTR_MAGIC || h.version != VTR_VERSION)
		return err_set(ERR_PARSE, "%s: not a version %d trace file", name, VTR_VERSION);
	r.pid = (int)h.pid;
	r.tid = (int)h.tid;
	r.now = h.tsc0;
	n = (len - sizeof(h)) / sizeof(uint32_t);
	/* Copied: the data need not be aligned for 32-bit reads. */
	words = xmalloc(n ? n * sizeof(*words) : 1);
	memcpy(words, (const char *)data + sizeof(h), n * sizeof(*words));
	ret = read_words(&r, words, n, out);
	out->bytes += len;
	free(words);
	free(r.addrs);
	free(r.stack);
	return ret;
}

/* "object BIAS LO HI PATH" */
static int meta_object(const char *line, const char *name, struct trace_proc *p)
{
	struct trace_object o = {0};
	unsigned long bias, lo, hi;
	int at = 0;

	if (sscanf(line, "object %lx %lx %lx %n", &bias, &lo, &hi, &at) != 3 || !at || !line[at])
		return err_set(ERR_PARSE, "%s: bad object line '%s'", name, line);
	o = (struct trace_object){bias, lo, hi, xstrdup(line + at)};
	p->objs = xrealloc(p->objs, (p->nobjs + 1) * sizeof(*p->objs));
	p->objs[p->nobjs++] = o;
	return 0;
}

/* "clock TSC0 SECONDS0 TSC1 SECONDS1": cycles per nanosecond over the run. */
static int meta_clock(const char *line, const char *name, struct trace_proc *p)
{
	unsigned long t0, t1;
	double s0, s1;

	if (sscanf(line, "clock %lu %lf %lu %lf", &t0, &s0, &t1, &s1) != 4 || t1 <= t0 ||
	    !(s1 > s0))
		return err_set(ERR_PARSE, "%s: bad clock line '%s'", name, line);
	p->ns_per_tick = (s1 - s0) * 1e9 / (double)(t1 - t0);
	return 0;
}

int trace_read_meta(const char *text, const char *name, struct trace_proc *p)
{
	char *copy = xstrdup(text), *save = NULL;
	int ret = 0;

	for (char *line = strtok_r(copy, "\n", &save); line && ret == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "object ", 7) == 0)
			ret = meta_object(line, name, p);
		else if (strncmp(line, "clock ", 6) == 0)
			ret = meta_clock(line, name, p);
		else if (strncmp(line, "pid ", 4) == 0)
			p->pid = atoi(line + 4);
		else if (strncmp(line, "lost ", 5) == 0)
			p->lost = strtoul(line + 5, NULL, 10);
	}
	free(copy);
	if (ret == 0 && !(p->ns_per_tick > 0))
		ret = err_set(ERR_PARSE, "%s: no clock line", name);
	return ret;
}

/* " K:N" pairs of non-empty buckets, in increasing K, up to the line's end. */
static int read_hist(const char *at, const char *end, uint64_t count, const char *name,
		     struct trace_data *d, struct trace_agg *g)
{
	uint64_t sum = 0;
	long prev = -1;

	g->hist_at = d->nhist;
	while ((at += strspn(at, " \t\r")) < end) {
		unsigned long k, n;
		int len = 0;

		if (sscanf(at, " %lu:%lu%n", &k, &n, &len) != 2 || at + len > end || !n ||
		    k >= VTR_HIST_BUCKETS || (long)k <= prev)
			return err_set(ERR_PARSE, "%s: bad histogram bucket", name);
		if (d->nhist == d->hist_cap) {
			d->hist_cap = d->hist_cap ? d->hist_cap * 2 : 256;
			d->hist = xrealloc(d->hist, d->hist_cap * sizeof(*d->hist));
		}
		d->hist[d->nhist++] = (struct trace_bucket){(uint32_t)k, n};
		sum += n;
		prev = (long)k;
		at += len;
	}
	g->nhist = d->nhist - g->hist_at;
	/* Every call lands in one bucket: a file that says otherwise is cut. */
	if (sum != count)
		return err_set(ERR_PARSE, "%s: histogram of %" PRIu64 " calls for %" PRIu64, name,
			       sum, count);
	return 0;
}

/* Keeps d->aggs in step with d->calls. */
static void add_agg(struct trace_data *d, const struct trace_call *c, const struct trace_agg *g)
{
	size_t cap = d->cap;

	trace_data_add_call(d, c);
	if (!d->aggs || cap != d->cap)
		d->aggs = xrealloc(d->aggs, d->cap * sizeof(*d->aggs));
	d->aggs[d->ncalls - 1] = *g;
}

/* "ADDR COUNT INCL EXCL MIN MAX K:N..." per function of one thread. */
int trace_read_aggregate(const char *text, const char *name, int pid, int tid, struct trace_data *d)
{
	const char *line = text;

	while (*line) {
		unsigned long addr, count, incl, excl, min, max;
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		struct trace_agg g;
		size_t mark = d->nhist;
		int at = 0, ret;

		if (sscanf(line, "%lx %lu %lu %lu %lu %lu%n", &addr, &count, &incl, &excl, &min,
			   &max, &at) != 6 ||
		    line + at > end || (count && min > max))
			return err_set(ERR_PARSE, "%s: bad line", name);
		g = (struct trace_agg){.min = min, .max = max};
		ret = read_hist(line + at, end, count, name, d, &g);
		if (ret < 0)
			return ret;
		if (count > 0) {
			struct trace_call c = {.addr = addr,
					       .incl = incl,
					       .excl = excl,
					       .order = count,
					       .pid = pid,
					       .tid = tid};

			add_agg(d, &c, &g);
		} else {
			d->nhist = mark;
		}
		line = *end ? end + 1 : end;
	}
	d->aggregate = 1;
	return 0;
}

static int read_file(const char *dir, const char *entry, struct trace_data *d)
{
	char *path = xasprintf("%s/%s", dir, entry);
	struct buf b = BUF_INIT;
	int pid = 0, tid = 0, ret = file_read_all(path, &b);
	const char *dot = strrchr(entry, '.');

	if (ret == 0 && strcmp(dot, ".meta") == 0) {
		d->procs = xrealloc(d->procs, (d->nprocs + 1) * sizeof(*d->procs));
		memset(&d->procs[d->nprocs], 0, sizeof(*d->procs));
		ret = trace_read_meta(buf_str(&b), path, &d->procs[d->nprocs++]);
	} else if (ret == 0 && strcmp(dot, ".vtr") == 0) {
		ret = trace_read_records(b.data, b.len, path, d);
	} else if (ret == 0 && strcmp(dot, ".agg") == 0) {
		sscanf(entry, "%d.%d", &pid, &tid);
		ret = trace_read_aggregate(buf_str(&b), path, pid, tid, d);
	}
	buf_release(&b);
	free(path);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int trace_read_dir(const char *dir, struct trace_data *out)
{
	DIR *dp = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	int ret = 0;

	if (!dp)
		return err_set(ERR_IO, "cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(dp))) {
		const char *dot = strrchr(e->d_name, '.');

		if (dot &&
		    (!strcmp(dot, ".meta") || !strcmp(dot, ".vtr") || !strcmp(dot, ".agg"))) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
	}
	closedir(dp);
	/* Sorted, so processes and threads come in the same order every time. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (ret == 0)
			ret = read_file(dir, names[i], out);
		free(names[i]);
	}
	free(names);
	return ret;
}

const struct trace_proc *trace_proc_find(const struct trace_data *d, int pid)
{
	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i].pid == pid)
			return &d->procs[i];
	return NULL;
}

void trace_data_free(struct trace_data *d)
{
	for (size_t i = 0; i < d->nprocs; i++) {
		for (size_t k = 0; k < d->procs[i].nobjs; k++)
			free(d->procs[i].objs[k].path);
		free(d->procs[i].objs);
	}
	free(d->procs);
	free(d->calls);
	free(d->aggs);
	free(d->hist);
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->name_sample);
	memset(d, 0, sizeof(*d));
}
