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
#include <time.h>
#include <x86intrin.h>

#include "trace-format.h"

#define NOINSTR __attribute__((no_instrument_function))
#define HIDDEN __attribute__((visibility("hidden")))
#define HOT __attribute__((no_instrument_function, hot))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Records: 64 KiB per buffer, two buffers (see flush). */
#define BUF_WORDS (16 * 1024)
/* Sums: a thread's file starts with room for this much and doubles up to
 * CHUNK_MAX at a time (vt_grow). */
#define CHUNK_BYTES (64 * 1024)
#define CHUNK_MAX (4 * 1024 * 1024)
/*
 * Hooks in signal handlers that interrupt a hook between its check for
 * room and its reservation append past the end: four words at most for
 * each level of nesting. The file always has this much past end.
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

/*
 * A thread's state is the start of its file (PID.TID.vtr or .agg), mapped
 * shared, and so are its two record buffers (or its sums): what it stores
 * is in the page cache at once, and the header says what is whole, so a
 * process killed outright (SIGKILL, a crash) leaves its calls to the
 * collector (docs/trace-format.md). A full buffer is appended to the file
 * with one write, as the other fills. The sums grow a chunk at a time
 * inside one reservation of address space, so what is mapped never moves.
 */
struct tbuf {
	struct vtr_header h; /* the file's header; h.done is the committed end */
	uint32_t *pos, *end; /* pos: the next free word, moved by reserve() */
	uint64_t last;
	struct fast fast[FAST_SLOTS];  /* records mode */
	struct fast afast[FAST_SLOTS]; /* aggregate mode: the word is the number */
	uint32_t *base;		       /* the buffer being filled */
	uint32_t *held;		       /* the other, with nheld words not yet written */
	size_t nheld;
	int fd;
	uint64_t dev, ino; /* the file fd should still be (the program may reuse fds) */
	size_t size;	   /* bytes mapped of the file (sums: of it all) */
	size_t reserved;   /* bytes of address space mapped for it */
	char name[48];	   /* in the trace directory */
	uint32_t nfuncs;
	struct slot *map;
	uint32_t mask;	      /* map has mask + 1 slots */
	struct vtr_sum *aggs; /* aggregate mode: in the file, h.done of them whole */
	uint32_t aggs_cap;
	struct frame *stack;
	uint32_t depth;
	pid_t tid;
	int busy; /* in slow_hook: a handler's slow call waits in deferred */
	uintptr_t dq_read, dq_len;
	struct deferred dq[DEFER_MAX];
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

/* Handlers' records stored after ours: all whole (veles-trace.c). */
HIDDEN void commit_rest(struct tbuf *b);

/*
 * The record just stored at [@from, @to) is whole: h.done moves over it,
 * in one instruction, if every record before it is whole (h.done is at
 * @from). If not, a signal handler runs this hook inside another that
 * has reserved a record and not yet stored it, and that one commits both
 * when it resumes. Records that handlers stored after ours while we were
 * storing are whole too: commit_rest takes them.
 */
static HOT inline void commit(struct tbuf *b, const uint32_t *from, const uint32_t *to)
{
	uint64_t want = (uint64_t)(uintptr_t)from;
	bool moved;

	__asm__ volatile("cmpxchgq %[to], %[done]"
			 : "+a"(want), [done] "+m"(b->h.done), "=@ccz"(moved)
			 : [to] "r"((uint64_t)(uintptr_t)to)
			 : "memory");
	if (UNLIKELY(moved && b->pos != to))
		commit_rest(b);
}

extern __thread struct tbuf *tb HIDDEN __attribute__((tls_model("initial-exec")));
extern int stopped HIDDEN; /* until the constructor finds VELES_TRACE_DIR */

/* trace-file.c: the files. */
extern char vt_dir[4096] HIDDEN;	   /* VELES_TRACE_DIR */
extern uint64_t vt_tsc_start HIDDEN;	   /* the counter when the process started */
extern struct timespec vt_ts_start HIDDEN; /* CLOCK_MONOTONIC then */
/* Maps a new thread file @name (PID.TID.vtr or .agg) with its header. */
HIDDEN struct tbuf *vt_map_thread(const char *name, bool aggregate, pid_t tid);
/* Another chunk of a thread's sums; false (VTR_FULL set) when none. */
HIDDEN bool vt_grow(struct tbuf *b);
/* Appends @n bytes of records to the thread's file at @at; false when it
 * cannot (VTR_FULL set). */
HIDDEN bool vt_append(struct tbuf *b, const void *p, size_t n, uint64_t at);
/* The buffers' pages freed on disk once the thread's records are written. */
HIDDEN void vt_drop_buffers(struct tbuf *b);
HIDDEN void vt_unmap_thread(struct tbuf *b, size_t used);
/* PID.meta: the start (counter, clock, objects), the objects loaded since
 * when @a is in none listed, the calibration at exit. */
HIDDEN void vt_meta_start(bool aggregate);
HIDDEN void vt_note_address(uintptr_t a);
HIDDEN void vt_meta_end(void);

/* Everything but the common case (veles-trace.c). */
HIDDEN void slow_hook(void *fn, bool ret);
/* The structure size of the entry about to be recorded (veles-trace.c). */
HIDDEN void record_size(int64_t size);
/* Whether @fn has a --size rule: it never takes the fast path, whose hooks
 * do not read arguments (veles-mcount.c). */
HIDDEN bool vt_sized(const void *fn);

/* Closes the call @f of function @idx that the counter @t ends. The
 * histogram last: a process killed in here has the call's time in the
 * sums, not yet its count. */
static HOT inline void agg_close(struct tbuf *b, const struct frame *f, uint32_t idx, uint64_t t)
{
	uint64_t incl = t - f->start;
	struct vtr_sum *g = &b->aggs[idx];

	g->incl += incl;
	g->excl += incl - (f->children < incl ? f->children : incl);
	/* Branches, not conditional moves: a new extreme is rare, and the
	 * stores it would take every time cost a nanosecond a call. */
	if (UNLIKELY(~incl > g->nmin))
		g->nmin = ~incl;
	if (UNLIKELY(incl > g->max))
		g->max = incl;
	if (b->depth > 0 && b->depth <= STACK_MAX)
		b->stack[b->depth - 1].children += incl;
	BARRIER();
	g->hist[vtr_hist_bucket(incl)]++;
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
	uint32_t word, *p;

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
	p = reserve(b, 1);
	/* The three have no bit in common: one lea adds them. */
	*p = word + exit_bit + (uint32_t)d;
	commit(b, p, p + 1);
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
