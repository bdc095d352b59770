/*
 * Where veles-mcount.S's fast paths find what they read and write: the
 * offsets of struct tbuf's (trace-priv.h) and struct shadow's fields
 * (veles-mcount.c), which assert that they match. Shared by C and
 * assembly, so constants only.
 */
#ifndef VELES_MCOUNT_LAYOUT_H
#define VELES_MCOUNT_LAYOUT_H

#define TB_DONE 40 /* the header's committed end (struct vtr_header) */
#define TB_POS 96
#define TB_END 104
#define TB_LAST 112
#define TB_FAST 120 /* struct fast fast[FAST_SLOTS], 16 bytes each */
#define FAST_FN 0
#define FAST_WORD 8
#define FAST_MASK 0xff0 /* FAST_SLOT(fn) * 16 */

#define SHADOW_MAX 4096 /* nested traced calls per thread; deeper ones go unrecorded */
#define MC_TOP 0	/* struct mc: one past the innermost entry */
#define MC_END 8
#define SHENT_SIZE 32
#define SHENT_RET 0
#define SHENT_SLOT 8
#define SHENT_FN 16
#define SHENT_WORD 24

#define DELTA_MAX 0xfffff   /* VTR_SHORT_DELTA */
#define EXIT_BIT 0x40000000 /* VTR_SHORT_EXIT */

#endif
