/* Copying records out of the kernel's ring buffers. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf/sampler.h"
#include "util/error.h"
#include "util/xalloc.h"

enum { RING_PAGES = 128, MIN_RING_PAGES = 8 }; /* 512 KiB a buffer at most */

/* Maps the ring buffer, halving it while locked memory runs short (the
 * perf_event_mlock_kb budget is per user, shared by every buffer). */
static int map_ring(struct perf_ring *r, const char *name)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t pages = RING_PAGES; pages >= MIN_RING_PAGES; pages /= 2) {
		r->data_size = pages * page;
		r->base = mmap(NULL, page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
			       0);
		if (r->base != MAP_FAILED)
			return 0;
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	r->base = NULL;
	return err_set(ERR_IO, "cannot map the ring buffer of %s: %s%s", name, strerror(errno),
		       errno == EPERM ? " (raise /proc/sys/kernel/perf_event_mlock_kb)" : "");
}

static int add_ring(struct perf_sampler *s, const char *name, struct perf_event_attr *attr,
		    pid_t pid, int cpu)
{
	bool unsupported;
	int fd = perf_open(name, attr, pid, cpu, &unsupported);

	if (fd < 0)
		return fd;
	s->rings = xrealloc(s->rings, (s->n + 1) * sizeof(*s->rings));
	s->rings[s->n] = (struct perf_ring){fd, NULL, 0};
	s->n++;
	return map_ring(&s->rings[s->n - 1], name);
}

int perf_sampler_open(struct perf_sampler *s, const char *name, struct perf_event_attr *attr,
		      pid_t child, const pid_t *tids, size_t ntids)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = 0;

	attr->mmap = attr->comm = attr->task = 1;
	attr->comm_exec = 1;
	attr->sample_id_all = 1;
	attr->watermark = 1;
	/* Woken often enough for the smallest buffer; the poll times out anyway. */
	attr->wakeup_watermark = (uint32_t)(MIN_RING_PAGES * sysconf(_SC_PAGESIZE) / 2);
	/* Inherited events need a buffer per CPU; a thread's own may use any. */
	attr->inherit = child > 0;
	attr->disabled = attr->enable_on_exec = child > 0;
	if (child > 0 || child == PERF_SAMPLER_ALL)
		for (long cpu = 0; cpu < (ncpu > 0 ? ncpu : 1) && ret == 0; cpu++)
			ret = add_ring(s, name, attr, child > 0 ? child : -1, (int)cpu);
	for (size_t i = 0; i < ntids && ret == 0; i++)
		ret = add_ring(s, name, attr, tids[i], -1);
	return ret;
}

/* Copies @len bytes at ring offset @off, wrapping at the end. */
static void ring_copy(const struct perf_ring *r, uint64_t off, void *dst, size_t len)
{
	const unsigned char *data = (const unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	size_t at = (size_t)(off % r->data_size), first = r->data_size - at;

	if (first >= len) {
		memcpy(dst, data + at, len);
	} else {
		memcpy(dst, data + at, first);
		memcpy((unsigned char *)dst + first, data, len - first);
	}
}

static void count_record(struct perf_sampler *s, const struct perf_event_header *h,
			 const unsigned char *rec)
{
	if (h->type == PERF_RECORD_SAMPLE) {
		s->samples++;
	} else if (h->type == PERF_RECORD_LOST) {
		uint64_t lost;

		memcpy(&lost, rec + sizeof(*h) + 8, sizeof(lost));
		s->lost += lost;
	}
}

static int drain_ring(struct perf_sampler *s, struct perf_ring *r)
{
	struct perf_event_mmap_page *pg = r->base;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	int ret = 0;

	while (tail < head && ret == 0) {
		struct perf_event_header h;

		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		s->scratch = xgrow(s->scratch, 1, h.size, &s->scratch_cap);
		ring_copy(r, tail, s->scratch, h.size);
		count_record(s, &h, s->scratch);
		ret = perf_data_write(s->out, s->scratch, h.size);
		if (ret == 0 && s->on_record)
			s->on_record(s->on_record_arg, s->scratch, h.size);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return ret;
}

int perf_sampler_drain(struct perf_sampler *s)
{
	for (size_t i = 0; i < s->n; i++) {
		int ret = drain_ring(s, &s->rings[i]);

		if (ret < 0)
			return ret;
	}
	return 0;
}

int perf_sampler_poll(struct perf_sampler *s, int timeout_ms)
{
	struct pollfd *p = xcalloc(s->n ? s->n : 1, sizeof(*p));

	for (size_t i = 0; i < s->n; i++)
		p[i] = (struct pollfd){.fd = s->rings[i].fd, .events = POLLIN};
	poll(p, s->n, timeout_ms);
	free(p);
	return perf_sampler_drain(s);
}

void perf_sampler_close(struct perf_sampler *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < s->n; i++) {
		if (s->rings[i].base)
			munmap(s->rings[i].base, page + s->rings[i].data_size);
		close(s->rings[i].fd);
	}
	free(s->rings);
	free(s->scratch);
	s->rings = NULL;
	s->scratch = NULL;
	s->n = s->scratch_cap = 0;
}

/* ---- what a process already had before sampling began ---- */

/* A comm record for thread @tid of @pid, named by /proc's @path. */
static int synth_comm_at(struct perf_data_writer *w, pid_t pid, pid_t tid, const char *path)
{
	char name[32] = "";
	unsigned char rec[sizeof(struct perf_event_header) + 8 + 40];
	struct perf_event_header h = {.type = PERF_RECORD_COMM};
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};
	FILE *f;

	f = fopen(path, "re");
	if (!f || !fgets(name, sizeof(name), f))
		snprintf(name, sizeof(name), "%d", (int)pid);
	if (f)
		fclose(f);
	name[strcspn(name, "\n")] = '\0';
	memset(rec, 0, sizeof(rec));
	h.size = (uint16_t)(sizeof(h) + 8 + ((strlen(name) + 8) & ~(size_t)7));
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), ids, sizeof(ids));
	memcpy(rec + sizeof(h) + 8, name, strlen(name));
	return perf_data_write(w, rec, h.size);
}

static int synth_comm(struct perf_data_writer *w, pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	return synth_comm_at(w, pid, pid, path);
}

static int numeric(const struct dirent *d)
{
	return d->d_name[0] >= '1' && d->d_name[0] <= '9';
}

/* Every thread of process @pid (the directory /proc/PID/task). */
static int synth_threads(struct perf_data_writer *w, pid_t pid)
{
	char dir[64];
	struct dirent **t;
	int n, ret = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	n = scandir(dir, &t, numeric, NULL);
	for (int i = 0; i < n; i++) {
		char path[96];

		snprintf(path, sizeof(path), "%s/%.16s/comm", dir, t[i]->d_name);
		if (ret == 0)
			ret = synth_comm_at(w, pid, (pid_t)atoi(t[i]->d_name), path);
		free(t[i]);
	}
	if (n >= 0)
		free(t);
	return ret;
}

struct synth_mmap {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char file[4096];
};

static int synth_map(struct perf_data_writer *w, pid_t pid, const char *line)
{
	unsigned long long start, end, pgoff;
	char perms[8];
	int at = 0;
	struct synth_mmap r;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &at) < 4 ||
	    !at || !strchr(perms, 'x'))
		return 0;
	memset(&r, 0, sizeof(r));
	snprintf(r.file, sizeof(r.file), "%s", line + at);
	r.file[strcspn(r.file, "\n")] = '\0';
	if (!r.file[0])
		return 0;
	r.h.type = PERF_RECORD_MMAP;
	r.h.size =
		(uint16_t)(offsetof(struct synth_mmap, file) + ((strlen(r.file) + 8) & ~(size_t)7));
	r.pid = r.tid = (uint32_t)pid;
	r.addr = start;
	r.len = end - start;
	r.pgoff = pgoff;
	return perf_data_write(w, &r, r.h.size);
}

/* The executable mappings of /proc/PID/maps (none for kernel threads, and
 * none for a process that ended meanwhile). */
static int synth_maps(struct perf_data_writer *w, pid_t pid)
{
	char path[64], line[4352];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (ret == 0 && f && fgets(line, sizeof(line), f))
		ret = synth_map(w, pid, line);
	if (f)
		fclose(f);
	return ret;
}

int perf_sampler_synthesize(struct perf_data_writer *w, pid_t pid)
{
	int ret = synth_comm(w, pid);

	return ret < 0 ? ret : synth_maps(w, pid);
}

int perf_sampler_synthesize_all(struct perf_data_writer *w)
{
	struct dirent **p;
	int n = scandir("/proc", &p, numeric, NULL), ret = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = (pid_t)atoi(p[i]->d_name);

		if (ret == 0)
			ret = synth_threads(w, pid);
		if (ret == 0)
			ret = synth_maps(w, pid);
		free(p[i]);
	}
	if (n >= 0)
		free(p);
	return ret;
}
