/*
 * libveles-trace.so for programs compiled with -pg or -pg -mfentry
 * (docs/collect-trace.md): veles-mcount.S calls in here on each function
 * entry, with the function (an address inside it, which names it as well
 * as its start) and the stack slot holding its return address. The entry
 * is recorded as veles-trace.c's hooks record it and the return address
 * pushed on the thread's shadow stack; under mcount it is replaced by
 * vt_mcount_return on the stack, while __fentry__ calls the function
 * itself with vt_mcount_return as the return address. Either way
 * vt_mcount_return records the exit and goes on to the saved address.
 * The common cases of both are in the assembly, on the same layout
 * (mcount-layout.h); this is the rest.
 *
 * Compiled with -mgeneral-regs-only: the fast path must not touch the
 * vector registers, which hold the function's arguments on entry and its
 * return value on exit; the assembly saves them around the slow path.
 *
 * Frames a longjmp skipped are dropped from the shadow stack when a
 * return from further out shows them gone. An exception's unwinder reads
 * the return addresses, so they are put back while it runs and replaced
 * again in the frames that survive the catch. And a program linked with
 * -pg (gcrt1.o) would write gprof's gmon.out at exit and run its
 * profiling timer: while recording, its start and end do nothing.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcount-layout.h"
#include "trace-priv.h"

struct shent {
	uintptr_t ret;	 /* the caller's address */
	uintptr_t *slot; /* where it was on the stack; NULL: a frame gone */
	void *fn;
	uint32_t word; /* the function's record word, for the return's fast path; 0: none */
	uint32_t pad;
};

/* e[0] is no frame's: its slot (NULL) matches no return. */
struct shadow {
	struct shent e[SHADOW_MAX + 1];
};

/*
 * The thread's shadow stack: top is one past the innermost entry, end
 * one past the last, both NULL (full) until the slow path allocates it.
 * Kept apart from the thread's buffer: returns through the trampoline
 * still need it once recording has stopped. A forked child inherits it
 * with the stack it describes.
 */
struct mc {
	struct shent *top, *end;
	struct shadow *s;
};

__thread struct mc mc HIDDEN __attribute__((tls_model("initial-exec")));
static pthread_key_t shadow_key;

#define FIRST (&mc.s->e[1])

_Static_assert(offsetof(struct tbuf, h.done) == TB_DONE && offsetof(struct tbuf, pos) == TB_POS &&
		       offsetof(struct tbuf, end) == TB_END &&
		       offsetof(struct tbuf, last) == TB_LAST &&
		       offsetof(struct tbuf, fast) == TB_FAST && sizeof(struct fast) == 16 &&
		       offsetof(struct fast, fn) == FAST_FN &&
		       offsetof(struct fast, word) == FAST_WORD &&
		       FAST_MASK == (FAST_SLOTS - 1) << 4,
	       "veles-mcount.S's view of struct tbuf");
_Static_assert(offsetof(struct mc, top) == MC_TOP && offsetof(struct mc, end) == MC_END &&
		       sizeof(struct shent) == SHENT_SIZE &&
		       offsetof(struct shent, ret) == SHENT_RET &&
		       offsetof(struct shent, slot) == SHENT_SLOT &&
		       offsetof(struct shent, fn) == SHENT_FN &&
		       offsetof(struct shent, word) == SHENT_WORD,
	       "veles-mcount.S's view of the shadow stack");
_Static_assert(DELTA_MAX == VTR_SHORT_DELTA && EXIT_BIT == VTR_SHORT_EXIT,
	       "veles-mcount.S's view of the records");

HIDDEN void vt_mcount_return(void);
HIDDEN int vt_mcount_enter(void *fn, uintptr_t *slot);
HIDDEN int vt_mcount_enter_slow(void *fn, uintptr_t *slot, const uint64_t *regs);
struct exit_to {
	uintptr_t to;
	void *slow_fn; /* the function, when its exit is left to the slow path */
};
HIDDEN struct exit_to vt_mcount_exit(uintptr_t *slot);
HIDDEN void vt_mcount_exit_slow(void *fn);

/* The function's return now goes through the trampoline. One
 * instruction reserves the entry, so a signal handler's calls push
 * above it. */
static HOT inline void hijack(void *fn, uintptr_t *slot)
{
	struct shent *e = (struct shent *)take((uintptr_t *)&mc.top, sizeof(struct shent));

	e->ret = *slot;
	e->slot = slot;
	e->fn = fn;
	e->word = 0;
	*slot = (uintptr_t)vt_mcount_return;
}

/* 1: the call is traced, its return address on the shadow stack; 2: not
 * traced; 0: left to the slow path. */
HOT int vt_mcount_enter(void *fn, uintptr_t *slot)
{
	if (UNLIKELY(tb == TB_OFF))
		return 2; /* not recording: the program runs as if untraced */
	if (UNLIKELY(mc.top >= mc.end))
		return 0;
	if (UNLIKELY(!fast_hook(fn, 0) && !agg_fast_enter(fn)))
		return 0;
	hijack(fn, slot);
	return 1;
}

static NOINSTR void shadow_free(void *arg)
{
	/* Open frames when the thread ends (pthread_exit forced them off
	 * the stack and cleared them): keep what their returns need. */
	if (arg == mc.s && mc.top == FIRST) {
		mc = (struct mc){NULL, NULL, NULL};
		free(arg);
	}
}

/*
 * --size (VELES_TRACE_SIZE, set by the collector): functions of the
 * executable, by their symbol's value and size, whose entry records an
 * argument (ARGN, 1-6) or the integer of BYTES at OFFSET in what it
 * points to.
 */
#define SIZE_RULES 16

struct size_rule {
	uintptr_t lo, hi;
	int argn, bytes, is_signed;
	long off; /* -1: the argument itself */
};

static struct size_rule size_rules[SIZE_RULES];
static int nsize_rules;

static NOINSTR int exe_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1; /* the executable comes first */
}

static NOINSTR void size_init(void)
{
	const char *env = getenv("VELES_TRACE_SIZE");
	uintptr_t bias = 0;

	if (!env || !*env)
		return;
	dl_iterate_phdr(exe_bias, &bias);
	while (*env && nsize_rules < SIZE_RULES) {
		struct size_rule *r = &size_rules[nsize_rules];
		unsigned long value, len;
		int used = 0;

		if (sscanf(env, "%lx %lx %d %ld %d %d%n", &value, &len, &r->argn, &r->off,
			   &r->bytes, &r->is_signed, &used) != 6 ||
		    r->argn < 1 || r->argn > 6)
			return;
		r->lo = bias + value;
		r->hi = r->lo + (len ? len : 1);
		nsize_rules++;
		env += used;
		if (*env == ';')
			env++;
	}
}

NOINSTR bool vt_sized(const void *fn)
{
	for (int i = 0; i < nsize_rules; i++)
		if ((uintptr_t)fn >= size_rules[i].lo && (uintptr_t)fn < size_rules[i].hi)
			return true;
	return false;
}

/* @regs: the saved argument registers, rdi at regs[7] down to r9 at regs[2]. */
static NOINSTR void entry_size(const void *fn, const uint64_t *regs)
{
	for (int i = 0; i < nsize_rules; i++) {
		const struct size_rule *r = &size_rules[i];
		uint64_t v = regs[8 - r->argn];
		int64_t n;

		if ((uintptr_t)fn < r->lo || (uintptr_t)fn >= r->hi)
			continue;
		if (r->off >= 0) {
			const unsigned char *at = (const unsigned char *)(uintptr_t)v;
			uint64_t raw = 0;

			if (!at)
				return; /* a null pointer: no size */
			memcpy(&raw, at + r->off, (size_t)r->bytes);
			v = raw;
		}
		n = (int64_t)v;
		if (r->bytes < 8) {
			int shift = 64 - 8 * r->bytes;

			n = r->is_signed ? (int64_t)(v << shift) >> shift
					 : (int64_t)(v & (~0ull >> shift));
		}
		record_size(n);
		return;
	}
}

NOINSTR int vt_mcount_enter_slow(void *fn, uintptr_t *slot, const uint64_t *regs)
{
	if (mc.s && mc.top >= mc.end) {
		/* Frames at or below the new one's return address are gone. */
		while (mc.top > FIRST && mc.top[-1].slot <= slot)
			mc.top--;
		if (mc.top >= mc.end)
			return 2;
	}
	if (!mc.s && !stopped) {
		void *p = NULL;
		struct shadow *s;

		/* Entries on 32-byte boundaries: none straddles a cache line. */
		if (posix_memalign(&p, 64, sizeof(*s)) != 0)
			return 2;
		s = memset(p, 0, sizeof(*s));
		mc = (struct mc){&s->e[1], &s->e[SHADOW_MAX + 1], s};
		pthread_setspecific(shadow_key, s);
	}
	if (nsize_rules)
		entry_size(fn, regs);
	slow_hook(fn, false);
	if (!mc.s || (uintptr_t)tb <= 1 || stopped)
		return 2;
	hijack(fn, slot);
	return 1;
}

/*
 * @slot is where the returning function's return address was. Frames
 * above it on the shadow stack are below it on the real one: a longjmp
 * left them, and they are dropped unrecorded.
 */
HOT struct exit_to vt_mcount_exit(uintptr_t *slot)
{
	struct shent *t = mc.top;
	struct exit_to r;

	if (UNLIKELY(!mc.s))
		abort(); /* nowhere to return to: the stack was not ours */
	while (t > FIRST && t[-1].slot < slot)
		t--;
	if (UNLIKELY(t == FIRST))
		abort();
	r.to = t[-1].ret;
	r.slow_fn = t[-1].fn;
	mc.top = t - 1;
	if (LIKELY(fast_hook(r.slow_fn, VTR_SHORT_EXIT)) || agg_fast_exit(r.slow_fn))
		r.slow_fn = NULL;
	return r;
}

NOINSTR void vt_mcount_exit_slow(void *fn)
{
	slow_hook(fn, true);
}

/* A forked child numbers its functions afresh: the words the entries
 * kept are the parent's. */
static NOINSTR void mcount_after_fork(void)
{
	for (struct shent *e = mc.s ? FIRST : NULL; e && e < mc.top; e++)
		e->word = 0;
}

__attribute__((constructor)) static NOINSTR void mcount_init(void)
{
	pthread_key_create(&shadow_key, shadow_free);
	pthread_atfork(NULL, NULL, mcount_after_fork);
	size_init();
}

/* ---- exceptions ---- */

/*
 * Puts back the return addresses the trampoline replaced. An entry whose
 * slot holds neither the trampoline nor its address is of a frame gone by
 * longjmp, its slot reused: it is marked gone, not written. (A rethrow
 * comes here twice: _Unwind_Resume_or_Rethrow raises anew.) From the top down, so of
 * two entries for one slot (a tail call) the outer one's address stays.
 */
static NOINSTR void shadow_restore(void)
{
	for (struct shent *e = mc.top; mc.s && e-- > FIRST;) {
		if (!e->slot)
			continue;
		if (*e->slot == (uintptr_t)vt_mcount_return)
			*e->slot = e->ret;
		else if (*e->slot != e->ret) /* not put back already, by a rethrow */
			e->slot = NULL;
	}
}

/* After a catch whose frame's stack pointer is @sp: the frames below it
 * are gone, those above return through the trampoline again. */
static NOINSTR void shadow_rehijack(const uintptr_t *sp)
{
	if (!mc.s)
		return;
	while (mc.top > FIRST && mc.top[-1].slot < sp)
		mc.top--;
	for (struct shent *e = FIRST; e < mc.top; e++)
		if (e->slot)
			*e->slot = (uintptr_t)vt_mcount_return;
}

static NOINSTR void *next_symbol(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p)
		abort(); /* called, so it exists */
	return p;
}

/* The unwinder's entry points (libgcc_s), prototypes of our own: the
 * arguments go through untouched. */
int _Unwind_RaiseException(void *exc);
int _Unwind_Resume_or_Rethrow(void *exc);
int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg);
void *__cxa_begin_catch(void *exc);

NOINSTR int _Unwind_RaiseException(void *exc)
{
	static int (*real)(void *);

	if (!real)
		real = (int (*)(void *))next_symbol("_Unwind_RaiseException");
	shadow_restore();
	return real(exc);
}

NOINSTR int _Unwind_Resume_or_Rethrow(void *exc)
{
	static int (*real)(void *);

	if (!real)
		real = (int (*)(void *))next_symbol("_Unwind_Resume_or_Rethrow");
	shadow_restore();
	return real(exc);
}

/* pthread_exit and cancellation: no frame survives. */
NOINSTR int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg)
{
	static int (*real)(void *, void *, void *);

	if (!real)
		real = (int (*)(void *, void *, void *))next_symbol("_Unwind_ForcedUnwind");
	shadow_restore();
	if (mc.s)
		mc.top = FIRST;
	return real(exc, stop, arg);
}

NOINSTR void *__cxa_begin_catch(void *exc)
{
	static void *(*real)(void *);

	if (!real)
		real = (void *(*)(void *))next_symbol("__cxa_begin_catch");
	/* The catching frame's stack pointer: just above this call's. */
	shadow_rehijack((const uintptr_t *)__builtin_frame_address(0) + 2);
	return real(exc);
}

/* ---- gprof's start and end in programs linked with -pg ---- */

static NOINSTR bool recording(void)
{
	const char *d = getenv("VELES_TRACE_DIR");

	return d && *d;
}

void __monstartup(unsigned long lowpc, unsigned long highpc);
void _mcleanup(void);

NOINSTR void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	if (!recording())
		((void (*)(unsigned long, unsigned long))next_symbol("__monstartup"))(lowpc,
										      highpc);
}

NOINSTR void _mcleanup(void)
{
	if (!recording())
		((void (*)(void))next_symbol("_mcleanup"))();
}
