/*
 * libveles-trace.so: the runtime of `veles collect trace --instrumented`
 * for programs built with -finstrument-functions (docs/collect-trace.md).
 *
 * Every function entry and exit reads the cycle counter and appends a
 * record, one 32-bit word in the common case, to the calling thread's
 * buffer (docs/trace-format.md), signal handlers' hooks included; a full
 * buffer is written to the thread's file. The buffers are in the file's
 * start, mapped shared (trace-file.c), and a record counts once the
 * header's committed end covers it: whatever ends the process, SIGKILL
 * and a crash included, the calls completed until then are in the file. At start the process's
 * meta file gets the cycle counter and the clock and the loaded objects,
 * at exit a second reading to calibrate the counter by (the collector
 * reads the clock itself for a process that never exits). With
 * VELES_TRACE_MODE=aggregate nothing per call is kept: each thread sums
 * call counts, inclusive and exclusive cycles and a histogram per
 * function, in its file too.
 *
 * Inactive unless VELES_TRACE_DIR names the directory to write to, so a
 * program built with the flags runs normally outside the collector.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "trace-priv.h"

__thread struct tbuf *tb __attribute__((tls_model("initial-exec")));
int stopped = 1;
static int aggregate;
/* The threads recording, in memory of the process's own: the list must
 * not live in the files, which a forked child shares with its parent. */
struct thread_rec {
	struct tbuf *b;
	size_t reserved; /* b's mapping: read here, never from b in a child */
	struct thread_rec *next;
};
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_rec *live;
static pthread_key_t exit_key;

/* define() when the thread's file is full. */
#define NO_FUNC UINT32_MAX

static NOINSTR pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- committing ---- */

NOINSTR void commit_rest(struct tbuf *b)
{
	/* One compare-and-exchange each, so that a handler's record stored
	 * meanwhile is taken on the next turn, never skipped. */
	for (;;) {
		uint64_t want = b->h.done, to = (uint64_t)(uintptr_t)b->pos;

		if (want == to)
			return;
		__asm__ volatile("cmpxchgq %[to], %[done]"
				 : "+a"(want), [done] "+m"(b->h.done)
				 : [to] "r"(to)
				 : "memory", "cc");
	}
}

/* The thread records no more: its file is full (the disk, the address
 * space). What it holds is kept; the header says VTR_FULL. */
static NOINSTR uint32_t thread_full(struct tbuf *b)
{
	(void)b;
	tb = TB_OFF;
	return NO_FUNC;
}

/*
 * The held buffer is written and the one being filled becomes the held
 * one: a hook that a signal handler interrupted after reserving its slot
 * stores it after the handler's flush, into memory still to be written
 * (the next flush writes nheld words, the slot among them; the header's
 * count of whole words, which a reader after a kill trusts, leaves it
 * out). Signals wait meanwhile, so a handler never sees the buffers half
 * switched. The header's state changes in one store each time: the held
 * words in the file, then the buffers switched.
 */
static NOINSTR bool flush(struct tbuf *b)
{
	uint64_t flushed, t0 = __rdtsc();
	unsigned held_buf;
	sigset_t every, old;
	uint32_t *full;
	bool ok = true;

	sigfillset(&every);
	pthread_sigmask(SIG_SETMASK, &every, &old);
	/* Read only now: a handler's flush may have come before the mask. */
	flushed = VTR_STATE_FLUSHED(b->h.state);
	held_buf = VTR_STATE_BUF(b->h.state);
	full = b->base;
	if (b->nheld && (ok = vt_append(b, b->held, b->nheld * 4, b->h.data + flushed * 4)))
		flushed += b->nheld;
	if (ok) {
		b->h.state = VTR_STATE(flushed, 0, held_buf);
		BARRIER();
		b->h.state =
			VTR_STATE(flushed, ((uint32_t *)(uintptr_t)b->h.done - full), !held_buf);
		BARRIER();
		b->nheld = (size_t)(b->pos - full);
		b->base = b->held;
		b->held = full;
		b->pos = b->base;
		b->end = b->base + BUF_WORDS;
		b->h.done = (uint64_t)(uintptr_t)b->pos;
	}
	/* The time the write took is taken out of the timeline: the next
	 * record's delta counts from when it finished, so no call looks
	 * slower for having been open meanwhile. */
	b->last += __rdtsc() - t0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/* Room for @words more words; false when the thread records no more (its
 * file could not be written: the disk is full). */
static HOT inline bool room(struct tbuf *b, size_t words)
{
	if (LIKELY(b->pos + words <= b->end))
		return true;
	if (flush(b))
		return true;
	thread_full(b);
	return false;
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

/* The sums of the functions a thread has met fill its file as they come. */
static NOINSTR void aggs_fit(struct tbuf *b)
{
	b->aggs_cap = (uint32_t)((b->size - b->h.data) / sizeof(*b->aggs));
}

/* A function seen for the first time: numbered, and defined in the records
 * (or given its sums); NO_FUNC when the thread's file is full. */
static NOINSTR uint32_t define(struct tbuf *b, uintptr_t a, uint32_t h)
{
	uint32_t idx = b->nfuncs;

	vt_note_address(a);
	if (aggregate) {
		if (idx >= b->aggs_cap && vt_grow(b))
			aggs_fit(b);
		if (idx >= b->aggs_cap)
			return thread_full(b);
		b->aggs[idx].addr = a;
		BARRIER();
		b->h.done = idx + 1; /* its sums are whole (all zero) */
	} else {
		uint32_t *p;

		if (!room(b, 4))
			return NO_FUNC;
		p = reserve(b, 4);
		p[0] = VTR_DEFINE;
		p[1] = 0;
		p[2] = (uint32_t)a;
		p[3] = (uint32_t)((uint64_t)a >> 32);
		commit(b, p, p + 4);
	}
	b->nfuncs++;
	b->map[h] = (struct slot){a, idx};
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
	struct thread_rec *r = calloc(1, sizeof(*r));
	pid_t tid = gettid_raw();
	char name[48];
	struct tbuf *b;

	snprintf(name, sizeof(name), "%d.%d.%s", (int)getpid(), (int)tid,
		 aggregate ? "agg" : "vtr");
	if (stopped || !r || !(b = vt_map_thread(name, aggregate, tid))) {
		free(r);
		tb = TB_OFF;
		return NULL;
	}
	b->map = calloc(MAP_MIN, sizeof(*b->map));
	b->mask = MAP_MIN - 1;
	b->tid = tid;
	b->last = b->h.tsc0;
	if (aggregate) {
		b->stack = calloc(STACK_MAX, sizeof(*b->stack));
		b->aggs = (struct vtr_sum *)((char *)b + b->h.data);
		aggs_fit(b);
	} else {
		b->base = b->pos = (uint32_t *)((char *)b + b->h.buf[0]);
		b->held = (uint32_t *)((char *)b + b->h.buf[1]);
		b->end = b->base + BUF_WORDS;
		b->h.done = (uint64_t)(uintptr_t)b->pos;
	}
	if (!b->map || (aggregate && !b->stack)) {
		free(b->map);
		free(b->stack);
		vt_unmap_thread(b, 0);
		free(r);
		tb = TB_OFF;
		return NULL;
	}
	r->b = b;
	r->reserved = b->reserved;
	pthread_mutex_lock(&live_lock);
	r->next = live;
	live = r;
	pthread_mutex_unlock(&live_lock);
	tb = b;
	pthread_setspecific(exit_key, r);
	return b;
}

/*
 * What a thread of ours holds in memory. Its records are written (two
 * flushes: the held buffer, then the one being filled) and the buffers'
 * disk space freed; its sums are cut to the functions it met.
 */
static NOINSTR void release(struct tbuf *b)
{
	size_t used = 0;

	if (aggregate)
		used = b->h.data + b->h.done * sizeof(*b->aggs);
	else if (!(b->h.flags & VTR_FULL) && flush(b) && flush(b))
		vt_drop_buffers(b);
	free(b->map);
	free(b->stack);
	vt_unmap_thread(b, used);
}

/* The thread ends: its records are in its file, whole up to h.done. */
static NOINSTR void thread_exit(void *arg)
{
	struct thread_rec *r = arg, **at;

	tb = TB_OFF;
	pthread_mutex_lock(&live_lock);
	for (at = &live; *at && *at != r; at = &(*at)->next)
		;
	if (*at)
		*at = r->next;
	pthread_mutex_unlock(&live_lock);
	release(r->b);
	free(r);
}

/*
 * In a forked child only the forking thread lives on, and the files it
 * inherited mapped are the parent's, which the parent goes on writing:
 * the child lets go of them, unwritten, and starts files of its own.
 */
static NOINSTR void after_fork_child(void)
{
	struct thread_rec *r = live, *next;

	live = NULL;
	pthread_mutex_init(&live_lock, NULL);
	tb = NULL;
	/* Its record goes below: no exit of this thread may find it. */
	pthread_setspecific(exit_key, NULL);
	/* Only the mappings go: the parent changes what is in them (the
	 * pointers to its memory, its descriptor) as it pleases, so the
	 * child reads nothing there; the little they point to stays. */
	for (; r; r = next) {
		next = r->next;
		munmap(r->b, r->reserved);
		free(r);
	}
	if (stopped)
		return;
	vt_meta_start(aggregate);
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
	uint32_t *p, *start;

	if (!room(b, 4))
		return;
	if (t < b->last)
		t = b->last;
	d = t - b->last;
	b->last = t;
	if (LIKELY(idx < VTR_SHORT_FUNCS && d <= VTR_SHORT_DELTA)) {
		p = reserve(b, 1);
		*p = VTR_SHORT | (ret ? VTR_SHORT_EXIT : 0) | idx << VTR_SHORT_SHIFT | (uint32_t)d;
		commit(b, p, p + 1);
		return;
	}
	p = reserve(b, d >> 32 ? 4 : 2);
	start = p;
	if (UNLIKELY(d >> 32)) {
		p[0] = VTR_HIGH;
		p[1] = (uint32_t)(d >> 32);
		p += 2;
	}
	p[0] = idx | (ret ? VTR_EXIT : 0);
	p[1] = (uint32_t)d;
	commit(b, start, p + 2);
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

	if (idx == NO_FUNC)
		return;
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

	if (UNLIKELY((uintptr_t)b <= 1)) {
		if (b || ret || !(b = thread_start()))
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
			take((uintptr_t *)&b->h.lost, 1);
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
	if ((uintptr_t)b <= 1 || stopped || aggregate || b->busy || !room(b, 4))
		return;
	p = reserve(b, 4);
	p[0] = VTR_SIZE;
	p[1] = 0;
	p[2] = (uint32_t)size;
	p[3] = (uint32_t)((uint64_t)size >> 32);
	commit(b, p, p + 4);
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

__attribute__((constructor)) static NOINSTR void trace_init(void)
{
	const char *d = getenv("VELES_TRACE_DIR");
	const char *mode = getenv("VELES_TRACE_MODE");

	if (!d || !*d || strlen(d) >= sizeof(vt_dir))
		return;
	strcpy(vt_dir, d);
	aggregate = mode && strcmp(mode, "aggregate") == 0;
	if (pthread_key_create(&exit_key, thread_exit) != 0)
		return;
	pthread_atfork(NULL, NULL, after_fork_child);
	clock_gettime(CLOCK_MONOTONIC, &vt_ts_start);
	vt_tsc_start = __rdtsc();
	vt_meta_start(aggregate);
	stopped = 0;
}

/*
 * At exit the calibration, and nothing else to write: threads still
 * running (and later destructors of traced code) go on recording into
 * their files until the process is gone.
 */
__attribute__((destructor)) static NOINSTR void trace_fini(void)
{
	if (!stopped)
		vt_meta_end();
}
