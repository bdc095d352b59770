/*
 * libveles-memory.so: loaded with LD_PRELOAD by `veles collect memory`, it
 * records every allocation and release of the program with its call stack
 * (docs/collect-memory.md, format in docs/memory-format.md).
 *
 * Cost is the point: an event is a frame-pointer walk (the unwind tables,
 * with a per-thread cache, where the code lacks frame pointers:
 * memory_walk.c, memory_cfi.c; libunwind for what they cannot follow), a
 * hash of the
 * frames, one lookup in a lock-free table of stacks, and a few varints
 * appended to the thread's own buffer; a stack whose frame records are
 * those of one the thread met before (struct fpmemo) skips the walk, the
 * hash and the table. Buffers go to the output file with
 * one write() each when full, and at exit, _exit, exec and fatal signals;
 * they are a shared mapping of the live file, so a process killed
 * outright leaves what they hold to the reader. This file is
 * the recording and the interposed allocators; memory_life.c keeps the
 * file, the threads' states, fork, signals, start and end.
 *
 * Nothing here may allocate through malloc: thread state, the stack table
 * and the buffers are mmap'd, and the C library functions we call either
 * do not allocate or run under the recursion guard, which sends any
 * allocation they make straight to the real allocator unrecorded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "memformat.h"
#include "memory_priv.h"

#define BOOT_ARENA (64 * 1024)

/* ---- the real allocator ---- */

struct real_fns vmem_real;

/* dlsym() may allocate (its error buffer) before malloc is resolved: it
 * gets memory from this arena, which free() recognises and ignores. */
static _Alignas(64) unsigned char boot_arena[BOOT_ARENA];
static _Atomic size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t used = atomic_load(&boot_used), at;

	do {
		at = (used + 15) & ~(size_t)15;
		if (n > BOOT_ARENA - at)
			return NULL;
	} while (!atomic_compare_exchange_weak(&boot_used, &used, at + n));
	return boot_arena + at;
}

static bool in_boot(const void *p)
{
	return (const unsigned char *)p >= boot_arena &&
	       (const unsigned char *)p < boot_arena + BOOT_ARENA;
}

/* ---- recording ---- */

#define HOT static inline __attribute__((always_inline))

/*
 * A prefix varint (docs/memory-format.md): the count of bytes is in the
 * first byte's low bits, so a number costs a count of its bits, a shift
 * and one unaligned word store, with no loop whose varying exit would
 * mispredict. The buffer's slack has room for the bytes past the end.
 * varint_bytes[i] is the length of a number below 2^56 with i leading zero
 * bits: a division by 7 costs more than the lookup.
 */
static const unsigned char varint_bytes[64] = {
	9, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7, 7, 7, 7, 7,
	6, 6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3,
	3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};

HOT size_t put_varint(unsigned char *p, uint64_t v)
{
	uint64_t word;
	unsigned n;

	if (__builtin_expect(v >> 56, 0)) {
		p[0] = 0xff;
		put_u64(p + 1, v);
		return 9;
	}
	n = varint_bytes[__builtin_clzll(v | 1)];
	word = (v << n) | (((uint64_t)1 << (n - 1)) - 1);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &word, sizeof(word));
#else
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(word >> (8 * i));
#endif
	return n;
}

static inline uint64_t zigzag(uintptr_t a, uintptr_t b)
{
	int64_t d = (int64_t)(a - b);

	return ((uint64_t)d << 1) ^ (d < 0 ? UINT64_MAX : 0);
}

/* One multiply-add per frame during the walk; this spreads the bits over
 * the table. Never 0: that marks an empty slot. */
static inline uint64_t hash_final(uint64_t h, int n)
{
	h ^= (uint64_t)n;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 32;
	return h ? h : 1;
}

/*
 * Return addresses by frame pointers, from the interposed function's caller
 * outwards, hashing them on the way (hash_final ends the hash): @fp is the
 * interposed function's frame. A frame pointer must lie above the previous
 * one and inside this thread's stack, and a return address inside the
 * executable code of a loaded object: a frame compiled without frame
 * pointers ends the walk rather than reading garbage. A return address in
 * an object without frame pointers is exact, but the frame pointer beside
 * it is not: the walk stops there and gives that frame in @stop, for the
 * unwind tables (or libunwind) to take the stack, unless it is the
 * thread's floor.
 */
HOT int walk(struct tstate *t, uintptr_t *fp, uintptr_t *pc, uint64_t *hash, uintptr_t **stop,
	     int *on_floor, int *records)
{
	const struct vmem_objs *objs = atomic_load_explicit(&vmem_objs, memory_order_acquire);
	/* In locals: the stores to @pc could alias the thread's state, and
	 * reloading it on every frame costs more than the rest of the walk. */
	const uintptr_t hi = t->stack_hi - 16, floor = t->floor.slot;
	uintptr_t olo = t->obj_lo, osize = t->obj_hi - t->obj_lo;
	int n = 0, k = 0;
	uint64_t h = 0;

	*stop = NULL;
	*on_floor = -1;
	if ((uintptr_t)fp < t->stack_lo)
		fp = (uintptr_t *)(hi + 1);
	while (n < VMEM_MAX_FRAMES && (uintptr_t)fp <= hi && !((uintptr_t)fp & 7)) {
		uintptr_t *next = (uintptr_t *)fp[0];
		uintptr_t ret = fp[1];

		k++;
		/* The hint (the last object with frame pointers) holds most
		 * frames; the floor is in code without them, hence never in it.
		 * Everything else, rare, is decided here, so that a frame in
		 * the hint costs two loads, a compare, a store and a
		 * multiply-add. */
		if (__builtin_expect(ret - olo >= osize, 0)) {
			const struct vmem_obj *o;

			if ((uintptr_t)fp == floor && ret == t->floor.ret &&
			    (uintptr_t)next == t->floor.link) {
				/* Its frames' hash folded into one multiply-add;
				 * they are copied to @pc only for a new stack
				 * (floor_copy), which is rare. */
				*on_floor = n;
				n += t->floor.n;
				h = h * t->floor.mul + t->floor.add;
				break;
			}
			if (!objs) {
				/* Before the constructor: the stack bounds alone. */
				if (ret < 4096)
					break;
			} else {
				o = vmem_obj_find(objs, ret);
				if (!o && !(o = vmem_objs_miss(ret, n == 0))) {
					/* The caller's return address is real
					 * (code made at run time, say). */
					if (n > 0)
						break;
					o = &vmem_obj_unknown;
				}
				if (!o->fp) {
					pc[n++] = ret;
					h = (h + ret) * 0x9e3779b97f4a7c15u;
					*stop = fp;
					break;
				}
				olo = t->obj_lo = o->lo;
				osize = o->hi - o->lo;
				t->obj_hi = o->hi;
			}
		}
		pc[n++] = ret;
		h = (h + ret) * 0x9e3779b97f4a7c15u;
		if (next <= fp)
			break;
		fp = next;
	}
	*hash = h;
	*records = k;
	return n;
}

#define UNWIND_OWN 8 /* our frames above the caller's, at most */

/*
 * The stack by libunwind, from the caller's return address on (our own
 * frames come first in what it gives); the @n frames in @pc stay when it
 * fails. @stop is the frame where the walk met code without frame
 * pointers, after @walked frames: a short tail from there is the
 * thread's floor.
 */
__attribute__((noinline)) static int unwind(struct tstate *t, uintptr_t *fp, uintptr_t *stop,
					    uintptr_t *pc, int walked, int n, uint64_t *hash)
{
	void *ip[VMEM_MAX_FRAMES + UNWIND_OWN];
	uintptr_t first;
	uint64_t h = 0;
	int m, k = 0;

	if ((uintptr_t)fp < t->stack_lo || (uintptr_t)fp + 16 > t->stack_hi)
		return n;
	first = fp[1];
	m = vmem_unwinder(ip, VMEM_MAX_FRAMES + UNWIND_OWN);
	while (k < m && k < UNWIND_OWN && (uintptr_t)ip[k] != first)
		k++;
	if (k == m || (uintptr_t)ip[k] != first)
		return n;
	if (stop && walked > 0 && m < VMEM_MAX_FRAMES + UNWIND_OWN) {
		int at = k + walked - 1;

		if (at < m && (uintptr_t)ip[at] == stop[1] && m - at <= FLOOR_MAX)
			vmem_floor_set(t, stop, (const uintptr_t *)(ip + at), m - at);
	}
	for (n = 0; k < m && n < VMEM_MAX_FRAMES; k++) {
		pc[n++] = (uintptr_t)ip[k];
		h = (h + (uintptr_t)ip[k]) * 0x9e3779b97f4a7c15u;
	}
	*hash = h;
	return n;
}

/*
 * The walk met code without frame pointers at @stop (or libunwind takes
 * every event): the unwind tables take the stack (memory_walk.c), and
 * libunwind the events they cannot follow, when it is loaded.
 */
__attribute__((noinline)) static int go_deeper(struct tstate *t, uintptr_t *fp, uintptr_t *stop,
					       uintptr_t *pc, int n, uint64_t *hash, int *floor)
{
	int walked = n, m;
	uint64_t h;
	bool hard = false;

	if (stop && vmem_cfi && !vmem_unwind_all) {
		m = vmem_cfi_walk(t, fp, stop, walked, pc, &h, &hard);
		if (m >= 0) {
			n = m;
			*hash = h;
		}
		if (!hard)
			return n;
	}
	if (!vmem_unwinder)
		return n;
	if (*floor >= 0) { /* unwind keeps the walk's frames when it fails */
		memcpy(pc + *floor, t->floor.pc, sizeof(t->floor.pc));
		n = n < VMEM_MAX_FRAMES ? n : VMEM_MAX_FRAMES;
		*floor = -1;
	}
	return unwind(t, fp, stop, pc, walked, n, hash);
}

static void put_stack(struct tstate *t, uint32_t id, const uintptr_t *pc, int n)
{
	unsigned char *p = t->buf + t->len;
	uintptr_t prev = 0;

	*p++ = VMEM_STACK;
	p += put_varint(p, id);
	p += put_varint(p, (uint64_t)n);
	for (int i = 0; i < n; i++) {
		p += put_varint(p, zigzag(pc[i], prev));
		prev = pc[i];
	}
	atomic_signal_fence(memory_order_release);
	t->len = (size_t)(p - t->buf);
}

/* The id of the stack hashed @h, defining it in @t's buffer on its first
 * use anywhere; 0 when the table is full (the event then has no stack).
 * The thread's floor goes on from frame @floor of @pc (-1: none). */
static uint32_t stack_id_probe(struct tstate *t, uint64_t h, uintptr_t *pc, int n, int floor)
{
	if (floor >= 0) {
		memcpy(pc + floor, t->floor.pc, sizeof(t->floor.pc));
		n = n < VMEM_MAX_FRAMES ? n : VMEM_MAX_FRAMES;
	}
	size_t mask = ((size_t)1 << TABLE_BITS) - 1;

	for (size_t i = h & mask, probe = 0; probe < TABLE_PROBES; i = (i + 1) & mask, probe++) {
		struct slot *s = &vmem_table[i];
		uint64_t key = atomic_load_explicit(&s->key, memory_order_acquire);
		uint32_t id;

		if (key == 0 && atomic_compare_exchange_strong(&s->key, &key, h)) {
			id = atomic_fetch_add(&vmem_next_stack, 1);
			put_stack(t, id, pc, n);
			atomic_store_explicit(&s->id, id, memory_order_release);
			return id;
		}
		if (key != h)
			continue;
		while ((id = atomic_load_explicit(&s->id, memory_order_acquire)) == 0)
			;
		return id;
	}
	return 0;
}

/* Most stacks are found at their first slot, with two loads. */
HOT uint32_t stack_id(struct tstate *t, uint64_t h, uintptr_t *pc, int n, int floor)
{
	struct slot *s = &vmem_table[h & (((size_t)1 << TABLE_BITS) - 1)];

	if (atomic_load_explicit(&s->key, memory_order_acquire) == h) {
		uint32_t id = atomic_load_explicit(&s->id, memory_order_acquire);

		if (id)
			return id;
	}
	return stack_id_probe(t, h, pc, n, floor);
}

/* A release's one frame, through the thread's cache of callers. */
HOT uint32_t caller_id(struct tstate *t, uintptr_t pc)
{
	struct caller *c = &t->callers[(pc ^ (pc >> 8)) & (CALLER_CACHE - 1)];
	uint64_t h;

	if (c->pc == pc && c->id)
		return c->id;
	h = hash_final((0 + pc) * 0x9e3779b97f4a7c15u, 1);
	c->id = stack_id(t, h, &pc, 1, -1);
	c->pc = pc;
	return c->id;
}

HOT struct tstate *thread_state(void)
{
	if (!vmem_self && atomic_load(&vmem_state) == ST_ON)
		vmem_self = vmem_thread_new();
	return vmem_self;
}

/* Takes @t's buffer (lock), with room for one more event and its stack;
 * the caller holds the guard. */
HOT void take(struct tstate *t)
{
	lock(t);
	if (__builtin_expect(t->len + BUF_SLACK > BUF_SIZE, 0))
		vmem_flush_owned(t);
}

/* The thread's buffer with room for one more event and its stack, or NULL
 * when not recording. Takes the buffer (lock) and the guard. */
HOT struct tstate *begin(void)
{
	struct tstate *t;

	vmem_guard++;
	t = thread_state(); /* the caller saw the state on: recording() */
	if (!t) {
		vmem_guard--;
		return NULL;
	}
	take(t);
	return t;
}

/* The thread's state when its next event is to be recorded and it has
 * one already: most events, which then skip recording() and begin(). */
HOT struct tstate *ready(void)
{
	struct tstate *t = vmem_self;

	if (__builtin_expect(t != NULL && vmem_guard == 0 &&
				     atomic_load_explicit(&vmem_state, memory_order_relaxed) ==
					     ST_ON,
			     1))
		return t;
	return NULL;
}

static inline void end(struct tstate *t, unsigned char *p, uintptr_t addr)
{
	t->last_addr = addr;
	/* The record is whole before len covers it (flush_committed, and a
	 * reader of the live file after a SIGKILL). */
	atomic_signal_fence(memory_order_release);
	t->len = (size_t)(p - t->buf);
	unlock(t);
	vmem_guard--;
}

static inline bool is_release(int kind)
{
	return kind == VMEM_FREE || kind == VMEM_DELETE || kind == VMEM_DELETE_ARRAY;
}

/* The event's first bytes: kind and flags, time, stack id, address. */
HOT unsigned char *put_head(struct tstate *t, int kind, uint32_t id, uintptr_t addr)
{
	unsigned char *p = t->buf + t->len;
	uint64_t now = now_ns();
	int64_t diff = (int64_t)(addr - t->last_addr);
	unsigned char head = (unsigned char)kind;
	uint32_t *last_id = &t->last_id[is_release(kind)];

	if (now > t->last_ns)
		head |= VMEM_F_TIME;
	/* Allocators hand out 16-byte aligned blocks: drop the zero bits. */
	if (((addr | t->last_addr) & 15) == 0) {
		head |= VMEM_F_ADDR16;
		diff >>= 4; /* exact: both are multiples of 16 */
	}
	/* Runs of releases from one place are common: their id goes once. */
	if (id == *last_id)
		head |= VMEM_F_SAME;
	*p++ = head;
	if (head & VMEM_F_TIME) {
		p += put_varint(p, now - t->last_ns);
		t->last_ns = now;
	}
	if (id != *last_id) {
		/* A program's first 127 stacks take one byte, and most use fewer. */
		if (__builtin_expect(id < 128, 1))
			*p++ = (unsigned char)(id << 1);
		else
			p += put_varint(p, id);
		*last_id = id;
	}
	p += put_varint(p, ((uint64_t)diff << 1) ^ (diff < 0 ? UINT64_MAX : 0));
	return p;
}

/* The interposed function's frame: our own frame's link (we are called
 * from it, never inlined into it). */
#define CALLER_FRAME() (*(uintptr_t **)__builtin_frame_address(0))

/* The memo for the walk from @fp, by its first two return addresses: a
 * function called from several places allocates from one frame and one
 * return address. */
HOT struct fpmemo *memo_slot(struct tstate *t, const uintptr_t *fp)
{
	const uintptr_t *next = (const uintptr_t *)fp[0];
	uintptr_t key = fp[1] ^ ((uintptr_t)fp >> 4);

	/* The walk reads the next record only there (walk()). */
	if ((uintptr_t)next > (uintptr_t)fp && (uintptr_t)next + 16 <= t->stack_hi)
		key += next[1] << 1;
	key *= 0x9e3779b97f4a7c15u;
	return &t->memo[key >> (64 - MEMO_BITS)];
}

/* walk() reads nothing from an @fp outside the stack: neither may a memo. */
HOT bool framed(const struct tstate *t, const uintptr_t *fp)
{
	return (uintptr_t)fp >= t->stack_lo && (uintptr_t)fp + 16 <= t->stack_hi &&
	       !((uintptr_t)fp & 7);
}

/* The stack id of the walk from @fp when its frame records are a memo's,
 * else 0; @own: @fp is the interposed function's own frame, hence in the
 * stack. The first record's words are read once, for the key and the
 * compare. */
HOT uint32_t memo_find(struct tstate *t, const uintptr_t *fp, bool own)
{
	const struct fpmemo *m;
	const uintptr_t *next;
	uintptr_t ret, key;
	uint32_t k;

	/* First: a thread whose walks all go on by unwind tables has none. */
	if (t->memo_objs != atomic_load_explicit(&vmem_objs, memory_order_relaxed) ||
	    (!own && !framed(t, fp)))
		return 0;
	next = (const uintptr_t *)fp[0];
	ret = fp[1];
	key = ret ^ ((uintptr_t)fp >> 4);
	if ((uintptr_t)next > (uintptr_t)fp && (uintptr_t)next + 16 <= t->stack_hi)
		key += next[1] << 1; /* as memo_slot() */
	m = &t->memo[(key * 0x9e3779b97f4a7c15u) >> (64 - MEMO_BITS)];
	k = m->k;
	if (!k || m->fr[0].slot != (uintptr_t)fp || m->fr[0].ret != ret)
		return 0;
	for (uint32_t i = 1; i < k; i++) {
		if ((uintptr_t)next != m->fr[i].slot || next[1] != m->fr[i].ret)
			return 0;
		next = (const uintptr_t *)next[0];
	}
	return (uintptr_t)next == m->link ? m->id : 0;
}

/* Keeps the walk from @fp that read @k frame records and found stack @id. */
__attribute__((noinline)) static void memo_keep(struct tstate *t, const uintptr_t *fp, int k,
						uint32_t id)
{
	const struct vmem_objs *objs = atomic_load_explicit(&vmem_objs, memory_order_relaxed);
	struct fpmemo *m = memo_slot(t, fp);

	if (t->memo_objs != objs) {
		memset(t->memo, 0, sizeof(t->memo));
		t->memo_objs = objs;
	}
	for (int i = 0; i < k; i++) {
		m->fr[i].slot = (uintptr_t)fp;
		m->fr[i].ret = fp[1];
		fp = (const uintptr_t *)fp[0];
	}
	m->link = (uintptr_t)fp;
	m->k = (uint32_t)k;
	m->id = id;
}

/* An allocation (or a release with its whole stack); @old is the released
 * address of a realloc. */
/* The stack from @fp, by walking it: out of line, so that an event its
 * memo finds keeps a small frame. */
__attribute__((noinline)) static uint32_t walk_id(struct tstate *t, uintptr_t *fp)
{
	uintptr_t pc[VMEM_MAX_FRAMES + FLOOR_MAX], *stop;
	uint64_t h;
	uint32_t id;
	int n, floor, k;

	n = walk(t, fp, pc, &h, &stop, &floor, &k);
	if (__builtin_expect(stop != NULL || vmem_unwind_all, 0)) {
		n = go_deeper(t, fp, stop, pc, n, &h, &floor);
		k = 0; /* it read more than the frame records */
	}
	h = hash_final(h, n);
	id = stack_id(t, h, pc, n, floor);
	if (id && k > 0 && k <= MEMO_FRAMES && t->floor.slot && framed(t, fp) &&
	    atomic_load_explicit(&vmem_objs, memory_order_relaxed))
		memo_keep(t, fp, k, id);
	return id;
}

HOT void put_alloc_in(struct tstate *t, uintptr_t *fp, bool own, int kind, const void *addr,
		      size_t size, const void *old)
{
	unsigned char *p;
	uint32_t id = memo_find(t, fp, own);

	if (__builtin_expect(!id, 0))
		id = walk_id(t, fp);
	p = put_head(t, kind, id, (uintptr_t)addr);
	if (!is_release(kind))
		p += put_varint(p, size);
	if (kind == VMEM_REALLOC || kind == VMEM_REALLOCARRAY)
		p += put_varint(p, zigzag((uintptr_t)old, (uintptr_t)addr));
	end(t, p, (uintptr_t)addr);
}

HOT void put_alloc(uintptr_t *fp, int kind, const void *addr, size_t size, const void *old)
{
	struct tstate *t = begin();

	if (t)
		put_alloc_in(t, fp, false, kind, addr, size, old);
}

__attribute__((noinline)) static void record_alloc(int kind, const void *addr, size_t size,
						   const void *old)
{
	put_alloc(CALLER_FRAME(), kind, addr, size, old);
}

/* A release keeps only its caller unless asked for more: its uid is that
 * caller, and walking half the events costs more than all the rest. */
HOT void put_release(uintptr_t *fp, int kind, const void *addr)
{
	struct tstate *t;
	uintptr_t pc;

	if (vmem_free_stacks) {
		put_alloc(fp, kind, addr, 0, NULL);
		return;
	}
	t = begin();
	if (!t)
		return;
	pc = (uintptr_t)fp >= t->stack_lo && (uintptr_t)fp + 16 <= t->stack_hi ? fp[1] : 0;
	end(t, put_head(t, kind, pc ? caller_id(t, pc) : 0, (uintptr_t)addr), (uintptr_t)addr);
}

__attribute__((noinline)) static void record_release(int kind, const void *addr)
{
	put_release(CALLER_FRAME(), kind, addr);
}

static inline bool recording(void)
{
	if (__builtin_expect(atomic_load_explicit(&vmem_state, memory_order_relaxed) == ST_OFF, 0))
		vmem_start();
	return vmem_guard == 0 && atomic_load_explicit(&vmem_state, memory_order_relaxed) == ST_ON;
}

/* ---- the C allocator ---- */

EXPORT void *malloc(size_t size)
{
	struct tstate *t;
	void *p;

	if (__builtin_expect(!vmem_real.malloc, 0)) {
		if (vmem_initialising)
			return boot_alloc(size);
		vmem_start();
		if (!vmem_real.malloc)
			return boot_alloc(size);
	}
	/* malloc and free, most of the events, record inline: their own frame
	 * is the interposed function's frame. */
	t = ready();
	if (__builtin_expect(t != NULL, 1)) {
		p = vmem_real.malloc(size);
		if (p) {
			vmem_guard++;
			take(t);
			put_alloc_in(t, __builtin_frame_address(0), true, VMEM_MALLOC, p, size,
				     NULL);
		}
		return p;
	}
	if (!recording())
		return vmem_real.malloc(size);
	p = vmem_real.malloc(size);
	if (p)
		put_alloc(__builtin_frame_address(0), VMEM_MALLOC, p, size, NULL);
	return p;
}

EXPORT void free(void *p)
{
	struct tstate *t = ready();

	/* Most frees: a thread recording, one frame. Its return address is
	 * exact (our own frame), with no bounds to check. */
	if (__builtin_expect(t != NULL && !vmem_free_stacks && p && !in_boot(p), 1)) {
		uintptr_t pc = (uintptr_t)__builtin_return_address(0);

		vmem_guard++;
		take(t);
		end(t, put_head(t, VMEM_FREE, caller_id(t, pc), (uintptr_t)p), (uintptr_t)p);
		vmem_real.free(p);
		return;
	}
	if (!p || in_boot(p))
		return;
	if (!vmem_real.free)
		vmem_start();
	if (recording())
		put_release(__builtin_frame_address(0), VMEM_FREE, p);
	vmem_real.free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (__builtin_expect(!vmem_real.calloc, 0)) {
		/* The arena is static, hence zeroed. */
		if (size && n > SIZE_MAX / size)
			return NULL;
		if (vmem_initialising)
			return boot_alloc(n * size);
		vmem_start();
		if (!vmem_real.calloc)
			return boot_alloc(n * size);
	}
	if (!recording())
		return vmem_real.calloc(n, size);
	p = vmem_real.calloc(n, size);
	if (p)
		record_alloc(VMEM_CALLOC, p, n * size, NULL);
	return p;
}

/* A block of the arena moves to the real heap: its size is unknown, so
 * copy as much as can be there. */
static void *realloc_boot(void *old, size_t size)
{
	size_t room = (size_t)(boot_arena + BOOT_ARENA - (unsigned char *)old);
	void *p = malloc(size);

	if (p)
		memcpy(p, old, size < room ? size : room);
	return p;
}

EXPORT void *realloc(void *old, size_t size)
{
	void *p;

	if (old && in_boot(old))
		return realloc_boot(old, size);
	if (!vmem_real.realloc)
		vmem_start();
	if (!vmem_real.realloc)
		return NULL;
	if (!recording())
		return vmem_real.realloc(old, size);
	p = vmem_real.realloc(old, size);
	if (p || size == 0)
		record_alloc(VMEM_REALLOC, p, p ? size : 0, old);
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (old && in_boot(old))
		return size && n > SIZE_MAX / size ? NULL : realloc_boot(old, n * size);
	if (!vmem_real.reallocarray)
		vmem_start();
	if (!vmem_real.reallocarray)
		return NULL;
	if (!recording())
		return vmem_real.reallocarray(old, n, size);
	/* The C library's reallocarray calls realloc through the PLT, which
	 * would record the same event again. */
	vmem_guard++;
	p = vmem_real.reallocarray(old, n, size);
	vmem_guard--;
	/* A size of 0 frees, as realloc does; an overflow fails untouched. */
	if (p || (old && (n == 0 || size == 0)))
		record_alloc(VMEM_REALLOCARRAY, p, p ? n * size : 0, old);
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	int ret;

	if (!vmem_real.posix_memalign)
		vmem_start();
	if (!recording())
		return vmem_real.posix_memalign(out, align, size);
	vmem_guard++;
	ret = vmem_real.posix_memalign(out, align, size);
	vmem_guard--;
	if (ret == 0)
		record_alloc(VMEM_POSIX_MEMALIGN, *out, size, NULL);
	return ret;
}

/* aligned_alloc, memalign, valloc and pvalloc share one shape; the guard
 * keeps a C library that builds one on another from counting twice. */
#define ALIGNED(name, kind, params, args, size_expr)                                               \
	EXPORT void *name params                                                                   \
	{                                                                                          \
		void *p;                                                                           \
		if (!vmem_real.name)                                                               \
			vmem_start();                                                              \
		if (!recording())                                                                  \
			return vmem_real.name args;                                                \
		vmem_guard++;                                                                      \
		p = vmem_real.name args;                                                           \
		vmem_guard--;                                                                      \
		if (p)                                                                             \
			record_alloc(kind, p, size_expr, NULL);                                    \
		return p;                                                                          \
	}

ALIGNED(aligned_alloc, VMEM_ALIGNED_ALLOC, (size_t align, size_t size), (align, size), size)
ALIGNED(memalign, VMEM_MEMALIGN, (size_t align, size_t size), (align, size), size)
ALIGNED(valloc, VMEM_VALLOC, (size_t size), (size), size)
ALIGNED(pvalloc, VMEM_PVALLOC, (size_t size), (size), size)

/* ---- C++ operator new and delete (the Itanium ABI's mangled names) ----
 *
 * Each calls the C++ library's own operator under the guard, so bad_alloc,
 * the new-handler and nothrow keep their meaning and the malloc inside is
 * not counted twice.
 */
#define NEW(sym, kind, params, args, size)                                                         \
	EXPORT void *sym params                                                                    \
	{                                                                                          \
		static void *(*next)params;                                                        \
		void *p;                                                                           \
		if (!next)                                                                         \
			next = (void *(*)params)dlsym(RTLD_NEXT, #sym);                            \
		if (!recording())                                                                  \
			return next args;                                                          \
		vmem_guard++;                                                                      \
		p = next args;                                                                     \
		vmem_guard--;                                                                      \
		if (p)                                                                             \
			record_alloc(kind, p, size, NULL);                                         \
		return p;                                                                          \
	}

#define DELETE(sym, kind, params, args)                                                            \
	EXPORT void sym params                                                                     \
	{                                                                                          \
		static void(*next) params;                                                         \
		if (!next)                                                                         \
			next = (void(*) params)dlsym(RTLD_NEXT, #sym);                             \
		if (p && recording())                                                              \
			record_release(kind, p);                                                   \
		vmem_guard++;                                                                      \
		next args;                                                                         \
		vmem_guard--;                                                                      \
	}

/* Opaque stand-ins for std::align_val_t and const std::nothrow_t&. */
typedef size_t align_t;
typedef const void *nothrow_t;

NEW(_Znwm, VMEM_NEW, (size_t n), (n), n)
NEW(_Znam, VMEM_NEW_ARRAY, (size_t n), (n), n)
NEW(_ZnwmRKSt9nothrow_t, VMEM_NEW, (size_t n, nothrow_t t), (n, t), n)
NEW(_ZnamRKSt9nothrow_t, VMEM_NEW_ARRAY, (size_t n, nothrow_t t), (n, t), n)
NEW(_ZnwmSt11align_val_t, VMEM_NEW, (size_t n, align_t a), (n, a), n)
NEW(_ZnamSt11align_val_t, VMEM_NEW_ARRAY, (size_t n, align_t a), (n, a), n)
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, VMEM_NEW, (size_t n, align_t a, nothrow_t t), (n, a, t), n)
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, VMEM_NEW_ARRAY, (size_t n, align_t a, nothrow_t t),
    (n, a, t), n)

DELETE(_ZdlPv, VMEM_DELETE, (void *p), (p))
DELETE(_ZdaPv, VMEM_DELETE_ARRAY, (void *p), (p))
DELETE(_ZdlPvm, VMEM_DELETE, (void *p, size_t n), (p, n))
DELETE(_ZdaPvm, VMEM_DELETE_ARRAY, (void *p, size_t n), (p, n))
DELETE(_ZdlPvRKSt9nothrow_t, VMEM_DELETE, (void *p, nothrow_t t), (p, t))
DELETE(_ZdaPvRKSt9nothrow_t, VMEM_DELETE_ARRAY, (void *p, nothrow_t t), (p, t))
DELETE(_ZdlPvSt11align_val_t, VMEM_DELETE, (void *p, align_t a), (p, a))
DELETE(_ZdaPvSt11align_val_t, VMEM_DELETE_ARRAY, (void *p, align_t a), (p, a))
DELETE(_ZdlPvmSt11align_val_t, VMEM_DELETE, (void *p, size_t n, align_t a), (p, n, a))
DELETE(_ZdaPvmSt11align_val_t, VMEM_DELETE_ARRAY, (void *p, size_t n, align_t a), (p, n, a))
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, VMEM_DELETE, (void *p, align_t a, nothrow_t t),
       (p, a, t))
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, VMEM_DELETE_ARRAY, (void *p, align_t a, nothrow_t t),
       (p, a, t))
