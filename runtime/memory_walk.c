/*
 * The stack walk beyond the last frame pointer (memory_priv.h,
 * vmem_cfi_walk): code without frame pointers is unwound with the rules of
 * its unwind tables (memory_cfi.c). Reading the tables costs microseconds,
 * so each thread keeps the rules it found in a direct-mapped cache by
 * return address: a frame seen before costs a few loads. The cache is the
 * thread's own (no locks, no atomics; a signal handler's allocation in
 * the middle of a walk is not recorded, so nothing else writes it), it is
 * mmap'd on the thread's first use, and it is emptied when an object was
 * unloaded, since another may since sit at the same addresses.
 *
 * Every register value comes from the stack, and a bad one (a rule that
 * does not fit the frame, a corrupt stack) must end the walk, never crash:
 * each address read lies between the current stack pointer and the top of
 * the thread's stack, and each new CFA above the last.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "memory_priv.h"

#define CACHE_BITS 12

struct cfi_entry {
	uintptr_t ra;
	struct cfi_rule rule;
};

/*
 * The thread's last walk, frame by frame: the registers at each frame
 * (sp, bp, ra) and where the walk read the next frame's return address
 * and rbp; rbp only counts where a rule reads it (most code without frame
 * pointers uses it as any other register, whose value varies). A walk
 * that reaches a frame with the same registers as one of these goes on
 * exactly as that walk did as long as the words read from the stack
 * beyond are still the same: those reads do not depend on each other, so
 * checking them costs far less than unwinding again. Events from one loop
 * share their outer frames, which are most of a stack.
 */
struct mframe {
	uintptr_t sp, bp, ra;
	uintptr_t ra_at, bp_at; /* bp_at 0: rbp kept, or not needed */
	uint64_t mul, add;	/* the hash of the frames after it as one multiply-add */
	bool bp_used;		/* this frame or one after reads rbp */
};

struct memo {
	int n;	      /* frames; 0: none */
	int end;      /* the rule that ended it (enum cfi_kind) */
	uintptr_t hi; /* the stack it was taken on */
	/* The outermost frame first: a walk that joins it at frame j keeps
	 * frames 0 to j as they are and writes its own above. */
	struct mframe f[VMEM_MAX_FRAMES];
};

#define MEMOS 16 /* a power of 2 */

struct cfi_cache {
	unsigned long long subs;	       /* the objects' dlclose count the rules belong to */
	struct memo memo[MEMOS];	       /* by the first frame */
	int last;			       /* the memo of the last walk */
	struct mframe walked[VMEM_MAX_FRAMES]; /* this walk's frames, innermost first */
	struct cfi_entry e[1 << CACHE_BITS];
};

/* What frame pointers mean: rbp is the frame, the CFA two words above it. */
static const struct cfi_rule fp_rule = {.cfa_off = 16,
					.rbp_off = -16,
					.ra_off = -8,
					.kind = CFI_OK,
					.flags = CFI_CFA_RBP | CFI_RBP_SAVED};

static struct cfi_cache *cache(struct tstate *t, const struct vmem_objs *objs)
{
	struct cfi_cache *c = t->cfi;

	if (!c) {
		void *p = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		t->cfi = c = p;
		c->subs = objs->subs;
	}
	if (c->subs != objs->subs) {
		memset(c->e, 0, sizeof(c->e));
		for (int i = 0; i < MEMOS; i++)
			c->memo[i].n = 0;
		c->subs = objs->subs;
	}
	return c;
}

/* The rule of a return address not in the cache; CFI_EMPTY (not kept)
 * when it lies in no loaded object: it was not a return address. */
__attribute__((noinline)) static struct cfi_rule
rule_miss(struct cfi_entry *e, const struct vmem_objs *objs, uintptr_t ra)
{
	const struct vmem_obj *o = vmem_obj_find(objs, ra);
	struct cfi_rule r = {.kind = CFI_STOP};

	if (!o && !(o = vmem_objs_miss(ra, false)))
		return (struct cfi_rule){.kind = CFI_EMPTY};
	if (o->cfi.hdr)
		r = cfi_rule_at(&o->cfi, ra);
	/* An object judged to keep frame pointers may lack the tables; a
	 * function without them in an object with them is not known to. */
	else if (o->fp)
		r = fp_rule;
	e->ra = ra;
	e->rule = r;
	return r;
}

static inline struct cfi_rule rule_of(struct cfi_cache *c, const struct vmem_objs *objs,
				      uintptr_t ra)
{
	struct cfi_entry *e = &c->e[(ra ^ (ra >> CACHE_BITS)) & ((1u << CACHE_BITS) - 1)];

	if (__builtin_expect(e->ra == ra, 1))
		return e->rule;
	return rule_miss(e, objs, ra);
}

/* Whether the word at @at lies in the stack between @sp and @hi. */
static inline bool on_stack(uintptr_t at, uintptr_t sp, uintptr_t hi)
{
	return at >= sp && at <= hi - 8 && !(at & 7);
}

/* Whether the words the memo's walk read beyond frame @j still hold
 * what it read there. */
static bool memo_holds(const struct memo *m, int j)
{
	bool same = true;

	for (int i = j; i > 0; i--) {
		const struct mframe *f = &m->f[i];

		same &= *(const uintptr_t *)f->ra_at == f[-1].ra;
		same &= !f->bp_at || *(const uintptr_t *)f->bp_at == f[-1].bp;
	}
	return same;
}

/* The memo's frame at (or beyond) *@j with @sp, @bp and @ra, whose tail
 * still holds and fits after @n frames: its index, or -1. */
static inline int memo_find(const struct memo *m, int *j, uintptr_t sp, uintptr_t bp, uintptr_t ra,
			    int n)
{
	while (*j >= 0 && m->f[*j].sp < sp)
		--*j;
	if (*j >= 0 && m->f[*j].sp == sp && m->f[*j].ra == ra &&
	    (m->f[*j].bp == bp || !m->f[*j].bp_used) && n + *j <= VMEM_MAX_FRAMES &&
	    memo_holds(m, *j))
		return *j;
	return -1;
}

/* Puts the @n frames of this walk above frame @at of the memo (-1: they
 * are the whole stack): each learns what the ones beyond need. */
static void memo_renew(struct cfi_cache *c, struct memo *m, int at, int n)
{
	for (int i = 0; i < n; i++) {
		struct mframe *f = &m->f[at + n - i];

		*f = c->walked[i];
		if (at + n - i == 0) {
			f->mul = 1;
			f->add = 0;
		}
	}
	for (int i = at < 0 ? 1 : at + 1; i <= at + n; i++) {
		struct mframe *f = &m->f[i];

		/* bp_used came in as whether the frame's own rule reads rbp. */
		if (!f[-1].bp_used)
			f->bp_at = 0;
		else if (!f->bp_at)
			f->bp_used = true; /* rbp kept, and the next frame reads it */
		f->mul = f[-1].mul * 0x9e3779b97f4a7c15u;
		f->add = f[-1].ra * 0x9e3779b97f4a7c15u * f[-1].mul + f[-1].add;
	}
	m->n = at + n + 1;
}

/* Where the memo of the stack whose first frame is @ra at @sp goes. */
static inline struct memo *memo_of(struct cfi_cache *c, uintptr_t sp, uintptr_t ra)
{
	uint64_t h = (ra ^ (sp << 16)) * 0x9e3779b97f4a7c15u;

	return &c->memo[h >> 60 & (MEMOS - 1)];
}

/* Takes the frames of @from beyond its frame @k into @to, this walk's
 * memo, which the walk then renews above them. */
static void memo_take(struct memo *to, const struct memo *from, int k)
{
	if (to == from)
		return;
	memcpy(to->f, from->f, (size_t)(k + 1) * sizeof(*to->f));
	to->end = from->end;
	to->hi = from->hi;
}

/* One frame's caller by rule @r: false when the frame does not fit the
 * stack. @f notes where the words came from. */
static inline bool step(struct cfi_rule r, struct mframe *f, uintptr_t *sp, uintptr_t *bp,
			uintptr_t *ra, uintptr_t hi)
{
	uintptr_t cfa = (r.flags & CFI_CFA_RBP ? *bp : *sp) + (uintptr_t)(intptr_t)r.cfa_off;
	uintptr_t at = cfa + (uintptr_t)(intptr_t)r.ra_off;

	if (cfa <= *sp || cfa > hi || !on_stack(at, *sp, hi))
		return false;
	*ra = *(const uintptr_t *)at;
	f->ra_at = at;
	if (r.flags & CFI_RBP_SAVED) {
		at = cfa + (uintptr_t)(intptr_t)r.rbp_off;
		if (!on_stack(at, *sp, hi))
			return false;
		*bp = *(const uintptr_t *)at;
		f->bp_at = at;
	}
	*sp = cfa;
	return true;
}

/* The frames of memo @x beyond its frame @k, after the @n in @pc (the
 * last of which is frame @k), into @pc and the hash; @m, this walk's
 * memo, becomes this stack. Returns the new count. */
static int take_tail(struct cfi_cache *c, struct memo *m, const struct memo *x, int k, int n,
		     uintptr_t *pc, uint64_t *h)
{
	for (int i = k - 1; i >= 0; i--)
		pc[n + k - i] = x->f[i].ra;
	*h = *h * x->f[k].mul + x->f[k].add;
	memo_take(m, x, k);
	memo_renew(c, m, k, n);
	return n + 1 + k;
}

/*
 * Two memos guide the walk: the one kept for stacks that start at the same
 * frame, which a loop's allocation sites meet again and again (it holds
 * the whole stack when nothing changed), and the last walk's, which
 * shares the outer frames with most stacks.
 */
int vmem_cfi_walk(struct tstate *t, const uintptr_t *fp, const uintptr_t *stop, int walked,
		  uintptr_t *pc, uint64_t *hash, bool *hard)
{
	const struct vmem_objs *objs = atomic_load_explicit(&vmem_objs, memory_order_acquire);
	const uintptr_t hi = t->stack_hi;
	uintptr_t sp = (uintptr_t)(fp + 2), bp, ra;
	uint64_t h = 0;
	struct cfi_cache *c;
	struct memo *m, *l;
	struct cfi_rule r;
	int n = 0, jm, jl, end;

	*hard = false;
	if (!objs || (uintptr_t)fp < t->stack_lo || sp > hi || !(c = cache(t, objs)))
		return -1;
	bp = fp[0];
	ra = fp[1];
	m = memo_of(c, sp, ra);
	l = &c->memo[c->last];
	/* A memo of another thread's stack, since reused, is no guide. */
	jm = m->hi == hi ? m->n - 1 : -1;
	jl = l->hi == hi && l != m ? l->n - 1 : -1;
	r = rule_of(c, objs, ra);
	for (;;) {
		const struct memo *x = m;
		int k = memo_find(m, &jm, sp, bp, ra, n + 1);
		struct mframe *f = &c->walked[n];

		if (k < 0 && (k = memo_find(l, &jl, sp, bp, ra, n + 1)) >= 0)
			x = l;
		pc[n] = ra;
		h = (h + ra) * 0x9e3779b97f4a7c15u;
		if (k >= 0) {
			end = x->end;
			n = take_tail(c, m, x, k, n, pc, &h);
			goto out;
		}
		*f = (struct mframe){.sp = sp, .bp = bp, .ra = ra};
		f->bp_used = r.kind == CFI_OK && (r.flags & CFI_CFA_RBP);
		if (++n == VMEM_MAX_FRAMES || r.kind != CFI_OK || !step(r, f, &sp, &bp, &ra, hi))
			break;
		r = rule_of(c, objs, ra);
		if (r.kind == CFI_EMPTY)
			break;
	}
	end = r.kind;
	/* What ends the walk depends on the frames alone; not so a frame
	 * count cut short, or an address in no object yet. */
	if (end != CFI_HARD && end != CFI_EMPTY && n < VMEM_MAX_FRAMES) {
		memo_renew(c, m, -1, n);
		m->end = end;
		m->hi = hi;
	} else {
		m->n = 0;
	}
out:
	c->last = (int)(m - c->memo);
	*hard = end == CFI_HARD;
	/* The frame pointers led to @stop, and the tables agree: a short
	 * tail from there to the thread's first frame is its floor. */
	if (end == CFI_END && stop && walked > 0 && walked <= n && pc[walked - 1] == stop[1] &&
	    n - walked < FLOOR_MAX)
		vmem_floor_set(t, stop, pc + walked - 1, n - walked + 1);
	*hash = h;
	return n;
}

void vmem_floor_set(struct tstate *t, const uintptr_t *slot, const uintptr_t *pc, int n)
{
	t->floor.slot = 0;   /* a signal handler's walk sees no half-made floor */
	t->memo_objs = NULL; /* they ended on the old floor */
	atomic_signal_fence(memory_order_seq_cst);
	t->floor.n = n;
	t->floor.mul = 1;
	t->floor.add = 0;
	for (int i = 0; i < n; i++) {
		t->floor.pc[i] = pc[i];
		t->floor.mul *= 0x9e3779b97f4a7c15u;
		t->floor.add = (t->floor.add + pc[i]) * 0x9e3779b97f4a7c15u;
	}
	t->floor.ret = slot[1];
	t->floor.link = slot[0];
	atomic_signal_fence(memory_order_seq_cst);
	t->floor.slot = (uintptr_t)slot;
}
