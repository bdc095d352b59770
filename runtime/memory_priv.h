/*
 * What the parts of libveles-memory.so share: memory.c records, and
 * memory_exec.c wraps the calls that end the process or replace its image.
 * Everything here has hidden visibility (the library is built with
 * -fvisibility=hidden): the program sees only the interposed functions.
 */
#ifndef RUNTIME_MEMORY_PRIV_H
#define RUNTIME_MEMORY_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "memformat.h"
#include "memory_cfi.h"

#define EXPORT __attribute__((visibility("default")))

/* The C library's own functions, found with dlsym(RTLD_NEXT) at start. */
struct real_fns {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	void (*exit_)(int); /* _exit and _Exit: they do not return (see below) */
	void (*Exit_)(int);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvp)(const char *, char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*execveat)(int, const char *, char *const[], char *const[], int);
};
extern struct real_fns vmem_real;

/* Resolves the real functions and starts recording (once). */
void vmem_start(void);
/* Writes out every thread's buffer and closes the file: _exit and _Exit. */
void vmem_finish_exit(void);
void vmem_before_exec(void);
/* Whether this is a vfork child, which must leave the recording alone. */
bool vmem_vfork_child(void);
void vmem_after_failed_exec(void);

/* ---- shared by memory.c (recording) and memory_life.c (output, threads) ---- */

#define TLS __thread __attribute__((tls_model("initial-exec")))
#define BUF_SIZE (64 * 1024)
#define BUF_SLACK (24 + 10 * (VMEM_MAX_FRAMES + 3)) /* the largest record pair */
#define TABLE_BITS 20
_Static_assert((1u << TABLE_BITS) == VMEM_MAX_STACKS, "stack ids: see memformat.h");
#define TABLE_PROBES 64

/* An executable segment of a loaded object (memory_objs.c). */
struct vmem_obj {
	uintptr_t lo, hi;
	int fp;		       /* its code keeps frame pointers (or cannot be judged) */
	struct cfi_tables cfi; /* its unwind tables (hdr NULL: none) */
};

struct vmem_objs {
	size_t n;
	unsigned long long adds, subs; /* dl_iterate_phdr's counts when built */
	bool some_without_fp;
	struct vmem_obj o[]; /* by address */
};

extern _Atomic(struct vmem_objs *) vmem_objs; /* NULL until the constructor */

static inline const struct vmem_obj *vmem_obj_find(const struct vmem_objs *t, uintptr_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pc < t->o[mid].lo)
			hi = mid;
		else if (pc >= t->o[mid].hi)
			lo = mid + 1;
		else
			return &t->o[mid];
	}
	return NULL;
}

/* Rebuilds the table when the loaded objects changed (or always: @force). */
void vmem_objs_refresh(bool force);
/* A walk met @pc outside every object: the object after a rescan, else
 * NULL. Only a @first frame (a real return address) rescans every time:
 * a frame pointer that led to data must not cost a rescan per event. */
const struct vmem_obj *vmem_objs_miss(uintptr_t pc, bool first);
/* What a first frame in no object is taken for: walked on, with no hint. */
extern const struct vmem_obj vmem_obj_unknown;
void vmem_objs_after_fork(void);
/* Writes the current maps to the output (before a dlclose). */
void vmem_note_maps(void);

/*
 * The outermost frames of a thread (the C library's start of main or of
 * the thread) lack frame pointers, and every walk meets them: the frames
 * the unwind tables (or libunwind) found beyond the frame at @slot are
 * kept, and a later walk
 * reaching the same slot holding the same return address and link takes
 * them without unwinding again. Only a short tail is kept: the start of
 * the thread is all that sits so close to the bottom.
 */
#define FLOOR_MAX 4
struct floor {
	uintptr_t slot, ret, link;
	int n;
	uint64_t mul, add; /* hash of the walk so far -> hash with the floor */
	uintptr_t pc[FLOOR_MAX];
};

/* Releases record one frame: most come from few places, and a small
 * direct-mapped cache per thread finds their ids without hashing. */
#define CALLER_CACHE 256
struct caller {
	uintptr_t pc;
	uint32_t id;
};

/*
 * The stacks a thread's allocations met last, by their first frame: a
 * loop's allocation sites come back to the same frame records holding
 * the same return addresses, and comparing those records with a memo
 * costs less than walking, hashing and looking the stack up. A memo holds
 * every frame record the walk read (where it was, its return address)
 * and the last record's link: when all are the same, the walk would read
 * the same words and decide alike (the objects and the floor it judged
 * by are those of @memo_objs), so the stack is the same. Walks that went
 * on by unwind tables read more than the records, and are not kept.
 */
#define MEMO_BITS 5
#define MEMO_SIZE (1 << MEMO_BITS)
#define MEMO_FRAMES 8
struct fpmemo {
	struct {
		uintptr_t slot, ret;
	} fr[MEMO_FRAMES];
	uintptr_t link; /* the last record's link to the next */
	uint32_t k;	/* records read; 0: empty */
	uint32_t id;
};

/*
 * A thread's state lives in a slot of the live file (docs/memory-format.md),
 * mapped shared, so its buffer outlives a process killed outright: the
 * slot's head (magic to slot_size) is the file's, at the offsets of
 * memformat.h's VMEM_LIVE_*. Appending costs what it did in anonymous
 * memory: the same stores, in the page cache.
 */
struct tstate {
	char magic[8];
	size_t len;		/* bytes used in buf, headers included; whole records only */
	uint64_t seq;		/* this buffer's number, written after it when flushed */
	uint32_t buf_off;	/* offsetof(struct tstate, buf) */
	uint32_t slot_size;	/* bytes mapped: sizeof, to whole pages */
	atomic_int busy;	/* set while the owner appends or anyone flushes: lock() */
	volatile bool flushing; /* inside flush_locked */
	atomic_bool spare;	/* its thread has ended: thread_new may take it */
	uint32_t tid;
	uint64_t base_ns, last_ns;
	uintptr_t last_addr;
	uint32_t last_id[2]; /* the block's last stack id of allocations, of releases */
	uintptr_t stack_lo, stack_hi;
	uintptr_t obj_lo, obj_hi; /* the last object with frame pointers a walk met */
	struct floor floor;
	struct cfi_cache *cfi; /* the rules met, by return address (memory_walk.c) */
	struct tstate *next;
	struct caller callers[CALLER_CACHE]; /* a release's caller -> its stack id */
	/* The objects table the memos were made under; NULL: none valid (a
	 * new floor, a new thread, a forked child). */
	const struct vmem_objs *memo_objs;
	struct fpmemo memo[MEMO_SIZE];
	unsigned char buf[BUF_SIZE];
};

struct slot {
	_Atomic uint64_t key;
	_Atomic uint32_t id;
};

enum { ST_OFF, ST_INIT, ST_ON, ST_DONE };
extern atomic_int vmem_state;
extern struct slot *vmem_table; /* the stacks seen, by hash: 1 << TABLE_BITS slots */
extern atomic_uint vmem_next_stack;
extern bool vmem_free_stacks; /* VELES_MEMORY_FREE_STACKS=1: whole stacks for releases too */
extern int (*vmem_unwinder)(void **, int); /* libunwind's unw_backtrace, when loaded */
extern bool vmem_unwind_all;		   /* VELES_MEMORY_UNWIND=libunwind: every event */
extern bool vmem_cfi; /* auto and cfi: the unwind tables where frame pointers end */

extern TLS struct tstate *vmem_self;
extern TLS int vmem_guard; /* > 0: inside our own code, record nothing */
extern TLS bool vmem_initialising;

static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Even the coarse clock costs 6 ns through the vDSO, a tenth of a malloc;
 * a thread of our own to read it would cost more, since glibc's malloc
 * takes its locks once a process has a second thread. `collect memory`
 * keeps CLOCK_MONOTONIC in a shared page (VELES_MEMORY_CLOCK) instead,
 * stored every 2 ms, and an event reads one word: snapshots are
 * tens of milliseconds long. Without the page, events read the clock.
 */
extern const _Atomic uint64_t *vmem_clock;

static inline uint64_t now_ns(void)
{
	if (__builtin_expect(vmem_clock != NULL, 1))
		return atomic_load_explicit(vmem_clock, memory_order_relaxed);
	return clock_ns();
}

/*
 * The owner marks its buffer busy with plain stores: an atomic exchange on
 * every event cost more than the rest of the recording. Within the thread
 * (a signal handler) the mark is exact; another thread flushing at exit
 * or on a fatal signal takes the buffer with a compare-and-swap and may,
 * in a narrow window, race with an owner still running: the process is
 * ending then, and the reader drops a block that does not decode.
 */
static inline void lock(struct tstate *t)
{
	atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void unlock(struct tstate *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* Little-endian fields of the file's headers. */
static inline void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * The stack by the unwind tables (memory_walk.c), from @fp, the interposed
 * function's frame, as walk() takes it; it is taken again from the start
 * when frame pointers met code without them at frame record @stop (after
 * @walked frames), since an object judged to keep frame pointers may hold
 * functions without. Each thread caches the rules it found, so a return
 * address seen before costs a few loads. Returns the count of frames in
 * @pc and their hash, or -1 when it cannot walk; *@hard when a frame
 * needs libunwind. A short tail from @stop to the thread's first frame
 * becomes the thread's floor.
 */
int vmem_cfi_walk(struct tstate *t, const uintptr_t *fp, const uintptr_t *stop, int walked,
		  uintptr_t *pc, uint64_t *hash, bool *hard);
/* Makes @n frames @pc, found beyond frame record @slot, the thread's floor. */
void vmem_floor_set(struct tstate *t, const uintptr_t *slot, const uintptr_t *pc, int n);

/* A new thread's state, on the list of threads; NULL when out of memory. */
struct tstate *vmem_thread_new(void);
/* Writes out the calling thread's full buffer; the caller holds t->busy. */
void vmem_flush_owned(struct tstate *t);

#endif
