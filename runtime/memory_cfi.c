/*
 * Reading the DWARF call frame information of x86-64 code (memory_cfi.h):
 * the binary search table of .eh_frame_hdr gives the FDE that covers an
 * address, and its CIE's initial instructions and its own, run up to that
 * address, give the rule. Only what compilers emit for ordinary functions
 * is followed: the CFA as rsp or rbp plus an offset, and rbp and the
 * return address saved at offsets from it. Anything else (expressions,
 * signal frames, other CFA registers) is CFI_HARD and left to libunwind.
 *
 * Every read is checked against the bounds of the tables: this runs in the
 * profiled program's allocator, and a bad table must not crash it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "memory_cfi.h"

/* DWARF register numbers (x86-64 psABI). */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

#define PE_OMIT 0xff
#define PE_PCREL 0x10
#define PE_DATAREL 0x30
#define PE_INDIRECT 0x80
#define STATE_STACK 4 /* DW_CFA_remember_state nesting, at most */

/* A cursor over the tables; @bad once a read went past @end. */
struct cur {
	const unsigned char *p, *end, *base;
	bool bad;
};

static uint64_t get(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint64_t b = get(c, 1);

		v |= (b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0, b = 0;
	unsigned shift = 0;

	do {
		if (shift >= 64) {
			c->bad = true;
			return 0;
		}
		b = get(c, 1);
		v |= (b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* An encoded pointer (DW_EH_PE_*); @rel says whether the pcrel or datarel
 * part applies (a length is only the value). */
static uintptr_t pointer(struct cur *c, unsigned enc, bool rel)
{
	const unsigned char *at = c->p;
	uint64_t v;

	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		v = get(c, 8);
		break;
	case 0x01:
		v = uleb(c);
		break;
	case 0x09:
		v = (uint64_t)sleb(c);
		break;
	case 0x02:
		v = get(c, 2);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)get(c, 2);
		break;
	case 0x03:
		v = get(c, 4);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)get(c, 4);
		break;
	default:
		c->bad = true;
		return 0;
	}
	if (!rel)
		return (uintptr_t)v;
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		v += (uintptr_t)at;
		break;
	case PE_DATAREL:
		v += (uintptr_t)c->base;
		break;
	default:
		c->bad = true;
	}
	return (uintptr_t)v;
}

/* How a register is recovered: kept, saved at CFA + off, or undefined. */
enum how { KEPT, SAVED, UNDEF, ODD };

struct regs {
	int cfa_reg;
	int64_t cfa_off;
	enum how rbp, ra;
	int64_t rbp_off, ra_off;
	bool odd_cfa;
	bool rbp_frame; /* the CFA was rbp + 16 at some point: a frame pointer */
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned fde_enc;
	bool aug_z, signal;
	const unsigned char *insns, *end;
};

/* @v times the data alignment factor; bad when it does not fit. */
static int64_t scaled(struct cur *c, int64_t v, int64_t align)
{
	int64_t out;

	if (__builtin_mul_overflow(v, align, &out)) {
		c->bad = true;
		return 0;
	}
	return out;
}

static int64_t uscaled(struct cur *c, int64_t align)
{
	uint64_t v = uleb(c);

	if (v > INT32_MAX) {
		c->bad = true;
		return 0;
	}
	return scaled(c, (int64_t)v, align);
}

/* Sets register @reg's rule; the registers we do not need are ignored. */
static void set_reg(struct regs *r, uint64_t reg, enum how how, int64_t off)
{
	if (reg == REG_RBP) {
		r->rbp = how;
		r->rbp_off = off;
	} else if (reg == REG_RA) {
		r->ra = how;
		r->ra_off = off;
	}
}

/* Skips a DWARF expression block; it makes register @reg's rule odd
 * (-1: the CFA's). */
static void expression(struct cur *c, struct regs *r, int64_t reg)
{
	uint64_t len = uleb(c);

	if (len > (uint64_t)(c->end - c->p))
		c->bad = true;
	else
		c->p += len;
	if (reg < 0)
		r->odd_cfa = true;
	else
		set_reg(r, (uint64_t)reg, ODD, 0);
}

/* One of the register instructions (the low 6 bits are not an operand). */
static bool reg_insn(struct cur *c, unsigned op, const struct cie *ci, struct regs *r,
		     const struct regs *init)
{
	uint64_t reg;

	switch (op) {
	case 0x05: /* offset_extended */
		reg = uleb(c);
		set_reg(r, reg, SAVED, uscaled(c, ci->data_align));
		return true;
	case 0x06: /* restore_extended */
		reg = uleb(c);
		if (reg == REG_RBP)
			set_reg(r, reg, init->rbp, init->rbp_off);
		else if (reg == REG_RA)
			set_reg(r, reg, init->ra, init->ra_off);
		return true;
	case 0x07: /* undefined */
		set_reg(r, uleb(c), UNDEF, 0);
		return true;
	case 0x08: /* same_value */
		set_reg(r, uleb(c), KEPT, 0);
		return true;
	case 0x09: /* register */
		reg = uleb(c);
		(void)uleb(c);
		set_reg(r, reg, ODD, 0);
		return true;
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		reg = uleb(c);
		expression(c, r, (int64_t)(reg & INT64_MAX));
		return true;
	case 0x11: /* offset_extended_sf */
		reg = uleb(c);
		set_reg(r, reg, SAVED, scaled(c, sleb(c), ci->data_align));
		return true;
	case 0x14: /* val_offset */
		reg = uleb(c);
		(void)uleb(c);
		set_reg(r, reg, ODD, 0);
		return true;
	case 0x15: /* val_offset_sf */
		reg = uleb(c);
		(void)sleb(c);
		set_reg(r, reg, ODD, 0);
		return true;
	case 0x2f: /* GNU_negative_offset_extended */
		reg = uleb(c);
		set_reg(r, reg, SAVED, -uscaled(c, ci->data_align));
		return true;
	}
	return false;
}

/* One of the CFA instructions. */
static bool cfa_insn(struct cur *c, unsigned op, const struct cie *ci, struct regs *r)
{
	switch (op) {
	case 0x0c: /* def_cfa */
		r->cfa_reg = (int)uleb(c);
		r->cfa_off = (int64_t)uleb(c);
		r->odd_cfa = false;
		break;
	case 0x0d: /* def_cfa_register */
		r->cfa_reg = (int)uleb(c);
		break;
	case 0x0e: /* def_cfa_offset */
		r->cfa_off = (int64_t)uleb(c);
		break;
	case 0x0f: /* def_cfa_expression */
		expression(c, r, -1);
		break;
	case 0x12: /* def_cfa_sf */
		r->cfa_reg = (int)uleb(c);
		r->cfa_off = scaled(c, sleb(c), ci->data_align);
		r->odd_cfa = false;
		break;
	case 0x13: /* def_cfa_offset_sf */
		r->cfa_off = scaled(c, sleb(c), ci->data_align);
		break;
	case 0x2e: /* GNU_args_size */
		(void)uleb(c);
		break;
	default:
		return false;
	}
	r->rbp_frame |= !r->odd_cfa && r->cfa_reg == REG_RBP && r->cfa_off == 16;
	return true;
}

/*
 * Runs the instructions in @c while the location stays at or below
 * @target (the CIE's run with no target: UINTPTR_MAX). @init is the state
 * after the CIE's instructions, which DW_CFA_restore goes back to. False
 * for an instruction this reader does not know.
 */
static bool run(struct cur *c, const struct cie *ci, uintptr_t loc, uintptr_t target,
		struct regs *r, const struct regs *init)
{
	struct regs saved[STATE_STACK];
	int depth = 0;

	while (c->p < c->end && !c->bad) {
		unsigned op = (unsigned)get(c, 1);
		uint64_t delta = 0;

		if ((op & 0xc0) == 0x40)
			delta = op & 0x3f;
		else if (op == 0x02)
			delta = get(c, 1);
		else if (op == 0x03)
			delta = get(c, 2);
		else if (op == 0x04)
			delta = get(c, 4);
		if ((op & 0xc0) == 0x40 || (op >= 0x02 && op <= 0x04)) {
			loc += (uintptr_t)(delta * ci->code_align);
			if (loc > target)
				return true;
		} else if ((op & 0xc0) == 0x80) {
			set_reg(r, op & 0x3f, SAVED, uscaled(c, ci->data_align));
		} else if ((op & 0xc0) == 0xc0) {
			if ((op & 0x3f) == REG_RBP)
				set_reg(r, REG_RBP, init->rbp, init->rbp_off);
			else if ((op & 0x3f) == REG_RA)
				set_reg(r, REG_RA, init->ra, init->ra_off);
		} else if (op == 0x0a) { /* remember_state */
			if (depth == STATE_STACK)
				return false;
			saved[depth++] = *r;
		} else if (op == 0x0b) { /* restore_state */
			if (depth == 0)
				return false;
			*r = saved[--depth];
		} else if (op != 0x00 && !reg_insn(c, op, ci, r, init) && !cfa_insn(c, op, ci, r)) {
			return false; /* set_loc and the vendors' others */
		}
	}
	return !c->bad;
}

/* The CIE at @p; false when it is not one this reader follows. */
static bool read_cie(const unsigned char *p, const struct cfi_tables *tab, struct cie *ci)
{
	struct cur c = {p, tab->hi, tab->hdr, false};
	uint64_t len = get(&c, 4);
	const char *aug;
	size_t auglen;

	if (p < tab->lo || len == 0 || len >= 0xfffffff0u || len > (uint64_t)(tab->hi - c.p))
		return false;
	c.end = c.p + len;
	if (get(&c, 4) != 0) /* the CIE id */
		return false;
	unsigned version = (unsigned)get(&c, 1);
	if (version != 1 && version != 3)
		return false;
	aug = (const char *)c.p;
	auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return false;
	c.p += auglen + 1;
	memset(ci, 0, sizeof(*ci));
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	if (version == 1)
		(void)get(&c, 1);
	else
		(void)uleb(&c);
	ci->fde_enc = 0; /* absptr */
	if (aug[0] == 'z') {
		uint64_t alen = uleb(&c);
		const unsigned char *aend = c.p + alen;

		if (alen > (uint64_t)(c.end - c.p))
			return false;
		ci->aug_z = true;
		for (size_t i = 1; i < auglen && !c.bad; i++) {
			if (aug[i] == 'R')
				ci->fde_enc = (unsigned)get(&c, 1);
			else if (aug[i] == 'L')
				(void)get(&c, 1);
			else if (aug[i] == 'P')
				(void)pointer(&c, (unsigned)get(&c, 1) & ~PE_INDIRECT, false);
			else if (aug[i] == 'S')
				ci->signal = true;
			else
				break; /* the rest is skipped by the length */
		}
		c.p = aend;
	} else if (aug[0] != '\0') {
		return false;
	}
	ci->insns = c.p;
	ci->end = c.end;
	return !c.bad;
}

/* The search table of .eh_frame_hdr: @count entries of two 4-byte
 * offsets from the header (initial location, FDE), sorted. NULL when the
 * header is not what every linker writes. */
static const unsigned char *search_table(const struct cfi_tables *tab, size_t *count)
{
	struct cur c = {tab->hdr, tab->hi, tab->hdr, false};
	unsigned frame_enc, count_enc, table_enc;

	if (!tab->hdr || tab->hdr < tab->lo || tab->hdr >= tab->hi || get(&c, 1) != 1)
		return NULL;
	frame_enc = (unsigned)get(&c, 1);
	count_enc = (unsigned)get(&c, 1);
	table_enc = (unsigned)get(&c, 1);
	if (table_enc != (PE_DATAREL | 0x0b) || frame_enc == PE_OMIT || count_enc == PE_OMIT)
		return NULL;
	(void)pointer(&c, frame_enc, true);
	*count = pointer(&c, count_enc, true);
	if (c.bad || *count == 0 || *count > (size_t)(tab->hi - c.p) / 8)
		return NULL;
	return c.p;
}

static uintptr_t entry(const struct cfi_tables *tab, const unsigned char *table, size_t i, int half)
{
	int32_t off;

	memcpy(&off, table + 8 * i + 4 * half, 4);
	return (uintptr_t)tab->hdr + (uintptr_t)(intptr_t)off;
}

/* The FDE whose address the search table gives for @pc, or NULL. */
static const unsigned char *find_fde(const struct cfi_tables *tab, uintptr_t pc)
{
	size_t count, lo = 0, hi;
	const unsigned char *table = search_table(tab, &count);

	if (!table)
		return NULL;
	hi = count;
	while (lo + 1 < hi) { /* the last entry at or below @pc */
		size_t mid = (lo + hi) / 2;

		if (entry(tab, table, mid, 0) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (entry(tab, table, lo, 0) > pc)
		return NULL;
	return (const unsigned char *)entry(tab, table, lo, 1);
}

/* An FDE and its CIE, their instructions ready to run. */
struct fde {
	struct cie ci;
	struct cur insns;
	uintptr_t begin, range;
};

/* Opens the FDE at @p: CFI_OK, CFI_STOP (not an FDE), or CFI_HARD (one
 * this reader does not follow). */
static int open_fde(const struct cfi_tables *tab, const unsigned char *p, struct fde *f)
{
	struct cur c = {p, tab->hi, tab->hdr, false};
	const unsigned char *idp;
	uint64_t len, id;

	if (!p || p < tab->lo || p >= tab->hi)
		return CFI_STOP;
	len = get(&c, 4);
	if (len == 0 || len >= 0xfffffff0u || len > (uint64_t)(tab->hi - c.p))
		return CFI_STOP;
	c.end = c.p + len;
	idp = c.p;
	id = get(&c, 4);
	if (id == 0 || id > (uintptr_t)(idp - tab->lo) || !read_cie(idp - id, tab, &f->ci))
		return CFI_HARD;
	f->begin = pointer(&c, f->ci.fde_enc, true);
	f->range = pointer(&c, f->ci.fde_enc & 0x0f, false);
	if (f->ci.aug_z) {
		uint64_t alen = uleb(&c);

		if (alen > (uint64_t)(c.end - c.p))
			return CFI_HARD;
		c.p += alen;
	}
	f->insns = c;
	return c.bad ? CFI_HARD : CFI_OK;
}

/* Runs the CIE's instructions, then the FDE's up to @pc, into @r. */
static bool run_fde(struct fde *f, uintptr_t pc, struct regs *r)
{
	struct regs init = {.cfa_reg = -1, .rbp = KEPT, .ra = KEPT};
	struct cur cc = {f->ci.insns, f->ci.end, f->insns.base, false};

	if (!run(&cc, &f->ci, 0, UINTPTR_MAX, &init, &init))
		return false;
	*r = init;
	return run(&f->insns, &f->ci, f->begin, pc, r, &init);
}

/* The rule from the registers' state after the instructions. */
static struct cfi_rule to_rule(const struct regs *r)
{
	struct cfi_rule rule = {.kind = CFI_HARD};

	if (r->ra == UNDEF) {
		rule.kind = CFI_END;
		return rule;
	}
	if (r->odd_cfa || (r->cfa_reg != REG_RSP && r->cfa_reg != REG_RBP) || r->ra != SAVED ||
	    r->rbp == ODD || r->cfa_off < INT32_MIN || r->cfa_off > INT32_MAX ||
	    r->ra_off < INT8_MIN || r->ra_off > INT8_MAX || r->rbp_off < INT16_MIN ||
	    r->rbp_off > INT16_MAX)
		return rule;
	rule.kind = CFI_OK;
	rule.cfa_off = (int32_t)r->cfa_off;
	rule.ra_off = (int8_t)r->ra_off;
	rule.rbp_off = (int16_t)r->rbp_off;
	rule.flags =
		(r->cfa_reg == REG_RBP ? CFI_CFA_RBP : 0) | (r->rbp == SAVED ? CFI_RBP_SAVED : 0);
	return rule;
}

struct cfi_rule cfi_rule_at(const struct cfi_tables *tab, uintptr_t ra)
{
	struct cfi_rule stop = {.kind = CFI_STOP}, hard = {.kind = CFI_HARD};
	uintptr_t pc = ra - 1;
	struct fde f;
	struct regs r;
	int kind = open_fde(tab, find_fde(tab, pc), &f);

	if (kind != CFI_OK)
		return kind == CFI_STOP ? stop : hard;
	if (pc < f.begin || pc - f.begin >= f.range)
		return stop;
	if (f.ci.signal || !run_fde(&f, pc, &r))
		return hard;
	return to_rule(&r);
}

int cfi_judge(const struct cfi_tables *tab)
{
	size_t count, with = 0, seen = 0;
	const unsigned char *table = search_table(tab, &count);

	if (!table)
		return -1;
	for (size_t k = 0; k < CFI_JUDGE_SAMPLE && k < count; k++) {
		/* Spread over the table: neighbours come from one source file. */
		size_t i = count <= CFI_JUDGE_SAMPLE ? k : k * (count / CFI_JUDGE_SAMPLE);
		struct fde f;
		struct regs r;

		if (open_fde(tab, (const unsigned char *)entry(tab, table, i, 1), &f) != CFI_OK ||
		    f.range < 16 || !run_fde(&f, UINTPTR_MAX, &r))
			continue;
		with += r.rbp_frame;
		seen++;
	}
	if (seen == 0)
		return -1;
	return with * 2 >= seen;
}
