/* The dynamic mode (see trace-dynamic.h). */
#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/trace/trace-attach.h"
#include "collect/trace/trace-dynamic-priv.h"
#include "collect/trace/trace-dynamic.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace-tracefs.h"
#include "collect/trace/trace.h"
#include "perf/child.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"

#define RING_PAGES 512 /* 2 MiB per CPU, a power of two */

#define STACK_BYTES 4096 /* of user stack per hit that reads memory */

static int uprobe_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int type = -1;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

/* kernel.perf_event_paranoid as the error message quotes it. */
static const char *paranoid(void)
{
	static char v[16] = "?";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (!fgets(v, sizeof(v), f))
			snprintf(v, sizeof(v), "?");
		v[strcspn(v, "\n")] = '\0';
		fclose(f);
	}
	return v;
}

static int open_failed(int err)
{
	if (err == EACCES || err == EPERM)
		return err_set(ERR_INVALID,
			       "collect trace: --dynamic needs root (or CAP_PERFMON with "
			       "kernel.perf_event_paranoid at %s): use --instrumented instead",
			       paranoid());
	return err_set(ERR_IO, "collect trace: cannot attach a uprobe: %s", strerror(err));
}

/* The first probe on a CPU gets the ring the others write to: it must be
 * mapped before they can be redirected to it. */
static int map_ring(struct dyn *dy, long cpu, int fd)
{
	void *r =
		mmap(NULL, (RING_PAGES + 1) * dy->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (r == MAP_FAILED)
		return err_set(ERR_IO, "collect trace: cannot map the perf buffer: %s",
			       strerror(errno));
	dy->leaders[cpu] = fd;
	dy->rings[cpu] = r;
	return 0;
}

static uint64_t size_regs(const struct usdt_arg *a)
{
	if (a->kind == USDT_ARG_REG)
		return 1ull << a->reg;
	if (a->kind == USDT_ARG_MEM)
		return 1ull << a->reg | 1ull << PERF_REG_X86_SP;
	return 0;
}

static struct perf_event_attr probe_attr(int type, const struct probe_spec *sp, uint64_t regs)
{
	struct perf_event_attr a = {.size = sizeof(a), .type = (uint32_t)type};

	/* config:0 is the retprobe bit, config:32-63 the semaphore's offset
	 * (the kernel counts it up while the probe is on). */
	a.config = (sp->kind == PROBE_RETURN ? 1u : 0u) | sp->ref_ctr_off << 32;
	a.uprobe_path = (uint64_t)(uintptr_t)sp->path;
	a.probe_offset = sp->off;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (regs) {
		a.sample_type |= PERF_SAMPLE_REGS_USER;
		a.sample_regs_user = regs;
	}
	if (sp->size.kind == USDT_ARG_MEM) {
		a.sample_type |= PERF_SAMPLE_STACK_USER;
		a.sample_stack_user = STACK_BYTES;
	}
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	return a;
}

/*
 * A function's size member through a pointer may be anywhere (the heap):
 * a tracefs uprobe event has the kernel read it at the hit, and the raw
 * data carries it. Returns where, or an error.
 */
static int tracefs_attr(struct dyn *dy, const struct probe_spec *sp, struct perf_event_attr *a)
{
	struct tracefs_event ev;
	int ret = tracefs_uprobe_add(sp, &ev);

	dy->events = xrealloc(dy->events, (dy->nevents + 1) * sizeof(*dy->events));
	dy->events[dy->nevents++] = ev;
	if (ret < 0)
		return ret;
	*a = (struct perf_event_attr){.size = sizeof(*a), .type = PERF_TYPE_TRACEPOINT};
	a->config = (uint64_t)ev.id;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = 1ull << PERF_REG_X86_SP;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	return ev.field_off;
}

/* Probe @sp on every CPU. */
static int attach(struct dyn *dy, int type, const struct probe_spec *sp)
{
	bool deref = sp->kind == PROBE_ENTRY && sp->size.kind == USDT_ARG_MEM;
	uint64_t regs = deref ? 0 : size_regs(&sp->size);
	struct perf_event_attr ta = {0};
	int raw_off = deref ? tracefs_attr(dy, sp, &ta) : -1;

	if (raw_off < -1)
		return raw_off;
	/* A function's stack pointer pairs each return with its own entry. */
	if (sp->kind == PROBE_ENTRY || sp->kind == PROBE_RETURN)
		regs |= 1ull << PERF_REG_X86_SP;
	for (long cpu = 0; cpu < dy->ncpus; cpu++) {
		struct perf_event_attr a = deref ? ta : probe_attr(type, sp, regs);
		struct probe *p;
		int fd;

		/* Every process on the CPU: an inherited uprobe event re-reads
		 * uprobe_path in the forking process, where our pointer means
		 * nothing. Only code of this file fires it; the samples of the
		 * command's processes are picked by the fork records. */
		a.task = dy->leaders[cpu] < 0;
		fd = (int)syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return open_failed(errno);
		dy->probes = xrealloc(dy->probes, (dy->nprobes + 1) * sizeof(*dy->probes));
		p = &dy->probes[dy->nprobes++];
		*p = (struct probe){.fd = fd,
				    .spec = sp,
				    .regs_mask = regs,
				    .stack = a.sample_type & PERF_SAMPLE_STACK_USER,
				    .raw_off = raw_off};
		if (ioctl(fd, PERF_EVENT_IOC_ID, &p->id) < 0)
			return err_set(ERR_IO, "collect trace: perf event id: %s", strerror(errno));
		if (dy->leaders[cpu] < 0) {
			if (map_ring(dy, cpu, fd) < 0)
				return ERR_IO;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, dy->leaders[cpu]) < 0)
			return err_set(ERR_IO, "collect trace: perf output: %s", strerror(errno));
	}
	return 0;
}

/* ---- reading the rings ---- */

static void add_sample(struct dyn *dy, const struct sample *s)
{
	XGROW(dy->samples, dy->nsamples + 1, dy->cap);
	dy->samples[dy->nsamples++] = *s;
}

/*
 * The size argument of a hit from what follows the time: the ABI word and
 * the sampled registers in register order, then the stack's size, bytes
 * and dynamic size (nothing of them when the hit was not in user code).
 */
static void take_size(const struct dyn *dy, const unsigned char *rec, size_t len, struct sample *s)
{
	const struct probe *p = dyn_probe_of(dy, s->id);
	uint64_t abi, regs[64] = {0}, n = 0;
	size_t at = 32;
	struct usdt_hit h = {.regs = regs};

	if (!p || !p->regs_mask || len < at + 8)
		return;
	if (p->raw_off >= 0) {
		/* The raw data (a u32 size, then the tracefs event's record)
		 * comes before the registers. */
		uint32_t raw;

		memcpy(&raw, rec + at, 4);
		if (at + 4 + raw > len || (size_t)p->raw_off + (size_t)p->spec->size.bytes > raw)
			return;
		memcpy(&n, rec + at + 4 + p->raw_off, (size_t)p->spec->size.bytes);
		s->size = usdt_extend(n, p->spec->size.bytes, p->spec->size.is_signed);
		s->has_size = true;
		at += 4 + raw;
		n = 0;
		if (len < at + 8)
			return;
	}
	memcpy(&abi, rec + at, 8);
	at += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	for (int r = 0; r < 64; r++)
		if (p->regs_mask >> r & 1) {
			if (at + 8 > len)
				return;
			memcpy(&regs[r], rec + at, 8);
			at += 8;
		}
	if (p->regs_mask >> PERF_REG_X86_SP & 1) {
		s->sp = regs[PERF_REG_X86_SP];
		s->has_sp = true;
	}
	if (p->stack && at + 8 <= len) {
		memcpy(&n, rec + at, 8);
		at += 8;
		if (n && at + n + 8 <= len) {
			uint64_t dyn_size;

			memcpy(&dyn_size, rec + at + n, 8);
			h.stack = rec + at;
			h.stack_len = dyn_size < n ? dyn_size : n;
		}
	}
	if (p->raw_off < 0)
		s->has_size = usdt_arg_value(&p->spec->size, &h, &s->size);
}

/* One record at @rec (copied out of the ring when it wrapped). */
static void take_record(struct dyn *dy, const unsigned char *rec)
{
	struct perf_event_header h;
	struct sample s = {0};

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 24) {
		memcpy(&s.id, rec + 8, 8);
		memcpy(&s.pid, rec + 16, 4);
		memcpy(&s.tid, rec + 20, 4);
		memcpy(&s.time, rec + 24, 8);
		take_size(dy, rec, h.size, &s);
		add_sample(dy, &s);
		dy->bytes += h.size;
	} else if (h.type == PERF_RECORD_FORK && h.size >= sizeof(h) + 24) {
		struct fork_rec f;

		memcpy(&f.pid, rec + 8, 4);
		memcpy(&f.ppid, rec + 12, 4);
		memcpy(&f.time, rec + 24, 8);
		if (f.pid != f.ppid) {
			dy->forks = xrealloc(dy->forks, (dy->nforks + 1) * sizeof(*dy->forks));
			dy->forks[dy->nforks++] = f;
		}
	} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
		uint64_t lost;

		memcpy(&lost, rec + 16, 8);
		dy->lost += lost;
	}
}

static void drain_ring(struct dyn *dy, void *ring)
{
	struct perf_event_mmap_page *mp = ring;
	unsigned char *data = (unsigned char *)ring + dy->page, rec[65536];
	uint64_t size = RING_PAGES * dy->page;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t at = tail % size;

		for (size_t k = 0; k < sizeof(h); k++)
			((unsigned char *)&h)[k] = data[(at + k) % size];
		if (h.size == 0 || tail + h.size > head)
			break;
		for (size_t k = 0; k < h.size; k++)
			rec[k] = data[(at + k) % size];
		take_record(dy, rec);
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct dyn *dy)
{
	for (long cpu = 0; cpu < dy->ncpus; cpu++)
		drain_ring(dy, dy->rings[cpu]);
}

/* ---- the command ---- */

/* Where the command's output goes: the log, /dev/null, or ours (-1). */
static int output_fd(const struct collect_ctx *c)
{
	if (c->output == OUTPUT_DEFAULT)
		return -1;
	if (c->output == OUTPUT_CAPTURE && c->log_path)
		return open(c->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return open("/dev/null", O_WRONLY | O_CLOEXEC);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds from --timeout's SIGTERM to its SIGKILL, as spawn_run waits. */
#define STOP_GRACE 2.0

/*
 * Drains the rings until the command ends (or its --timeout does: SIGTERM
 * first, so that it may clean up, and SIGKILL if it is still there after
 * STOP_GRACE; the samples read until then are kept).
 */
static void watch_child(struct collect_ctx *c, struct dyn *dy, pid_t pid, struct spawn_result *run)
{
	double start = now_s(), termed = 0;
	struct pollfd *pf = xcalloc((size_t)dy->ncpus, sizeof(*pf));
	bool killed = false;

	for (long cpu = 0; cpu < dy->ncpus; cpu++)
		pf[cpu] = (struct pollfd){.fd = dy->leaders[cpu], .events = POLLIN};
	for (;;) {
		pid_t w = waitpid(pid, &run->status, WNOHANG);

		drain_all(dy);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (spawn_interrupted() && !killed) {
			kill(pid, SIGKILL);
			killed = true;
		} else if (!termed && c->timeout > 0 && now_s() - start > c->timeout) {
			kill(pid, SIGTERM);
			termed = now_s();
			run->timed_out = true;
		} else if (termed && !killed && now_s() - termed > STOP_GRACE) {
			kill(pid, SIGKILL);
			killed = true;
		}
		poll(pf, (nfds_t)dy->ncpus, 50);
	}
	drain_all(dy);
	run->real = now_s() - start;
	free(pf);
}

/* ---- the whole run ---- */

/* Two probes a function on each CPU: -s all may need thousands of files. */
static void raise_fd_limit(size_t want)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < want + 64) {
		r.rlim_cur = want + 64 < r.rlim_max ? want + 64 : r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int attach_plan(struct dyn *dy, const struct probe_plan *plan, const struct trace_opts *o,
		       const struct trace_data *d)
{
	int type = uprobe_type(), ret = 0;

	if (type < 0)
		return err_set(ERR_NOTFOUND, "collect trace: this kernel has no uprobe PMU "
					     "(/sys/bus/event_source/devices/uprobe): use "
					     "--instrumented instead");
	raise_fd_limit(plan->n * (size_t)dy->ncpus);
	for (size_t i = 0; i < plan->n && ret == 0; i++) {
		static const char *const kinds[] = {"entry", "return", "usdt start", "usdt end",
						    "usdt hit"};
		const struct probe_spec *sp = &plan->specs[i];

		trace_watch(o, "probe %s %s at %s+%#lx%s", kinds[sp->kind],
			    d->names[sp->name & ~TRACE_NAMED], sp->path, (unsigned long)sp->off,
			    sp->ref_ctr_off ? " (with a semaphore)" : "");
		ret = attach(dy, type, sp);
	}
	if (ret == 0)
		dyn_index_probes(dy);
	return ret;
}

static void dyn_release(struct dyn *dy)
{
	for (long cpu = 0; dy->rings && cpu < dy->ncpus; cpu++)
		if (dy->rings[cpu])
			munmap(dy->rings[cpu], (RING_PAGES + 1) * dy->page);
	for (size_t i = 0; i < dy->nprobes; i++)
		close(dy->probes[i].fd);
	for (size_t i = 0; i < dy->nevents; i++)
		tracefs_uprobe_remove(&dy->events[i]);
	free(dy->events);
	free(dy->probes);
	free(dy->by_id);
	free(dy->leaders);
	free(dy->rings);
	free(dy->samples);
	free(dy->forks);
}

int trace_dynamic_run(struct collect_ctx *c, const struct trace_opts *o, struct sym_cache *syms,
		      struct trace_data *d, struct spawn_result *run)
{
	struct dyn dy = {.ncpus = sysconf(_SC_NPROCESSORS_CONF), .page = (size_t)getpagesize()};
	struct spawner sp;
	struct spawn_opts so = {.cwd = c->env->cwd};
	struct probe_plan plan = {0};
	struct perf_child ch = {0, -1, -1, false};
	struct perf_child_io io = {.in_fd = -1, .cwd = c->env->cwd};
	char *exe = NULL, *bin = NULL;
	int ret;

	/* The spawner resolves the command on PATH (in its directory) and says
	 * when it cannot run; what to probe is known before the command starts,
	 * in its file as named from here. */
	ret = spawner_init(&sp, c->argv, &so);
	if (ret == 0) {
		exe = spawn_path_at(c->env->cwd, sp.path);
		bin = o->binary ? spawn_path_at(c->env->cwd, o->binary) : NULL;
		ret = trace_plan(o, bin ? bin : exe, c->env->cwd, syms, d, &plan);
		free(bin);
	}
	if (ret < 0) {
		trace_plan_free(&plan);
		spawner_release(&sp);
		free(exe);
		return ret;
	}
	dy.leaders = xmalloc((size_t)dy.ncpus * sizeof(*dy.leaders));
	dy.rings = xcalloc((size_t)dy.ncpus, sizeof(*dy.rings));
	for (long cpu = 0; cpu < dy.ncpus; cpu++)
		dy.leaders[cpu] = -1;
	fflush(NULL);
	io.out_fd = io.err_fd = output_fd(c);
	/* Held before its exec until the probes are on. */
	ret = perf_child_fork_io(&ch, c->argv, &io);
	dy.child = ch.pid;
	if (ret == 0)
		ret = attach_plan(&dy, &plan, o, d);
	if (ret == 0)
		ret = perf_child_start(&ch, c->argv[0]);
	if (ret == 0) {
		watch_child(c, &dy, ch.pid, run);
		ch.pid = 0; /* reaped */
	}
	perf_child_release(&ch); /* on an error: killed before it ran */
	if (io.out_fd >= 0)
		close(io.out_fd);
	trace_watch(o, "%zu probe hits, %zu forks, %lu lost", dy.nsamples, dy.nforks,
		    (unsigned long)dy.lost);
	if (ret == 0 && dy.lost)
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: %lu probe hits were lost (the buffer overflowed)",
			    (unsigned long)dy.lost);
	if (ret == 0)
		dyn_pair_samples(&dy, exe, d);
	if (ret == 0 && dy.unreturned)
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: %lu calls nested deeper than the kernel probes returns (64 "
			    "calls in a thread) were dropped",
			    (unsigned long)dy.unreturned);
	d->bytes = dy.bytes;
	dyn_release(&dy);
	trace_plan_free(&plan);
	spawner_release(&sp);
	free(exe);
	return ret;
}
