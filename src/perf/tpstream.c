/* Reading a tracepoint recording into time-ordered samples (tpstream.h). */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"
#include "perf/tpstream.h"
#include "util/error.h"
#include "util/xalloc.h"

/* A comm or fork record, replayed in time order among the samples. */
struct side {
	uint64_t time;
	size_t seq; /* file order: ties keep it */
	uint32_t type;
	uint16_t misc;
	const unsigned char *body;
	size_t len;
};

/* pid -> index of its process name; open addressing, a power of two. */
struct pidmap {
	uint32_t *pid, *comm;
	bool *used;
	size_t cap, n;
};

struct reader {
	struct tp_stream *s;
	struct side *sides;
	size_t nsides, sides_cap, samples_cap;
	struct pidmap pids;
};

static size_t pid_slot(const struct pidmap *m, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (m->cap - 1);

	while (m->used[i] && m->pid[i] != pid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void pid_set(struct pidmap *m, uint32_t pid, uint32_t comm)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct pidmap g = {
			xcalloc(m->cap ? m->cap * 2 : 64, 4), xcalloc(m->cap ? m->cap * 2 : 64, 4),
			xcalloc(m->cap ? m->cap * 2 : 64, 1), m->cap ? m->cap * 2 : 64, 0};

		for (size_t k = 0; k < m->cap; k++)
			if (m->used[k])
				pid_set(&g, m->pid[k], m->comm[k]);
		free(m->pid);
		free(m->comm);
		free(m->used);
		*m = g;
	}
	i = pid_slot(m, pid);
	m->n += !m->used[i];
	m->used[i] = true;
	m->pid[i] = pid;
	m->comm[i] = comm;
}

/* The process's name index; 0 ("[unknown]") when no record named it. */
static uint32_t pid_get(const struct pidmap *m, uint32_t pid)
{
	size_t i;

	if (!m->cap)
		return 0;
	i = pid_slot(m, pid);
	return m->used[i] ? m->comm[i] : 0;
}

static uint32_t intern_comm(struct tp_stream *s, const char *name)
{
	for (size_t i = 0; i < s->ncomms; i++)
		if (strcmp(s->comms[i], name) == 0)
			return (uint32_t)i;
	s->comms = xrealloc(s->comms, (s->ncomms + 1) * sizeof(*s->comms));
	s->comms[s->ncomms] = xstrdup(name);
	return (uint32_t)s->ncomms++;
}

static bool take(const unsigned char **p, const unsigned char *end, void *v, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	if (v)
		memcpy(v, *p, n);
	*p += n;
	return true;
}

/* The fields of sample_type that Veles records, in the kernel's order. */
static bool parse_sample(struct reader *r, const unsigned char *b, size_t len)
{
	uint64_t st = r->s->d.h.sample_type, v = 0;
	const unsigned char *p = b, *end = b + len;
	struct tp_sample smp = {0};
	uint32_t ids[2] = {0, 0}, size = 0;

	if (((st & PERF_SAMPLE_IDENTIFIER) && !take(&p, end, NULL, 8)) ||
	    ((st & PERF_SAMPLE_IP) && !take(&p, end, NULL, 8)) ||
	    ((st & PERF_SAMPLE_TID) && !take(&p, end, ids, 8)) ||
	    ((st & PERF_SAMPLE_TIME) && !take(&p, end, &smp.time, 8)) ||
	    ((st & PERF_SAMPLE_ADDR) && !take(&p, end, NULL, 8)) ||
	    ((st & PERF_SAMPLE_ID) && !take(&p, end, NULL, 8)) ||
	    ((st & PERF_SAMPLE_STREAM_ID) && !take(&p, end, NULL, 8)) ||
	    ((st & PERF_SAMPLE_CPU) && !take(&p, end, &smp.cpu, 4)) ||
	    ((st & PERF_SAMPLE_CPU) && !take(&p, end, NULL, 4)) ||
	    ((st & PERF_SAMPLE_PERIOD) && !take(&p, end, NULL, 8)))
		return false;
	if ((st & PERF_SAMPLE_CALLCHAIN) &&
	    (!take(&p, end, &v, 8) || v > (size_t)(end - p) / 8 || !take(&p, end, NULL, v * 8)))
		return false;
	if (!take(&p, end, &size, 4) || size > (size_t)(end - p) || size < 2)
		return false;
	smp.pid = ids[0];
	smp.tid = ids[1];
	smp.raw = p;
	smp.raw_size = size;
	r->s->samples = xgrow(r->s->samples, sizeof(smp), r->s->nsamples + 1, &r->samples_cap);
	r->s->samples[r->s->nsamples++] = smp;
	return true;
}

/* The time of a comm record: from its sample_id_all trailer (u32 pid, tid;
 * u64 time; u32 cpu, res), absent from those written before sampling began. */
static uint64_t comm_time(const unsigned char *b, size_t len)
{
	const char *name = (const char *)b + 8;
	size_t bare = 8 + ((strnlen(name, len - 8) + 8) & ~(size_t)7);
	uint64_t t = 0;

	if (len >= bare + 24)
		memcpy(&t, b + len - 16, 8);
	return t;
}

static void add_side(struct reader *r, const struct perf_event_header *h, const unsigned char *b)
{
	size_t len = h->size - sizeof(*h);
	struct side sd = {0, r->nsides, h->type, h->misc, b, len};

	if (h->type == PERF_RECORD_COMM) {
		if (len <= 8 || !memchr(b + 8, '\0', len - 8))
			return;
		sd.time = comm_time(b, len);
	} else if (len >= 24) { /* fork: u32 pid, ppid, tid, ptid; u64 time */
		memcpy(&sd.time, b + 16, 8);
	} else {
		return;
	}
	r->sides = xgrow(r->sides, sizeof(sd), r->nsides + 1, &r->sides_cap);
	r->sides[r->nsides++] = sd;
}

static int add_format(struct tp_stream *s, const unsigned char *b, size_t len)
{
	const char *sys = (const char *)b, *text;
	size_t slen = strnlen(sys, len);

	if (slen == len || !memchr(b + slen + 1, '\0', len - slen - 1))
		return err_set(ERR_PARSE, "damaged tracepoint format record");
	text = sys + slen + 1;
	s->formats = xrealloc(s->formats, (s->nformats + 1) * sizeof(*s->formats));
	s->formats[s->nformats++] = (struct tp_format){xstrdup(sys), xstrdup(text)};
	return 0;
}

static int read_records(struct reader *r, const char *path)
{
	struct tp_stream *s = r->s;
	size_t off = s->d.records;

	while (off + sizeof(struct perf_event_header) <= s->d.len) {
		struct perf_event_header h;
		const unsigned char *body = s->d.buf + off + sizeof(h);
		uint64_t n;

		memcpy(&h, s->d.buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > s->d.len)
			break; /* a torn tail: what came before stands */
		if (h.type == PERF_RECORD_SAMPLE && !parse_sample(r, body, h.size - sizeof(h)))
			return err_set(ERR_PARSE, "%s: damaged sample at offset %zu", path, off);
		if (h.type == PERF_RECORD_COMM || h.type == PERF_RECORD_FORK)
			add_side(r, &h, body);
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			memcpy(&n, body + 8, 8);
			s->lost += n;
		}
		if (h.type == PERF_RECORD_VELES_TPFORMAT &&
		    add_format(s, body, h.size - sizeof(h)) < 0)
			return err_prefix(ERR_PARSE, "%s", path);
		off += h.size;
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct tp_sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->raw < y->raw ? -1 : x->raw > y->raw; /* file order */
}

static int side_by_time(const void *a, const void *b)
{
	const struct side *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool sorted(const struct tp_sample *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].time < v[i - 1].time)
			return false;
	return true;
}

/* Names are kept per thread: a comm record names its tid; a forked thread
 * (u32 pid, ppid, tid, ptid) starts with its parent thread's name. */
static void apply_side(struct reader *r, const struct side *sd)
{
	uint32_t v[4];

	if (sd->type == PERF_RECORD_COMM) {
		memcpy(v, sd->body, 8);
		pid_set(&r->pids, v[1], intern_comm(r->s, (const char *)sd->body + 8));
	} else {
		memcpy(v, sd->body, 16);
		pid_set(&r->pids, v[2], pid_get(&r->pids, v[3]));
	}
}

/* Samples and side-band records merged in time order: each sample gets the
 * name its thread had then. */
static void name_samples(struct reader *r)
{
	struct tp_stream *s = r->s;
	size_t k = 0;

	/* Either array is NULL when empty, which qsort may not be given. */
	if (!sorted(s->samples, s->nsamples))
		qsort(s->samples, s->nsamples, sizeof(*s->samples), by_time);
	if (r->nsides > 1)
		qsort(r->sides, r->nsides, sizeof(*r->sides), side_by_time);
	for (size_t i = 0; i < s->nsamples; i++) {
		while (k < r->nsides && r->sides[k].time <= s->samples[i].time)
			apply_side(r, &r->sides[k++]);
		s->samples[i].comm = pid_get(&r->pids, s->samples[i].tid);
	}
}

/* Recordings made before formats were stored: this machine's, by name. */
static int formats_from_tracefs(struct tp_stream *s)
{
	char *list = xstrdup(s->d.event), *save = NULL;
	int ret = 0;

	for (char *n = strtok_r(list, ",", &save); n && ret == 0; n = strtok_r(NULL, ",", &save)) {
		char *text;

		if ((ret = perf_tracepoint_format(n, &text)) < 0)
			break;
		s->formats = xrealloc(s->formats, (s->nformats + 1) * sizeof(*s->formats));
		s->formats[s->nformats++] = (struct tp_format){xstrndup(n, strcspn(n, ":")), text};
	}
	free(list);
	return ret;
}

static int check_tracepoints(const char *path, const struct perf_data *d)
{
	if (d->h.event_type != PERF_TYPE_TRACEPOINT)
		return err_set(ERR_INVALID,
			       "%s records %s, not a tracepoint: record one for scripts "
			       "(veles record -e SUBSYS:NAME -- CMD)",
			       path, d->event);
	if (!(d->h.sample_type & PERF_SAMPLE_RAW))
		return err_set(ERR_INVALID,
			       "%s has no raw tracepoint fields: record it again "
			       "(veles record -e %s -- CMD)",
			       path, d->event);
	return 0;
}

int tp_stream_open(const char *path, struct tp_stream *s)
{
	struct reader r = {.s = s};
	int ret;

	memset(s, 0, sizeof(*s));
	ret = perf_data_load(path, &s->d);
	if (ret == 0)
		ret = check_tracepoints(path, &s->d);
	if (ret == 0)
		ret = read_records(&r, path);
	if (ret == 0 && s->nformats == 0)
		ret = formats_from_tracefs(s);
	if (ret == 0) {
		intern_comm(s, "[unknown]");
		pid_set(&r.pids, 0, intern_comm(s, "swapper")); /* the idle task, not in /proc */
		name_samples(&r);
	}
	free(r.sides);
	free(r.pids.pid);
	free(r.pids.comm);
	free(r.pids.used);
	if (ret < 0)
		tp_stream_free(s);
	return ret;
}

void tp_stream_free(struct tp_stream *s)
{
	for (size_t i = 0; i < s->nformats; i++) {
		free(s->formats[i].system);
		free(s->formats[i].text);
	}
	for (size_t i = 0; i < s->ncomms; i++)
		free(s->comms[i]);
	free(s->formats);
	free(s->samples);
	free(s->comms);
	perf_data_free(&s->d);
	memset(s, 0, sizeof(*s));
}
