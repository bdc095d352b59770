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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/trace/trace-dynamic.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"

#define RING_PAGES 512 /* 2 MiB per CPU, a power of two */

/* One probe: a function's entry or return on one CPU. */
struct probe {
	int fd;
	uint64_t id;
	uint64_t addr; /* the function's symbol value */
	bool ret;
	bool regs; /* its samples carry the --size argument's register */
};

struct sample {
	uint64_t id, time;
	uint32_t pid, tid;
	bool has_size;
	int64_t size;
};

/* A PERF_RECORD_FORK: process @pid made by @ppid (a thread when equal). */
struct fork_rec {
	uint32_t pid, ppid;
	uint64_t time;
};

struct dyn {
	struct probe *probes;
	size_t nprobes;
	int *leaders; /* per CPU: the probe whose ring the others write to */
	void **rings;
	long ncpus;
	size_t page;
	struct sample *samples;
	size_t nsamples, cap;
	uint64_t lost;
	struct fork_rec *forks;
	size_t nforks;
	pid_t child;
};

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

/* The file offset of symbol value @v: its PT_LOAD segment maps it there. */
static int file_offset(const char *path, uint64_t v, uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = ERR_NOTFOUND;
	size_t n = 0;
	Elf *elf;

	if (fd < 0)
		return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz) {
				*off = v - ph.p_vaddr + ph.p_offset;
				ret = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret < 0 ? err_set(ret, "collect trace: no loadable code at %#lx in %s",
				 (unsigned long)v, path)
		       : 0;
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

/* Entry and return probes of @addr (file offset @off) on every CPU. */
/* The registers of the first six integer arguments (x86-64 System V). */
static const int arg_regs[] = {PERF_REG_X86_DI, PERF_REG_X86_SI, PERF_REG_X86_DX,
			       PERF_REG_X86_CX, PERF_REG_X86_R8, PERF_REG_X86_R9};

static int attach(struct dyn *dy, int type, const char *path, uint64_t addr, uint64_t off, int argn)
{
	for (int ret = 0; ret < 2; ret++)
		for (long cpu = 0; cpu < dy->ncpus; cpu++) {
			struct perf_event_attr a = {.size = sizeof(a), .type = (uint32_t)type};
			struct probe *p;
			int fd;

			a.config = (uint64_t)ret; /* the retprobe bit, config:0 */
			a.uprobe_path = (uint64_t)(uintptr_t)path;
			a.probe_offset = off;
			a.sample_period = 1;
			a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
			if (argn && !ret) {
				a.sample_type |= PERF_SAMPLE_REGS_USER;
				a.sample_regs_user = 1ull << arg_regs[argn - 1];
			}
			/* Every process on the CPU: an inherited uprobe event re-reads
			 * uprobe_path in the forking process, where our pointer means
			 * nothing. Only code of this file fires it; the samples of the
			 * command's processes are picked by the fork records. */
			a.task = dy->leaders[cpu] < 0;
			a.use_clockid = 1;
			a.clockid = CLOCK_MONOTONIC;
			fd = (int)syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1,
					  PERF_FLAG_FD_CLOEXEC);
			if (fd < 0)
				return open_failed(errno);
			dy->probes = xrealloc(dy->probes, (dy->nprobes + 1) * sizeof(*dy->probes));
			p = &dy->probes[dy->nprobes++];
			*p = (struct probe){
				.fd = fd, .addr = addr, .ret = ret, .regs = argn && !ret};
			if (ioctl(fd, PERF_EVENT_IOC_ID, &p->id) < 0)
				return err_set(ERR_IO, "collect trace: perf event id: %s",
					       strerror(errno));
			if (dy->leaders[cpu] < 0) {
				if (map_ring(dy, cpu, fd) < 0)
					return ERR_IO;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, dy->leaders[cpu]) < 0)
				return err_set(ERR_IO, "collect trace: perf output: %s",
					       strerror(errno));
		}
	return 0;
}

/* ---- reading the rings ---- */

static void add_sample(struct dyn *dy, const struct sample *s)
{
	if (dy->nsamples == dy->cap) {
		dy->cap = dy->cap ? dy->cap * 2 : 4096;
		dy->samples = xrealloc(dy->samples, dy->cap * sizeof(*dy->samples));
	}
	dy->samples[dy->nsamples++] = *s;
}

static const struct probe *probe_of(const struct dyn *dy, uint64_t id);

/* The --size register after the time: the ABI word, then the register
 * (none when the sample hit no user code). */
static void take_size(const struct dyn *dy, const unsigned char *rec, size_t len, struct sample *s)
{
	const struct probe *p = probe_of(dy, s->id);
	uint64_t abi;

	if (!p || !p->regs || len < 48)
		return;
	memcpy(&abi, rec + 32, 8);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	memcpy(&s->size, rec + 40, 8);
	s->has_size = true;
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

/* The child waits for the probes on @sync before it runs the command. */
static pid_t start_child(struct collect_ctx *c, const char *path, int sync[2])
{
	pid_t pid = fork();
	char go;

	if (pid != 0)
		return pid;
	close(sync[1]);
	if (read(sync[0], &go, 1) != 1)
		_exit(127);
	if (c->output != OUTPUT_DEFAULT) {
		int fd = c->output == OUTPUT_CAPTURE && c->log_path
				 ? open(c->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644)
				 : open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	execv(path, c->argv);
	_exit(127);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Drains the rings until the command ends (or its --timeout does). */
static void watch_child(struct collect_ctx *c, struct dyn *dy, pid_t pid, struct spawn_result *run)
{
	double start = now_s();
	struct pollfd *pf = xcalloc((size_t)dy->ncpus, sizeof(*pf));
	bool killed = false;

	for (long cpu = 0; cpu < dy->ncpus; cpu++)
		pf[cpu] = (struct pollfd){.fd = dy->leaders[cpu], .events = POLLIN};
	for (;;) {
		pid_t w = waitpid(pid, &run->status, WNOHANG);

		drain_all(dy);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (!killed &&
		    ((c->timeout > 0 && now_s() - start > c->timeout) || spawn_interrupted())) {
			kill(pid, SIGKILL);
			killed = true;
			run->timed_out = !spawn_interrupted();
		}
		poll(pf, (nfds_t)dy->ncpus, 50);
	}
	drain_all(dy);
	run->real = now_s() - start;
	free(pf);
}

/* ---- samples into calls ---- */

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static const struct probe *probe_of(const struct dyn *dy, uint64_t id)
{
	for (size_t i = 0; i < dy->nprobes; i++)
		if (dy->probes[i].id == id)
			return &dy->probes[i];
	return NULL;
}

static void add_proc(struct trace_data *d, int pid, const char *path)
{
	struct trace_proc *p;

	if (trace_proc_find(d, pid))
		return;
	d->procs = xrealloc(d->procs, (d->nprocs + 1) * sizeof(*d->procs));
	p = &d->procs[d->nprocs++];
	*p = (struct trace_proc){.pid = pid, .ns_per_tick = 1.0, .nobjs = 1};
	p->objs = xcalloc(1, sizeof(*p->objs));
	p->objs[0] = (struct trace_object){0, 0, UINT64_MAX, xstrdup(path)};
}

/* One thread's samples [i, end): entries pushed, returns close the
 * innermost open call of their function, as trace-read.c does. */
static void pair_thread(const struct dyn *dy, size_t i, size_t end, struct trace_data *d)
{
	struct trace_call *stack = xcalloc(end - i, sizeof(*stack));
	uint64_t *children = xcalloc(end - i, sizeof(*children));
	size_t depth = 0, order = 0;

	for (; i < end; i++) {
		const struct sample *s = &dy->samples[i];
		const struct probe *p = probe_of(dy, s->id);
		size_t k = depth;

		if (!p)
			continue;
		if (!p->ret) {
			stack[depth] = (struct trace_call){.addr = p->addr,
							   .incl = s->time,
							   .order = order,
							   .pid = (int)s->pid,
							   .tid = (int)s->tid,
							   .depth = (uint32_t)depth,
							   .has_size = s->has_size,
							   .size = s->size};
			children[depth++] = 0;
			order++;
			continue;
		}
		while (k > 0 && stack[k - 1].addr != p->addr)
			k--;
		if (k == 0)
			continue;
		depth = k - 1;
		struct trace_call c = stack[depth];
		c.incl = s->time - c.incl;
		c.excl = c.incl - (children[depth] < c.incl ? children[depth] : c.incl);
		if (depth > 0)
			children[depth - 1] += c.incl;
		trace_data_add_call(d, &c);
	}
	free(stack);
	free(children);
}

static int cmp_fork(const void *a, const void *b)
{
	const struct fork_rec *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The command's process and those it forked, in the order they were made. */
static uint32_t *command_pids(struct dyn *dy, size_t *n)
{
	uint32_t *pids = xmalloc((dy->nforks + 1) * sizeof(*pids));

	*n = 0;
	pids[(*n)++] = (uint32_t)dy->child;
	if (dy->nforks)
		qsort(dy->forks, dy->nforks, sizeof(*dy->forks), cmp_fork);
	for (size_t i = 0; i < dy->nforks; i++)
		for (size_t k = 0; k < *n; k++)
			if (pids[k] == dy->forks[i].ppid) {
				pids[(*n)++] = dy->forks[i].pid;
				break;
			}
	return pids;
}

/* Drops the samples of processes that are not the command's. */
static void keep_command_samples(struct dyn *dy)
{
	size_t n, kept = 0;
	uint32_t *pids = command_pids(dy, &n);

	for (size_t i = 0; i < dy->nsamples; i++)
		for (size_t k = 0; k < n; k++)
			if (dy->samples[i].pid == pids[k]) {
				dy->samples[kept++] = dy->samples[i];
				break;
			}
	dy->nsamples = kept;
	free(pids);
}

static void pair_samples(struct dyn *dy, const char *path, struct trace_data *d)
{
	keep_command_samples(dy);
	if (dy->nsamples)
		qsort(dy->samples, dy->nsamples, sizeof(*dy->samples), cmp_sample);
	for (size_t i = 0, end; i < dy->nsamples; i = end) {
		for (end = i; end < dy->nsamples && dy->samples[end].tid == dy->samples[i].tid;
		     end++)
			;
		add_proc(d, (int)dy->samples[i].pid, path);
		pair_thread(dy, i, end, d);
	}
}

/* ---- the whole run ---- */

static const struct sym *find_func(const struct sym_file *f, const char *name)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (strcmp(f->syms[i].name, name) == 0)
			return &f->syms[i];
	return NULL;
}

static bool find_rule_func(const struct trace_opts *o, const char *name)
{
	for (size_t i = 0; i < o->nrules; i++)
		if (strcmp(o->rules[i].func, name) == 0)
			return true;
	return false;
}

/* --size's argument number for @func, or 0. */
static int size_arg(const struct trace_opts *o, const char *func)
{
	for (size_t i = 0; i < o->nsizes; i++)
		if (strcmp(o->sizes[i].func, func) == 0)
			return o->sizes[i].argn;
	return 0;
}

/* -s userspace: the program's own functions, not the C runtime's start-up. */
static bool user_function(const struct sym *s, const struct sym *prev)
{
	static const char *const crt[] = {"frame_dummy", "register_tm_clones",
					  "deregister_tm_clones"};

	if (s->size == 0 || s->name[0] == '_' || (prev && prev->value == s->value))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(crt); i++)
		if (strcmp(s->name, crt[i]) == 0)
			return false;
	return true;
}

static int attach_symbol(struct dyn *dy, const struct trace_opts *o, int type, const char *path,
			 const struct sym *s)
{
	uint64_t off = 0;
	int ret = file_offset(path, s->value, &off);

	return ret < 0 ? ret : attach(dy, type, path, s->value, off, size_arg(o, s->name));
}

static int attach_rules(struct dyn *dy, const struct trace_opts *o, struct sym_cache *syms,
			const char *path)
{
	const struct sym_file *f = trace_sym_file(syms, path);
	int type = uprobe_type(), ret = 0;

	if (type < 0)
		return err_set(ERR_NOTFOUND, "collect trace: this kernel has no uprobe PMU "
					     "(/sys/bus/event_source/devices/uprobe): use "
					     "--instrumented instead");
	if (!f->nsyms)
		return err_set(ERR_INVALID, "collect trace: %s has no symbol table (stripped?)",
			       path);
	for (size_t i = 0; o->userspace && i < f->nsyms && ret == 0; i++)
		if (user_function(&f->syms[i], i ? &f->syms[i - 1] : NULL) &&
		    !find_rule_func(o, f->syms[i].name))
			ret = attach_symbol(dy, o, type, path, &f->syms[i]);
	for (size_t i = 0; i < o->nrules && ret == 0; i++) {
		const struct sym *s = find_func(f, o->rules[i].func);

		if (!s)
			return err_set(ERR_INVALID, "collect trace: no function '%s' in %s",
				       o->rules[i].func, path);
		ret = attach_symbol(dy, o, type, path, s);
	}
	return ret;
}

static void dyn_release(struct dyn *dy)
{
	for (long cpu = 0; dy->rings && cpu < dy->ncpus; cpu++)
		if (dy->rings[cpu])
			munmap(dy->rings[cpu], (RING_PAGES + 1) * dy->page);
	for (size_t i = 0; i < dy->nprobes; i++)
		close(dy->probes[i].fd);
	free(dy->probes);
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
	struct spawn_opts so = {0};
	int sync[2], ret;
	pid_t pid;

	/* The spawner resolves the command on PATH and says when it cannot run. */
	ret = spawner_init(&sp, c->argv, &so);
	if (ret < 0 || pipe(sync) < 0) {
		spawner_release(&sp);
		return ret < 0 ? ret : err_set(ERR_IO, "pipe: %s", strerror(errno));
	}
	dy.leaders = xmalloc((size_t)dy.ncpus * sizeof(*dy.leaders));
	dy.rings = xcalloc((size_t)dy.ncpus, sizeof(*dy.rings));
	for (long cpu = 0; cpu < dy.ncpus; cpu++)
		dy.leaders[cpu] = -1;
	fflush(NULL);
	pid = start_child(c, sp.path, sync);
	dy.child = pid;
	close(sync[0]);
	ret = pid < 0 ? err_set(ERR_CHILD, "fork: %s", strerror(errno))
		      : attach_rules(&dy, o, syms, sp.path);
	if (pid > 0 && ret == 0 && write(sync[1], "g", 1) != 1)
		ret = err_set(ERR_IO, "cannot start '%s'", c->argv[0]);
	close(sync[1]); /* on an error the child reads nothing and exits */
	if (pid > 0 && ret == 0)
		watch_child(c, &dy, pid, run);
	else if (pid > 0)
		waitpid(pid, NULL, 0);
	if (ret == 0 && dy.lost)
		fprintf(stderr, "Warning: %lu probe hits were lost (the buffer overflowed)\n",
			(unsigned long)dy.lost);
	if (ret == 0)
		pair_samples(&dy, sp.path, d);
	dyn_release(&dy);
	spawner_release(&sp);
	return ret;
}
