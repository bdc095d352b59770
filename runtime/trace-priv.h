/*
 * What the trace runtime's two entry points share (libveles-trace.so):
 * veles-trace.c's -finstrument-functions hooks and veles-mcount.c's
 * -pg ones record through the same per-thread buffers and fast path.
 * Private to the runtime: nothing here is exported.
 */
#ifndef VELES_TRACE_PRIV_H
#define VELES_TRACE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <x86intrin.h>

#include "trace-format.h"

#define NOINSTR __attribute__((no_instrument_function))
#define HOT __attribute__((no_instrument_function, hot))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* 64 KiB of records per thread between writes, twice (see flush). */
#define BUF_WORDS (16 * 1024)
/*
 * Hooks in signal handlers that interrupt a hook between its check for
 * room and its reservation append past the end: four words at most for
 * each level of nesting.
 */
#define BUF_SLACK 1024
/* Slow calls of signal handlers that interrupt a slow call, put off. */
#define DEFER_MAX 64
#define MAP_MIN 1024
#define STACK_MAX 4096

struct slot {
	uintptr_t addr; /* 0 = empty */
	uint32_t idx;
};

/* Aggregate mode: per function of a thread. */
struct agg {
	uint64_t count, incl, excl;
	uint64_t nmin, max;		 /* ~least and greatest inclusive cycles: both start at 0 */
	uint64_t hist[VTR_HIST_BUCKETS]; /* calls by vtr_hist_bucket(inclusive cycles) */
};

struct frame {
	uint32_t idx;
	uint64_t start, children;
};

/*
 * The hooks' fast path: a direct-mapped cache from a function's address to
 * its one-word record (VTR_SHORT with its number), for the functions whose
 * number fits one; a miss, a long delta or a full buffer takes the slow
 * path, which fills the slot.
 */
#define FAST_SLOTS 256
#define FAST_SLOT(fn) (((uintptr_t)(fn) >> 4) & (FAST_SLOTS - 1))

struct fast {
	void *fn;
	uint32_t word;
};

struct deferred {
	void *fn;
	uint64_t t;
	bool ret;
};

struct tbuf {
	uint32_t *pos, *end; /* pos: the next free word, moved by reserve() */
	uint64_t last;
	struct fast fast[FAST_SLOTS];  /* records mode */
	struct fast afast[FAST_SLOTS]; /* aggregate mode: the word is the number */
	int fd;
	uint32_t nfuncs;
	struct slot *map;
	uint32_t mask;	  /* map has mask + 1 slots */
	uintptr_t *addrs; /* aggregate mode: index -> address */
	struct agg *aggs;
	uint32_t aggs_cap;
	struct frame *stack;
	uint32_t depth;
	pid_t tid;
	struct tbuf *next; /* in the list of live buffers */
	uint32_t *base;	   /* the buffer being filled */
	uint32_t *held;	   /* the other, with nheld words not yet written */
	size_t nheld;
	int busy; /* in slow_hook: a handler's slow call waits in deferred */
	uintptr_t dq_read, dq_len;
	uintptr_t lost; /* handlers' calls beyond DEFER_MAX */
	int written;	/* at the end: 1 once claimed, 2 once written (veles-trace.c) */
	struct deferred dq[DEFER_MAX];
	uint32_t data[2][BUF_WORDS + BUF_SLACK];
};

#define TB_OFF ((struct tbuf *)1) /* this thread records nothing (more) */

#define BARRIER() __asm__ volatile("" ::: "memory")

/*
 * Moves *@at on by @n and returns what it was, in one instruction: a
 * signal handler running on this thread comes before or after it, never
 * in the middle, so a hook it runs appends after the slot reserved here.
 * No lock prefix: only this thread touches the buffer.
 */
static HOT inline uintptr_t take(uintptr_t *at, uintptr_t n)
{
	__asm__ volatile("xaddq %0, %1" : "+r"(n), "+m"(*at) : : "memory");
	return n;
}

static HOT inline uint32_t *reserve(struct tbuf *b, size_t words)
{
	return (uint32_t *)take((uintptr_t *)&b->pos, words * sizeof(uint32_t));
}

#define HIDDEN __attribute__((visibility("hidden")))

extern __thread struct tbuf *tb HIDDEN __attribute__((tls_model("initial-exec")));
extern int stopped HIDDEN; /* until the constructor finds VELES_TRACE_DIR */

/* Everything but the common case (veles-trace.c). */
HIDDEN void slow_hook(void *fn, bool ret);
/* The structure size of the entry about to be recorded (veles-trace.c). */
HIDDEN void record_size(int64_t size);
/* Whether @fn has a --size rule: it never takes the fast path, whose hooks
 * do not read arguments (veles-mcount.c). */
HIDDEN bool vt_sized(const void *fn);

/* Closes the call @f of function @idx that the counter @t ends. */
static HOT inline void agg_close(struct tbuf *b, const struct frame *f, uint32_t idx, uint64_t t)
{
	uint64_t incl = t - f->start;
	struct agg *g = &b->aggs[idx];

	g->count++;
	g->incl += incl;
	g->excl += incl - (f->children < incl ? f->children : incl);
	/* Branches, not conditional moves: a new extreme is rare, and the
	 * stores it would take every time cost a nanosecond a call. */
	if (UNLIKELY(~incl > g->nmin))
		g->nmin = ~incl;
	if (UNLIKELY(incl > g->max))
		g->max = incl;
	g->hist[vtr_hist_bucket(incl)]++;
	if (b->depth > 0 && b->depth <= STACK_MAX)
		b->stack[b->depth - 1].children += incl;
}

/*
 * The common case in a few instructions: a cached function, a delta that
 * fits 20 bits and room for one word. The cache stays empty in aggregate
 * mode and after the end (stopped), so those always take the slow path.
 * The slot is reserved in one instruction after the counter is read, so
 * a signal handler's records land before or after this one, whole.
 */
static HOT inline bool fast_hook(void *fn, uint32_t exit_bit)
{
	struct tbuf *b = tb;
	const struct fast *f;
	uint64_t t, d;
	uint32_t word;

	if (UNLIKELY((uintptr_t)b <= 1))
		return false;
	f = &b->fast[FAST_SLOT(fn)];
	word = f->word;
	BARRIER(); /* the word, then its function: see set_fast */
	if (UNLIKELY(f->fn != fn || b->pos >= b->end))
		return false;
	t = __rdtsc();
	d = t - b->last;
	if (UNLIKELY(d > VTR_SHORT_DELTA))
		return false; /* the slow path reads the counter again: still in order */
	b->last = t;
	/* The three have no bit in common: one lea adds them. */
	*reserve(b, 1) = word + exit_bit + (uint32_t)d;
	return true;
}

/* Aggregate mode's common case: a cached function, its frame pushed. */
static HOT inline bool agg_fast_enter(void *fn)
{
	struct tbuf *b = tb;
	const struct fast *f;

	if (UNLIKELY((uintptr_t)b <= 1))
		return false;
	f = &b->afast[FAST_SLOT(fn)];
	if (UNLIKELY(f->fn != fn || b->depth >= STACK_MAX))
		return false;
	b->stack[b->depth++] = (struct frame){f->word, __rdtsc(), 0};
	return true;
}

/* ... and the return that closes the innermost frame, its own. */
static HOT inline bool agg_fast_exit(void *fn)
{
	struct tbuf *b = tb;
	const struct fast *f;
	uint64_t t;

	if (UNLIKELY((uintptr_t)b <= 1))
		return false;
	f = &b->afast[FAST_SLOT(fn)];
	if (UNLIKELY(f->fn != fn || b->depth == 0 || b->depth > STACK_MAX ||
		     b->stack[b->depth - 1].idx != f->word))
		return false;
	t = __rdtsc();
	b->depth--;
	agg_close(b, &b->stack[b->depth], f->word, t);
	return true;
}

#endif
