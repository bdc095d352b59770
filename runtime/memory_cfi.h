/*
 * The runtime's own unwinder for code without frame pointers (x86-64):
 * the rule that finds a frame's caller, read from the object's
 * .eh_frame_hdr and .eh_frame (the DWARF call frame information every
 * object carries for exceptions). memory_cfi.c reads the tables and
 * nothing else, so that a unit test can feed it hand-made ones; the walk
 * that applies the rules, with its per-thread cache, is in memory_walk.c.
 */
#ifndef RUNTIME_MEMORY_CFI_H
#define RUNTIME_MEMORY_CFI_H

#include <stdint.h>

enum cfi_kind {
	CFI_EMPTY, /* a free cache entry */
	CFI_OK,	   /* the rule below finds the caller */
	CFI_END,   /* the return address is undefined: the thread's first frame */
	CFI_STOP,  /* no unwind information covers the address */
	CFI_HARD,  /* a rule this unwinder does not follow (expressions, signal
		    * frames, registers other than rsp and rbp): libunwind's */
};

#define CFI_CFA_RBP 1	/* the CFA is rbp + cfa_off, else rsp + cfa_off */
#define CFI_RBP_SAVED 2 /* the caller's rbp is at CFA + rbp_off, else rbp is kept */

/*
 * A frame's rule at one return address: the canonical frame address (the
 * stack pointer before the call) is a register plus an offset, the return
 * address lies at CFA + ra_off, and the caller's rbp at CFA + rbp_off when
 * the function saved it. Eight bytes, so that a cache entry is two words.
 */
struct cfi_rule {
	int32_t cfa_off;
	int16_t rbp_off;
	int8_t ra_off;
	uint8_t kind : 4;
	uint8_t flags : 4;
};

/* Where an object's tables lie: @hdr its .eh_frame_hdr, and every byte the
 * tables may take within [lo, hi) (its read-only segment), so that a
 * corrupt length ends the search rather than the program. */
struct cfi_tables {
	const unsigned char *hdr, *lo, *hi;
};

/* The rule at return address @ra (the call's next instruction: the row of
 * @ra - 1 applies). Never allocates, never reads outside the tables. */
struct cfi_rule cfi_rule_at(const struct cfi_tables *tab, uintptr_t ra);

/* Whether the object's code keeps frame pointers, by its unwind tables:
 * 1 when at least half the functions sampled make rbp + 16 their CFA, 0
 * when fewer do, -1 when it cannot tell. For objects whose prologues are
 * too few to judge (fpjudge.h). */
#define CFI_JUDGE_SAMPLE 64
int cfi_judge(const struct cfi_tables *tab);

#endif
