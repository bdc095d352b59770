/*
 * libveles-trace.so: the runtime of `veles collect trace --instrumented`
 * for programs built with -finstrument-functions (docs/collect-trace.md).
 *
 * Every function entry and exit reads the cycle counter and appends a
 * record, one 32-bit word in the common case, to the calling thread's
 * buffer (docs/trace-format.md), signal handlers' hooks included; a full
 * buffer is written to the thread's file. At exit the cycle counter
 * is calibrated against CLOCK_MONOTONIC and the loaded objects are listed
 * with their load bias, so the collector can turn records into
 * microseconds and addresses into names. With VELES_TRACE_MODE=aggregate
 * nothing per call leaves the process: each thread sums call counts,
 * inclusive and exclusive cycles and a histogram per function instead.
 *
 * SIGTERM and SIGINT (the collector's --timeout) end the recording as exit
 * does before the signal's default action ends the process: see stop_now.
 *
 * Inactive unless VELES_TRACE_DIR names the directory to write to, so a
 * program built with the flags runs normally outside the collector.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

#include "trace-priv.h"

__thread struct tbuf *tb __attribute__((tls_model("initial-exec")));
int stopped = 1;
static int aggregate;
static char dir[4096];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tbuf *live;
static pthread_key_t exit_key;
static uint64_t tsc_start;
static uint64_t lost_calls; /* of threads finished */
static struct timespec ts_start;
/* A stop signal that came in the middle of a record: the next hook ends. */
static volatile sig_atomic_t stop_sig;
static int ended;		   /* the records and the calibration are written */
static uintptr_t text_lo, text_hi; /* the runtime's own code */

static void stop_pending(void);

static NOINSTR pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- writing ---- */

static NOINSTR void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		c += w;
		n -= (size_t)w;
	}
}

/*
 * fprintf to a file descriptor through a buffer on the stack: the end of
 * the recording may run in a signal handler, where stdio and malloc (which
 * fdopen and dprintf call) may hold the lock the interrupted code took.
 */
static NOINSTR __attribute__((format(printf, 2, 3))) void fd_printf(int fd, const char *fmt, ...)
{
	char line[4096 + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		write_all(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/*
 * The buffer being filled is held and the other one, held since the
 * previous flush, written: a hook that a signal handler interrupted after
 * reserving its slot writes it after the handler's flush, into memory
 * that is still to be written. With @all, both are written. Signals wait
 * meanwhile, so a handler never sees the buffers half switched.
 */
static NOINSTR void flush(struct tbuf *b, bool all)
{
	sigset_t every, old;
	uint64_t t0;
	size_t n;

	sigfillset(&every);
	pthread_sigmask(SIG_SETMASK, &every, &old);
	t0 = __rdtsc();
	n = (size_t)(b->pos - b->base);
	if (b->fd >= 0 && b->nheld)
		write_all(b->fd, b->held, b->nheld * sizeof(uint32_t));
	b->nheld = 0;
	if (all) {
		if (b->fd >= 0 && n)
			write_all(b->fd, b->base, n * sizeof(uint32_t));
	} else {
		uint32_t *full = b->base;

		b->base = b->held;
		b->held = full;
		b->nheld = n;
		b->end = b->base + BUF_WORDS;
	}
	b->pos = b->base;
	/* The time the write took is taken out of the timeline: the next
	 * record's delta counts from when it finished, so no call looks
	 * slower for having been open meanwhile. */
	b->last += __rdtsc() - t0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static NOINSTR int open_in_dir(const char *name)
{
	char path[sizeof(dir) + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* The thread's record file, its header carrying the counter's start. */
static NOINSTR void open_records(struct tbuf *b)
{
	char name[64];
	struct vtr_header h = {VTR_MAGIC, VTR_VERSION, (uint32_t)getpid(), (uint32_t)b->tid,
			       b->last};

	snprintf(name, sizeof(name), "%d.%d.vtr", (int)getpid(), (int)b->tid);
	b->fd = open_in_dir(name);
	if (b->fd >= 0)
		write_all(b->fd, &h, sizeof(h));
}

/* Room for @words more words in the buffer. */
static HOT inline void room(struct tbuf *b, size_t words)
{
	if (UNLIKELY(b->pos + words > b->end))
		flush(b, false);
}

/* ---- function indices ---- */

static HOT inline uint32_t hash_addr(uintptr_t a, uint32_t mask)
{
	return (uint32_t)(((uint64_t)a * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

static NOINSTR void map_grow(struct tbuf *b)
{
	uint32_t old = b->mask + 1, cap = old * 2;
	struct slot *map = calloc(cap, sizeof(*map)), *prev = b->map;

	if (!map)
		abort();
	b->map = map;
	b->mask = cap - 1;
	for (uint32_t i = 0; i < old; i++) {
		uint32_t h = hash_addr(prev[i].addr, b->mask);

		if (!prev[i].addr)
			continue;
		while (map[h].addr)
			h = (h + 1) & b->mask;
		map[h] = prev[i];
	}
	free(prev);
}

static NOINSTR void agg_grow(struct tbuf *b)
{
	/* 64 to start: with its histogram a function takes 2 KiB a thread. */
	uint32_t cap = b->aggs_cap ? b->aggs_cap * 2 : 64;

	b->aggs = realloc(b->aggs, cap * sizeof(*b->aggs));
	b->addrs = realloc(b->addrs, cap * sizeof(*b->addrs));
	if (!b->aggs || !b->addrs)
		abort();
	memset(b->aggs + b->aggs_cap, 0, (cap - b->aggs_cap) * sizeof(*b->aggs));
	b->aggs_cap = cap;
}

/* A function seen for the first time: numbered, and defined in the records. */
static NOINSTR uint32_t define(struct tbuf *b, uintptr_t a, uint32_t h)
{
	uint32_t idx = b->nfuncs++;

	b->map[h] = (struct slot){a, idx};
	if (aggregate) {
		if (idx >= b->aggs_cap)
			agg_grow(b);
		b->addrs[idx] = a;
	} else {
		uint32_t *p;

		room(b, 4);
		p = reserve(b, 4);
		p[0] = VTR_DEFINE;
		p[1] = 0;
		p[2] = (uint32_t)a;
		p[3] = (uint32_t)((uint64_t)a >> 32);
	}
	if (b->nfuncs * 2 > b->mask)
		map_grow(b);
	return idx;
}

static HOT inline uint32_t func_index(struct tbuf *b, void *fn)
{
	uintptr_t a = (uintptr_t)fn;
	uint32_t h = hash_addr(a, b->mask);

	for (;;) {
		if (LIKELY(b->map[h].addr == a))
			return b->map[h].idx;
		if (!b->map[h].addr)
			return define(b, a, h);
		h = (h + 1) & b->mask;
	}
}

/* ---- threads ---- */

static NOINSTR void thread_exit(void *arg);

static NOINSTR struct tbuf *thread_start(void)
{
	struct tbuf *b;

	if (stopped || !(b = calloc(1, sizeof(*b)))) {
		tb = TB_OFF;
		return NULL;
	}
	b->map = calloc(MAP_MIN, sizeof(*b->map));
	b->mask = MAP_MIN - 1;
	b->base = b->pos = b->data[0];
	b->held = b->data[1];
	b->end = b->base + BUF_WORDS;
	b->tid = gettid_raw();
	b->fd = -1;
	b->last = __rdtsc();
	if (aggregate)
		b->stack = calloc(STACK_MAX, sizeof(*b->stack));
	else
		open_records(b);
	pthread_mutex_lock(&live_lock);
	b->next = live;
	live = b;
	pthread_mutex_unlock(&live_lock);
	tb = b;
	pthread_setspecific(exit_key, b);
	return b;
}

static NOINSTR void write_aggregate(struct tbuf *b)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "%d.%d.agg", (int)getpid(), (int)b->tid);
	fd = open_in_dir(name);
	if (fd < 0)
		return;
	for (uint32_t i = 0; i < b->nfuncs; i++) {
		const struct agg *g = &b->aggs[i];
		char hist[VTR_HIST_BUCKETS * 26 + 1]; /* " k:count" each at most */
		size_t len = 0;
		uint64_t count = 0;

		/*
		 * The count is the histogram's: a thread still running when the
		 * recording ends (or the one a stop signal interrupted) may be
		 * between the two, and the collector checks they agree.
		 */
		for (uint32_t k = 0; k < VTR_HIST_BUCKETS; k++) {
			uint64_t h = g->hist[k];

			count += h;
			if (h)
				len += (size_t)snprintf(hist + len, sizeof(hist) - len, " %u:%lu",
							k, (unsigned long)h);
		}
		hist[len] = '\0';
		fd_printf(fd, "%#lx %lu %lu %lu %lu %lu%s\n", (unsigned long)b->addrs[i],
			  (unsigned long)count, (unsigned long)g->incl, (unsigned long)g->excl,
			  (unsigned long)~g->nmin, (unsigned long)g->max, hist);
	}
	close(fd);
}

/* Writes what @b holds and closes its file; @b stays allocated. */
static NOINSTR void finish(struct tbuf *b)
{
	__atomic_add_fetch(&lost_calls, b->lost, __ATOMIC_RELAXED);
	if (aggregate) {
		write_aggregate(b);
		return;
	}
	flush(b, true);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

/* finish() by whichever thread claims @b first, @b's own or the one
 * ending the recording. */
static NOINSTR void finish_claimed(struct tbuf *b)
{
	int free_ = 0;

	if (!__atomic_compare_exchange_n(&b->written, &free_, 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return;
	finish(b);
	__atomic_store_n(&b->written, 2, __ATOMIC_SEQ_CST);
}

/* The recording has ended: the thread writes its own records, whole. */
static NOINSTR void finish_own(struct tbuf *b)
{
	if (!aggregate && !__atomic_load_n(&b->written, __ATOMIC_SEQ_CST))
		finish_claimed(b);
}

static NOINSTR void release(struct tbuf *b)
{
	free(b->map);
	free(b->aggs);
	free(b->addrs);
	free(b->stack);
	free(b);
}

static NOINSTR void thread_exit(void *arg)
{
	struct tbuf *b = arg, **at;

	tb = TB_OFF;
	pthread_mutex_lock(&live_lock);
	for (at = &live; *at && *at != b; at = &(*at)->next)
		;
	if (*at) {
		*at = b->next;
		/* Unless the end of the recording wrote it already. */
		finish_claimed(b);
		release(b);
	}
	pthread_mutex_unlock(&live_lock);
}

/*
 * In a forked child only the forking thread lives on, and the records it
 * inherited are the parent's to write: it starts a file of its own.
 */
static NOINSTR void after_fork_child(void)
{
	struct tbuf *b = tb;

	live = NULL;
	pthread_mutex_init(&live_lock, NULL);
	tb = NULL;
	if (stopped || (uintptr_t)b <= 1)
		return;
	b->pos = b->base; /* the parent writes these */
	b->nheld = 0;
	if (b->fd >= 0)
		close(b->fd);
	release(b);
	thread_start();
}

/* ---- the hooks ---- */

/*
 * One word for a call of one of the first 1024 functions within a million
 * cycles of the previous record (nearly all), else two or four. @t is
 * when the call happened; a deferred call records no earlier than the
 * record before it.
 */
static NOINSTR void record(struct tbuf *b, uint32_t idx, bool ret, uint64_t t)
{
	uint64_t d;
	uint32_t *p;

	if (t < b->last)
		t = b->last;
	d = t - b->last;
	b->last = t;
	room(b, 4);
	if (LIKELY(idx < VTR_SHORT_FUNCS && d <= VTR_SHORT_DELTA)) {
		p = reserve(b, 1);
		*p = VTR_SHORT | (ret ? VTR_SHORT_EXIT : 0) | idx << VTR_SHORT_SHIFT | (uint32_t)d;
		return;
	}
	p = reserve(b, d >> 32 ? 4 : 2);
	if (UNLIKELY(d >> 32)) {
		p[0] = VTR_HIGH;
		p[1] = (uint32_t)(d >> 32);
		p += 2;
	}
	p[0] = idx | (ret ? VTR_EXIT : 0);
	p[1] = (uint32_t)d;
}

static NOINSTR void agg_enter(struct tbuf *b, uint32_t idx)
{
	if (b->depth < STACK_MAX)
		b->stack[b->depth] = (struct frame){idx, __rdtsc(), 0};
	b->depth++;
}

static NOINSTR void agg_exit(struct tbuf *b, uint32_t idx)
{
	uint64_t t = __rdtsc();
	struct frame *f;

	if (b->depth == 0 || --b->depth >= STACK_MAX)
		return;
	f = &b->stack[b->depth];
	if (f->idx != idx)
		return; /* left by longjmp or an exception: not a call we can time */
	agg_close(b, f, idx, t);
}

/* A fast-path slot changes so that a hook reading it in between (a signal
 * handler's) sees no function rather than a function with another's word. */
static NOINSTR void set_fast(struct fast *f, void *fn, uint32_t word)
{
	f->fn = NULL;
	BARRIER();
	f->word = word;
	BARRIER();
	f->fn = fn;
}

static NOINSTR void slow_call(struct tbuf *b, void *fn, bool ret, uint64_t t)
{
	uint32_t idx = func_index(b, fn);

	if (aggregate) {
		if (ret)
			agg_exit(b, idx);
		else
			agg_enter(b, idx);
		set_fast(&b->afast[FAST_SLOT(fn)], fn, idx);
		return;
	}
	record(b, idx, ret, t ? t : __rdtsc());
	if (idx < VTR_SHORT_FUNCS && !vt_sized(fn))
		set_fast(&b->fast[FAST_SLOT(fn)], fn, VTR_SHORT | idx << VTR_SHORT_SHIFT);
}

/*
 * Runs the calls that signal handlers put off while this thread was in
 * slow_hook, then leaves it. A handler that comes once busy is clear runs
 * its call itself and drains what is left; one that comes before puts
 * its call off, and the checks after clearing busy see it.
 */
static NOINSTR void drain(struct tbuf *b)
{
	for (;;) {
		while (b->dq_read < b->dq_len) {
			uintptr_t i = b->dq_read;

			if (i < DEFER_MAX)
				slow_call(b, b->dq[i].fn, b->dq[i].ret, b->dq[i].t);
			b->dq_read = i + 1;
			BARRIER();
		}
		/* An unlocked compare-and-exchange: one instruction, so a
		 * handler's call put off now is not emptied away. */
		uintptr_t want = b->dq_read, zero = 0;
		bool emptied;

		__asm__ volatile("cmpxchgq %[zero], %[len]\n\tsete %[ok]"
				 : [ok] "=q"(emptied), [len] "+m"(b->dq_len), "+a"(want)
				 : [zero] "r"(zero)
				 : "memory", "cc");
		if (!emptied)
			continue;
		b->dq_read = 0;
		BARRIER();
		b->busy = 0;
		BARRIER();
		if (!b->dq_len)
			return;
		b->busy = 1;
		BARRIER();
	}
}

/* Everything but the common case, kept out of line so the hooks' fast
 * path saves no registers. */
NOINSTR __attribute__((noinline, cold)) void slow_hook(void *fn, bool ret)
{
	struct tbuf *b = tb;

	if (UNLIKELY(stop_sig) && ((uintptr_t)b <= 1 || !b->busy))
		stop_pending();
	if (UNLIKELY((uintptr_t)b <= 1)) {
		if (b || ret || !(b = thread_start()))
			return;
	}
	if (UNLIKELY(stopped)) {
		/* Between two records: the end may be written from here. */
		if (!b->busy)
			finish_own(b);
		return;
	}
	if (b->busy) {
		/*
		 * A signal handler's hook, while this thread was in here: the
		 * maps may be half changed. A function in the fast-path cache
		 * is recorded (a buffer to flush, a long delta), unless calls
		 * put off before it wait: the rest waits for drain().
		 */
		const struct fast *f = &b->fast[FAST_SLOT(fn)];
		uint32_t word = f->word;
		uintptr_t i;

		BARRIER();
		if (!aggregate && f->fn == fn && !b->dq_len) {
			record(b, (word & ~VTR_SHORT) >> VTR_SHORT_SHIFT, ret, __rdtsc());
			return;
		}
		i = take(&b->dq_len, 1);
		if (i < DEFER_MAX)
			b->dq[i] = (struct deferred){fn, __rdtsc(), ret};
		else
			take((uintptr_t *)&b->lost, 1);
		return;
	}
	b->busy = 1;
	BARRIER();
	slow_call(b, fn, ret, 0);
	drain(b);
}

NOINSTR void record_size(int64_t size)
{
	struct tbuf *b = tb;
	uint32_t *p;

	if (!b && !stopped)
		b = thread_start();
	/* A signal handler's call while the thread is in the slow path is
	 * put off: its size would land before another entry. */
	if ((uintptr_t)b <= 1 || stopped || aggregate || b->busy)
		return;
	room(b, 4);
	p = reserve(b, 4);
	p[0] = VTR_SIZE;
	p[1] = 0;
	p[2] = (uint32_t)size;
	p[3] = (uint32_t)((uint64_t)size >> 32);
}

HOT void __cyg_profile_func_enter(void *fn, void *site)
{
	/* Each mode fills only its own cache: the other's stays empty. */
	if (LIKELY(fast_hook(fn, 0)) || agg_fast_enter(fn))
		return;
	slow_hook(fn, false);
}

HOT void __cyg_profile_func_exit(void *fn, void *site)
{
	if (LIKELY(fast_hook(fn, VTR_SHORT_EXIT)) || agg_fast_exit(fn))
		return;
	slow_hook(fn, true);
}

/* ---- start and end of the process ---- */

static NOINSTR int write_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	int fd = *(int *)arg;
	char exe[4096];
	const char *name = info->dlpi_name;

	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return 0;
		exe[n] = '\0';
		name = exe;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			fd_printf(fd, "object %#lx %#lx %#lx %s\n", (unsigned long)info->dlpi_addr,
				  (unsigned long)(info->dlpi_addr + ph->p_vaddr),
				  (unsigned long)(info->dlpi_addr + ph->p_vaddr + ph->p_memsz),
				  name);
	}
	return 0;
}

static NOINSTR double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* PID.meta: the counter's calibration and where each object was loaded. */
static NOINSTR void write_meta(void)
{
	struct timespec now;
	uint64_t tsc;
	char name[64];
	int fd;

	/* A millisecond at least between the two readings keeps the rate
	 * within a part in a thousand even for a program that ran for less. */
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
		tsc = __rdtsc();
	} while (seconds_between(&ts_start, &now) < 1e-3);
	snprintf(name, sizeof(name), "%d.meta", (int)getpid());
	fd = open_in_dir(name);
	if (fd < 0)
		return;
	fd_printf(fd, "veles-trace %d\npid %d\nmode %s\n", VTR_VERSION, (int)getpid(),
		  aggregate ? "aggregate" : "records");
	fd_printf(fd, "clock %lu %ld.%09ld %lu %ld.%09ld\n", (unsigned long)tsc_start,
		  (long)ts_start.tv_sec, ts_start.tv_nsec, (unsigned long)tsc, (long)now.tv_sec,
		  now.tv_nsec);
	if (lost_calls)
		fd_printf(fd, "lost %lu\n", (unsigned long)lost_calls);
	dl_iterate_phdr(write_object, &fd);
	close(fd);
}

static NOINSTR void sleep_ms(long ms)
{
	struct timespec t = {0, ms * 1000000L};

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/*
 * The live list, from a signal handler too: the thread holding the lock
 * is another one (a handler that interrupted this thread inside the
 * runtime leaves the end to the next hook), which lets go soon. After a
 * second it is read as it is: a thread being added is linked whole.
 */
static NOINSTR bool lock_live(bool in_handler)
{
	if (!in_handler)
		return pthread_mutex_lock(&live_lock) == 0;
	for (int i = 0; i < 1000; i++) {
		if (pthread_mutex_trylock(&live_lock) == 0)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* Whether every thread but this one has claimed its records. */
static NOINSTR bool others_claimed(void)
{
	for (struct tbuf *b = live; b; b = b->next)
		if (b != tb && !__atomic_load_n(&b->written, __ATOMIC_SEQ_CST))
			return false;
	return true;
}

/*
 * Writes every thread's records and the calibration, once: false if
 * another thread does (or did). The hooks are turned to the slow path,
 * where a running thread, between two records, writes its own (in the
 * records mode); those that do not come within 50 ms (blocked, or in code
 * not traced) are written as they are. Open calls stay open: the
 * collector drops them.
 */
static NOINSTR bool end_recording(bool in_handler)
{
	bool locked;
	struct tbuf *b;

	if (__atomic_exchange_n(&stopped, 1, __ATOMIC_SEQ_CST))
		return false;
	locked = lock_live(in_handler);
	/* No room left: the hooks' fast path gives way to the slow one. */
	for (b = live; b; b = b->next)
		b->end = b->base;
	for (int i = 0; !aggregate && i < 50 && !others_claimed(); i++)
		sleep_ms(1);
	for (b = live; b; b = b->next)
		finish_claimed(b);
	/* Those writing their own, a moment more. */
	for (b = live; b; b = b->next)
		for (int i = 0; i < 1000 && __atomic_load_n(&b->written, __ATOMIC_SEQ_CST) != 2;
		     i++)
			sleep_ms(1);
	if (locked)
		pthread_mutex_unlock(&live_lock);
	write_meta();
	__atomic_store_n(&ended, 1, __ATOMIC_SEQ_CST);
	return true;
}

/*
 * Ends the recording, then the process as the signal @sig would have. A
 * hook that finds another thread ending it goes back to the program; a
 * handler waits for the end to be written.
 */
static NOINSTR void stop_now(int sig, bool in_handler)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t one;

	if (!end_recording(in_handler)) {
		if (!in_handler)
			return;
		while (!__atomic_load_n(&ended, __ATOMIC_SEQ_CST))
			sleep_ms(1);
	}
	sigaction(sig, &dfl, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
}

/* slow_hook: a stop signal came while this thread was writing a record. */
static NOINSTR void stop_pending(void)
{
	stop_now(stop_sig, false);
}

/*
 * SIGTERM or SIGINT. A thread interrupted inside the runtime may have
 * reserved a record and not yet written it: it finishes, and its next
 * hook, which the empty buffer sends to the slow path, ends the recording.
 * Anywhere else its records are whole and the end is now.
 */
static NOINSTR void on_stop(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	struct tbuf *b = tb;

	(void)si;
	if (!stopped && (uintptr_t)b > 1 &&
	    (b->busy || (pc >= text_lo && pc < text_hi && !aggregate))) {
		stop_sig = sig;
		b->end = b->base;
		return;
	}
	stop_now(sig, true);
}

static NOINSTR int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t self = (uintptr_t)arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= lo &&
		    self < lo + ph->p_memsz) {
			text_lo = lo;
			text_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* Only where the program left the default: its own handler or SIG_IGN
 * stays, and it decides how (and whether) the process ends. */
static NOINSTR void catch_stops(void)
{
	static const int sigs[] = {SIGTERM, SIGINT};
	struct sigaction sa = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO | SA_RESTART};

	dl_iterate_phdr(find_text, (void *)(uintptr_t)slow_hook);
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
		    old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}

__attribute__((constructor)) static NOINSTR void trace_init(void)
{
	const char *d = getenv("VELES_TRACE_DIR");
	const char *mode = getenv("VELES_TRACE_MODE");

	if (!d || !*d || strlen(d) >= sizeof(dir))
		return;
	strcpy(dir, d);
	aggregate = mode && strcmp(mode, "aggregate") == 0;
	if (pthread_key_create(&exit_key, thread_exit) != 0)
		return;
	pthread_atfork(NULL, NULL, after_fork_child);
	clock_gettime(CLOCK_MONOTONIC, &ts_start);
	tsc_start = __rdtsc();
	catch_stops();
	stopped = 0;
}

__attribute__((destructor)) static NOINSTR void trace_fini(void)
{
	end_recording(false);
}
