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
	XGROW(d->calls, d->ncalls + 1, d->cap);
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
	XGROW(r->stack, r->depth + 1, r->stack_cap);
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
	XGROW(r->addrs, r->naddrs + 1, r->addrs_cap);
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

/* A thread's lost calls, for its process (trace_read_dir adds them up). */
static void note_lost(struct trace_data *d, int pid, uint64_t n)
{
	if (!n)
		return;
	d->lost = xrealloc(d->lost, (d->nlost + 1) * sizeof(*d->lost));
	d->lost[d->nlost++] = (struct trace_lost){pid, (unsigned long)n};
}

/*
 * The header of a version 4 file of @magic: where its records (or sums)
 * start and, for records, where the whole ones end. 1 for a file that
 * holds nothing yet (a thread killed before its header was written).
 */
static int read_header(const void *data, size_t len, const char *name, uint32_t magic,
		       struct vtr_header *h)
{
	if (len >= 4 && !memcmp(data, "\0\0\0\0", 4))
		return 1;
	if (len < sizeof(*h))
		return err_set(ERR_PARSE, "%s: too short for a trace file", name);
	memcpy(h, data, sizeof(*h));
	if (h->magic != magic || h->version != VTR_VERSION)
		return err_set(ERR_PARSE, "%s: not a version %d trace file", name, VTR_VERSION);
	if (h->data < sizeof(*h) || h->data > len)
		return err_set(ERR_PARSE, "%s: its records start past its end", name);
	for (int i = 0; magic == VTR_MAGIC && i < 2; i++)
		if (h->buf[i] < sizeof(*h) || h->bufcap > h->data / 4 ||
		    h->buf[i] > h->data - h->bufcap * 4)
			return err_set(ERR_PARSE, "%s: a buffer lies outside the file's head",
				       name);
	if (magic == VTR_MAGIC && VTR_STATE_HELD(h->state) > h->bufcap)
		return err_set(ERR_PARSE, "%s: more held words than a buffer holds", name);
	if (magic == VTR_MAGIC && VTR_STATE_FLUSHED(h->state) > (len - h->data) / 4)
		return err_set(ERR_PARSE, "%s: holds fewer written records than its header says",
			       name);
	return 0;
}

/*
 * A version 4 thread's records, in order (docs/trace-format.md): those
 * written after the head, the held buffer's whole words, and those of the
 * buffer being filled up to the committed end. Into @out, *@n words.
 */
static uint32_t *gather(const char *data, const struct vtr_header *h, size_t *n)
{
	uint64_t flushed = VTR_STATE_FLUSHED(h->state), held = VTR_STATE_HELD(h->state);
	unsigned hb = VTR_STATE_BUF(h->state);
	uint64_t filling = h->base + h->buf[!hb], fill = 0;
	uint32_t *w;

	/* Not inside the buffer being filled: a switch half done, nothing. */
	if (h->done >= filling && h->done - filling <= h->bufcap * 4 &&
	    (h->done - filling) % 4 == 0)
		fill = (h->done - filling) / 4;
	*n = (size_t)(flushed + held + fill);
	w = xmalloc(*n ? *n * sizeof(*w) : 1);
	/* Copied: the data need not be aligned for 32-bit reads. */
	memcpy(w, data + h->data, (size_t)flushed * 4);
	memcpy(w + flushed, data + h->buf[hb], (size_t)held * 4);
	memcpy(w + flushed + held, data + h->buf[!hb], (size_t)fill * 4);
	return w;
}

int trace_read_records(const void *data, size_t len, const char *name, struct trace_data *out)
{
	struct vtr_header h = {0};
	struct reader r = {.name = name};
	uint32_t *words, version = 0;
	size_t n;
	int ret;

	if (len >= 8)
		memcpy(&version, (const char *)data + 4, sizeof(version));
	if (version == 3 && len >= VTR_V3_HEADER && !memcmp(data, &(uint32_t){VTR_MAGIC}, 4)) {
		/* Written before version 4: whole records up to the end. */
		memcpy(&h, data, VTR_V3_HEADER);
		n = (len - VTR_V3_HEADER) / 4;
		words = xmalloc(n ? n * sizeof(*words) : 1);
		memcpy(words, (const char *)data + VTR_V3_HEADER, n * sizeof(*words));
		out->bytes += VTR_V3_HEADER;
	} else if ((ret = read_header(data, len, name, VTR_MAGIC, &h)) != 0) {
		/* Nothing yet: still a thread that ran the hooks. */
		out->nthreads += ret > 0;
		return ret < 0 ? ret : 0;
	} else {
		/* Only records the runtime committed: a thread killed while
		 * it stored one leaves it out. */
		words = gather(data, &h, &n);
		note_lost(out, (int)h.pid, h.lost);
		out->nfull += (h.flags & VTR_FULL) != 0;
		out->bytes += sizeof(h);
	}
	out->nthreads++;
	r.pid = (int)h.pid;
	r.tid = (int)h.tid;
	r.now = h.tsc0;
	ret = read_words(&r, words, n, out);
	/* The header and the records: not the runtime's state in between. */
	out->bytes += n * sizeof(*words);
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
	/* Listed again (a meta file written by a version that did). */
	for (size_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].bias == bias && p->objs[i].lo == lo && p->objs[i].hi == hi &&
		    strcmp(p->objs[i].path, line + at) == 0)
			return 0;
	o = (struct trace_object){bias, lo, hi, xstrdup(line + at)};
	p->objs = xrealloc(p->objs, (p->nobjs + 1) * sizeof(*p->objs));
	p->objs[p->nobjs++] = o;
	return 0;
}

/* "start TSC SECONDS": the counter and CLOCK_MONOTONIC as the process started. */
static int meta_start(const char *line, const char *name, struct trace_proc *p)
{
	unsigned long t;
	double sec;

	if (sscanf(line, "start %lu %lf", &t, &sec) != 2 || !(sec >= 0))
		return err_set(ERR_PARSE, "%s: bad start line '%s'", name, line);
	p->has_start = true;
	p->tsc_start = t;
	p->sec_start = sec;
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
		else if (strncmp(line, "start ", 6) == 0)
			ret = meta_start(line, name, p);
		else if (strncmp(line, "pid ", 4) == 0)
			p->pid = atoi(line + 4);
		else if (strncmp(line, "lost ", 5) == 0)
			p->lost = strtoul(line + 5, NULL, 10);
	}
	free(copy);
	if (ret == 0 && !(p->ns_per_tick > 0) && !p->has_start)
		ret = err_set(ERR_PARSE, "%s: no clock line and no start line", name);
	return ret;
}

void trace_calibrate(struct trace_data *d, uint64_t tsc_now, double sec_now)
{
	for (size_t i = 0; i < d->nprocs; i++) {
		struct trace_proc *p = &d->procs[i];

		if (!(p->ns_per_tick > 0) && p->has_start && tsc_now > p->tsc_start &&
		    sec_now > p->sec_start)
			p->ns_per_tick =
				(sec_now - p->sec_start) * 1e9 / (double)(tsc_now - p->tsc_start);
	}
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
		XGROW(d->hist, d->nhist + 1, d->hist_cap);
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

/* One function's sums: its non-empty buckets into d->hist, and the call. */
static int add_sum(const struct vtr_sum *v, const char *name, int pid, int tid,
		   struct trace_data *d)
{
	struct trace_agg g = {.min = ~v->nmin, .max = v->max, .hist_at = d->nhist};
	uint64_t count = 0;

	for (uint32_t k = 0; k < VTR_HIST_BUCKETS; k++) {
		if (!v->hist[k])
			continue;
		XGROW(d->hist, d->nhist + 1, d->hist_cap);
		d->hist[d->nhist++] = (struct trace_bucket){k, v->hist[k]};
		count += v->hist[k];
	}
	g.nhist = d->nhist - g.hist_at;
	if (!count)
		return 0; /* entered, never returned from */
	if (g.min > g.max)
		return err_set(ERR_PARSE,
			       "%s: the quickest call of %#" PRIx64 " is slower than its "
			       "slowest",
			       name, v->addr);
	add_agg(d,
		&(struct trace_call){.addr = v->addr,
				     .incl = v->incl,
				     .excl = v->excl,
				     .order = count,
				     .pid = pid,
				     .tid = tid},
		&g);
	return 0;
}

int trace_read_sums(const void *data, size_t len, const char *name, struct trace_data *out)
{
	struct vtr_header h;
	struct vtr_sum v;
	size_t n;
	int ret = read_header(data, len, name, VTA_MAGIC, &h);

	out->nthreads += ret > 0;
	if (ret != 0)
		return ret < 0 ? ret : 0;
	out->aggregate = 1;
	out->nthreads++;
	out->nfull += (h.flags & VTR_FULL) != 0;
	note_lost(out, (int)h.pid, h.lost);
	/* The whole ones, as many as the file holds. */
	n = (len - h.data) / sizeof(v);
	if (h.done < n)
		n = (size_t)h.done;
	out->bytes += sizeof(h) + n * sizeof(v);
	for (size_t i = 0; i < n && ret == 0; i++) {
		memcpy(&v, (const char *)data + h.data + i * sizeof(v), sizeof(v));
		ret = add_sum(&v, name, (int)h.pid, (int)h.tid, out);
	}
	return ret;
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
	} else if (ret == 0 && strcmp(dot, ".agg") == 0 && b.len >= 4 &&
		   (!memcmp(b.data, &(uint32_t){VTA_MAGIC}, 4) || !memcmp(b.data, "\0\0\0\0", 4))) {
		ret = trace_read_sums(b.data, b.len, path, d);
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
	for (size_t i = 0; i < out->nlost; i++)
		for (size_t k = 0; k < out->nprocs; k++)
			if (out->procs[k].pid == out->lost[i].pid)
				out->procs[k].lost += out->lost[i].n;
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
	free(d->lost);
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->name_sample);
	memset(d, 0, sizeof(*d));
}
