/* Replaying a recording's side-band records to resolve its samples. */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "perf/session.h"
#include "util/error.h"
#include "util/xalloc.h"

struct map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	const struct perf_dso *dso;
};

struct comm {
	uint32_t pid;
	char *name;
};

struct perf_session {
	struct perf_data d;
	char *path; /* for error messages */
	struct map *maps;
	size_t nmaps, maps_cap;
	struct perf_dso **dsos;
	size_t ndsos, dsos_cap;
	struct comm *comms;
	size_t ncomms, comms_cap;
	struct perf_dso *kernel; /* loaded when a kernel address first shows up */
	struct perf_loc *chain;
	size_t chain_cap;
};

int perf_session_open(const char *path, struct perf_session **out)
{
	struct perf_session *s = xcalloc(1, sizeof(*s));
	int ret = perf_data_load(path, &s->d);

	if (ret < 0) {
		free(s);
		return ret;
	}
	s->path = xstrdup(path);
	*out = s;
	return 0;
}

const struct perf_data *perf_session_data(const struct perf_session *s)
{
	return &s->d;
}

static const struct perf_dso *dso_get(struct perf_session *s, const char *path)
{
	for (size_t i = 0; i < s->ndsos; i++)
		if (strcmp(s->dsos[i]->path, path) == 0)
			return s->dsos[i];
	s->dsos = xgrow(s->dsos, sizeof(*s->dsos), s->ndsos + 1, &s->dsos_cap);
	s->dsos[s->ndsos] = perf_dso_load(path);
	return s->dsos[s->ndsos++];
}

static void add_map(struct perf_session *s, const struct map *m)
{
	s->maps = xgrow(s->maps, sizeof(*s->maps), s->nmaps + 1, &s->maps_cap);
	s->maps[s->nmaps++] = *m;
}

/* An exec replaced the process image: its old maps no longer apply. */
static void drop_maps(struct perf_session *s, uint32_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].pid != pid)
			s->maps[k++] = s->maps[i];
	s->nmaps = k;
}

static void on_mmap(struct perf_session *s, const unsigned char *b, size_t len)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
	} m;
	const char *file = (const char *)b + sizeof(m);

	if (len <= sizeof(m) || !memchr(file, '\0', len - sizeof(m)))
		return;
	memcpy(&m, b, sizeof(m));
	add_map(s, &(struct map){m.pid, m.addr, m.addr + m.len, m.pgoff, dso_get(s, file)});
}

static void on_comm(struct perf_session *s, const unsigned char *b, size_t len, uint16_t misc)
{
	uint32_t pid;
	const char *name = (const char *)b + 8;

	if (len <= 8 || !memchr(name, '\0', len - 8))
		return;
	memcpy(&pid, b, sizeof(pid));
	if (misc & PERF_RECORD_MISC_COMM_EXEC)
		drop_maps(s, pid);
	s->comms = xgrow(s->comms, sizeof(*s->comms), s->ncomms + 1, &s->comms_cap);
	s->comms[s->ncomms++] = (struct comm){pid, xstrdup(name)};
}

/* A new process starts with its parent's maps (until it execs). */
static void on_fork(struct perf_session *s, const unsigned char *b, size_t len)
{
	uint32_t v[4]; /* pid, ppid, tid, ptid */
	size_t n = s->nmaps;

	if (len < sizeof(v))
		return;
	memcpy(v, b, sizeof(v));
	if (v[0] != v[2] || v[0] == v[1])
		return; /* a new thread shares its process's maps */
	for (size_t i = 0; i < n; i++)
		if (s->maps[i].pid == v[1]) {
			struct map m = s->maps[i];

			m.pid = v[0];
			add_map(s, &m);
		}
}

static const char *comm_of(const struct perf_session *s, uint32_t pid)
{
	for (size_t i = s->ncomms; i-- > 0;)
		if (s->comms[i].pid == pid)
			return s->comms[i].name;
	return pid == 0 ? "swapper" : "[unknown]"; /* the idle task, not in /proc */
}

static struct perf_loc resolve(struct perf_session *s, uint32_t pid, uint64_t ip, bool kernel)
{
	struct perf_loc l = {.ip = ip, .kernel = kernel};

	if (kernel) {
		if (!s->kernel)
			s->kernel = perf_kernel_load();
		l.dso = s->kernel;
		l.sym = perf_dso_find_addr(s->kernel, ip);
		return l;
	}
	for (size_t i = s->nmaps; i-- > 0;) {
		const struct map *m = &s->maps[i];

		if (m->pid == pid && ip >= m->start && ip < m->end) {
			l.dso = m->dso;
			l.sym = perf_dso_find(m->dso, ip - m->start + m->pgoff);
			break;
		}
	}
	return l;
}

/* Reads a u64 field of a sample, advancing; false past the record's end. */
static bool take_u64(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	if (end - *p < 8)
		return false;
	memcpy(v, *p, 8);
	*p += 8;
	return true;
}

/*
 * The callers: the kernel's chain is the sample's own ip, then return
 * addresses, with PERF_CONTEXT_* markers saying kernel or user from there
 * on. A return address is looked up one byte back, inside the call.
 */
static void resolve_chain(struct perf_session *s, struct perf_sample *smp, const unsigned char *p,
			  const unsigned char *end, uint64_t nr)
{
	bool kernel = smp->at.kernel, first = true;
	uint64_t ip;

	smp->nchain = 0;
	s->chain = xgrow(s->chain, sizeof(*s->chain), nr ? nr : 1, &s->chain_cap);
	for (uint64_t i = 0; i < nr && take_u64(&p, end, &ip); i++) {
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (first && ip == smp->at.ip) {
			first = false;
			continue;
		}
		first = false;
		s->chain[smp->nchain++] = resolve(s, smp->pid, ip - 1, kernel);
	}
	smp->chain = s->chain;
}

static bool parse_sample(struct perf_session *s, const unsigned char *b, size_t len, uint16_t misc,
			 struct perf_sample *smp)
{
	uint64_t st = s->d.h.sample_type, v = 0, ip = 0;
	const unsigned char *p = b, *end = b + len;

	memset(smp, 0, sizeof(*smp));
	if ((st & PERF_SAMPLE_IDENTIFIER) && !take_u64(&p, end, &v))
		return false;
	if ((st & PERF_SAMPLE_IP) && !take_u64(&p, end, &ip))
		return false;
	if ((st & PERF_SAMPLE_TID) && !take_u64(&p, end, &v))
		return false;
	smp->pid = (uint32_t)v;
	smp->tid = (uint32_t)(v >> 32);
	if ((st & PERF_SAMPLE_TIME) && !take_u64(&p, end, &smp->time))
		return false;
	for (uint64_t f = PERF_SAMPLE_ADDR; f <= PERF_SAMPLE_STREAM_ID; f <<= 1)
		if ((st & f & (PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID)) &&
		    !take_u64(&p, end, &v))
			return false;
	if ((st & PERF_SAMPLE_CPU) && !take_u64(&p, end, &v))
		return false;
	smp->cpu = (uint32_t)v;
	smp->period = 1;
	if ((st & PERF_SAMPLE_PERIOD) && !take_u64(&p, end, &smp->period))
		return false;
	smp->comm = comm_of(s, smp->pid);
	smp->at = resolve(s, smp->pid, ip,
			  (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		/* The length is the file's word: a chain must fit its record. */
		if (!take_u64(&p, end, &v) || v > (uint64_t)(end - p) / 8)
			return false;
		resolve_chain(s, smp, p, end, v);
	}
	return true;
}

/* A record's place in the replay: its time, then its place in the file. */
struct rec_at {
	uint64_t time;
	size_t off;
};

/* Bytes of the sample_id_all trailer, and where its time sits in it. */
static size_t id_trailer(uint64_t st, size_t *time_at)
{
	const uint64_t fields = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

	*time_at = (st & PERF_SAMPLE_TID) ? 8 : 0;
	return 8 * (size_t)__builtin_popcountll(st & fields);
}

/*
 * When a record happened. Comm and mmap records carry it in their trailer,
 * which those Veles wrote from /proc before sampling began lack (their
 * name's padding then ends the record): they get 0 and so come first.
 */
static uint64_t record_time(uint64_t st, const struct perf_event_header *h, const unsigned char *b)
{
	size_t len = h->size - sizeof(*h), time_at, trailer = id_trailer(st, &time_at), fixed;
	uint64_t t = 0;

	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t at = 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
				 !!(st & PERF_SAMPLE_TID));

		if (len >= at + 8)
			memcpy(&t, b + at, 8);
		return t;
	}
	if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		if (len >= 24) /* u32 pid, ppid, tid, ptid; u64 time */
			memcpy(&t, b + 16, 8);
		return t;
	}
	fixed = h->type == PERF_RECORD_MMAP ? 32 : 8; /* comm: u32 pid, tid */
	if (len <= fixed)
		return 0;
	fixed += (strnlen((const char *)b + fixed, len - fixed) + 8) & ~(size_t)7;
	if (len >= fixed + trailer)
		memcpy(&t, b + len - trailer + time_at, 8);
	return t;
}

static int by_time(const void *a, const void *b)
{
	const struct rec_at *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* file order */
}

/*
 * The records that matter to samples, in time order. The file holds each
 * CPU's buffer in turn, so a process that moved between CPUs may have
 * samples ahead of the mmap that maps them; sorting by time puts them back.
 * The index costs 16 bytes a record beside the file already in memory.
 */
static size_t order_records(struct perf_session *s, struct rec_at **out, uint64_t *lost)
{
	struct rec_at *v = NULL;
	size_t n = 0, cap = 0, off = s->d.records;
	bool in_order = true;

	while (off + sizeof(struct perf_event_header) <= s->d.len) {
		struct perf_event_header h;
		const unsigned char *body = s->d.buf + off + sizeof(h);
		uint64_t k;

		memcpy(&h, s->d.buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > s->d.len)
			break; /* a torn tail: what came before stands */
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			memcpy(&k, body + 8, 8);
			*lost += k;
		} else if (h.type == PERF_RECORD_MMAP || h.type == PERF_RECORD_COMM ||
			   h.type == PERF_RECORD_FORK || h.type == PERF_RECORD_SAMPLE) {
			v = xgrow(v, sizeof(*v), n + 1, &cap);
			v[n] = (struct rec_at){record_time(s->d.h.sample_type, &h, body), off};
			in_order = in_order && (n == 0 || v[n].time >= v[n - 1].time);
			n++;
		}
		off += h.size;
	}
	if (!in_order)
		qsort(v, n, sizeof(*v), by_time);
	*out = v;
	return n;
}

int perf_session_samples(struct perf_session *s,
			 void (*fn)(const struct perf_sample *smp, void *arg), void *arg,
			 uint64_t *lost)
{
	struct rec_at *v;
	size_t n, i;

	*lost = 0;
	n = order_records(s, &v, lost);
	for (i = 0; i < n; i++) {
		struct perf_event_header h;
		const unsigned char *body = s->d.buf + v[i].off + sizeof(h);
		struct perf_sample smp;

		memcpy(&h, s->d.buf + v[i].off, sizeof(h));
		size_t blen = h.size - sizeof(h);

		if (h.type == PERF_RECORD_MMAP)
			on_mmap(s, body, blen);
		else if (h.type == PERF_RECORD_COMM)
			on_comm(s, body, blen, h.misc);
		else if (h.type == PERF_RECORD_FORK)
			on_fork(s, body, blen);
		else if (parse_sample(s, body, blen, h.misc, &smp))
			fn(&smp, arg);
		else
			break;
	}
	if (i < n) {
		size_t off = v[i].off;

		free(v);
		return err_set(ERR_PARSE, "%s: damaged sample at offset %zu", s->path, off);
	}
	free(v);
	return 0;
}

void perf_session_free(struct perf_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndsos; i++)
		perf_dso_free(s->dsos[i]);
	for (size_t i = 0; i < s->ncomms; i++)
		free(s->comms[i].name);
	perf_dso_free(s->kernel);
	free(s->dsos);
	free(s->comms);
	free(s->maps);
	free(s->chain);
	free(s->path);
	perf_data_free(&s->d);
	free(s);
}

const char *perf_loc_sym(const struct perf_loc *l)
{
	return l->sym ? l->sym->name : "[unknown]";
}

const char *perf_loc_dso(const struct perf_loc *l)
{
	return l->dso ? l->dso->short_name : "[unknown]";
}
